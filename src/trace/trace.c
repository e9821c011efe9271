/* trace.c: read-only, streaming reader of nsys-schema SQLite files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxdomain.h"
#include "trace/sqlite_open.h"
#include "trace/trace.h"
#include "core/banned.h"

#define DB(t) ((sqlite3 *)(t)->db)

/* The text values of column col of the rows sql returns, NULL-terminated
 * (empty when sql fails). Values that are not TEXT, or hold a NUL, are left
 * out: they never equal a C string in SQL either. Free with free_names(). */
static char **query_names(struct trace *t, const char *sql, int col)
{
	sqlite3_stmt *st = NULL;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	if (sqlite3_prepare_v2(DB(t), sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, col);

			if (sqlite3_column_type(st, col) != SQLITE_TEXT || !v ||
			    strlen(v) != (size_t)sqlite3_column_bytes(st, col))
				continue;
			ALLOC_GROW(names, n + 1, alloc);
			names[n++] = xstrdup(v);
		}
	}
	sqlite3_finalize(st);
	ALLOC_GROW(names, n + 1, alloc);
	names[n] = NULL;
	return names;
}

static void free_names(char **names)
{
	for (size_t i = 0; names[i]; i++)
		free(names[i]);
	free(names);
}

/* name=? in SQL: binary, case-sensitive. */
static int has_name(char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* Tables only: a VIEW is a query, and a recursive one never ends. */
#define TABLES_SQL "SELECT name FROM sqlite_master WHERE type='table'"

int trace_has_table(struct trace *t, const char *name)
{
	char **tables = query_names(t, TABLES_SQL, 0);
	int found = has_name(tables, name);

	free_names(tables);
	return found;
}

/* The names of table's columns, from one pragma: a query per column was
 * most of the time spent opening a small export. Empty when the table does
 * not exist. table is one of ours, never from the file. */
static char **table_cols(struct trace *t, const char *table)
{
	struct strbuf sql = STRBUF_INIT;
	char **cols;

	strbuf_addf(&sql, "PRAGMA table_info(\"%s\")", table);
	cols = query_names(t, sql.buf, 1);
	strbuf_release(&sql);
	return cols;
}

static int db_error(struct trace *t, struct strbuf *err, const char *what)
{
	if (export_interrupted(DB(t)))
		return error_set(err, "'%s': cannot read %s: interrupted by %s", t->path, what,
				 proc_signal_name(export_interrupted(DB(t))));
	if (export_past_deadline(DB(t)))
		return error_set(err, "'%s': cannot read %s: still running after %d s", t->path,
				 what, SQLITE_OPEN_DEADLINE_S);
	return error_set(err, "'%s': cannot read %s: %s", t->path, what, sqlite3_errmsg(DB(t)));
}

/* Prepares SELECT cols FROM table, with NULL for optional columns the table
 * lacks. cols[i] starting with '!' are required. */
static int select_cols(struct trace *t, const char *table, const char *const *cols, size_t n,
		       sqlite3_stmt **st, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	char **have = table_cols(t, table);
	int ret = -1;

	strbuf_addstr(&sql, "SELECT ");
	for (size_t i = 0; i < n; i++) {
		const char *c = cols[i];
		int required = c[0] == '!';

		if (required)
			c++;
		if (i)
			strbuf_addstr(&sql, ", ");
		if (!strcmp(c, "rowid") || has_name(have, c)) {
			strbuf_addf(&sql, "\"%s\"", c);
		} else if (required) {
			error_set(err, "'%s': table %s has no column '%s' (not an nsys export?)",
				  t->path, table, c);
			goto cleanup;
		} else {
			strbuf_addstr(&sql, "NULL");
		}
	}
	strbuf_addf(&sql, " FROM \"%s\"", table);
	if (sqlite3_prepare_v2(DB(t), sql.buf, -1, st, NULL) != SQLITE_OK) {
		db_error(t, err, table);
		goto cleanup;
	}
	ret = 0;
cleanup:
	free_names(have);
	strbuf_release(&sql);
	return ret;
}

/* Row count estimate (max rowid) to size arrays once. The file decides
 * max(rowid): a row takes 5 bytes of it at least (cell pointer, sizes,
 * rowid, record header), so a larger estimate is a sparse or crafted rowid
 * and would ask for gigabytes. */
static size_t row_estimate(struct trace *t, const char *table)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	strbuf_addf(&sql, "SELECT max(rowid) FROM \"%s\"", table);
	if (sqlite3_prepare_v2(DB(t), sql.buf, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	strbuf_release(&sql);
	if (t->file_size > 0 && n > t->file_size / 5)
		n = t->file_size / 5;
	return n > 0 && n < (1LL << 32) ? (size_t)n : 0;
}

static int step_done(struct trace *t, sqlite3_stmt *st, int rc, const char *table,
		     struct strbuf *err)
{
	if (rc == SQLITE_DONE)
		return 0;
	error_set(err, "'%s': table %s is truncated or corrupt: %s", t->path, table,
		  sqlite3_errmsg(DB(t)));
	return -1;
}

static inline int64_t col_i64(sqlite3_stmt *st, int i, int64_t dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

/* A timestamp, clamped to +-TRACE_TIME_MAX (trace.h). */
static inline int64_t col_time(struct trace *t, sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);

	if (v > TRACE_TIME_MAX || v < -TRACE_TIME_MAX) {
		t->clamped++;
		return v > 0 ? TRACE_TIME_MAX : -TRACE_TIME_MAX;
	}
	return v;
}

/* The builtin tracer's counts of what it lost (LLMPROF_DROPPED_CUPTI,
 * LLMPROF_DROPPED_TRACER, LLMPROF_LOG_PROBLEMS, LLMPROF_UNFLUSHED_PROCESSES in
 * META_DATA_EXPORT); nsys
 * exports have none and read 0. */
static void read_tracer_meta(struct trace *t)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(DB(t),
			       "SELECT name, value FROM META_DATA_EXPORT WHERE name IN "
			       "('LLMPROF_DROPPED_CUPTI', 'LLMPROF_DROPPED_TRACER', "
			       "'LLMPROF_LOG_PROBLEMS', 'LLMPROF_UNFLUSHED_PROCESSES')",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		int64_t v = sqlite3_column_int64(st, 1);
		uint64_t u = v > 0 ? (uint64_t)v : 0;

		if (!n)
			continue;
		if (!strcmp(n, "LLMPROF_DROPPED_CUPTI"))
			t->dropped_cupti = u;
		else if (!strcmp(n, "LLMPROF_DROPPED_TRACER"))
			t->dropped_tracer = u;
		else if (!strcmp(n, "LLMPROF_UNFLUSHED_PROCESSES"))
			t->unflushed = u;
		else
			t->log_problems = u;
	}
	sqlite3_finalize(st);
}

/* StringIds id -> interned id, or -1. */
static int32_t sid_lookup(const struct trace *t, sqlite3_stmt *st, int col)
{
	int64_t id;
	size_t lo = 0, hi;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return -1;
	id = sqlite3_column_int64(st, col);
	if (id < 0)
		return -1;
	if ((uint64_t)id < t->sid_dense_nr)
		return t->sid_dense[id];
	for (hi = t->sid_sparse_nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sid_sparse[mid].id == id)
			return t->sid_sparse[mid].str;
		if (t->sid_sparse[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_sid(const void *pa, const void *pb)
{
	const struct trace_sid *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static int load_strings(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"!id", "!value"};
	/* ids are dense from 0 in every export, so no more than the file has
	 * rows; one far beyond (a crafted file) must not size the dense map:
	 * 2^28 of it is a gigabyte */
	int64_t dense_max = t->file_size > 0 ? t->file_size / 5 : 1 << 28;
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	if (!t->has_strings)
		return 0;
	if (select_cols(t, "StringIds", cols, 2, &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (id < 0 || id > (1 << 28) || !v)
			continue; /* a sparse or absurd id: treat as missing */
		if (id > dense_max) {
			int32_t s = strtab_intern(&t->strs, v, (size_t)sqlite3_column_bytes(st, 1));
			struct trace_sid *p;

			ALLOC_GROW(t->sid_sparse, t->sid_sparse_nr + 1, t->sid_sparse_alloc);
			p = &t->sid_sparse[t->sid_sparse_nr];
			p->id = id;
			p->row = t->sid_sparse_nr++;
			p->str = s;
			continue;
		}
		if ((uint64_t)id >= t->sid_dense_nr) {
			size_t old = t->sid_dense_nr, n = (size_t)id + 1;

			if (n < old * 2)
				n = old * 2;
			if (n > (size_t)dense_max + 1)
				n = (size_t)dense_max + 1; /* sparse ids stay past it */
			t->sid_dense = xrealloc(t->sid_dense, st_mult(n, sizeof(*t->sid_dense)));
			memset(t->sid_dense + old, 0xff, (n - old) * sizeof(*t->sid_dense));
			t->sid_dense_nr = n;
		}
		t->sid_dense[id] = strtab_intern(&t->strs, v, (size_t)sqlite3_column_bytes(st, 1));
	}
	ret = step_done(t, st, rc, "StringIds", err);
	sqlite3_finalize(st);
	if (t->sid_sparse_nr) {
		size_t n = 0;

		/* by id, then row; of an id's rows the last wins, as in the
		 * dense map */
		qsort(t->sid_sparse, t->sid_sparse_nr, sizeof(*t->sid_sparse), cmp_sid);
		for (size_t i = 0; i < t->sid_sparse_nr; i++) {
			if (n && t->sid_sparse[n - 1].id == t->sid_sparse[i].id)
				n--;
			t->sid_sparse[n++] = t->sid_sparse[i];
		}
		t->sid_sparse_nr = n;
	}
	return ret;
}

uint32_t trace_ksig_id(struct trace *t, struct trace_ksig s, int64_t corr, uint32_t *corr_lo)
{
	s.corr_hi = (int32_t)(uint32_t)((uint64_t)corr >> 32);
	*corr_lo = (uint32_t)corr;
	t->ksigs.size = sizeof(s);
	return rectab_intern(&t->ksigs, &s);
}

uint32_t trace_csig_id(struct trace *t, struct trace_csig s, int64_t corr, uint32_t *corr_lo)
{
	s.corr_hi = (int32_t)(uint32_t)((uint64_t)corr >> 32);
	*corr_lo = (uint32_t)corr;
	t->csigs.size = sizeof(s);
	return rectab_intern(&t->csigs, &s);
}

static int load_kernels(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {
	    "!start",	     "!end",	    "correlationId", "globalPid",
	    "demangledName", "shortName",   "deviceId",	     "contextId",
	    "streamId",	     "gridX",	    "gridY",	     "gridZ",
	    "blockX",	     "blockY",	    "blockZ",	     "registersPerThread",
	    "graphNodeId",   "mangledName",
	};
	sqlite3_stmt *st = NULL;
	int rc, ret;

	if (!t->has_kernels)
		return 0;
	if (select_cols(t, "CUPTI_ACTIVITY_KIND_KERNEL", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	ALLOC_GROW(t->kernels, row_estimate(t, "CUPTI_ACTIVITY_KIND_KERNEL"), t->kernels_alloc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_kernel *k;
		struct trace_ksig sig;

		ALLOC_GROW(t->kernels, t->nkernels + 1, t->kernels_alloc);
		k = &t->kernels[t->nkernels++];
		k->start = col_time(t, st, 0);
		k->end = col_time(t, st, 1);
		t->kernels_bad_time += k->end <= k->start;
		memset(&sig, 0, sizeof(sig));
		sig.gpid = col_i64(st, 3, 0);
		sig.name = sid_lookup(t, st, 4);
		sig.short_name = sid_lookup(t, st, 5);
		sig.device = (int32_t)col_i64(st, 6, -1);
		sig.context = (int32_t)col_i64(st, 7, -1);
		sig.stream = (int32_t)col_i64(st, 8, -1);
		for (int i = 0; i < 3; i++) {
			sig.grid[i] = (int32_t)col_i64(st, 9 + i, 0);
			sig.block[i] = (int32_t)col_i64(st, 12 + i, 0);
		}
		sig.regs = (int32_t)col_i64(st, 15, 0);
		sig.graph_node = col_i64(st, 16, -1);
		sig.mangled = sid_lookup(t, st, 17);
		k->sig = trace_ksig_id(t, sig, col_i64(st, 2, -1), &k->corr_lo);
	}
	ret = step_done(t, st, rc, "CUPTI_ACTIVITY_KIND_KERNEL", err);
	sqlite3_finalize(st);
	return ret;
}

/* A damaged LLMPROF_GRAPH_NODES table costs only the graph attribution of
 * replayed kernels, as a damaged NVTX table costs trace.json only its NVTX
 * events: the problem is kept for the trust report, the load goes on. An
 * interrupt (Ctrl-C, the deadline) still ends the load. */
static int load_graph_nodes(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"!globalTid", "!timestamp", "!nodeId", "originalNodeId"};
	static const char table[] = "LLMPROF_GRAPH_NODES";
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR, ret;

	if (!trace_has_table(t, table))
		return 0;
	if (select_cols(t, table, cols, ARRAY_SIZE(cols), &st, err))
		goto damaged;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_graph_node *n;

		ALLOC_GROW(t->graph_nodes, t->ngraph_nodes + 1, t->graph_nodes_alloc);
		n = &t->graph_nodes[t->ngraph_nodes++];
		n->gtid = col_i64(st, 0, 0);
		n->ts = col_time(t, st, 1);
		n->node = col_i64(st, 2, -1);
		n->original = col_i64(st, 3, -1);
	}
	ret = step_done(t, st, rc, table, err);
	sqlite3_finalize(st);
	if (!ret || rc == SQLITE_INTERRUPT)
		return ret;
damaged:
	FREE_AND_NULL(t->graph_nodes);
	t->ngraph_nodes = t->graph_nodes_alloc = 0;
	trace_note_unreadable(t, table, err->buf);
	strbuf_reset(err);
	return 0;
}

static int load_memops(struct trace *t, struct strbuf *err)
{
	static const char *const cpcols[] = {"!start", "!end",	   "correlationId", "globalPid",
					     "bytes",  "copyKind", "deviceId",	    "streamId"};
	int32_t kind_names[64];
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		kind_names[i] = -1;
	if (t->has_memcpy_enum) {
		static const char *const ecols[] = {"!id", "!label"};

		if (select_cols(t, "ENUM_CUDA_MEMCPY_OPER", ecols, 2, &st, err))
			return -1;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			const char *label = (const char *)sqlite3_column_text(st, 1);
			struct strbuf nm = STRBUF_INIT;

			if (id < 0 || id >= (int64_t)ARRAY_SIZE(kind_names) || !label)
				continue;
			strbuf_addf(&nm, "[CUDA memcpy %s]", label);
			kind_names[id] = strtab_intern(&t->strs, nm.buf, nm.len);
			strbuf_release(&nm);
		}
		if (step_done(t, st, rc, "ENUM_CUDA_MEMCPY_OPER", err))
			goto cleanup;
		sqlite3_finalize(st);
		st = NULL;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *table =
		    pass ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
		int32_t memset_name = strtab_intern(&t->strs, "[CUDA memset]", 13);

		if (!(pass ? t->has_memset : t->has_memcpy))
			continue;
		if (select_cols(t, table, cpcols, ARRAY_SIZE(cpcols), &st, err))
			goto cleanup;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct trace_memop *m;
			int64_t ck = col_i64(st, 5, -1);

			ALLOC_GROW(t->memops, t->nmemops + 1, t->memops_alloc);
			m = &t->memops[t->nmemops++];
			m->start = col_time(t, st, 0);
			m->end = col_time(t, st, 1);
			m->corr = col_i64(st, 2, -1);
			m->gpid = col_i64(st, 3, 0);
			m->bytes = col_i64(st, 4, 0);
			m->kind = pass ? TRACE_MEMSET : TRACE_MEMCPY;
			m->name =
			    pass ? memset_name
				 : (ck >= 0 && ck < (int64_t)ARRAY_SIZE(kind_names) ? kind_names[ck]
										    : -1);
			m->device = (int32_t)col_i64(st, 6, -1);
			m->stream = (int32_t)col_i64(st, 7, -1);
		}
		if (step_done(t, st, rc, table, err))
			goto cleanup;
		sqlite3_finalize(st);
		st = NULL;
	}
	ret = 0;
cleanup:
	sqlite3_finalize(st);
	return ret;
}

static int load_calls(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"!start", "!end", "globalTid", "correlationId",
					   "nameId"};
	sqlite3_stmt *st = NULL;
	int rc, ret;

	if (!t->has_calls)
		return 0;
	if (select_cols(t, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	ALLOC_GROW(t->calls, row_estimate(t, "CUPTI_ACTIVITY_KIND_RUNTIME"), t->calls_alloc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_call *c;
		struct trace_csig sig;

		ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
		c = &t->calls[t->ncalls++];
		c->start = col_time(t, st, 0);
		c->end = col_time(t, st, 1);
		memset(&sig, 0, sizeof(sig));
		sig.gtid = col_i64(st, 2, 0);
		sig.name = sid_lookup(t, st, 4);
		sig.name_sid = col_i64(st, 4, -1);
		c->sig = trace_csig_id(t, sig, col_i64(st, 3, -1), &c->corr_lo);
	}
	ret = step_done(t, st, rc, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
	sqlite3_finalize(st);
	return ret;
}

static int load_nvtx(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"rowid",	 "!start",    "end",
					   "!eventType", "globalTid", "endGlobalTid",
					   "text",	 "textId",    "domainId"};
	struct nvtx_domains doms = NVTX_DOMAINS_INIT;
	struct strbuf nm = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc, ret = -1, have_max = 0, have_rmax = 0;

	if (!t->has_nvtx)
		return 0;
	if (select_cols(t, "NVTX_EVENTS", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t type = sqlite3_column_int64(st, 3), start = col_time(t, st, 1);
		int has_end = sqlite3_column_type(st, 2) != SQLITE_NULL;
		int64_t end = has_end ? col_time(t, st, 2) : start;
		int64_t m = end > start ? end : start;
		int is_range = type == 59 || type == 60 || type == 70 || type == 71;
		struct trace_range *r;
		int32_t text = -1;

		if (!have_max || m > t->nvtx_max_all)
			t->nvtx_max_all = m;
		have_max = 1;
		if (type == NVTX_DOMAIN_CREATE) {
			const char *s = (const char *)sqlite3_column_text(st, 6);
			int32_t name =
			    s ? strtab_intern(&t->strs, s, (size_t)sqlite3_column_bytes(st, 6))
			      : -1;
			int32_t regname = sid_lookup(t, st, 7);

			nvtx_domains_add(&doms, col_i64(st, 8, 0), col_i64(st, 4, 0), start, name,
					 regname < 0 ? name : regname);
			continue;
		}
		if (!is_range)
			continue;
		if (!have_rmax || m > t->nvtx_max_range)
			t->nvtx_max_range = m;
		have_rmax = 1;
		text = sid_lookup(t, st, 7);
		if (text < 0 && sqlite3_column_type(st, 6) != SQLITE_NULL)
			text = strtab_intern(&t->strs, (const char *)sqlite3_column_text(st, 6),
					     (size_t)sqlite3_column_bytes(st, 6));
		ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
		r = &t->ranges[t->nranges++];
		r->rowid = sqlite3_column_int64(st, 0);
		r->start = start;
		r->end = end;
		r->open = !has_end;
		r->gtid = col_i64(st, 4, 0);
		r->cross_thread = sqlite3_column_type(st, 5) != SQLITE_NULL;
		r->text = text;
		r->domain_id = col_i64(st, 8, -1);
		r->domain = r->domain_reg = -1;
		r->name = text;
		r->style = (type == 60 || type == 71) ? TRACE_STARTEND : TRACE_PUSHPOP;
	}
	if (step_done(t, st, rc, "NVTX_EVENTS", err))
		goto cleanup;
	/* Domain names: the rule of nvtxdomain.h. */
	for (size_t i = 0; i < t->nranges && doms.n; i++) {
		struct trace_range *r = &t->ranges[i];
		const struct nvtx_domain *best = nvtx_domains_find(&doms, r->domain_id, r->gtid);

		if (!best)
			continue;
		r->domain_reg = best->regname;
		if (best->name < 0)
			continue;
		r->domain = best->name;
		if (r->text < 0) {
			r->name = -1;
			continue;
		}
		strbuf_reset(&nm);
		strbuf_addf(&nm, "%s:%s", strtab_str(&t->strs, best->name),
			    strtab_str(&t->strs, r->text));
		r->name = strtab_intern(&t->strs, nm.buf, nm.len);
	}
	ret = 0;
cleanup:
	sqlite3_finalize(st);
	strbuf_release(&nm);
	nvtx_domains_release(&doms);
	return ret;
}

/* The deviceId most loaded kernels have; -1 when none is known. One pass
 * with a count per device seen (a host has a handful; past 64 distinct ids
 * the rest are not counted); of a tie, the one seen first wins. */
static int64_t busiest_device(const struct trace *t)
{
	int32_t ids[64];
	size_t counts[64], nids = 0, best_n = 0;
	int64_t best = -1;

	for (size_t i = 0; i < t->nkernels; i++) {
		int32_t d = trace_ksig(t, &t->kernels[i])->device;
		size_t j = 0;

		if (d < 0)
			continue;
		while (j < nids && ids[j] != d)
			j++;
		if (j == nids) {
			if (nids == ARRAY_SIZE(ids))
				continue;
			ids[nids] = d;
			counts[nids++] = 0;
		}
		counts[j]++;
	}
	for (size_t j = 0; j < nids; j++)
		if (counts[j] > best_n) {
			best = ids[j];
			best_n = counts[j];
		}
	return best;
}

int trace_gpu_info(struct trace *t, struct trace_gpu *g, struct strbuf *err)
{
	static const char *const cols[] = {
	    "!id",	   "name",	   "smCount",	  "clockRate", "memoryBandwidth",
	    "totalMemory", "computeMajor", "computeMinor"};
	sqlite3_stmt *st = NULL;
	int64_t want = (t->loaded & TRACE_KERNELS) ? busiest_device(t) : -1;
	int rc, picked = 0;

	memset(g, 0, sizeof(*g));
	g->cc_major = g->cc_minor = -1;
	if (!trace_has_table(t, "TARGET_INFO_GPU"))
		return 0;
	if (select_cols(t, "TARGET_INFO_GPU", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		g->ngpus++;
		/* the device the kernels ran on wins; else the lowest id */
		if (picked && (g->id == want || (id != want && id > g->id)))
			continue;
		picked = 1;
		free(g->name);
		g->name = name && *name ? xstrdup(name) : NULL;
		g->id = id;
		g->sm_count = (int)col_i64(st, 2, 0);
		g->clock_hz = col_i64(st, 3, 0);
		g->mem_bw_bps = col_i64(st, 4, 0);
		g->total_memory = col_i64(st, 5, 0);
		g->cc_major = (int)col_i64(st, 6, -1);
		g->cc_minor = (int)col_i64(st, 7, -1);
	}
	if (rc != SQLITE_DONE) {
		db_error(t, err, "TARGET_INFO_GPU");
		sqlite3_finalize(st);
		trace_gpu_release(g);
		return -1;
	}
	sqlite3_finalize(st);
	return picked;
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return v && *v ? xstrdup(v) : NULL;
}

int trace_processes(struct trace *t, struct trace_process **out, size_t *n, struct strbuf *err)
{
	static const char *const cols[] = {"!globalPid", "pid",	 "rank",     "localRank",
					   "worldSize",	 "host", "launcher", "rankSource"};
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!trace_has_table(t, "LLMPROF_PROCESSES"))
		return 0;
	if (select_cols(t, "LLMPROF_PROCESSES", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_process *p;

		ALLOC_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		p->gpid = sqlite3_column_int64(st, 0) & TRACE_GPID_MASK;
		p->pid = col_i64(st, 1, trace_pid(p->gpid));
		/* a rank out of int32 is damage: read as not recorded */
		p->rank = (int32_t)col_i64(st, 2, -1);
		p->local_rank = (int32_t)col_i64(st, 3, -1);
		p->world_size = (int32_t)col_i64(st, 4, -1);
		if (p->rank != col_i64(st, 2, -1) || p->rank < -1)
			p->rank = -1;
		p->host = col_strdup(st, 5);
		p->launcher = col_strdup(st, 6);
		p->source = col_strdup(st, 7);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trace_processes_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_error(t, err, "LLMPROF_PROCESSES");
	}
	return 0;
}

void trace_processes_free(struct trace_process *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].host);
		free(p[i].launcher);
		free(p[i].source);
	}
	free(p);
}

void trace_gpu_release(struct trace_gpu *g)
{
	free(g->name);
	memset(g, 0, sizeof(*g));
}

int trace_open(struct trace *t, const char *path, struct strbuf *err)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char **tables;
	size_t size = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	if (export_open(path, &db, &size, err))
		return -1;
	t->db = db;
	t->file_size = (int64_t)size;
	/* Keep the shared lock from the first read to the close: otherwise
	 * every statement locks, checks for a hot journal and unlocks again
	 * (fcntl, stat and a header read each time). */
	sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE", NULL, NULL, NULL);
	/* Reading the schema is what fails on a file that is not SQLite. */
	rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		if (ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep"))
			return error_set(err,
					 "'%s' is an nsys report, not an SQLite export; run "
					 "'nsys export --type sqlite %s' first",
					 path, path);
		return error_set(err, "'%s' is not a readable SQLite database: %s", path,
				 sqlite3_errmsg(db));
	}
	if (export_check_views(db, path, err))
		return -1;
	/* one pass over the schema, not a query per table */
	tables = query_names(t, TABLES_SQL, 0);
	t->has_strings = has_name(tables, "StringIds");
	t->has_kernels = has_name(tables, "CUPTI_ACTIVITY_KIND_KERNEL");
	t->has_memcpy = has_name(tables, "CUPTI_ACTIVITY_KIND_MEMCPY");
	t->has_memset = has_name(tables, "CUPTI_ACTIVITY_KIND_MEMSET");
	t->has_memcpy_enum = has_name(tables, "ENUM_CUDA_MEMCPY_OPER");
	t->has_calls = has_name(tables, "CUPTI_ACTIVITY_KIND_RUNTIME");
	t->has_nvtx = has_name(tables, "NVTX_EVENTS");
	if (!t->has_strings && !t->has_kernels && !t->has_calls && !t->has_nvtx &&
	    !has_name(tables, "META_DATA_EXPORT") && !has_name(tables, "EXPORT_META_DATA")) {
		free_names(tables);
		return error_set(
		    err, "'%s' is an SQLite file but not an nsys or llmprof trace export", path);
	}
	/* Producer: "NVIDIA Nsight Systems 2025.3.2.0", "llmprof 0.1.0", ... */
	for (int i = 0; i < 2 && !t->producer; i++) {
		const char *tbl = i ? "EXPORT_META_DATA" : "META_DATA_EXPORT";
		struct strbuf sql = STRBUF_INIT, prod = STRBUF_INIT;

		if (!has_name(tables, tbl))
			continue;
		strbuf_addf(&sql,
			    "SELECT value FROM %s WHERE name IN ('EXPORT_PRODUCT_NAME', "
			    "'EXPORT_PRODUCT_VERSION') ORDER BY name",
			    tbl);
		if (sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL) == SQLITE_OK)
			while (sqlite3_step(st) == SQLITE_ROW)
				if (sqlite3_column_text(st, 0))
					strbuf_addf(&prod, "%s%s", prod.len ? " " : "",
						    (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		st = NULL;
		if (prod.len)
			t->producer = strbuf_detach(&prod, NULL);
		strbuf_release(&prod);
		strbuf_release(&sql);
	}
	if (has_name(tables, "META_DATA_EXPORT"))
		read_tracer_meta(t);
	free_names(tables);
	return load_strings(t, err);
}

void trace_note_unreadable(struct trace *t, const char *table, const char *why)
{
	ALLOC_GROW(t->unreadable, t->nunreadable + 1, t->unreadable_alloc);
	t->unreadable[t->nunreadable].table = xstrdup(table);
	t->unreadable[t->nunreadable++].why = xstrdup(why);
}

const char *trace_unreadable(const struct trace *t, const char *table)
{
	for (size_t i = 0; i < t->nunreadable; i++)
		if (!strcmp(t->unreadable[i].table, table))
			return t->unreadable[i].why;
	return NULL;
}

int trace_load(struct trace *t, unsigned parts, struct strbuf *err)
{
	unsigned todo = parts & ~t->loaded;

	if ((todo & TRACE_KERNELS) && load_kernels(t, err))
		return -1;
	if ((todo & TRACE_MEMOPS) && load_memops(t, err))
		return -1;
	if ((todo & TRACE_CALLS) && load_calls(t, err))
		return -1;
	if ((todo & TRACE_NVTX) && (load_nvtx(t, err) || load_graph_nodes(t, err)))
		return -1;
	t->loaded |= todo;
	return 0;
}

void trace_close(struct trace *t)
{
	if (t->db)
		sqlite3_close(DB(t));
	free(t->path);
	free(t->producer);
	strtab_release(&t->strs);
	free(t->kernels);
	rectab_release(&t->ksigs);
	rectab_release(&t->csigs);
	free(t->memops);
	free(t->calls);
	free(t->ranges);
	free(t->graph_nodes);
	for (size_t i = 0; i < t->nunreadable; i++) {
		free(t->unreadable[i].table);
		free(t->unreadable[i].why);
	}
	free(t->unreadable);
	free(t->sid_dense);
	free(t->sid_sparse);
	memset(t, 0, sizeof(*t));
}
