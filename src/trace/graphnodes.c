/* graphnodes.c: see graphnodes.h. */
#include <stdlib.h>

#include "trace/graphnodes.h"
#include "core/banned.h"

#define GRAPH_NODE_HOPS 8 /* clones of clones: a few, never a cycle */

static int cmp_graph_node(const void *a, const void *b)
{
	const struct trace_graph_node *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if ((x->original < 0) != (y->original < 0))
		return (x->original < 0) - (y->original < 0);
	/* the same id recorded twice alike: the earlier, so the order is
	 * the same on every machine */
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->gtid > y->gtid) - (x->gtid < y->gtid);
}

void graph_nodes_sort(struct trace_graph_node *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_graph_node);
}

static const struct trace_graph_node *find(const struct trace_graph_node *v, size_t n, int64_t node)
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

const struct trace_graph_node *graph_node_made(const struct trace_graph_node *v, size_t n,
					       int64_t node)
{
	const struct trace_graph_node *a = NULL;

	for (int hop = 0; hop < GRAPH_NODE_HOPS && node >= 0; hop++) {
		a = find(v, n, node);
		if (!a || a->original < 0)
			break;
		node = a->original;
	}
	return a && a->original < 0 ? a : NULL;
}
