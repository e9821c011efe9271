/* test-nvtxnow.c: the NVTX ranges a program is in, read from the builtin
 * tracer's logs as they grow (trace/nvtxnow.h): text and registered names,
 * "#N" for the Nth range of a name in a row, the thread active last, chunks
 * still being written, thread 0's GPU chunks, damaged files, and files
 * that grow between polls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "trace/nvtxnow.h"
#include "trace/tracelog.h"

/* A log being built: the file header, then chunks of records. */
struct log {
	struct strbuf b;
	size_t chunk; /* offset of the open chunk's header */
};

static void log_init(struct log *l)
{
	struct tlog_file_header h;

	strbuf_init(&l->b, 0);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = 42;
	strbuf_add(&l->b, &h, sizeof(h));
}

static void chunk_open(struct log *l, uint32_t tid)
{
	struct tlog_chunk_header c = {TLOG_CHUNK_MAGIC, 0, tid, 0};

	l->chunk = l->b.len;
	strbuf_add(&l->b, &c, sizeof(c));
}

static void chunk_close(struct log *l)
{
	struct tlog_chunk_header c;

	memcpy(&c, l->b.buf + l->chunk, sizeof(c));
	c.size = (uint32_t)(l->b.len - l->chunk - sizeof(c));
	memcpy(l->b.buf + l->chunk, &c, sizeof(c));
}

/* A record: the fixed part, then text padded to 8 bytes. */
static void add_rec(struct log *l, void *fixed, size_t n, const char *text)
{
	size_t tl = text ? strlen(text) + 1 : 0, size = (n + tl + 7) & ~(size_t)7;
	struct tlog_rec *h = fixed;
	static const char zero[8];

	h->size = (uint16_t)size;
	strbuf_add(&l->b, fixed, n);
	if (text)
		strbuf_add(&l->b, text, tl);
	strbuf_add(&l->b, zero, size - n - tl);
}

static void push_text(struct log *l, const char *name)
{
	struct tlog_nvtx_event e;

	memset(&e, 0, sizeof(e));
	e.h.type = TLOG_NVTX_PUSH;
	e.h.aux = TLOG_MSG_TEXT;
	e.len = (uint32_t)strlen(name);
	add_rec(l, &e, sizeof(e), name);
}

static void push_reg(struct log *l, uint64_t id)
{
	struct tlog_nvtx_event e;

	memset(&e, 0, sizeof(e));
	e.h.type = TLOG_NVTX_PUSH;
	e.h.aux = TLOG_MSG_REGISTERED;
	e.string_id = id;
	add_rec(l, &e, sizeof(e), NULL);
}

static void def_string(struct log *l, uint64_t id, const char *name)
{
	struct tlog_nvtx_def d;

	memset(&d, 0, sizeof(d));
	d.h.type = TLOG_NVTX_STRING;
	d.id = id;
	d.len = (uint32_t)strlen(name);
	add_rec(l, &d, sizeof(d), name);
}

static void pop(struct log *l)
{
	struct tlog_nvtx_end e;

	memset(&e, 0, sizeof(e));
	e.h.type = TLOG_NVTX_POP;
	add_rec(l, &e, sizeof(e), NULL);
}

static const char *now(struct nvtx_now *n, size_t levels)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	nvtx_now_describe(n, levels, &sb);
	return sb.buf;
}

static void test_ranges_and_steps(void **state)
{
	struct nvtx_now *n = nvtx_now_new(NULL);
	struct log l;
	size_t at;

	log_init(&l);
	chunk_open(&l, 7);
	def_string(&l, 3, "decode_step");
	push_text(&l, "prefill");
	push_text(&l, "attn");
	pop(&l);
	pop(&l);
	push_text(&l, "decode_all");
	push_reg(&l, 3);
	push_text(&l, "embed");
	chunk_close(&l);
	nvtx_now_feed(n, "trace-42.bin", l.b.buf, l.b.len);
	assert_string_equal(now(n, 2), "decode_all > decode_step");
	assert_string_equal(now(n, 5), "decode_all > decode_step > embed");
	assert_string_equal(now(n, 1), "decode_all");
	/* two more steps, fed a byte at a time: the chunk counts only whole */
	at = l.b.len;
	chunk_open(&l, 7);
	pop(&l);
	pop(&l);
	push_reg(&l, 3);
	pop(&l);
	push_reg(&l, 3);
	push_text(&l, "mlp");
	chunk_close(&l);
	for (size_t i = at; i < l.b.len; i++) {
		nvtx_now_feed(n, "trace-42.bin", l.b.buf + i, 1);
		if (i + 1 < l.b.len)
			assert_string_equal(now(n, 2), "decode_all > decode_step");
	}
	assert_string_equal(now(n, 2), "decode_all > decode_step #3");
	assert_string_equal(now(n, 3), "decode_all > decode_step > mlp");
	/* thread 0's chunks (GPU records) are not read; another thread that
	 * pushed last is the answer */
	at = l.b.len;
	chunk_open(&l, 8);
	push_text(&l, "loader");
	chunk_close(&l);
	chunk_open(&l, 0);
	push_text(&l, "not-a-thread");
	chunk_close(&l);
	nvtx_now_feed(n, "trace-42.bin", l.b.buf + at, l.b.len - at);
	assert_string_equal(now(n, 2), "loader");
	/* back on thread 7: a pop there makes it the last active */
	at = l.b.len;
	chunk_open(&l, 7);
	pop(&l);
	chunk_close(&l);
	nvtx_now_feed(n, "trace-42.bin", l.b.buf + at, l.b.len - at);
	assert_string_equal(now(n, 2), "decode_all > decode_step #3");
	/* all closed: nothing; a pop of a range opened before the log: ignored */
	at = l.b.len;
	chunk_open(&l, 7);
	pop(&l);
	pop(&l);
	pop(&l);
	chunk_close(&l);
	chunk_open(&l, 8);
	pop(&l);
	chunk_close(&l);
	nvtx_now_feed(n, "trace-42.bin", l.b.buf + at, l.b.len - at);
	assert_string_equal(now(n, 2), "");
	/* a new decode_all starts its steps' count over */
	at = l.b.len;
	chunk_open(&l, 7);
	push_text(&l, "decode_all");
	push_reg(&l, 3);
	chunk_close(&l);
	nvtx_now_feed(n, "trace-42.bin", l.b.buf + at, l.b.len - at);
	assert_string_equal(now(n, 2), "decode_all > decode_step");
	strbuf_release(&l.b);
	nvtx_now_free(n);
}

static void test_damaged(void **state)
{
	struct nvtx_now *n = nvtx_now_new(NULL);
	struct log l;
	char junk[64];
	size_t at;

	/* not a log at all */
	memset(junk, 'x', sizeof(junk));
	nvtx_now_feed(n, "trace-1.bin", junk, sizeof(junk));
	assert_string_equal(now(n, 2), "");
	/* a bad chunk header stops the file there; what came before stays */
	log_init(&l);
	chunk_open(&l, 5);
	push_text(&l, "kept");
	chunk_close(&l);
	at = l.b.len;
	strbuf_add(&l.b, "BADCHUNKBADCHUNK", 16);
	nvtx_now_feed(n, "trace-2.bin", l.b.buf, l.b.len);
	assert_string_equal(now(n, 2), "kept");
	chunk_open(&l, 5);
	push_text(&l, "after");
	chunk_close(&l);
	nvtx_now_feed(n, "trace-2.bin", l.b.buf + at + 16, l.b.len - at - 16);
	assert_string_equal(now(n, 2), "kept");
	strbuf_release(&l.b);
	nvtx_now_free(n);
}

static void test_poll_files(void **state)
{
	char dir[] = "/tmp/llmprof-test-nvtxnow.XXXXXX", path[128];
	struct nvtx_now *n;
	struct strbuf sb = STRBUF_INIT;
	struct log l;
	FILE *fp;
	size_t half;

	assert_non_null(mkdtemp(dir));
	n = nvtx_now_new(dir);
	nvtx_now_poll(n, 2, &sb); /* no file yet */
	assert_string_equal(sb.buf, "");
	log_init(&l);
	chunk_open(&l, 9);
	push_text(&l, "decode_all");
	push_text(&l, "decode_step");
	pop(&l);
	push_text(&l, "decode_step");
	chunk_close(&l);
	snprintf(path, sizeof(path), "%s/trace-9.bin", dir);
	/* half of it: the chunk is still being written */
	half = l.b.len - 20;
	fp = fopen(path, "wb");
	fwrite(l.b.buf, 1, half, fp);
	fflush(fp);
	nvtx_now_poll(n, 2, &sb);
	assert_string_equal(sb.buf, "");
	fwrite(l.b.buf + half, 1, l.b.len - half, fp);
	fclose(fp);
	nvtx_now_poll(n, 2, &sb);
	assert_string_equal(sb.buf, "decode_all > decode_step #2");
	/* other files are ignored */
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	fp = fopen(path, "w");
	fputs("decode_all", fp);
	fclose(fp);
	strbuf_reset(&sb);
	nvtx_now_poll(n, 2, &sb);
	assert_string_equal(sb.buf, "decode_all > decode_step #2");
	unlink(path);
	snprintf(path, sizeof(path), "%s/trace-9.bin", dir);
	unlink(path);
	rmdir(dir);
	strbuf_release(&sb);
	strbuf_release(&l.b);
	nvtx_now_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_and_steps),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_poll_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
