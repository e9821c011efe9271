/* trace.h: the reader of nsys SQLite exports and of llmprof's own
 * trace.sqlite (same schema, DESIGN.md §3 "The trace database") into
 * memory, for the analysis; what it knows of the schema is nsysdb.h's.
 *
 * The file is opened read-only. Tables are read lazily, one pass each, with
 * columns chosen by name (their positions change between nsys versions);
 * tables nsys left out because they were empty simply read as empty. Strings
 * are interned: every name below is an id into struct trace.strs, -1 for a
 * SQL NULL. Timestamps are signed ns on the session timebase, clamped at
 * load to +-TRACE_TIME_MAX: 146 years either way is beyond any real session,
 * and within it the difference of two timestamps cannot overflow int64, so
 * only a damaged file is changed. Sums of many durations still can, and
 * saturate (i64_sat_add).
 *
 * struct trace owns everything it points to; trace_close() frees it. */
#ifndef LLMPROF_TRACE_H
#define LLMPROF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "trace/nsysdb.h"
#include "trace/rectab.h"
#include "trace/strtab.h"

#define TRACE_TIME_MAX (INT64_MAX / 2)

/* globalTid / globalPid encoding (nsys docs): VM/host | PID (24 bits) | TID (24 bits). */
#define TRACE_GPID_MASK 0xFFFFFFFFFF000000LL
#define TRACE_PID_BITS 0x0000FFFFFF000000LL
static inline int64_t trace_pid(int64_t gtid)
{
	return (gtid >> 24) & 0xFFFFFF;
}
static inline int64_t trace_tid(int64_t gtid)
{
	return gtid & 0xFFFFFF;
}

/* What a kernel launch shares with the other launches of its kernel: kept
 * once per distinct signature (struct trace.ksigs), each kernel holds its
 * id. Read it with trace_ksig(). */
struct trace_ksig {
	int64_t gpid;	    /* globalPid */
	int64_t graph_node; /* graphNodeId, -1 when not launched from a graph */
	int32_t name;	    /* demangledName */
	int32_t short_name;
	int32_t mangled; /* mangledName; -1 when the export has none */
	int32_t device, context, stream;
	int32_t grid[3], block[3];
	int32_t regs;
	int32_t corr_hi; /* correlationId >> 32 (0 or -1 in any real export) */
};

/* 24 bytes: 8 M kernels fit in 192 MB (bench/results/trace-memory.md). */
struct trace_kernel {
	int64_t start, end;
	uint32_t corr_lo; /* correlationId: trace_kernel_corr() */
	uint32_t sig;	  /* struct trace_ksig id */
};

enum trace_memop_kind { TRACE_MEMCPY, TRACE_MEMSET };

struct trace_memop {
	int64_t start, end, corr, gpid, bytes;
	int32_t name; /* "[CUDA memcpy Host-to-Device]", "[CUDA memset]"; -1 if the copy kind is
			 unknown */
	int32_t device, stream;
	int kind; /* enum trace_memop_kind */
};

/* What a CUDA API call shares with others: its thread, its name and the
 * high bits of its correlationId, kept once per distinct value (struct
 * trace.csigs). Read it with trace_csig(). */
struct trace_csig {
	int64_t gtid;
	int64_t name_sid; /* raw StringIds id (nsys groups API calls by it) */
	int32_t name;
	int32_t corr_hi; /* correlationId >> 32 */
};

/* A CUDA runtime or driver API call (CUPTI_ACTIVITY_KIND_RUNTIME): 24 bytes. */
struct trace_call {
	int64_t start, end;
	uint32_t corr_lo; /* correlationId: trace_call_corr() */
	uint32_t sig;	  /* struct trace_csig id */
};

enum trace_range_style { TRACE_PUSHPOP = 0, TRACE_STARTEND = 1 };

/* An NVTX push/pop or start/end range (eventType 59, 60, 70, 71). */
struct trace_range {
	int64_t start, end; /* end valid unless open */
	int64_t gtid;	    /* thread that pushed / started it */
	int64_t rowid;	    /* NVTX_EVENTS rowid: nsys's RangeId */
	int64_t domain_id;
	int32_t name;	      /* "domain:text" or "text" (default domain), as nsys prints it */
	int32_t text;	      /* the message alone */
	int32_t domain;	      /* domain name, -1 for the default domain */
	int32_t domain_reg;   /* the domain's registered name (textId), else domain */
	int32_t category;     /* its NVTX category's name (nvtxDomainNameCategory), -1 none */
	uint8_t style;	      /* enum trace_range_style */
	uint8_t cross_thread; /* ended on another thread (endGlobalTid set) */
	uint8_t open;	      /* never ended (end NULL) */
};

/* A CUDA graph node the builtin tracer saw made or cloned
 * (LLMPROF_GRAPH_NODES, docs/tracer.md "CUDA graphs"): on thread gtid at
 * ts. Replayed kernels carry the node id of a clone (graphNodeId). */
struct trace_graph_node {
	int64_t ts, gtid;
	int64_t node, original; /* original: the node it was cloned from, -1 none */
};

enum trace_part {
	TRACE_KERNELS = 1 << 0,
	TRACE_MEMOPS = 1 << 1,
	TRACE_CALLS = 1 << 2,
	TRACE_NVTX = 1 << 3,
};

struct trace {
	struct nsysdb *db; /* the export; NULL for a trace built by hand */
	char *path;
	struct strtab strs;
	unsigned loaded;
	int kernels_lean; /* trace_kernels_lean() */

	int has_strings, has_kernels, has_memcpy, has_memset, has_memcpy_enum, has_calls, has_nvtx;
	int has_osrt;	/* OSRT_API: OS runtime calls (trace_osrt_calls()) */
	char *producer; /* EXPORT_PRODUCT_VERSION / producer name, or NULL */

	struct trace_kernel *kernels;
	size_t nkernels, kernels_alloc;
	struct rectab ksigs; /* of struct trace_ksig */
	struct rectab csigs; /* of struct trace_csig */
	struct trace_memop *memops;
	size_t nmemops, memops_alloc;
	struct trace_call *calls;
	size_t ncalls, calls_alloc;
	struct trace_range *ranges;
	size_t nranges, ranges_alloc;
	/* ranges[i]'s operator name: its message without PyTorch's per-call
	 * fields (trace/atenname.h), else its text; NULL for a trace built by
	 * hand (trace_range_op() then gives the text) */
	int32_t *range_op;
	/* loaded with TRACE_NVTX; none in nsys exports */
	struct trace_graph_node *graph_nodes;
	size_t ngraph_nodes, graph_nodes_alloc;
	/* optional tables (llmprof's own: graph nodes, CPU samples) that could
	 * not be read, with why: each costs only what it adds, and the trust
	 * report lists it (trace_unreadable()) */
	struct trace_unreadable {
		char *table, *why;
	} * unreadable;
	size_t nunreadable, unreadable_alloc;
	/* max(start, end) over every NVTX row (nvtx_sum closes open ranges
	 * there) and over range rows only (the projection reports do). */
	int64_t nvtx_max_all, nvtx_max_range;
	/* what could make the numbers wrong (the trust report): timestamps
	 * clamped to +-TRACE_TIME_MAX, kernels whose end is not after their
	 * start, and the builtin tracer's META_DATA_EXPORT counts of CUPTI
	 * records dropped, records it could not keep, log problems and
	 * processes that ended without flushing (0 in nsys exports) */
	uint64_t clamped, kernels_bad_time;
	uint64_t dropped_cupti, dropped_tracer, log_problems, unflushed;

	struct nsysdb_strings sids; /* StringIds id -> strs id */
};

/* A kernel's and a call's shared part. */
static inline const struct trace_ksig *trace_ksig(const struct trace *t,
						  const struct trace_kernel *k)
{
	return (const struct trace_ksig *)rectab_get(&t->ksigs, k->sig);
}
static inline const struct trace_csig *trace_csig(const struct trace *t, const struct trace_call *c)
{
	return (const struct trace_csig *)rectab_get(&t->csigs, c->sig);
}
/* correlationId: its low 32 bits in the row, the high ones (all 0, or all
 * 1 for NULL = -1, in real exports) in the shared part. */
static inline int64_t trace_corr_join(int32_t hi, uint32_t lo)
{
	return (int64_t)(((uint64_t)(uint32_t)hi << 32) | lo);
}
static inline int64_t trace_kernel_corr(const struct trace *t, const struct trace_kernel *k)
{
	return trace_corr_join(trace_ksig(t, k)->corr_hi, k->corr_lo);
}
static inline int64_t trace_call_corr(const struct trace *t, const struct trace_call *c)
{
	return trace_corr_join(trace_csig(t, c)->corr_hi, c->corr_lo);
}
/* The id of a signature, for the loader and for traces built by hand;
 * corr is the row's correlationId: its high bits go into the signature,
 * the low ones into *corr_lo. */
uint32_t trace_ksig_id(struct trace *t, struct trace_ksig s, int64_t corr, uint32_t *corr_lo);
uint32_t trace_csig_id(struct trace *t, struct trace_csig s, int64_t corr, uint32_t *corr_lo);

/* Opens path read-only and checks that it is an SQLite nsys-schema export.
 * Errors (missing, not SQLite, corrupt, not an export) go to err. */
int trace_open(struct trace *t, const char *path, struct strbuf *err);
/* Loads the parts (enum trace_part bits) not loaded yet: the kernels and
 * the API calls on threads of their own when there is more than one part
 * to read (trace_par.h; the same trace as a part at a time). A truncated
 * or corrupt table is an error; a missing table loads as empty. The error
 * is the first failed part's in the order kernels, copies, calls, NVTX; a
 * failed part is left empty and not loaded (a later call reads it again
 * from the start), the parts read meanwhile loaded. */
int trace_load(struct trace *t, unsigned parts, struct strbuf *err);
/* Kernels load only start, end, correlationId, globalPid and demangledName,
 * what the nsys stats reports read; every other trace_ksig field holds what
 * a NULL column gives. Half the columns, a third less of the load: for a
 * caller that reads nothing else. Call before loading TRACE_KERNELS. */
void trace_kernels_lean(struct trace *t);
void trace_close(struct trace *t);

/* A GPU as the export describes it (TARGET_INFO_GPU). Numbers 0 = not
 * recorded. name is owned; trace_gpu_release(). */
struct trace_gpu {
	char *name;   /* "NVIDIA H100 80GB HBM3" */
	int64_t id;   /* TARGET_INFO_GPU.id (deviceId before 2021), the kernels' deviceId */
	int sm_count; /* smCount */
	int cc_major, cc_minor; /* computeMajor/Minor; -1 when absent */
	int64_t clock_hz;	/* clockRate: the max SM clock */
	int64_t mem_bw_bps;	/* memoryBandwidth, bytes/s */
	int64_t total_memory;	/* bytes */
	size_t ngpus;		/* rows in the table */
};
/* The GPU the trace's kernels ran on (the deviceId most kernels have, when
 * they are loaded), else the one with the lowest id. 1 found, 0 when the
 * export has no TARGET_INFO_GPU row (g zeroed), -1 with err on a read
 * error. */
int trace_gpu_info(struct trace *t, struct trace_gpu *g, struct strbuf *err);
void trace_gpu_release(struct trace_gpu *g);

/* The UTC time of the trace's timestamp 0 (TARGET_INFO_SESSION_START_TIME
 * utcEpochNs: the builtin tracer's earliest CLOCK_REALTIME log start, nsys's
 * session start), so that t0 + a timestamp is an absolute time. 1 found, 0
 * when the export has no such row (or one out of range), -1 with err on a
 * read error. */
int trace_session_start(struct trace *t, int64_t *utc_ns, struct strbuf *err);

/* Who a process is in a multi-process job: a row of LLMPROF_PROCESSES,
 * which llmprof's trace.sqlite has when its tracer recorded ranks
 * (docs/tracer.md); nsys exports lack it. -1 / NULL = not recorded. */
struct trace_process {
	int64_t gpid, pid;
	int32_t rank, local_rank, world_size;
	char *host, *launcher, *source; /* owned */
};
/* The LLMPROF_PROCESSES rows into *out (owned, trace_processes_free), 0 rows
 * without the table. 0, or -1 with err on a read error. */
int trace_processes(struct trace *t, struct trace_process **out, size_t *n, struct strbuf *err);
void trace_processes_free(struct trace_process *p, size_t n);

/* An OS runtime call nsys traced (OSRT_API, eventClass 27: what nsys's
 * osrt_sum reads): its name as a StringIds id (-1 NULL, the group key) and
 * as a string of t->strs (-1 none), its start and end. */
struct trace_osrt {
	int64_t name_sid;
	int32_t name;
	int64_t start, end;
};
/* Reads them into *out (owned by the caller: free()), in the table's
 * order; none without the table. 0, or -1 with err. */
int trace_osrt_calls(struct trace *t, struct trace_osrt **out, size_t *n, struct strbuf *err);

/* Whether the database has a table or view of that name. */
int trace_has_table(struct trace *t, const char *name);

/* End of r as the projection reports use it (open ranges end at the last
 * NVTX range timestamp). */
/* The operator name ranges[i] counts under (trace/atenname.h): the string
 * id of "aten::mm" for "aten::mm, seq = 12, op_id = 40"; its text when the
 * message is of no such form. */
static inline int32_t trace_range_op(const struct trace *t, size_t i)
{
	return t->range_op ? t->range_op[i] : t->ranges[i].text;
}

static inline int64_t trace_range_end(const struct trace *t, const struct trace_range *r)
{
	return r->open ? t->nvtx_max_range : r->end;
}

/* Notes that the optional table could not be read, and why (both copied). */
void trace_note_unreadable(struct trace *t, const char *table, const char *why);
/* Why table could not be read, or NULL when it was (or is absent). */
const char *trace_unreadable(const struct trace *t, const char *table);

#endif
