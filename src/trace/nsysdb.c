/* nsysdb.c: the nsys export schema, read once (nsysdb.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nsysdb.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

struct nsysdb_cols {
	char *table;
	char **names;
	size_t n;
};

/* The text values of column col of the rows sql returns into *out, *n of
 * them (none when sql fails). Values that are not TEXT, or hold a NUL, are
 * left out: they never equal a C string in SQL either. */
static void query_names(sqlite3 *db, const char *sql, int col, char ***out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, col);

			if (sqlite3_column_type(st, col) != SQLITE_TEXT || !v ||
			    strlen(v) != (size_t)sqlite3_column_bytes(st, col))
				continue;
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = xstrdup(v);
		}
	}
	sqlite3_finalize(st);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* name=? in SQL: binary, case-sensitive. */
static int has_name(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

int nsysdb_open(struct nsysdb *x, const char *path, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(x, 0, sizeof(*x));
	x->path = xstrdup(path);
	if (export_open(path, &x->db, &x->size, err))
		return -1;
	/* Keep the shared lock from the first read to the close: otherwise
	 * every statement locks, checks for a hot journal and unlocks again
	 * (fcntl, stat and a header read each time). */
	sqlite3_exec(x->db, "PRAGMA locking_mode=EXCLUSIVE", NULL, NULL, NULL);
	/* Reading the schema is what fails on a file that is not SQLite. */
	rc = sqlite3_prepare_v2(x->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
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
				 sqlite3_errmsg(x->db));
	}
	if (export_check_views(x->db, path, err))
		return -1;
	/* tables only: a VIEW is a query, and a recursive one never ends */
	query_names(x->db, "SELECT name FROM sqlite_master WHERE type='table'", 0, &x->tables,
		    &x->ntables);
	return 0;
}

void nsysdb_close(struct nsysdb *x)
{
	if (x->db)
		sqlite3_close(x->db);
	free(x->path);
	free_names(x->tables, x->ntables);
	for (size_t i = 0; i < x->ncols; i++) {
		free(x->cols[i].table);
		free_names(x->cols[i].names, x->cols[i].n);
	}
	free(x->cols);
	memset(x, 0, sizeof(*x));
}

int nsysdb_has_table(const struct nsysdb *x, const char *table)
{
	return has_name(x->tables, x->ntables, table);
}

int nsysdb_is_export(const struct nsysdb *x)
{
	static const char *const any[] = {
	    "StringIds",   "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
	    "NVTX_EVENTS", "META_DATA_EXPORT",		 "EXPORT_META_DATA"};

	for (size_t i = 0; i < ARRAY_SIZE(any); i++)
		if (nsysdb_has_table(x, any[i]))
			return 1;
	return 0;
}

/* The column names of table, from one pragma the first time it is asked
 * (a query per column was most of the time spent opening a small export);
 * none when the table does not exist. table is one of ours, never from the
 * file. */
static const struct nsysdb_cols *table_cols(struct nsysdb *x, const char *table)
{
	struct strbuf sql = STRBUF_INIT;
	struct nsysdb_cols *c;

	for (size_t i = 0; i < x->ncols; i++)
		if (!strcmp(x->cols[i].table, table))
			return &x->cols[i];
	ALLOC_GROW(x->cols, x->ncols + 1, x->cols_alloc);
	c = &x->cols[x->ncols++];
	c->table = xstrdup(table);
	if (nsysdb_has_table(x, table)) {
		strbuf_addf(&sql, "PRAGMA table_info(\"%s\")", table);
		query_names(x->db, sql.buf, 1, &c->names, &c->n);
		strbuf_release(&sql);
	} else {
		c->names = NULL;
		c->n = 0;
	}
	return c;
}

int nsysdb_has_column(struct nsysdb *x, const char *table, const char *column)
{
	const struct nsysdb_cols *c = table_cols(x, table);

	return has_name(c->names, c->n, column);
}

int nsysdb_error(struct nsysdb *x, struct strbuf *err, const char *what)
{
	if (export_interrupted(x->db))
		return error_set(err, "'%s': cannot read %s: interrupted by %s", x->path, what,
				 proc_signal_name(export_interrupted(x->db)));
	if (export_past_deadline(x->db))
		return error_set(err, "'%s': cannot read %s: still running after %d s", x->path,
				 what, SQLITE_OPEN_DEADLINE_S);
	return error_set(err, "'%s': cannot read %s: %s", x->path, what, sqlite3_errmsg(x->db));
}

int nsysdb_step_done(struct nsysdb *x, int rc, const char *table, struct strbuf *err)
{
	if (rc == SQLITE_DONE)
		return 0;
	return error_set(err, "'%s': table %s is truncated or corrupt: %s", x->path, table,
			 sqlite3_errmsg(x->db));
}

/* "SELECT cols FROM table" into st, each column inside wrap's "(...)"
 * when wrap is not NULL ("SELECT f(a, b) FROM table"). */
static int select_cols(struct nsysdb *x, const char *table, const char *const *cols, size_t n,
		       const char *wrap, sqlite3_stmt **st, struct strbuf *err)
{
	const struct nsysdb_cols *have = table_cols(x, table);
	struct strbuf sql = STRBUF_INIT;
	int ret = -1;

	*st = NULL;
	strbuf_addstr(&sql, "SELECT ");
	if (wrap)
		strbuf_addf(&sql, "%s(", wrap);
	for (size_t i = 0; i < n; i++) {
		const char *c = cols[i];
		int required = c[0] == '!';

		if (required)
			c++;
		if (i)
			strbuf_addstr(&sql, ", ");
		if (!strcmp(c, "rowid") || has_name(have->names, have->n, c)) {
			strbuf_addf(&sql, "\"%s\"", c);
		} else if (required) {
			error_set(err, "'%s': table %s has no column '%s' (not an nsys export?)",
				  x->path, table, c);
			goto cleanup;
		} else {
			strbuf_addstr(&sql, "NULL");
		}
	}
	strbuf_addf(&sql, "%s FROM \"%s\"", wrap ? ")" : "", table);
	if (sqlite3_prepare_v2(x->db, sql.buf, -1, st, NULL) != SQLITE_OK) {
		nsysdb_error(x, err, table);
		goto cleanup;
	}
	ret = 0;
cleanup:
	strbuf_release(&sql);
	return ret;
}

int nsysdb_select(struct nsysdb *x, const char *table, const char *const *cols, size_t n,
		  sqlite3_stmt **st, struct strbuf *err)
{
	return select_cols(x, table, cols, n, NULL, st, err);
}

struct scan {
	nsysdb_row_fn fn;
	void *ctx;
};

static void scan_step(sqlite3_context *c, int argc, sqlite3_value **v)
{
	struct scan *s = sqlite3_user_data(c);

	(void)argc;
	s->fn(s->ctx, v);
}

static void scan_final(sqlite3_context *c)
{
	sqlite3_result_null(c);
}

int nsysdb_scan(struct nsysdb *x, const char *table, const char *const *cols, size_t n,
		nsysdb_row_fn fn, void *ctx, struct strbuf *err)
{
	struct scan s = {fn, ctx};
	sqlite3_stmt *st = NULL;
	int rc, ret;

	/* the function lives on this connection for this statement only: its
	 * user data is s, on this stack */
	if (n < 1 || n > 100 ||
	    sqlite3_create_function(x->db, "llmprof_scan_row", (int)n, SQLITE_UTF8, &s, NULL,
				    scan_step, scan_final) != SQLITE_OK)
		return nsysdb_error(x, err, table);
	ret = select_cols(x, table, cols, n, "llmprof_scan_row", &st, err);
	if (!ret) {
		rc = sqlite3_step(st); /* every row, into fn; then the one result row */
		if (rc == SQLITE_ROW)
			rc = sqlite3_step(st);
		ret = nsysdb_step_done(x, rc, table, err);
	}
	sqlite3_finalize(st);
	sqlite3_create_function(x->db, "llmprof_scan_row", (int)n, SQLITE_UTF8, NULL, NULL, NULL,
				NULL);
	return ret;
}

size_t nsysdb_row_estimate(struct nsysdb *x, const char *table)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	/* The file decides max(rowid): a row takes 5 bytes of it at least
	 * (cell pointer, sizes, rowid, record header), so a larger estimate
	 * is a sparse or crafted rowid and would ask for gigabytes. */
	strbuf_addf(&sql, "SELECT max(rowid) FROM \"%s\"", table);
	if (sqlite3_prepare_v2(x->db, sql.buf, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	strbuf_release(&sql);
	if (x->size > 0 && (uint64_t)n > x->size / 5)
		n = (int64_t)(x->size / 5);
	return n > 0 && n < (1LL << 32) ? (size_t)n : 0;
}

/* ------------------------------------------------------------ strings */

int32_t nsysdb_string(const struct nsysdb_strings *s, sqlite3_stmt *st, int col)
{
	return nsysdb_string_id(s, nsysdb_col_i64(st, col, -1));
}

int32_t nsysdb_string_id(const struct nsysdb_strings *s, int64_t id)
{
	size_t lo = 0, hi;

	if (id < 0)
		return -1;
	if ((uint64_t)id < s->dense_nr)
		return s->dense[id];
	for (hi = s->sparse_nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->sparse[mid].id == id)
			return s->sparse[mid].str;
		if (s->sparse[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_sid(const void *pa, const void *pb)
{
	const struct nsysdb_sid *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* One StringIds row: id -> the interned value. */
static void add_string(struct nsysdb_strings *s, int64_t dense_max, int64_t id, int32_t str)
{
	if (id > dense_max) {
		struct nsysdb_sid *p;

		ALLOC_GROW(s->sparse, s->sparse_nr + 1, s->sparse_alloc);
		p = &s->sparse[s->sparse_nr];
		p->id = id;
		p->row = s->sparse_nr++;
		p->str = str;
		return;
	}
	if ((uint64_t)id >= s->dense_nr) {
		size_t old = s->dense_nr, n = (size_t)id + 1;

		if (n < old * 2)
			n = old * 2;
		if (n > (size_t)dense_max + 1)
			n = (size_t)dense_max + 1; /* sparse ids stay past it */
		s->dense = xrealloc(s->dense, st_mult(n, sizeof(*s->dense)));
		memset(s->dense + old, 0xff, (n - old) * sizeof(*s->dense));
		s->dense_nr = n;
	}
	s->dense[id] = str;
}

int nsysdb_strings_load(struct nsysdb *x, struct strtab *strs, struct nsysdb_strings *s,
			struct strbuf *err)
{
	static const char *const cols[] = {"!id", "!value"};
	/* ids are dense from 0 in every export, so no more than the file has
	 * rows; one far beyond (a crafted file) must not size the dense map:
	 * 2^28 of it is a gigabyte */
	int64_t dense_max = x->size > 0 ? (int64_t)(x->size / 5) : 1 << 28;
	sqlite3_stmt *st = NULL;
	int rc, ret;

	memset(s, 0, sizeof(*s));
	if (!nsysdb_has_table(x, "StringIds"))
		return 0;
	if (nsysdb_select(x, "StringIds", cols, 2, &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (id < 0 || id > (1 << 28) || !v)
			continue; /* a sparse or absurd id: treat as missing */
		add_string(s, dense_max, id,
			   strtab_intern(strs, v, (size_t)sqlite3_column_bytes(st, 1)));
	}
	ret = nsysdb_step_done(x, rc, "StringIds", err);
	sqlite3_finalize(st);
	if (s->sparse_nr) {
		size_t n = 0;

		/* by id, then row; of an id's rows the last wins, as in the
		 * dense map */
		qsort(s->sparse, s->sparse_nr, sizeof(*s->sparse), cmp_sid);
		for (size_t i = 0; i < s->sparse_nr; i++) {
			if (n && s->sparse[n - 1].id == s->sparse[i].id)
				n--;
			s->sparse[n++] = s->sparse[i];
		}
		s->sparse_nr = n;
	}
	return ret;
}

void nsysdb_strings_release(struct nsysdb_strings *s)
{
	free(s->dense);
	free(s->sparse);
	memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------- enums, metadata */

int nsysdb_enum(struct nsysdb *x, const char *table,
		void (*fn)(void *ctx, int64_t id, const char *label), void *ctx, struct strbuf *err)
{
	static const char *const cols[] = {"!id", "!label"};
	sqlite3_stmt *st = NULL;
	int rc, ret;

	if (!nsysdb_has_table(x, table))
		return 0;
	if (nsysdb_select(x, table, cols, 2, &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *label = (const char *)sqlite3_column_text(st, 1);

		if (label)
			fn(ctx, sqlite3_column_int64(st, 0), label);
	}
	ret = nsysdb_step_done(x, rc, table, err);
	sqlite3_finalize(st);
	return ret;
}

char *nsysdb_producer(struct nsysdb *x)
{
	static const char *const tables[] = {"META_DATA_EXPORT", "EXPORT_META_DATA"};
	char *producer = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(tables) && !producer; i++) {
		struct strbuf sql = STRBUF_INIT, prod = STRBUF_INIT;
		sqlite3_stmt *st = NULL;

		if (!nsysdb_has_table(x, tables[i]))
			continue;
		strbuf_addf(&sql,
			    "SELECT value FROM %s WHERE name IN ('EXPORT_PRODUCT_NAME', "
			    "'EXPORT_PRODUCT_VERSION') ORDER BY name",
			    tables[i]);
		if (sqlite3_prepare_v2(x->db, sql.buf, -1, &st, NULL) == SQLITE_OK)
			while (sqlite3_step(st) == SQLITE_ROW)
				if (sqlite3_column_text(st, 0))
					strbuf_addf(&prod, "%s%s", prod.len ? " " : "",
						    (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		if (prod.len)
			producer = strbuf_detach(&prod, NULL);
		strbuf_release(&prod);
		strbuf_release(&sql);
	}
	return producer;
}

int nsysdb_meta_i64(struct nsysdb *x, const char *name, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (!nsysdb_has_table(x, "META_DATA_EXPORT"))
		return 0;
	if (sqlite3_prepare_v2(x->db, "SELECT value FROM META_DATA_EXPORT WHERE name = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*v = sqlite3_column_int64(st, 0);
			found = 1;
		}
	}
	sqlite3_finalize(st);
	return found;
}

/* ------------------------------------------------------------ queries */

/* A query, the tables it needs, and what it becomes when an optional table
 * or column is missing (alt; NULL: the query is absent then). */
struct qdef {
	const char *need[2];
	const char *opt_table, *opt_col; /* opt_col: a column of need[0] */
	const char *sql, *alt;
};

#define NVTX_COLS "n.start, n.end, n.eventType, coalesce(n.text, s.value), n.globalTid, n.domainId"
#define NVTX_FROM " FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
#define NVTX_TYPES "WHERE n.eventType IN (34, 59, 60, 70, 71)"
#define NVTX_ALT "SELECT start, end, eventType, text, globalTid, domainId FROM NVTX_EVENTS "
#define NVTX_ALT_TYPES "WHERE eventType IN (34, 59, 60, 70, 71)"
#define GPU_COLS "g.start, g.end, g.deviceId, g.streamId, g.correlationId, g.globalPid, "

static const struct qdef queries[NSYSDB_NQUERIES] = {
    [NSYSDB_NVTX] = {{"NVTX_EVENTS"},
		     "StringIds",
		     NULL,
		     "SELECT " NVTX_COLS NVTX_FROM NVTX_TYPES,
		     NVTX_ALT NVTX_ALT_TYPES},
    [NSYSDB_NVTX_BY_THREAD] = {{"NVTX_EVENTS"},
			       "StringIds",
			       NULL,
			       "SELECT " NVTX_COLS NVTX_FROM NVTX_TYPES
			       " ORDER BY n.globalTid, n.start, n.end DESC",
			       NVTX_ALT NVTX_ALT_TYPES " ORDER BY globalTid, start, end DESC"},
    [NSYSDB_NVTX_DOMAINS] = {{"NVTX_EVENTS"},
			     NULL,
			     NULL,
			     "SELECT domainId, globalTid, start, text FROM NVTX_EVENTS "
			     "WHERE eventType = 75",
			     NULL},
    [NSYSDB_API_CALLS] = {{"CUPTI_ACTIVITY_KIND_RUNTIME"},
			  "StringIds",
			  NULL,
			  "SELECT r.start, r.end, r.globalTid, r.correlationId, s.value FROM "
			  "CUPTI_ACTIVITY_KIND_RUNTIME r LEFT JOIN StringIds s ON s.id = r.nameId",
			  "SELECT start, end, globalTid, correlationId, NULL FROM "
			  "CUPTI_ACTIVITY_KIND_RUNTIME"},
    [NSYSDB_KERNELS] = {{"CUPTI_ACTIVITY_KIND_KERNEL", "StringIds"},
			NULL,
			"graphNodeId",
			"SELECT " GPU_COLS "s.value, g.graphNodeId FROM "
			"CUPTI_ACTIVITY_KIND_KERNEL g LEFT JOIN StringIds s ON s.id = g.shortName",
			/* exports of older nsys versions have no graphNodeId */
			"SELECT " GPU_COLS "s.value, NULL FROM CUPTI_ACTIVITY_KIND_KERNEL g "
			"LEFT JOIN StringIds s ON s.id = g.shortName"},
    [NSYSDB_MEMCPY] =
	{{"CUPTI_ACTIVITY_KIND_MEMCPY"},
	 "ENUM_CUDA_MEMCPY_OPER",
	 NULL,
	 "SELECT " GPU_COLS "'[CUDA memcpy ' || coalesce(o.label, 'Unknown') || ']' "
	 "FROM CUPTI_ACTIVITY_KIND_MEMCPY g "
	 "LEFT JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = g.copyKind",
	 /* without the table (some older exports): the labels of
	  * CUPTI's CUpti_ActivityMemcpyKind, which the table lists */
	 "SELECT " GPU_COLS "'[CUDA memcpy ' || CASE g.copyKind WHEN 1 THEN "
	 "'Host-to-Device' WHEN 2 THEN 'Device-to-Host' WHEN 3 THEN 'Host-to-Array' "
	 "WHEN 4 THEN 'Array-to-Host' WHEN 5 THEN 'Array-to-Array' WHEN 6 THEN "
	 "'Array-to-Device' WHEN 7 THEN 'Device-to-Array' WHEN 8 THEN "
	 "'Device-to-Device' WHEN 9 THEN 'Host-to-Host' WHEN 10 THEN 'Peer-to-Peer' "
	 "WHEN 11 THEN 'Unified Host-to-Device' WHEN 12 THEN 'Unified Device-to-Host' "
	 "WHEN 13 THEN 'Unified Device-to-Device' ELSE 'Unknown' END || ']' "
	 "FROM CUPTI_ACTIVITY_KIND_MEMCPY g"},
    [NSYSDB_MEMSET] = {{"CUPTI_ACTIVITY_KIND_MEMSET"},
		       NULL,
		       NULL,
		       "SELECT " GPU_COLS "'[CUDA memset]' FROM CUPTI_ACTIVITY_KIND_MEMSET g",
		       NULL},
    [NSYSDB_PROCESSES] = {{"PROCESSES"},
			  "LLMPROF_PROCESSES",
			  NULL,
			  "SELECT p.pid, p.name, (SELECT r.rank FROM LLMPROF_PROCESSES r "
			  "WHERE r.pid = p.pid AND r.rank >= 0 LIMIT 1) FROM PROCESSES p",
			  "SELECT pid, name, NULL FROM PROCESSES"},
    [NSYSDB_THREAD_NAMES] = {{"ThreadNames", "StringIds"},
			     NULL,
			     NULL,
			     "SELECT t.globalTid, s.value FROM ThreadNames t "
			     "JOIN StringIds s ON s.id = t.nameId",
			     NULL},
    /* exports of nsys before 2021 name the device deviceId, not id */
    [NSYSDB_GPU_NAME] = {{"TARGET_INFO_GPU"},
			 NULL,
			 "id",
			 "SELECT name FROM TARGET_INFO_GPU WHERE id = ?1",
			 "SELECT name FROM TARGET_INFO_GPU WHERE deviceId = ?1"},
    [NSYSDB_COUNT_KERNELS] = {{"CUPTI_ACTIVITY_KIND_KERNEL"},
			      NULL,
			      NULL,
			      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL",
			      NULL},
    [NSYSDB_COUNT_GRAPH_KERNELS] = {{"CUPTI_ACTIVITY_KIND_KERNEL"},
				    NULL,
				    "graphNodeId",
				    "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
				    "WHERE graphNodeId IS NOT NULL AND graphNodeId != 0",
				    NULL},
    [NSYSDB_COUNT_GRAPH_TRACE] = {{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE"},
				  NULL,
				  NULL,
				  "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
				  NULL},
    [NSYSDB_COUNT_API_CALLS] = {{"CUPTI_ACTIVITY_KIND_RUNTIME"},
				NULL,
				NULL,
				"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
				NULL},
    [NSYSDB_COUNT_GRAPH_LAUNCHES] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds"},
				     NULL,
				     NULL,
				     "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
				     "StringIds s ON r.nameId = s.id WHERE s.value LIKE "
				     "'cudaGraphLaunch%' OR s.value LIKE 'cuGraphLaunch%'",
				     NULL},
};

int nsysdb_prepare(struct nsysdb *x, enum nsysdb_query q, sqlite3_stmt **st, struct strbuf *err)
{
	const struct qdef *d = &queries[q];
	const char *sql = d->sql;

	*st = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(d->need); i++)
		if (d->need[i] && !nsysdb_has_table(x, d->need[i]))
			return 0;
	if ((d->opt_table && !nsysdb_has_table(x, d->opt_table)) ||
	    (d->opt_col && !nsysdb_has_column(x, d->need[0], d->opt_col)))
		sql = d->alt;
	if (!sql)
		return 0;
	if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return nsysdb_error(x, err, d->need[0]);
	}
	return 1;
}

int64_t nsysdb_count(struct nsysdb *x, enum nsysdb_query q)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	int rc = nsysdb_prepare(x, q, &st, &err);

	if (!rc)
		v = 0;
	else if (rc > 0 && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	strbuf_release(&err);
	return v;
}
