/* tracer.h: internals of libllmprof_tracer.so shared by its source files.
 * Nothing here is exported: the library's only visible symbols are
 * InitializeInjection (CUDA) and InitializeInjectionNvtx2 (NVTX). */
#ifndef LLMPROF_TRACER_H
#define LLMPROF_TRACER_H

#include <stddef.h>
#include <stdint.h>

#define TLOG_WRITER_ONLY
#include "trace/tracelog.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* Process-wide setup (log file, fork and exit handlers). Idempotent and
 * thread-safe; returns 0 when tracing is on, -1 when it is off (no output
 * directory, or the log cannot be created): callers then do nothing. */
HIDDEN int tracer_init(uint32_t flag);
HIDDEN int tracer_enabled(void);
HIDDEN uint64_t tracer_now(void);
HIDDEN uint32_t tracer_tid(void);

/* Reserves size bytes (a multiple of 8) in the calling thread's buffer and
 * returns them zeroed, or NULL when the record cannot be kept (counted as
 * dropped). tracer_commit() must follow every successful reserve. */
HIDDEN void *tracer_reserve(size_t size);
HIDDEN void tracer_commit(void);
/* Appends one fixed-size record built by the caller (h.type and h.size set)
 * to the calling thread's buffer: reserve, copy and commit in one call, so
 * no path can leave the buffer locked. Dropped (counted) when not kept. */
HIDDEN void tracer_append(const void *rec, size_t size);
/* Makes the calling thread's buffer now (it is made at its first record
 * otherwise), so a signal handler can append to it; 0 or -1. */
HIDDEN int tracer_thread_ready(void);
/* tracer_reserve for a signal handler on the calling thread: NULL (nothing
 * counted; the caller counts) when the thread was interrupted inside the
 * tracer, has no buffer yet, or another thread holds its buffer. Never
 * allocates or waits. tracer_commit_signal() follows a successful one. */
HIDDEN void *tracer_reserve_signal(size_t size);
HIDDEN void tracer_commit_signal(void);
/* Same for the shared buffer fed by CUPTI's buffer-completion callback,
 * under tracer_gpu_lock(), but not zeroed: the caller writes every byte. */
HIDDEN void *tracer_gpu_reserve(size_t size);
HIDDEN void tracer_gpu_lock(void);
HIDDEN void tracer_gpu_unlock(void);

/* Writes one record in a chunk of its own, at once (definitions, diags). */
HIDDEN void tracer_write_now(const void *rec, size_t size);
/* Builds and writes a record whose fixed part (fixed bytes, h.type set) is
 * followed by up to two strings; sets h.size. */
HIDDEN void tracer_write_def(void *fixed, size_t fixed_size, const char *s1, size_t n1,
			     const char *s2, size_t n2);
HIDDEN void tracer_diag(int level, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Flushes every thread buffer and the GPU buffer to the log. */
HIDDEN void tracer_flush_all(void);
HIDDEN uint64_t tracer_env_u64(const char *name, uint64_t def, uint64_t max);

/* nvtx_payload.c: NVTX's payload extension. tracer_nvtx_ext_init() fills
 * the module's slots (1) or declines it (0); tracer_nvtx_payload() writes
 * the payloads of an nvtxPayloadData_t array of count (NULL, unknown
 * schemas and empty payloads: nothing) to the calling thread's buffer. */
HIDDEN int tracer_nvtx_ext_init(void *module_info);
HIDDEN void tracer_nvtx_payload(uint64_t domain, const void *data, size_t count);
/* nvtx.c: nvtxRangePushPayload / nvtxRangePopPayload, for the slots. */
HIDDEN int tracer_nvtx_push_payload(void *domain, const void *data, size_t count);
HIDDEN int tracer_nvtx_pop_payload(void *domain, const void *data, size_t count);
/* sample.c: the CPU sampler (LLMPROF_TRACE_CPU_SAMPLE_HZ). sample_setup
 * runs once at tracer start; sample_thread_start on every traced call of a
 * thread (cheap after its first); sample_stop at exit deletes the timers
 * and writes the totals; sample_write_modules at each flush writes the
 * loaded objects when they changed; sample_thread_exit deletes the calling
 * thread's timer; sample_fork_child forgets the parent's timers. */
HIDDEN void sample_setup(void);
HIDDEN void sample_thread_start_slow(void);
HIDDEN extern __thread int tracer_sample_started;
HIDDEN extern int tracer_sample_on;
static inline void sample_thread_start(void)
{
	if (__builtin_expect(tracer_sample_on && !tracer_sample_started, 0))
		sample_thread_start_slow();
}
HIDDEN void sample_stop(void);
HIDDEN void sample_write_modules(void);
HIDDEN void sample_thread_exit(void);
HIDDEN void sample_fork_child(void);
/* fork() waits for a walk of the loaded objects in progress (sample.c). */
HIDDEN void sample_fork_prepare(void);
HIDDEN void sample_fork_parent(void);

/* Longest string kept in one record; longer ones are cut (and say so). */
#define TRACER_MAX_STR 16000u

#endif
