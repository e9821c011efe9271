/* join.h: the join step: Nsight Compute's per-launch records matched to
 * the trace's kernels, each kernel given the duration-weighted means of the
 * launches ncu measured, and per-stage counter FLOPs from the measured
 * launch classes (ncu/selection.json). */
#ifndef LLMPROF_ANALYSIS_JOIN_H
#define LLMPROF_ANALYSIS_JOIN_H

#include <jansson.h>

#include "analysis/model_build.h"
#include "analysis/ncu_kernel.h"
#include "core/strbuf.h"
#include "model/model.h"

/* The join key of a kernel name: the name up to its parameter list, without
 * spaces (template arguments kept). ncu and the trace demangle parameter
 * lists differently ("T2 *, const T1 *" vs "__nv_bfloat16*, __nv_bfloat16
 * const*"), so names that differ exactly still join on this key. Replaces
 * out's content. */
void report_join_key(const char *name, struct strbuf *out);

/* Reads and parses an ncu raw-page export (shown names it in messages) into
 * t. 0, or -1 with err. */
int join_read_ncu(const char *path, const char *shown, struct ncu_kernel_table *t,
		  struct strbuf *err);

/* Joins t's records to m's kernels (filled from a). sel is the parsed
 * ncu/selection.json or NULL; taken is run.stage the counters were taken in
 * (NULL = all). Sets res->join_state STEP_OK and the one-line summary naming
 * shown. */
struct report_analysis;
void join_counters(struct report_model *m, const struct ncu_kernel_table *t, const char *shown,
		   const struct report_analysis *a, json_t *sel, const char *taken,
		   struct report_build_result *res);

#endif
