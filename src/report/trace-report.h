/* trace-report.h: the reports written from a trace (step 2, "analyze", of
 * the pipeline): report.md, kernels.md, operators.md and metrics.json.
 *
 * A struct report_ctx is filled by steps, each reading what the previous
 * ones left: report_load() reads the trace (nsys/llmprof SQLite, or an
 * `nsys stats` cuda_gpu_kern_sum CSV as a degraded input), report_analyze()
 * computes the timeline and the findings, report_write() writes the files.
 * Later steps (ncu metrics) add fields and sections without changing these.
 * The context owns everything it holds; report_ctx_release() frees it. */
#ifndef LLMPROF_TRACE_REPORT_H
#define LLMPROF_TRACE_REPORT_H

#include "analysis/timeline.h"
#include "core/strbuf.h"
#include "trace/trace.h"

struct report_ctx {
	/* inputs (borrowed) */
	const char *trace_path;
	const char *out_dir;
	struct stage_config stages;

	/* filled by report_load */
	int have_trace; /* SQLite trace */
	struct trace trace;
	int have_kernel_csv; /* degraded input: kernel summary only */
	struct strtab csv_strs;
	struct kernel_summary csv_kernels;

	/* filled by report_analyze */
	int analyzed;
	struct timeline tl;
	char **findings; /* owned, one sentence each; loud ones first */
	size_t nfindings, findings_alloc;
};

void report_ctx_init(struct report_ctx *c);
void report_ctx_release(struct report_ctx *c);
int report_load(struct report_ctx *c, struct strbuf *err);
int report_analyze(struct report_ctx *c, struct strbuf *err);
int report_write(struct report_ctx *c, struct strbuf *err);

#endif
