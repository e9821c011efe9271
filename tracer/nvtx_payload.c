/* nvtx_payload.c: the NVTX payload extension (nvToolsExtPayload.h), as NCCL
 * 2.2x uses it: schemas and enums registered once per domain, and ranges
 * carrying binary payloads (nvtxDomainRangePushEx with an EXT payload,
 * nvtxRangePushPayload, nvtxRangePopPayload). The schemas go to the log as
 * definitions; a range's payload bytes follow its push (or precede its pop)
 * in the thread's buffer (docs/tracer.md "NVTX payloads").
 *
 * This runs on the program's (NCCL's) threads: nothing here blocks on the
 * hot path (a payload is one lock-free look-up and one reserve in the
 * thread's own buffer), nothing allocates, and a NULL or unknown input is
 * ignored. Bytes are read only for a schema this process registered, and
 * never more than its static size: NVTX obliges the caller to pass that
 * many valid bytes. Every other slot of the module stays NVTX's no-op. */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* types and constants only: the NVTX API itself stays the program's */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include "tracer.h"
#include "trace/tracer_env.h"

/* Per payload at most PL_KEEP bytes, per call at most PL_MAX payloads:
 * NCCL's payloads are 8 to 32 bytes, one per call; the caps bound what
 * each call costs on NCCL's hot path and in the log whatever a caller
 * claims. */
#define PL_KEEP 64u
#define PL_MAX 2u
/* Schemas kept per process (NCCL registers about 20), entries and name
 * bytes per schema: beyond them a schema is recorded cut or not at all. */
#define PL_SCHEMAS 256u
#define PL_ENTRIES 64u
#define PL_NAME 127u

struct known {
	uint64_t domain, id, size;
};
static struct known g_known[PL_SCHEMAS];
static unsigned g_nknown; /* published with release after the entry is written */
static pthread_mutex_t g_known_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_next_dynamic = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;

/* Static size of a schema this process registered in domain; 0 unknown. */
static uint64_t known_size(uint64_t domain, uint64_t id)
{
	unsigned n = __atomic_load_n(&g_nknown, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (g_known[i].id == id && g_known[i].domain == domain)
			return g_known[i].size;
	return 0;
}

/* Adds (domain, id) unless present; 1 when added (then recorded). */
static int remember(uint64_t domain, uint64_t id, uint64_t size)
{
	int added = 0;

	pthread_mutex_lock(&g_known_lock);
	if (!known_size(domain, id) && g_nknown < PL_SCHEMAS) {
		g_known[g_nknown] = (struct known){domain, id, size};
		__atomic_store_n(&g_nknown, g_nknown + 1, __ATOMIC_RELEASE);
		added = 1;
	}
	pthread_mutex_unlock(&g_known_lock);
	return added;
}

/* Bytes of the LP64 scalar entry types (natural alignment = size); 0 for
 * the others. */
static size_t scalar_size(uint64_t type)
{
	static const unsigned char size[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 8,  8, 1,
					     1, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8};

	return type < sizeof(size) ? size[type] : 0;
}

/* The schema id a registration gets: the caller's when it gives a valid
 * static one, else the next dynamic id. 0 = refuse. */
static uint64_t schema_id(uint64_t mask, uint64_t bit, uint64_t wanted)
{
	if (!(mask & bit))
		return __atomic_fetch_add(&g_next_dynamic, 1, __ATOMIC_RELAXED);
	if (wanted < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ||
	    wanted >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
		return 0;
	return wanted;
}

/* A schema or enum record under construction: fixed part, entries, names. */
struct def_buf {
	union {
		struct tlog_nvtx_pl_schema h;
		unsigned char b[sizeof(struct tlog_nvtx_pl_schema) +
				PL_ENTRIES * (sizeof(struct tlog_nvtx_pl_entry) + PL_NAME + 1) + 8];
	} u;
	size_t names; /* bytes of names written */
};

static void def_put(struct def_buf *d, uint32_t i, uint64_t type, uint64_t offset, const char *name)
{
	struct tlog_nvtx_pl_entry *e = (void *)(d->u.b + sizeof(d->u.h));
	unsigned char *names = (unsigned char *)(e + PL_ENTRIES);
	size_t n = name ? strnlen(name, PL_NAME) : 0;

	e[i].type = type;
	e[i].offset = offset;
	memcpy(names + d->names, name ? name : "", n);
	names[d->names + n] = '\0';
	d->names += n + 1;
}

/* Writes the record: entries moved down next to the fixed part. */
static void def_write(struct def_buf *d)
{
	size_t ents = d->u.h.n * sizeof(struct tlog_nvtx_pl_entry);
	unsigned char *e = d->u.b + sizeof(d->u.h);
	size_t size = TLOG_ALIGN8(sizeof(d->u.h) + ents + d->names);

	memmove(e + ents, e + PL_ENTRIES * sizeof(struct tlog_nvtx_pl_entry), d->names);
	memset(e + ents + d->names, 0, size - (sizeof(d->u.h) + ents + d->names));
	d->u.h.h.type = TLOG_NVTX_PL_SCHEMA;
	d->u.h.h.size = (uint16_t)size;
	d->u.h.ts = tracer_now();
	tracer_write_now(&d->u, size);
}

static uint64_t NVTX_API schema_register(nvtxDomainHandle_t dom, const nvtxPayloadSchemaAttr_t *a)
{
	uint64_t domain = (uint64_t)(uintptr_t)dom, id, size = 0, at = 0, m;
	struct def_buf d;
	size_t n;

	if (!a || !tracer_enabled())
		return 0;
	m = a->fieldMask;
	if (!(m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES) || !a->entries ||
	    !(m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES) || !a->numEntries)
		return 0;
	if (!(id = schema_id(m, NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID, a->schemaId)))
		return 0;
	n = a->numEntries < PL_ENTRIES ? a->numEntries : PL_ENTRIES;
	memset(&d.u.h, 0, sizeof(d.u.h));
	d.names = 0;
	for (size_t i = 0; i < n; i++) {
		const nvtxPayloadSchemaEntry_t *e = &a->entries[i];
		size_t sz = scalar_size(e->type);
		uint64_t off = e->offset;

		/* offset 0 past the first entry: packed at natural alignment */
		if (!off && i && sz)
			off = (at + sz - 1) / sz * sz;
		def_put(&d, (uint32_t)i, e->type, off, e->name);
		at = off + sz;
		if (sz && off + sz > size)
			size = off + sz;
	}
	if (m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE)
		size = a->payloadStaticSize;
	if ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE) && a->type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)
		size = 0; /* only static layouts are copied */
	d.u.h.domain = domain;
	d.u.h.id = id;
	d.u.h.type = (m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE) ? a->type : 0;
	d.u.h.flags = (m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS) ? a->flags : 0;
	d.u.h.size = size;
	d.u.h.n = (uint32_t)n;
	if (remember(domain, id, size ? size : (uint64_t)-1))
		def_write(&d);
	return id;
}

static uint64_t NVTX_API enum_register(nvtxDomainHandle_t dom, const nvtxPayloadEnumAttr_t *a)
{
	uint64_t domain = (uint64_t)(uintptr_t)dom, id, m;
	struct def_buf d;
	size_t n;

	if (!a || !tracer_enabled())
		return 0;
	m = a->fieldMask;
	if (!(m & NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES) || !a->entries ||
	    !(m & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES) || !a->numEntries)
		return 0;
	if (!(id = schema_id(m, NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID, a->schemaId)))
		return 0;
	n = a->numEntries < PL_ENTRIES ? a->numEntries : PL_ENTRIES;
	memset(&d.u.h, 0, sizeof(d.u.h));
	d.names = 0;
	for (size_t i = 0; i < n; i++)
		def_put(&d, (uint32_t)i, a->entries[i].value, a->entries[i].isFlag ? 1 : 0,
			a->entries[i].name);
	d.u.h.h.aux = TLOG_PL_ENUM;
	d.u.h.domain = domain;
	d.u.h.id = id;
	d.u.h.size = (m & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE) ? a->sizeOfEnum : 4;
	d.u.h.n = (uint32_t)n;
	/* an enum is no payload layout: remembered with no size, so a payload
	 * naming it is not copied */
	if (remember(domain, id, (uint64_t)-1))
		def_write(&d);
	return id;
}

void tracer_nvtx_payload(uint64_t domain, const void *data, size_t count)
{
	const nvtxPayloadData_t *pd = data;
	struct tlog_nvtx_payload *r;
	uint32_t keep[PL_MAX];
	size_t size = sizeof(*r);
	unsigned char *p;
	uint32_t n = 0;

	if (!pd || !count || !tracer_enabled())
		return;
	if (count > PL_MAX)
		count = PL_MAX;
	for (size_t i = 0; i < count; i++) {
		uint64_t s = known_size(domain, pd[i].schemaId);

		keep[i] = 0;
		if (!pd[i].payload || !pd[i].size || !s || s == (uint64_t)-1)
			continue;
		if (s > pd[i].size)
			s = pd[i].size;
		keep[i] = (uint32_t)(s < PL_KEEP ? s : PL_KEEP);
		size += sizeof(struct tlog_nvtx_pl_data) + TLOG_ALIGN8(keep[i]);
		n++;
	}
	if (!n || !(r = tracer_reserve(size)))
		return;
	r->h.type = TLOG_NVTX_PAYLOAD;
	r->h.size = (uint16_t)size;
	r->h.aux = n;
	r->ts = tracer_now();
	r->domain = domain;
	p = (unsigned char *)(r + 1);
	for (size_t i = 0; i < count; i++) {
		struct tlog_nvtx_pl_data *x = (void *)p;

		if (!keep[i])
			continue;
		x->schema_id = pd[i].schemaId;
		x->kept = keep[i];
		memcpy(x + 1, pd[i].payload, keep[i]);
		p += sizeof(*x) + TLOG_ALIGN8(keep[i]);
	}
	tracer_commit();
}

int tracer_nvtx_ext_init(void *module_info)
{
	nvtxExtModuleInfo_t *mi = module_info;
	nvtxExtModuleSegment_t *seg;

	/* Only the payload module, in the layouts this file was checked
	 * against (compat 0x0103: NCCL 2.28's copy; 0x0104: CUDA 13's);
	 * counters, memory and anything newer are declined: NVTX then makes
	 * their calls no-ops. */
	if (!mi || mi->structSize < sizeof(*mi) || mi->nvtxVer != NVTX_VERSION ||
	    mi->moduleId != NVTX_EXT_PAYLOAD_MODULEID ||
	    (mi->compatId != 0x0103 && mi->compatId != 0x0104) || mi->segmentsCount != 1 ||
	    !(seg = mi->segments) || !seg->functionSlots ||
	    seg->slotCount <= NVTX3EXT_CBID_nvtxRangePopPayload)
		return 0;
	if (tracer_env_u64(TRACER_ENV_NVTX_PAYLOADS, 1, 1) == 0 || tracer_init(TLOG_F_NVTX) < 0)
		return 0;
	seg->functionSlots[NVTX3EXT_CBID_nvtxPayloadSchemaRegister] = (intptr_t)schema_register;
	seg->functionSlots[NVTX3EXT_CBID_nvtxPayloadEnumRegister] = (intptr_t)enum_register;
	seg->functionSlots[NVTX3EXT_CBID_nvtxRangePushPayload] = (intptr_t)tracer_nvtx_push_payload;
	seg->functionSlots[NVTX3EXT_CBID_nvtxRangePopPayload] = (intptr_t)tracer_nvtx_pop_payload;
	return 1;
}
