/* test-nsysdb.c: trace/nsysdb.h, the one reader of the nsys export schema,
 * on the real exports of tests/data/nsys (nsys 2023.1 to 2026.1: tables
 * present and missing, old and new columns) and on small exports built
 * here for what none of them has (no StringIds, no graphNodeId, a view
 * where a table belongs). Each answer is checked against SQLite asked
 * directly, without the module. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/strbuf.h"
#include "core/util.h"
#include "sqlite-fixture.h"
#include "trace/nsysdb.h"
#include "trace/strtab.h"

static const char *const exports[] = {
    "trt-resnet-rtx3090-nsys2023.1.sqlite",  "vectoradd-um-a4500-nsys2026.1.sqlite",
    "nvtx-probe-h100-nsys2025.3.sqlite",     "nccl-ws1-h100-nsys2025.3-blobs.sqlite",
    "nokernels-rtx5060ti-nsys2025.1.sqlite",
};

static void fixture(struct strbuf *p, const char *name)
{
	strbuf_reset(p);
	strbuf_addf(p, "%s/tests/data/nsys/%s", LLMPROF_SOURCE_DIR, name);
}

/* The truth: SQLite asked directly. */
static sqlite3 *raw_open(const char *path)
{
	struct strbuf uri = STRBUF_INIT;
	sqlite3 *db = NULL;

	strbuf_addf(&uri, "file:%s?immutable=1", path);
	assert_int_equal(
	    sqlite3_open_v2(uri.buf, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), SQLITE_OK);
	strbuf_release(&uri);
	return db;
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int64_t rows_of(struct nsysdb *x, enum nsysdb_query q, int *ncols)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	int rc = nsysdb_prepare(x, q, &st, &err);

	if (rc < 0)
		fail_msg("query %d: %s", (int)q, err.buf);
	*ncols = rc ? sqlite3_column_count(st) : 0;
	if (rc && q == NSYSDB_GPU_NAME)
		sqlite3_bind_int64(st, 1, 0);
	while (rc && sqlite3_step(st) == SQLITE_ROW)
		n++;
	sqlite3_finalize(st);
	strbuf_release(&err);
	return rc ? n : -1; /* -1: the query is absent */
}

/* Tables, columns and every query on every real export: the same tables
 * and row counts SQLite gives. */
static void test_real_exports(void **state)
{
	static const char *const tables[] = {"StringIds",
					     "CUPTI_ACTIVITY_KIND_KERNEL",
					     "CUPTI_ACTIVITY_KIND_RUNTIME",
					     "NVTX_EVENTS",
					     "CUPTI_ACTIVITY_KIND_MEMCPY",
					     "CUPTI_ACTIVITY_KIND_MEMSET",
					     "PROCESSES",
					     "ThreadNames",
					     "TARGET_INFO_GPU",
					     "META_DATA_EXPORT",
					     "EXPORT_META_DATA",
					     "LLMPROF_PROCESSES"};
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT, sql = STRBUF_INIT;

	(void)state;
	for (size_t f = 0; f < ARRAY_SIZE(exports); f++) {
		struct nsysdb x;
		sqlite3 *raw;
		int nc;

		fixture(&p, exports[f]);
		assert_int_equal(nsysdb_open(&x, p.buf, &err), 0);
		raw = raw_open(p.buf);
		assert_true(nsysdb_is_export(&x));
		for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
			strbuf_reset(&sql);
			strbuf_addf(&sql,
				    "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
				    "name='%s'",
				    tables[t]);
			assert_int_equal(nsysdb_has_table(&x, tables[t]), raw_int(raw, sql.buf));
		}
		strbuf_reset(&sql);
		assert_int_equal(nsysdb_has_column(&x, "CUPTI_ACTIVITY_KIND_KERNEL", "graphNodeId"),
				 raw_int(raw,
					 "SELECT count(*) FROM pragma_table_info("
					 "'CUPTI_ACTIVITY_KIND_KERNEL') WHERE name='graphNodeId'"));
		assert_false(nsysdb_has_column(&x, "CUPTI_ACTIVITY_KIND_KERNEL", "noSuchColumn"));
		assert_false(nsysdb_has_column(&x, "NO_SUCH_TABLE", "start"));

		/* counts: the query's, or 0 without the table */
		assert_int_equal(
		    nsysdb_count(&x, NSYSDB_COUNT_KERNELS),
		    nsysdb_has_table(&x, "CUPTI_ACTIVITY_KIND_KERNEL")
			? raw_int(raw, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
			: 0);
		assert_int_equal(nsysdb_count(&x, NSYSDB_COUNT_API_CALLS),
				 raw_int(raw, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
		assert_int_equal(nsysdb_count(&x, NSYSDB_COUNT_GRAPH_TRACE), 0);

		/* each query: one row per row of its table */
		if (nsysdb_has_table(&x, "CUPTI_ACTIVITY_KIND_KERNEL")) {
			assert_int_equal(
			    rows_of(&x, NSYSDB_KERNELS, &nc),
			    raw_int(raw, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
			assert_int_equal(nc, 8);
		} else {
			assert_int_equal(rows_of(&x, NSYSDB_KERNELS, &nc), -1);
		}
		assert_int_equal(rows_of(&x, NSYSDB_API_CALLS, &nc),
				 raw_int(raw, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
		assert_int_equal(nc, 5);
		if (nsysdb_has_table(&x, "NVTX_EVENTS")) {
			int64_t want = raw_int(raw, "SELECT count(*) FROM NVTX_EVENTS WHERE "
						    "eventType IN (34, 59, 60, 70, 71)");

			assert_int_equal(rows_of(&x, NSYSDB_NVTX, &nc), want);
			assert_int_equal(nc, 6);
			assert_int_equal(rows_of(&x, NSYSDB_NVTX_BY_THREAD, &nc), want);
			assert_int_equal(
			    rows_of(&x, NSYSDB_NVTX_DOMAINS, &nc),
			    raw_int(raw, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75"));
		}
		if (nsysdb_has_table(&x, "CUPTI_ACTIVITY_KIND_MEMCPY"))
			assert_int_equal(
			    rows_of(&x, NSYSDB_MEMCPY, &nc),
			    raw_int(raw, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
		assert_int_equal(rows_of(&x, NSYSDB_PROCESSES, &nc),
				 raw_int(raw, "SELECT count(*) FROM PROCESSES"));
		assert_int_equal(nc, 3);
		assert_int_equal(rows_of(&x, NSYSDB_THREAD_NAMES, &nc),
				 raw_int(raw, "SELECT count(*) FROM ThreadNames t JOIN StringIds s "
					      "ON s.id = t.nameId"));
		assert_int_equal(rows_of(&x, NSYSDB_GPU_NAME, &nc),
				 raw_int(raw, "SELECT count(*) FROM TARGET_INFO_GPU WHERE id = 0"));
		sqlite3_close(raw);
		nsysdb_close(&x);
	}
	strbuf_release(&p);
	strbuf_release(&err);
	strbuf_release(&sql);
}

/* StringIds and the names it resolves, the memcpy enum, the producer. */
static void test_strings_enum_meta(void **state)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	struct strtab strs = STRTAB_INIT;
	struct nsysdb_strings ids;
	struct nsysdb x;
	sqlite3_stmt *st = NULL;
	sqlite3 *raw;
	char *prod;
	size_t n = 0;
	static const char *const cols[] = {"!demangledName", "shortName", "noSuchColumn"};

	(void)state;
	fixture(&p, "nvtx-probe-h100-nsys2025.3.sqlite");
	assert_int_equal(nsysdb_open(&x, p.buf, &err), 0);
	raw = raw_open(p.buf);
	assert_int_equal(nsysdb_strings_load(&x, &strs, &ids, &err), 0);
	/* a kernel's names through the string table equal SQLite's join */
	assert_int_equal(nsysdb_select(&x, "CUPTI_ACTIVITY_KIND_KERNEL", cols, 3, &st, &err), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct strbuf sql = STRBUF_INIT;
		sqlite3_stmt *r = NULL;

		strbuf_addf(&sql, "SELECT value FROM StringIds WHERE id = %lld",
			    (long long)sqlite3_column_int64(st, 0));
		assert_int_equal(sqlite3_prepare_v2(raw, sql.buf, -1, &r, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(r), SQLITE_ROW);
		assert_string_equal(strtab_str(&strs, nsysdb_string(&ids, st, 0)),
				    (const char *)sqlite3_column_text(r, 0));
		assert_int_equal(sqlite3_column_type(st, 2), SQLITE_NULL); /* optional: NULL */
		assert_int_equal(nsysdb_string(&ids, st, 2), -1);
		sqlite3_finalize(r);
		strbuf_release(&sql);
		n++;
	}
	sqlite3_finalize(st);
	assert_int_equal(n, 14);
	/* a required column the table lacks */
	{
		static const char *const bad[] = {"!start", "!noSuchColumn"};

		assert_int_equal(nsysdb_select(&x, "CUPTI_ACTIVITY_KIND_KERNEL", bad, 2, &st, &err),
				 -1);
		assert_non_null(strstr(err.buf, "table CUPTI_ACTIVITY_KIND_KERNEL has no column "
						"'noSuchColumn' (not an nsys export?)"));
		assert_null(st);
	}
	prod = nsysdb_producer(&x);
	assert_non_null(prod);
	assert_non_null(strstr(prod, "Nsight Systems"));
	assert_true(raw_int(raw, "SELECT count(*) FROM META_DATA_EXPORT WHERE name = "
				 "'EXPORT_PRODUCT_NAME'") == 1);
	free(prod);
	nsysdb_strings_release(&ids);
	strtab_release(&strs);
	sqlite3_close(raw);
	nsysdb_close(&x);

	/* nsys 2023.1 keeps its metadata in EXPORT_META_DATA */
	fixture(&p, "trt-resnet-rtx3090-nsys2023.1.sqlite");
	assert_int_equal(nsysdb_open(&x, p.buf, &err), 0);
	prod = nsysdb_producer(&x);
	assert_non_null(prod);
	free(prod);
	nsysdb_close(&x);
	strbuf_release(&p);
	strbuf_release(&err);
}

static void count_label(void *ctx, int64_t id, const char *label)
{
	if (id == 1)
		assert_string_equal(label, "Host-to-Device");
	(*(size_t *)ctx)++;
}

static void test_enum(void **state)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	struct nsysdb x;
	sqlite3 *raw;
	size_t n = 0;

	(void)state;
	fixture(&p, "vectoradd-um-a4500-nsys2026.1.sqlite");
	assert_int_equal(nsysdb_open(&x, p.buf, &err), 0);
	raw = raw_open(p.buf);
	assert_int_equal(nsysdb_enum(&x, "ENUM_CUDA_MEMCPY_OPER", count_label, &n, &err), 0);
	assert_int_equal(n, raw_int(raw, "SELECT count(*) FROM ENUM_CUDA_MEMCPY_OPER"));
	n = 0;
	assert_int_equal(nsysdb_enum(&x, "ENUM_NO_SUCH", count_label, &n, &err), 0);
	assert_int_equal(n, 0);
	sqlite3_close(raw);
	nsysdb_close(&x);
	strbuf_release(&p);
	strbuf_release(&err);
}

/* What no real export has: built here. */
static char *built(const char *sql)
{
	char *path = strdup("/tmp/llmprof-nsysdb-XXXXXX");

	sqlite_fixture(path, sql, NULL);
	return path;
}

static void test_built(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct nsysdb x;
	sqlite3_stmt *st = NULL;
	char *path;

	(void)state;
	/* NVTX without StringIds, kernels without graphNodeId (older nsys),
	 * a view where LLMPROF_PROCESSES would be */
	path = built("CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, "
		     "textId INT, globalTid INT, domainId INT);"
		     "INSERT INTO NVTX_EVENTS VALUES (1, 5, 59, 'step', NULL, 7, 0);"
		     "INSERT INTO NVTX_EVENTS VALUES (2, NULL, 34, 'mark', NULL, 7, 0);"
		     "INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, 'dom', NULL, 7, 3);"
		     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, "
		     "streamId INT, correlationId INT, globalPid INT, shortName INT);"
		     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 9, 1, 0);"
		     "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
		     "INSERT INTO StringIds VALUES (0, 'k');"
		     "CREATE TABLE PROCESSES (pid INT, name TEXT);"
		     "INSERT INTO PROCESSES VALUES (1, 'python');"
		     "CREATE VIEW LLMPROF_PROCESSES AS SELECT 1 AS pid, 0 AS rank;");
	assert_int_equal(nsysdb_open(&x, path, &err), 0);
	assert_false(nsysdb_has_table(&x, "LLMPROF_PROCESSES")); /* a view is no table */
	assert_int_equal(nsysdb_prepare(&x, NSYSDB_KERNELS, &st, &err), 1);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 6), "k");
	assert_int_equal(sqlite3_column_type(st, 7), SQLITE_NULL); /* no graphNodeId */
	sqlite3_finalize(st);
	assert_int_equal(nsysdb_count(&x, NSYSDB_COUNT_GRAPH_KERNELS), 0);
	assert_int_equal(nsysdb_prepare(&x, NSYSDB_PROCESSES, &st, &err), 1);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 2), SQLITE_NULL); /* the view is not read */
	sqlite3_finalize(st);
	assert_int_equal(nsysdb_prepare(&x, NSYSDB_MEMCPY, &st, &err), 0);
	assert_null(st);
	assert_int_equal(nsysdb_count(&x, NSYSDB_COUNT_API_CALLS), 0);
	nsysdb_close(&x);
	unlink(path);
	free(path);

	/* NVTX without StringIds: the text column alone */
	path = built("CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, "
		     "textId INT, globalTid INT, domainId INT);"
		     "INSERT INTO NVTX_EVENTS VALUES (1, 5, 59, 'step', NULL, 7, 0);"
		     "INSERT INTO NVTX_EVENTS VALUES (2, NULL, 34, 'mark', NULL, 7, 0);"
		     "INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, 'dom', NULL, 7, 3);");
	assert_int_equal(nsysdb_open(&x, path, &err), 0);
	assert_true(nsysdb_is_export(&x));
	assert_int_equal(nsysdb_prepare(&x, NSYSDB_NVTX, &st, &err), 1);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 3), "step");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE); /* the domain create is no range */
	sqlite3_finalize(st);
	nsysdb_close(&x);
	unlink(path);
	free(path);

	/* SQLite, but no export's table */
	path = built("CREATE TABLE t (a INT);");
	assert_int_equal(nsysdb_open(&x, path, &err), 0);
	assert_false(nsysdb_is_export(&x));
	nsysdb_close(&x);
	unlink(path);
	free(path);

	/* a view where a reader's table belongs */
	path = built("CREATE VIEW StringIds AS SELECT 1 AS id, 'x' AS value;");
	strbuf_reset(&err);
	assert_int_equal(nsysdb_open(&x, path, &err), -1);
	assert_non_null(strstr(err.buf, "'StringIds' is a view, not a table"));
	nsysdb_close(&x);
	unlink(path);
	free(path);
	strbuf_release(&err);
}

/* Not an export: one message each, whichever reader opens it. */
/* nsysdb_scan(): nsysdb_select()'s rows and columns (rowid, an absent
 * column as NULL, text), in its order, through the callback; none for an
 * empty table; a missing required column is nsysdb_select()'s error; the
 * function is gone after each scan, so the next one may take more columns. */
struct scanned {
	struct strbuf s;
	size_t n;
};

static void scan_row(void *ctx, sqlite3_value **v)
{
	struct scanned *r = ctx;
	const char *text = (const char *)sqlite3_value_text(v[2]);

	strbuf_addf(&r->s, "%lld,%lld,%s,%s;", (long long)sqlite3_value_int64(v[0]),
		    (long long)nsysdb_val_i64(v[1], -7), text ? text : "NULL",
		    sqlite3_value_type(v[3]) == SQLITE_NULL ? "null" : "set");
	r->n++;
}

static void scan_count(void *ctx, sqlite3_value **v)
{
	(void)v;
	((struct scanned *)ctx)->n++;
}

static void test_scan(void **state)
{
	static const char *const cols[] = {"rowid", "start", "text", "nope"};
	static const char *const need[] = {"!nope"};
	struct scanned r = {STRBUF_INIT, 0};
	struct strbuf err = STRBUF_INIT;
	struct nsysdb x;
	char *path;

	(void)state;
	path = built("CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT);"
		     "INSERT INTO NVTX_EVENTS VALUES (5, 6, 59, 'a'), (NULL, 1, 59, NULL),"
		     " (-3, 4, 60, 'b');"
		     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT);");
	assert_int_equal(nsysdb_open(&x, path, &err), 0);
	assert_int_equal(nsysdb_scan(&x, "NVTX_EVENTS", cols, 4, scan_row, &r, &err), 0);
	assert_string_equal(r.s.buf, "1,5,a,null;2,-7,NULL,null;3,-3,b,null;");
	assert_int_equal(r.n, 3);
	r.n = 0;
	assert_int_equal(
	    nsysdb_scan(&x, "CUPTI_ACTIVITY_KIND_KERNEL", cols, 2, scan_count, &r, &err), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(nsysdb_scan(&x, "NVTX_EVENTS", cols, 1, scan_count, &r, &err), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(nsysdb_scan(&x, "NVTX_EVENTS", need, 1, scan_count, &r, &err), -1);
	assert_non_null(strstr(err.buf, "table NVTX_EVENTS has no column 'nope'"));
	nsysdb_close(&x);
	unlink(path);
	free(path);
	strbuf_release(&r.s);
	strbuf_release(&err);
}

static void test_not_exports(void **state)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	struct nsysdb x;

	(void)state;
	strbuf_addf(&p, "%s/tests/data/nsys/nvtx-cpu-prog.c", LLMPROF_SOURCE_DIR);
	assert_int_equal(nsysdb_open(&x, p.buf, &err), -1);
	assert_non_null(
	    strstr(err.buf, "is not a readable SQLite database: file is not a database"));
	nsysdb_close(&x);
	fixture(&p, "nvtx-cpu-gate-stop.nsys-rep");
	strbuf_reset(&err);
	assert_int_equal(nsysdb_open(&x, p.buf, &err), -1);
	assert_non_null(strstr(err.buf, "is an nsys report, not an SQLite export; run 'nsys "
					"export --type sqlite"));
	nsysdb_close(&x);
	fixture(&p, "no-such-file.sqlite");
	strbuf_reset(&err);
	assert_int_equal(nsysdb_open(&x, p.buf, &err), -1);
	assert_non_null(strstr(err.buf, "no-such-file.sqlite"));
	nsysdb_close(&x);
	strbuf_release(&p);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_exports), cmocka_unit_test(test_strings_enum_meta),
	    cmocka_unit_test(test_enum),	 cmocka_unit_test(test_built),
	    cmocka_unit_test(test_not_exports),	 cmocka_unit_test(test_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
