/* tracelog.c: reader for the builtin tracer's binary log (see tracelog.h).
 * Never trusts a size from the file: every chunk and record is checked
 * against what is left of the buffer before it is handed out. */
#include <stdarg.h>
#include <string.h>

#include "core/error.h"
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

int tlog_reader_init(struct tlog_reader *r, const void *buf, size_t len, const char *name,
		     struct strbuf *err)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->problems, 0);
	r->buf = buf;
	r->len = len;
	r->name = name;
	if (len < sizeof(r->hdr)) {
		if (len >= 8 && memcmp(buf, TLOG_MAGIC, 8) == 0)
			return error_set(err, "%s: truncated header (%zu of %zu bytes)", name, len,
					 sizeof(r->hdr));
		return error_set(err, "%s: not a llmprof trace log (%zu bytes)", name, len);
	}
	memcpy(&r->hdr, buf, sizeof(r->hdr));
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
		memcpy(&ch, r->buf + r->pos, sizeof(ch));
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
		memcpy(&h, r->buf + r->pos, sizeof(h));
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
		it->rec = (const struct tlog_rec *)(const void *)(r->buf + r->pos);
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
