/* cmd-report.c: `llmprof report`: redo the analysis and the reports from a
 * run bundle, or from given files (--trace). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "report/trace-report.h"
#include "core/banned.h"

static const char *opt_trace;
static const char *opt_out;

static const struct opt opts[] = {
    {"trace", 0, OPT_STRING, &opt_trace, "FILE",
     "trace to analyze: nsys or llmprof .sqlite, or an nsys stats cuda_gpu_kern_sum .csv", 0, 0},
    {"output", 'o', OPT_STRING, &opt_out, "DIR", "where to write the reports (with --trace)", 0, 0},
    OPT_END_MARK,
};

/* The trace of a run bundle: the builtin tracer's, else the nsys export. */
static const char *bundle_trace(const char *run, struct strbuf *path)
{
	static const char *const rel[] = {"trace/trace.sqlite", "nsys/run.sqlite",
					  "nsys/summary_cuda_gpu_kern_sum.csv"};

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		strbuf_reset(path);
		path_join(path, run, rel[i]);
		if (path_exists(path->buf))
			return path->buf;
	}
	return NULL;
}

static int cmd_report_exec(struct cmd_ctx *ctx)
{
	struct report_ctx rc;
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	int code = EXIT_OK;

	report_ctx_init(&rc);
	if (opt_trace) {
		if (ctx->argc || !opt_out) {
			error_print("report: --trace FILE needs -o DIR and no RUN_DIR");
			code = EXIT_USAGE;
			goto cleanup;
		}
		rc.trace_path = opt_trace;
		rc.out_dir = opt_out;
	} else {
		if (ctx->argc != 1) {
			error_print("report: expected RUN_DIR or --trace FILE -o DIR "
				    "(see 'llmprof report --help')");
			code = EXIT_USAGE;
			goto cleanup;
		}
		rc.out_dir = opt_out ? opt_out : ctx->argv[0];
		rc.trace_path = bundle_trace(ctx->argv[0], &path);
		if (!rc.trace_path) {
			error_print(
			    "report: '%s' holds no trace (trace/trace.sqlite or nsys/run.sqlite)",
			    ctx->argv[0]);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
	}
	if (report_load(&rc, &err) || report_analyze(&rc, &err)) {
		error_print("%s", err.buf);
		code = EXIT_BAD_INPUT;
		goto cleanup;
	}
	for (size_t i = 0; i < rc.nfindings; i++)
		if (strstr(rc.findings[i], "**"))
			warning_print("%s", rc.findings[i]);
	if (report_write(&rc, &err)) {
		error_print("%s", err.buf);
		code = EXIT_IO;
		goto cleanup;
	}
	printf("report: %s\n", rc.out_dir);
cleanup:
	report_ctx_release(&rc);
	strbuf_release(&err);
	strbuf_release(&path);
	return code;
}

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage = "RUN_DIR | --trace FILE -o DIR",
    .summary = "stage timings, operators and kernel tables from a trace",
    .description = "Analyzes a trace (nsys export or llmprof trace.sqlite; an `nsys stats`\n"
		   "cuda_gpu_kern_sum CSV gives the kernel table only) and writes report.md,\n"
		   "kernels.md, operators.md and metrics.json. Stages come from NVTX ranges\n"
		   "(prefill: LLM@prefill or prefill; decode: LLM@decode_all or decode; decode\n"
		   "steps: LLM@decode_step). 'No GPU work captured' and kernels outside every\n"
		   "stage are reported as findings, also on stderr.",
    .opts = opts,
    .exec = cmd_report_exec,
};
