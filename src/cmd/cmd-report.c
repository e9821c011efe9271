/* cmd-report.c: `llmprof report`: redo analyze, join and reports from a run
 * bundle, or from given files (--trace [--ncu-csv]). Same code as the
 * profile pipeline's join and reports steps (the model built by
 * analysis/model_build.h, rendered by report/report.h), so a bundle
 * regenerates byte for byte. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "cmd/cmd.h"
#include "cmd/report_ncu.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "analysis/model_build.h"
#include "report/report.h"
#include "trace/perfetto.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

static const char *opt_trace;
static const char *opt_ncu;
static const char *opt_out;
static int64_t opt_max_rows;

static const struct opt opts[] = {
    {"trace", 0, OPT_STRING, &opt_trace, "FILE",
     "trace to analyze: nsys or llmprof .sqlite, or an nsys stats cuda_gpu_kern_sum .csv", 0, 0},
    {"ncu-csv", 0, OPT_STRING, &opt_ncu, "RAW.csv",
     "ncu --csv --page raw --print-units base export: joined with --trace, or alone", 0, 0},
    {"output", 'o', OPT_STRING, &opt_out, "DIR",
     "where to write the reports (with --trace; default for RUN_DIR: RUN_DIR itself)", 0, 0},
    {"max-rows", 0, OPT_INT, &opt_max_rows, "N",
     "--ncu-csv alone: at most N kernel rows, the last one summing the rest (0 = all)", 0, 1000000},
    OPT_END_MARK,
};

/* `report --trace DB -o DIR`: DIR/trace.json, for Perfetto, as the builtin
 * backend writes trace/trace.json. A trace it cannot draw is a warning (the
 * reports are written); a file it cannot write (disk full) is an error
 * like any report's: EXIT_IO. 0 otherwise. */
static int write_trace_json(const char *db, const struct bundle_dir *out)
{
	struct strbuf err = STRBUF_INIT;
	int ret = perfetto_write(db, out, bundle_art(BA_OUT_TRACE_JSON), 0, NULL, NULL, &err);

	if (ret == PERFETTO_CANNOT_WRITE)
		error_print("report: %s", err.buf);
	else if (ret)
		warning_print("report: no %s: %s", bundle_art(BA_OUT_TRACE_JSON), err.buf);
	strbuf_release(&err);
	return ret == PERFETTO_CANNOT_WRITE ? EXIT_IO : 0;
}

/* `report --ncu-csv RAW.csv -o DIR` with no trace: kernels.md, kernels.json
 * and regions/ from the export alone (report_ncu.c). */
static int report_ncu_only(struct cmd_ctx *ctx)
{
	if (ctx->argc || !opt_out) {
		error_print("report: --ncu-csv RAW.csv alone needs -o DIR and no RUN_DIR");
		return EXIT_USAGE;
	}
	return report_ncu_csv_only(opt_ncu, opt_out, (size_t)opt_max_rows);
}

static int cmd_report_exec(struct cmd_ctx *ctx)
{
	struct report_build_opts o;
	struct report_build_result res;
	struct report_model m;
	struct bundle_in bundle = BUNDLE_IN_INIT;
	struct strbuf err = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	int code = EXIT_OK;

	if (opt_out && !*opt_out) {
		error_print("report: option '--output' needs a directory");
		return EXIT_USAGE;
	}
	if (opt_ncu && !opt_trace && !ctx->argc)
		return report_ncu_only(ctx);
	if (opt_max_rows) {
		error_print("report: --max-rows applies to --ncu-csv without a trace");
		return EXIT_USAGE;
	}
	memset(&o, 0, sizeof(o));
	report_model_init(&m);
	report_build_result_init(&res);
	if (opt_trace) {
		if (ctx->argc || !opt_out) {
			error_print("report: --trace FILE needs -o DIR and no RUN_DIR");
			code = EXIT_USAGE;
			goto cleanup;
		}
		if (path_check_exists(opt_trace, &err)) {
			error_print("report: %s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		o.trace_path = opt_trace;
		o.out_dir = opt_out;
	} else {
		if (ctx->argc != 1) {
			error_print("report: expected RUN_DIR or --trace FILE -o DIR "
				    "(see 'llmprof report --help')");
			code = EXIT_USAGE;
			goto cleanup;
		}
		if (!path_is_dir(ctx->argv[0])) {
			if (!path_broken_link(ctx->argv[0], &err))
				error_set(&err, "'%s' is not a run directory", ctx->argv[0]);
			error_print("report: %s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		o.out_dir = opt_out ? opt_out : ctx->argv[0];
		/* a damaged status.json, env.json or config.yaml is a bad input
		 * (5), not a write error */
		if (bundle_open(&bundle, ctx->argv[0], BUNDLE_READ_REPORT, &err)) {
			error_print("report: %s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		/* a bundle whose trace step failed still gets reports saying so */
		if (!bundle.status && !bundle.trace.len) {
			error_print("report: '%s' holds no %s and no trace (%s or %s)",
				    ctx->argv[0], bundle_art(BA_STATUS),
				    bundle_art(BA_TRACE_SQLITE), bundle_art(BA_NSYS_SQLITE));
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		o.bundle = &bundle;
		o.cfg = bundle.cfg;
	}
	if (opt_ncu) {
		if (path_check_exists(opt_ncu, &err)) {
			error_print("report: %s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		o.ncu_csv = opt_ncu;
	}
	/* the model is built once; every report renders it, beneath out_dir
	 * (as the user named it) never through a symlink */
	if (mkdir_p(o.out_dir, &err) || bundle_dir_open(&bd, o.out_dir, 0, &err)) {
		code = EXIT_IO;
	} else {
		report_build_model(&o, &m, &res);
		if (report_write_all(&m, &bd, &err))
			code = EXIT_IO;
	}
	if (code != EXIT_OK) {
		error_print("report: %s", err.buf);
		goto cleanup;
	}
	/* the charts are drawn: trace.json needs the memory, not the lanes */
	report_model_release_timeline(&m);
	if (opt_trace && export_is_sqlite(opt_trace))
		code = write_trace_json(opt_trace, &bd);
	if (res.loud.len)
		fputs_printable(res.loud.buf, stderr, "\n");
	if (res.analyze_state == STEP_FAILED) {
		error_print("report: analyze: %s (the reports say so)", res.analyze_msg.buf);
		code = EXIT_BAD_INPUT;
	}
	if (res.join_state == STEP_FAILED) {
		error_print("report: join: %s (the reports say so)", res.join_msg.buf);
		code = EXIT_BAD_INPUT;
	}
	printf("report: %s\n", o.out_dir);
cleanup:
	bundle_dir_close(&bd);
	bundle_in_release(&bundle);
	report_model_release(&m);
	report_build_result_release(&res);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage = "RUN_DIR | --trace FILE [--ncu-csv RAW.csv] -o DIR | --ncu-csv RAW.csv -o DIR",
    .summary = "redo the analysis and every report from a run bundle or from files",
    .description = "Analyzes a trace (nsys export or llmprof trace.sqlite; an `nsys stats`\n"
		   "cuda_gpu_kern_sum CSV gives the kernel table only) and writes kernels.md,\n"
		   "operators.md, report.md, stakeholder_summary.md, metrics.json, report.html\n"
		   "and charts/. With RUN_DIR it reads the bundle's config.yaml (stages.*,\n"
		   "hardware.*, model.*), status.json, env.json and workload/analytic.json and\n"
		   "rewrites the reports in place: byte-identical when nothing changed.\n"
		   "Critical findings ('no GPU work captured', no stage range matched) are\n"
		   "also printed on stderr.\n"
		   "With --ncu-csv and no trace it writes kernels.md and kernels.json (every\n"
		   "kernel, or a last row summing the rest) and regions/ (report.md,\n"
		   "report.json, <region>/metrics.json; or why there are no regions).\n"
		   "Exit codes: 0 ok, 2 usage, 5 unreadable or broken input (the reports are\n"
		   "still written when the trace is the broken part), 7 cannot write.",
    .opts = opts,
    .exec = cmd_report_exec,
};
