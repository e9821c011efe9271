/* graphops.h: operators of CUDA-graph replays. NVTX ranges pushed while a
 * graph is captured run once, at capture; its replays run none, so their
 * kernels belong to no operator by the launch rule of nvtxproj.h. The
 * builtin tracer records each graph node made or cloned with its thread
 * and time (trace->graph_nodes, LLMPROF_GRAPH_NODES): a replayed kernel's
 * graphNodeId is a clone's, the clone leads to the node the program made,
 * and the ranges open on that thread then are the kernel's operator ranges
 * (docs/tracer.md, "CUDA graphs"). nsys exports have no such table. */
#ifndef LLMPROF_ANALYSIS_GRAPHOPS_H
#define LLMPROF_ANALYSIS_GRAPHOPS_H

#include <stdint.h>

#include "analysis/nvtxproj.h"
#include "trace/trace.h"

/* Per kernel (trace->kernels order): the innermost candidate range open
 * where its graph node was made, or -1 (not a graph kernel, node not
 * recorded, no range open). NULL when the trace has no graph kernels or no
 * graph node records. Owned by the caller (free). */
int32_t *graphops_capture_ranges(const struct nvtx_proj *p, const struct trace *t);

#endif
