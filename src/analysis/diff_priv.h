/* diff_priv.h: the parts of `llmprof diff` (diff.h) one file hands to the
 * next: diff.c computes the metrics, then diff_kernels.c the kernels and
 * waterfalls, then diff_parts.c operators, ranks and samples. */
#ifndef LLMPROF_ANALYSIS_DIFF_PRIV_H
#define LLMPROF_ANALYSIS_DIFF_PRIV_H

#include "analysis/diff.h"

void diff_compute_kernels(const struct diff_input *a, const struct diff_input *b, size_t top,
			  struct diff *d);
void diff_compute_parts(const struct diff_input *a, const struct diff_input *b, struct diff *d);

#endif
