/* graphnodes.c: see graphnodes.h. */
#include <stdlib.h>

#include "core/util.h"
#include "core/xalloc.h"
#include "trace/graphnodes.h"
#include "core/banned.h"

int graph_nodes_read(struct nsysdb *x, struct trace_graph_node **v, size_t *n, size_t *alloc,
		     uint64_t *clamped, struct strbuf *err)
{
	static const char *const cols[] = {"!globalTid", "!timestamp", "!nodeId", "originalNodeId"};
	static const char table[] = "LLMPROF_GRAPH_NODES";
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR;

	if (!nsysdb_has_table(x, table))
		return 0;
	if (nsysdb_select(x, table, cols, ARRAY_SIZE(cols), &st, err))
		goto damaged;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_graph_node *g;
		int64_t ts = sqlite3_column_int64(st, 1);

		if (ts > TRACE_TIME_MAX || ts < -TRACE_TIME_MAX) {
			(*clamped)++;
			ts = ts > 0 ? TRACE_TIME_MAX : -TRACE_TIME_MAX;
		}
		ALLOC_GROW(*v, *n + 1, *alloc);
		g = &(*v)[(*n)++];
		g->gtid = nsysdb_col_i64(st, 0, 0);
		g->ts = ts;
		g->node = nsysdb_col_i64(st, 2, -1);
		g->original = nsysdb_col_i64(st, 3, -1);
	}
	if (!nsysdb_step_done(x, rc, table, err)) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
damaged:
	FREE_AND_NULL(*v);
	*n = *alloc = 0;
	return -1;
}

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
