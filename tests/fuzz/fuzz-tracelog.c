/* fuzz-tracelog.c: libFuzzer target for the builtin tracer's log reader and
 * the log -> SQLite converter, fed arbitrary bytes as a trace-<pid>.bin.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -Ibuild/gen \
 *     -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DLLMPROF_SOURCE_DIR='"."' \
 *     tests/fuzz/fuzz-tracelog.c src/trace/tracelog.c src/trace/tosqlite*.c \
 *     src/trace/perfetto.c src/trace/nvtxdomain.c src/trace/nvtxnow.c src/trace/strtab.c \
 *     src/core/[a-z]*.c \
 *     -lsqlite3 -ljansson -lm -o build/fuzz-tracelog
 *   build/fuzz-tracelog -max_len=4096 -timeout=5
 *
 * Properties besides memory safety: the reader never hands out a record
 * that does not fit the buffer, and the converter either succeeds, reports
 * damage (TRACE_CONVERT_PARTIAL) or fails with a message. The live NVTX
 * follower (trace/nvtxnow.h) reads the same bytes whole and in pieces, as
 * a growing file, and says the same at the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "trace/nvtxnow.h"
#include "trace/tosqlite.h"
#include "trace/tracelog.h"
#define FUZZ_SQLITE_PLAIN_HEAP
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

/* At exit: the log and the directory (the database is gone already). */
static void remove_dir(void)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s/trace-1.bin", dir);
	unlink(p.buf);
	rmdir(dir);
	strbuf_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tlog_reader r;
	struct tlog_item it;
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT, db = STRBUF_INIT;
	struct trace_convert_stats st;
	unsigned char *copy = malloc(size ? size : 1);
	size_t sqlite_live = fuzz_sqlite_heap_live();
	int rc;

	/* 8-aligned copy, as strbuf_read_file gives the converter */
	memcpy(copy, data, size);
	if (tlog_reader_init(&r, copy, size, "fuzz.bin", &err) == 0) {
		while (tlog_next(&r, &it)) {
			const unsigned char *p = (const unsigned char *)it.rec;
			if (p < copy || p + it.rec->size > copy + size)
				abort();
		}
	}
	tlog_reader_release(&r);
	free(copy);
	{
		struct nvtx_now *whole = nvtx_now_new(NULL), *parts = nvtx_now_new(NULL);
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		nvtx_now_feed(whole, "trace-1.bin", data, size);
		for (size_t i = 0; i < size; i += 61)
			nvtx_now_feed(parts, "trace-1.bin", data + i,
				      size - i < 61 ? size - i : 61);
		nvtx_now_describe(whole, 3, &a);
		nvtx_now_describe(parts, 3, &b);
		if (strcmp(a.buf, b.buf))
			abort();
		nvtx_now_free(whole);
		nvtx_now_free(parts);
		strbuf_release(&a);
		strbuf_release(&b);
	}

	if (!dir[0]) {
		/* /dev/shm: the converter fsyncs; on tmpfs that costs nothing */
		snprintf(dir, sizeof(dir), "%s/fuzz-tracelog-%d",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
		if (mkdir_p(dir, &err))
			abort();
		atexit(remove_dir);
	}
	strbuf_addf(&path, "%s/trace-1.bin", dir);
	strbuf_addf(&db, "%s/t.sqlite", dir);
	if (write_file_atomic(path.buf, data, size, &err))
		abort();
	trace_convert_stats_init(&st);
	strbuf_reset(&err);
	rc = trace_convert(dir, NULL, db.buf, NULL, &st, &err);
	if (rc != 0 && !err.len)
		abort(); /* a failure or damage always says why */
	trace_convert_stats_release(&st);
	unlink(db.buf);
	if (fuzz_sqlite_heap_live() != sqlite_live)
		abort(); /* a connection or statement left open */
	strbuf_release(&err);
	strbuf_release(&path);
	strbuf_release(&db);
	return 0;
}
