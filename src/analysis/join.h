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

/* Reads and parses an ncu raw-page export (shown names it in messages) into
 * t, with the mangled names of ncu's CSV beside it when there is one
 * ("raw.csv" -> "mangled.csv": ncu/mangled.csv, X.mangled.csv). A mangled
 * CSV that cannot be used, or gives only some names, is said in note
 * (NULL: not said); the join then falls back on names. 0, or -1 with err
 * (the raw page itself). */
int join_read_ncu(const char *path, const char *shown, struct ncu_kernel_table *t,
		  struct strbuf *note, struct strbuf *err);

/* Joins t's records to m's kernels (filled from a) by the rules of
 * analysis/ncu_match.h, and records every result that does not join, with
 * its reason, in m->run.cjoin. sel is the parsed ncu/selection.json or
 * NULL; measured the parsed ncu/measured.json or NULL (its "results" name
 * the trace launch of a result); taken is run.stage the counters were
 * taken in (NULL = all). Sets res->join_state STEP_OK and the one-line
 * summary naming shown, which starts "incomplete: N of M counter results
 * unmatched" when any result did not join. */
struct report_analysis;
void join_counters(struct report_model *m, const struct ncu_kernel_table *t, const char *shown,
		   const struct report_analysis *a, json_t *sel, json_t *measured,
		   const char *taken, struct report_build_result *res);

#endif
