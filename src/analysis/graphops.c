/* graphops.c: the NVTX range each replayed CUDA-graph kernel was captured
 * under; see graphops.h. */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/graphops.h"
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

struct node_at {
	int64_t node;
	int clone;  /* the record names the node it was cloned from */
	size_t rec; /* index into trace->graph_nodes */
};

/* By node id; for one id, a clone's record first: CUPTI reports each node
 * of an instantiated graph twice, made (GRAPHNODE_CREATED) and cloned
 * (GRAPHNODE_CLONED), and only the clone leads back to the captured node. */
static int cmp_node(const void *a, const void *b)
{
	const struct node_at *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->clone != y->clone)
		return x->clone ? -1 : 1;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static const struct node_at *find_node(const struct node_at *v, size_t n, int64_t node)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].node < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].node == node ? &v[lo] : NULL;
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
	struct node_at *nodes;
	uint32_t *order;
	int32_t *out = NULL;
	size_t nn = t->ngraph_nodes, nc = 0;
	int any = 0;

	for (size_t k = 0; k < t->nkernels && !any; k++)
		any = t->kernels[k].graph_node >= 0;
	if (!nn || !any)
		return NULL;
	nodes = xmalloc(st_mult(nn, sizeof(*nodes)));
	for (size_t i = 0; i < nn; i++) {
		nodes[i].node = t->graph_nodes[i].node;
		nodes[i].clone = t->graph_nodes[i].original >= 0;
		nodes[i].rec = i;
	}
	qsort(nodes, nn, sizeof(*nodes), cmp_node);
	order = xmalloc(st_mult(t->nranges + 1, sizeof(*order)));
	for (size_t r = 0; r < t->nranges; r++)
		if (p->candidate[r])
			order[nc++] = (uint32_t)r;
	sort_trace = t;
	qsort(order, nc, sizeof(*order), cmp_range);
	sort_trace = NULL;
	out = xmalloc(st_mult(t->nkernels + 1, sizeof(*out)));
	for (size_t k = 0; k < t->nkernels; k++) {
		const struct node_at *a = NULL;
		int64_t node = t->kernels[k].graph_node;

		out[k] = -1;
		/* a clone (instantiation) leads to the node it was cloned
		 * from, the one made under the program's NVTX ranges; clones
		 * of clones are followed a few steps, never in a cycle */
		for (int hop = 0; hop < 8 && node >= 0; hop++) {
			a = find_node(nodes, nn, node);
			if (!a || t->graph_nodes[a->rec].original < 0)
				break;
			node = t->graph_nodes[a->rec].original;
		}
		if (!a || t->graph_nodes[a->rec].original >= 0)
			continue;
		out[k] = range_at(p, t, order, nc, t->graph_nodes[a->rec].gtid,
				  t->graph_nodes[a->rec].ts);
	}
	free(order);
	free(nodes);
	return out;
}
