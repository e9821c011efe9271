/* graphops.c: the NVTX range each replayed CUDA-graph kernel was captured
 * under; see graphops.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/graphops.h"
#include "trace/graphnodes.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const struct trace *sort_trace;

/* candidate ranges by (thread, start), the outer one first on a tie */
static int cmp_range(const void *a, const void *b)
{
	const struct trace_range *x = &sort_trace->ranges[*(const uint32_t *)a];
	const struct trace_range *y = &sort_trace->ranges[*(const uint32_t *)b];

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The innermost candidate range of thread gtid open at ts: the last one
 * started at or before ts, or the nearest of its ancestors still open
 * (push/pop ranges nest on a thread). -1 when none. */
static int32_t range_at(const struct nvtx_proj *p, const struct trace *t, const uint32_t *order,
			size_t n, int64_t gtid, int64_t ts)
{
	size_t lo = 0, hi = n;
	int32_t r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_range *x = &t->ranges[order[mid]];

		if (x->gtid < gtid || (x->gtid == gtid && x->start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->ranges[order[lo - 1]].gtid != gtid)
		return -1;
	for (r = (int32_t)order[lo - 1]; r >= 0; r = p->parent[r]) {
		const struct trace_range *x = &t->ranges[r];

		if (x->start <= ts && (x->open || x->end > ts))
			return r;
	}
	return -1;
}

int32_t *graphops_capture_ranges(const struct nvtx_proj *p, const struct trace *t)
{
	struct trace_graph_node *nodes;
	uint32_t *order;
	int32_t *out = NULL;
	size_t nn = t->ngraph_nodes, nc = 0;
	int any = 0;

	for (size_t k = 0; k < t->nkernels && !any; k++)
		any = trace_ksig(t, &t->kernels[k])->graph_node >= 0;
	if (!nn || !any)
		return NULL;
	nodes = xmalloc(st_mult(nn, sizeof(*nodes)));
	memcpy(nodes, t->graph_nodes, nn * sizeof(*nodes));
	graph_nodes_sort(nodes, nn);
	order = xmalloc(st_mult(t->nranges + 1, sizeof(*order)));
	for (size_t r = 0; r < t->nranges; r++)
		if (p->candidate[r])
			order[nc++] = (uint32_t)r;
	sort_trace = t;
	qsort(order, nc, sizeof(*order), cmp_range);
	sort_trace = NULL;
	out = xmalloc(st_mult(t->nkernels + 1, sizeof(*out)));
	for (size_t k = 0; k < t->nkernels; k++) {
		/* the node made under the program's NVTX ranges */
		const struct trace_graph_node *a =
		    graph_node_made(nodes, nn, trace_ksig(t, &t->kernels[k])->graph_node);

		out[k] = a ? range_at(p, t, order, nc, a->gtid, a->ts) : -1;
	}
	free(order);
	free(nodes);
	return out;
}
