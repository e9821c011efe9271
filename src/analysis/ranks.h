/* ranks.h: the per-process (per-rank) view of a multi-process trace: each
 * process that ran kernels analysed on its own part of the trace, with the
 * identity its tracer recorded, and the cross-rank spread and slowest rank.
 * Internal to src/analysis/ (session.h's struct report_analysis). */
#ifndef LLMPROF_ANALYSIS_RANKS_H
#define LLMPROF_ANALYSIS_RANKS_H

#include <stddef.h>

#include "analysis/collectives_cause.h"
#include "analysis/timeline.h"
#include "model/model.h"
#include "trace/trace.h"

struct report_analysis;

/* One process's part of a trace: its kernels and copies (by globalPid), its
 * API calls and NVTX ranges (by the globalTid's process). Owns the arrays;
 * strs and the rest are the whole trace's, borrowed. */
struct rank_part {
	int64_t gpid;
	struct trace view; /* every part loaded: the timeline never reads the file */
};

/* The parts of t, one per process that ran at least one kernel, by gpid.
 * *n = the number of such processes; with fewer than 2 nothing is copied
 * and NULL is returned. Owned; rank_parts_free(). */
struct rank_part *rank_parts_split(const struct trace *t, size_t *n);
void rank_parts_free(struct rank_part *p, size_t n);

/* Fills m->ranks when kernels ran in more than one process of a's trace
 * (one process: only m->env.ident, from its recorded rank): each process's
 * stages, step distribution, TTFT/TPOT, GPU span and busy, kernels and
 * operators, by the same code as the whole run; then the cross-rank spread
 * and the slowest rank. */
void ranks_fill(struct report_model *m, const struct report_analysis *a);

/* ranks_util.c: each rank's share of the model's work and its MFU/MBU
 * (report_rank_stage), with the share's basis (report_ranks.util_split,
 * util_basis); for one model-parallel group, the merged stages' work
 * divided by the ranks. After analytic_load_file() and peaks_load(),
 * before report_model_derive(). */
void ranks_utilization(struct report_model *m);

/* ranks_coll.c: m->ranks.coll and each rank's coll, from views[i], the part
 * of m->ranks.v[i] (borrowed), with stage windows from sc's prefill and
 * decode ranges. A failure of the analysis becomes a note. */
void ranks_coll_fill(struct report_model *m, const struct trace *const *views,
		     const struct stage_config *sc);

/* One process's part of a trace (or a trace of one process) as the
 * collectives read it: all its kernels, each one's gap (coll_gap, parallel
 * to k; launch times from its API calls by correlation id), its prefill and
 * decode windows and its decode steps (GPU projections of the NVTX ranges
 * sc names: first op start, last op end). The single-trace analysis and a
 * --rank-dir rank's collectives.tsv (rank_summary.c) both take it from
 * here. Owned: coll_part_release(); names borrowed from v. */
struct coll_part {
	struct coll_kernel *k;
	struct coll_gap *gaps;
	size_t nk;
	struct coll_window *w, *steps;
	size_t nw, nsteps;
};
void coll_part_of_trace(const struct trace *v, const struct stage_config *sc, struct coll_part *p);
void coll_part_release(struct coll_part *p);

/* The causes in the model's form (report_coll_straggle, strings owned). */
void coll_straggles_copy(const struct coll_causes *cs, struct report_coll_straggle **out,
			 size_t *n);

#endif
