/* tosqlite_payload.c: the builtin tracer's NVTX payload records
 * (TLOG_NVTX_PL_SCHEMA, TLOG_NVTX_PAYLOAD; docs/tracer.md "NVTX payloads")
 * into the tables and the binaryData layout an `nsys export
 * --include-blobs true` has (trace/nvtxpayload.h), so that one reader
 * serves both backends. */
#include <string.h>

#include "trace/tosqlite_internal.h"
#include "core/banned.h"

static void put_le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int tosqlite_payload_blob(struct strbuf *out, const struct tlog_nvtx_payload *pl, size_t size)
{
	const unsigned char *p = (const unsigned char *)(pl + 1),
			    *end = (const unsigned char *)pl + size;
	uint32_t n = pl->h.aux;
	size_t head = 8 + 24 * (size_t)n, at = head, start = out->len;
	unsigned char *b;

	if (size < sizeof(*pl) || !n || n > 16)
		return -1;
	strbuf_grow(out, head);
	memset(out->buf + start, 0, head);
	strbuf_setlen(out, start + head);
	put_le((unsigned char *)out->buf + start, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct tlog_nvtx_pl_data *x = (const void *)p;

		if ((size_t)(end - p) < sizeof(*x) ||
		    (size_t)(end - p) - sizeof(*x) < TLOG_ALIGN8(x->kept)) {
			strbuf_setlen(out, start);
			return -1;
		}
		b = (unsigned char *)out->buf + start + 8 + 24 * (size_t)i;
		put_le(b, x->schema_id);
		put_le(b + 8, x->kept);
		put_le(b + 16, at);
		strbuf_add(out, x + 1, x->kept);
		at += x->kept;
		p += sizeof(*x) + TLOG_ALIGN8(x->kept);
	}
	return 0;
}

/* The i-th NUL-terminated name after the entries, or NULL past the record. */
static const char *name_at(const char **cur, const char *end)
{
	const char *s = *cur;
	const char *nul = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;

	if (!nul)
		return NULL;
	*cur = nul + 1;
	return s;
}

static void bind_name(sqlite3_stmt *st, int i, const char *s)
{
	if (*s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void conv_put_pl_schema(struct conv *c, const struct tlog_nvtx_pl_schema *r, size_t size)
{
	const struct tlog_nvtx_pl_entry *e = (const void *)(r + 1);
	const char *names, *end = (const char *)r + size;
	int is_enum = r->h.aux == TLOG_PL_ENUM;
	sqlite3_stmt *st = c->st[is_enum ? S_PL_ENUM : S_PL_SCHEMA];
	int i = 1;

	if (r->n > 4096 || (size - sizeof(*r)) / sizeof(*e) < r->n) {
		c->stats->problems++;
		return;
	}
	names = (const char *)(e + r->n);
	sqlite3_bind_int64(st, i++, (int64_t)r->domain);
	sqlite3_bind_int64(st, i++, (int64_t)r->id);
	if (!is_enum) {
		sqlite3_bind_int64(st, i++, (int64_t)r->type);
		sqlite3_bind_int64(st, i++, (int64_t)r->flags);
	}
	sqlite3_bind_int64(st, i++, r->n);
	sqlite3_bind_int64(st, i++, (int64_t)r->size);
	if (conv_step(c, is_enum ? S_PL_ENUM : S_PL_SCHEMA) || !sqlite3_changes(c->db))
		return; /* failed, or registered before: the first is kept */
	st = c->st[is_enum ? S_PL_ENUM_ENTRY : S_PL_ENTRY];
	for (uint32_t k = 0; k < r->n; k++) {
		const char *name = name_at(&names, end);

		if (!name) {
			c->stats->problems++;
			return;
		}
		sqlite3_bind_int64(st, 1, (int64_t)r->domain);
		sqlite3_bind_int64(st, 2, (int64_t)r->id);
		sqlite3_bind_int64(st, 3, k);
		if (is_enum) {
			bind_name(st, 4, name);
			sqlite3_bind_int64(st, 5, (int64_t)e[k].type);
			sqlite3_bind_int64(st, 6, (int64_t)e[k].offset);
		} else {
			sqlite3_bind_int64(st, 4, (int64_t)e[k].type);
			bind_name(st, 5, name);
			sqlite3_bind_int64(st, 6, (int64_t)e[k].offset);
		}
		if (conv_step(c, is_enum ? S_PL_ENUM_ENTRY : S_PL_ENTRY))
			return;
	}
}
