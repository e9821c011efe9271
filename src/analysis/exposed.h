/* exposed.h: each kernel's exposed time, the part of its run no other
 * kernel accounts for. Kernels overlap on a GPU when one is launched early
 * with programmatic dependent launch and waits for its predecessor, or runs
 * beside another stream's; their durations then sum to more than the busy
 * time. Used for the per-stage kernel times of the report model
 * (model_fill.c) and the waterfall of `llmprof diff`. */
#ifndef LLMPROF_ANALYSIS_EXPOSED_H
#define LLMPROF_ANALYSIS_EXPOSED_H

#include <stdint.h>

#include "trace/trace.h"

/* Each kernel's exposed time (ns) into exposed[t->nkernels]: per device,
 * kernels in start order (ties by index), the part of [start, end] that no
 * earlier-started kernel still running covers (covered = the running max of
 * the ends so far; exposed = max(0, end - max(start, covered))). A kernel
 * launched early with programmatic dependent launch, waiting for its
 * predecessor, or one overlapping a kernel of another stream, is exposed
 * only for what it adds; a device's exposed times sum to the union of its
 * kernels' intervals. */
void kernel_exposed_times(const struct trace *t, int64_t *exposed);

#endif
