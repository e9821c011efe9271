/* tools.c: see tools.h. */
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "core/version.h"
#include "nsight/tools.h"
#include "nsight/nsys.h"
#include "core/banned.h"

/* How long one --version (nsys's, ncu's, the importer's) may take. */
#define TOOL_PROBE_TIMEOUT_S 20

char *tool_too_old(const char *name, const char *version)
{
	int nsys = !strcmp(name, "nsys");
	int major = nsys ? TOOL_NSYS_MIN_MAJOR : TOOL_NCU_MIN_MAJOR;
	int minor = nsys ? TOOL_NSYS_MIN_MINOR : TOOL_NCU_MIN_MINOR;
	struct strbuf sb = STRBUF_INIT;

	if (version_older(version, major, minor) != 1)
		return NULL;
	strbuf_addf(&sb, "%s %s is older than %d.%d, the oldest llmprof supports", name, version,
		    major, minor);
	return strbuf_detach(&sb, NULL);
}

/* Runs `path --version`; 0 with its output in out (stdout and stderr), or
 * -1 with why ("'P --version' exited with status 3"). */
static int run_version(const char *path, struct strbuf *out, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT, d = STRBUF_INIT;
	const char *argv[] = {path, "--version", NULL};
	struct proc_spec spec = {
	    .argv = argv, .stdin_null = 1, .timeout_s = TOOL_PROBE_TIMEOUT_S, .grace_s = 1};
	struct proc_result res;
	int ret = -1;

	spec.out.buf = out;
	spec.err.buf = out;
	if (proc_run(&spec, &res, &err)) {
		strbuf_addf(why, "cannot run '%s --version': %s", path, err.buf);
		goto out;
	}
	if (res.outcome != PROC_EXITED || res.exit_status) {
		proc_result_describe(&res, &spec, &d);
		strbuf_addf(why, "'%s --version' %s", path, d.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&err);
	strbuf_release(&d);
	return ret;
}

void tool_probe(struct tool_info *info, const char *name, const char *configured)
{
	struct strbuf out = STRBUF_INIT;

	if (!strcmp(name, "nsys") || !strcmp(name, "ncu")) {
		struct tool_found f;

		tool_find(!strcmp(name, "nsys") ? TOOL_NSYS : TOOL_NCU, configured, &f);
		info->path = f.path ? xstrdup(f.path) : NULL;
		info->version = f.version ? xstrdup(f.version) : NULL;
		if (f.problem)
			strbuf_add(&info->note, f.why.buf, f.why.len);
		else
			strbuf_add(&info->note, f.note.buf, f.note.len);
		tool_found_release(&f);
		return;
	}
	info->path = find_in_path(configured ? configured : name);
	if (!info->path) {
		if (configured)
			strbuf_addf(&info->note, "'%s' (from config) is not an executable file",
				    configured);
		else
			strbuf_addf(&info->note, "'%s' not found on PATH", name);
		goto out;
	}
	if (run_version(info->path, &out, &info->note))
		goto out;
	info->version = version_parse(out.buf, out.len);
	if (!info->version)
		strbuf_addf(&info->note, "'%s --version' printed no version", info->path);
out:
	strbuf_release(&out);
}

void tool_info_release(struct tool_info *info)
{
	FREE_AND_NULL(info->path);
	FREE_AND_NULL(info->version);
	strbuf_release(&info->note);
}

/* ---- finding a tool: one table, one search order ------------------------ */

struct tool_spec {
	const char *name;	    /* the file's name */
	const char *key;	    /* config key naming the file, or NULL */
	const char *env;	    /* variable naming the file (env_dir: its folder) */
	const char *env_old;	    /* deprecated name of env, or NULL */
	int env_dir;		    /* env names the folder holding name */
	int exec;		    /* must be executable (else readable) */
	int on_path;		    /* searched on PATH */
	const char *const rel[3];   /* relative to the folder of llmprof */
	const char *const known[4]; /* absolute, under the sysroot; '*' = a
				       version folder, the newest first */
	const char *fix;	    /* what to do when none is found */
};

static const struct tool_spec specs[] = {
    [TOOL_NSYS] =
	{
	    .name = "nsys",
	    .key = "pipeline.nsys.path",
	    .exec = 1,
	    .on_path = 1,
	    .known = {"/opt/nvidia/nsight-systems/*/bin/nsys",
		      "/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys",
		      "/usr/local/cuda/bin/nsys"},
	    .fix = "install Nsight Systems and put nsys on PATH, or set pipeline.nsys.path; "
		   "pipeline.trace.backend=builtin needs no nsys",
	},
    [TOOL_NCU] =
	{
	    .name = "ncu",
	    .key = "pipeline.ncu.path",
	    .exec = 1,
	    .on_path = 1,
	    .known = {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"},
	    .fix = "install Nsight Compute and put ncu on PATH, or set pipeline.ncu.path",
	},
    [TOOL_TRACER] =
	{
	    .name = "libllmprof_tracer.so",
	    .env = "LLMPROF_TRACER_LIB",
	    .env_old = "LLMPROF_TRACER",
	    .rel = {"tracer/libllmprof_tracer.so", "../lib/llmprof/libllmprof_tracer.so"},
	    .fix = "build it with 'make' on a machine with the CUDA toolkit (tracer/), or set "
		   "LLMPROF_TRACER_LIB",
	},
    [TOOL_LLM] =
	{
	    .name = "llmprof-llm",
	    .env = "LLMPROF_WORKLOADS_DIR",
	    .env_dir = 1,
	    .exec = 1,
	    .rel = {"workloads/llmprof-llm", "../libexec/llmprof/llmprof-llm"},
	    .fix = "build it with 'make' (workloads/), or set LLMPROF_WORKLOADS_DIR; "
		   "'-- PROGRAM ARGS' needs neither",
	},
    [TOOL_DUMMY] =
	{
	    .name = "llmprof-dummy",
	    .env = "LLMPROF_WORKLOADS_DIR",
	    .env_dir = 1,
	    .exec = 1,
	    .rel = {"workloads/llmprof-dummy", "../libexec/llmprof/llmprof-dummy"},
	    .fix = "build it with 'make' (workloads/), or set LLMPROF_WORKLOADS_DIR; "
		   "'-- PROGRAM ARGS' needs neither",
	},
    [TOOL_CALIBRATE] =
	{
	    .name = "llmprof-calibrate",
	    .env = "LLMPROF_CALIBRATE",
	    .exec = 1,
	    .on_path = 1,
	    .rel = {"llmprof-calibrate", "../libexec/llmprof/llmprof-calibrate"},
	    .fix = "it is built only where nvcc exists; set LLMPROF_CALIBRATE to its path",
	},
    [TOOL_PYTORCH] =
	{
	    .name = "sitecustomize.py",
	    .env = "LLMPROF_PYTORCH_DIR",
	    .env_dir = 1,
	    .rel = {"pytorch/sitecustomize.py", "../lib/llmprof/pytorch/sitecustomize.py"},
	    .fix = "build it with 'make' (pytorch/), or set LLMPROF_PYTORCH_DIR to the folder "
		   "holding llmprof's sitecustomize.py; pipeline.trace.pytorch=none needs none",
	},
};

const char *tool_sysroot(void)
{
	const char *r = getenv("LLMPROF_SYSROOT");

	return r ? r : "";
}

/* Sorts version folder names like 2025.3.1 numerically, newest first. */
static int cmp_version_desc(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	while (*x || *y) {
		char *ex, *ey;
		unsigned long vx = strtoul(x, &ex, 10), vy = strtoul(y, &ey, 10);
		if (vx != vy)
			return vx < vy ? 1 : -1;
		if (ex == x || ey == y)
			return strcmp(y, x);
		x = *ex ? ex + 1 : ex;
		y = *ey ? ey + 1 : ey;
	}
	return 0;
}

struct cands {
	char **path;
	const char **source;
	size_t nr, alloc, alloc2;
};

static void cands_add(struct cands *c, char *owned, const char *source)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->path[i], owned)) {
			free(owned);
			return;
		}
	ALLOC_GROW(c->path, c->nr + 1, c->alloc);
	ALLOC_GROW(c->source, c->nr + 1, c->alloc2);
	c->path[c->nr] = owned;
	c->source[c->nr++] = source;
}

static void cands_release(struct cands *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->path[i]);
	free(c->path);
	free(c->source);
}

/* root + pattern, its one '*' replaced by each version folder that exists
 * (names starting with a digit), the newest first. */
static void add_known(struct cands *c, const char *root, const char *pattern)
{
	const char *star = strchr(pattern, '*');
	struct strbuf dir = STRBUF_INIT, sb = STRBUF_INIT;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	DIR *d;
	struct dirent *de;

	if (!star) {
		strbuf_addf(&sb, "%s%s", root, pattern);
		if (path_exists(sb.buf))
			cands_add(c, strbuf_detach(&sb, NULL), "known location");
		goto out;
	}
	strbuf_addf(&dir, "%s%.*s", root, (int)(star - pattern), pattern);
	if (!(d = opendir(dir.buf)))
		goto out;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0])) {
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(de->d_name);
		}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_version_desc);
	for (size_t i = 0; i < nr; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s%s%s", dir.buf, names[i], star + 1);
		if (path_exists(sb.buf))
			cands_add(c, xstrdup(sb.buf), "known location");
		free(names[i]);
	}
	free(names);
out:
	strbuf_release(&dir);
	strbuf_release(&sb);
}

/* Where the default search looked, for "not found": "PATH, /a, /b". */
static void describe_search(const struct tool_spec *t, const char *exe, struct strbuf *out)
{
	const char *root = tool_sysroot();
	const char *sep = "";

	for (size_t i = 0; i < ARRAY_SIZE(t->rel) && t->rel[i]; i++) {
		strbuf_addf(out, "%s%s/%s", sep, exe, t->rel[i]);
		sep = ", ";
	}
	for (size_t i = 0; i < ARRAY_SIZE(t->known) && t->known[i]; i++) {
		strbuf_addf(out, "%s%s%s", sep, root, t->known[i]);
		sep = ", ";
	}
}

static void set_problem(struct tool_found *f, enum tool_problem p, const char *fix, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));
static void set_problem(struct tool_found *f, enum tool_problem p, const char *fix, const char *fmt,
			...)
{
	va_list ap;

	f->problem = p;
	va_start(ap, fmt);
	strbuf_vaddf(&f->why, fmt, ap);
	va_end(ap);
	if (fix)
		strbuf_addstr(&f->fix, fix);
	/* one line, whatever a child printed */
	for (size_t i = 0; i < f->why.len; i++)
		if (f->why.buf[i] == '\n' || f->why.buf[i] == '\r')
			f->why.buf[i] = ' ';
}

/* Every library the importer lacks, as the dynamic loader lists them
 * (LD_TRACE_LOADED_OBJECTS=1: what ldd does, without running the program):
 * replaces *libs when the loader names any. */
static void importer_missing_libs(const char *importer, struct strbuf *libs)
{
	static const char *const env[] = {"LD_TRACE_LOADED_OBJECTS=1", NULL};
	const char *argv[] = {importer, NULL};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, all = STRBUF_INIT;
	struct proc_spec spec = {.argv = argv,
				 .stdin_null = 1,
				 .timeout_s = TOOL_PROBE_TIMEOUT_S,
				 .grace_s = 1,
				 .env_add = env};
	struct proc_result res;

	spec.out.buf = &out;
	spec.err.buf = &out;
	if (!proc_run(&spec, &res, &err) && nsys_loader_not_found(out.buf, out.len, &all)) {
		strbuf_reset(libs);
		strbuf_add(libs, all.buf, all.len);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&all);
}

/* nsys's importer: where nsys looks for it, and that it starts. */
static void check_importer(struct tool_found *f)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, lib = STRBUF_INIT, d = STRBUF_INIT;
	const char *argv[] = {NULL, "--version", NULL};
	struct proc_spec spec = {
	    .argv = argv, .stdin_null = 1, .timeout_s = TOOL_PROBE_TIMEOUT_S, .grace_s = 1};
	struct proc_result res;

	if (!f->importer) {
		set_problem(f, TOOL_NO_IMPORTER,
			    "install the full Nsight Systems (host + target), or use "
			    "pipeline.trace.backend=builtin",
			    "nsys %s has no QdstrmImporter next to it: it would record a .qdstrm "
			    "but never write a .nsys-rep",
			    f->version);
		goto out;
	}
	argv[0] = f->importer;
	spec.out.buf = &out;
	spec.err.buf = &out;
	if (proc_run(&spec, &res, &err)) {
		set_problem(f, TOOL_IMPORTER_BROKEN, "reinstall Nsight Systems",
			    "the importer %s cannot run: %s", f->importer, err.buf);
	} else if (nsys_importer_loader_failure(out.buf, out.len, &lib)) {
		struct strbuf fix = STRBUF_INIT;

		/* the loader names the first library it lacks; ask it for all */
		importer_missing_libs(f->importer, &lib);
		strbuf_addf(&fix,
			    "put %s on LD_LIBRARY_PATH (docs/nsys.md, \"When nsys's importer "
			    "lacks libraries\")",
			    lib.buf);
		set_problem(f, TOOL_IMPORTER_BROKEN, fix.buf,
			    "nsys's importer cannot start: %s %s missing, so nsys leaves a "
			    ".qdstrm and no report",
			    lib.buf, strchr(lib.buf, ',') ? "are" : "is");
		strbuf_release(&fix);
	} else if (res.outcome != PROC_EXITED || res.exit_status) {
		proc_result_describe(&res, &spec, &d);
		strbuf_trim(&out);
		set_problem(
		    f, TOOL_IMPORTER_BROKEN, "run the importer by hand with --version to see why",
		    "nsys's importer %s fails to start (%s): %.200s", f->importer, d.buf, out.buf);
	}
out:
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&lib);
	strbuf_release(&d);
}

/* Checks one candidate that exists; fills f (path, version, problem). */
static void check_candidate(const struct tool_spec *t, enum tool_id id, struct tool_found *f,
			    const char *label)
{
	struct strbuf out = STRBUF_INIT;
	char *old = NULL;

	if (path_is_dir(f->path)) {
		set_problem(f, TOOL_NOT_RUNNABLE, NULL,
			    "%s is a directory; give the %s file (e.g. %s/%s)", label, t->name,
			    f->path, t->name);
		goto out;
	}
	if (t->exec ? !path_is_executable_file(f->path) : access(f->path, R_OK)) {
		set_problem(f, TOOL_NOT_RUNNABLE, NULL, "%s is not %s", label,
			    t->exec ? "an executable file" : "a readable file");
		goto out;
	}
	if (id != TOOL_NSYS && id != TOOL_NCU)
		goto out;
	if (run_version(f->path, &out, &f->why)) {
		f->problem = TOOL_NOT_RUNNABLE;
		strbuf_addf(&f->fix,
			    "check that this is NVIDIA's %s and that it runs on this machine",
			    t->name);
		goto out;
	}
	f->version = version_parse(out.buf, out.len);
	if (!f->version) {
		if (id == TOOL_NSYS)
			set_problem(f, TOOL_NOT_RUNNABLE,
				    "check that this is NVIDIA's nsys and that it runs on this "
				    "machine",
				    "'%s --version' printed no version", f->path);
		else /* ncu goes on: the capture will say */
			strbuf_addf(&f->note, "'%s --version' printed no version", f->path);
		goto out;
	}
	if (id == TOOL_NSYS) /* doctor shows it even for an nsys too old */
		f->importer = nsys_find_importer(f->path);
	if ((old = tool_too_old(t->name, f->version))) {
		struct strbuf fix = STRBUF_INIT;

		if (id == TOOL_NSYS)
			strbuf_addf(
			    &fix,
			    "install Nsight Systems %d.%d or newer (older `nsys stats` lacks "
			    "the report names llmprof reads, such as cuda_gpu_kern_sum), or "
			    "set pipeline.nsys.path; pipeline.trace.backend=builtin needs no "
			    "nsys",
			    TOOL_NSYS_MIN_MAJOR, TOOL_NSYS_MIN_MINOR);
		else
			strbuf_addf(
			    &fix, "install Nsight Compute %d.%d or newer, or set pipeline.ncu.path",
			    TOOL_NCU_MIN_MAJOR, TOOL_NCU_MIN_MINOR);
		set_problem(f, TOOL_TOO_OLD, fix.buf, "%s (%s)", old, f->path);
		strbuf_release(&fix);
		goto out;
	}
	if (id == TOOL_NSYS)
		check_importer(f);
out:
	free(old);
	strbuf_release(&out);
}

static void found_init(struct tool_found *f, enum tool_id id)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->name = specs[id].name;
	strbuf_init(&f->why, 0);
	strbuf_init(&f->fix, 0);
	strbuf_init(&f->note, 0);
	strbuf_init(&f->passed_over, 0);
	strbuf_init(&f->deprecated, 0);
}

void tool_found_release(struct tool_found *f)
{
	free(f->path);
	free(f->version);
	free(f->importer);
	strbuf_release(&f->why);
	strbuf_release(&f->fix);
	strbuf_release(&f->note);
	strbuf_release(&f->passed_over);
	strbuf_release(&f->deprecated);
	memset(f, 0, sizeof(*f));
}

/* The explicit setting: the one candidate; a wrong one is the problem. */
static void find_explicit(const struct tool_spec *t, enum tool_id id, const char *what,
			  const char *value, struct tool_found *f)
{
	struct strbuf label = STRBUF_INIT, fix = STRBUF_INIT;

	strbuf_addf(&label, "%s='%s'", what, value);
	if (t->key)
		strbuf_addf(&fix, "set %s to the %s executable, or null to search PATH", t->key,
			    t->name);
	else
		strbuf_addf(&fix, "point %s at the %s %s, or unset it", what, t->name,
			    t->env_dir ? "folder" : "file");
	f->source = what;
	if (t->env_dir) {
		struct strbuf p = STRBUF_INIT;

		path_join(&p, value, t->name);
		f->path = strbuf_detach(&p, NULL);
	} else if (!strchr(value, '/') && t->on_path) {
		f->path = find_in_path(value);
		if (!f->path) {
			set_problem(f, TOOL_NOT_FOUND, fix.buf, "%s is not on PATH", label.buf);
			goto out;
		}
	} else {
		f->path = xstrdup(value);
	}
	if (!path_exists(f->path)) {
		if (t->env_dir)
			set_problem(f, TOOL_NOT_FOUND, fix.buf, "%s holds no %s", label.buf,
				    t->name);
		else
			set_problem(f, TOOL_NOT_FOUND, fix.buf, "%s is not %s", label.buf,
				    t->exec ? "an executable file" : "a readable file");
		FREE_AND_NULL(f->path);
		goto out;
	}
	check_candidate(t, id, f, label.buf);
	if (f->problem && !f->fix.len)
		strbuf_addstr(&f->fix, fix.buf);
out:
	strbuf_release(&label);
	strbuf_release(&fix);
}

void tool_find(enum tool_id id, const char *configured, struct tool_found *f)
{
	const struct tool_spec *t = &specs[id];
	struct cands c = {NULL, NULL, 0, 0, 0};
	const char *env = t->env ? getenv(t->env) : NULL;
	char *exe = exe_dir();

	found_init(f, id);
	if (configured && *configured && t->key) {
		find_explicit(t, id, t->key, configured, f);
		goto out;
	}
	if ((!env || !*env) && t->env_old && (env = getenv(t->env_old)) && *env) {
		strbuf_addf(&f->deprecated, "%s is deprecated; set %s instead", t->env_old, t->env);
		find_explicit(t, id, t->env_old, env, f);
		goto out;
	}
	if (env && *env) {
		find_explicit(t, id, t->env, env, f);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(t->rel) && t->rel[i]; i++) {
		struct strbuf p = STRBUF_INIT;

		path_join(&p, exe, t->rel[i]);
		if (path_exists(p.buf))
			cands_add(&c, strbuf_detach(&p, NULL), "next to llmprof");
		strbuf_release(&p);
	}
	if (t->on_path) {
		char *p = find_in_path(t->name);
		if (p)
			cands_add(&c, p, "PATH");
	}
	for (size_t i = 0; i < ARRAY_SIZE(t->known) && t->known[i]; i++)
		add_known(&c, tool_sysroot(), t->known[i]);

	for (size_t i = 0; i < c.nr; i++) {
		struct tool_found cand;

		found_init(&cand, id);
		cand.path = xstrdup(c.path[i]);
		cand.source = c.source[i];
		check_candidate(t, id, &cand, cand.path);
		if (!cand.problem) {
			/* the ones before it were passed over, the first one first */
			struct strbuf passed = STRBUF_INIT;

			if (f->path)
				strbuf_addf(&passed, "%s (%s)%s%s", f->path, f->why.buf,
					    f->passed_over.len ? "; " : "", f->passed_over.buf);
			tool_found_release(f);
			*f = cand;
			strbuf_add(&f->passed_over, passed.buf, passed.len);
			strbuf_release(&passed);
			break;
		}
		if (!f->path) { /* kept to say why, unless a usable one follows */
			tool_found_release(f);
			*f = cand;
			continue;
		}
		strbuf_addf(&f->passed_over, "%s%s (%s)", f->passed_over.len ? "; " : "", cand.path,
			    cand.why.buf);
		tool_found_release(&cand);
	}
	if (!f->path) {
		struct strbuf where = STRBUF_INIT;

		describe_search(t, exe, &where);
		set_problem(f, TOOL_NOT_FOUND, t->fix, "%s not found %s%s", t->name,
			    t->on_path ? "on PATH nor at " : "at ", where.buf);
		strbuf_release(&where);
	} else if (f->problem && !f->fix.len) {
		strbuf_addstr(&f->fix, t->fix);
	}
out:
	free(exe);
	cands_release(&c);
}

void tool_found_describe(const struct tool_found *f, struct strbuf *out)
{
	if (!f->path) {
		strbuf_add(out, f->why.buf, f->why.len);
		return;
	}
	strbuf_addstr(out, f->path);
	if (f->version)
		strbuf_addf(out, " (%s)", f->version);
	if (f->problem)
		strbuf_addf(out, ": not usable: %s", f->why.buf);
	if (f->passed_over.len)
		strbuf_addf(out, "; passed over %s", f->passed_over.buf);
}

char *tool_workloads_dir(void)
{
	const char *env = getenv("LLMPROF_WORKLOADS_DIR");
	struct tool_found f;
	char *dir = NULL, *slash;

	for (int i = 0; i < 2 && !dir; i++) {
		tool_find(i ? TOOL_DUMMY : TOOL_LLM, NULL, &f);
		if (!f.problem && (slash = strrchr(f.path, '/')))
			dir = xstrndup(f.path, (size_t)(slash - f.path));
		tool_found_release(&f);
	}
	if (!dir && env && *env)
		dir = xstrdup(env);
	if (!dir) {
		struct strbuf sb = STRBUF_INIT;
		char *exe = exe_dir();

		path_join(&sb, exe, "workloads");
		free(exe);
		dir = strbuf_detach(&sb, NULL);
	}
	return dir;
}

static char *version_from_json(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *v;
	char *ret = NULL;

	if (!root)
		return NULL;
	v = json_object_get(json_object_get(root, "cuda"), "version");
	if (json_is_string(v))
		ret = xstrdup(json_string_value(v));
	json_decref(root);
	return ret;
}

/* "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88" */
static char *version_from_nvcc(const char *nvcc)
{
	const char *argv[] = {nvcc, "--version", NULL};
	struct proc_spec spec = {.argv = argv, .stdin_null = 1, .timeout_s = 15, .grace_s = 1};
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	char *ret = NULL, *v;

	spec.out.buf = &out;
	if (proc_run(&spec, &res, NULL) || res.outcome != PROC_EXITED || res.exit_status)
		goto out;
	v = strstr(out.buf, ", V");
	if (v) {
		size_t n = strspn(v + 3, "0123456789.");
		if (n)
			ret = xstrndup(v + 3, n);
	}
out:
	strbuf_release(&out);
	return ret;
}

/* "#define CUDART_VERSION 13000" -> "13.0" */
static char *version_from_header(const char *path)
{
	struct strbuf sb = STRBUF_INIT, v = STRBUF_INIT;
	const char *p;
	char *ret = NULL;

	if (strbuf_read_file(&sb, path))
		goto out;
	p = strstr(sb.buf, "#define CUDART_VERSION");
	if (p) {
		long n = strtol(p + 22, NULL, 10);
		if (n > 0) {
			strbuf_addf(&v, "%ld.%ld", n / 1000, n % 1000 / 10);
			ret = strbuf_detach(&v, NULL);
		}
	}
out:
	strbuf_release(&sb);
	strbuf_release(&v);
	return ret;
}

void cuda_toolkit_probe(struct cuda_toolkit *tk)
{
	static const char *const cupti_rel[] = {
	    "lib64/libcupti.so",
	    "extras/CUPTI/lib64/libcupti.so",
	    "targets/x86_64-linux/lib/libcupti.so",
	    "targets/sbsa-linux/lib/libcupti.so",
	};
	struct strbuf p = STRBUF_INIT;
	const char *env = getenv("CUDA_HOME");

	memset(tk, 0, sizeof(*tk));
	strbuf_init(&tk->note, 0);
	if (!env || !*env)
		env = getenv("CUDA_PATH");
	if (env && *env) {
		if (!path_is_dir(env)) {
			strbuf_addf(&tk->note, "CUDA_HOME/CUDA_PATH '%s' is not a directory", env);
			goto out;
		}
		tk->root = xstrdup(env);
	} else {
		strbuf_addf(&p, "%s/usr/local/cuda", tool_sysroot());
		if (!path_is_dir(p.buf)) {
			strbuf_addf(&tk->note, "no CUDA toolkit: CUDA_HOME unset and no %s", p.buf);
			goto out;
		}
		tk->root = strbuf_detach(&p, NULL);
	}
	path_join(&p, tk->root, "version.json");
	if ((tk->version = version_from_json(p.buf))) {
		tk->version_source = "version.json";
	} else {
		strbuf_reset(&p);
		path_join(&p, tk->root, "bin/nvcc");
		if (path_is_executable_file(p.buf) && (tk->version = version_from_nvcc(p.buf))) {
			tk->version_source = "nvcc";
		} else {
			strbuf_reset(&p);
			path_join(&p, tk->root, "include/cuda_runtime_api.h");
			if ((tk->version = version_from_header(p.buf)))
				tk->version_source = "cuda_runtime_api.h";
			else
				strbuf_addf(&tk->note, "cannot tell the CUDA version of '%s'",
					    tk->root);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(cupti_rel) && !tk->cupti; i++) {
		strbuf_reset(&p);
		path_join(&p, tk->root, cupti_rel[i]);
		if (path_exists(p.buf))
			tk->cupti = strbuf_detach(&p, NULL);
	}
	if (!tk->cupti)
		strbuf_addf(&tk->note, "%sno libcupti.so under '%s'", tk->note.len ? "; " : "",
			    tk->root);
out:
	strbuf_release(&p);
}

void cuda_toolkit_release(struct cuda_toolkit *tk)
{
	free(tk->root);
	free(tk->version);
	free(tk->cupti);
	strbuf_release(&tk->note);
	memset(tk, 0, sizeof(*tk));
}

char *tool_pytorch_dir(struct strbuf *err)
{
	struct tool_found f;
	char *dir = NULL;

	tool_find(TOOL_PYTORCH, NULL, &f);
	if (f.problem) {
		error_set(err, "%s (%s)", f.why.buf, f.fix.buf);
	} else {
		dir = xstrdup(f.path);
		*strrchr(dir, '/') = '\0'; /* path_join made it DIR/sitecustomize.py */
	}
	tool_found_release(&f);
	return dir;
}

char *tool_tracer_library(struct strbuf *err)
{
	struct tool_found f;
	char *path = NULL;

	tool_find(TOOL_TRACER, NULL, &f);
	if (f.problem)
		error_set(err, "%s (%s)", f.why.buf, f.fix.buf);
	else
		path = xstrdup(f.path);
	tool_found_release(&f);
	return path;
}
