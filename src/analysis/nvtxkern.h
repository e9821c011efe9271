/* nvtxkern.h: the groups of nsys's nvtx_kern_sum report, built while the
 * NVTX projection sweeps (analysis/nvtxproj.h) instead of from a list of
 * every (kernel, enclosing range) pair.
 *
 * A group is (PID, TID, range name, style, kernel name) of the pairs; its
 * durations are summarised with their median, so they are held, but only
 * for the thread being swept: the pairs of a thread are summarised when
 * the sweep moves on to the next one (8 bytes per pair of a thread instead
 * of 68 per pair of the trace). The pairs of a kernel with the properly
 * nested ranges around it are not listed one by one (D²/2 of them at
 * nesting depth D) but counted per range name (nvtx_proj_compute_chain()):
 * one record weighing as many pairs, summarised with its weight. */
#ifndef LLMPROF_NVTXKERN_H
#define LLMPROF_NVTXKERN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/summary.h"
#include "trace/trace.h"

struct nvtxkern_group {
	/* pid, tid (-1: no launch call), range name rank (-1: no range),
	 * style (-1), kernel name rank: strtab_rank() order, NULL first */
	int64_t key[5];
	struct nsys_summary s; /* of the kernels' durations, one per pair */
	int64_t ranges;	       /* distinct ranges (NVTX Inst) */
	int64_t kernels;       /* distinct kernels (Kern Inst) */
	size_t order;	       /* position in key order */
};

/* The groups of t's kernels (TRACE_KERNELS|MEMOPS|CALLS|NVTX loaded,
 * strtab_rank() done), names[r] the name id of range r as reported (-1:
 * none), sorted by key. Returns them (owned, free()); *n their number. */
struct nvtxkern_group *nvtxkern_groups(const struct trace *t, const int32_t *names, size_t *n);

#endif
