/* cpuapi.h: where the CPU time of NVTX ranges goes, from the CUDA API rows
 * of a trace (CUPTI_ACTIVITY_KIND_RUNTIME, runtime and driver calls): the
 * time a range's thread spent inside CUDA API calls while the range was
 * open, by call name, and the rest (host code: Python, the framework).
 *
 * Only meaningful when the trace records every API call, not just the
 * launches: nsys exports of a program traced with --trace=cuda, and
 * builtin traces recorded with pipeline.trace.api_calls=all. Nested calls
 * (a driver call made inside a runtime call, when an export has both) count
 * once, for the outermost call: a thread's API time is the union of its
 * calls. Names drop nsys's version suffix ("cudaMalloc_v3020" ->
 * "cudaMalloc").
 *
 * struct cpu_api_use owns its names; cpu_api_use_release() frees them. */
#ifndef LLMPROF_CPUAPI_H
#define LLMPROF_CPUAPI_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct cpu_api_name {
	char *name; /* owned, without the version suffix */
	int64_t ns; /* CPU time inside calls of this name (outermost calls) */
	size_t calls;
};

struct cpu_api_use {
	int64_t ns;		    /* CPU time inside CUDA API calls */
	size_t calls;		    /* calls overlapping the ranges */
	struct cpu_api_name *names; /* by ns, longest first, then by name */
	size_t nnames;
};

/* Whether t (TRACE_CALLS loaded) records every CUDA API call: it has a call
 * that is not a launch call (trace/apiname.h). A trace of launch calls only
 * cannot say where CPU time goes: its other calls' time would read as host
 * code. */
int cpu_api_complete(const struct trace *t);

/* For each range r of t (TRACE_CALLS and TRACE_NVTX loaded) and each bit b
 * < nout set in mask[r], adds to out[b] (zeroed by the caller) the API time
 * of r's thread inside [r.start, r.end]. Ranges that overlap each other on
 * one thread count their common calls once per range. */
void cpu_api_by_mask(struct cpu_api_use *out, size_t nout, const struct trace *t,
		     const uint8_t *mask);
void cpu_api_use_release(struct cpu_api_use *u);

/* name without a trailing "_v<digits>" (nsys's API version), into len */
size_t cpu_api_name_len(const char *name);

#endif
