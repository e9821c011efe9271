/* nvtxpayload.c: see nvtxpayload.h. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxpayload.h"
#include "core/banned.h"

/* A blob holding more payloads than this is not one NVTX made: NCCL
 * attaches one, and the NVTX API has no reason for thousands. */
#define PAYLOADS_MAX 64

size_t nvtx_pl_type_size(uint64_t type, int *is_signed)
{
	/* index: NVTX_PAYLOAD_ENTRY_TYPE_*, 1 (CHAR) .. 23 (ADDRESS); LP64 */
	static const unsigned char size[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8, 1,
					     1, 2, 2, 4, 4, 8, 8, 0, 0, 0, 8, 8};
	static const unsigned char sign[] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
					     0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};

	*is_signed = 0;
	if (type < ARRAY_SIZE(size)) {
		*is_signed = sign[type];
		return size[type];
	}
	switch (type) {
	case 68: /* CATEGORY */
	case 69: /* COLOR_ARGB */
	case 71: /* PID_UINT32 */
	case 73: /* TID_UINT32 */
		return 4;
	case 70: /* SCOPE_ID */
	case 72: /* PID_UINT64 */
	case 74: /* TID_UINT64 */
		return 8;
	default:
		return 0;
	}
}

static int64_t col_i64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, i);
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

/* Prepares sql when table exists: 1 prepared, 0 no table, -1 err. */
static int prepare(struct trace *t, const char *table, const char *sql, sqlite3_stmt **st,
		   struct strbuf *err)
{
	if (!t->db || !trace_has_table(t, table))
		return 0;
	if (sqlite3_prepare_v2(t->db->db, sql, -1, st, NULL) != SQLITE_OK)
		return error_set(err, "%s: %s", table, sqlite3_errmsg(t->db->db));
	return 1;
}

static int finish(struct trace *t, sqlite3_stmt *st, int rc, const char *table, struct strbuf *err)
{
	int ret = 0;

	if (rc != SQLITE_DONE)
		ret = error_set(err, "%s: %s", table, sqlite3_errmsg(t->db->db));
	sqlite3_finalize(st);
	return ret;
}

static struct nvtx_pl_schema *find_schema(const struct nvtx_payloads *p, int64_t domain,
					  uint64_t id)
{
	for (size_t i = 0; i < p->ns; i++)
		if (p->s[i].domain == domain && p->s[i].id == id)
			return &p->s[i];
	return NULL;
}

static struct nvtx_pl_enum *find_enum(const struct nvtx_payloads *p, int64_t domain, uint64_t id)
{
	for (size_t i = 0; i < p->nen; i++)
		if (p->en[i].domain == domain && p->en[i].id == id)
			return &p->en[i];
	return NULL;
}

static int load_schemas(struct trace *t, struct nvtx_payloads *p, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc = prepare(t, "NVTX_PAYLOAD_SCHEMAS",
			 "SELECT domainId, schemaId, payloadSize FROM NVTX_PAYLOAD_SCHEMAS "
			 "ORDER BY rowid",
			 &st, err);

	if (rc <= 0)
		return rc;
	p->tables = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t dom = col_i64(st, 0);
		uint64_t id = (uint64_t)col_i64(st, 1);

		if (find_schema(p, dom, id)) /* registered again: the first wins */
			continue;
		ALLOC_GROW(p->s, p->ns + 1, alloc);
		p->s[p->ns++] = (struct nvtx_pl_schema){dom, id, (uint64_t)col_i64(st, 2), NULL, 0};
	}
	if (finish(t, st, rc, "NVTX_PAYLOAD_SCHEMAS", err))
		return -1;
	rc = prepare(t, "NVTX_PAYLOAD_SCHEMA_ENTRIES",
		     "SELECT domainId, schemaId, idx, type, name, offset FROM "
		     "NVTX_PAYLOAD_SCHEMA_ENTRIES ORDER BY domainId, schemaId, idx",
		     &st, err);
	if (rc <= 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct nvtx_pl_schema *s = find_schema(p, col_i64(st, 0), (uint64_t)col_i64(st, 1));

		if (!s || s->ne >= 4096)
			continue;
		s->e = xrealloc(s->e, (s->ne + 1) * sizeof(*s->e));
		s->e[s->ne++] = (struct nvtx_pl_entry){col_str(st, 4), (uint64_t)col_i64(st, 3),
						       (uint64_t)col_i64(st, 5)};
	}
	return finish(t, st, rc, "NVTX_PAYLOAD_SCHEMA_ENTRIES", err);
}

static int load_enums(struct trace *t, struct nvtx_payloads *p, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc = prepare(t, "NVTX_PAYLOAD_ENUMS",
			 "SELECT domainId, schemaId, size FROM NVTX_PAYLOAD_ENUMS ORDER BY rowid",
			 &st, err);

	if (rc <= 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t dom = col_i64(st, 0);
		uint64_t id = (uint64_t)col_i64(st, 1);

		if (find_enum(p, dom, id))
			continue;
		ALLOC_GROW(p->en, p->nen + 1, alloc);
		p->en[p->nen++] = (struct nvtx_pl_enum){dom, id, (uint64_t)col_i64(st, 2), NULL, 0};
	}
	if (finish(t, st, rc, "NVTX_PAYLOAD_ENUMS", err))
		return -1;
	rc = prepare(t, "NVTX_PAYLOAD_ENUM_ENTRIES",
		     "SELECT domainId, schemaId, name, value FROM NVTX_PAYLOAD_ENUM_ENTRIES "
		     "ORDER BY domainId, schemaId, idx",
		     &st, err);
	if (rc <= 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct nvtx_pl_enum *e = find_enum(p, col_i64(st, 0), (uint64_t)col_i64(st, 1));

		if (!e || e->nv >= 4096)
			continue;
		e->v = xrealloc(e->v, (e->nv + 1) * sizeof(*e->v));
		e->v[e->nv++] = (struct nvtx_pl_enum_value){col_str(st, 2), col_i64(st, 3)};
	}
	return finish(t, st, rc, "NVTX_PAYLOAD_ENUM_ENTRIES", err);
}

int nvtx_payloads_load(struct trace *t, struct nvtx_payloads *p, struct strbuf *err)
{
	memset(p, 0, sizeof(*p));
	if (load_schemas(t, p, err) || load_enums(t, p, err)) {
		nvtx_payloads_release(p);
		return -1;
	}
	return 0;
}

void nvtx_payloads_release(struct nvtx_payloads *p)
{
	for (size_t i = 0; i < p->ns; i++) {
		for (size_t j = 0; j < p->s[i].ne; j++)
			free(p->s[i].e[j].name);
		free(p->s[i].e);
	}
	for (size_t i = 0; i < p->nen; i++) {
		for (size_t j = 0; j < p->en[i].nv; j++)
			free(p->en[i].v[j].name);
		free(p->en[i].v);
	}
	free(p->s);
	free(p->en);
	memset(p, 0, sizeof(*p));
}

static uint64_t get_le(const unsigned char *b, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/* The value of entry e in data[0..size): 1 and *out, else 0. */
static int read_entry(const struct nvtx_payloads *p, int64_t domain, const struct nvtx_pl_entry *e,
		      const unsigned char *data, uint64_t size, struct nvtx_pl_value *out)
{
	const struct nvtx_pl_enum *en = NULL;
	int is_signed;
	size_t n = nvtx_pl_type_size(e->type, &is_signed);
	uint64_t v;

	if (!n && (en = find_enum(p, domain, e->type)))
		n = en->size == 1 || en->size == 2 || en->size == 8 ? (size_t)en->size : 4;
	if (!n || e->offset > size || n > size - e->offset)
		return 0;
	v = get_le(data + e->offset, n);
	if (is_signed && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	out->i = (int64_t)v;
	out->enum_name = NULL;
	for (size_t i = 0; en && i < en->nv; i++)
		if (en->v[i].value == out->i)
			out->enum_name = en->v[i].name;
	return 1;
}

int nvtx_payload_get(const struct nvtx_payloads *p, int64_t domain, const unsigned char *blob,
		     size_t len, const char *name, struct nvtx_pl_value *out)
{
	uint64_t count;

	if (!blob || len < 8)
		return 0;
	count = get_le(blob, 8);
	if (count > PAYLOADS_MAX || count > (len - 8) / 24)
		return 0;
	for (uint64_t k = 0; k < count; k++) {
		const unsigned char *h = blob + 8 + 24 * k;
		uint64_t id = get_le(h, 8), size = get_le(h + 8, 8), off = get_le(h + 16, 8);
		const struct nvtx_pl_schema *s = find_schema(p, domain, id);

		if (!s || off > len || size > len - off)
			continue;
		for (size_t i = 0; i < s->ne; i++)
			if (s->e[i].name && !strcmp(s->e[i].name, name))
				return read_entry(p, domain, &s->e[i], blob + off, size, out);
	}
	return 0;
}

int nvtx_payload_rows(struct trace *t,
		      int (*fn)(void *ctx, int64_t rowid, const unsigned char *blob, size_t len),
		      void *ctx, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!t->db || !trace_has_table(t, "NVTX_EVENTS"))
		return 0;
	/* an export older than the column lacks it: nothing to read */
	if (!nsysdb_has_column(t->db, "NVTX_EVENTS", "binaryData"))
		return 0;
	rc = prepare(t, "NVTX_EVENTS",
		     "SELECT rowid, binaryData FROM NVTX_EVENTS WHERE binaryData IS NOT NULL "
		     "ORDER BY rowid",
		     &st, err);
	if (rc <= 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *b = sqlite3_column_blob(st, 1);
		int n = sqlite3_column_bytes(st, 1);

		if (b && n > 0 && fn(ctx, sqlite3_column_int64(st, 0), b, (size_t)n)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	return finish(t, st, rc, "NVTX_EVENTS", err);
}
