/* nsysstats.h: the reports of `nsys stats` (2023.4.4), computed from a
 * loaded trace: cuda_gpu_kern_sum, nvtx_sum, nvtx_gpu_proj_sum,
 * nvtx_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.
 * Same columns, rows, order and numbers as nsys; docs/stats.md explains
 * each. */
#ifndef LLMPROF_NSYSSTATS_H
#define LLMPROF_NSYSSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "report/table.h"
#include "trace/trace.h"

/* NULL-terminated list of the report names we implement. */
extern const char *const nsysstats_reports[];
int nsysstats_known(const char *name);

/* Builds report name from t into tbl (initialised here; caller releases
 * it unless the return is not 0). Returns 0, 1 when nsys would print
 * "SKIPPED: <msg>" (msg set, tbl untouched), or -1 on a read error (err). */
int nsysstats_build(struct trace *t, const char *name, struct table *tbl, struct strbuf *msg,
		    struct strbuf *err);

/* Summary statistics of a group of integer values, computed like nsys's
 * SQL aggregates (sample standard deviation; median of an even count is
 * the mean of the middle two). vals must be sorted ascending. */
struct nsys_summary {
	int64_t n, total, min, max;
	double avg, med, stddev;
};
void nsys_summarize(const int64_t *sorted, size_t n, struct nsys_summary *s);

#endif
