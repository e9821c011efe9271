/* tracelog.c: reader for the builtin tracer's binary log (see tracelog.h).
 * Never trusts a size from the file: every chunk and record is checked
 * against what is left of the buffer before it is handed out. A file is
 * read through a window of TLOG_WINDOW bytes that moves forward as the
 * records are handed out, so a log of any size takes the same memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "trace/tracelog.h"
#include "core/banned.h"

size_t tlog_min_size(uint16_t type)
{
	switch (type) {
	case TLOG_PROCESS:
		return sizeof(struct tlog_process);
	case TLOG_RANK:
		return sizeof(struct tlog_rank);
	case TLOG_END:
		return sizeof(struct tlog_end);
	case TLOG_COST:
		return sizeof(struct tlog_cost);
	case TLOG_DIAG:
		return sizeof(struct tlog_diag);
	case TLOG_THREAD_NAME:
		return sizeof(struct tlog_thread_name);
	case TLOG_CLOCK:
		return sizeof(struct tlog_clock);
	case TLOG_NVTX_DOMAIN:
	case TLOG_NVTX_STRING:
	case TLOG_NVTX_CATEGORY:
		return sizeof(struct tlog_nvtx_def);
	case TLOG_NVTX_PUSH:
	case TLOG_NVTX_START:
	case TLOG_NVTX_MARK:
		return sizeof(struct tlog_nvtx_event);
	case TLOG_NVTX_POP:
	case TLOG_NVTX_END:
		return sizeof(struct tlog_nvtx_end);
	case TLOG_NVTX_PL_SCHEMA:
		return sizeof(struct tlog_nvtx_pl_schema);
	case TLOG_NVTX_PAYLOAD:
		return sizeof(struct tlog_nvtx_payload);
	case TLOG_API:
		return sizeof(struct tlog_api);
	case TLOG_API_ACT:
		return sizeof(struct tlog_api);
	case TLOG_API_NAME:
		return sizeof(struct tlog_api_name);
	case TLOG_CORR_ALIAS:
		return sizeof(struct tlog_corr_alias);
	case TLOG_KERNEL:
		return sizeof(struct tlog_kernel);
	case TLOG_KERNEL_NAME:
		return sizeof(struct tlog_kernel_name);
	case TLOG_MEMCPY:
		return sizeof(struct tlog_memcpy);
	case TLOG_MEMSET:
		return sizeof(struct tlog_memset);
	case TLOG_DEVICE:
		return sizeof(struct tlog_device);
	case TLOG_DROPPED:
		return sizeof(struct tlog_dropped);
	case TLOG_GRAPH_NODE:
		return sizeof(struct tlog_graph_node);
	case TLOG_CPU_SAMPLING:
		return TLOG_CPU_SAMPLING_MIN_SIZE;
	case TLOG_CPU_SAMPLE:
		return sizeof(struct tlog_cpu_sample);
	case TLOG_MODULE:
		return sizeof(struct tlog_module);
	default:
		return 0;
	}
}

/* Checks the header at p[0..r->len), or its first avail bytes. */
static int check_header(struct tlog_reader *r, const unsigned char *p, size_t avail,
			struct strbuf *err)
{
	const char *name = r->name;

	if (avail < sizeof(r->hdr)) {
		if (avail >= 8 && memcmp(p, TLOG_MAGIC, 8) == 0)
			return error_set(err, "%s: truncated header (%zu of %zu bytes)", name,
					 avail, sizeof(r->hdr));
		return error_set(err, "%s: not a llmprof trace log (%zu bytes)", name, avail);
	}
	memcpy(&r->hdr, p, sizeof(r->hdr));
	if (memcmp(r->hdr.magic, TLOG_MAGIC, 8) != 0)
		return error_set(err, "%s: not a llmprof trace log (bad magic)", name);
	if (r->hdr.version != TLOG_VERSION)
		return error_set(err, "%s: trace log version %u, this llmprof reads version %u",
				 name, r->hdr.version, TLOG_VERSION);
	if (r->hdr.header_size != sizeof(r->hdr))
		return error_set(err, "%s: bad header size %u", name, r->hdr.header_size);
	r->pos = r->chunk_end = sizeof(r->hdr);
	return 0;
}

int tlog_reader_init(struct tlog_reader *r, const void *buf, size_t len, const char *name,
		     struct strbuf *err)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->problems, 0);
	r->fd = -1;
	r->buf = buf;
	r->len = len;
	r->name = name;
	return check_header(r, buf, len, err);
}

/* Reads up to TLOG_WINDOW bytes at off into the window; the count read
 * (short only at the end of the file or on an error, errno set). */
static size_t fill_window(struct tlog_reader *r, size_t off)
{
	size_t want = r->len - off < TLOG_WINDOW ? r->len - off : TLOG_WINDOW, got = 0;

	r->win_off = off;
	r->win_len = 0;
	errno = 0;
	while (got < want) {
		ssize_t n = pread(r->fd, r->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	r->win_len = got;
	return got;
}

int tlog_reader_open(struct tlog_reader *r, const char *path, const char *name, struct strbuf *err)
{
	size_t size;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->problems, 0);
	r->name = name;
	r->fd = open_regular_file(path, SIZE_MAX, &size, err);
	if (r->fd < 0)
		return -1;
	r->len = size;
	r->win = xmalloc(TLOG_WINDOW);
	/* the log is read once or twice from start to end */
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return check_header(r, r->win, fill_window(r, 0), err);
}

__attribute__((format(printf, 3, 4))) static void problem(struct tlog_reader *r, size_t off,
							  const char *fmt, ...);

/* The n bytes at off (off + n <= r->len, n <= 64 KiB), or NULL when they
 * cannot be read: then the log ends at off, with a problem line. */
static const unsigned char *bytes_at(struct tlog_reader *r, size_t off, size_t n)
{
	if (r->fd < 0)
		return r->buf + off;
	if (off >= r->win_off && n <= r->win_len && off - r->win_off <= r->win_len - n)
		return r->win + (off - r->win_off);
	if (fill_window(r, off) >= n)
		return r->win;
	problem(r, off, "cannot read %zu bytes (%s); rest ignored", n,
		errno ? strerror(errno) : "the file shrank");
	r->len = off;
	r->chunk_end = off;
	r->done = 1;
	return NULL;
}

void tlog_rewind(struct tlog_reader *r)
{
	r->pos = r->chunk_end = sizeof(r->hdr);
	r->done = 0;
	/* Problems were found on the first pass; do not report them twice. */
	r->n_problems |= (uint64_t)1 << 63;
}

__attribute__((format(printf, 3, 4))) static void problem(struct tlog_reader *r, size_t off,
							  const char *fmt, ...)
{
	va_list ap;

	if (r->n_problems >> 63)
		return;
	r->n_problems++;
	strbuf_addf(&r->problems, "%s: offset %zu: ", r->name, off);
	va_start(ap, fmt);
	strbuf_vaddf(&r->problems, fmt, ap);
	va_end(ap);
	strbuf_addch(&r->problems, '\n');
}

/* Moves to the next chunk; returns 0 when there is none. */
static int next_chunk(struct tlog_reader *r)
{
	struct tlog_chunk_header ch;

	while (!r->done) {
		size_t left = r->len - r->pos;
		const unsigned char *p;
		if (left == 0) {
			r->done = 1;
			break;
		}
		if (left < sizeof(ch)) {
			problem(r, r->pos, "truncated chunk header (%zu bytes left); rest ignored",
				left);
			r->done = 1;
			break;
		}
		p = bytes_at(r, r->pos, sizeof(ch));
		if (!p)
			break;
		memcpy(&ch, p, sizeof(ch));
		if (ch.magic != TLOG_CHUNK_MAGIC || ch.size > TLOG_MAX_CHUNK || ch.size % 8) {
			problem(r, r->pos, "corrupt chunk header (size %zu); rest ignored",
				(size_t)ch.size);
			r->done = 1;
			break;
		}
		if (ch.size > left - sizeof(ch)) {
			/* A crash during the last write: keep the whole records. */
			problem(r, r->pos,
				"truncated chunk (%zu payload bytes present); its whole records "
				"are kept",
				left - sizeof(ch));
			r->chunk_end = r->len;
			r->chunk_tid = ch.tid;
			r->pos += sizeof(ch);
			r->done = 1;
			return 1;
		}
		r->chunk_tid = ch.tid;
		r->pos += sizeof(ch);
		r->chunk_end = r->pos + ch.size;
		return 1;
	}
	return 0;
}

int tlog_next(struct tlog_reader *r, struct tlog_item *it)
{
	for (;;) {
		struct tlog_rec h;
		size_t left, min;
		const unsigned char *p;

		if (r->pos >= r->chunk_end) {
			r->pos = r->chunk_end;
			if (!next_chunk(r))
				return 0;
			continue;
		}
		left = r->chunk_end - r->pos;
		if (left < sizeof(h)) {
			if (!r->done)
				problem(r, r->pos, "%zu stray bytes at chunk end", left);
			r->pos = r->chunk_end;
			continue;
		}
		p = bytes_at(r, r->pos, sizeof(h));
		if (!p)
			continue; /* the log ends here */
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > left) {
			/* In a truncated final chunk this is the cut; elsewhere corruption. */
			if (!(r->done && r->chunk_end == r->len && h.size > left &&
			      h.size % 8 == 0))
				problem(r, r->pos, "bad record size %zu; rest of chunk skipped",
					(size_t)h.size);
			r->pos = r->chunk_end;
			continue;
		}
		min = tlog_min_size(h.type);
		if (min && h.size < min) {
			problem(r, r->pos, "record too short for its type %zu; skipped",
				(size_t)h.type);
			r->pos += h.size;
			continue;
		}
		p = bytes_at(r, r->pos, h.size);
		if (!p)
			continue;
		it->rec = (const struct tlog_rec *)(const void *)p;
		it->tid = r->chunk_tid;
		it->offset = r->pos;
		r->pos += h.size;
		if (!min)
			continue; /* unknown type from a newer tracer: skip */
		return 1;
	}
}

void tlog_reader_release(struct tlog_reader *r)
{
	strbuf_release(&r->problems);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	FREE_AND_NULL(r->win);
}

struct str tlog_rec_string(const struct tlog_rec *rec, size_t fixed, uint32_t len)
{
	struct str s = {"", 0};
	if (fixed > rec->size || len > rec->size - fixed)
		return s;
	s.p = (const char *)rec + fixed;
	s.len = len;
	/* Stop at an embedded NUL so callers can treat it as C text. */
	s.len = strnlen(s.p, len);
	return s;
}
