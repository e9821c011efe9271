/* summary.h: the summary statistics nsys prints for a group of values
 * (count, total, min, max, mean, median, sample standard deviation), the one
 * implementation behind `llmprof stats` (nsysstats.c) and the stage and
 * step distributions of the reports (timeline.c). Pure; no allocation. */
#ifndef LLMPROF_SUMMARY_H
#define LLMPROF_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

/* Computed like nsys's SQL aggregates (sample standard deviation; median of
 * an even count is the mean of the middle two). sorted must be ascending.
 * The total saturates at the int64 range (a damaged trace gives an absurd
 * total, not undefined behaviour). */
struct nsys_summary {
	int64_t n, total, min, max;
	double avg, med, stddev;
};
void nsys_summarize(const int64_t *sorted, size_t n, struct nsys_summary *s);
/* The same for sorted[k] repeated w[k] times (w NULL: once each), without
 * repeating them: the same numbers to the last bit. */
void nsys_summarize_weighted(const int64_t *sorted, const uint64_t *w, size_t n,
			     struct nsys_summary *s);
/* nsys_summarize() of v in any order, the same numbers: the median by
 * selection (core/sort.h select_i64()), not a sort. Reorders v. */
void nsys_summarize_unsorted(int64_t *v, size_t n, struct nsys_summary *s);

#endif
