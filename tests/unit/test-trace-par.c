/* test-trace-par.c: trace_load() with its readers on threads of their own
 * (trace/trace_par.h): the same trace as a part at a time, the error of
 * the first part that fails and only it, a failed part read again from
 * the start, and the readers' machinery itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "sqlite-fixture.h"
#include "trace/trace.h"
#include "trace/trace_par.h"

#define ALL (TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX)

/* An export of every part: kernels of two names, two of them with
 * timestamps past TRACE_TIME_MAX (clamped) and one that ends before it
 * starts; API calls of two names and threads; a copy; NVTX ranges with
 * their text in StringIds or inline. extra is SQL run after. */
static void make_export(char *path, const char *extra)
{
	sqlite_fixture(
	    path,
	    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
	    "INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'softmax'), (3, 'cudaLaunchKernel'),"
	    " (4, 'cudaMemcpy'), (5, 'decode');"
	    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, correlationId INT,"
	    " globalPid INT, demangledName INT);"
	    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 150, 1, 16777216, 1),"
	    " (160, 170, 2, 16777216, 2), (200, 190, 3, 16777216, 1),"
	    " (-9223372036854775808, 9223372036854775807, 4, 16777216, 2),"
	    " (300, 400, NULL, NULL, NULL);"
	    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT,"
	    " correlationId INT, nameId INT);"
	    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 95, 16777217, 1, 3),"
	    " (91, 96, 16777218, 2, 3), (92, 97, 16777217, 3, 3), (93, 99, 16777217, 5, 4),"
	    " (94, 9223372036854775807, 16777218, 4, 3);"
	    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT, correlationId INT,"
	    " globalPid INT, bytes INT, copyKind INT);"
	    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (180, 185, 5, 16777216, 64, 1);"
	    "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, textId INT,"
	    " globalTid INT, endGlobalTid INT, domainId INT);"
	    "INSERT INTO NVTX_EVENTS VALUES (80, 500, 59, NULL, 5, 16777217, NULL, 0),"
	    " (85, 120, 59, 'step', NULL, 16777218, NULL, 0), (86, NULL, 60, 'open', NULL,"
	    " 16777217, NULL, 0);",
	    extra);
}

static void same_rectab(const struct rectab *a, const struct rectab *b)
{
	assert_int_equal(a->nr, b->nr);
	assert_int_equal(a->size, b->size);
	assert_memory_equal(a->recs, b->recs, a->nr * a->size + !a->nr);
}

/* Every part at once (kernels and calls on threads of their own) loads the
 * trace a part at a time does (no thread), to the byte, counters too. */
static void test_same_as_serial(void **state)
{
	char path[] = "/tmp/llmprof-test-par-XXXXXX";
	struct trace a, b;
	struct strbuf err = STRBUF_INIT;
	static const unsigned parts[] = {TRACE_KERNELS, TRACE_MEMOPS, TRACE_CALLS, TRACE_NVTX};
	(void)state;

	make_export(path, NULL);
	assert_int_equal(trace_open(&a, path, &err), 0);
	assert_int_equal(trace_open(&b, path, &err), 0);
	assert_int_equal(trace_load(&a, ALL, &err), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(trace_load(&b, parts[i], &err), 0);
	assert_int_equal(a.loaded, ALL);
	assert_int_equal(b.loaded, ALL);
	assert_int_equal(a.nkernels, 5);
	assert_int_equal(a.nkernels, b.nkernels);
	assert_memory_equal(a.kernels, b.kernels, a.nkernels * sizeof(*a.kernels));
	same_rectab(&a.ksigs, &b.ksigs);
	assert_int_equal(a.ncalls, 5);
	assert_int_equal(a.ncalls, b.ncalls);
	assert_memory_equal(a.calls, b.calls, a.ncalls * sizeof(*a.calls));
	same_rectab(&a.csigs, &b.csigs);
	assert_int_equal(a.nmemops, 1);
	assert_int_equal(a.nranges, 3);
	assert_int_equal(a.nranges, b.nranges);
	assert_memory_equal(a.ranges, b.ranges, a.nranges * sizeof(*a.ranges));
	/* two kernel timestamps and one call's end clamped; one kernel inverted */
	assert_int_equal(a.clamped, 3);
	assert_int_equal(b.clamped, 3);
	assert_int_equal(a.kernels_bad_time, b.kernels_bad_time);
	assert_int_equal(a.kernels_bad_time, 1);
	assert_string_equal(strtab_str(&a.strs, trace_ksig(&a, &a.kernels[1])->name), "softmax");
	assert_string_equal(strtab_str(&a.strs, trace_csig(&a, &a.calls[3])->name), "cudaMemcpy");
	trace_close(&a);
	trace_close(&b);
	strbuf_release(&err);
	unlink(path);
}

/* A table a reader thread fails on (the API calls without their start
 * column): trace_load() says so once, in the words a part at a time says
 * it; the other parts are loaded; the failed one is empty, and read again
 * from the start by a later call (the same error, no rows twice). */
static void test_reader_error(void **state)
{
	char path[] = "/tmp/llmprof-test-par-XXXXXX";
	struct trace t;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	(void)state;

	make_export(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME RENAME COLUMN start TO begin;");
	strbuf_addf(&want,
		    "'%s': table CUPTI_ACTIVITY_KIND_RUNTIME has no column 'start' (not an nsys "
		    "export?)",
		    path);
	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, ALL, &err), -1);
	assert_string_equal(err.buf, want.buf);
	assert_int_equal(t.loaded, TRACE_KERNELS | TRACE_MEMOPS | TRACE_NVTX);
	assert_int_equal(t.nkernels, 5);
	assert_int_equal(t.nranges, 3);
	assert_int_equal(t.ncalls, 0);
	assert_int_equal(t.clamped, 2); /* the kernels' only */
	strbuf_reset(&err);
	assert_int_equal(trace_load(&t, TRACE_CALLS | TRACE_KERNELS, &err), -1);
	assert_string_equal(err.buf, want.buf);
	assert_int_equal(t.ncalls, 0);
	assert_int_equal(t.nkernels, 5);
	trace_close(&t);
	strbuf_release(&err);
	strbuf_release(&want);
	unlink(path);
}

/* Two parts fail, one on a reader thread (kernels), one on this thread
 * (NVTX): the error is the kernels', the first in trace_load()'s order,
 * whichever finished first; the NVTX part is left empty. */
static void test_first_error_wins(void **state)
{
	char path[] = "/tmp/llmprof-test-par-XXXXXX";
	struct trace t;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	(void)state;

	make_export(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN end TO finish;"
			  "ALTER TABLE NVTX_EVENTS RENAME COLUMN start TO begin;");
	strbuf_addf(&want,
		    "'%s': table CUPTI_ACTIVITY_KIND_KERNEL has no column 'end' (not an nsys "
		    "export?)",
		    path);
	for (int round = 0; round < 20; round++) {
		assert_int_equal(trace_open(&t, path, &err), 0);
		assert_int_equal(trace_load(&t, ALL, &err), -1);
		assert_string_equal(err.buf, want.buf);
		assert_int_equal(t.loaded, TRACE_MEMOPS | TRACE_CALLS);
		assert_int_equal(t.nkernels + t.nranges, 0);
		assert_int_equal(t.ncalls, 5);
		trace_close(&t);
		strbuf_reset(&err);
	}
	strbuf_release(&err);
	strbuf_release(&want);
	unlink(path);
}

/* trace_par_start() itself: which parts get a thread, and what
 * trace_par_finish() does with what each read or failed to. */
static int fake_load(struct trace *t, unsigned part, struct strbuf *err)
{
	if (part == TRACE_CALLS) {
		t->ncalls = 7; /* what a failed load leaves behind: dropped */
		strbuf_addstr(err, "calls failed");
		return -1;
	}
	t->kernels = calloc(3, sizeof(*t->kernels));
	t->nkernels = t->kernels_alloc = 3;
	t->clamped = 4;
	return 0;
}

static void test_par_machinery(void **state)
{
	char path[] = "/tmp/llmprof-test-par-XXXXXX";
	struct trace t;
	struct trace_par par;
	struct strbuf err = STRBUF_INIT, errs[4];
	(void)state;

	make_export(path, NULL);
	assert_int_equal(trace_open(&t, path, &err), 0);
	/* one part, or nothing else for this thread: no thread; the calls
	 * stay on this thread when the kernels are the only other part */
	assert_int_equal(trace_par_start(&par, &t, TRACE_KERNELS, fake_load), 0);
	assert_int_equal(trace_par_start(&par, &t, TRACE_NVTX, fake_load), 0);
	assert_int_equal(trace_par_start(&par, &t, TRACE_KERNELS | TRACE_CALLS, fake_load),
			 TRACE_KERNELS);
	for (int i = 0; i < 4; i++)
		strbuf_init(&errs[i], 0);
	trace_par_finish(&par, &t, errs);
	assert_int_equal(t.nkernels, 3);
	assert_int_equal(t.loaded, TRACE_KERNELS);
	assert_int_equal(t.clamped, 4);
	t.loaded = 0;
	assert_int_equal(trace_par_start(&par, &t, ALL, fake_load), TRACE_KERNELS | TRACE_CALLS);
	trace_par_finish(&par, &t, errs);
	assert_string_equal(errs[2].buf, "calls failed");
	assert_int_equal(errs[0].len + errs[1].len + errs[3].len, 0);
	assert_int_equal(t.loaded, TRACE_KERNELS);
	assert_int_equal(t.ncalls, 0);
	assert_int_equal(t.clamped, 8);
	for (int i = 0; i < 4; i++)
		strbuf_release(&errs[i]);
	/* the file replaced since trace_open(): no second connection to it,
	 * every part left to this thread */
	unlink(path);
	assert_int_equal(trace_par_start(&par, &t, ALL, fake_load), 0);
	trace_close(&t);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_as_serial),
	    cmocka_unit_test(test_reader_error),
	    cmocka_unit_test(test_first_error_wins),
	    cmocka_unit_test(test_par_machinery),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
