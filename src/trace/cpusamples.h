/* cpusamples.h: the CPU samples of an llmprof trace (LLMPROF_CPU_SAMPLES,
 * written by the builtin tracer with pipeline.trace.cpu_sample_hz > 0;
 * docs/tracer.md "CPU samples"): each sample's thread, time, period and the
 * library, function and category it is attributed to (trace/symbolize.h
 * sample_attribute), interned in the trace's string table. nsys exports
 * have none. */
#ifndef LLMPROF_CPUSAMPLES_H
#define LLMPROF_CPUSAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct trace_cpu_sample {
	int64_t ts, gtid;
	int64_t period_ns;		     /* the CPU time the sample stands for */
	int32_t library, function, category; /* t->strs ids */
};

struct trace_cpu_samples {
	struct trace_cpu_sample *v; /* sorted by (gtid, ts) */
	size_t n, alloc;
};

/* The CPU sampler's own cost, summed over the processes of
 * LLMPROF_CPU_SAMPLER (those that exited cleanly) whose handler was timed:
 * its handler's calls and time, and the time their samples stand for. */
struct trace_cpu_sampler {
	uint64_t processes, calls;
	int64_t handler_ns, sampled_ns;
};

/* Loads t's sampler rows into out (zeroed); none without the table. */
void trace_cpu_sampler_load(struct trace *t, struct trace_cpu_sampler *out);

/* Loads t's samples into out (zeroed by the caller); a trace without the
 * table, or with one that cannot be read, has none. */
void trace_cpu_samples_load(struct trace *t, struct trace_cpu_samples *out);
void trace_cpu_samples_release(struct trace_cpu_samples *s);

#endif
