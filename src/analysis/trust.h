/* trust.h: the trust report, what could make a run's numbers wrong
 * (docs/report.md "Trust"). The counts come from the trace loader and the
 * timeline; the counter join and the clock alignment are read from the
 * model. */
#ifndef LLMPROF_TRUST_H
#define LLMPROF_TRUST_H

#include <stdint.h>

#include "model/model.h"

#define TRUST_NO_THRESHOLD UINT64_MAX /* never a finding: shown, not judged */

struct trust_counts {
	uint64_t dropped_cupti, dropped_tracer, log_problems; /* builtin tracer */
	uint64_t unflushed;	     /* builtin tracer: processes that ended without exit() */
	uint64_t bad_times, clamped; /* kernels ending at or before their start; times clamped */
	uint64_t no_launch, outside; /* kernels without a launch call; outside every stage */
	uint64_t cross_thread, open_ranges; /* stage ranges ended on another thread; NVTX ranges
					       never ended */
	const char *graph_nodes_problem;    /* the graph-node table unreadable: why, else NULL */
	const char *cpu_samples_problem;    /* the CPU-sample table unreadable: why, else NULL */
};

/* Fills m->trust (checked, then the present items in a fixed order) from c,
 * m->run.cjoin and m->ranks.coll, and adds the findings records-dropped,
 * trace-unflushed and timestamps-invalid when their items are above threshold (the other items'
 * findings come from findings_run() and the timeline). Call after those,
 * before findings_rank(). */
void trust_build(struct report_model *m, const struct trust_counts *c);

#endif
