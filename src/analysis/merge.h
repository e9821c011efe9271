/* merge.h: `llmprof merge RUN`: the cross-rank view of a --rank-dir run
 * folder built from each rank's small files alone (RUN/ranks/<r>/:
 * rank.json, status.json, metrics.json, collectives.tsv), never from a
 * trace, so its cost grows with ranks and collectives, not trace size.
 * Ranks are read one at a time; collectives go through analysis/
 * collectives.h one rank at a time (coll_builder_add_rank). docs/
 * run-bundle.md describes the output. Clocks (docs/collectives.md): ranks
 * whose collectives.tsv states the same clock (source, host, boot) are one
 * clock domain, a rank that states none is a domain of its own; every
 * domain is aligned on collective ends and the residual is measured over
 * every rank (collectives.h). Stragglers' causes: from the gaps in each
 * rank's collectives.tsv, by coll_causes_compute(), the single-trace
 * analysis's own function.
 *
 * Ownership: struct merge_result owns everything it points to
 * (merge_result_release()). */
#ifndef LLMPROF_ANALYSIS_MERGE_H
#define LLMPROF_ANALYSIS_MERGE_H

#include <stddef.h>

#include "analysis/collectives.h"
#include "core/strbuf.h"
#include "model/model.h"

enum { MERGE_PREFILL, MERGE_DECODE, MERGE_NSTAGES };

/* One row of a rank's own NCCL calls and bytes (its metrics.json
 * "nccl_calls", analysis/ncclapi.h): one per process and type. */
struct merge_nccl {
	char *type; /* owned: "AllReduce", ... */
	uint64_t calls, sized, bytes;
	double kernel_ms, algbw_gbps, busbw_gbps; /* bandwidths: -1 = n/a */
	int ranks;				  /* communicator size; 0 = unknown */
};

struct merge_rank {
	int rank;
	char *host;		 /* owned: rank.json's, else the collectives', else "" */
	int failed;		 /* its run did not end ok, or it wrote no metrics.json */
	char *why;		 /* owned, when failed: "status.json state 'failed'", ... */
	int have[MERGE_NSTAGES]; /* the stage ran on this rank */
	double gpu_ms[MERGE_NSTAGES], busy_ms[MERGE_NSTAGES];
	double step_p50_ms[MERGE_NSTAGES]; /* -1: the stage has no steps */
	size_t kernels[MERGE_NSTAGES];
	size_t collectives; /* NCCL kernels in its collectives.tsv */
	/* owned: the clock its collectives.tsv states ("realtime on HOST (boot
	 * ID)"), NULL when it states none (a version 1 file, or a trace that
	 * records no session start: its times start at its own origin) */
	char *clock;
	int clock_id;	 /* its clock domain (struct coll_rank.clock) */
	int tsv_version; /* of its collectives.tsv; 0 without one */
	/* prefill MFU and decode MBU (datasheet peak, 0..1) as the rank's own
	 * metrics.json states them: the model's whole work in its stage time;
	 * -1 = not stated. The merge shares the work (merge_result.split). */
	double util[MERGE_NSTAGES];
	/* the same from the rank's own Nsight Compute counters (its stage's
	 * mfu_counter / mbu_counter): the work its kernels did, so never
	 * shared; -1 = not measured */
	double util_counter[MERGE_NSTAGES];
	struct merge_nccl *nccl; /* owned; none without NCCL calls */
	size_t nnccl;
	char *nccl_why; /* owned: why its bytes are unknown, NULL when known or none */
};

/* How the model's work is shared by the ranks, read from the collectives
 * as for one trace (analysis/ranks_util.c). */
enum merge_split {
	MERGE_SPLIT_NONE,    /* no rank states a model-based MFU/MBU */
	MERGE_SPLIT_REPLICA, /* no NCCL kernels: each rank runs the whole model */
	MERGE_SPLIT_GROUP,   /* every collective matched across all ranks: one
				model-parallel group of world_size ranks */
	MERGE_SPLIT_UNKNOWN, /* collectives that do not match across all ranks */
};

/* min/median/max over the ranks that ran a stage; ranks by rank id. */
struct merge_stat {
	size_t n;
	double min, median, max;
	int min_rank, max_rank;
};

struct merge_stage {
	const char *name; /* "prefill", "decode" (static) */
	struct merge_stat gpu, step_p50;
};

struct merge_result {
	struct merge_rank *ranks; /* the folders found, sorted by rank */
	size_t nranks, nfailed;
	size_t nunstated; /* ranks with collectives that state no clock */
	int *missing;	  /* rank ids in [0, world_size) with no folder */
	size_t nmissing;
	int world_size; /* largest recorded in rank.json, else highest rank + 1 */
	struct merge_stage stages[MERGE_NSTAGES];
	/* the straggler of the collectives when there is one (the rank the
	 * others wait for, analysis/collectives.h's thresholds), else the
	 * largest decode GPU time (else prefill's); -1 none */
	int slowest_rank;
	const char *slowest_by;
	int have_coll; /* some rank had NCCL kernels: coll is filled */
	struct coll_result coll;
	/* per-rank MFU/MBU: each rank's util[] / divisor (GROUP: world_size,
	 * REPLICA: 1); NONE and UNKNOWN give none */
	enum merge_split split;
	int divisor;
	/* why the stragglers are late, per stage, by the single-trace
	 * analysis's code (collectives_cause.h) over the gaps each rank's
	 * collectives.tsv states (version 3), in the reports' form; rank_index
	 * indexes coll.ranks. cause "unknown" where a rank's file predates the
	 * gaps, and cause_why (owned; NULL when every file has them) says so */
	struct report_coll_straggle *straggles;
	size_t nstraggles;
	char *cause_why;
	/* the collectives' findings (coll_findings(): straggler with its cause,
	 * other late ranks, exposed decode communication, mismatches, clocks),
	 * most severe first */
	struct coll_finding *findings;
	size_t nfindings;
};

/* A rank's share of its stated MFU (prefill) or MBU (decode) under r's
 * split; -1 when there is none. */
double merge_rank_util(const struct merge_result *r, const struct merge_rank *m, int stage);

/* Reads dir/ranks/<r>/ for every <r> that is a rank number (others are
 * ignored). -1 with err (one line) when dir has no ranks/ folder, none of
 * it is a rank, or a rank's metrics.json, status.json, rank.json or
 * collectives.tsv is damaged; a rank whose files are missing is listed as
 * failed, not an error. */
int merge_run(const char *dir, struct merge_result *out, struct strbuf *err);

/* 1 when the status.json of every rank in [0, world_size) under
 * dir/ranks/ records an ended run (ok, failed, interrupted or timeout), so
 * the merge can run; 0 when one is missing, running or unreadable. */
int merge_all_ended(const char *dir, int world_size);
void merge_result_release(struct merge_result *r);

#endif
