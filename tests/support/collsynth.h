/* collsynth.h: a synthetic multi-rank job with known collectives, for the
 * tests and the scale benchmark of collectives.h on machines without GPUs.
 *
 * The job: nranks ranks on nhosts hosts (contiguous blocks: host = rank /
 * ceil(nranks / nhosts); device = the rank's index on its host). Each of
 * `steps` steps runs, on every rank, compute_per_step compute kernels on
 * stream 7 and then one AllReduce
 * ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
 * on the rank's NCCL stream (20 + rank % 3: ids differ across ranks on
 * purpose). In true time, a rank arrives at the AllReduce (its start) at
 *   step start + compute_per_step * (compute_ns + gap_ns) + jitter(rank, step)
 *   (+ straggler_ns on the straggler rank: its last compute kernel is longer,
 *   or with straggler_host starts that much later),
 * with jitter in [0, jitter_ns) from a hash of (seed, rank, step); every
 * rank's AllReduce ends at the step's last arrival + transfer_ns +
 * end_jitter(rank, step) in [0, end_jitter_ns). The next step starts gap_ns
 * after the latest end. With overlap_ns > 0, a compute kernel on stream 8
 * runs from each arrival for overlap_ns (hiding that much communication).
 * One "decode" stage window per step spans [step start, latest end).
 * Times the generator writes are in each rank's own clock: true time +
 * host * host_offset_ns; the rank input's clock id is its host. drop_rank (>= 0) leaves out that
 * rank's AllReduce of step drop_step, as a capture that missed it would.
 *
 * The accessors give the planted truths (true time) the tests compare
 * against. struct collsynth owns its arrays; collsynth_release(). */
#ifndef LLMPROF_COLLSYNTH_H
#define LLMPROF_COLLSYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/collectives.h"
#include "core/strbuf.h"

struct collsynth_config {
	size_t nranks, nhosts, steps, compute_per_step;
	int64_t compute_ns, gap_ns, transfer_ns, jitter_ns, end_jitter_ns;
	long straggler; /* rank, -1 none */
	int64_t straggler_ns;
	/* 0: the straggler's last compute kernel runs straggler_ns longer (its
	 * GPU is slower: a GPU cause); 1: it starts straggler_ns later and runs
	 * as long as the others' (its host launched it late, its GPU idle: a
	 * host cause) */
	int straggler_host;
	int64_t host_offset_ns;
	int64_t overlap_ns;
	long drop_rank; /* -1 none */
	size_t drop_step;
	uint64_t seed;
};

struct collsynth {
	struct collsynth_config cfg;
	size_t per_host;
	int64_t *step_start, *step_last, *step_end; /* true time, per step */
};

/* 2 ranks on 1 host, 10 steps of 4 compute kernels of 20 us, 2 us gaps,
 * 30 us transfer, 5 us arrival and 1 us end jitter, no straggler, no offset,
 * no overlap, nothing dropped. */
void collsynth_config_default(struct collsynth_config *c);
/* -1 with err on a configuration that cannot be generated. */
int collsynth_init(struct collsynth *g, const struct collsynth_config *c, struct strbuf *err);
void collsynth_release(struct collsynth *g);

int collsynth_host(const struct collsynth *g, size_t rank);
/* Planted truths, true time. */
int64_t collsynth_arrival(const struct collsynth *g, size_t rank, size_t step);
int64_t collsynth_end(const struct collsynth *g, size_t rank, size_t step);
/* What the analysis should find: wait = step's last arrival - arrival,
 * transfer = end - last arrival, exposed = duration - overlap (>= 0). */
int64_t collsynth_wait(const struct collsynth *g, size_t rank, size_t step);
int64_t collsynth_transfer(const struct collsynth *g, size_t rank, size_t step);
int64_t collsynth_exposed(const struct collsynth *g, size_t rank, size_t step);
size_t collsynth_kernels_per_rank(const struct collsynth *g);

/* One rank's kernels (in time order, own clock) into *kernels, its stage
 * windows into *windows (both grown as needed and owned by the caller, who
 * reuses them rank after rank), and *in pointing at them: the rank's whole
 * input, valid until the next call with the same buffers. */
void collsynth_rank(const struct collsynth *g, size_t rank, struct coll_kernel **kernels,
		    size_t *kalloc, struct coll_window **windows, size_t *walloc,
		    struct coll_rank_input *in);

#endif
