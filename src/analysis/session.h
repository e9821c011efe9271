/* session.h: what the analyze step holds (struct report_analysis, opaque
 * outside src/analysis/) and the helpers the files that turn it into a
 * report model share: session.c runs it, model_fill.c copies it into the
 * model, join.c joins counters to its kernels, model_build.c drives them.
 * Internal to src/analysis/. */
#ifndef LLMPROF_ANALYSIS_SESSION_H
#define LLMPROF_ANALYSIS_SESSION_H

#include <jansson.h>

#include "analysis/model_build.h"
#include "analysis/timeline.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "trace/strtab.h"
#include "trace/trace.h"

/* Everything the analysis holds; the model copies what it uses. */
struct report_analysis {
	char *path;	       /* the trace analyzed; NULL = none */
	enum step_state state; /* STEP_OK, STEP_FAILED or STEP_SKIPPED */
	struct strbuf msg;
	int have_trace, have_tl, have_csv, have_gpu;
	struct trace trace;
	struct trace_gpu gpu; /* TARGET_INFO_GPU, when have_gpu */
	struct timeline tl;
	struct strtab csv_strs;
	struct kernel_summary csv_kernels;
	struct stage_config stages;
	const char **names[STAGE_NROLES]; /* owned arrays, borrowed strings */
};

/* model_fill.c: the analysis into m (stages, kernels, operators, lanes). */
void model_fill_from_analysis(struct report_model *m, const struct report_analysis *a);
/* The GPU from the trace's TARGET_INFO_GPU when nothing named one; returns
 * the memory bandwidth it records in GB/s (0 = none) for peaks_load(). */
double model_fill_env_from_trace(struct report_model *m, const struct report_analysis *a);
/* Findings only the timeline knows, added after findings_run(). */
void model_timeline_findings(struct report_model *m, const struct report_analysis *a);
/* The trust report (analysis/trust.h) from the trace and timeline, with its
 * findings; after model_timeline_findings(). Nothing without a trace. */
void model_trust(struct report_model *m, const struct report_analysis *a);

/* A string member of a JSON object, or NULL. */
const char *session_jstr(json_t *o, const char *key);

#endif
