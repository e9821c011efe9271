/* perfetto.h: trace.json (Chrome trace-event format, opens in Perfetto and
 * chrome://tracing) from a trace database in the nsys schema -- llmprof's
 * own or an nsys export.
 *
 * Tracks: NVTX ranges and CUDA launch calls on their CPU threads (pid = OS
 * pid, tid = OS tid), kernels/memcpy/memset on one track per GPU stream
 * (pid "GPU <device>", tid = stream), and a flow arrow from each launch call
 * to the GPU work it launched. Big traces stay openable: when the estimated
 * size exceeds max_bytes, the shortest GPU ops and launch calls are folded,
 * per track, into "[N merged]" slices, and a metadata event says how many. */
#ifndef LLMPROF_PERFETTO_H
#define LLMPROF_PERFETTO_H

#include <stdint.h>

#include "core/strbuf.h"

#define PERFETTO_DEFAULT_MAX_BYTES (256ull << 20)

/* max_bytes 0 = PERFETTO_DEFAULT_MAX_BYTES. Writes json_path atomically.
 * *events = events written, *merged = events folded by the cap (either
 * pointer may be NULL). Returns 0 or -1 with err set. */
int perfetto_write(const char *sqlite_path, const char *json_path, uint64_t max_bytes,
		   uint64_t *events, uint64_t *merged, struct strbuf *err);

/* Pure: the smallest duration to keep so that at most `budget` of the n
 * durations remain (0 when all fit). dur is sorted in place. */
int64_t perfetto_threshold(int64_t *dur, size_t n, size_t budget);

#endif
