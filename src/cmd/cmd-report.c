/* cmd-report.c: `llmprof report`: redo analyze, join and reports from a run
 * bundle, or from given files (--trace [--ncu-csv]). Same code as the
 * profile pipeline's join and reports steps (the model built by
 * analysis/model_build.h, rendered by report/report.h), so a bundle
 * regenerates byte for byte. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "cmd/cmd.h"
#include "cmd/report_ncu.h"
#include "cmd/trace_input.h"
#include "config/config.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "analysis/model_build.h"
#include "analysis/session.h"
#include "report/report.h"
#include "trace/perfetto.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

static const char *opt_trace;
static const char *opt_ncu;
static const char *opt_out;
static const char *opt_conf_dir;
static int64_t opt_max_rows;

static const struct opt opts[] = {
    {"trace", 0, OPT_STRING, &opt_trace, "FILE",
     "trace to analyze: nsys or llmprof .sqlite, an nsys report (.nsys-rep, .qdrep: exported "
     "with nsys to FILE.sqlite beside it), or an nsys stats cuda_gpu_kern_sum .csv",
     0, 0},
    {"ncu-csv", 0, OPT_STRING, &opt_ncu, "CSV",
     "ncu --csv export, raw page (--page raw, any --print-units) or details page (ncu's "
     "default): joined with --trace, or alone",
     0, 0},
    {"output", 'o', OPT_STRING, &opt_out, "DIR",
     "where to write the reports (with --trace; default for RUN_DIR: RUN_DIR itself)", 0, 0},
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "--trace: read the configuration the KEY=VALUE overrides apply to from DIR (default: "
     "$LLMPROF_CONF_DIR, else llmprof's conf/)",
     0, 0},
    {"max-rows", 0, OPT_INT, &opt_max_rows, "N",
     "--ncu-csv alone: at most N kernel rows, the last one summing the rest (0 = all), and the N "
     "longest results in each region's metrics.json (0: 1000)",
     0, 1000000},
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

/* `report --ncu-csv CSV -o DIR` with no trace: kernels.md, kernels.json
 * and regions/ from the export alone (report_ncu.c). */
static int report_ncu_only(const struct trace_args *ta)
{
	if (ta->nov) {
		error_print("report: '%s': KEY=VALUE overrides apply to a trace (--trace FILE or "
			    "RUN_DIR), not to --ncu-csv alone",
			    ta->ov[0]);
		return EXIT_USAGE;
	}
	if (ta->ninputs) {
		error_print("report: --ncu-csv CSV alone takes no RUN_DIR ('%s'); to join the "
			    "counters to a trace: --trace FILE --ncu-csv CSV -o DIR",
			    ta->inputs[0]);
		return EXIT_USAGE;
	}
	if (!opt_out) {
		error_print(
		    "report: --ncu-csv CSV alone needs -o DIR (where to write the reports)");
		return EXIT_USAGE;
	}
	return report_ncu_csv_only(opt_ncu, opt_out, (size_t)opt_max_rows);
}

/* What report --trace FILE reads: the trace (an nsys report exported
 * first: *sqlite, *tmpdir) and the configuration of a trace with no
 * bundle. 0, or the exit code after the error. */
static int setup_trace(const struct trace_args *ta, struct report_build_opts *o,
		       struct config **cfg, char **sqlite, char **tmpdir)
{
	struct strbuf err = STRBUF_INIT;
	int code = 0;

	if (ta->ninputs) {
		error_print("report: --trace FILE takes no RUN_DIR ('%s' given); a KEY=VALUE "
			    "override needs its '='",
			    ta->inputs[0]);
		code = EXIT_USAGE;
	} else if (!opt_out) {
		error_print("report: --trace FILE needs -o DIR (where to write the reports)");
		code = EXIT_USAGE;
	} else if (path_check_exists(opt_trace, &err)) {
		error_print("report: %s", err.buf);
		code = EXIT_BAD_INPUT;
	} else if (!(code = trace_args_loose_config(ta, cfg))) {
		if (trace_input_is_report(opt_trace))
			code = trace_input_export("report", opt_trace, sqlite, tmpdir);
		o->trace_path = *sqlite ? *sqlite : opt_trace;
		o->out_dir = opt_out;
		o->cfg = *cfg;
		o->counters_stage = ta->run_stage;
	}
	strbuf_release(&err);
	return code;
}

/* What report RUN_DIR reads: the bundle, opened and checked
 * (bundle_open: a damaged status.json, env.json or config.yaml is a bad
 * input, 5, not a write error), and its config.yaml with the overrides. 0,
 * or the exit code after the error. */
static int setup_bundle(const struct trace_args *ta, struct report_build_opts *o,
			struct bundle_in *bundle, struct config **cfg)
{
	struct strbuf err = STRBUF_INIT;
	const char *run = ta->ninputs == 1 ? ta->inputs[0] : NULL;
	int code = EXIT_BAD_INPUT;

	if (!run) {
		error_print("report: expected RUN_DIR or --trace FILE -o DIR "
			    "(see 'llmprof report --help')");
		code = EXIT_USAGE;
		goto out;
	}
	if (!path_is_dir(run)) {
		if (!path_broken_link(run, &err))
			error_set(&err, "'%s' is not a run directory", run);
		error_print("report: %s", err.buf);
		goto out;
	}
	if (ta->nov && !opt_out) {
		error_print("report: '%s': KEY=VALUE overrides on RUN_DIR need -o DIR (the "
			    "bundle's own reports follow its %s)",
			    ta->ov[0], bundle_art(BA_CONFIG));
		code = EXIT_USAGE;
		goto out;
	}
	o->out_dir = opt_out ? opt_out : run;
	if (bundle_open(bundle, run, BUNDLE_READ_REPORT, &err)) {
		error_print("report: %s", err.buf);
		goto out;
	}
	/* a bundle whose trace step failed still gets reports saying so */
	if (!bundle->status && !bundle->trace.len) {
		error_print("report: '%s' holds no %s and no trace (%s or %s)", run,
			    bundle_art(BA_STATUS), bundle_art(BA_TRACE_SQLITE),
			    bundle_art(BA_NSYS_SQLITE));
		goto out;
	}
	o->bundle = bundle;
	o->cfg = bundle->cfg;
	code = 0;
	if (ta->nov && !(code = trace_args_bundle_config(ta, run, cfg)))
		o->cfg = *cfg;
out:
	strbuf_release(&err);
	return code;
}

/* The model built once and every report rendered from it, beneath out_dir
 * (as the user named it) never through a symlink; what the redone steps
 * said on stderr. The exit code. */
static int build_and_write(const struct report_build_opts *o)
{
	struct report_build_result res;
	struct report_model m;
	struct strbuf err = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	int code = EXIT_OK;

	report_model_init(&m);
	report_build_result_init(&res);
	if (mkdir_p(o->out_dir, &err) || bundle_dir_open(&bd, o->out_dir, 0, &err)) {
		code = EXIT_IO;
	} else {
		report_build_model(o, &m, &res);
		if (report_write_all(&m, &bd, &err))
			code = EXIT_IO;
	}
	if (code != EXIT_OK) {
		error_print("report: %s", err.buf);
		goto out;
	}
	/* the reports are written: trace.json needs the memory, not the model
	 * (with a million distinct kernel names the two would hold ~1.2 GB) */
	report_model_release(&m);
	report_model_init(&m);
	if (!o->bundle && export_is_sqlite(o->trace_path))
		code = write_trace_json(o->trace_path, &bd);
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
	printf("report: %s\n", o->out_dir);
out:
	bundle_dir_close(&bd);
	report_model_release(&m);
	report_build_result_release(&res);
	strbuf_release(&err);
	return code;
}

static int cmd_report_exec(struct cmd_ctx *ctx)
{
	struct report_build_opts o;
	struct trace_args ta;
	struct bundle_in bundle = BUNDLE_IN_INIT;
	struct config *cfg = NULL;
	struct strbuf err = STRBUF_INIT;
	char *sqlite = NULL, *tmpdir = NULL;
	int code;

	if (opt_out && !*opt_out) {
		error_print("report: option '--output' needs a directory");
		return EXIT_USAGE;
	}
	trace_args_split(&ta, "report", opt_conf_dir, ctx);
	memset(&o, 0, sizeof(o));
	if (opt_ncu && !opt_trace && !ta.ninputs) {
		code = report_ncu_only(&ta);
		goto out;
	}
	if (opt_max_rows) {
		error_print("report: --max-rows applies to --ncu-csv without a trace");
		code = EXIT_USAGE;
		goto out;
	}
	if ((code = opt_trace ? setup_trace(&ta, &o, &cfg, &sqlite, &tmpdir)
			      : setup_bundle(&ta, &o, &bundle, &cfg)))
		goto out;
	if (opt_ncu) {
		if (path_check_exists(opt_ncu, &err)) {
			error_print("report: %s", err.buf);
			code = EXIT_BAD_INPUT;
			goto out;
		}
		o.ncu_csv = opt_ncu;
	}
	code = build_and_write(&o);
out:
	trace_input_export_done(&sqlite, &tmpdir);
	if (cfg)
		config_free(cfg);
	bundle_in_release(&bundle);
	trace_args_release(&ta);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage =
	"RUN_DIR [-o DIR KEY=VALUE ...] | --trace FILE [--ncu-csv CSV] -o DIR [KEY=VALUE ...] | "
	"--ncu-csv CSV -o DIR",
    .summary = "redo the analysis and every report from a run bundle or from files",
    .description = "Analyzes a trace (nsys export or llmprof trace.sqlite, an nsys report\n"
		   "exported first with nsys; an `nsys stats` cuda_gpu_kern_sum CSV gives the\n"
		   "kernel table only) and writes kernels.md, operators.md, report.md,\n"
		   "stakeholder_summary.md, metrics.json, report.html and charts/. With RUN_DIR\n"
		   "it reads the bundle's config.yaml (stages.*, hardware.*, model.*),\n"
		   "status.json, env.json and workload/analytic.json and rewrites the reports in\n"
		   "place: byte-identical when nothing changed.\n"
		   "KEY=VALUE overrides, as `profile` takes them, apply to the configuration\n"
		   "the trace is analysed with: --trace reads conf/ (--conf-dir,\n"
		   "$LLMPROF_CONF_DIR) as a program's run, e.g. 'stages.decode=[generate]'\n"
		   "'stages.decode_step=[step]' to name the stages, model=llama-3.1-8b with\n"
		   "infer.batch_size/prompt_len/max_new_tokens for MFU/MBU, hardware.* for the\n"
		   "peaks, run.stage for the stage --ncu-csv measured; on RUN_DIR they apply to\n"
		   "its config.yaml (keys only) and need -o DIR.\n"
		   "Critical findings ('no GPU work captured', no stage range matched: then\n"
		   "the trace's top-level NVTX ranges and an override that names them) are\n"
		   "also printed on stderr.\n"
		   "--ncu-csv reads ncu's raw page or its details page (the default of\n"
		   "`ncu --csv`); alone it writes kernels.md and kernels.json (every kernel,\n"
		   "or a last row summing the rest) and regions/ (report.md, report.json,\n"
		   "<region>/metrics.json; or why there are no regions).\n"
		   "Exit codes: 0 ok, 2 usage, 3 a wrong override or conf/, 4 no nsys to export\n"
		   "a report, 5 unreadable or broken input (the reports are still written when\n"
		   "the trace is the broken part), 6 the export failed, 7 cannot write.",
    .opts = opts,
    .exec = cmd_report_exec,
};
