/* perfetto.h: trace.json (Chrome trace-event format, opens in Perfetto and
 * chrome://tracing) from a trace database in the nsys schema -- llmprof's
 * own or an nsys export.
 *
 * Tracks: NVTX ranges and CUDA launch calls on their CPU threads (pid = OS
 * pid, tid = OS tid), kernels/memcpy/memset on one track per GPU stream
 * (pid "GPU <device>", tid = stream), and a flow arrow from each launch call
 * to the GPU work it launched; kernels replayed from a CUDA graph carry the
 * ranges open at their capture, drawn per replay on a track beside their
 * stream (docs/tracer.md, "trace.json"). Big traces stay openable: when there are more
 * than max_events events, the shortest GPU ops and launch calls are folded,
 * per track, into "[N merged ...]" slices (NVTX ranges are always kept), and
 * the file says how many and below which duration. */
#ifndef LLMPROF_PERFETTO_H
#define LLMPROF_PERFETTO_H

#include <stdint.h>

#include "core/strbuf.h"

/* About 150 bytes per event: 2 M events is a 300 MB file, which Perfetto's
 * web UI still opens (it struggles beyond ~1 GB). */
#define PERFETTO_DEFAULT_MAX_EVENTS 2000000ull

/* max_events 0 = PERFETTO_DEFAULT_MAX_EVENTS. Writes json_path, a name in
 * bd (core/bundle_dir.h; NULL: a path as given), atomically. *events =
 * events written, *merged = events folded by the cap (either pointer may
 * be NULL). Returns 0, -1 with err set (the trace cannot be read), or
 * PERFETTO_CANNOT_WRITE with err set (json_path cannot be written: disk
 * full, permission, a symlink in the bundle; a write error, exit 7). */
#define PERFETTO_CANNOT_WRITE (-2)
struct bundle_dir;
int perfetto_write(const char *sqlite_path, const struct bundle_dir *bd, const char *json_path,
		   uint64_t max_events, uint64_t *events, uint64_t *merged, struct strbuf *err);

/* Pure: the smallest duration to keep so that `budget` of the n durations
 * remain, plus any tied with the shortest kept one (0 when all fit;
 * INT64_MAX when budget is 0). dur is sorted in place. */
int64_t perfetto_threshold(int64_t *dur, size_t n, size_t budget);

#endif
