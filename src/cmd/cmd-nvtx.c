/* cmd-nvtx.c: `llmprof nvtx [KEY=VALUE ...] -- PROGRAM [ARGS...]`: run the
 * program with NVTX-only tracing (no CUPTI, so it also works without a GPU
 * and next to other CUDA tools) and list every NVTX range it emitted, with
 * the exact nsys --nvtx-capture and ncu --nvtx-include expression that
 * selects it. The program's own output goes to the terminal first. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "cmd/cmd.h"
#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "trace/nvtxlist.h"
#include "trace/tosqlite.h"
#include "nsight/tools.h"
#include "trace/tracer_launch.h"
#include "core/banned.h"

static const char *opt_conf_dir, *opt_keep;

static const struct opt opts[] = {
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "read the configuration (run.timeout_s) from DIR instead of conf/"},
    {"keep", 0, OPT_STRING, &opt_keep, "DIR",
     "keep the trace (trace.sqlite, the raw logs) in DIR, created if needed"},
    OPT_END_MARK,
};

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf p = STRBUF_INIT;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_reset(&p);
		path_join(&p, dir, e->d_name);
		if (path_is_dir(p.buf))
			remove_dir(p.buf);
		else
			unlink(p.buf);
	}
	closedir(d);
	rmdir(dir);
	strbuf_release(&p);
}

static int cmd_nvtx_exec(struct cmd_ctx *ctx)
{
	struct config *cfg = NULL;
	struct strbuf err = STRBUF_INIT, logdir = STRBUF_INIT, db = STRBUF_INIT, out = STRBUF_INIT,
		      desc = STRBUF_INIT;
	char *lib = NULL, *conf = NULL, *tmp = NULL;
	char *env[TRACER_ENV_MAX] = {NULL};
	struct proc_spec spec;
	struct proc_result res;
	struct trace_convert_stats st;
	struct nvtx_list list;
	int ret = EXIT_INTERNAL, rc, prog_failed = 0;

	trace_convert_stats_init(&st);
	nvtx_list_init(&list);
	if (!ctx->has_program || ctx->prog_argc < 1) {
		error_print("usage: llmprof nvtx [KEY=VALUE ...] -- PROGRAM [ARGS...]");
		ret = EXIT_USAGE;
		goto out;
	}
	conf = opt_conf_dir ? xstrdup(opt_conf_dir) : config_find_conf_dir();
	if (config_load(&cfg, conf, (size_t)ctx->argc, ctx->argv, &err)) {
		error_print("%s", err.buf);
		ret = EXIT_CONFIG;
		goto out;
	}
	lib = tool_tracer_library(&err);
	if (!lib) {
		error_print("%s", err.buf);
		ret = EXIT_TOOL_MISSING;
		goto out;
	}
	if (opt_keep) {
		if (mkdir_p(opt_keep, &err)) {
			error_print("%s", err.buf);
			ret = EXIT_IO;
			goto out;
		}
		strbuf_addstr(&logdir, opt_keep);
	} else {
		const char *t = getenv("TMPDIR");
		struct strbuf tb = STRBUF_INIT;
		path_join(&tb, t && *t ? t : "/tmp", "llmprof-nvtx-XXXXXX");
		tmp = strbuf_detach(&tb, NULL);
		if (!mkdtemp(tmp)) {
			error_print("cannot create a temporary directory '%s': %s", tmp,
				    strerror(errno));
			ret = EXIT_IO;
			goto out;
		}
		strbuf_addstr(&logdir, tmp);
	}
	strbuf_addf(&db, "%s/%s", logdir.buf, bundle_art(BA_NVTX_SQLITE));
	strbuf_addch(&logdir, '/');
	strbuf_addstr(&logdir, bundle_art(BA_NVTX_LOGS_DIR));
	if (mkdir_p(logdir.buf, &err)) {
		error_print("%s", err.buf);
		ret = EXIT_IO;
		goto out;
	}
	tracer_env_build(env, lib, logdir.buf, TRACER_NVTX_ONLY, NULL);

	memset(&spec, 0, sizeof(spec));
	spec.argv = ctx->prog_argv;
	spec.env_add = (const char *const *)env;
	spec.stdin_null = isatty(0);
	spec.timeout_s = config_typed(cfg)->run.timeout_s;
	if (proc_run(&spec, &res, &err)) {
		error_print("%s", err.buf);
		ret = EXIT_IO;
		goto out;
	}
	if (res.outcome != PROC_EXITED || res.exit_status != 0) {
		proc_result_describe(&res, &spec, &desc);
		if (res.outcome == PROC_EXEC_FAILED) {
			error_print("%s", desc.buf);
			ret = EXIT_WORKLOAD_FAILED;
			goto out;
		}
		prog_failed = 1;
	}
	if (!tracer_logs_present(logdir.buf)) {
		printf("no NVTX ranges: the program made no NVTX call (or its NVTX library "
		       "ignores NVTX_INJECTION64_PATH)\n");
		ret = prog_failed ? EXIT_WORKLOAD_FAILED : EXIT_OK;
		goto program_status;
	}
	rc = trace_convert(logdir.buf, NULL, db.buf, NULL, &st, &err);
	if (rc == -1 || rc == TRACE_CONVERT_CANNOT_WRITE) {
		error_print("%s", err.buf);
		ret = rc == -1 ? EXIT_BAD_INPUT : EXIT_IO;
		goto out;
	}
	if (rc == TRACE_CONVERT_PARTIAL) {
		warning_print("%s", err.buf);
		strbuf_reset(&err);
	}
	if (nvtx_list_load(&list, db.buf, &err)) {
		error_print("%s", err.buf);
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	if (!list.n && !list.marks)
		printf("no NVTX ranges: the program loaded NVTX but emitted no range\n");
	else
		nvtx_list_format(&list, &out);
	fputs(out.buf, stdout);
	if (st.open_ranges)
		warning_print("%llu range(s) were never closed (counted, listed with the others)",
			      (unsigned long long)st.open_ranges);
	if (st.diags.len) {
		fputs("llmprof: tracer: ", stderr);
		fputs_printable(st.diags.buf, stderr, "\n");
	}
	if (opt_keep)
		printf("trace: %s\n", db.buf);
	ret = prog_failed ? EXIT_WORKLOAD_FAILED : EXIT_OK;
program_status:
	if (prog_failed && res.outcome == PROC_TIMEOUT)
		ret = EXIT_TIMEOUT;
	else if (prog_failed && res.outcome == PROC_INTERRUPTED)
		ret = EXIT_INTERRUPTED;
	if (prog_failed)
		error_print("the program %s; the list above holds the ranges it emitted before",
			    desc.buf);
out:
	fflush(stdout);
	if (tmp)
		remove_dir(tmp);
	tracer_env_free(env);
	nvtx_list_release(&list);
	trace_convert_stats_release(&st);
	config_free(cfg);
	free(lib);
	free(conf);
	free(tmp);
	strbuf_release(&err);
	strbuf_release(&logdir);
	strbuf_release(&db);
	strbuf_release(&out);
	strbuf_release(&desc);
	return ret;
}

const struct cmd_entry cmd_nvtx_entry = {
    .name = "nvtx",
    .usage = "[KEY=VALUE ...] -- PROGRAM [ARGS...]",
    .summary = "list the NVTX ranges a program emits, with nsys and ncu filters",
    .description =
	"Runs PROGRAM once with the builtin tracer's NVTX injection only (no CUPTI, no GPU "
	"needed) and lists every NVTX range: domain, name, style (PushPop or StartEnd), "
	"count, nesting depth, parent range, and the exact expression that selects it in "
	"nsys (--nvtx-capture range@domain) and ncu (--nvtx-include domain@range/, no "
	"trailing '/' for start/end ranges). The program's output comes first.",
    .opts = opts,
    .flags = CMD_TAKES_PROGRAM,
    .exec = cmd_nvtx_exec,
};
