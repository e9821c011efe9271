/* model_tables.h: report tables built once from the model and rendered as
 * Markdown or HTML, so both formats always show the same rows and numbers.
 * Internal to src/report/; the table and its writers are model/table.h. */
#ifndef LLMPROF_REPORT_MODEL_TABLES_H
#define LLMPROF_REPORT_MODEL_TABLES_H

#include <stddef.h>

#include "core/strbuf.h"
#include "model/model.h"
#include "model/table.h"

/* Each rtable_X() fills t (uninitialised on entry; the caller releases it
 * with table_release()) with report table X, built once from the model
 * and rendered by table_write_md() or table_write_html() (model/table.h),
 * so both formats show the same rows and numbers. */

/* Per-rank tables (ranks_md.c): one row per process, its stages, the
 * cross-rank spread, and kernels / operators with a column per rank (the
 * first REPORT_RANK_COLS ranks; metrics.json has all). Empty without ranks. */
#define REPORT_RANK_COLS 8
void rtable_ranks(const struct report_model *m, struct table *t);
void rtable_rank_stages(const struct report_model *m, struct table *t);
void rtable_rank_spread(const struct report_model *m, struct table *t);
void rtable_rank_kernels(const struct report_model *m, struct table *t, size_t top);
void rtable_rank_operators(const struct report_model *m, struct table *t, size_t top);
/* The sentence that introduces the ranks: how many processes, that the
 * other tables sum over them, and the slowest rank with its numbers. */
void report_ranks_intro(const struct report_model *m, struct strbuf *out);
/* One line: how the model's work is shared for per-rank MFU/MBU
 * (report_ranks.util_basis); nothing without model work. */
void report_ranks_util_basis(const struct report_model *m, struct strbuf *out);
/* NCCL collectives across ranks (coll_md.c). Shown only with several
 * processes and at least one NCCL kernel; the tables are empty otherwise.
 * Per rank and collective type, the stragglers, exposed communication per
 * rank and stage, and the hosts' clocks (only with several hosts). */
int report_coll_shown(const struct report_model *m);
void rtable_coll_ranks(const struct report_model *m, struct table *t);
void rtable_coll_stragglers(const struct report_model *m, struct table *t);
/* Per stage, the ranks late at its collectives: lateness p50/p90/max,
 * first steps against the rest, cause and the numbers behind it. */
void rtable_coll_late(const struct report_model *m, struct table *t);
/* The same table's columns, and one row: straggle s of the rank named
 * label (for `llmprof merge`, whose ranks are no report model's). */
void rtable_coll_late_init(struct table *t);
void rtable_coll_late_row(struct table *t, const char *label, const struct report_coll_straggle *s);
void rtable_coll_stages(const struct report_model *m, struct table *t);
void rtable_coll_hosts(const struct report_model *m, struct table *t);
/* One paragraph: NCCL kernels, their share of kernel time, matched
 * collectives and the straggler. */
void report_coll_summary(const struct report_model *m, struct strbuf *out);
/* NCCL API calls and their bytes (analysis/ncclapi.c), with one process
 * too: shown when the trace has NCCL calls; with NCCL kernels and no call
 * (no NCCL ranges), the collectives of several ranks (report_coll_shown)
 * get the sentence saying why the bytes are unknown. */
int report_nccl_shown(const struct report_model *m);
void rtable_nccl_api(const struct report_model *m, struct table *t);
/* One paragraph: calls, bytes (or why n/a), calls that launched no kernel;
 * nothing when neither is shown. */
void report_nccl_summary(const struct report_model *m, struct strbuf *out);
/* "## Collectives" of report.md. */
void report_coll_md(const struct report_model *m, struct strbuf *out);

/* The report's tables. top = 0 means all rows. */
void rtable_environment(const struct report_model *m, struct table *t);
/* "0 of 2 (torchrun, local rank 0)": a rank identity in words, appended. */
void report_identity_text(const struct report_identity *id, struct strbuf *sb);
void rtable_stages(const struct report_model *m, struct table *t);
void rtable_decode_steps(const struct report_model *m, struct table *t);
/* Where stage s's CPU time went: its longest CUDA API calls by name, the
 * other calls, all calls, host code. No rows unless s->api_ms is known. */
void rtable_cpu_time(const struct report_stage *s, struct table *t);
/* Stage s's CPU samples (pipeline.trace.cpu_sample_hz): by category, with
 * each one's most sampled function; and its REPORT_SAMPLE_TOP functions.
 * No rows without samples. */
void rtable_cpu_sample_cats(const struct report_stage *s, struct table *t);
void rtable_cpu_sample_funcs(const struct report_stage *s, struct table *t);
/* "prefill: 52 samples (52.0 ms of its 74.6 ms of CPU time)", appended. */
void report_cpu_samples_caption(const struct report_stage *s, struct strbuf *sb);
/* "Sampler cost: 2.100 ms in 105 samples (20.0 us each) = 2.0% of the
 * sampled CPU time (105.000 ms), timed inside its signal handler.",
 * appended; returns 0 (nothing appended) without the sampler's totals. */
int report_cpu_sampler_line(const struct report_model *m, struct strbuf *sb);
/* "Tracing cost: ..." (docs/tracer.md "What tracing costs"): measured, or
 * why not; 0 and nothing written without a trace. */
int report_tracer_cost_line(const struct report_model *m, struct strbuf *sb);
/* What the PyTorch startup module did (its log, docs/pytorch.md): the mode,
 * processes, torch, what auto chose and the hooks' measured cost, into sb;
 * 0 when the run gave the program no module. */
int report_pytorch_line(const struct report_model *m, struct strbuf *sb);
void rtable_aggregates(const struct report_model *m, struct table *t);
void rtable_utilization(const struct report_model *m, struct table *t);
/* The summary's compact stage table: stage, GPU span, TTFT or TPOT, the
 * utilisation the stage is judged by with its basis (model or
 * counter-based), GPU busy share of the span. */
void rtable_summary_stages(const struct report_model *m, struct table *t);
void rtable_peaks(const struct report_model *m, struct table *t);
/* Every kernel column, the top m->table_rows rows (all when they fit; the
 * last then sums the rest). */
void rtable_kernels_full(const struct report_model *m, struct table *t);
void rtable_kernels_top(const struct report_model *m, struct table *t, size_t top);
/* The operators: the first top rows, or with top 0 the first
 * m->table_rows, the last then summing the rest. */
void rtable_operators(const struct report_model *m, struct table *t, size_t top);
/* Operators by class (Class, Stage, Modules, Calls, GPU, Mean GPU, GPU incl.
 * nested, Share of stage): the first top rows (0 = all). */
void rtable_op_classes(const struct report_model *m, struct table *t, size_t top);
void rtable_selection(const struct report_model *m, struct table *t);
/* The trust report's items (What, How many, Affects); no rows when none. */
void rtable_trust(const struct report_model *m, struct table *t);
/* The line a trust report without items reads. */
#define REPORT_TRUST_NONE "Nothing found that would make these numbers wrong."
void rtable_steps(const struct report_model *m, struct table *t);
/* "Counter results not joined": the first `top` (0 = all) results the
 * counter join left unmatched, with their reasons. */
void rtable_unjoined(const struct report_model *m, struct table *t, size_t top);

/* One plain-text sentence or two: model, GPU, TTFT/TPOT/tokens/s, MFU/MBU
 * (only the numbers that are available). Defined in render_md.c. */
void report_headline(const struct report_model *m, struct strbuf *out);
/* Finding texts are Markdown with `code` spans only; this writes them as
 * escaped HTML with <code>. Defined in html.c. */
void md_inline_html(struct strbuf *out, const char *md);

/* Short status line for the top of report.md / report.html. */
void report_status_line(const struct report_model *m, struct strbuf *out);

#endif
