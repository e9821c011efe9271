/* nsysdb.h: the one reader of the nsys export schema (an nsys SQLite export
 * or llmprof's trace.sqlite, which writes the same schema: DESIGN.md §3).
 *
 * What every reader of an export (trace.c for the analysis and the nsys
 * stats reports, perfetto.c for trace.json, nvtxlist.c for `llmprof nvtx`,
 * nsight/nsys_diag.c for what went wrong in an nsys run) needs to know of
 * the schema lives here, once:
 *   - opening it: through sqlite_open.h (a regular file, read-only and
 *     immutable, no value over the limit, a deadline), then told apart from
 *     a file that is not SQLite at all, with the readers' tables checked to
 *     be no views;
 *   - which tables it has (read once at open; a view never counts as a
 *     table) and which columns a table has (read once per table): exports
 *     of different nsys versions differ in both, and a table nsys found
 *     empty is left out;
 *   - the string table (StringIds: names are ids into it), the enum tables
 *     (ENUM_*: id -> label), the export's metadata;
 *   - the queries more than one reader runs, with the joins that resolve
 *     names, so the readers agree on what a row says.
 * Readers that keep what they read in memory select columns by name
 * (nsysdb_select()); those that stream run a named query
 * (nsysdb_prepare()).
 *
 * struct nsysdb owns its connection and what it read of the schema;
 * nsysdb_close() frees them. Statements are the caller's to finalize. */
#ifndef LLMPROF_TRACE_NSYSDB_H
#define LLMPROF_TRACE_NSYSDB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "trace/strtab.h"

struct nsysdb_cols;

struct nsysdb {
	sqlite3 *db;
	char *path;  /* as given, for messages */
	size_t size; /* bytes */
	char **tables;
	size_t ntables;
	struct nsysdb_cols *cols; /* per table, read when first asked */
	size_t ncols, cols_alloc;
};

/* Opens path (sqlite_open.h's export_open()). 0, or -1 with err: what
 * export_open() says, "'p' is not a readable SQLite database: ..." (with
 * the nsys command that makes an export when p is a .nsys-rep or .qdrep),
 * or a view where a table belongs (export_check_views()). A file that is
 * SQLite but holds none of an export's tables opens: nsysdb_is_export()
 * tells. */
int nsysdb_open(struct nsysdb *x, const char *path, struct strbuf *err);
void nsysdb_close(struct nsysdb *x);

/* Whether the export has the table (a view is none). */
int nsysdb_has_table(const struct nsysdb *x, const char *table);
/* Whether the table exists and has the column. */
int nsysdb_has_column(struct nsysdb *x, const char *table, const char *column);
/* Whether the file holds any table an nsys or llmprof trace export has
 * (strings, kernels, API calls, NVTX, the export's metadata). */
int nsysdb_is_export(const struct nsysdb *x);

/* Prepares "SELECT cols FROM table", a column at a time by name: they move
 * between nsys versions. A name starting with '!' is required (-1 with
 * "'p': table T has no column 'c' (not an nsys export?)" without it); the
 * others read as NULL when the table lacks them; "rowid" is the row's
 * rowid. 0, or -1 with err. */
int nsysdb_select(struct nsysdb *x, const char *table, const char *const *cols, size_t n,
		  sqlite3_stmt **st, struct strbuf *err);
/* A row of nsysdb_scan(): v[i] is the value of its cols[i], valid until
 * fn returns. */
typedef void (*nsysdb_row_fn)(void *ctx, sqlite3_value **v);
/* Calls fn for each row of nsysdb_select()'s statement, in the order it
 * gives them, all inside one sqlite3_step(): the columns come to fn as
 * the arguments of an aggregate function, without the sqlite3_step() and
 * sqlite3_column_*() calls per row that cost a third of a million-row
 * read (at most 100 columns). 0, or -1 with err: nsysdb_select()'s and
 * nsysdb_step_done()'s errors. */
int nsysdb_scan(struct nsysdb *x, const char *table, const char *const *cols, size_t n,
		nsysdb_row_fn fn, void *ctx, struct strbuf *err);
/* A guess of the table's row count (its largest rowid) to size arrays once,
 * bounded by what the file's size can hold. */
size_t nsysdb_row_estimate(struct nsysdb *x, const char *table);
/* The end of a statement's rows: 0 when rc is SQLITE_DONE, else -1 with
 * "'p': table T is truncated or corrupt: ...". */
int nsysdb_step_done(struct nsysdb *x, int rc, const char *table, struct strbuf *err);
/* -1 with "'p': cannot read what: <SQLite's message>", or "... still running
 * after N s" when the deadline stopped the statement. */
int nsysdb_error(struct nsysdb *x, struct strbuf *err, const char *what);

/* The integer in column i, dflt for NULL. One sqlite3_column_* call, not
 * two: each pays SQLite's API entry and exit, which on a million-row table
 * costs more than decoding the column itself. */
static inline int64_t nsysdb_col_i64(sqlite3_stmt *st, int i, int64_t dflt)
{
	sqlite3_value *v = sqlite3_column_value(st, i);

	return sqlite3_value_type(v) == SQLITE_NULL ? dflt : sqlite3_value_int64(v);
}

/* The same for a value of nsysdb_scan(). */
static inline int64_t nsysdb_val_i64(sqlite3_value *v, int64_t dflt)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? dflt : sqlite3_value_int64(v);
}

/* ------------------------------------------------------------ strings */

/* StringIds read into a caller's strtab: an id maps to the interned
 * string. Ids are dense from 0 in every export; ids beyond what the file's
 * size can hold (a crafted file) go to a sorted side table instead of
 * sizing the dense one. Of two rows with one id, the last read wins. */
struct nsysdb_strings {
	int32_t *dense; /* id -> strtab id, -1 none */
	size_t dense_nr;
	struct nsysdb_sid {
		int64_t id;
		size_t row;
		int32_t str;
	} * sparse;
	size_t sparse_nr, sparse_alloc;
};

/* Reads StringIds (none when the export has no such table). 0, or -1 with
 * err when the table is truncated or corrupt. */
int nsysdb_strings_load(struct nsysdb *x, struct strtab *strs, struct nsysdb_strings *s,
			struct strbuf *err);
/* The strtab id of the StringIds id in column col of st; -1 for NULL, a
 * negative id or one StringIds does not have. */
int32_t nsysdb_string(const struct nsysdb_strings *s, sqlite3_stmt *st, int col);
/* The same for a value of nsysdb_scan(). */
static inline int32_t nsysdb_string_val(const struct nsysdb_strings *s, sqlite3_value *v);
/* The same for an id already read (-1: none). */
int32_t nsysdb_string_id(const struct nsysdb_strings *s, int64_t id);
void nsysdb_strings_release(struct nsysdb_strings *s);

static inline int32_t nsysdb_string_val(const struct nsysdb_strings *s, sqlite3_value *v)
{
	return nsysdb_string_id(s, nsysdb_val_i64(v, -1));
}

/* ---------------------------------------------------- enums, metadata */

/* Calls fn(ctx, id, label) for each row of an enum table ("ENUM_CUDA_
 * MEMCPY_OPER": 1 "Host-to-Device", ...), labels NULL skipped. 0 (also
 * when the table is absent), or -1 with err. */
int nsysdb_enum(struct nsysdb *x, const char *table,
		void (*fn)(void *ctx, int64_t id, const char *label), void *ctx,
		struct strbuf *err);

/* Who wrote the export: "NVIDIA Nsight Systems 2025.3.2.0", "llmprof
 * 0.1.0" (EXPORT_PRODUCT_NAME and _VERSION of META_DATA_EXPORT, or of
 * EXPORT_META_DATA in older nsys); owned, NULL when not recorded. */
char *nsysdb_producer(struct nsysdb *x);
/* The integer value of a META_DATA_EXPORT row (the builtin tracer's
 * LLMPROF_DROPPED_CUPTI, ...): 1 found, 0 not. */
int nsysdb_meta_i64(struct nsysdb *x, const char *name, int64_t *v);

/* ------------------------------------------------------------ queries */

/* The queries more than one reader runs; each row's columns, in order: */
enum nsysdb_query {
	/* NVTX marks (34) and ranges (push/pop 59, 70; start/end 60, 71),
	 * in the table's order: start, end, eventType, the message (text,
	 * else the registered string textId names: an export sets one),
	 * globalTid, domainId */
	NSYSDB_NVTX,
	/* the same, by thread (globalTid), then start, then end latest first:
	 * each thread's ranges outer before inner */
	NSYSDB_NVTX_BY_THREAD,
	/* NVTX domain-create events (75): domainId, globalTid, start, text */
	NSYSDB_NVTX_DOMAINS,
	/* CUDA API calls: start, end, globalTid, correlationId, name */
	NSYSDB_API_CALLS,
	/* kernels: start, end, deviceId, streamId, correlationId, globalPid,
	 * shortName's string, graphNodeId (NULL in exports without it) */
	NSYSDB_KERNELS,
	/* copies: start, end, deviceId, streamId, correlationId, globalPid,
	 * "[CUDA memcpy Host-to-Device]" (the kind's ENUM_CUDA_MEMCPY_OPER
	 * label, "Unknown" without one; without the table, CUPTI's label of
	 * the kind) */
	NSYSDB_MEMCPY,
	/* memsets: the same columns, "[CUDA memset]" */
	NSYSDB_MEMSET,
	/* processes: pid, name, rank (LLMPROF_PROCESSES' rank when >= 0, else
	 * NULL; always NULL in an nsys export) */
	NSYSDB_PROCESSES,
	/* thread names: globalTid, name */
	NSYSDB_THREAD_NAMES,
	/* a GPU's name: name, of the TARGET_INFO_GPU row whose id is bound
	 * to parameter 1 */
	NSYSDB_GPU_NAME,
	/* one row: how many kernels */
	NSYSDB_COUNT_KERNELS,
	/* one row: how many kernels a CUDA graph launched (graphNodeId set
	 * and not 0; the query is absent, 0, in exports without the column) */
	NSYSDB_COUNT_GRAPH_KERNELS,
	/* one row: how many CUDA graph launches were traced as one item
	 * (nsys --cuda-graph-trace=graph) */
	NSYSDB_COUNT_GRAPH_TRACE,
	/* one row: how many CUDA API calls */
	NSYSDB_COUNT_API_CALLS,
	/* one row: how many CUDA API calls launched a graph
	 * (cudaGraphLaunch*, cuGraphLaunch*) */
	NSYSDB_COUNT_GRAPH_LAUNCHES,
	NSYSDB_NQUERIES
};

/* Prepares q into *st: 1; 0 (*st NULL) when the export lacks a table the
 * query needs: nothing to read; -1 with err ("'p': cannot read ...")
 * when SQLite refuses it. */
int nsysdb_prepare(struct nsysdb *x, enum nsysdb_query q, sqlite3_stmt **st, struct strbuf *err);
/* Runs a one-row count query: the count, 0 when the query is absent, -1
 * on an error. */
int64_t nsysdb_count(struct nsysdb *x, enum nsysdb_query q);

#endif
