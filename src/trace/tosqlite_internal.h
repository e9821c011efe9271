/* tosqlite_internal.h: what the parts of the log -> SQLite converter share
 * (tosqlite.h is the public side). The converter is five files:
 *   tosqlite.c       trace_convert(): reading the logs, the order of steps
 *   tosqlite_row.c   the pure record -> row functions (tosqlite_*_row)
 *   tosqlite_db.c    the schema, the prepared statements, writing rows
 *   tosqlite_pass.c  one process's log: pass 1 (definitions), pass 2 (rows)
 *   tosqlite_payload.c  NVTX payload schemas and binaryData
 *   tosqlite_sample.c  CPU samples: loaded objects, symbols, their rows
 *   tosqlite_nest.c  activity-source driver calls inside runtime calls
 * and their u64 -> u64 map (u64map.h). Not for use outside the converter. */
#ifndef LLMPROF_TOSQLITE_INTERNAL_H
#define LLMPROF_TOSQLITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "core/strbuf.h"
#include "trace/strtab.h"
#include "trace/symbolize.h"
#include "trace/tosqlite.h"
#include "trace/tracelog.h"
#include "trace/u64map.h"

/* The vmId of every row: one machine (nsys GlobalId, tosqlite.h). */
#define VM_ID ((int64_t)1 << 48)

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
	S_GRAPHNODE,
	S_RANK,
	S_PL_SCHEMA,
	S_PL_ENTRY,
	S_PL_ENUM,
	S_PL_ENUM_ENTRY,
	S_CPUSAMPLE,
	S_CPUSAMPLER,
	S_COST,
	S_COUNT
};

/* One conversion: the database being written and what all processes share. */
struct conv {
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	uint64_t rows[S_COUNT]; /* rows each statement inserted */
	struct strtab strings;
	struct trace_convert_stats *stats;
	struct u64map devices_seen;
	int64_t t0;
	int failed;
	int cannot_write; /* the failure was SQLite writing (disk full, I/O) */
	struct strbuf *err;
	/* llmprof's interrupt count when the conversion began (core/proc.h):
	 * one more stops it, with interrupted set */
	int interrupts0, interrupted;
	uint64_t since_check; /* records since the last look */
};

/* Whether llmprof was interrupted since the conversion began: then
 * c->failed and c->interrupted are set and c->err says so. Cheap enough
 * for every record (it looks every 65,536 calls). */
int conv_interrupted(struct conv *c);
/* The same, looking now. */
int conv_interrupted_now(struct conv *c);

/* ---- tosqlite_db.c */

/* Creates path (named shown in messages) with the schema and the ENUM rows and prepares the
 * statements, in one transaction with the journal off; a statement stops
 * when llmprof is interrupted (conv_interrupted()). 0 or -1 (err set). */
int conv_open(struct conv *c, const char *path, const char *shown);
/* Writes StringIds, the session start and META_DATA_EXPORT, drops the empty
 * tables, commits and closes. 0 or -1 (err set). */
int conv_finish(struct conv *c);
/* Frees c; a database still open (a failure) is closed and path removed. */
struct bundle_dir;
void conv_release(struct conv *c, const struct bundle_dir *bd, const char *path);
/* Runs and resets statement id. 0, or -1 with c->failed set (the first
 * failure's message in c->err). */
int conv_step(struct conv *c, enum stmt_id id);
/* Binds a row struct whose columns are n consecutive int64_t (the *_row
 * types), with the graphNodeId column (1-based null_col) NULL when the row
 * says so, and inserts it. 0 or -1 (c->failed set). */
int conv_insert_row(struct conv *c, enum stmt_id id, const int64_t *v, int n, int null_graph,
		    int null_col);
void conv_bind_text(sqlite3_stmt *s, int i, struct str t);
/* The StringIds id of p[0..n): dense from 0. */
int64_t conv_intern(struct conv *c, const char *p, size_t n);
void conv_put_nvtx(struct conv *c, const struct nvtx_row *r);

/* ---- tosqlite_payload.c */

/* A TLOG_NVTX_PL_SCHEMA record (size bytes) into the payload schema or
 * enum tables; a malformed record is counted in c->stats and skipped. */
void conv_put_pl_schema(struct conv *c, const struct tlog_nvtx_pl_schema *r, size_t size);
/* ---- tosqlite_sample.c */

/* One process's CPU-sampling state. */
struct sample_proc {
	struct symbolizer sym;
	uint64_t period_ns; /* 0: the process did not sample */
	int totals;	    /* its totals at exit were read (below) */
	int cost_known;	    /* they carry handler_ns and handler_calls */
	uint32_t method, threads;
	uint64_t samples, dropped, handler_ns, handler_calls;
	int64_t sampled_ns; /* its LLMPROF_CPU_SAMPLES rows' periods summed */
};
/* Pass 1: TLOG_MODULE and TLOG_CPU_SAMPLING records of process pid. */
void conv_sample_def(struct conv *c, struct sample_proc *sp, uint32_t pid,
		     const struct tlog_rec *h);
/* Pass 2: a TLOG_CPU_SAMPLE of thread gtid, ts on the trace's time base. */
void conv_put_sample(struct conv *c, struct sample_proc *sp, int64_t gtid, int64_t ts,
		     const struct tlog_rec *h);
/* After pass 2: the process's LLMPROF_CPU_SAMPLER row (its totals at exit
 * and the sampled time), when it wrote totals. */
void conv_put_sampler(struct conv *c, struct sample_proc *sp, uint32_t pid);
void conv_sample_release(struct sample_proc *sp);

/* ---- tosqlite_nest.c */

/* One process's activity-source API calls (TLOG_API_ACT), decided as pass
 * 1 reads them: the corr ids of the calls in no other (top: runtime calls
 * and lone driver calls, the recorded launch calls), of the driver calls
 * inside a runtime call (nested: folded into it), and those calls' aliases
 * to it (from << 32 | to, in the order decided). Memory: 3 bits per corr id
 * and 8 bytes per alias; the undecided calls are a few per thread. */
struct nest_thread;
struct api_nest {
	struct nest_thread *threads;
	size_t nthreads, athreads, last;
	struct u32set drivers; /* driver corr ids seen (one twice: fallback) */
	struct u32set top, nested;
	uint64_t *aliases;
	size_t naliases, aaliases;
	int fallback; /* not in CUPTI's order: the caller sorts every call instead */
};
/* Pass 1: a TLOG_API_ACT record (h.aux says runtime or driver). */
void api_nest_add(struct api_nest *n, const struct tlog_api *a);
/* After pass 1: decides the calls still open; frees the per-thread state. */
void api_nest_finish(struct api_nest *n);
/* One call decided (parent 0: in none), for the fallback's sorted calls. */
void api_nest_result(struct api_nest *n, uint32_t corr, uint32_t parent);
void api_nest_release(struct api_nest *n);

/* ---- tosqlite_pass.c */

/* Converts the log r reads (one process): both passes, its thread names;
 * the reader's problems are added to problems. Stops early once c->failed. */
void conv_process(struct conv *c, struct tlog_reader *r, struct strbuf *problems);

#endif
