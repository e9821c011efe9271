/* apiname.h: which CUDA runtime and driver API calls are launch calls (they
 * put work on the GPU: kernel and graph launches, memcpy, memset), by the
 * name CUPTI and nsys give them ("cudaLaunchKernel_v7000",
 * "cuLaunchKernel", "cudaMemcpyAsync_v3020"). Shared by the tracer, which
 * records just these by default (LLMPROF_TRACE_API_CALLS=launches), and
 * by the converter and the analysis, which tell them from the other calls.
 * Plain C, no allocation, header only. */
#ifndef LLMPROF_APINAME_H
#define LLMPROF_APINAME_H

#include <string.h>

/* Launches first: without memops only the first four count. */
static const char *const api_launch_prefixes[] = {"cudaLaunch",	   "cudaGraphLaunch", "cuLaunch",
						  "cuGraphLaunch", "cudaMemcpy",      "cudaMemset",
						  "cuMemcpy",	   "cuMemset"};

/* Whether the name of len bytes (p NULL: no) is a kernel or graph launch,
 * or with memops also a memcpy or memset call. */
static inline int api_name_is_launch_n(const char *p, size_t len, int memops)
{
	size_t n = memops ? 8 : 4;

	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t pl = strlen(api_launch_prefixes[i]);
		if (len >= pl && memcmp(p, api_launch_prefixes[i], pl) == 0)
			return 1;
	}
	return 0;
}

/* The same for a NUL-terminated name (NULL: no). */
static inline int api_name_is_launch(const char *name, int memops)
{
	return name ? api_name_is_launch_n(name, strlen(name), memops) : 0;
}

#endif
