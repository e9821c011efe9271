/* collectives_cause.h: why a rank arrives last at its collectives, per
 * stage, from each rank's own timeline (docs/collectives.md "Why a rank is
 * late"). Needs every kernel of each rank, so it runs where a trace is at
 * hand (the single-trace analysis), after coll_builder_finish().
 *
 * The gap of a rank before a collective: from the end of its previous NCCL
 * kernel (the previous collective ends nearly together on every rank, so the
 * gaps of all ranks start together) to the start of this one. In the gap its
 * GPU is busy (the union of its other kernels) or idle. Lateness = the
 * straggler's gap - the others' median gap, so it splits into
 *   more busy GPU time (more kernels, or the same kernels slower): GPU cause
 *   more idle GPU time (the GPU waited for the host's launch): host cause
 * each taken as the straggler's value minus the median of the other ranks'.
 * The cause of a (rank, stage) is the part that holds at least half of its
 * mean lateness and more than the other part; else "other" (data-dependent
 * work, a copy, a wait outside kernels). The collectives before which it
 * ran more kernels than the others are also summed apart: an extra
 * operator on one rank shows there even when its host is what makes it
 * late most. When launch times are known, the
 * launch lag (a collective's GPU start - its host launch) of the straggler
 * and of the others is reported beside it: a host-bound rank's is small.
 *
 * Distributions use the nearest rank below: p-quantile of n sorted values =
 * v[min(n - 1, floor(p * n))]. "First steps": the collectives in the first
 * COLL_EARLY_STEPS decode steps when step windows are given, else the first
 * tenth of the stage's collectives; "steady": the rest.
 *
 * Ownership: inputs are borrowed for the call; struct coll_causes owns its
 * array (coll_causes_release()); stage strings are borrowed from the
 * windows' labels (or static). */
#ifndef LLMPROF_COLLECTIVES_CAUSE_H
#define LLMPROF_COLLECTIVES_CAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/collectives.h"

#define COLL_EARLY_STEPS 2
#define COLL_NO_STAGE "outside stages" /* the stage of collectives in no window */
#define COLL_CAUSE_MIN_SHARE 0.2       /* a rank reported in a stage: last at >= 20% of it */
#define COLL_CAUSE_MAX_PER_STAGE 3

enum coll_cause { COLL_CAUSE_OTHER, COLL_CAUSE_HOST, COLL_CAUSE_GPU };

/* "host", "GPU", "other". Static. */
const char *coll_cause_name(enum coll_cause c);

/* One rank's timeline, in its own clock (as given to the builder). */
struct coll_cause_rank {
	const struct coll_kernel *kernels; /* every kernel, NCCL ones included */
	size_t nkernels;
	const int64_t *launch; /* per kernel: its launch call's start; < 0 unknown; NULL none */
	const struct coll_window *windows; /* stages; as given to the builder */
	size_t nwindows;
	const struct coll_window *steps; /* decode steps; NULL when none */
	size_t nsteps;
};

struct coll_late_dist {
	size_t n;
	double mean_ns;
	int64_t p50_ns, p90_ns, max_ns;
};

/* One straggling rank in one stage. The deltas are means over the
 * collectives it arrived last in, of its value minus the median of the
 * other ranks'. */
struct coll_straggle {
	size_t rank_index; /* into coll_result.ranks */
	const char *stage; /* "decode", ...; COLL_NO_STAGE */
	size_t instances;  /* matched collectives in the stage */
	size_t count;	   /* of them, those it arrived last in */
	struct coll_late_dist late, early, steady;
	int early_by_steps;	/* 1: early = the first COLL_EARLY_STEPS steps */
	size_t early_instances; /* the stage's collectives in that early part */
	size_t explained;	/* of count, those with a gap on every rank (the deltas' base) */
	double busy_ns;		/* more GPU busy time in the gap */
	double idle_ns;		/* more GPU idle time in the gap */
	double kernels;		/* more kernels in the gap */
	/* launch lag: the collective's start - its launch call's start, its mean
	 * and the mean of the others' median; NAN when launch times are unknown.
	 * A host-bound rank's GPU starts what it is given at once (a small lag)
	 * while the others' hosts run ahead of their GPUs (a large one). */
	double lag_ns, others_lag_ns;
	double busy_med_ns; /* the others' median busy time (scale for "slower") */
	/* of explained, those where it ran at least one kernel more than the
	 * others: an extra operator before some collectives (a GPU part that a
	 * host cause can hide), with its means there */
	size_t extra_n;
	double extra_busy_ns, extra_kernels;
	enum coll_cause cause;
};

struct coll_causes {
	struct coll_straggle *v; /* by stage (first seen), then count */
	size_t n;
};

/* in[i] is r->ranks[i]'s timeline (r->nranks of them). Fills *out (zeroed
 * first); nothing with fewer than two ranks. */
void coll_causes_compute(const struct coll_result *r, const struct coll_cause_rank *in,
			 struct coll_causes *out);
void coll_causes_release(struct coll_causes *c);

#endif
