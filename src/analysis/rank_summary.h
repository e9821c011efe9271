/* rank_summary.h: the compact per-rank file `llmprof merge` reads instead
 * of a rank's trace: its NCCL kernels with what each had before it, its
 * stage windows and decode steps, its host and the clock its times are in,
 * as tab-separated text (docs/run-bundle.md, "collectives.tsv";
 * docs/collectives.md, "Clocks"). The profile's analyze step writes it
 * where the rank ran; analysis/merge.c reads it.
 *
 * Format (version 3), one record a line, fields separated by one tab, times
 * in ns:
 *   # llmprof collectives 3            (first line; a later version is refused)
 *   host <TAB> NAME                    (exactly once, before the rest)
 *   clock <TAB> SOURCE <TAB> HOST <TAB> BOOT_ID   (at most once, before windows
 *                                       and kernels)
 *   window <TAB> STAGE <TAB> START <TAB> END      (a prefill or decode range's
 *                                       GPU projection: first op start, last op end)
 *   step <TAB> START <TAB> END         (a decode step's GPU projection)
 *   kernel <TAB> START <TAB> END <TAB> DEVICE <TAB> STREAM <TAB> LAUNCH <TAB>
 *          PREV_END <TAB> BUSY <TAB> KERNELS <TAB> NAME
 * LAUNCH: the start of the API call that launched the kernel ("-" unknown);
 * PREV_END, BUSY, KERNELS: its gap (struct coll_gap, collectives_cause.h):
 * the end of the rank's previous NCCL kernel, the rank's other kernels'
 * busy time (union, ns) and count since then; "-" when it has no previous
 * NCCL kernel. With these the merge tells why a rank is late by the same
 * code as the single-trace analysis. Versions 1 and 2 have kernel lines of
 * START END DEVICE STREAM NAME and no step lines, and CPU times of the
 * ranges as windows: the merge still reads them and says that their
 * stragglers' cause is unknown.
 * With a clock line, times are absolute times of that clock: SOURCE
 * "realtime" (the builtin tracer's CLOCK_REALTIME, ns since the Unix epoch)
 * or "nsys-utc" (nsys's session start in UTC + the export's timestamp), on
 * HOST since the boot BOOT_ID (/proc/sys/kernel/random/boot_id); ranks of
 * one (SOURCE, HOST, BOOT_ID) are one clock domain. Without one (a trace
 * that records no session start, or a version 1 file, whose times start
 * at each process's own origin) the times share no origin with any other
 * rank's, and the merge aligns that rank on collective ends alone.
 * Only NCCL kernels are listed (analysis/collectives.h recognises them), so
 * the file grows with collectives, not with the trace. */
#ifndef LLMPROF_ANALYSIS_RANK_SUMMARY_H
#define LLMPROF_ANALYSIS_RANK_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/collectives.h"
#include "analysis/timeline.h"
#include "core/strbuf.h"
#include "trace/trace.h"

#define RANK_SUMMARY_MAGIC "# llmprof collectives 3"
#define RANK_SUMMARY_MAGIC_V2 "# llmprof collectives 2"
#define RANK_SUMMARY_MAGIC_V1 "# llmprof collectives 1"

struct report_analysis;

/* The clock a rank's times are stated in (strings borrowed). source NULL:
 * none stated, times from the trace's own origin. */
struct rank_clock {
	const char *source; /* "realtime", "nsys-utc" */
	const char *host, *boot_id;
	int64_t origin_ns; /* added to every time of the trace */
};

/* The clock of t's timestamps: its session start (trace_session_start())
 * as the origin, its source from the trace's producer, host and boot_id as
 * given (the caller's: where t was recorded). No session start: source
 * NULL, origin 0. */
void rank_clock_of_trace(struct trace *t, const char *host, const char *boot_id,
			 struct rank_clock *out);

/* This machine's boot id into out ("" when it cannot be read). */
void rank_boot_id(struct strbuf *out);

/* Appends a's summary to out: the host the trace recorded for the process
 * that ran the NCCL kernels, else `host`; the clock (this machine's boot);
 * the trace's part as the collectives read it (ranks.h coll_part_of_trace():
 * windows, steps, each NCCL kernel's gap). Returns how many NCCL kernels it
 * holds; 0 appends nothing (no NCCL kernel, or no trace). */
size_t rank_summary_format(struct report_analysis *a, const char *host, struct strbuf *out);

/* The same of one trace (or one process's part of one, analysis/ranks.h),
 * with stage names from sc and the clock c (its host line: c's host, else
 * `host`). */
size_t rank_summary_format_trace(const struct trace *t, const struct stage_config *sc,
				 const char *host, const struct rank_clock *c, struct strbuf *out);

/* The same of kernels, windows and steps already in hand (times as they
 * are, of clock c; every kernel is read for the gaps, only the NCCL ones
 * are written; launch: per kernel, < 0 unknown, NULL none): for tests and
 * tools that have no trace. */
size_t rank_summary_format_kernels(const struct coll_kernel *k, const int64_t *launch, size_t nk,
				   const struct coll_window *w, size_t nw,
				   const struct coll_window *steps, size_t nsteps, const char *host,
				   const struct rank_clock *c, struct strbuf *out);

#endif
