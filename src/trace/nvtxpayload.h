/* nvtxpayload.h: NVTX extended payloads in a trace (what NCCL attaches to
 * its API ranges: communicator, message size, reduction operation; see
 * docs/collectives.md "Bytes").
 *
 * Both backends store them alike: `nsys export --include-blobs true` and
 * llmprof's trace.sqlite (tosqlite.h) have the registered schemas in
 * NVTX_PAYLOAD_SCHEMAS / NVTX_PAYLOAD_SCHEMA_ENTRIES, enum schemas in
 * NVTX_PAYLOAD_ENUMS / NVTX_PAYLOAD_ENUM_ENTRIES, and each event's payloads
 * in NVTX_EVENTS.binaryData, laid out as nsys writes it (little-endian):
 *   u64 count; count x {u64 schemaId, u64 size, u64 offset}; data
 * where a payload's data is size bytes at offset from the blob's start.
 * An export without blobs has the schemas and NULL binaryData.
 *
 * Entries are found by name within a schema of the event's domain. Values
 * are read for the scalar entry types whose size does not depend on the
 * recording machine beyond LP64 (the only ABI NCCL runs on) and for enum
 * schemas; anything else, or an entry outside its payload, is not found.
 *
 * struct nvtx_payloads owns everything it points to;
 * nvtx_payloads_release(). */
#ifndef LLMPROF_NVTXPAYLOAD_H
#define LLMPROF_NVTXPAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "trace/trace.h"

/* Entry types of nvToolsExtPayload.h that decoding relies on. */
#define NVTX_PL_TYPE_SIZE 22		/* NVTX_PAYLOAD_ENTRY_TYPE_SIZE: size_t */
#define NVTX_PL_STATIC_START (1u << 24) /* NVTX_PAYLOAD_ENTRY_TYPE_SCHEMA_ID_STATIC_START */

/* Bytes an entry of a scalar type takes (LP64), 0 for any other type;
 * *is_signed says how to widen it. */
size_t nvtx_pl_type_size(uint64_t type, int *is_signed);

struct nvtx_pl_entry {
	char *name; /* owned; NULL when unnamed */
	uint64_t type, offset;
};

struct nvtx_pl_schema {
	int64_t domain;
	uint64_t id, size;	 /* size: the static payload's, 0 = not given */
	struct nvtx_pl_entry *e; /* owned */
	size_t ne;
};

struct nvtx_pl_enum_value {
	char *name; /* owned */
	int64_t value;
};

struct nvtx_pl_enum {
	int64_t domain;
	uint64_t id, size;	      /* size: bytes of the enum type */
	struct nvtx_pl_enum_value *v; /* owned */
	size_t nv;
};

struct nvtx_payloads {
	int tables;		  /* the trace has NVTX_PAYLOAD_SCHEMAS */
	struct nvtx_pl_schema *s; /* by (domain, id); owned */
	size_t ns;
	struct nvtx_pl_enum *en; /* owned */
	size_t nen;
};

/* The schema and enum tables of t into *p (zeroed first); every table
 * missing reads as empty. 0, or -1 with err on a read error. */
int nvtx_payloads_load(struct trace *t, struct nvtx_payloads *p, struct strbuf *err);
void nvtx_payloads_release(struct nvtx_payloads *p);

/* A decoded entry. enum_name: the value's name when the entry's type is an
 * enum schema that names it, else NULL (borrowed from p). */
struct nvtx_pl_value {
	int64_t i;
	const char *enum_name;
};

/* Finds the entry called name in the payloads of blob[0..len) (schemas of
 * domain) and reads it: 1 and *out, or 0 when no payload of the blob has
 * it, the blob is malformed or the value lies outside its payload. */
int nvtx_payload_get(const struct nvtx_payloads *p, int64_t domain, const unsigned char *blob,
		     size_t len, const char *name, struct nvtx_pl_value *out);

/* Calls fn for every NVTX_EVENTS row with a non-empty binaryData, in rowid
 * order; a non-zero return from fn stops the walk. 0 when the walk ended
 * (also without the column), or -1 with err on a read error. */
int nvtx_payload_rows(struct trace *t,
		      int (*fn)(void *ctx, int64_t rowid, const unsigned char *blob, size_t len),
		      void *ctx, struct strbuf *err);

#endif
