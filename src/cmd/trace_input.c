/* trace_input.c: the overrides, the configuration and the nsys reports of
 * `report`, `diff` and `stats`; see trace_input.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "cmd/trace_input.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/nsys.h"
#include "nsight/tools.h"
#include "core/banned.h"

/* An override's value when its key is key ("run.stage=x", "+run.stage=x"),
 * else NULL. */
static const char *override_value(const char *ov, const char *key)
{
	size_t n = strlen(key);

	ov += *ov == '+';
	ov += *ov == '+';
	return !strncmp(ov, key, n) && ov[n] == '=' ? ov + n + 1 : NULL;
}

void trace_args_split(struct trace_args *a, const char *cmd, const char *conf_dir,
		      const struct cmd_ctx *ctx)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->conf_dir = conf_dir;
	a->inputs = xcalloc((size_t)ctx->argc + 1, sizeof(*a->inputs));
	a->ov = xcalloc((size_t)ctx->argc + 2, sizeof(*a->ov));
	for (int i = 0; i < ctx->argc; i++) {
		const char *s = ctx->argv[i];
		const char *v;

		/* a file named "a=b" is still the file */
		if (path_exists(s) || (!strchr(s, '=') && s[0] != '~')) {
			a->inputs[a->ninputs++] = s;
			continue;
		}
		a->ov[a->nov++] = s;
		if ((v = override_value(s, "run.stage")))
			a->run_stage = v;
	}
}

void trace_args_release(struct trace_args *a)
{
	free(a->inputs);
	free(a->ov);
	memset(a, 0, sizeof(*a));
}

/* "override 'x'", "the overrides": what the user should look at. */
static void print_config_error(const struct trace_args *a, const char *dir,
			       const struct strbuf *err)
{
	error_print("%s: %s (configuration: %s)", a->cmd, err->buf, dir);
}

int trace_args_loose_config(const struct trace_args *a, struct config **cfg)
{
	struct strbuf err = STRBUF_INIT;
	const char **ov = xcalloc(a->nov + 1, sizeof(*ov));
	char *dir = a->conf_dir ? xstrdup(a->conf_dir) : config_find_conf_dir();
	int code = 0;

	*cfg = NULL;
	if (!dir) {
		if (a->nov) {
			error_print("%s: cannot apply '%s': no conf/ folder found; set "
				    "LLMPROF_CONF_DIR or use --conf-dir",
				    a->cmd, a->ov[0]);
			code = EXIT_CONFIG;
		}
		goto out;
	}
	/* the trace is a user's program: model.* describes it only when the
	 * user names a preset (analysis/analytic_cfg.h) */
	ov[0] = "workload=command";
	memcpy(ov + 1, a->ov, a->nov * sizeof(*ov));
	if (config_load(cfg, dir, a->nov + 1, ov, &err)) {
		print_config_error(a, dir, &err);
		code = EXIT_CONFIG;
	}
out:
	free(ov);
	free(dir);
	strbuf_release(&err);
	return code;
}

int trace_args_bundle_config(const struct trace_args *a, const char *run_dir, struct config **cfg)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;
	int code = 0;

	*cfg = NULL;
	path_join(&p, run_dir, bundle_art(BA_CONFIG));
	if (!path_exists(p.buf)) {
		code = trace_args_loose_config(a, cfg);
		goto out;
	}
	if (!config_load(cfg, run_dir, 0, NULL, &err)) {
		if (!a->nov)
			goto out;
		config_free(*cfg);
		*cfg = NULL;
		/* the same file again with the overrides: a wrong one is the
		 * user's, not the bundle's */
		if (config_load(cfg, run_dir, a->nov, a->ov, &err)) {
			error_print("%s: %s (on %s; a bundle holds no conf/ groups: give "
				    "keys such as model.name=..., not model=...)",
				    a->cmd, err.buf, p.buf);
			code = EXIT_CONFIG;
		}
		goto out;
	}
	error_print("%s: %s", a->cmd, err.buf);
	code = EXIT_BAD_INPUT;
out:
	if (code && *cfg) {
		config_free(*cfg);
		*cfg = NULL;
	}
	strbuf_release(&err);
	strbuf_release(&p);
	return code;
}

int trace_input_is_report(const char *path)
{
	return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep");
}

/* The export beside rep is at least as new as rep: reuse it. */
static int export_fresh(const struct stat *rs, const char *sqlite)
{
	struct stat ss;

	return !stat(sqlite, &ss) && S_ISREG(ss.st_mode) &&
	       (ss.st_mtim.tv_sec > rs->st_mtim.tv_sec ||
		(ss.st_mtim.tv_sec == rs->st_mtim.tv_sec &&
		 ss.st_mtim.tv_nsec >= rs->st_mtim.tv_nsec));
}

/* The nsys that exports (owned), or NULL after the error. nsys export needs
 * no QdstrmImporter: an nsys lacking only that (Debian's) still exports. */
static char *export_nsys(const char *cmd, const char *rep)
{
	struct tool_found found;
	char *nsys = NULL;

	memset(&found, 0, sizeof(found));
	tool_find(TOOL_NSYS, NULL, &found);
	if (found.problem && found.problem != TOOL_NO_IMPORTER &&
	    found.problem != TOOL_IMPORTER_BROKEN)
		error_print("%s: '%s' is an nsys report and nsys is needed to export it "
			    "(%s); or give its SQLite export (nsys export --type sqlite)",
			    cmd, rep, found.why.buf);
	else
		nsys = xstrdup(found.path);
	tool_found_release(&found);
	return nsys;
}

/* Where the export goes: out (X.sqlite beside rep) through tmp, a
 * temporary name renamed once whole; or, when rep's folder is not
 * writable, a temporary folder (*tmpdir). 0 or EXIT_IO after the error. */
static int export_names(const char *cmd, const char *rep, struct strbuf *out, struct strbuf *tmp,
			char **tmpdir)
{
	const char *dot = strrchr(rep, '.'), *slash = strrchr(rep, '/');
	struct strbuf dir = STRBUF_INIT;
	int code = 0;

	if (slash)
		strbuf_add(&dir, rep, (size_t)(slash - rep));
	else
		strbuf_addch(&dir, '.');
	if (access(dir.buf, W_OK)) {
		const char *td = getenv("TMPDIR");

		strbuf_addf(tmp, "%s/llmprof-%s-XXXXXX", td && *td ? td : "/tmp", cmd);
		if (!mkdtemp(tmp->buf)) {
			error_print("%s: cannot create a folder for the export of '%s' (%s is "
				    "not writable): %s",
				    cmd, rep, dir.buf, strerror(errno));
			code = EXIT_IO;
			goto out;
		}
		*tmpdir = xstrdup(tmp->buf);
		strbuf_reset(out);
		strbuf_addf(out, "%s/%s", tmp->buf, slash ? slash + 1 : rep);
		strbuf_setlen(out, out->len - strlen(dot));
		strbuf_addstr(out, ".sqlite");
		strbuf_reset(tmp);
		strbuf_addstr(tmp, out->buf);
	} else {
		strbuf_add(tmp, out->buf, out->len - strlen(".sqlite"));
		strbuf_addf(tmp, ".tmp.%ld.sqlite", (long)getpid());
	}
out:
	strbuf_release(&dir);
	return code;
}

int trace_input_export(const char *cmd, const char *rep, char **sqlite, char **tmpdir)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, tmp = STRBUF_INIT;
	struct nsys_step step = NSYS_STEP_INIT;
	struct stat rs;
	const char *dot = strrchr(rep, '.');
	char *nsys = NULL;
	int code = EXIT_OK;

	strbuf_add(&out, rep, (size_t)(dot - rep));
	strbuf_addstr(&out, ".sqlite");
	if (stat(rep, &rs)) {
		error_print("cannot open '%s': %s", rep, strerror(errno));
		code = EXIT_BAD_INPUT;
		goto out;
	}
	if (export_fresh(&rs, out.buf)) {
		*sqlite = strbuf_detach(&out, NULL);
		goto out;
	}
	if (!(nsys = export_nsys(cmd, rep))) {
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	if ((code = export_names(cmd, rep, &out, &tmp, tmpdir)))
		goto out;
	fprintf(stderr, "Generating SQLite file %s from %s\n", out.buf, rep);
	if (nsys_step_export(nsys, rep, tmp.buf, TRACE_INPUT_EXPORT_TIMEOUT_MS, &step, &err)) {
		error_print("%s: %s", cmd, err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	if (!step.ok) {
		error_print("%s: cannot export '%s': %s", cmd, rep, step.message.buf);
		unlink(tmp.buf);
		code = EXIT_STEP_FAILED;
		goto out;
	}
	if (strcmp(tmp.buf, out.buf) && rename(tmp.buf, out.buf)) {
		error_print("%s: cannot rename '%s' to '%s': %s", cmd, tmp.buf, out.buf,
			    strerror(errno));
		unlink(tmp.buf);
		code = EXIT_IO;
		goto out;
	}
	*sqlite = strbuf_detach(&out, NULL);
out:
	if (code && *tmpdir) {
		rmdir(*tmpdir);
		free(*tmpdir);
		*tmpdir = NULL;
	}
	free(nsys);
	nsys_step_release(&step);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&tmp);
	return code;
}

void trace_input_export_done(char **sqlite, char **tmpdir)
{
	if (*tmpdir) {
		if (*sqlite)
			unlink(*sqlite);
		rmdir(*tmpdir);
	}
	free(*tmpdir);
	free(*sqlite);
	*tmpdir = *sqlite = NULL;
}
