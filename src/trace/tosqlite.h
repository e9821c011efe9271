/* tosqlite.h: builtin tracer logs -> SQLite in the schema of
 * `nsys export --type sqlite` (the subset in DESIGN.md §3), so one reader
 * and NVIDIA's own `nsys stats` read it; optionally also trace.json.
 *
 * The record -> row logic is in pure functions (tosqlite_*_row) that take a
 * log record and return column values, so tests can check it with records
 * they build themselves. */
#ifndef LLMPROF_TOSQLITE_H
#define LLMPROF_TOSQLITE_H

#include <stdint.h>

#include "core/strbuf.h"
#include "trace/tracelog.h"

/* trace_convert() result when the input had truncated or corrupt parts:
 * everything readable was written, err names each problem with its offset. */
#define TRACE_CONVERT_PARTIAL (-2)
/* trace_convert() result when llmprof was interrupted (SIGINT, SIGTERM,
 * ...: core/proc.h) while it converted: it stopped within milliseconds,
 * wrote nothing, and err says "interrupted by SIGINT". */
#define TRACE_CONVERT_INTERRUPTED (-3)
/* trace_convert() result when an output could not be written (disk full,
 * a read-only or vanished folder, a symlink in the bundle): nothing
 * written, err says why; a write error, exit 7 (docs/exit-codes.md), where
 * -1 is a log that cannot be read. */
#define TRACE_CONVERT_CANNOT_WRITE (-4)

struct trace_convert_stats {
	uint64_t files;
	uint64_t processes;
	uint64_t records;   /* log records read */
	uint64_t nvtx_rows; /* NVTX_EVENTS rows (ranges, marks, domains, categories) */
	uint64_t kernels;
	uint64_t memcpys;
	uint64_t memsets;
	uint64_t api_calls;	 /* launch calls: kernel/graph launch, memcpy, memset */
	uint64_t api_other;	 /* the other CUDA API calls (LLMPROF_TRACE_API_CALLS=all) */
	uint64_t dropped_cupti;	 /* records CUPTI reported as dropped */
	uint64_t dropped_tracer; /* records the tracer could not keep */
	uint64_t open_ranges;	 /* pushes/starts never closed (end NULL) */
	uint64_t unmatched_ends; /* pops/ends without a push/start */
	uint64_t unattributed;	 /* GPU ops whose launch call was not recorded */
	uint64_t problems;	 /* truncated/corrupt spots in the logs */
	uint64_t unflushed;	 /* processes that ended without exit(): no TLOG_END */
	uint64_t cpu_samples;	 /* LLMPROF_CPU_SAMPLES rows */
	int cupti_busy;		 /* another CUPTI client held CUPTI */
	int cupti_unsupported;	 /* CUPTI could not trace (driver, permissions) */
	/* The tracer's own diagnostics, one line each: "pid N: level: text". */
	struct strbuf diags;
	/* trace.json */
	uint64_t json_events;
	uint64_t json_merged; /* events folded into merged slices by the cap */
	double seconds;	      /* conversion wall time */
};

void trace_convert_stats_init(struct trace_convert_stats *st);
void trace_convert_stats_release(struct trace_convert_stats *st);

/* Converts every <log_dir>/trace-*.bin into sqlite_path (replaced
 * atomically) and, when json_path is non-NULL, a Perfetto trace there;
 * both are names in bd (core/bundle_dir.h; NULL: paths as given).
 * Returns 0, -1 on failure (err set, nothing written),
 * TRACE_CONVERT_PARTIAL (outputs written from the readable part, err lists
 * the problems), TRACE_CONVERT_INTERRUPTED or TRACE_CONVERT_CANNOT_WRITE.
 * st may be NULL. */
struct bundle_dir;
int trace_convert(const char *log_dir, const struct bundle_dir *bd, const char *sqlite_path,
		  const char *json_path, struct trace_convert_stats *st, struct strbuf *err);

/* ---- pure record -> row functions -------------------------------------- */

/* nsys GlobalId encoding: (vm 1 << 48) | pid << 24 | tid. */
int64_t tosqlite_global_pid(uint32_t pid);
int64_t tosqlite_global_tid(uint32_t pid, uint32_t tid);
/* CUPTI memory kind -> ENUM_CUDA_MEM_KIND id (CUPTI's UNKNOWN=0 is nsys 7). */
int tosqlite_mem_kind(uint8_t cupti_kind);
/* CUPTI launch type -> ENUM_CUDA_KERNEL_LAUNCH_TYPE id (nsys 0 = unknown). */
int tosqlite_launch_type(uint8_t cupti_type);

/* Values shared by rows of one process. */
struct tosqlite_ctx {
	int64_t t0;	   /* subtracted from every timestamp */
	int64_t gpu_shift; /* added to GPU timestamps (CUPTI vs tracer clock) */
	uint32_t pid;
};

struct kernel_row {
	int64_t start, end, deviceId, contextId, greenContextId, streamId, correlationId, globalPid,
	    demangledName, shortName, mangledName, launchType, cacheConfig, registersPerThread,
	    gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,
	    localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId,
	    sharedMemoryLimitConfig;
	int graphNodeId_null;
};
/* names[3] = StringIds of demangled, short, mangled; corr = after aliasing. */
void tosqlite_kernel_row(struct kernel_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_kernel *k, const int64_t names[3], uint32_t corr);

struct memcpy_row {
	int64_t start, end, deviceId, contextId, greenContextId, streamId, correlationId, globalPid,
	    bytes, copyKind, srcKind, dstKind, srcDeviceId, srcContextId, dstDeviceId, dstContextId,
	    graphNodeId;
	int graphNodeId_null;
};
void tosqlite_memcpy_row(struct memcpy_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memcpy *m, uint32_t corr);

struct memset_row {
	int64_t start, end, deviceId, contextId, greenContextId, streamId, correlationId, globalPid,
	    value, bytes, graphNodeId, memKind;
	int graphNodeId_null;
};
void tosqlite_memset_row(struct memset_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memset *m, uint32_t corr);

struct runtime_row {
	int64_t start, end, eventClass, globalTid, correlationId, nameId, returnValue;
};
/* tid = the thread of the chunk holding a TLOG_API record; a TLOG_API_ACT
 * record names its own thread and is on the CUPTI clock (gpu_shift). */
void tosqlite_runtime_row(struct runtime_row *r, const struct tosqlite_ctx *c,
			  const struct tlog_api *a, uint32_t tid, int64_t name_id);

/* One TLOG_API_ACT record of a process, for tosqlite_api_nest(). */
struct api_span {
	uint64_t start, end;
	uint32_t tid, corr;
	int driver;
	uint32_t parent; /* out: corr of the runtime call holding this driver call, 0 = none */
};
/* CUPTI's activity records include the driver calls a runtime call makes
 * (cudaLaunchKernel -> cuLaunchKernel); the callback source never wrote
 * those. Sorts v and sets parent for each driver call that lies within a
 * runtime call of the same thread, so the converter drops its row and gives
 * its GPU work the runtime call's correlation id, as nsys does. */
void tosqlite_api_nest(struct api_span *v, size_t n);

/* One NVTX_EVENTS row. text (borrowed) XOR textId; NULLs via has_* flags. */
struct nvtx_row {
	int64_t start, end, eventType, rangeId, category, color, globalTid, endGlobalTid, textId,
	    domainId;
	struct str text;
	int has_end, has_rangeId, has_category, has_color, has_endGlobalTid, has_textId, has_text;
	int payload_type; /* enum tlog_payload_type */
	uint64_t payload;
	const void *blob; /* binaryData (nvtxpayload.h's layout); NULL = none */
	size_t blob_len;
};
/* A push or start (begin) closed by end_ts on end_tid; end_ts < 0 = open.
 * text_id >= 0 for a registered message (its StringIds id). */
void tosqlite_nvtx_range_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			     const struct tlog_nvtx_event *begin, uint32_t begin_tid,
			     int64_t end_ts, uint32_t end_tid, int64_t text_id);
void tosqlite_nvtx_mark_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			    const struct tlog_nvtx_event *m, uint32_t tid, int64_t text_id);
/* The binaryData of a range whose payload record is pl (struct
 * tlog_nvtx_payload, size bytes), in nsys's layout (trace/nvtxpayload.h):
 * appended to out. 0, or -1 when the record is malformed (out unchanged). */
int tosqlite_payload_blob(struct strbuf *out, const struct tlog_nvtx_payload *pl, size_t size);
/* Domain create (eventType 75) and category name (33) rows. */
void tosqlite_nvtx_def_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			   const struct tlog_nvtx_def *d, uint32_t tid);

#endif
