/* cpusample.h: where the sampled CPU time of NVTX ranges goes, from the
 * builtin tracer's CPU samples (trace/cpusamples.h): the samples taken on a
 * range's thread while the range was open, grouped by category (CUDA
 * driver, PyTorch, Python interpreter, ...) and by function (each as the
 * converter attributed it: trace/symbolize.h sample_attribute), and,
 * when the trace records every CUDA API call, the part outside those calls
 * (what "outside CUDA" was).
 *
 * A sample stands for its period of the thread's CPU time (samples x
 * period estimates CPU time, not wall time: a thread blocked uses none).
 * Ranges of one stage that overlap on a thread count a sample once.
 *
 * struct cpu_sample_use owns its arrays; cpu_sample_use_release frees. */
#ifndef LLMPROF_CPUSAMPLE_H
#define LLMPROF_CPUSAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/cpusamples.h"
#include "trace/trace.h"

struct cpu_sample_group {
	int32_t name;	/* t->strs id: the category, or the function */
	int32_t detail; /* categories: their most sampled function; functions: library */
	size_t samples;
	int64_t ns; /* the samples' periods, summed */
};

struct cpu_sample_set {
	size_t samples;
	int64_t ns;
	struct cpu_sample_group *cats; /* by samples, most first, then by name */
	size_t ncats;
	struct cpu_sample_group *funcs; /* the same, by (function, library) */
	size_t nfuncs;
};

struct cpu_sample_use {
	struct cpu_sample_set all;     /* every sample in the ranges */
	struct cpu_sample_set outside; /* of them, outside CUDA API calls (api_complete) */
};

/* For each bit b < nout (at most 8) of mask[r] over t's ranges (TRACE_NVTX
 * and, with api_complete, TRACE_CALLS loaded), fills out[b] (zeroed by the
 * caller) from the samples s. */
void cpu_samples_by_mask(struct cpu_sample_use *out, size_t nout, const struct trace *t,
			 const uint8_t *mask, const struct trace_cpu_samples *s, int api_complete);
void cpu_sample_use_release(struct cpu_sample_use *u);

#endif
