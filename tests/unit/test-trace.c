/* test-trace.c: the builtin tracer's log reader, record -> row functions,
 * NVTX filter syntax and the Perfetto size cap, with records built here. */
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

#include "core/fsutil.h"
#include "sqlite-fixture.h"
#include "support/tlogsynth.h"
#include "trace/nvtxlist.h"
#include "trace/perfetto.h"
#include "trace/tosqlite.h"
#include "core/util.h"
#include "trace/trace.h"
#include "trace/tracelog.h"

static void test_ids_and_enums(void **state)
{
	(void)state;
	/* From the nsys 2025.3 H100 fixture: pid 603 -> 281485093371904. */
	assert_int_equal(tosqlite_global_pid(603), 281485093371904LL);
	assert_int_equal(tosqlite_global_tid(603, 603), 281485093372507LL);
	assert_int_equal(tosqlite_mem_kind(0), 7);    /* CUPTI unknown */
	assert_int_equal(tosqlite_mem_kind(1), 0);    /* pageable */
	assert_int_equal(tosqlite_mem_kind(3), 2);    /* device */
	assert_int_equal(tosqlite_mem_kind(7), 6);    /* managed static */
	assert_int_equal(tosqlite_launch_type(0), 1); /* regular */
	assert_int_equal(tosqlite_launch_type(3), 0);
}

static void test_kernel_row(void **state)
{
	struct tlog_kernel k;
	struct kernel_row r;
	struct tosqlite_ctx c = {1000, 5, 77};
	int64_t names[3] = {10, 11, 12};
	(void)state;
	memset(&k, 0, sizeof(k));
	k.start = 5000;
	k.end = 7000;
	k.device = 1;
	k.context = 2;
	k.stream = 13;
	k.corr = 9;
	k.grid[0] = 4, k.grid[1] = 5, k.grid[2] = 6;
	k.block[0] = 32, k.block[1] = 2, k.block[2] = 1;
	k.registers = 64;
	k.static_smem = 48;
	k.dynamic_smem = 1024;
	k.grid_id = 321;
	tosqlite_kernel_row(&r, &c, &k, names, 8);
	assert_int_equal(r.start, 5000 + 5 - 1000);
	assert_int_equal(r.end, 7000 + 5 - 1000);
	assert_int_equal(r.correlationId, 8); /* the aliased id, not k.corr */
	assert_int_equal(r.globalPid, tosqlite_global_pid(77));
	assert_int_equal(r.demangledName, 10);
	assert_int_equal(r.shortName, 11);
	assert_int_equal(r.mangledName, 12);
	assert_int_equal(r.gridY, 5);
	assert_int_equal(r.blockX, 32);
	assert_int_equal(r.registersPerThread, 64);
	assert_int_equal(r.dynamicSharedMemory, 1024);
	assert_int_equal(r.gridId, 321);
	assert_int_equal(r.launchType, 1);
	assert_true(r.graphNodeId_null);
	k.graph_node_id = 99;
	tosqlite_kernel_row(&r, &c, &k, names, 8);
	assert_false(r.graphNodeId_null);
	assert_int_equal(r.graphNodeId, 99);
}

static void test_copy_rows(void **state)
{
	struct tlog_memcpy m;
	struct tlog_memset s;
	struct memcpy_row mr;
	struct memset_row sr;
	struct tosqlite_ctx c = {100, 0, 5};
	(void)state;
	memset(&m, 0, sizeof(m));
	m.start = 200, m.end = 300, m.bytes = 4096, m.copy_kind = 2, m.src_kind = 3, m.dst_kind = 2;
	tosqlite_memcpy_row(&mr, &c, &m, 4);
	assert_int_equal(mr.start, 100);
	assert_int_equal(mr.copyKind, 2);
	assert_int_equal(mr.srcKind, 2); /* device */
	assert_int_equal(mr.dstKind, 1); /* pinned */
	assert_int_equal(mr.bytes, 4096);
	memset(&s, 0, sizeof(s));
	s.start = 150, s.end = 160, s.value = 7, s.bytes = 8, s.mem_kind = 5;
	tosqlite_memset_row(&sr, &c, &s, 3);
	assert_int_equal(sr.value, 7);
	assert_int_equal(sr.memKind, 4); /* managed */
	assert_int_equal(sr.correlationId, 3);
}

static void test_runtime_row(void **state)
{
	struct tlog_api a;
	struct runtime_row r;
	struct tosqlite_ctx c = {10, 999, 5};
	(void)state;
	memset(&a, 0, sizeof(a));
	a.h.aux = TLOG_API_DRIVER;
	a.start = 20, a.end = 30, a.corr = 6, a.ret = 1;
	tosqlite_runtime_row(&r, &c, &a, 6, 44);
	assert_int_equal(r.start, 10); /* CPU clock: no GPU shift */
	assert_int_equal(r.eventClass, 1);
	assert_int_equal(r.globalTid, tosqlite_global_tid(5, 6));
	assert_int_equal(r.nameId, 44);
	assert_int_equal(r.returnValue, 1);
}

static void test_runtime_row_activity(void **state)
{
	struct tlog_api a;
	struct runtime_row r;
	struct tosqlite_ctx c = {10, 999, 5};
	(void)state;
	memset(&a, 0, sizeof(a));
	a.h.type = TLOG_API_ACT;
	a.h.aux = TLOG_API_RUNTIME;
	a.start = 20, a.end = 30, a.corr = 6, a.tid = 4250;
	tosqlite_runtime_row(&r, &c, &a, 0, 44);
	assert_int_equal(r.start, 20 + 999 - 10); /* CUPTI clock: shifted */
	assert_int_equal(r.end, 30 + 999 - 10);
	assert_int_equal(r.eventClass, 0);
	/* the record's thread, not the GPU buffer chunk's */
	assert_int_equal(r.globalTid, tosqlite_global_tid(5, 4250));
	assert_int_equal(r.correlationId, 6);
}

static void test_api_nest(void **state)
{
	/* tid, start, end, corr, driver */
	struct api_span v[] = {
	    {2100, 2200, 501, 11, 1, 99}, /* inside runtime 10 (arrives first) */
	    {2000, 2500, 501, 10, 0, 99},
	    {2150, 2180, 502, 12, 1, 99}, /* same time, other thread: direct */
	    {3000, 3100, 501, 14, 1, 99}, /* after runtime 10 ended: direct */
	    {4000, 4100, 501, 15, 0, 99},
	    {4000, 4100, 501, 16, 1, 99}, /* same start and end: nested */
	    {4050, 4200, 501, 17, 1, 99}, /* runs past its end: not nested */
	    {1000, 1100, 503, 18, 1, 99}, /* thread without runtime calls */
	};
	uint32_t parent_of[20] = {0};
	size_t i;
	(void)state;
	tosqlite_api_nest(v, ARRAY_SIZE(v));
	for (i = 1; i < ARRAY_SIZE(v); i++)
		assert_true(v[i - 1].tid < v[i].tid ||
			    (v[i - 1].tid == v[i].tid && v[i - 1].start <= v[i].start));
	for (i = 0; i < ARRAY_SIZE(v); i++)
		parent_of[v[i].corr] = v[i].parent;
	assert_int_equal(parent_of[11], 10);
	assert_int_equal(parent_of[10], 0);
	assert_int_equal(parent_of[12], 0);
	assert_int_equal(parent_of[14], 0);
	assert_int_equal(parent_of[15], 0);
	assert_int_equal(parent_of[16], 15);
	assert_int_equal(parent_of[17], 0);
	assert_int_equal(parent_of[18], 0);
	tosqlite_api_nest(v, 0); /* empty input is fine */
}

static void test_nvtx_rows(void **state)
{
	unsigned char buf[sizeof(struct tlog_nvtx_event) + 8];
	struct tlog_nvtx_event *e = (void *)buf;
	struct nvtx_row r;
	struct tosqlite_ctx c = {0, 0, 1};
	(void)state;
	memset(buf, 0, sizeof(buf));
	e->h.type = TLOG_NVTX_START;
	e->h.size = sizeof(buf);
	e->h.aux = TLOG_MSG_TEXT;
	e->ts = 50;
	e->id = 3;
	e->domain = 2;
	e->len = 4;
	memcpy(buf + sizeof(*e), "abcd", 4);
	tosqlite_nvtx_range_row(&r, &c, e, 7, 90, 8, -1);
	assert_int_equal(r.eventType, 60);
	assert_int_equal(r.rangeId, 3);
	assert_true(r.has_endGlobalTid); /* ended on thread 8 */
	assert_int_equal(r.endGlobalTid, tosqlite_global_tid(1, 8));
	assert_int_equal(r.text.len, 4);
	assert_false(r.has_textId);
	tosqlite_nvtx_range_row(&r, &c, e, 7, -1, 0, -1);
	assert_false(r.has_end); /* open range */
	e->h.type = TLOG_NVTX_PUSH;
	e->h.aux = TLOG_MSG_REGISTERED;
	tosqlite_nvtx_range_row(&r, &c, e, 7, 90, 7, 12);
	assert_int_equal(r.eventType, 59);
	assert_false(r.has_rangeId);
	assert_false(r.has_endGlobalTid);
	assert_true(r.has_textId);
	assert_int_equal(r.textId, 12);
	assert_false(r.has_text);
}

/* A log with two chunks: header, chunk(tid 5: mark), chunk(tid 6: pop). */
static size_t make_log(unsigned char *b)
{
	struct tlog_file_header h;
	struct tlog_chunk_header ch;
	struct tlog_nvtx_event ev;
	struct tlog_nvtx_end en;
	size_t n = 0;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = 9;
	memcpy(b, &h, sizeof(h));
	n = sizeof(h);
	memset(&ev, 0, sizeof(ev));
	ev.h.type = TLOG_NVTX_MARK;
	ev.h.size = sizeof(ev);
	ch.magic = TLOG_CHUNK_MAGIC, ch.size = sizeof(ev), ch.tid = 5, ch.seq = 0;
	memcpy(b + n, &ch, sizeof(ch));
	n += sizeof(ch);
	memcpy(b + n, &ev, sizeof(ev));
	n += sizeof(ev);
	memset(&en, 0, sizeof(en));
	en.h.type = TLOG_NVTX_POP;
	en.h.size = sizeof(en);
	ch.size = sizeof(en), ch.tid = 6;
	memcpy(b + n, &ch, sizeof(ch));
	n += sizeof(ch);
	memcpy(b + n, &en, sizeof(en));
	return n + sizeof(en);
}

static void test_reader(void **state)
{
	unsigned char b[1024];
	size_t n = make_log(b), cut;
	struct tlog_reader r;
	struct tlog_item it;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(tlog_reader_init(&r, b, n, "x.bin", &err), 0);
	assert_int_equal(tlog_next(&r, &it), 1);
	assert_int_equal(it.rec->type, TLOG_NVTX_MARK);
	assert_int_equal(it.tid, 5);
	assert_int_equal(tlog_next(&r, &it), 1);
	assert_int_equal(it.rec->type, TLOG_NVTX_POP);
	assert_int_equal(it.tid, 6);
	assert_int_equal(tlog_next(&r, &it), 0);
	assert_int_equal(r.n_problems, 0);
	tlog_reader_release(&r);

	/* Every truncation point: never crashes, keeps whole records, and
	 * reports a problem unless the cut falls between chunks. */
	for (cut = sizeof(struct tlog_file_header); cut < n; cut++) {
		int recs = 0;
		assert_int_equal(tlog_reader_init(&r, b, cut, "x.bin", &err), 0);
		while (tlog_next(&r, &it))
			recs++;
		/* Cuts between chunks leave a valid (shorter) log. */
		if (cut == sizeof(struct tlog_file_header) ||
		    cut == sizeof(struct tlog_file_header) + 16 + sizeof(struct tlog_nvtx_event))
			assert_int_equal(r.n_problems, 0);
		else if (r.n_problems < 1)
			fail_msg("cut at %zu: no problem reported", cut);
		assert_true(recs <= 2);
		tlog_reader_release(&r);
	}
	/* Corrupt second chunk magic: first record kept, problem names offset. */
	b[sizeof(struct tlog_file_header) + 16 + sizeof(struct tlog_nvtx_event)] ^= 0xff;
	assert_int_equal(tlog_reader_init(&r, b, n, "x.bin", &err), 0);
	assert_int_equal(tlog_next(&r, &it), 1);
	assert_int_equal(tlog_next(&r, &it), 0);
	assert_non_null(strstr(r.problems.buf, "x.bin: offset 144: corrupt chunk header"));
	tlog_reader_release(&r);
	/* Not a log at all, and a newer version. */
	assert_int_equal(tlog_reader_init(&r, "hello", 5, "y.bin", &err), -1);
	assert_non_null(strstr(err.buf, "y.bin: not a llmprof trace log"));
	tlog_reader_release(&r);
	strbuf_reset(&err);
	b[8] = 99;
	assert_int_equal(tlog_reader_init(&r, b, n, "z.bin", &err), -1);
	assert_non_null(strstr(err.buf, "z.bin: trace log version 99"));
	tlog_reader_release(&r);
	strbuf_release(&err);
}

/* Reads path with the file reader and data[0..len) with the memory reader:
 * the same records (offset, thread, bytes), problems and end, twice (the
 * second time after tlog_rewind(), as the converter's pass 2). */
static void same_records(const char *path, const unsigned char *data, size_t len)
{
	struct tlog_reader f, m;
	struct strbuf err = STRBUF_INIT;
	uint64_t n = 0;

	assert_int_equal(tlog_reader_init(&m, data, len, "x.bin", &err), 0);
	assert_int_equal(tlog_reader_open(&f, path, "x.bin", &err), 0);
	for (int pass = 0; pass < 2; pass++) {
		struct tlog_item a, b;
		int ra, rb;

		do {
			ra = tlog_next(&m, &a);
			rb = tlog_next(&f, &b);
			assert_int_equal(ra, rb);
			if (!ra)
				break;
			assert_int_equal(a.offset, b.offset);
			assert_int_equal(a.tid, b.tid);
			assert_int_equal(a.rec->size, b.rec->size);
			assert_memory_equal(a.rec, b.rec, a.rec->size);
			n++;
		} while (1);
		assert_int_equal(m.n_problems, f.n_problems);
		assert_string_equal(m.problems.buf, f.problems.buf);
		tlog_rewind(&m);
		tlog_rewind(&f);
	}
	assert_true(n > 0);
	tlog_reader_release(&m);
	tlog_reader_release(&f);
	strbuf_release(&err);
}

/* The file reader's window (TLOG_WINDOW bytes) hands out what the whole
 * log in memory gives: a 17 MB log, cut around the window's edges and
 * elsewhere, and damaged. */
static void test_reader_window(void **state)
{
	char dir[] = "/tmp/llmprof-test-window-XXXXXX";
	struct strbuf path = STRBUF_INIT, cut = STRBUF_INIT, data = STRBUF_INIT, err = STRBUF_INIT;
	const size_t w = TLOG_WINDOW,
		     cuts[] = {w - 8, w, w + 8, 2 * w + 4096, 3 * w - 3, 4 * w + 1, 10000000 + 3};
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(tlogsynth_write(dir, 4242, 1000000, 1000, 100, 1, &err), 0);
	strbuf_addf(&path, "%s/trace-4242.bin", dir);
	assert_int_equal(read_regular_file(path.buf, SIZE_MAX, &data, &err), 0);
	assert_true(data.len > 4 * w + 1);
	same_records(path.buf, (const unsigned char *)data.buf, data.len);
	strbuf_addf(&cut, "%s/cut.bin", dir);
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
		assert_int_equal(write_file_atomic(cut.buf, data.buf, cuts[i], &err), 0);
		same_records(cut.buf, (const unsigned char *)data.buf, cuts[i]);
	}
	for (size_t at = w - 64; at < data.len; at += w + 4104) /* damage near the edges */
		data.buf[at] ^= 0x5a;
	assert_int_equal(write_file_atomic(cut.buf, data.buf, data.len, &err), 0);
	same_records(cut.buf, (const unsigned char *)data.buf, data.len);
	unlink(cut.buf);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&path);
	strbuf_release(&cut);
	strbuf_release(&data);
	strbuf_release(&err);
}

/* Timestamps beyond +-TRACE_TIME_MAX (a damaged export) load clamped, so
 * the difference of any two fits in int64; others load as they are. */
static void test_load_clamps_timestamps(void **state)
{
	char path[] = "/tmp/llmprof-test-clamp-XXXXXX";
	struct trace t;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	sqlite_fixture(
	    path,
	    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, correlationId INT);"
	    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
	    " (-9223372036854775808, 9223372036854775807, 1), (5, 7, 2);"
	    "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT);"
	    "INSERT INTO NVTX_EVENTS VALUES (-9000000000000000000, 9000000000000000000, 59, "
	    "'r');",
	    NULL);
	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, TRACE_KERNELS | TRACE_NVTX, &err), 0);
	assert_int_equal(t.nkernels, 2);
	assert_true(t.kernels[0].start == -TRACE_TIME_MAX && t.kernels[0].end == TRACE_TIME_MAX);
	assert_true(t.kernels[1].start == 5 && t.kernels[1].end == 7);
	assert_int_equal(t.nranges, 1);
	assert_true(t.ranges[0].start == -TRACE_TIME_MAX && t.ranges[0].end == TRACE_TIME_MAX);
	assert_true(t.nvtx_max_all == TRACE_TIME_MAX);
	trace_close(&t);
	strbuf_release(&err);
	unlink(path);
}

/* The NVTX domain-name rule (trace/nvtxdomain.h) is the same in the three
 * readers of NVTX_EVENTS: the create event of the range's process (PID bits
 * of globalTid, whatever the thread or VM bits), the earliest when the
 * domain was created twice, none when it was never created. */
static void test_nvtx_domain_rule(void **state)
{
	char path[] = "/tmp/llmprof-test-domain-XXXXXX";
	struct trace t;
	struct nvtx_list l;
	struct strbuf err = STRBUF_INIT, json = STRBUF_INIT, got = STRBUF_INIT;
	const char *want[] = {"early:r", "other:q", "z", "vm:v"};
	(void)state;

	/* pid 1 threads 11, 12; pid 2 thread 21; pid 1 thread 13 with VM bits */
	sqlite_fixture(path,
		       "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
		       "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT,"
		       " textId INT, globalTid INT, endGlobalTid INT, domainId INT);"
		       "INSERT INTO NVTX_EVENTS VALUES"
		       " (5, NULL, 75, 'late', NULL, 16777227, NULL, 1),"
		       " (2, NULL, 75, 'early', NULL, 16777228, NULL, 1),"
		       " (0, NULL, 75, 'other', NULL, 33554453, NULL, 1),"
		       " (1, NULL, 75, 'vm', NULL, 281474993487885, NULL, 3),"
		       " (10, 20, 59, 'r', NULL, 16777227, NULL, 1),"
		       " (11, 12, 59, 'q', NULL, 33554453, NULL, 1),"
		       " (13, 14, 59, 'z', NULL, 16777227, NULL, 2),"
		       " (15, 16, 59, 'v', NULL, 16777227, NULL, 3);",
		       NULL);

	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, TRACE_NVTX, &err), 0);
	assert_int_equal(t.nranges, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(strtab_str(&t.strs, t.ranges[i].name), want[i]);
	trace_close(&t);

	nvtx_list_init(&l);
	assert_int_equal(nvtx_list_load(&l, path, &err), 0);
	assert_int_equal(l.n, 4);
	for (size_t i = 0; i < 4; i++) {
		strbuf_reset(&got);
		if (*l.v[i].domain)
			strbuf_addf(&got, "%s:", l.v[i].domain);
		strbuf_addstr(&got, l.v[i].name);
		assert_string_equal(got.buf, want[i]);
		assert_int_equal(l.v[i].count, 1);
	}
	nvtx_list_release(&l);

	strbuf_addf(&json, "%s.json", path);
	assert_int_equal(perfetto_write(path, NULL, json.buf, 0, NULL, NULL, &err), 0);
	strbuf_reset(&got);
	assert_int_equal(strbuf_read_file(&got, json.buf), 0);
	for (size_t i = 0; i < 4; i++) {
		struct strbuf needle = STRBUF_INIT;

		strbuf_addf(&needle, "\"name\":\"%s\"", want[i]);
		assert_non_null(strstr(got.buf, needle.buf));
		strbuf_release(&needle);
	}
	assert_null(strstr(got.buf, "late:r"));
	unlink(json.buf);
	unlink(path);
	strbuf_release(&json);
	strbuf_release(&got);
	strbuf_release(&err);
}

/* trace.json from an export whose NVTX_EVENTS pages are damaged: written
 * from the other tables, without NVTX events (fuzz regression file). */
static void test_perfetto_damaged_nvtx(void **state)
{
	char json[] = "/tmp/llmprof-test-damaged-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	uint64_t events = 0;
	int fd = mkstemp(json);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(perfetto_write(LLMPROF_SOURCE_DIR
					"/tests/fuzz/regressions/sqlite/strtab-embedded-nul.sqlite",
					NULL, json, 0, &events, NULL, &err),
			 0);
	assert_int_equal(events, 4);
	unlink(json);
	strbuf_release(&err);
}

static void test_nvtx_filters(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	nvtx_filter_nsys(&sb, "LLM", "decode_step");
	assert_string_equal(sb.buf, "decode_step@LLM");
	strbuf_reset(&sb);
	nvtx_filter_nsys(&sb, "", "prefill");
	assert_string_equal(sb.buf, "prefill");
	strbuf_reset(&sb);
	nvtx_filter_nsys(&sb, "D", "a@b");
	assert_string_equal(sb.buf, "a\\@b@D");
	strbuf_reset(&sb);
	nvtx_filter_ncu(&sb, "LLM", "decode_step", NVTX_STYLE_PUSHPOP);
	assert_string_equal(sb.buf, "LLM@decode_step/");
	strbuf_reset(&sb);
	nvtx_filter_ncu(&sb, "", "prefill", NVTX_STYLE_PUSHPOP);
	assert_string_equal(sb.buf, "prefill/");
	strbuf_reset(&sb);
	nvtx_filter_ncu(&sb, "TensorRT", "layer", NVTX_STYLE_STARTEND);
	assert_string_equal(sb.buf, "TensorRT@layer");
	strbuf_reset(&sb);
	nvtx_filter_ncu(&sb, "", "attn.qkv/x*[1]+a,b@c", NVTX_STYLE_PUSHPOP);
	assert_string_equal(sb.buf, "attn.qkv\\/x\\*\\[1\\]\\+a\\,b\\@c/");
	strbuf_release(&sb);
}

static void test_perfetto_threshold(void **state)
{
	int64_t d[] = {5, 1, 9, 3, 7};
	int64_t e[] = {5, 1, 9};
	(void)state;
	assert_int_equal(perfetto_threshold(e, 3, 3), 0); /* all fit */
	/* keep the 2 longest (9, 7): threshold 7 */
	assert_int_equal(perfetto_threshold(d, 5, 2), 7);
}

/* A log with the tracer's own problems: CUPTI busy, records dropped. */
static void test_convert_diagnostics(void **state)
{
	unsigned char b[512];
	struct tlog_file_header h;
	struct tlog_chunk_header ch = {TLOG_CHUNK_MAGIC, 0, 77, 0};
	struct tlog_diag d;
	struct tlog_dropped dr;
	static const char msg[] = "cuptiSubscribe: busy (another CUPTI client)";
	char dir[] = "/tmp/llmprof-test-trace-XXXXXX";
	struct strbuf path = STRBUF_INIT, db = STRBUF_INIT, err = STRBUF_INIT;
	struct trace_convert_stats st;
	size_t n, dsize = (sizeof(d) + sizeof(msg) + 7) & ~(size_t)7;
	sqlite3 *sq;
	sqlite3_stmt *q;
	(void)state;

	assert_non_null(mkdtemp(dir));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = 77;
	h.start_ns = 1000;
	memset(b, 0, sizeof(b));
	memcpy(b, &h, sizeof(h));
	n = sizeof(h) + sizeof(ch);
	memset(&d, 0, sizeof(d));
	d.h.type = TLOG_DIAG;
	d.h.size = (uint16_t)dsize;
	d.h.aux = TLOG_DIAG_ERROR;
	d.ts = 1500;
	d.code = TLOG_DIAG_CUPTI_BUSY;
	d.len = sizeof(msg) - 1;
	memcpy(b + n, &d, sizeof(d));
	memcpy(b + n + sizeof(d), msg, sizeof(msg) - 1);
	n += dsize;
	memset(&dr, 0, sizeof(dr));
	dr.h.type = TLOG_DROPPED;
	dr.h.size = sizeof(dr);
	dr.count = 12;
	memcpy(b + n, &dr, sizeof(dr));
	n += sizeof(dr);
	dr.h.aux = 1; /* the tracer's own */
	dr.count = 3;
	memcpy(b + n, &dr, sizeof(dr));
	n += sizeof(dr);
	ch.size = (uint32_t)(n - sizeof(h) - sizeof(ch));
	memcpy(b + sizeof(h), &ch, sizeof(ch));
	strbuf_addf(&path, "%s/trace-77.bin", dir);
	assert_int_equal(write_file_atomic(path.buf, b, n, &err), 0);
	strbuf_addf(&db, "%s/t.sqlite", dir);

	trace_convert_stats_init(&st);
	assert_int_equal(trace_convert(dir, NULL, db.buf, NULL, &st, &err), 0);
	assert_int_equal(st.cupti_busy, 1);
	assert_int_equal(st.dropped_cupti, 12);
	assert_int_equal(st.dropped_tracer, 3);
	assert_string_equal(st.diags.buf,
			    "pid 77: error: cuptiSubscribe: busy (another CUPTI client)\n");
	assert_int_equal(sqlite3_open(db.buf, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sq,
					    "SELECT level, code, message, timestamp FROM "
					    "LLMPROF_TRACER_DIAGNOSTICS",
					    -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "error");
	assert_int_equal(sqlite3_column_int(q, 1), TLOG_DIAG_CUPTI_BUSY);
	assert_string_equal((const char *)sqlite3_column_text(q, 2), msg);
	assert_int_equal(sqlite3_column_int(q, 3), 500);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(sq,
					    "SELECT value FROM META_DATA_EXPORT WHERE name = "
					    "'LLMPROF_DROPPED_CUPTI'",
					    -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "12");
	sqlite3_finalize(q);
	/* No events at all: the event tables are absent, as in nsys's lazy export. */
	assert_int_equal(sqlite3_prepare_v2(sq,
					    "SELECT count(*) FROM sqlite_master WHERE name IN "
					    "('NVTX_EVENTS', 'CUPTI_ACTIVITY_KIND_KERNEL')",
					    -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), 0);
	sqlite3_finalize(q);
	sqlite3_close(sq);
	trace_convert_stats_release(&st);
	unlink(db.buf);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&path);
	strbuf_release(&db);
	strbuf_release(&err);
}

static size_t put_rec(unsigned char *b, size_t n, const void *rec, size_t size)
{
	memcpy(b + n, rec, size);
	return n + size;
}

/* Launch calls from CUPTI's activity records: a runtime call with its
 * nested driver call (own correlation id), a direct driver call and a plain
 * runtime call, all in the GPU buffer's chunk (tid 0). The nested driver
 * call must vanish into its runtime call, its kernel must be attributed to
 * the runtime call, and rows must carry the calling threads. */
static void test_convert_api_activity(void **state)
{
	unsigned char b[2048];
	struct tlog_file_header h;
	struct tlog_chunk_header ch = {TLOG_CHUNK_MAGIC, 0, 0, 0};
	struct tlog_api a;
	struct tlog_kernel k;
	char dir[] = "/tmp/llmprof-test-trace-XXXXXX";
	struct strbuf path = STRBUF_INIT, db = STRBUF_INIT, err = STRBUF_INIT;
	struct trace_convert_stats st;
	static const struct {
		uint64_t start, end;
		uint32_t tid, corr, driver;
	} calls[] = {
	    {2100, 2200, 501, 11, 1},
	    {2000, 2500, 501, 10, 0},
	    {3000, 3100, 502, 12, 1},
	    {4000, 4100, 502, 13, 0},
	};
	static const uint32_t kcorr[] = {11, 12, 13};
	static const char *const want[] = {
	    "10|0|501|2000|500",
	    "12|1|502|3000|100",
	    "13|0|502|4000|100",
	};
	size_t n, i;
	sqlite3 *sq;
	sqlite3_stmt *q;
	(void)state;

	assert_non_null(mkdtemp(dir));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = 77;
	h.start_ns = 0;
	memset(b, 0, sizeof(b));
	n = put_rec(b, 0, &h, sizeof(h)) + sizeof(ch);
	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		memset(&a, 0, sizeof(a));
		a.h.type = TLOG_API_ACT;
		a.h.size = sizeof(a);
		a.h.aux = calls[i].driver ? TLOG_API_DRIVER : TLOG_API_RUNTIME;
		a.start = calls[i].start;
		a.end = calls[i].end;
		a.corr = calls[i].corr;
		a.cbid = calls[i].driver ? 307 : 211;
		a.tid = calls[i].tid;
		n = put_rec(b, n, &a, sizeof(a));
	}
	for (i = 0; i < ARRAY_SIZE(kcorr); i++) {
		memset(&k, 0, sizeof(k));
		k.h.type = TLOG_KERNEL;
		k.h.size = sizeof(k);
		k.start = 5000 + i * 100;
		k.end = k.start + 50;
		k.corr = kcorr[i];
		k.stream = 7;
		n = put_rec(b, n, &k, sizeof(k));
	}
	ch.size = (uint32_t)(n - sizeof(h) - sizeof(ch));
	memcpy(b + sizeof(h), &ch, sizeof(ch));
	strbuf_addf(&path, "%s/trace-77.bin", dir);
	assert_int_equal(write_file_atomic(path.buf, b, n, &err), 0);
	strbuf_addf(&db, "%s/t.sqlite", dir);

	trace_convert_stats_init(&st);
	assert_int_equal(trace_convert(dir, NULL, db.buf, NULL, &st, &err), 0);
	assert_int_equal(st.api_calls, 3);
	assert_int_equal(st.kernels, 3);
	assert_int_equal(st.unattributed, 0);
	assert_int_equal(sqlite3_open(db.buf, &sq), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(sq,
			       "SELECT correlationId || '|' || eventClass || '|' || "
			       "(globalTid & 16777215) || '|' || start || '|' || (end - start) "
			       "FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY correlationId",
			       -1, &q, NULL),
	    SQLITE_OK);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(q, 0), want[i]);
	}
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	assert_int_equal(
	    sqlite3_prepare_v2(sq,
			       "SELECT group_concat(correlationId) FROM (SELECT "
			       "correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start)",
			       -1, &q, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "10,12,13");
	sqlite3_finalize(q);
	sqlite3_close(sq);
	trace_convert_stats_release(&st);
	unlink(db.buf);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&path);
	strbuf_release(&db);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ids_and_enums),
	    cmocka_unit_test(test_kernel_row),
	    cmocka_unit_test(test_copy_rows),
	    cmocka_unit_test(test_runtime_row),
	    cmocka_unit_test(test_runtime_row_activity),
	    cmocka_unit_test(test_api_nest),
	    cmocka_unit_test(test_nvtx_rows),
	    cmocka_unit_test(test_reader),
	    cmocka_unit_test(test_load_clamps_timestamps),
	    cmocka_unit_test(test_nvtx_filters),
	    cmocka_unit_test(test_nvtx_domain_rule),
	    cmocka_unit_test(test_perfetto_damaged_nvtx),
	    cmocka_unit_test(test_perfetto_threshold),
	    cmocka_unit_test(test_convert_diagnostics),
	    cmocka_unit_test(test_convert_api_activity),
	    cmocka_unit_test(test_reader_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
