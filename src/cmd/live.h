/* live.h: `llmprof profile`'s one-line live status while a step runs, and
 * the last lines of a child's log shown when it fails.
 *
 * The line says the step (number, name), how long it and the whole run
 * have taken, and what is known of its progress (the detail: ncu's "kernel
 * 3 of 12", the workload's NVTX ranges (trace/nvtxnow.h), or the last line
 * it printed). On a terminal it is
 * redrawn in place ("\r", then clear to the end of the line), cut to the
 * terminal's width, and erased by live_clear() before any other output.
 * Elsewhere (a log file, CI) it is a plain line at most every
 * LIVE_PLAIN_EVERY_S seconds, and only once a step has run that long, so a
 * log never stays silent longer than that and a quick run prints none.
 *
 * Only cmd/ prints: proc_run()'s on_tick calls live_tick() from its wait
 * loop (core/proc.h). Times are passed in (clock_mono_ns()), so tests can
 * drive it. Ownership: struct live owns its strings; live_release(). */
#ifndef LLMPROF_CMD_LIVE_H
#define LLMPROF_CMD_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"

#define LIVE_PLAIN_EVERY_S 5

struct live {
	FILE *fp;
	int enabled; /* 0: every call is a no-op (-q, --echo) */
	int tty;     /* redraw one line in place */
	int width;   /* terminal columns; 0 = unknown (no cut) */
	uint64_t run_start_ns, step_start_ns;
	uint64_t last_line_ns; /* plain mode: the last line written, or the step start */
	size_t step, nsteps;   /* 1-based step number, of nsteps */
	struct strbuf name;
	struct strbuf detail;
	int drawn; /* a line is on the terminal now */
};

void live_init(struct live *l, FILE *fp, int enabled, int tty, int width, uint64_t now_ns);
void live_release(struct live *l);
/* A step starts: the elapsed time and the detail start over. */
void live_step(struct live *l, size_t step, size_t nsteps, const char *name, uint64_t now_ns);
/* What is known of the step's progress; NULL or "" for nothing. Control
 * characters and escape sequences are dropped (the text may come from a
 * program's output); at most 160 bytes are kept. */
void live_set_detail(struct live *l, const char *detail);
/* "llmprof: step 4/11 workload, 12 s (total 14 s): <detail>" (no newline). */
void live_format(const struct live *l, uint64_t now_ns, struct strbuf *out);
/* On a terminal redraws the line; elsewhere writes it when
 * LIVE_PLAIN_EVERY_S have passed since the last one (or the step start). */
void live_tick(struct live *l, uint64_t now_ns);
/* Another line went to the same log: the next plain line is due
 * LIVE_PLAIN_EVERY_S after it. */
void live_printed(struct live *l, uint64_t now_ns);
/* Erases the drawn line (terminal only); call before printing anything. */
void live_clear(struct live *l);

/* Elapsed time for people: "12 s", "3m05s", "1h02m". */
void live_format_duration(double s, struct strbuf *out);

/* The last non-empty line of buf: after the last '\n' or '\r' (progress
 * bars redraw with '\r'), escape sequences and control characters dropped,
 * at most max bytes. Appended to out (nothing when there is none). */
void live_last_line(const char *buf, size_t len, size_t max, struct strbuf *out);

/* The last max_lines lines of the file at path (reading at most its last
 * max_bytes), each made printable (control characters become '?', escape
 * sequences are dropped) and cut to 300 bytes, every line prefixed with
 * indent and ended with '\n'. Returns how many lines were appended, 0 for
 * an empty file, or -1 when it cannot be read. */
int live_file_tail(const char *path, size_t max_lines, size_t max_bytes, const char *indent,
		   struct strbuf *out);

#endif
