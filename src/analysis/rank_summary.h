/* rank_summary.h: the compact per-rank file `llmprof merge` reads instead
 * of a rank's trace: its NCCL kernels, its stage windows and its host, as
 * tab-separated text (docs/run-bundle.md, "collectives.tsv"). The profile's
 * analyze step writes it where the rank ran; analysis/merge.c reads it.
 *
 * Format, one record a line, fields separated by one tab, times in ns of
 * the rank's own clock:
 *   # llmprof collectives 1            (first line; a later version is refused)
 *   host <TAB> NAME                    (exactly once, before the rest)
 *   window <TAB> STAGE <TAB> START <TAB> END
 *   kernel <TAB> START <TAB> END <TAB> DEVICE <TAB> STREAM <TAB> NAME
 * Only NCCL kernels are listed (analysis/collectives.h recognises them), so
 * the file grows with collectives, not with the trace. */
#ifndef LLMPROF_ANALYSIS_RANK_SUMMARY_H
#define LLMPROF_ANALYSIS_RANK_SUMMARY_H

#include <stddef.h>

#include "core/strbuf.h"

#define RANK_SUMMARY_MAGIC "# llmprof collectives 1"

struct report_analysis;

/* Appends a's summary to out: the host the trace recorded for the process
 * that ran the NCCL kernels, else `host`; the prefill and decode NVTX
 * ranges (CPU times) as windows. Returns how many NCCL kernels it holds; 0
 * appends nothing (no NCCL kernel, or no trace). */
size_t rank_summary_format(struct report_analysis *a, const char *host, struct strbuf *out);

#endif
