/* tosqlite.c: builtin tracer logs -> nsys-schema SQLite (see tosqlite.h).
 *
 * Each log is read twice from memory: pass 1 collects definitions (process,
 * clock, domains, registered strings, API and kernel names, correlation
 * aliases, devices, diagnostics), pass 2 emits rows, so nothing depends on
 * the order in which threads' chunks reached the file. Rows go through
 * prepared statements in one transaction with the journal off. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/perfetto.h"
#include "trace/strtab.h"
#include "trace/tosqlite.h"
#include "trace/tracer_env.h"
#include "version.h"
#include "core/banned.h"

#define VM_ID ((int64_t)1 << 48)

int64_t tosqlite_global_pid(uint32_t pid)
{
	return VM_ID | ((int64_t)(pid & 0xffffff) << 24);
}

int64_t tosqlite_global_tid(uint32_t pid, uint32_t tid)
{
	return tosqlite_global_pid(pid) | (int64_t)(tid & 0xffffff);
}

int tosqlite_mem_kind(uint8_t k)
{
	return k == 0 || k > 7 ? 7 : k - 1;
}

int tosqlite_launch_type(uint8_t t)
{
	return t <= 2 ? t + 1 : 0;
}

void tosqlite_short_name(struct strbuf *out, const char *s)
{
	size_t n = strlen(s), end = n, begin;
	int depth;

	strbuf_reset(out);
	/* Drop a trailing parameter list "(...)" (and cv/ref qualifiers after it). */
	while (end && (s[end - 1] == ' ' || s[end - 1] == '&'))
		end--;
	if (end >= 5 && strncmp(s + end - 5, "const", 5) == 0)
		end -= 5;
	while (end && s[end - 1] == ' ')
		end--;
	if (end && s[end - 1] == ')') {
		depth = 0;
		while (end) {
			char c = s[--end];
			if (c == ')')
				depth++;
			else if (c == '(' && --depth == 0)
				break;
		}
	}
	/* Drop trailing template arguments "<...>". */
	while (end && s[end - 1] == ' ')
		end--;
	if (end && s[end - 1] == '>') {
		depth = 0;
		while (end) {
			char c = s[--end];
			if (c == '>')
				depth++;
			else if (c == '<' && --depth == 0)
				break;
		}
	}
	/* Start after the last "::" or space (return type) at depth 0. */
	begin = end;
	depth = 0;
	while (begin) {
		char c = s[begin - 1];
		if (c == '>' || c == ')')
			depth++;
		else if (c == '<' || c == '(')
			depth--;
		else if (depth == 0 && (c == ' ' || c == ':'))
			break;
		begin--;
	}
	if (begin >= end) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_add(out, s + begin, end - begin);
}

/* Timestamps relative to the session start. A damaged log can hold any
 * 64-bit value: the arithmetic wraps (unsigned) instead of overflowing. */
static int64_t rel_ts(const struct tosqlite_ctx *c, int64_t t)
{
	return (int64_t)((uint64_t)t - (uint64_t)c->t0);
}

static int64_t gpu_ts(const struct tosqlite_ctx *c, uint64_t t)
{
	return (int64_t)(t + (uint64_t)c->gpu_shift - (uint64_t)c->t0);
}

void tosqlite_kernel_row(struct kernel_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_kernel *k, const int64_t names[3], uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, k->start);
	r->end = gpu_ts(c, k->end);
	r->deviceId = k->device;
	r->contextId = k->context;
	r->greenContextId = 0;
	r->streamId = k->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->demangledName = names[0];
	r->shortName = names[1];
	r->mangledName = names[2];
	r->launchType = tosqlite_launch_type(k->launch_type);
	r->cacheConfig = k->cache_config;
	r->registersPerThread = k->registers;
	r->gridX = k->grid[0];
	r->gridY = k->grid[1];
	r->gridZ = k->grid[2];
	r->blockX = k->block[0];
	r->blockY = k->block[1];
	r->blockZ = k->block[2];
	r->staticSharedMemory = k->static_smem;
	r->dynamicSharedMemory = k->dynamic_smem;
	r->localMemoryPerThread = k->local_per_thread;
	r->localMemoryTotal = k->local_total;
	r->gridId = k->grid_id;
	r->sharedMemoryExecuted = k->smem_executed;
	r->graphNodeId = (int64_t)k->graph_node_id;
	r->graphNodeId_null = k->graph_node_id == 0;
	r->sharedMemoryLimitConfig = k->smem_limit_config;
}

void tosqlite_memcpy_row(struct memcpy_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memcpy *m, uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, m->start);
	r->end = gpu_ts(c, m->end);
	r->deviceId = m->device;
	r->contextId = m->context;
	r->streamId = m->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->bytes = (int64_t)m->bytes;
	r->copyKind = m->copy_kind; /* CUPTI and nsys agree on 0..10 */
	r->srcKind = tosqlite_mem_kind(m->src_kind);
	r->dstKind = tosqlite_mem_kind(m->dst_kind);
	r->srcDeviceId = m->src_device;
	r->srcContextId = m->src_context;
	r->dstDeviceId = m->dst_device;
	r->dstContextId = m->dst_context;
	r->graphNodeId = (int64_t)m->graph_node_id;
	r->graphNodeId_null = m->graph_node_id == 0;
}

void tosqlite_memset_row(struct memset_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memset *m, uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, m->start);
	r->end = gpu_ts(c, m->end);
	r->deviceId = m->device;
	r->contextId = m->context;
	r->streamId = m->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->value = m->value;
	r->bytes = (int64_t)m->bytes;
	r->graphNodeId = (int64_t)m->graph_node_id;
	r->graphNodeId_null = m->graph_node_id == 0;
	r->memKind = tosqlite_mem_kind(m->mem_kind);
}

void tosqlite_runtime_row(struct runtime_row *r, const struct tosqlite_ctx *c,
			  const struct tlog_api *a, uint32_t tid, int64_t name_id)
{
	int64_t shift = 0;

	if (a->h.type == TLOG_API_ACT) {
		tid = a->tid;
		shift = c->gpu_shift;
	}
	r->start = rel_ts(c, (int64_t)((uint64_t)a->start + (uint64_t)shift));
	r->end = rel_ts(c, (int64_t)((uint64_t)a->end + (uint64_t)shift));
	r->eventClass = a->h.aux == TLOG_API_DRIVER ? 1 : 0; /* ENUM_NSYS_EVENT_CLASS */
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	r->correlationId = a->corr;
	r->nameId = name_id;
	r->returnValue = a->ret;
}

static int cmp_span(const void *pa, const void *pb)
{
	const struct api_span *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->driver != b->driver) /* the runtime call encloses, so first */
		return a->driver ? 1 : -1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

void tosqlite_api_nest(struct api_span *v, size_t n)
{
	const struct api_span *rt = NULL; /* latest runtime call of this thread */
	size_t i;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_span);
	for (i = 0; i < n; i++) {
		struct api_span *s = &v[i];
		if (rt && rt->tid != s->tid)
			rt = NULL;
		s->parent = 0;
		if (!s->driver) {
			rt = s; /* runtime calls do not nest in each other */
			continue;
		}
		if (rt && s->start >= rt->start && s->end <= rt->end)
			s->parent = rt->corr;
	}
}

static void nvtx_attrs(struct nvtx_row *r, const struct tlog_nvtx_event *e, int64_t text_id)
{
	r->domainId = (int64_t)e->domain;
	if (e->category) {
		r->category = e->category;
		r->has_category = 1;
	}
	if (e->has_color) {
		r->color = e->color;
		r->has_color = 1;
	}
	if (e->h.aux == TLOG_MSG_REGISTERED && text_id >= 0) {
		r->textId = text_id;
		r->has_textId = 1;
	} else if (e->h.aux == TLOG_MSG_TEXT) {
		r->text = tlog_rec_string(&e->h, sizeof(*e), e->len);
		r->has_text = 1;
	}
	r->payload_type = e->payload_type;
	r->payload = e->payload;
}

void tosqlite_nvtx_range_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			     const struct tlog_nvtx_event *b, uint32_t begin_tid, int64_t end_ts,
			     uint32_t end_tid, int64_t text_id)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)b->ts);
	if (end_ts >= 0) {
		r->end = rel_ts(c, end_ts);
		r->has_end = 1;
	}
	r->eventType = b->h.type == TLOG_NVTX_PUSH ? 59 : 60;
	r->globalTid = tosqlite_global_tid(c->pid, begin_tid);
	if (b->h.type == TLOG_NVTX_START) {
		r->rangeId = (int64_t)b->id;
		r->has_rangeId = 1;
		/* Like nsys: set only when the range ended on another thread. */
		if (end_ts >= 0 && end_tid != begin_tid) {
			r->endGlobalTid = tosqlite_global_tid(c->pid, end_tid);
			r->has_endGlobalTid = 1;
		}
	}
	nvtx_attrs(r, b, text_id);
}

void tosqlite_nvtx_mark_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			    const struct tlog_nvtx_event *m, uint32_t tid, int64_t text_id)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)m->ts);
	r->eventType = 34;
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	nvtx_attrs(r, m, text_id);
}

void tosqlite_nvtx_def_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			   const struct tlog_nvtx_def *d, uint32_t tid)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)d->ts);
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	r->text = tlog_rec_string(&d->h, sizeof(*d), d->len);
	r->has_text = 1;
	if (d->h.type == TLOG_NVTX_DOMAIN) {
		r->eventType = 75;
		r->domainId = (int64_t)d->id;
	} else {
		r->eventType = 33;
		r->category = (int64_t)d->id;
		r->has_category = 1;
		r->domainId = (int64_t)d->ref;
	}
}

/* ---- small maps ---------------------------------------------------------- */

/* u64 -> u64 open addressing; key 0 is reserved (stored aside). */
struct u64map {
	uint64_t *keys, *vals;
	size_t cap, n;
	int has_zero;
	uint64_t zero_val;
};

/* Keys are mostly sequential (correlation ids, string ids): keeping them in
 * sequential slots is collision-free and cache-friendly, which a mixing
 * hash is not (it made lookups the top cost at 1M records). */
static uint64_t mix64(uint64_t x)
{
	return x ^ (x >> 32);
}

static void u64map_put(struct u64map *m, uint64_t k, uint64_t v);

static void u64map_grow(struct u64map *m)
{
	struct u64map n = {0};
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = xcalloc(n.cap, sizeof(*n.keys));
	n.vals = xcalloc(n.cap, sizeof(*n.vals));
	n.has_zero = m->has_zero;
	n.zero_val = m->zero_val;
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

static void u64map_put(struct u64map *m, uint64_t k, uint64_t v)
{
	size_t i;

	if (!k) {
		m->has_zero = 1;
		m->zero_val = v;
		return;
	}
	if ((m->n + 1) * 2 > m->cap)
		u64map_grow(m);
	for (i = mix64(k) & (m->cap - 1); m->keys[i] && m->keys[i] != k; i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
}

static int u64map_get(const struct u64map *m, uint64_t k, uint64_t *v)
{
	size_t i;

	if (!k) {
		if (m->has_zero)
			*v = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return 0;
	for (i = mix64(k) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			*v = m->vals[i];
			return 1;
		}
	return 0;
}

static void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- SQL ---------------------------------------------------------------- */

static const char schema_sql[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
    "rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
    "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, "
    "int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, "
    "floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    "demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
    "launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, "
    "gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
    "blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, "
    "staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
    "localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
    "gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, "
    "sharedMemoryLimitConfig INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, "
    "nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    "bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, "
    "srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, "
    "dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, "
    "graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
    "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
    "value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);\n"
    "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, "
    "busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, "
    "memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, "
    "uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, "
    "ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, "
    "maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, "
    "maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, "
    "threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, "
    "maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, "
    "maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, "
    "maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, "
    "smMinor INTEGER);\n"
    "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);\n"
    "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);\n"
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, "
    "localTime TEXT);\n"
    "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);\n"
    "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label "
    "TEXT);\n"
    "CREATE TABLE ENUM_CUDA_FUNC_CACHE_CONFIG (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label "
    "TEXT);\n"
    "CREATE TABLE ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
    "label TEXT);\n"
    "CREATE TABLE LLMPROF_TRACER_DIAGNOSTICS (globalPid INTEGER, timestamp INTEGER, "
    "level TEXT, code INTEGER, message TEXT);\n";

/* ENUM rows as nsys writes them (ids, names and labels checked against the
 * nsys 2025.3 export in shared/fixtures/nsys). */
static const char enum_sql[] =
    "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES "
    "(33,'NvtxCategory','NvtxCategory'),(34,'NvtxMark','NvtxMark'),"
    "(35,'NvtxPushRange','NvtxPushRange'),(36,'NvtxPopRange','NvtxPopRange'),"
    "(37,'NvtxStartRange','NvtxStartRange'),(38,'NvtxEndRange','NvtxEndRange'),"
    "(39,'NvtxThread','NvtxThread'),(59,'NvtxPushPopRange','NvtxPushPopRange'),"
    "(60,'NvtxStartEndRange','NvtxStartEndRange'),(75,'NvtxDomainCreate','NvtxDomainCreate'),"
    "(76,'NvtxDomainDestroy','NvtxDomainDestroy');\n"
    "INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES "
    "(0,'TRACE_PROCESS_EVENT_CUDA_RUNTIME','CUDA runtime'),"
    "(1,'TRACE_PROCESS_EVENT_CUDA_DRIVER','CUDA driver');\n"
    "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES "
    "(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),"
    "(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array'),"
    "(4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host'),(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array'),"
    "(6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device'),(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array'),"
    "(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device'),(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host'),"
    "(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer'),"
    "(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device'),"
    "(12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host'),"
    "(13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device');\n"
    "INSERT INTO ENUM_CUDA_MEM_KIND VALUES "
    "(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable'),(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned'"
    "),"
    "(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device'),(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array'),"
    "(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed'),"
    "(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static'),"
    "(6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static'),"
    "(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');\n"
    "INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES "
    "(0,'CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN','Unknown'),(1,'CUDA_KERNEL_LAUNCH_TYPE_REGULAR','Regular'"
    "),"
    "(2,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE','Coop Single Device'),"
    "(3,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE','Coop Multi Device');\n"
    "INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES "
    "(0,'CU_FUNC_CACHE_PREFER_NONE','None'),(1,'CU_FUNC_CACHE_PREFER_SHARED','Shared'),"
    "(2,'CU_FUNC_CACHE_PREFER_L1','L1'),(3,'CU_FUNC_CACHE_PREFER_EQUAL','Equal');\n"
    "INSERT INTO ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG VALUES "
    "(0,'CUDA_SHARED_MEM_LIMIT_DEFAULT','Default'),(1,'CUDA_SHARED_MEM_LIMIT_OPTIN','Opt in');\n";

enum stmt_id {
	S_STRING,
	S_NVTX,
	S_KERNEL,
	S_RUNTIME,
	S_MEMCPY,
	S_MEMSET,
	S_GPU,
	S_THREAD,
	S_PROCESS,
	S_META,
	S_DIAG,
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
    "INSERT INTO StringIds VALUES (?,?)",
    "INSERT INTO NVTX_EVENTS (start,end,eventType,rangeId,category,color,text,globalTid,"
    "endGlobalTid,textId,domainId,uint64Value,int64Value,doubleValue,uint32Value,int32Value,"
    "floatValue) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
    "?,?,?,?,?,?,?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,NULL)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start,end,deviceId,contextId,greenContextId,"
    "streamId,correlationId,globalPid,bytes,copyKind,srcKind,dstKind,srcDeviceId,srcContextId,"
    "dstDeviceId,dstContextId,graphNodeId) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO TARGET_INFO_GPU (vmId,id,name,isDiscrete,l2CacheSize,totalMemory,"
    "memoryBandwidth,clockRate,smCount,uuid,cuDevice,constantMemory,maxRegistersPerBlock,"
    "maxShmemPerBlock,maxShmemPerSm,maxRegistersPerSm,threadsPerWarp,asyncEngines,"
    "maxWarpsPerSm,maxBlocksPerSm,maxThreadsPerBlock,maxBlockDimX,maxBlockDimY,maxBlockDimZ,"
    "maxGridDimX,maxGridDimY,maxGridDimZ,computeMajor,computeMinor,smMajor,smMinor) VALUES "
    "(?,?,?,1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO ThreadNames VALUES (?,?,?)",
    "INSERT INTO PROCESSES VALUES (?,?,?)",
    "INSERT INTO META_DATA_EXPORT VALUES (?,?)",
    "INSERT INTO LLMPROF_TRACER_DIAGNOSTICS VALUES (?,?,?,?,?)",
};

struct conv {
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	uint64_t rows[S_COUNT]; /* rows each statement inserted */
	struct strtab strings;
	struct trace_convert_stats *stats;
	struct u64map devices_seen;
	int64_t t0;
	int failed;
	struct strbuf *err;
};

static int step(struct conv *c, enum stmt_id id)
{
	sqlite3_stmt *s = c->st[id];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		if (!c->failed)
			error_set(c->err, "sqlite: %s", sqlite3_errmsg(c->db));
		c->failed = 1;
		return -1;
	}
	c->rows[id]++;
	return 0;
}

/* Binds a row struct whose columns are n consecutive int64_t (the
 * *_row types), with the graphNodeId column (1-based null_col) NULL when the
 * row says so, and inserts it. 0 or -1 (c->failed set). */
static int insert_int_row(struct conv *c, enum stmt_id id, const int64_t *v, int n, int null_graph,
			  int null_col)
{
	sqlite3_stmt *s = c->st[id];

	for (int j = 0; j < n; j++)
		sqlite3_bind_int64(s, j + 1, v[j]);
	if (null_graph)
		sqlite3_bind_null(s, null_col);
	return step(c, id);
}

static void bind_text(sqlite3_stmt *s, int i, struct str t)
{
	sqlite3_bind_text(s, i, t.p, (int)t.len, SQLITE_TRANSIENT);
}

static void bind_opt(sqlite3_stmt *s, int i, int has, int64_t v)
{
	if (has)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static int64_t intern(struct conv *c, const char *p, size_t n)
{
	return strtab_intern(&c->strings, p, n); /* StringIds ids: dense from 0 */
}

static void put_nvtx(struct conv *c, const struct nvtx_row *r)
{
	sqlite3_stmt *s = c->st[S_NVTX];
	double d;
	float f;
	int i;

	sqlite3_bind_int64(s, 1, r->start);
	bind_opt(s, 2, r->has_end, r->end);
	sqlite3_bind_int64(s, 3, r->eventType);
	bind_opt(s, 4, r->has_rangeId, r->rangeId);
	bind_opt(s, 5, r->has_category, r->category);
	bind_opt(s, 6, r->has_color, r->color);
	if (r->has_text)
		bind_text(s, 7, r->text);
	else
		sqlite3_bind_null(s, 7);
	sqlite3_bind_int64(s, 8, r->globalTid);
	bind_opt(s, 9, r->has_endGlobalTid, r->endGlobalTid);
	bind_opt(s, 10, r->has_textId, r->textId);
	sqlite3_bind_int64(s, 11, r->domainId);
	for (i = 12; i <= 17; i++)
		sqlite3_bind_null(s, i);
	switch (r->payload_type) {
	case TLOG_PAYLOAD_U64:
		sqlite3_bind_int64(s, 12, (int64_t)r->payload);
		break;
	case TLOG_PAYLOAD_I64:
		sqlite3_bind_int64(s, 13, (int64_t)r->payload);
		break;
	case TLOG_PAYLOAD_DOUBLE:
		memcpy(&d, &r->payload, 8);
		sqlite3_bind_double(s, 14, d);
		break;
	case TLOG_PAYLOAD_U32:
		sqlite3_bind_int64(s, 15, (int64_t)(uint32_t)r->payload);
		break;
	case TLOG_PAYLOAD_I32:
		sqlite3_bind_int64(s, 16, (int32_t)(uint32_t)r->payload);
		break;
	case TLOG_PAYLOAD_FLOAT: {
		uint32_t bits = (uint32_t)r->payload;
		memcpy(&f, &bits, 4);
		sqlite3_bind_double(s, 17, f);
		break;
	}
	default:
		break;
	}
	if (step(c, S_NVTX) == 0)
		c->stats->nvtx_rows++;
}

/* Per-process state. */
struct open_push {
	const struct tlog_nvtx_event *ev;
	uint32_t tid;
};

struct thread_stack {
	uint32_t tid;
	struct open_push *v;
	size_t n, alloc;
};

struct pending {
	const struct tlog_nvtx_event *ev; /* start, or NULL */
	uint32_t tid;
	int64_t end_ts; /* end seen first: its ts, else -1 */
	uint32_t end_tid;
};

struct proc {
	struct tosqlite_ctx ctx;
	struct u64map strings;	 /* NVTX string id -> StringIds id */
	struct u64map api_names; /* domain<<32|cbid -> StringIds id */
	struct u64map aliases;	 /* driver corr -> runtime corr */
	struct u64map nested;	 /* corr of TLOG_API_ACT driver calls inside runtime calls */
	struct api_span *spans;	 /* TLOG_API_ACT records, for tosqlite_api_nest */
	size_t nspans, aspans;
	struct u64map kname;	/* kernel name id -> index into knames */
	struct u64map api_corr; /* corr ids of recorded launch calls (value 1) */
	struct u64map tnames;	/* tid+1 -> StringIds id | (OS name) << 63 */
	int64_t (*knames)[3];
	size_t nknames, aknames;
	struct thread_stack *threads;
	size_t nthreads, athreads;
	struct pending *pend;
	size_t npend, apend;
	struct u64map pend_by_id; /* range id -> index+1 into pend */
};

static int64_t text_id_for(struct proc *p, const struct tlog_nvtx_event *e)
{
	uint64_t v;
	if (e->h.aux == TLOG_MSG_REGISTERED && u64map_get(&p->strings, e->string_id, &v))
		return (int64_t)v;
	return -1;
}

static struct thread_stack *thread_of(struct proc *p, uint32_t tid)
{
	size_t i;
	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	ALLOC_GROW(p->threads, p->nthreads + 1, p->athreads);
	memset(&p->threads[p->nthreads], 0, sizeof(p->threads[0]));
	p->threads[p->nthreads].tid = tid;
	return &p->threads[p->nthreads++];
}

static void emit_range(struct conv *c, struct proc *p, const struct tlog_nvtx_event *b,
		       uint32_t btid, int64_t end_ts, uint32_t etid)
{
	struct nvtx_row r;
	tosqlite_nvtx_range_row(&r, &p->ctx, b, btid, end_ts, etid, text_id_for(p, b));
	put_nvtx(c, &r);
	if (end_ts < 0)
		c->stats->open_ranges++;
}

static void on_push(struct proc *p, const struct tlog_nvtx_event *e, uint32_t tid)
{
	struct thread_stack *t = thread_of(p, tid);
	ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n].ev = e;
	t->v[t->n].tid = tid;
	t->n++;
}

static void on_pop(struct conv *c, struct proc *p, const struct tlog_nvtx_end *e, uint32_t tid)
{
	struct thread_stack *t = thread_of(p, tid);
	size_t i = t->n;

	/* Pops pair with the latest push of the same domain on the thread. */
	while (i > 0 && t->v[i - 1].ev->domain != e->domain)
		i--;
	if (i == 0) {
		c->stats->unmatched_ends++;
		return;
	}
	emit_range(c, p, t->v[i - 1].ev, tid, (int64_t)e->ts, tid);
	memmove(&t->v[i - 1], &t->v[i], (t->n - i) * sizeof(t->v[0]));
	t->n--;
}

static struct pending *pending_for(struct proc *p, uint64_t id)
{
	uint64_t v;
	if (u64map_get(&p->pend_by_id, id, &v))
		return &p->pend[v - 1];
	ALLOC_GROW(p->pend, p->npend + 1, p->apend);
	memset(&p->pend[p->npend], 0, sizeof(p->pend[0]));
	p->pend[p->npend].end_ts = -1;
	u64map_put(&p->pend_by_id, id, ++p->npend);
	return &p->pend[p->npend - 1];
}

static void on_start(struct conv *c, struct proc *p, const struct tlog_nvtx_event *e, uint32_t tid)
{
	struct pending *q = pending_for(p, e->id);
	if (q->end_ts >= 0) {
		emit_range(c, p, e, tid, q->end_ts, q->end_tid);
		q->end_ts = -2; /* done */
		return;
	}
	q->ev = e;
	q->tid = tid;
}

static void on_end(struct conv *c, struct proc *p, const struct tlog_nvtx_end *e, uint32_t tid)
{
	struct pending *q = pending_for(p, e->id);
	if (q->ev && q->end_ts == -1) {
		emit_range(c, p, q->ev, q->tid, (int64_t)e->ts, tid);
		q->end_ts = -2;
		return;
	}
	if (q->end_ts != -1) {
		c->stats->unmatched_ends++; /* ended twice */
		return;
	}
	q->end_ts = (int64_t)e->ts;
	q->end_tid = tid;
}

static uint32_t map_corr(struct proc *p, uint32_t corr)
{
	uint64_t v;
	if (u64map_get(&p->aliases, corr, &v))
		return (uint32_t)v;
	return corr;
}

static void note_attribution(struct conv *c, struct proc *p, uint32_t corr)
{
	uint64_t v;
	if (!u64map_get(&p->api_corr, corr, &v))
		c->stats->unattributed++;
}

static const char *level_name(uint32_t l)
{
	return l == TLOG_DIAG_ERROR ? "error" : l == TLOG_DIAG_WARNING ? "warning" : "info";
}

/* Pass 1: definitions. */
static void pass1(struct conv *c, struct proc *p, struct tlog_reader *r, int *have_clock,
		  int64_t *clock_off)
{
	struct tlog_item it;
	struct strbuf sb = STRBUF_INIT;

	while (tlog_next(r, &it)) {
		const struct tlog_rec *h = it.rec;
		c->stats->records++;
		switch (h->type) {
		case TLOG_NVTX_STRING: {
			const struct tlog_nvtx_def *d = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*d), d->len);
			u64map_put(&p->strings, d->id, (uint64_t)intern(c, s.p, s.len));
			break;
		}
		case TLOG_API_NAME: {
			const struct tlog_api_name *a = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*a), a->len);
			u64map_put(&p->api_names, ((uint64_t)h->aux << 32) | a->cbid,
				   (uint64_t)intern(c, s.p, s.len));
			break;
		}
		case TLOG_CORR_ALIAS: {
			const struct tlog_corr_alias *a = (const void *)h;
			u64map_put(&p->aliases, a->from, a->to);
			break;
		}
		case TLOG_API: {
			const struct tlog_api *a = (const void *)h;
			u64map_put(&p->api_corr, a->corr, 1);
			break;
		}
		case TLOG_API_ACT: {
			const struct tlog_api *a = (const void *)h;
			struct api_span *sp;
			ALLOC_GROW(p->spans, p->nspans + 1, p->aspans);
			sp = &p->spans[p->nspans++];
			memset(sp, 0, sizeof(*sp));
			sp->start = a->start;
			sp->end = a->end;
			sp->tid = a->tid;
			sp->corr = a->corr;
			sp->driver = h->aux == TLOG_API_DRIVER;
			break;
		}
		case TLOG_KERNEL_NAME: {
			const struct tlog_kernel_name *k = (const void *)h;
			struct str m = tlog_rec_string(h, sizeof(*k), k->mangled_len);
			struct str d =
			    tlog_rec_string(h, sizeof(*k) + k->mangled_len + 1, k->demangled_len);
			ALLOC_GROW(p->knames, p->nknames + 1, p->aknames);
			p->knames[p->nknames][0] = intern(c, d.p, d.len);
			strbuf_reset(&sb);
			strbuf_add(&sb, d.p, d.len);
			{
				struct strbuf shortn = STRBUF_INIT;
				tosqlite_short_name(&shortn, sb.buf);
				p->knames[p->nknames][1] = intern(c, shortn.buf, shortn.len);
				strbuf_release(&shortn);
			}
			p->knames[p->nknames][2] = intern(c, m.p, m.len);
			u64map_put(&p->kname, k->id, p->nknames++);
			break;
		}
		case TLOG_CLOCK: {
			const struct tlog_clock *k = (const void *)h;
			if (k->cupti_ns) {
				*have_clock = 1;
				*clock_off = (int64_t)(k->tracer_ns -
						       k->cupti_ns); /* wraps, never overflows */
			}
			break;
		}
		case TLOG_THREAD_NAME: {
			/* One row per thread: an NVTX name beats the OS name, a
			 * later name of the same kind beats an earlier one. */
			const struct tlog_thread_name *t = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*t), t->len);
			uint64_t old;
			if (h->aux == 1 && u64map_get(&p->tnames, (uint64_t)t->tid + 1, &old) &&
			    !(old >> 63))
				break;
			u64map_put(&p->tnames, (uint64_t)t->tid + 1,
				   (uint64_t)intern(c, s.p, s.len) |
				       ((uint64_t)(h->aux == 1) << 63));
			break;
		}
		case TLOG_PROCESS: {
			const struct tlog_process *pr = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*pr), pr->len);
			sqlite3_stmt *st = c->st[S_PROCESS];
			size_t n = 0;
			while (n < s.len && s.p[n] != ' ')
				n++; /* process name = argv[0] */
			sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
			sqlite3_bind_int64(st, 2, pr->pid);
			sqlite3_bind_text(st, 3, s.p, (int)n, SQLITE_TRANSIENT);
			step(c, S_PROCESS);
			break;
		}
		case TLOG_DIAG: {
			const struct tlog_diag *d = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*d), d->len);
			sqlite3_stmt *st = c->st[S_DIAG];
			if (d->code == TLOG_DIAG_CUPTI_BUSY)
				c->stats->cupti_busy = 1;
			if (d->code == TLOG_DIAG_CUPTI_UNSUPPORTED)
				c->stats->cupti_unsupported = 1;
			strbuf_addf(&c->stats->diags, "pid %u: %s: %.*s\n", p->ctx.pid,
				    level_name(h->aux), (int)s.len, s.p);
			sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
			sqlite3_bind_int64(st, 2, (int64_t)((uint64_t)d->ts - (uint64_t)c->t0));
			sqlite3_bind_text(st, 3, level_name(h->aux), -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 4, d->code);
			bind_text(st, 5, s);
			step(c, S_DIAG);
			break;
		}
		case TLOG_DROPPED: {
			const struct tlog_dropped *d = (const void *)h;
			if (h->aux == 1)
				c->stats->dropped_tracer += d->count;
			else
				c->stats->dropped_cupti += d->count;
			break;
		}
		case TLOG_DEVICE: {
			const struct tlog_device *d = (const void *)h;
			struct str name = tlog_rec_string(h, sizeof(*d), d->len);
			sqlite3_stmt *st = c->st[S_GPU];
			char uuid[40];
			uint64_t seen;
			int i = 1;
			if (u64map_get(&c->devices_seen, (uint64_t)d->id + 1, &seen))
				break;
			u64map_put(&c->devices_seen, (uint64_t)d->id + 1, 1);
			for (int k = 0, o = 0; k < 16; k++) {
				static const char hex[] = "0123456789abcdef";
				if (k == 4 || k == 6 || k == 8 || k == 10)
					uuid[o++] = '-';
				uuid[o++] = hex[d->uuid[k] >> 4];
				uuid[o++] = hex[d->uuid[k] & 15];
				uuid[o] = '\0';
			}
			sqlite3_bind_int64(st, i++, VM_ID);
			sqlite3_bind_int64(st, i++, d->id);
			bind_text(st, i++, name);
			sqlite3_bind_int64(st, i++, d->l2_cache_size);
			sqlite3_bind_int64(st, i++, (int64_t)d->global_memory_size);
			/* KB/s -> B/s; a damaged record must not overflow */
			sqlite3_bind_int64(st, i++,
					   d->global_memory_bandwidth_kbs > INT64_MAX / 1000
					       ? INT64_MAX
					       : (int64_t)d->global_memory_bandwidth_kbs * 1000);
			sqlite3_bind_int64(st, i++, (int64_t)d->core_clock_khz * 1000);
			sqlite3_bind_int64(st, i++, d->sm_count);
			sqlite3_bind_text(st, i++, uuid, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, i++, d->id);
			sqlite3_bind_int64(st, i++, d->constant_memory);
			sqlite3_bind_int64(st, i++, d->max_regs_per_block);
			sqlite3_bind_int64(st, i++, d->max_shmem_per_block);
			sqlite3_bind_int64(st, i++, d->max_shmem_per_sm);
			sqlite3_bind_int64(st, i++, d->max_regs_per_sm);
			sqlite3_bind_int64(st, i++, d->threads_per_warp);
			sqlite3_bind_int64(st, i++, d->memcpy_engines);
			sqlite3_bind_int64(st, i++, d->max_warps_per_sm);
			sqlite3_bind_int64(st, i++, d->max_blocks_per_sm);
			sqlite3_bind_int64(st, i++, d->max_threads_per_block);
			for (int k = 0; k < 3; k++)
				sqlite3_bind_int64(st, i++, d->max_block_dim[k]);
			for (int k = 0; k < 3; k++)
				sqlite3_bind_int64(st, i++, d->max_grid_dim[k]);
			sqlite3_bind_int64(st, i++, d->cc_major);
			sqlite3_bind_int64(st, i++, d->cc_minor);
			sqlite3_bind_int64(st, i++, d->cc_major);
			sqlite3_bind_int64(st, i++, d->cc_minor);
			step(c, S_GPU);
			break;
		}
		default:
			break;
		}
	}
	strbuf_release(&sb);
}

/* After pass 1: fold driver calls made inside runtime calls (activity
 * source) into their runtime call. */
static void resolve_api_spans(struct proc *p)
{
	size_t i;

	tosqlite_api_nest(p->spans, p->nspans);
	for (i = 0; i < p->nspans; i++) {
		const struct api_span *s = &p->spans[i];
		if (!s->parent) {
			u64map_put(&p->api_corr, s->corr, 1);
			continue;
		}
		u64map_put(&p->nested, s->corr, 1);
		if (s->corr != s->parent)
			u64map_put(&p->aliases, s->corr, s->parent);
	}
	FREE_AND_NULL(p->spans);
	p->nspans = p->aspans = 0;
}

static void put_api(struct conv *c, struct proc *p, const struct tlog_api *a, uint32_t tid)
{
	struct runtime_row row;
	sqlite3_stmt *s = c->st[S_RUNTIME];
	uint64_t name;

	if (!u64map_get(&p->api_names, ((uint64_t)a->h.aux << 32) | a->cbid, &name)) {
		char buf[48];
		int n = snprintf(buf, sizeof(buf), "%s_cbid_%u",
				 a->h.aux == TLOG_API_DRIVER ? "driver" : "runtime", a->cbid);
		name = (uint64_t)intern(c, buf, (size_t)n);
	}
	tosqlite_runtime_row(&row, &p->ctx, a, tid, (int64_t)name);
	sqlite3_bind_int64(s, 1, row.start);
	sqlite3_bind_int64(s, 2, row.end);
	sqlite3_bind_int64(s, 3, row.eventClass);
	sqlite3_bind_int64(s, 4, row.globalTid);
	sqlite3_bind_int64(s, 5, row.correlationId);
	sqlite3_bind_int64(s, 6, row.nameId);
	sqlite3_bind_int64(s, 7, row.returnValue);
	if (step(c, S_RUNTIME) == 0)
		c->stats->api_calls++;
}

/* Pass 2: events. */
static void pass2(struct conv *c, struct proc *p, struct tlog_reader *r)
{
	struct tlog_item it;
	size_t i;

	while (tlog_next(r, &it) && !c->failed) {
		const struct tlog_rec *h = it.rec;
		switch (h->type) {
		case TLOG_NVTX_PUSH:
			on_push(p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_POP:
			on_pop(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_START:
			on_start(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_END:
			on_end(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_MARK: {
			struct nvtx_row row;
			const struct tlog_nvtx_event *e = (const void *)h;
			tosqlite_nvtx_mark_row(&row, &p->ctx, e, it.tid, text_id_for(p, e));
			put_nvtx(c, &row);
			break;
		}
		case TLOG_NVTX_DOMAIN:
		case TLOG_NVTX_CATEGORY: {
			struct nvtx_row row;
			tosqlite_nvtx_def_row(&row, &p->ctx, (const void *)h, it.tid);
			put_nvtx(c, &row);
			break;
		}
		case TLOG_API:
			put_api(c, p, (const void *)h, it.tid);
			break;
		case TLOG_API_ACT: {
			const struct tlog_api *a = (const void *)h;
			uint64_t v;
			if (h->aux == TLOG_API_DRIVER && u64map_get(&p->nested, a->corr, &v))
				break; /* part of its runtime call's row */
			put_api(c, p, a, it.tid);
			break;
		}
		case TLOG_KERNEL: {
			const struct tlog_kernel *k = (const void *)h;
			struct kernel_row row;
			int64_t unknown[3];
			const int64_t *names;
			uint64_t idx;
			uint32_t corr = map_corr(p, k->corr);
			if (u64map_get(&p->kname, k->name_id, &idx)) {
				names = p->knames[idx];
			} else {
				unknown[0] = unknown[1] = unknown[2] = intern(c, "<unknown>", 9);
				names = unknown;
			}
			tosqlite_kernel_row(&row, &p->ctx, k, names, corr);
			note_attribution(c, p, corr);
			if (insert_int_row(c, S_KERNEL, &row.start, 28, row.graphNodeId_null, 27) ==
			    0)
				c->stats->kernels++;
			break;
		}
		case TLOG_MEMCPY: {
			const struct tlog_memcpy *m = (const void *)h;
			struct memcpy_row row;
			uint32_t corr = map_corr(p, m->corr);
			tosqlite_memcpy_row(&row, &p->ctx, m, corr);
			note_attribution(c, p, corr);
			if (insert_int_row(c, S_MEMCPY, &row.start, 17, row.graphNodeId_null, 17) ==
			    0)
				c->stats->memcpys++;
			break;
		}
		case TLOG_MEMSET: {
			const struct tlog_memset *m = (const void *)h;
			struct memset_row row;
			uint32_t corr = map_corr(p, m->corr);
			tosqlite_memset_row(&row, &p->ctx, m, corr);
			note_attribution(c, p, corr);
			if (insert_int_row(c, S_MEMSET, &row.start, 12, row.graphNodeId_null, 11) ==
			    0)
				c->stats->memsets++;
			break;
		}
		default:
			break;
		}
	}
	/* Ranges still open when the log ends (crash, missing pop/end). */
	for (i = 0; i < p->nthreads; i++) {
		struct thread_stack *t = &p->threads[i];
		for (size_t j = 0; j < t->n; j++)
			emit_range(c, p, t->v[j].ev, t->v[j].tid, -1, 0);
	}
	for (i = 0; i < p->npend; i++) {
		struct pending *q = &p->pend[i];
		if (q->end_ts == -2)
			continue;
		if (q->ev)
			emit_range(c, p, q->ev, q->tid, -1, 0);
		else
			c->stats->unmatched_ends++;
	}
}

static void proc_release(struct proc *p)
{
	size_t i;
	u64map_free(&p->strings);
	u64map_free(&p->api_names);
	u64map_free(&p->aliases);
	u64map_free(&p->nested);
	free(p->spans);
	u64map_free(&p->kname);
	u64map_free(&p->api_corr);
	u64map_free(&p->tnames);
	u64map_free(&p->pend_by_id);
	free(p->knames);
	for (i = 0; i < p->nthreads; i++)
		free(p->threads[i].v);
	free(p->threads);
	free(p->pend);
}

void trace_convert_stats_init(struct trace_convert_stats *st)
{
	memset(st, 0, sizeof(*st));
	strbuf_init(&st->diags, 0);
}

void trace_convert_stats_release(struct trace_convert_stats *st)
{
	strbuf_release(&st->diags);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of log files in dir; returns count or -1. */
static int list_logs(const char *dir, char ***out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	if (!d)
		return error_errno(err, "cannot open trace log directory '%s'", dir);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), pl = strlen(TRACER_LOG_PREFIX),
		       sl = strlen(TRACER_LOG_SUFFIX);
		if (len <= pl + sl || strncmp(e->d_name, TRACER_LOG_PREFIX, pl) ||
		    strcmp(e->d_name + len - sl, TRACER_LOG_SUFFIX))
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (int)n;
}

static void put_meta(struct conv *c, const char *k, const char *v)
{
	sqlite3_bind_text(c->st[S_META], 1, k, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(c->st[S_META], 2, v, -1, SQLITE_TRANSIENT);
	step(c, S_META);
}

/* nsys exports are lazy: tables without rows are absent. Do the same so
 * readers (and nsys stats) see "no data" the way they do for nsys. Every row
 * of these tables went in through step(), which counted it: no query needed
 * to find the empty ones. */
static int drop_empty_tables(struct conv *c)
{
	static const struct {
		const char *table;
		enum stmt_id id;
	} t[] = {
	    {"NVTX_EVENTS", S_NVTX},
	    {"CUPTI_ACTIVITY_KIND_KERNEL", S_KERNEL},
	    {"CUPTI_ACTIVITY_KIND_RUNTIME", S_RUNTIME},
	    {"CUPTI_ACTIVITY_KIND_MEMCPY", S_MEMCPY},
	    {"CUPTI_ACTIVITY_KIND_MEMSET", S_MEMSET},
	    {"TARGET_INFO_GPU", S_GPU},
	    {"ThreadNames", S_THREAD},
	    {"LLMPROF_TRACER_DIAGNOSTICS", S_DIAG},
	};
	struct strbuf q = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]) && !ret; i++) {
		if (c->rows[t[i].id])
			continue;
		strbuf_reset(&q);
		strbuf_addf(&q, "DROP TABLE %s", t[i].table);
		if (sqlite3_exec(c->db, q.buf, NULL, NULL, NULL) != SQLITE_OK)
			ret = error_set(c->err, "sqlite: %s", sqlite3_errmsg(c->db));
	}
	strbuf_release(&q);
	return ret;
}

int trace_convert(const char *log_dir, const char *sqlite_path, const char *json_path,
		  struct trace_convert_stats *st_out, struct strbuf *err)
{
	struct trace_convert_stats st_local;
	struct trace_convert_stats *st = st_out;
	struct conv c;
	char **files = NULL;
	struct strbuf *bufs = NULL;
	struct tlog_reader *readers = NULL;
	int nfiles = 0, nread = 0, i, ret = -1;
	struct strbuf tmp = STRBUF_INIT, path = STRBUF_INIT, problems = STRBUF_INIT;
	uint64_t t_begin = clock_mono_ns();
	char num[64];

	if (!st) {
		trace_convert_stats_init(&st_local);
		st = &st_local;
	}
	memset(&c, 0, sizeof(c));
	c.stats = st;
	c.err = err;

	nfiles = list_logs(log_dir, &files, err);
	if (nfiles < 0)
		goto out;
	if (nfiles == 0) {
		error_set(err,
			  "no trace logs (" TRACER_LOG_PREFIX "*" TRACER_LOG_SUFFIX
			  ") in '%s': the tracer was not loaded, or LLMPROF_TRACE_OUT was not set",
			  log_dir);
		goto out;
	}
	bufs = xcalloc((size_t)nfiles, sizeof(*bufs));
	readers = xcalloc((size_t)nfiles, sizeof(*readers));
	c.t0 = INT64_MAX;
	for (i = 0; i < nfiles; i++) {
		strbuf_reset(&path);
		path_join(&path, log_dir, files[i]);
		strbuf_init(&bufs[i], 0);
		if (strbuf_read_file(&bufs[i], path.buf) < 0) {
			error_errno(err, "cannot read '%s'", path.buf);
			goto out;
		}
		if (tlog_reader_init(&readers[nread], bufs[i].buf, bufs[i].len, files[i], err) <
		    0) {
			/* An unreadable file (e.g. killed before the header) is a problem
			 * to report, not a reason to lose the other processes. */
			tlog_reader_release(&readers[nread]);
			strbuf_addf(&problems, "%s\n", err->buf);
			strbuf_reset(err);
			st->problems++;
			continue;
		}
		if ((int64_t)readers[nread].hdr.start_ns < c.t0)
			c.t0 = (int64_t)readers[nread].hdr.start_ns;
		nread++;
	}
	st->files = (uint64_t)nfiles;
	if (!nread) {
		error_set(err, "no readable trace log in '%s':\n%s", log_dir, problems.buf);
		goto out;
	}

	strbuf_addf(&tmp, "%s.tmp", sqlite_path);
	unlink(tmp.buf);
	if (sqlite3_open_v2(tmp.buf, &c.db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		error_set(err, "cannot create '%s': %s", tmp.buf, sqlite3_errmsg(c.db));
		goto out;
	}
	if (sqlite3_exec(c.db,
			 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
			 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; "
			 "PRAGMA page_size=65536; PRAGMA cache_size=-65536; BEGIN;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c.db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c.db, enum_sql, NULL, NULL, NULL) != SQLITE_OK) {
		error_set(err, "sqlite: %s", sqlite3_errmsg(c.db));
		goto out;
	}
	for (i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(c.db, stmt_sql[i], -1, &c.st[i], NULL) != SQLITE_OK) {
			error_set(err, "sqlite: %s", sqlite3_errmsg(c.db));
			goto out;
		}

	for (i = 0; i < nread && !c.failed; i++) {
		struct proc p;
		int have_clock = 0;
		int64_t off = 0;

		memset(&p, 0, sizeof(p));
		p.ctx.t0 = c.t0;
		p.ctx.pid = readers[i].hdr.pid;
		pass1(&c, &p, &readers[i], &have_clock, &off);
		for (size_t k = 0; k < p.tnames.cap; k++) {
			sqlite3_stmt *ts = c.st[S_THREAD];
			if (!p.tnames.keys[k])
				continue;
			sqlite3_bind_int64(ts, 1,
					   (int64_t)(p.tnames.vals[k] & ~((uint64_t)1 << 63)));
			sqlite3_bind_int64(ts, 2, 0);
			sqlite3_bind_int64(
			    ts, 3,
			    tosqlite_global_tid(p.ctx.pid, (uint32_t)(p.tnames.keys[k] - 1)));
			step(&c, S_THREAD);
		}
		/* CUPTI timestamps are CLOCK_REALTIME on Linux like ours; if a
		 * platform differs by more than 1 ms, move GPU records onto the
		 * tracer clock and say so. */
		if (have_clock && (off > 1000000 || off < -1000000)) {
			p.ctx.gpu_shift = off;
			strbuf_addf(&st->diags,
				    "pid %u: warning: CUPTI clock differs from the tracer clock by "
				    "%lld ns; GPU timestamps shifted\n",
				    p.ctx.pid, (long long)off);
		}
		resolve_api_spans(&p);
		tlog_rewind(&readers[i]);
		pass2(&c, &p, &readers[i]);
		proc_release(&p);
		st->processes++;
		if (readers[i].n_problems & ~((uint64_t)1 << 63)) {
			st->problems += readers[i].n_problems & ~((uint64_t)1 << 63);
			strbuf_addstr(&problems, readers[i].problems.buf);
		}
	}
	if (c.failed)
		goto out;

	for (size_t k = 0; k < c.strings.nr; k++) {
		sqlite3_bind_int64(c.st[S_STRING], 1, (int64_t)k);
		sqlite3_bind_text(c.st[S_STRING], 2, c.strings.strs[k], -1, SQLITE_STATIC);
		if (step(&c, S_STRING) < 0)
			goto out;
	}
	{
		sqlite3_stmt *s;
		struct strbuf iso = STRBUF_INIT;
		if (sqlite3_prepare_v2(c.db,
				       "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?,?,?)",
				       -1, &s, NULL) == SQLITE_OK) {
			format_iso8601(&iso, (uint64_t)c.t0);
			sqlite3_bind_int64(s, 1, c.t0);
			sqlite3_bind_text(s, 2, iso.buf, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 3, iso.buf, -1, SQLITE_TRANSIENT);
			sqlite3_step(s);
			sqlite3_finalize(s);
		}
		strbuf_release(&iso);
	}
	put_meta(&c, "EXPORT_PRODUCT_NAME", "llmprof builtin tracer");
	put_meta(&c, "EXPORT_PRODUCT_VERSION", LLMPROF_VERSION);
	/* The columns written are those of nsys export schema 3.20.3. */
	put_meta(&c, "EXPORT_SCHEMA_VERSION", "3.20.3");
	put_meta(&c, "EXPORT_SCHEMA_VERSION_MAJOR", "3");
	put_meta(&c, "EXPORT_SCHEMA_VERSION_MINOR", "20");
	put_meta(&c, "EXPORT_SCHEMA_VERSION_MICRO", "3");
	put_meta(&c, "LLMPROF_TRACE_LOG_VERSION", "1");
	snprintf(num, sizeof(num), "%llu", (unsigned long long)st->dropped_cupti);
	put_meta(&c, "LLMPROF_DROPPED_CUPTI", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)st->dropped_tracer);
	put_meta(&c, "LLMPROF_DROPPED_TRACER", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)st->problems);
	put_meta(&c, "LLMPROF_LOG_PROBLEMS", num);
	if (c.failed || drop_empty_tables(&c) < 0)
		goto out;
	for (i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(c.st[i]);
		c.st[i] = NULL;
	}
	if (sqlite3_exec(c.db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		error_set(err, "sqlite: %s", sqlite3_errmsg(c.db));
		goto out;
	}
	sqlite3_close(c.db);
	c.db = NULL;
	if (rename(tmp.buf, sqlite_path) < 0) {
		error_errno(err, "cannot rename '%s' to '%s'", tmp.buf, sqlite_path);
		goto out;
	}
	if (json_path &&
	    perfetto_write(sqlite_path, json_path, 0, &st->json_events, &st->json_merged, err) < 0)
		goto out;
	ret = 0;
	if (st->problems) {
		error_set(err, "trace log damaged (kept everything readable): %.*s",
			  (int)(problems.len && problems.buf[problems.len - 1] == '\n'
				    ? problems.len - 1
				    : problems.len),
			  problems.buf);
		ret = TRACE_CONVERT_PARTIAL;
	}
out:
	st->seconds = (double)(clock_mono_ns() - t_begin) / 1e9;
	for (i = 0; i < S_COUNT; i++)
		if (c.st[i])
			sqlite3_finalize(c.st[i]);
	if (c.db) {
		sqlite3_close(c.db);
		unlink(tmp.buf);
	}
	for (i = 0; i < nread; i++)
		tlog_reader_release(&readers[i]);
	for (i = 0; i < nfiles; i++) {
		if (bufs)
			strbuf_release(&bufs[i]);
		free(files[i]);
	}
	free(files);
	free(bufs);
	free(readers);
	strtab_release(&c.strings);
	u64map_free(&c.devices_seen);
	strbuf_release(&tmp);
	strbuf_release(&path);
	strbuf_release(&problems);
	if (st == &st_local)
		trace_convert_stats_release(&st_local);
	return ret;
}
