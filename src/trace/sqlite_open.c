/* sqlite_open.c: see sqlite_open.h. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

/* Every name the readers (trace.c, perfetto.c, nvtx*.c, nsys_diag.c)
 * select from. */
#define VIEWS_SQL                                                                                  \
	"SELECT name FROM sqlite_master WHERE type='view' AND name COLLATE NOCASE IN "             \
	"('StringIds', 'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', "               \
	"'CUPTI_ACTIVITY_KIND_MEMSET', 'ENUM_CUDA_MEMCPY_OPER', 'CUPTI_ACTIVITY_KIND_RUNTIME', "   \
	"'NVTX_EVENTS', 'META_DATA_EXPORT', 'EXPORT_META_DATA', 'TARGET_INFO_GPU', "               \
	"'ThreadNames', 'PROCESSES', 'CUPTI_ACTIVITY_KIND_GRAPH_TRACE', "                          \
	"'TARGET_INFO_SESSION_START_TIME') LIMIT 1"

/* "file:PATH?immutable=1" with PATH percent-escaped where a URI needs it. */
static void immutable_uri(struct strbuf *uri, const char *path)
{
	strbuf_addstr(uri, "file:");
	if (path[0] == '/' && path[1] == '/')
		strbuf_addstr(uri, "//localhost"); /* else "//x" reads as a host */
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
			strbuf_addf(uri, "%%%02X", *p);
		else
			strbuf_addch(uri, (char)*p);
	}
	strbuf_addstr(uri, "?immutable=1");
}

/* The deadline, in whole seconds of clock_mono_ns() (low 40 bits), and
 * llmprof's interrupt count at the open (above them) ride in the pointer:
 * nothing to allocate or free per connection. */
#define DEADLINE_BITS 40
static int past_deadline(void *arg)
{
	uint64_t v = (uintptr_t)arg;

	return clock_mono_ns() / 1000000000u > (v & ((UINT64_C(1) << DEADLINE_BITS) - 1)) ||
	       (uint64_t)proc_interrupt_count() != v >> DEADLINE_BITS;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An export cut short (a copy that stopped, a full disk) opens as a
 * smaller database that reads without an error, rows missing: SQLite
 * treats the pages past the end as absent. Its header says how many pages
 * the whole file has (valid when the version-valid-for number matches the
 * change counter, as every SQLite since 3.7.0 writes), so the cut is one
 * comparison, whatever the file's size (PRAGMA quick_check reads every
 * page). A file that is not SQLite is left to SQLite to name. */
static int check_whole(int fd, size_t len, const char *path, struct strbuf *err)
{
	unsigned char h[100];
	uint32_t page, pages;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16)) {
		if (len >= 16 && len < sizeof(h) && !memcmp(h, "SQLite format 3", 16))
			return error_set(err,
					 "'%s' is truncated: %zu bytes, shorter than an SQLite "
					 "header (an export cut short)",
					 path, len);
		return 0;
	}
	page = (uint32_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	if (page < 512 || (page & (page - 1)))
		return 0; /* not a page size: SQLite says the file is damaged */
	pages = be32(h + 28);
	if (pages && be32(h + 24) == be32(h + 92)) {
		if ((uint64_t)len < (uint64_t)pages * page)
			return error_set(err,
					 "'%s' is truncated: %zu bytes where its header says %llu "
					 "(%u pages of %u bytes; an export cut short)",
					 path, len, (unsigned long long)pages * page, pages, page);
	} else if (len % page) {
		return error_set(
		    err,
		    "'%s' is truncated: %zu bytes, not a whole number of %u-byte pages "
		    "(an export cut short)",
		    path, len, page);
	}
	return 0;
}

int export_open(const char *path, sqlite3 **db, size_t *size, struct strbuf *err)
{
	struct strbuf uri = STRBUF_INIT;
	struct stat sb;
	size_t len;
	int fd, ret = -1;

	*db = NULL;
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		return error_set(err, "'%s' is a directory, not an SQLite export", path);
	fd = open_regular_file(path, SIZE_MAX, &len, err);
	if (fd < 0)
		return -1;
	if (len && check_whole(fd, len, path, err)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (!len)
		return error_set(err, "'%s' is empty, not an SQLite export", path);
	if (size)
		*size = len;
	immutable_uri(&uri, path);
	/* NOMUTEX: one thread reads; the default serialized mode takes a lock
	 * on every sqlite3_column_*() call, a tenth of the run time. */
	if (sqlite3_open_v2(uri.buf, db,
			    SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK) {
		error_set(err, "cannot open '%s': %s", path,
			  *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		goto out;
	}
	sqlite3_limit(*db, SQLITE_LIMIT_LENGTH, SQLITE_OPEN_MAX_VALUE);
	sqlite3_progress_handler(
	    *db, 100000, past_deadline,
	    (void *)(uintptr_t)((clock_mono_ns() / 1000000000u + SQLITE_OPEN_DEADLINE_S) |
				((uint64_t)proc_interrupt_count() << DEADLINE_BITS)));
	ret = 0;
out:
	strbuf_release(&uri);
	return ret;
}

int export_check_views(sqlite3 *db, const char *path, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(db, VIEWS_SQL, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ret =
		    error_set(err, "'%s': '%s' is a view, not a table; an export holds tables only",
			      path, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return ret;
}

int export_past_deadline(sqlite3 *db)
{
	return sqlite3_errcode(db) == SQLITE_INTERRUPT && !proc_pending_interrupt();
}

int export_interrupted(sqlite3 *db)
{
	return sqlite3_errcode(db) == SQLITE_INTERRUPT ? proc_pending_interrupt() : 0;
}

int export_is_sqlite(const char *path)
{
	char magic[16];
	int fd = open_regular_file(path, SIZE_MAX, NULL, NULL);
	int ok = fd >= 0 && read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
		 !memcmp(magic, "SQLite format 3", sizeof(magic));

	if (fd >= 0)
		close(fd);
	return ok;
}
