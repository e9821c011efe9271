/* collectives.h: NCCL collectives across ranks, from per-rank kernel lists
 * alone (no GPU, no trace file: the caller reads each rank's kernels from
 * wherever it has them). docs/collectives.md describes the method.
 *
 * What it computes:
 * - Recognition: a kernel is an NCCL kernel when its name starts with
 *   "ncclDevKernel_" or "ncclKernel_" (after an optional "void "); the type
 *   (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, Send,
 *   Recv, AllToAll; COLL_OTHER for NCCL kernels whose name says none, such as
 *   ncclDevKernel_Generic) and the op, data type, algorithm and protocol when
 *   the name carries them, in either NCCL naming:
 *   ncclDevKernel_AllReduce_Sum_bf16_RING_LL(...) (2.19 on) or
 *   ncclKernel_AllReduce_RING_LL_Sum_float(...) (before).
 * - Matching, by order: a rank's NCCL streams (device, stream) are numbered
 *   by their first NCCL kernel; the k-th collective of a type on a rank's j-th
 *   NCCL stream is the same collective as the k-th of that type on every
 *   other rank's j-th NCCL stream. Stream ids need not agree across ranks.
 *   Assumes every rank takes part in every communicator (one communicator
 *   per stream); when the counts of a (stream, type) differ between ranks,
 *   the difference is reported (struct coll_mismatch) and none of that
 *   sequence is matched: which call is missing cannot be told from order
 *   alone, and a guess would shift every later pair.
 * - Clocks: ranks with the same clock id (struct coll_rank_input.clock: a
 *   clock domain, such as one host's boot of one clock source) are taken to
 *   share one clock; the caller says which. Each other domain's offset to the
 *   reference domain (the lowest clock id) is estimated from matched
 *   collectives' END times, which are near-simultaneous on all ranks
 *   whatever the arrival order (the data moves only once everyone has
 *   arrived; nsys-jax's method): offset(d) = median over matched instances
 *   of (median end in d - median end in the reference). Every time of a rank
 *   in d is then moved by -offset(d). The residual is then ALWAYS measured,
 *   also between ranks said to share a clock, so that a wrong claim shows:
 *   per (matched instance, rank), the rank's aligned end - the median
 *   aligned end of the OTHER ranks. Its median absolute value (per rank, per
 *   domain, overall) is the uncertainty of every wait; above
 *   COLL_RESIDUAL_HIGH_NS a finding says so. Assumptions: clocks drift
 *   little over the capture (one constant offset per domain), and at least
 *   one collective is matched; without one no domain is aligned and no
 *   residual exists (samples 0: nothing to say, never "0 us").
 * - Per matched instance (aligned clock): arrival (start) per rank, last
 *   arrival, wait per rank = last arrival - own arrival (time spent waiting
 *   for the slowest peer, at most the call's duration), transfer = duration -
 *   wait (= end - last arrival). Per rank and type: calls, time, wait and
 *   transfer sums.
 * - Stragglers: per instance the rank that arrives last (ties: the lowest
 *   rank) and its lateness, last arrival - the median arrival of the OTHER
 *   ranks (the rank itself left out, so that two ranks give the whole gap and
 *   not half of it).
 * - Exposed communication per rank, in the rank's own clock: the union of
 *   its NCCL kernels' intervals on a device minus the union of its other
 *   kernels' intervals on that device, summed over devices; optionally
 *   within stage windows [start, end) the caller gives.
 *
 * Memory: ranks are added one at a time (coll_builder_add_rank); the builder
 * keeps each rank's collectives (32 bytes each) and per-rank totals, never
 * its other kernels, so a caller can stream ranks from disk. The result
 * holds one struct coll_call per (matched instance, rank) and nothing per
 * pair of ranks.
 *
 * Ownership: the input is borrowed for the duration of the call that takes
 * it. struct coll_result owns everything it points to
 * (coll_result_release()); its op/dtype/algorithm/protocol strings are
 * static. */
#ifndef LLMPROF_COLLECTIVES_H
#define LLMPROF_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

enum coll_type {
	COLL_ALLREDUCE,
	COLL_ALLGATHER,
	COLL_REDUCESCATTER,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_SENDRECV,
	COLL_SEND,
	COLL_RECV,
	COLL_ALLTOALL,
	COLL_OTHER, /* an NCCL kernel whose name names no type */
	COLL_NTYPES
};

/* "AllReduce", ...; "other" for COLL_OTHER. Static. */
const char *coll_type_name(enum coll_type t);

/* What an NCCL kernel's name says. Strings are static, NULL when the name
 * does not say. */
struct coll_name {
	enum coll_type type;
	const char *op;	   /* "Sum", "Max", ... */
	const char *dtype; /* as the name spells it: "bf16", "float", ... */
	const char *algo;  /* "RING", "TREE", "NVLS", ... */
	const char *proto; /* "LL", "LL128", "SIMPLE" */
};

/* 1 and *out filled when name is an NCCL kernel's, else 0. */
int coll_parse_name(const char *name, struct coll_name *out);

/* One kernel of a rank, in that rank's own clock (ns). */
struct coll_kernel {
	const char *name; /* borrowed; demangled, as nsys's demangledName */
	int64_t start, end;
	int32_t device, stream;
};

/* A stage window [start, end) in the rank's own clock: exposed
 * communication is also summed per stage label. */
struct coll_window {
	const char *stage; /* borrowed: "decode", ... */
	int64_t start, end;
};

struct coll_rank_input {
	int rank;			   /* rank id, unique */
	int host;			   /* the caller's host id, for the findings */
	const struct coll_kernel *kernels; /* borrowed; any order */
	size_t nkernels;
	const struct coll_window *windows; /* borrowed; NULL when none */
	size_t nwindows;
	int clock; /* clock domain id (>= 0): ranks with the same one share a clock */
};

struct coll_type_stat {
	size_t calls;	     /* NCCL kernels of the type */
	size_t matched;	     /* of them, matched to every other rank */
	int64_t total_ns;    /* summed durations of all calls */
	int64_t wait_ns;     /* summed waits of the matched calls */
	int64_t transfer_ns; /* summed transfers of the matched calls */
};

struct coll_stage_stat {
	char *stage; /* owned */
	size_t windows;
	int64_t window_ns;  /* summed window lengths */
	int64_t comm_ns;    /* NCCL kernel time (union) inside the windows */
	int64_t exposed_ns; /* of it, with no other kernel on the device */
};

struct coll_rank {
	int rank, host, clock;
	int64_t clock_offset_ns; /* subtracted from this rank's times to align them */
	int64_t residual_ns;	 /* median |residual| of its ends; 0 without samples */
	struct coll_type_stat by_type[COLL_NTYPES];
	size_t calls, unmatched; /* NCCL kernels; those in no matched instance */
	size_t nccl_streams;
	size_t bad_kernels;		/* end before start: skipped */
	size_t other_kernels;		/* its kernels that are no NCCL kernel */
	int64_t comm_ns;		/* union of NCCL kernel intervals, per device, summed */
	int64_t exposed_ns;		/* of comm_ns, with no other kernel running on the device */
	int64_t wait_ns, transfer_ns;	/* over matched calls */
	size_t last_count;		/* instances it arrived last in, after another rank */
	int64_t last_late_ns;		/* summed lateness in those instances */
	struct coll_stage_stat *stages; /* in order of first window; owned */
	size_t nstages;
};

/* One rank's part in a matched instance, aligned clock. */
struct coll_call {
	int64_t start, end;
	int64_t wait_ns, transfer_ns;
};

struct coll_instance {
	enum coll_type type;
	const char *op, *dtype, *algo, *proto; /* static, from the first rank's kernel name */
	size_t stream_ord;		       /* the ranks' j-th NCCL stream */
	size_t seq;			       /* k: the k-th of its type on that stream */
	size_t row;			       /* its calls: coll_instance_calls() */
	int64_t first_arrival, last_arrival;
	int64_t last_end; /* latest end over ranks */
	size_t last_rank; /* index into coll_result.ranks of the last arrival */
	int64_t late_ns;  /* last arrival - median arrival of the other ranks */
};

/* A (stream, type) sequence whose length differs between ranks: not matched. */
struct coll_mismatch {
	enum coll_type type;
	size_t stream_ord;
	size_t min_calls, max_calls;
	int min_rank, max_rank; /* rank ids: the first with the fewest, the most */
	size_t ranks_short;	/* ranks with fewer than max_calls */
};

/* One clock domain: the ranks of one clock id. */
struct coll_clock {
	int clock;
	int host; /* the host id of its first rank */
	size_t ranks;
	int64_t offset_ns;   /* its clock minus the reference domain's */
	int aligned;	     /* 1 when offset_ns was estimated (or it is the reference) */
	size_t samples;	     /* residual samples of its ranks (instances x ranks) */
	int64_t residual_ns; /* median |residual| over those samples */
	int64_t residual_max_ns;
};

/* A rank that arrived last at least once; sorted by count, then lateness. */
struct coll_straggler {
	size_t rank_index; /* into coll_result.ranks */
	int rank;
	size_t count;	     /* instances it arrived last in */
	int64_t late_ns;     /* summed lateness */
	double mean_late_ns; /* late_ns / count */
	double share;	     /* count / matched instances */
};

struct coll_result {
	struct coll_rank *ranks; /* sorted by rank id */
	size_t nranks;
	struct coll_instance *instances; /* sorted by last arrival */
	size_t ninstances;
	struct coll_call *calls; /* ninstances x nranks, rows of nranks */
	struct coll_mismatch *mismatches;
	size_t nmismatches;
	struct coll_clock *clocks; /* sorted by clock id; clocks[0] is the reference */
	size_t nclocks;
	int64_t residual_median_ns; /* median |residual| over every (instance, rank) */
	int64_t residual_max_ns;    /* largest |residual| */
	size_t residual_samples;    /* 0 only without 2 ranks and a matched instance */
	struct coll_straggler *stragglers;
	size_t nstragglers;
};

/* The calls of instance i, one per rank in coll_result.ranks order. */
static inline const struct coll_call *coll_instance_calls(const struct coll_result *r, size_t i)
{
	return r->calls + r->instances[i].row * r->nranks;
}

struct coll_builder;

/* An empty builder; never NULL. coll_builder_free() frees it. */
struct coll_builder *coll_builder_new(void);
/* Reads one rank's kernels (and windows); the builder keeps nothing of in
 * after it returns. -1 with err on a duplicate rank id or a window that ends before
 * it starts. */
int coll_builder_add_rank(struct coll_builder *b, const struct coll_rank_input *in,
			  struct strbuf *err);
/* Matches, aligns clocks and fills *out (zeroed first); the builder is
 * emptied and may be freed or reused. -1 with err when no rank was added. */
int coll_builder_finish(struct coll_builder *b, struct coll_result *out, struct strbuf *err);
void coll_builder_free(struct coll_builder *b);

/* The three calls above over an array of ranks. */
int coll_analyze(const struct coll_rank_input *ranks, size_t nranks, struct coll_result *out,
		 struct strbuf *err);

void coll_result_release(struct coll_result *r);

/* Index in r->ranks of rank id, or -1. */
long coll_result_rank_index(const struct coll_result *r, int rank);

/* Findings (docs/collectives.md lists the rules). Thresholds: */
#define COLL_STRAGGLER_SHARE 0.5     /* arrives last in at least half the matched collectives */
#define COLL_STRAGGLER_MIN_NS 10000  /* mean lateness: below 10 us it is launch jitter */
#define COLL_EXPOSED_SHARE_HIGH 0.10 /* exposed communication / stage window time */
#define COLL_RESIDUAL_HIGH_NS 50000  /* clock residual making waits uncertain */

/* One finding, as struct report_finding (model/model.h) holds it, so that a
 * caller adds it with report_model_add_finding(m, f->severity, f->code,
 * f->recommendation, "%s", f->text). severity is enum finding_severity. */
struct coll_finding {
	int severity;
	char *code;	      /* owned: "collective-straggler", ... */
	char *text;	      /* owned, Markdown inline */
	char *recommendation; /* owned; NULL when purely informative */
};

struct coll_causes; /* collectives_cause.h */

/* The findings r supports, most severe first: a straggler (WARNING, naming
 * the rank, its lateness distribution and, with causes, why it is late and
 * what to do: collectives_cause.h), other ranks late in a stage for a cause
 * (INFO), exposed communication in the stage windows labelled `stage`
 * (e.g. "decode"; NULL skips it), count mismatches, and a clock residual
 * above COLL_RESIDUAL_HIGH_NS. causes: NULL when not computed. labels[i]:
 * how reports name r->ranks[i] ("rank 1", "pid 4242"); NULL (or a NULL
 * entry) says "rank <id>". Returns how many; *out is an owned array,
 * coll_findings_free(). */
size_t coll_findings(const struct coll_result *r, const char *stage,
		     const struct coll_causes *causes, const char *const *labels,
		     struct coll_finding **out);
void coll_findings_free(struct coll_finding *f, size_t n);

#endif
