/* nvtxnow.h: the NVTX ranges a traced program is inside right now, read
 * from the builtin tracer's logs while it runs, for profile's live status
 * ("decode_all > decode_step #12").
 *
 * The tracer writes each thread's records as whole chunks, at least every
 * LLMPROF_TRACE_LOG_FLUSH_MS (1 s by default; docs/tracer.md), so the logs
 * are at most about a second behind the program. Each poll reads only what
 * the files gained since the last one, and only whole chunks (a chunk being
 * written is read at the next poll). Push/pop ranges are followed per
 * thread; the answer is the open ranges of the thread that pushed or popped
 * last. Start/end ranges and marks are not followed.
 *
 * Ownership: struct nvtx_now owns everything; nvtx_now_free(). */
#ifndef LLMPROF_NVTXNOW_H
#define LLMPROF_NVTXNOW_H

#include <stddef.h>

#include "core/strbuf.h"

struct nvtx_now;

/* Follows the trace-*.bin files of log_dir (copied). */
struct nvtx_now *nvtx_now_new(const char *log_dir);
void nvtx_now_free(struct nvtx_now *n);

/* Reads what the log files gained, then appends to out the outermost
 * `levels` open ranges of the thread active last, joined by " > ", the last
 * one with "#N" when it is the Nth range of that name in a row at its level
 * (the Nth decode step). Appends nothing when no range is open. Never
 * fails: unreadable or damaged files are left alone from there on. */
void nvtx_now_poll(struct nvtx_now *n, size_t levels, struct strbuf *out);

/* For tests: feeds the next bytes of the log file called name (in any
 * chunking), as a poll would read them. */
void nvtx_now_feed(struct nvtx_now *n, const char *name, const void *buf, size_t len);
/* For tests: appends the answer without reading files. */
void nvtx_now_describe(const struct nvtx_now *n, size_t levels, struct strbuf *out);

#endif
