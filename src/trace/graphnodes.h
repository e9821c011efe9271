/* graphnodes.h: CUDA graph nodes as the builtin tracer records them
 * (LLMPROF_GRAPH_NODES, docs/tracer.md "CUDA graphs"), and the one rule
 * that leads a replayed kernel's graphNodeId back to the node the program
 * made: a clone leads to its original, a few hops at most; when CUPTI
 * reports one id twice (made and cloned: every node of an instantiated
 * graph), the clone's record is the one followed. Used by the operator
 * attribution (analysis/graphops.c) and by trace.json (perfetto.c). */
#ifndef LLMPROF_TRACE_GRAPHNODES_H
#define LLMPROF_TRACE_GRAPHNODES_H

#include <stddef.h>

#include "core/strbuf.h"
#include "trace/nsysdb.h"
#include "trace/trace.h"

/* Reads LLMPROF_GRAPH_NODES into *v (owned; *n of them, *alloc room), the
 * one reader of the table for the analysis (trace.c) and trace.json
 * (perfetto.c): timestamps clamped to +-TRACE_TIME_MAX as trace.c reads
 * times, each clamp counted in *clamped. 0 (also without the table), or
 * -1 with err and no nodes when the table is damaged (the statement's
 * SQLite error code says whether an interrupt stopped it). */
int graph_nodes_read(struct nsysdb *x, struct trace_graph_node **v, size_t *n, size_t *alloc,
		     uint64_t *clamped, struct strbuf *err);

/* Sorts v for graph_node_made(): by node id, a clone's record first. */
void graph_nodes_sort(struct trace_graph_node *v, size_t n);

/* The made node's record that `node` leads to in v (sorted by
 * graph_nodes_sort), or NULL: not recorded, or a chain of clones that ends
 * nowhere (never followed in a cycle). */
const struct trace_graph_node *graph_node_made(const struct trace_graph_node *v, size_t n,
					       int64_t node);

#endif
