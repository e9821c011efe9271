/* nsys.c: see nsys.h. */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "config/typed.h"
#include "core/error.h"
#include "core/proc.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/tools.h"
#include "nsight/nsys.h"
#include "nsight/nsys_exec.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

void nsys_args_push(struct nsys_args *a, const char *s)
{
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = xstrdup(s);
	a->v[a->nr] = NULL;
}

void nsys_args_pushf(struct nsys_args *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = strbuf_detach(&sb, NULL);
	a->v[a->nr] = NULL;
}

void nsys_args_release(struct nsys_args *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->nr = a->alloc = 0;
}

void nsys_args_join(const struct nsys_args *a, struct strbuf *out)
{
	for (size_t i = 0; i < a->nr; i++) {
		if (i)
			strbuf_addch(out, ' ');
		proc_quote_shell_bytes(out, a->v[i]);
	}
}

/* ---- validation ---------------------------------------------------------- */

static const char *const samples[] = {"none", "process-tree", "system-wide", "cpu"};
/* nsys profile --help (2023.4.4) --trace values. */
static const char *const trace_apis[] = {
    "cuda",
    "nvtx",
    "cublas",
    "cublas-verbose",
    "cusparse",
    "cusparse-verbose",
    "mpi",
    "oshmem",
    "ucx",
    "osrt",
    "cudnn",
    "opengl",
    "opengl-annotations",
    "openacc",
    "openmp",
    "nvvideo",
    "vulkan",
    "vulkan-annotations",
    "python-gil",
    "none",
    /* newer nsys (2024.x/2025.x User Guide) */
    "cuda-hw",
    "nvtx-annotations",
    "dx11",
    "dx12",
    "wddm",
    "tegra-accelerators",
    "cudla",
    "cudla-verbose",
    "nccl",
    "cufft",
};

static int in_list(const char *v, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, list[i]))
			return 1;
	return 0;
}

static void add_choices(struct strbuf *err, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(err, "%s%s", i ? "|" : "", list[i]);
}

/* Whether extra_args holds option opt ("--wait", "--wait=all"). */
static int extra_has(const struct nsys_options *o, const char *opt)
{
	size_t len = strlen(opt);

	for (size_t i = 0; i < o->n_extra; i++)
		if (!strncmp(o->extra_args[i], opt, len) &&
		    (!o->extra_args[i][len] || o->extra_args[i][len] == '='))
			return 1;
	return 0;
}

static int check_enum(const char *key, const char *v, const char *const *list, size_t n,
		      struct strbuf *err)
{
	if (!v || in_list(v, list, n))
		return 0;
	error_set(err, "pipeline.nsys.%s: '%s' is not one of ", key, v);
	add_choices(err, list, n);
	return -1;
}

int nsys_capture_range_end_check(const char *v, struct strbuf *err)
{
	const char *n = NULL;
	uint64_t count;

	if (!strcmp(v, "none") || !strcmp(v, "stop") || !strcmp(v, "stop-shutdown") ||
	    !strcmp(v, "repeat"))
		return 0;
	if (starts_with(v, "repeat:"))
		n = v + strlen("repeat:");
	else if (starts_with(v, "repeat-shutdown:"))
		n = v + strlen("repeat-shutdown:");
	if (n && parse_u64(n, 1, UINT32_MAX, &count, NULL) == 0)
		return 0;
	return error_set(err,
			 "pipeline.nsys.capture_range_end: '%s' is not none, stop, stop-shutdown, "
			 "repeat, repeat:N or repeat-shutdown:N (N >= 1)",
			 v);
}

static int trace_has(const char *trace, const char *api)
{
	size_t len = strlen(api);

	for (const char *p = trace; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, api, n))
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

static int check_trace(const char *trace, struct strbuf *err)
{
	struct strbuf item = STRBUF_INIT;
	int ret = 0;

	if (!*trace)
		return error_set(err, "pipeline.nsys.trace: empty (use 'none' to trace no API)");
	for (const char *p = trace; p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		strbuf_reset(&item);
		strbuf_add(&item, p, n);
		if (!in_list(item.buf, trace_apis, ARRAY_SIZE(trace_apis))) {
			ret = error_set(
			    err,
			    "pipeline.nsys.trace: unknown API '%s' in '%s' (comma-separated, "
			    "no spaces; e.g. cuda,nvtx,osrt)",
			    item.buf, trace);
			break;
		}
		p = comma ? comma + 1 : NULL;
	}
	strbuf_release(&item);
	return ret;
}

const char *nsys_effective_capture_range(const struct nsys_options *o)
{
	if (!o->gating_nvtx || !o->capture_range)
		return "none";
	return o->capture_range;
}

int nsys_options_check(const struct nsys_options *o, struct strbuf *err)
{
	const char *cap = nsys_effective_capture_range(o);

	if (o->trace && check_trace(o->trace, err))
		return -1;
	if (check_enum("sample", o->sample, samples, ARRAY_SIZE(samples), err) ||
	    check_enum("capture_range", o->capture_range, nsys_capture_range_names,
		       NSYS_CAPTURE_RANGE_NR, err) ||
	    check_enum("cuda_graph_trace", o->cuda_graph_trace, nsys_cuda_graph_trace_names,
		       NSYS_GRAPH_TRACE_NR, err))
		return -1;
	if (o->capture_range_end && nsys_capture_range_end_check(o->capture_range_end, err))
		return -1;
	if (o->nvtx_capture && *o->nvtx_capture && strcmp(cap, "nvtx"))
		return error_set(
		    err,
		    "pipeline.nsys.nvtx_capture='%s' needs pipeline.nsys.capture_range=nvtx "
		    "and pipeline.nsys.gating_nvtx=true (now capture_range=%s, "
		    "gating_nvtx=%s)",
		    o->nvtx_capture, o->capture_range ? o->capture_range : "none",
		    o->gating_nvtx ? "true" : "false");
	if (!strcmp(cap, "nvtx") && (!o->nvtx_capture || !*o->nvtx_capture))
		return error_set(err, "pipeline.nsys.capture_range=nvtx needs "
				      "pipeline.nsys.nvtx_capture (the stage or range that starts "
				      "the capture, e.g. LLM@decode_all)");
	if (!strcmp(cap, "nvtx") && o->trace && !trace_has(o->trace, "nvtx"))
		return error_set(err,
				 "pipeline.nsys.capture_range=nvtx needs nvtx in "
				 "pipeline.nsys.trace (now '%s')",
				 o->trace);
	if (!strcmp(cap, "hotkey"))
		return error_set(err, "pipeline.nsys.capture_range=hotkey works only for "
				      "graphics applications; use nvtx or cudaProfilerApi");
	if (o->capture_range_end && !strcmp(cap, "none"))
		return error_set(err,
				 "pipeline.nsys.capture_range_end='%s' applies only with "
				 "a capture range (capture_range=nvtx|cudaProfilerApi and "
				 "gating_nvtx=true)",
				 o->capture_range_end);
	if (o->split == NSYS_SPLIT_RANK &&
	    (!o->rank_env || !*o->rank_env || strpbrk(o->rank_env, "{}% ")))
		return error_set(err, "per-rank report names need the name of the rank "
				      "environment variable (e.g. RANK)");
	if (!o->output_base || !*o->output_base)
		return error_set(err, "no output base for the nsys report");
	if (!o->target_argc || !o->target_argv || !o->target_argv[0] || !*o->target_argv[0])
		return error_set(err, "no program to profile");
	if (o->target_argv[0][0] == '-')
		return error_set(err,
				 "program name '%s' starts with '-': nsys would read it "
				 "as an option (use ./%s)",
				 o->target_argv[0], o->target_argv[0]);
	return 0;
}

/* ---- NVTX capture expression -------------------------------------------- */

static int is_default_domain(const char *d)
{
	return !d || !*d;
}

/* Appends s with every '@' escaped as "\@" (nsys: the last unescaped '@'
 * separates range and domain). */
static void add_escaped(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '@')
			strbuf_addch(out, '\\');
		strbuf_addch(out, s[i]);
	}
}

static void add_nsys_expr(struct strbuf *out, const char *domain, const char *range)
{
	add_escaped(out, range, strlen(range));
	if (!is_default_domain(domain)) {
		strbuf_addch(out, '@');
		add_escaped(out, domain, strlen(domain));
	}
}

static void list_known(struct strbuf *err, const struct nsys_nvtx_range *known, size_t n)
{
	size_t shown = n < 12 ? n : 12;

	for (size_t i = 0; i < shown; i++) {
		strbuf_addstr(err, i ? ", " : "");
		if (!is_default_domain(known[i].domain))
			strbuf_addf(err, "%s@", known[i].domain);
		strbuf_addstr(err, known[i].name);
	}
	if (n > shown)
		strbuf_addf(err, ", ... (%zu in all)", n);
}

int nsys_nvtx_capture_expr(const char *name, const struct nsys_nvtx_range *known, size_t n_known,
			   struct strbuf *out, struct strbuf *err)
{
	const char *at;
	size_t matches = 0, match = 0;

	if (!name || !*name)
		return error_set(err, "empty NVTX range name");
	if (ends_with(name, "@*")) {
		/* any domain: escape '@' inside the range part only */
		add_escaped(out, name, strlen(name) - 2);
		strbuf_addstr(out, "@*");
		return 0;
	}
	at = strchr(name, '@');
	if (!n_known) {
		if (!at) {
			strbuf_addstr(out, name);
			return 0;
		}
		if (at == name || !at[1])
			return error_set(err, "NVTX range '%s': expected DOMAIN@RANGE or RANGE",
					 name);
		/* DOMAIN@RANGE -> RANGE@DOMAIN */
		add_escaped(out, at + 1, strlen(at + 1));
		strbuf_addch(out, '@');
		add_escaped(out, name, (size_t)(at - name));
		return 0;
	}
	/* 1. a default-domain range spelled exactly so (even "LLM@decode_all") */
	for (size_t i = 0; i < n_known; i++) {
		if (is_default_domain(known[i].domain) && !strcmp(known[i].name, name)) {
			add_nsys_expr(out, NULL, name);
			return 0;
		}
	}
	/* 2. DOMAIN@RANGE */
	if (at) {
		size_t dlen = (size_t)(at - name);
		for (size_t i = 0; i < n_known; i++) {
			const char *d = known[i].domain;
			if (!is_default_domain(d) && strlen(d) == dlen && !strncmp(d, name, dlen) &&
			    !strcmp(known[i].name, at + 1)) {
				add_nsys_expr(out, d, known[i].name);
				return 0;
			}
		}
	}
	/* 3. a bare RANGE in exactly one domain */
	for (size_t i = 0; i < n_known; i++) {
		if (!strcmp(known[i].name, name)) {
			int dup = 0;
			for (size_t j = 0; j < i; j++)
				if (!strcmp(known[j].name, name) &&
				    !strcmp(known[j].domain ? known[j].domain : "",
					    known[i].domain ? known[i].domain : ""))
					dup = 1;
			if (!dup) {
				matches++;
				match = i;
			}
		}
	}
	if (matches == 1) {
		add_nsys_expr(out, known[match].domain, known[match].name);
		return 0;
	}
	if (matches > 1) {
		error_set(err,
			  "NVTX range '%s' exists in %zu domains; name one as DOMAIN@RANGE:", name,
			  matches);
		for (size_t i = 0; i < n_known; i++)
			if (!strcmp(known[i].name, name))
				strbuf_addf(err, " %s@%s",
					    is_default_domain(known[i].domain) ? "(default)"
									       : known[i].domain,
					    name);
		return -1;
	}
	error_set(err, "the program emits no NVTX range '%s' (it emits: ", name);
	list_known(err, known, n_known);
	strbuf_addch(err, ')');
	return -1;
}

/* ---- argv builders -------------------------------------------------------- */

int nsys_build_profile(const struct nsys_options *o, struct nsys_args *out, struct strbuf *err)
{
	const char *trace = o->trace ? o->trace : "cuda,nvtx,osrt";
	const char *cap = nsys_effective_capture_range(o);
	const char *graph = o->cuda_graph_trace ? o->cuda_graph_trace : "node";
	struct strbuf expr = STRBUF_INIT;
	int ret = -1;

	if (nsys_options_check(o, err))
		goto out;
	if (!strcmp(cap, "nvtx") &&
	    nsys_nvtx_capture_expr(o->nvtx_capture, o->known_ranges, o->n_known, &expr, err))
		goto out;

	nsys_args_push(out, o->nsys ? o->nsys : "nsys");
	nsys_args_push(out, "profile");
	nsys_args_pushf(out, "--trace=%s", trace);
	if (o->sample && strcmp(o->sample, "none"))
		nsys_args_pushf(out, "--sample=%s", o->sample);
	else
		nsys_args_push(out, "--sample=none"); /* nsys's own default is process-tree */
	if (strcmp(cap, "none")) {
		nsys_args_pushf(out, "--capture-range=%s", cap);
		nsys_args_pushf(out, "--capture-range-end=%s",
				o->capture_range_end ? o->capture_range_end : "stop");
		if (!strcmp(cap, "nvtx")) {
			nsys_args_pushf(out, "--nvtx-capture=%s", expr.buf);
			/* Unregistered strings (nvtxRangePushA, torch.cuda.nvtx)
			 * never trigger a capture without this. */
			nsys_args_push(out, "--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0");
		}
	}
	if (trace_has(trace, "cuda"))
		nsys_args_pushf(out, "--cuda-graph-trace=%s", graph);
	/* nsys's default (all) waits for every process the program left
	 * running, so a background child would hold the run until the
	 * timeout: like the builtin backend, the run ends with the program's
	 * main process and llmprof ends what it left (unless extra_args says) */
	if (!extra_has(o, "--wait"))
		nsys_args_push(out, "--wait=primary");
	for (size_t i = 0; i < o->n_extra; i++)
		nsys_args_push(out, o->extra_args[i]);
	nsys_args_push(out, "-o");
	switch (o->split) {
	case NSYS_SPLIT_PID:
		nsys_args_pushf(out, "%s.%%p", o->output_base);
		break;
	case NSYS_SPLIT_RANK:
		nsys_args_pushf(out, "%s.%%q{%s}", o->output_base, o->rank_env);
		break;
	default:
		nsys_args_push(out, o->output_base);
		break;
	}
	nsys_args_push(out, "--force-overwrite");
	nsys_args_push(out, "true");
	for (size_t i = 0; i < o->target_argc; i++)
		nsys_args_push(out, o->target_argv[i]);
	ret = 0;
out:
	strbuf_release(&expr);
	return ret;
}

void nsys_build_export(const char *nsys, const char *rep, const char *sqlite, int blobs,
		       struct nsys_args *out)
{
	nsys_args_push(out, nsys ? nsys : "nsys");
	nsys_args_push(out, "export");
	nsys_args_push(out, "--type");
	nsys_args_push(out, "sqlite");
	if (blobs) {
		nsys_args_push(out, "--include-blobs");
		nsys_args_push(out, "true");
	}
	nsys_args_push(out, "--force-overwrite");
	nsys_args_push(out, "true");
	nsys_args_push(out, "--quiet");
	nsys_args_push(out, "true");
	nsys_args_push(out, "-o");
	nsys_args_push(out, sqlite);
	nsys_args_push(out, rep);
}

void nsys_build_stats(const char *nsys, const char *input, const char *out_base,
		      struct nsys_args *out)
{
	nsys_args_push(out, nsys ? nsys : "nsys");
	nsys_args_push(out, "stats");
	nsys_args_push(out, "-r");
	nsys_args_push(out, "cuda_gpu_kern_sum");
	nsys_args_push(out, "-f");
	nsys_args_push(out, "csv");
	nsys_args_push(out, "--force-overwrite");
	nsys_args_push(out, "true");
	nsys_args_push(out, "-o");
	nsys_args_push(out, out_base);
	nsys_args_push(out, input);
}

/* ---- finding and probing nsys --------------------------------------------- */

int nsys_version_parse(const char *text, size_t len, struct strbuf *out, int *major, int *minor)
{
	static const char key[] = "version ";

	for (size_t i = 0; i + sizeof(key) - 1 < len; i++) {
		size_t j = i + sizeof(key) - 1, k;
		int64_t y = 0, m = 0;

		if (strncmp(text + i, key, sizeof(key) - 1))
			continue;
		for (k = j; k < len && text[k] >= '0' && text[k] <= '9'; k++)
			y = y * 10 + (text[k] - '0');
		if (k - j != 4 || k >= len || text[k] != '.')
			continue;
		for (k++; k < len && text[k] >= '0' && text[k] <= '9' && m < 1000; k++)
			m = m * 10 + (text[k] - '0');
		while (k < len && text[k] != '\n' && text[k] != '\r' && text[k] != ' ')
			k++;
		strbuf_add(out, text + j, k - j);
		*major = (int)y;
		*minor = (int)m;
		return 0;
	}
	return -1;
}

char *nsys_find_importer(const char *nsys_path)
{
	static const char *const rel[] = {
	    "../host-linux-x64", "../linux-desktop-glibc_2_11_3-x64", ".",
	    "host-linux-x64",	 "linux-desktop-glibc_2_11_3-x64",    "target-linux-x64",
	};
	struct strbuf dir = STRBUF_INIT, sb = STRBUF_INIT;
	const char *slash = strrchr(nsys_path, '/');
	char *found = NULL;

	if (slash)
		strbuf_add(&dir, nsys_path, (size_t)(slash - nsys_path));
	else
		strbuf_addch(&dir, '.');
	for (size_t i = 0; i < ARRAY_SIZE(rel) && !found; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/%s/QdstrmImporter", dir.buf, rel[i]);
		if (path_exists(sb.buf))
			found = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&dir);
	strbuf_release(&sb);
	return found;
}

int nsys_importer_loader_failure(const char *text, size_t len, struct strbuf *lib)
{
	static const char key[] = "error while loading shared libraries: ";

	for (size_t i = 0; i + sizeof(key) - 1 <= len; i++) {
		size_t j = i + sizeof(key) - 1, k;

		if (strncmp(text + i, key, sizeof(key) - 1))
			continue;
		for (k = j; k < len && text[k] != ':' && text[k] != '\n'; k++)
			;
		strbuf_add(lib, text + j, k - j);
		return 1;
	}
	return 0;
}

size_t nsys_loader_not_found(const char *text, size_t len, struct strbuf *libs)
{
	static const char key[] = " => not found";
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		size_t e = i, s;

		while (e < len && text[e] != '\n')
			e++;
		/* "\tlibdw.so.1 => not found" */
		if (e - i > sizeof(key) - 1 &&
		    !memcmp(text + e - (sizeof(key) - 1), key, sizeof(key) - 1)) {
			for (s = i; s < e && (text[s] == ' ' || text[s] == '\t'); s++)
				;
			if (s < e - (sizeof(key) - 1)) {
				strbuf_addstr(libs, n++ ? ", " : "");
				strbuf_add(libs, text + s, e - (sizeof(key) - 1) - s);
			}
		}
		i = e + 1;
	}
	return n;
}

/* ---- finding reports ------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t nsys_list_reports(const char *dir, const char *base_name, struct nsys_args *out)
{
	struct nsys_args names = NSYS_ARGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t blen = strlen(base_name), n;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (strncmp(nm, base_name, blen) || !ends_with(nm, ".nsys-rep"))
			continue;
		/* "run.nsys-rep" or "run.<something>.nsys-rep", not "runner.nsys-rep" */
		if (nm[blen] != '.')
			continue;
		nsys_args_push(&names, nm);
	}
	closedir(d);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.nr; i++) {
		strbuf_reset(&sb);
		path_join(&sb, dir, names.v[i]);
		nsys_args_push(out, sb.buf);
	}
	n = names.nr;
	nsys_args_release(&names);
	strbuf_release(&sb);
	return n;
}

/* ---- steps ----------------------------------------------------------------- */

void nsys_step_release(struct nsys_step *s)
{
	nsys_args_release(&s->argv);
	strbuf_release(&s->out);
	strbuf_release(&s->err);
	strbuf_release(&s->message);
}

static int run_step(struct nsys_step *s, uint64_t timeout_ms, struct nsys_exec_result *res,
		    struct strbuf *err)
{
	/* LC_ALL=C: stable number formats in nsys's CSV */
	static const char *const env[] = {"LC_ALL=C", NULL};

	if (nsys_exec_run((const char *const *)s->argv.v, env, NULL, timeout_ms, res, err))
		return -1;
	strbuf_add(&s->out, res->out.buf, res->out.len);
	strbuf_add(&s->err, res->err.buf, res->err.len);
	return 0;
}

static void step_failed(struct nsys_step *s, const struct nsys_exec_result *res,
			uint64_t timeout_ms, const char *what)
{
	const struct strbuf *text = res->err.len ? &res->err : &res->out;
	size_t start = text->len > 300 ? text->len - 300 : 0;
	struct strbuf how = STRBUF_INIT, tail = STRBUF_INIT;

	nsys_exec_describe(res, timeout_ms, &how);
	strbuf_add(&tail, text->buf + start, text->len - start);
	strbuf_trim(&tail);
	for (size_t i = 0; i < tail.len; i++)
		if (tail.buf[i] == '\n' || tail.buf[i] == '\r')
			tail.buf[i] = ' ';
	strbuf_addf(&s->message, "nsys %s failed (%s)%s%s", what, how.buf, tail.len ? ": " : "",
		    tail.buf);
	strbuf_release(&how);
	strbuf_release(&tail);
}

int nsys_export_blobs(const char *nsys)
{
	const char *argv[] = {nsys ? nsys : "nsys", "export", "--help", NULL};
	static const char *const env[] = {"LC_ALL=C", NULL};
	struct nsys_exec_result res = NSYS_EXEC_RESULT_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (!nsys_exec_run(argv, env, NULL, 10000, &res, &err) && res.exited)
		ret = strstr(res.out.buf, "--include-blobs") ||
		      strstr(res.err.buf, "--include-blobs");
	nsys_exec_result_release(&res);
	strbuf_release(&err);
	return ret;
}

int nsys_step_export(const char *nsys, const char *rep, const char *sqlite, uint64_t timeout_ms,
		     struct nsys_step *s, struct strbuf *err)
{
	struct nsys_exec_result res = NSYS_EXEC_RESULT_INIT;
	int ret = -1;

	if (!path_exists(rep)) {
		nsys_build_export(nsys, rep, sqlite, 0, &s->argv);
		strbuf_addf(&s->message, "no report to export: '%s' does not exist", rep);
		ret = 0;
		goto out;
	}
	nsys_build_export(nsys, rep, sqlite, nsys_export_blobs(nsys), &s->argv);
	if (run_step(s, timeout_ms, &res, err))
		goto out;
	ret = 0;
	if (!res.exited || res.exit_code) {
		step_failed(s, &res, timeout_ms, "export");
		goto out;
	}
	if (!export_is_sqlite(sqlite)) {
		strbuf_addf(&s->message, "nsys export exited 0 but wrote no SQLite file '%s'",
			    sqlite);
		goto out;
	}
	s->ok = 1;
out:
	nsys_exec_result_release(&res);
	return ret;
}

int nsys_step_stats(const char *nsys, const char *sqlite, const char *base, uint64_t timeout_ms,
		    struct nsys_step *s, struct strbuf *err)
{
	struct nsys_exec_result res = NSYS_EXEC_RESULT_INIT;
	struct strbuf csv = STRBUF_INIT, body = STRBUF_INIT;
	int ret = -1;

	nsys_build_stats(nsys, sqlite, base, &s->argv);
	strbuf_addf(&csv, "%s_cuda_gpu_kern_sum.csv", base);
	if (run_step(s, timeout_ms, &res, err))
		goto out;
	ret = 0;
	if (!res.exited || res.exit_code) {
		step_failed(s, &res, timeout_ms, "stats");
		goto out;
	}
	if (strbuf_read_file(&body, csv.buf)) {
		strbuf_addf(&s->message, "nsys stats exited 0 but wrote no '%s'", csv.buf);
		goto out;
	}
	if (!body.len) {
		if (strstr(res.out.buf, "does not contain CUDA kernel data")) {
			s->ok = 1;
			strbuf_addf(&s->message, "the report has no CUDA kernels ('%s' is empty)",
				    csv.buf);
		} else {
			strbuf_addf(&s->message, "'%s' is empty and nsys did not say why", csv.buf);
		}
		goto out;
	}
	if (!starts_with(body.buf, NSYS_KERN_SUM_HEADER)) {
		size_t eol = strcspn(body.buf, "\r\n");
		strbuf_addf(&s->message, "'%s' has an unexpected header: %.*s", csv.buf,
			    (int)(eol > 200 ? 200 : eol), body.buf);
		goto out;
	}
	s->ok = 1;
out:
	nsys_exec_result_release(&res);
	strbuf_release(&csv);
	strbuf_release(&body);
	return ret;
}
