/* findings_priv.h: what the files of the findings engine share.
 *   findings_common.c  the measures and wording every rule uses (calls no
 *                      rule)
 *   findings_cause.c   the rules that name causes and estimate savings, and
 *                      the CPU-time sentences (uses findings_common.c)
 *   findings.c         the other rules, findings_run() and the ranking (uses
 *                      both) */
#ifndef LLMPROF_FINDINGS_PRIV_H
#define LLMPROF_FINDINGS_PRIV_H

#include "core/strbuf.h"
#include "model/model.h"

/* findings_common.c */
/* A kernel's GPU time and launches inside stage st (see findings_common.c). */
uint64_t findings_kernel_stage_ns(const struct report_kernel *k, const struct report_stage *st);
uint64_t findings_kernel_stage_calls(const struct report_kernel *k, const struct report_stage *st);
uint64_t findings_stage_kernel_ns(const struct report_model *m, const struct report_stage *st);
/* The stage's kernels by their time inside it, longest first; n of them.
 * Owned array of indices into m->kernels. */
size_t *findings_stage_kernels_by_time(const struct report_model *m, const struct report_stage *st,
				       size_t *n);
/* A kernel's name for a finding, as a code span: its qualified name without
 * template arguments or parameters (trace/kname.h: KNAME_SCOPE |
 * KNAME_UNWRAP), at most 80 characters. When another kernel of m reads the
 * same, the template arguments are added ("k_gemv<128, 4>"), then the
 * launch configuration, then its row in kernels.md, so that two different
 * kernels never share a name in one finding. */
void findings_kernel_name(struct strbuf *sb, const struct report_model *m,
			  const struct report_kernel *k);
/* A recommendation that names a file of the run bundle: fmt, with the
 * names from bundle/layout.h as its arguments, formatted into sb (reset
 * first). Returns sb's text. */
const char *findings_rec(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets the estimated saving of the last finding added: ms per unit
 * ("token", "request") and over the whole profiled run. */
void findings_set_saving(struct report_model *m, double per_unit_ms, const char *unit,
			 double run_ms);
/* The units a stage's time is counted in: decode steps (tokens) or stage
 * instances (requests); 0 when unknown. *unit is set. */
double findings_stage_units(const struct report_stage *st, const char **unit);

/* findings_cause.c */
/* Where a stage's CPU time went, as a sentence of its own (leading space),
 * when the trace records every CUDA API call: " Where its 365.7 ms of CPU
 * time went: 210.3 ms in CUDA API calls (cuModuleLoadData 150.2 ms, ...),
 * 155.4 ms outside CUDA (host code: Python, the framework)." Nothing
 * otherwise; returns whether it wrote. */
int findings_cpu_split(struct strbuf *sb, const struct report_stage *st);

/* Whether stage st already runs as CUDA graphs: the built-in model said so
 * (infer.cuda_graph), or at least half its kernels were replayed from a
 * graph (a torch.compile "reduce-overhead" or torch.cuda.graph decode). */
int findings_stage_graphs(const struct report_model *m, const struct report_stage *st);

/* The advice for a stage whose GPU waits for its host although it replays
 * CUDA graphs: where the time between replays comes from (the graph share,
 * the host-device copies inside it), appended to rec, without a full stop. */
void findings_graph_rec(struct strbuf *rec, const struct report_stage *st);
/* The stage's sampled CPU time by category, as a sentence of its own, when
 * it has CPU samples (pipeline.trace.cpu_sample_hz): " Sampled CPU time (52
 * samples, 52.0 ms): 60.0% Python interpreter, 25.0% PyTorch
 * (`at::native::add`), ..." Returns whether it wrote. findings_cpu_split
 * calls it when it cannot split (and still returns 0), or when no sample
 * fell outside the CUDA API calls; with samples there, its "outside CUDA"
 * part cites them instead: " 112.7 ms outside CUDA: sampled (110 samples)
 * 60.0% Python interpreter, ..." */
int findings_cpu_samples(struct strbuf *sb, const struct report_stage *st);
#define FINDINGS_SAMPLE_CATS 3 /* categories a sentence names */
/* The hint for when it cannot: record every CUDA API call. */
#define FINDINGS_API_HINT                                                                          \
	"Record every CUDA API call (built-in tracer: pipeline.trace.api_calls=all; nsys: "        \
	"--trace=cuda) and the report says where the CPU time went."

void rule_launch_bound(struct report_model *m);
void rule_kernel_family(struct report_model *m);
void rule_memory_ceiling(struct report_model *m);
void rule_tensor_ceiling(struct report_model *m);
void rule_decode_host_copies(struct report_model *m);

#endif
