/* tosqlite_db.c: the SQLite side of the log -> SQLite converter: the
 * schema (the columns of nsys export schema 3.20.3 that llmprof writes),
 * nsys's ENUM rows, one prepared statement per table, and writing rows.
 * Rows go in one transaction with the journal off; a failed statement stops
 * the conversion with its message (conv_step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "trace/tosqlite_internal.h"
#include "version.h"
#include "core/banned.h"

static const char schema_sql[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
    "rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
    "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, "
    "int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, "
    "floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);\n"
    "CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, "
    "type INTEGER, flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);\n"
    "CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER "
    "NOT NULL, idx INTEGER NOT NULL, flags INTEGER, type INTEGER, name TEXT, description "
    "TEXT, arrayOrUnionDetail INTEGER, offset INTEGER);\n"
    "CREATE TABLE NVTX_PAYLOAD_ENUMS (domainId INTEGER, schemaId INTEGER, name TEXT, "
    "numEntries INTEGER, size INTEGER);\n"
    "CREATE TABLE NVTX_PAYLOAD_ENUM_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT "
    "NULL, idx INTEGER NOT NULL, name TEXT, value INTEGER, isFlag INTEGER);\n"
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
    "level TEXT, code INTEGER, message TEXT);\n"
    "CREATE TABLE LLMPROF_GRAPH_NODES (globalTid INTEGER NOT NULL, timestamp INTEGER NOT NULL, "
    "nodeId INTEGER NOT NULL, originalNodeId INTEGER, graphId INTEGER, nodeType INTEGER);\n"
    /* llmprof's own: CPU samples (docs/tracer.md "CPU samples") */
    "CREATE TABLE LLMPROF_CPU_SAMPLES (globalTid INTEGER NOT NULL, timestamp INTEGER NOT NULL, "
    "periodNs INTEGER NOT NULL, method TEXT, library TEXT, function TEXT, category TEXT, "
    "stack TEXT);\n"
    "CREATE TABLE LLMPROF_CPU_SAMPLER (globalPid INTEGER NOT NULL, periodNs INTEGER, "
    "method TEXT, samples INTEGER, dropped INTEGER, threads INTEGER, handlerNs INTEGER, "
    "handlerCalls INTEGER, sampledNs INTEGER);\n"

    /* llmprof's own: who each process is in a multi-process job
       (docs/tracer.md); NULL = not set, rank NULL = the pid identifies it */
    "CREATE TABLE LLMPROF_PROCESSES (globalPid INTEGER, pid INTEGER, rank INTEGER, "
    "localRank INTEGER, worldSize INTEGER, host TEXT, launcher TEXT, rankSource TEXT);\n"

    /* llmprof's own: what tracing cost each process that ran its exit
       handlers, timed by the tracer (docs/tracer.md "What tracing costs") */
    "CREATE TABLE LLMPROF_TRACER_COST (globalPid INTEGER NOT NULL, pid INTEGER, wallNs INTEGER, "
    "cpuNs INTEGER, apiNs INTEGER, apiCalls INTEGER, resourceNs INTEGER, resourceCalls INTEGER, "
    "nvtxNs INTEGER, nvtxCalls INTEGER, bufferNs INTEGER, buffers INTEGER, flushNs INTEGER, "
    "flushes INTEGER);\n";

/* ENUM rows as nsys writes them (ids, names and labels checked against the
 * nsys 2025.3 export in tests/data/nsys). */
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

static const char *const stmt_sql[S_COUNT] = {
    "INSERT INTO StringIds VALUES (?,?)",
    "INSERT INTO NVTX_EVENTS (start,end,eventType,rangeId,category,color,text,globalTid,"
    "endGlobalTid,textId,domainId,uint64Value,int64Value,doubleValue,uint32Value,int32Value,"
    "floatValue,binaryData) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
    "INSERT INTO LLMPROF_GRAPH_NODES VALUES (?,?,?,?,?,?)",
    "INSERT INTO LLMPROF_PROCESSES VALUES (?,?,?,?,?,?,?,?)",
    /* a schema registered again (another process, same domain id) keeps
     * the first */
    "INSERT INTO NVTX_PAYLOAD_SCHEMAS (domainId,schemaId,type,flags,numEntries,payloadSize) "
    "SELECT ?1,?2,?3,?4,?5,?6 WHERE NOT EXISTS (SELECT 1 FROM NVTX_PAYLOAD_SCHEMAS WHERE "
    "domainId = ?1 AND schemaId = ?2)",
    "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId,schemaId,idx,type,name,offset) VALUES "
    "(?,?,?,?,?,?)",
    "INSERT INTO NVTX_PAYLOAD_ENUMS (domainId,schemaId,numEntries,size) SELECT ?1,?2,?3,?4 "
    "WHERE NOT EXISTS (SELECT 1 FROM NVTX_PAYLOAD_ENUMS WHERE domainId = ?1 AND schemaId = ?2)",
    "INSERT INTO NVTX_PAYLOAD_ENUM_ENTRIES VALUES (?,?,?,?,?,?)",
    "INSERT INTO LLMPROF_CPU_SAMPLES VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO LLMPROF_CPU_SAMPLER VALUES (?,?,?,?,?,?,?,?,?)",
    "INSERT INTO LLMPROF_TRACER_COST VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

static void interrupted_msg(struct conv *c)
{
	strbuf_reset(c->err);
	error_set(c->err, "interrupted by %s", proc_signal_name(proc_pending_interrupt()));
}

/* A statement (every insert, the COMMIT) stops at an interrupt. */
static int stop_statement(void *arg)
{
	struct conv *c = arg;

	if (proc_interrupt_count() != c->interrupts0)
		c->interrupted = 1;
	return c->interrupted;
}

int conv_interrupted(struct conv *c)
{
	if (!c->interrupted && (++c->since_check & 0xffff))
		return 0;
	return conv_interrupted_now(c);
}

int conv_interrupted_now(struct conv *c)
{
	if (!c->interrupted && proc_interrupt_count() == c->interrupts0)
		return 0;
	if (!c->failed || !c->interrupted)
		interrupted_msg(c);
	c->failed = c->interrupted = 1;
	return 1;
}

/* SQLite's error into c->err, -1; a full disk or an I/O error (SQLite
 * writing the file) also sets c->cannot_write: exit 7, not a bad log. */
static int conv_sqlite_error(struct conv *c)
{
	int code = sqlite3_errcode(c->db) & 0xff;

	if (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_READONLY ||
	    code == SQLITE_CANTOPEN)
		c->cannot_write = 1;
	return error_set(c->err, "sqlite: %s", sqlite3_errmsg(c->db));
}

int conv_step(struct conv *c, enum stmt_id id)
{
	sqlite3_stmt *s = c->st[id];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		if (c->interrupted)
			interrupted_msg(c);
		else if (!c->failed)
			conv_sqlite_error(c);
		c->failed = 1;
		return -1;
	}
	c->rows[id]++;
	return 0;
}

int conv_insert_row(struct conv *c, enum stmt_id id, const int64_t *v, int n, int null_graph,
		    int null_col)
{
	sqlite3_stmt *s = c->st[id];

	for (int j = 0; j < n; j++)
		sqlite3_bind_int64(s, j + 1, v[j]);
	if (null_graph)
		sqlite3_bind_null(s, null_col);
	return conv_step(c, id);
}

void conv_bind_text(sqlite3_stmt *s, int i, struct str t)
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

int64_t conv_intern(struct conv *c, const char *p, size_t n)
{
	return strtab_intern(&c->strings, p, n); /* StringIds ids: dense from 0 */
}

void conv_put_nvtx(struct conv *c, const struct nvtx_row *r)
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
		conv_bind_text(s, 7, r->text);
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
	if (r->blob)
		sqlite3_bind_blob(s, 18, r->blob, (int)r->blob_len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 18);
	if (conv_step(c, S_NVTX) == 0)
		c->stats->nvtx_rows++;
}

static void put_meta(struct conv *c, const char *k, const char *v)
{
	sqlite3_bind_text(c->st[S_META], 1, k, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(c->st[S_META], 2, v, -1, SQLITE_TRANSIENT);
	conv_step(c, S_META);
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
	    {"LLMPROF_GRAPH_NODES", S_GRAPHNODE},
	    {"LLMPROF_PROCESSES", S_RANK},
	    {"NVTX_PAYLOAD_SCHEMAS", S_PL_SCHEMA},
	    {"NVTX_PAYLOAD_SCHEMA_ENTRIES", S_PL_ENTRY},
	    {"NVTX_PAYLOAD_ENUMS", S_PL_ENUM},
	    {"NVTX_PAYLOAD_ENUM_ENTRIES", S_PL_ENUM_ENTRY},
	    {"LLMPROF_CPU_SAMPLES", S_CPUSAMPLE},
	    {"LLMPROF_CPU_SAMPLER", S_CPUSAMPLER},
	    {"LLMPROF_TRACER_COST", S_COST},
	};
	struct strbuf q = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]) && !ret; i++) {
		if (c->rows[t[i].id])
			continue;
		strbuf_reset(&q);
		strbuf_addf(&q, "DROP TABLE %s", t[i].table);
		if (sqlite3_exec(c->db, q.buf, NULL, NULL, NULL) != SQLITE_OK)
			ret = conv_sqlite_error(c);
	}
	strbuf_release(&q);
	return ret;
}

int conv_open(struct conv *c, const char *path, const char *shown)
{
	/* the empty file bundle_dir_temp_file() made: never created anew, and
	 * never reached through a symlink */
	if (sqlite3_open_v2(path, &c->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		c->cannot_write = 1;
		return error_set(c->err, "cannot create '%s': %s", shown, sqlite3_errmsg(c->db));
	}
	if (sqlite3_exec(c->db,
			 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
			 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; "
			 "PRAGMA page_size=65536; PRAGMA cache_size=-65536; BEGIN;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c->db, enum_sql, NULL, NULL, NULL) != SQLITE_OK)
		return conv_sqlite_error(c);
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(c->db, stmt_sql[i], -1, &c->st[i], NULL) != SQLITE_OK)
			return conv_sqlite_error(c);
	sqlite3_progress_handler(c->db, 100000, stop_statement, c);
	return 0;
}

/* TARGET_INFO_SESSION_START_TIME: the earliest log's start (best effort). */
static void put_session_start(struct conv *c)
{
	sqlite3_stmt *s;
	struct strbuf iso = STRBUF_INIT;

	if (sqlite3_prepare_v2(c->db, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?,?,?)",
			       -1, &s, NULL) == SQLITE_OK) {
		format_iso8601(&iso, (uint64_t)c->t0);
		sqlite3_bind_int64(s, 1, c->t0);
		sqlite3_bind_text(s, 2, iso.buf, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 3, iso.buf, -1, SQLITE_TRANSIENT);
		sqlite3_step(s);
		sqlite3_finalize(s);
	}
	strbuf_release(&iso);
}

static void put_meta_u64(struct conv *c, const char *k, uint64_t v)
{
	char num[64];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	put_meta(c, k, num);
}

int conv_finish(struct conv *c)
{
	const struct trace_convert_stats *st = c->stats;

	for (size_t k = 0; k < c->strings.nr; k++) {
		sqlite3_bind_int64(c->st[S_STRING], 1, (int64_t)k);
		sqlite3_bind_text(c->st[S_STRING], 2, c->strings.strs[k], -1, SQLITE_STATIC);
		if (conv_step(c, S_STRING) < 0)
			return -1;
	}
	put_session_start(c);
	put_meta(c, "EXPORT_PRODUCT_NAME", "llmprof builtin tracer");
	put_meta(c, "EXPORT_PRODUCT_VERSION", LLMPROF_VERSION);
	/* The columns written are those of nsys export schema 3.20.3. */
	put_meta(c, "EXPORT_SCHEMA_VERSION", "3.20.3");
	put_meta(c, "EXPORT_SCHEMA_VERSION_MAJOR", "3");
	put_meta(c, "EXPORT_SCHEMA_VERSION_MINOR", "20");
	put_meta(c, "EXPORT_SCHEMA_VERSION_MICRO", "3");
	put_meta(c, "LLMPROF_TRACE_LOG_VERSION", "1");
	put_meta_u64(c, "LLMPROF_DROPPED_CUPTI", st->dropped_cupti);
	put_meta_u64(c, "LLMPROF_DROPPED_TRACER", st->dropped_tracer);
	put_meta_u64(c, "LLMPROF_LOG_PROBLEMS", st->problems);
	put_meta_u64(c, "LLMPROF_UNFLUSHED_PROCESSES", st->unflushed);
	if (c->failed || drop_empty_tables(c) < 0)
		return -1;
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(c->st[i]);
		c->st[i] = NULL;
	}
	if (sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		if (c->interrupted) {
			c->failed = 1;
			interrupted_msg(c);
			return -1;
		}
		return conv_sqlite_error(c);
	}
	sqlite3_close(c->db);
	c->db = NULL;
	return 0;
}

void conv_release(struct conv *c, const struct bundle_dir *bd, const char *path)
{
	for (int i = 0; i < S_COUNT; i++)
		if (c->st[i])
			sqlite3_finalize(c->st[i]);
	if (c->db) {
		sqlite3_close(c->db);
		bundle_dir_unlink(bd, path, NULL);
	}
	strtab_release(&c->strings);
	tosqlite_u64map_free(&c->devices_seen);
}
