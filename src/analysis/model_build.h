/* model_build.h: steps 2 and 5 of the pipeline (analyze, join) from files:
 * a run bundle, or loose files (`report --trace FILE [--ncu-csv RAW]`). This
 * is the only path that fills a struct report_model from real data: it is
 * built once, and src/report/ renders it (report_write_all()), so `llmprof
 * profile`'s reports step and `llmprof report RUN_DIR` produce the same bytes
 * from the same bundle.
 *
 * What is read (all optional except the trace; what is missing becomes a
 * skipped or failed step in the reports, never a made-up number), from a
 * bundle as bundle_open() read it (bundle/open.h), once:
 *   status.json  the steps before analyze (analyze, join and reports are
 *                redone here and their outcome replaces the recorded one)
 *   env.json     GPU name, SM count, driver, CUDA, tool versions
 *   config.yaml  (as cfg) stages.*, run.*, model.*, infer.*, hardware.*
 *   trace        trace/trace.sqlite or nsys/run.sqlite (or, degraded, an
 *                `nsys stats` cuda_gpu_kern_sum CSV)
 *   workload/analytic.json   the built-in llm's analytic FLOPs/bytes; with
 *                none, a command workload whose cfg names a model preset
 *                gets them from the preset and infer.* (analytic_cfg.h)
 *   ncu/selection.json, ncu/measured.json  the select and ncu steps' record
 *   rank.json    a --rank-dir bundle's rank, when the trace names none
 *   ncu/raw.csv  counters, joined to the trace's kernels (analysis/join.h)
 *
 * The functions keep their report_ prefix: they build the *report* model
 * (model/model.h), whatever calls them.
 *
 * Ownership: everything borrowed; struct report_build_result owns its
 * strings (report_build_result_release()). */
#ifndef LLMPROF_ANALYSIS_MODEL_BUILD_H
#define LLMPROF_ANALYSIS_MODEL_BUILD_H

#include "bundle/open.h"
#include "config/config.h"
#include "core/strbuf.h"
#include "model/model.h"

/* The analyze step's result (the opened trace and its timeline), kept so the
 * later steps of `llmprof profile` need not analyze the trace again.
 * Opaque; report_analysis_free(). Defined in analysis/session.c. */
struct report_analysis;
struct report_analysis *report_analysis_new(void);
void report_analysis_free(struct report_analysis *a);
/* Analyzes path (NULL = no trace: skipped) with stages.* from cfg (NULL =
 * defaults). Never fails as a call: see report_analysis_state(). */
void report_analysis_run(struct report_analysis *a, const char *path, const struct config *cfg);
/* STEP_OK, STEP_FAILED or STEP_SKIPPED, and the one-line message in *msg
 * (borrowed). */
enum step_state report_analysis_state(const struct report_analysis *a, const char **msg);

/* The analyzed trace's kernel launches in launch order for kernel selection
 * (analysis/select.h), in_stage set for the launches inside stage, one of
 * run.stage's values (run_stage_names: "prefill", "decode" with its steps,
 * "decode_step", "all"; the config refuses any other when it loads).
 * Strings borrow from a. 0, or -1 with err (no analyzed trace, another
 * stage). *out is owned by the caller (free()). */
struct launch;
int report_analysis_launches(const struct report_analysis *a, const char *stage,
			     struct launch **out, size_t *n, struct strbuf *err);

struct ncu_kernel_table;
struct report_build_opts {
	/* a bundle opened with BUNDLE_READ_REPORT (bundle/open.h; its config
	 * may be left out when cfg is the same), or NULL for loose files */
	const struct bundle_in *bundle;
	const char *trace_path;	  /* NULL: the bundle's trace (bundle_trace()) */
	const char *ncu_csv;	  /* NULL: the bundle's ncu/raw.csv when present */
	const struct config *cfg; /* NULL: defaults (no overrides) */
	/* loose files only: the stage the counters of ncu_csv were measured
	 * on (a run.stage the user gave), NULL = any stage; a bundle's is its
	 * config's run.stage */
	const char *counters_stage;
	const char *out_dir; /* where the caller writes the reports (not read here) */
	/* an analysis already run on the bundle's trace with the same cfg;
	 * NULL = analyze here */
	const struct report_analysis *analysis;
	/* ncu_csv (or the bundle's ncu/raw.csv) already parsed, so a run
	 * parses it once; NULL = read and parse it here */
	const struct ncu_kernel_table *ncu_table;
};

/* How the redone steps went: STEP_OK, STEP_FAILED or STEP_SKIPPED. */
struct report_build_result {
	enum step_state analyze_state, join_state;
	struct strbuf analyze_msg, join_msg; /* one line each */
	struct strbuf loud;		     /* critical/warning findings, one per line */
};
void report_build_result_init(struct report_build_result *r);
void report_build_result_release(struct report_build_result *r);

/* Fills m from the inputs (analysis included), derives, runs the findings:
 * the whole model, ready for report_write_all() (report/report.h). An
 * unreadable trace fails the analyze step inside the model (and in *res),
 * not the call; a bundle's damaged record was refused by bundle_open(). */
void report_build_model(const struct report_build_opts *o, struct report_model *m,
			struct report_build_result *res);

#endif
