/* tracercost.h: what tracing cost the program, as the builtin tracer timed
 * it (LLMPROF_TRACER_COST, one row per process that ran its exit handlers;
 * docs/tracer.md "What tracing costs"), and what a trace without that
 * table says about it. */
#ifndef LLMPROF_TRACERCOST_H
#define LLMPROF_TRACERCOST_H

#include <stdint.h>

#include "trace/trace.h"

enum trace_cost_basis {
	TRACE_COST_NONE = 0,	 /* no trace */
	TRACE_COST_MEASURED,	 /* the builtin tracer's rows */
	TRACE_COST_NOT_RECORDED, /* an llmprof trace without rows */
	TRACE_COST_NSYS,	 /* any other export (nsys's): no cost of its own recorded */
};

/* Summed over the processes with a row. hooks: on the program's threads
 * (CUDA API callbacks, resource callbacks, NVTX hooks); background: on the
 * tracer's own threads (CUPTI buffer completion, log flushes). */
struct trace_cost {
	enum trace_cost_basis basis;
	uint64_t processes, hooks, background;
	int64_t hooks_ns, background_ns, cpu_ns, wall_ns;
	int64_t api_ns, nvtx_ns; /* of hooks_ns */
};

/* Fills out (zeroed first) from t: its rows, else what its producer says.
 * A table that cannot be read, or sums out of range, count as no rows. */
void trace_cost_load(struct trace *t, struct trace_cost *out);

#endif
