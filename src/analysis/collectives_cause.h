/* collectives_cause.h: why a rank arrives last at its collectives, per
 * stage, from each rank's own timeline (docs/collectives.md "Why a rank is
 * late"). Needs each rank's gaps (struct coll_gap: from a trace, or from a
 * --rank-dir rank's collectives.tsv), after coll_builder_finish(): the
 * single-trace analysis and the merge both call coll_causes_compute().
 *
 * The gap of a rank before a collective: from the end of its previous NCCL
 * kernel (the previous collective ends nearly together on every rank, so the
 * gaps of all ranks start together) to the start of this one (struct
 * coll_gap, computed per rank where its kernels are at hand). In the gap its
 * GPU is busy (the union of its other kernels) or idle. Lateness = the
 * straggler's gap - the others' median gap, so it splits into
 *   more busy GPU time (more kernels, or the same kernels slower): GPU cause
 *   more idle GPU time (the GPU waited for the host's launch): host cause
 * each taken as the straggler's value minus the median of the other ranks'.
 * The cause of a (rank, stage) is the part that holds at least half of its
 * mean lateness and more than the other part; else "other" (data-dependent
 * work, a copy, a wait outside kernels); "unknown" when no collective it was
 * last in has a gap on every rank. The collectives before which it
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

enum coll_cause { COLL_CAUSE_OTHER, COLL_CAUSE_HOST, COLL_CAUSE_GPU, COLL_CAUSE_UNKNOWN };

/* "host", "GPU", "other", "unknown" (no gap known: nothing to tell). Static. */
const char *coll_cause_name(enum coll_cause c);

#define COLL_GAP_NONE INT64_MIN /* coll_gap.prev_end: no earlier NCCL kernel */

/* What one NCCL kernel of a rank had before it, in the rank's own clock:
 * all a cause needs of the rank's timeline. The single-trace analysis
 * computes it from every kernel (coll_gaps_compute()); a --rank-dir rank
 * writes it into its collectives.tsv for the merge (rank_summary.h), so
 * that both explain a straggler from the same numbers. */
struct coll_gap {
	int64_t start;	  /* the NCCL kernel's start */
	int64_t prev_end; /* the latest end of the rank's NCCL kernels <= start; COLL_GAP_NONE */
	int64_t busy_ns;  /* union of the other kernels (any device) in [prev_end, start) */
	int64_t kernels;  /* other kernels starting in [prev_end, start) */
	int64_t launch;	  /* start of the API call that launched it; < 0 unknown */
};

/* The gap of every kernel of k[0..nk) that is an NCCL kernel (name) with
 * end >= start, into out[i] (out: nk entries, the caller's); the others'
 * out[i].prev_end = COLL_GAP_NONE. launch: per kernel its launch call's
 * start (< 0 unknown), NULL for none. */
void coll_gaps_compute(const struct coll_kernel *k, size_t nk, const int64_t *launch,
		       struct coll_gap *out);

/* One rank's timeline, in its own clock (as given to the builder). */
struct coll_cause_rank {
	const struct coll_gap *gaps; /* its NCCL kernels' gaps, any order; NULL: unknown */
	size_t ngaps;
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
	/* why a straggle without a gap (cause COLL_CAUSE_UNKNOWN) has none, for
	 * the findings; borrowed, set by the caller; NULL says nothing */
	const char *unknown_why;
};

/* in[i] is r->ranks[i]'s timeline (r->nranks of them). Fills *out (zeroed
 * first); nothing with fewer than two ranks. A rank without gaps leaves
 * every collective unexplained (cause COLL_CAUSE_UNKNOWN), its lateness
 * distribution still measured. */
void coll_causes_compute(const struct coll_result *r, const struct coll_cause_rank *in,
			 struct coll_causes *out);
void coll_causes_release(struct coll_causes *c);

#endif
