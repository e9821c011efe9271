/* nvtxproj.h: projection of NVTX ranges onto the GPU, the way nsys's
 * nvtx_gpu_proj_sum / nvtx_kern_sum reports do it.
 *
 * A GPU operation (kernel, memcpy, memset) belongs to every range that
 * encloses, on the launching thread, the API call that launched it: the
 * CUPTI_ACTIVITY_KIND_RUNTIME row with the same correlationId in the same
 * process. Graph kernels share the correlationId of their cudaGraphLaunch,
 * so they belong to the ranges around the graph launch. Ranges that ended on
 * another thread (endGlobalTid set) are not candidates (nsys drops them).
 * A range's projection is [first op start, last op end]; children are not
 * subtracted. The parent of a range is the tightest candidate range of the
 * same thread that contains it; level = depth in that tree.
 *
 * All arrays are owned by struct nvtx_proj and indexed like trace->ranges
 * (per range) or trace->kernels (per kernel). */
#ifndef LLMPROF_NVTXPROJ_H
#define LLMPROF_NVTXPROJ_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "trace/trace.h"

/* One (GPU op, enclosing range) pair, as nsys's nvtx_kern_sum joins them.
 * op < trace->nkernels is a kernel, else memop op - nkernels. range is -1
 * when the op is in no range; call -1 when no launch call was found (then
 * the PID/TID are unknown). */
struct proj_pair {
	uint32_t op;
	int32_t range;
	int32_t call;
};

enum nvtx_proj_flags {
	NVTX_PROJ_PAIRS = 1 << 0,    /* fill pairs[] */
	NVTX_PROJ_NO_INNER = 1 << 1, /* kernel_inner left NULL: not needed */
};

/* Receives the pairs one at a time in place of pairs[]: first those of
 * ops without a launch call, then per thread (the call's globalTid, in
 * increasing order) in launch order. */
typedef void (*nvtx_pair_fn)(void *ctx, uint32_t op, int32_t range, int32_t call);
/* Receives, in place of one pair per range, op's pairs with the properly
 * nested open ranges of its thread that contain its call: chain[0..n),
 * outermost first, where chain[0..nchain) are all the nested ranges open
 * (the rest end before the call does). A range stays at its position from
 * the call it first appears in until it leaves the chain for good, so a
 * consumer can follow the chain by its top alone. The pairs with ranges
 * that only overlap others in part still come one at a time. */
typedef void (*nvtx_chain_fn)(void *ctx, uint32_t op, int32_t call, const uint32_t *chain,
			      size_t nchain, size_t n);

struct nvtx_proj {
	size_t nranges;
	int64_t *proj_start, *proj_end; /* valid where nops > 0 */
	int64_t *nops;			/* distinct correlationIds of its GPU ops */
	int64_t *kern_ns;		/* summed duration of its kernels */
	int32_t *parent;		/* -1 for a root or a non-candidate */
	int32_t *level;
	int32_t *nchild_ops; /* children that have GPU ops */
	uint8_t *candidate;  /* range takes part in the projection */

	size_t nkernels;
	int32_t *kernel_inner; /* innermost enclosing range (latest start), -1 if none;
				* NULL under NVTX_PROJ_NO_INNER */

	size_t nops_total, nops_no_call; /* GPU ops, and those without a launch call */
	size_t nkernels_no_call;	 /* kernels among them (memops of unified memory
					  * never have one) */

	struct proj_pair *pairs;
	size_t npairs, pairs_alloc;
	const uint8_t *pair_ranges; /* borrowed: pairs only of ranges r with
				     * pair_ranges[r] != 0, none outside
				     * every range; NULL: every pair */
	nvtx_pair_fn pair_fn;	    /* set while computing with one */
	nvtx_chain_fn chain_fn;	    /* and this, with nvtx_proj_compute_chain() */
	void *pair_ctx;
	uint32_t *hops; /* scratch: the wanted ranges of one launch */
	size_t hops_alloc;
};

/* t must have TRACE_KERNELS|TRACE_MEMOPS|TRACE_CALLS|TRACE_NVTX loaded. */
void nvtx_proj_compute(struct nvtx_proj *p, const struct trace *t, unsigned flags);
/* The same with NVTX_PROJ_PAIRS for the ranges that want[r] marks only
 * (want has t->nranges entries, borrowed until nvtx_proj_release): a
 * caller that reads a few ranges' ops does not hold every pair. */
void nvtx_proj_compute_for(struct nvtx_proj *p, const struct trace *t, const uint8_t *want);
/* The same with every pair handed to fn (with ctx) instead of kept. */
void nvtx_proj_compute_each(struct nvtx_proj *p, const struct trace *t, nvtx_pair_fn fn, void *ctx);
/* The same with the pairs of the nested ranges handed to cfn a launch's op
 * at a time: work linear in the nesting depth where pairs are quadratic. */
void nvtx_proj_compute_chain(struct nvtx_proj *p, const struct trace *t, nvtx_pair_fn fn,
			     nvtx_chain_fn cfn, void *ctx);
void nvtx_proj_release(struct nvtx_proj *p);

/* nvtx_proj_compute(p, t, flags) on a thread of its own, for a caller with
 * other work on t meanwhile that writes nothing the projection reads (the
 * loaded parts; interning strings is fine). */
struct nvtx_proj_ahead {
	struct nvtx_proj p;
	const struct trace *t;
	unsigned flags; /* without NVTX_PROJ_PAIRS */
	pthread_t thread;
	int running;
};

/* Starts it: 0, or -1 when no thread could start (nothing to wait for). */
int nvtx_proj_start(struct nvtx_proj_ahead *a, const struct trace *t, unsigned flags);
/* Waits for it: the projection in a->p (the caller releases it). */
void nvtx_proj_wait(struct nvtx_proj_ahead *a);

#endif
