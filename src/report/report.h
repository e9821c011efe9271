/* report.h: the report writers. Each render function appends one complete
 * document for a derived model (report_model_derive(), findings_run()) to
 * out; the output depends only on the model, so regenerating from the same
 * bundle is byte-identical (no clocks, no hash-order iteration).
 *
 * report_write_all() renders everything into a directory, each file written
 * atomically (temp + rename). */
#ifndef LLMPROF_REPORT_H
#define LLMPROF_REPORT_H

#include <jansson.h>

#include "core/strbuf.h"
#include "model/model.h"

/* How many rows the summary tables show (kernels.md/operators.md show all). */
#define REPORT_SUMMARY_TOP 10
/* findings the stakeholder summary opens with */
#define REPORT_SUMMARY_FINDINGS 3
/* Operators in the stakeholder summary (the rest: operators.md). */
#define REPORT_SUMMARY_OPS 5
#define REPORT_CHART_TOP 15
#define REPORT_CHART_WIDTH 1100

void report_render_kernels_md(const struct report_model *m, struct strbuf *out);
void report_render_operators_md(const struct report_model *m, struct strbuf *out);
void report_render_report_md(const struct report_model *m, struct strbuf *out);
void report_render_summary_md(const struct report_model *m, struct strbuf *out);
/* metrics.json (schema: docs/metrics-json.md). Invalid UTF-8 in names
 * becomes U+FFFD. 0, or -1 with err when JSON encoding fails. */
int report_render_metrics_json(const struct report_model *m, struct strbuf *out,
			       struct strbuf *err);
void report_render_html(const struct report_model *m, struct strbuf *out);
/* One entry of metrics.json's collectives "late_by_stage": straggle s of
 * the rank `rank` (a JSON value, stolen), also for merged.json. A new
 * reference. */
json_t *report_straggle_json(json_t *rank, const struct report_coll_straggle *s);

/* Writes kernels.md, operators.md, report.md, stakeholder_summary.md,
 * metrics.json, report.html and charts/{timeline,kernels,roofline}.svg into
 * dir (created if needed). Stops at the first error: 0, or -1 with err. */
struct bundle_dir;
int report_write_all(const struct report_model *m, const struct bundle_dir *bd, struct strbuf *err);

#endif
