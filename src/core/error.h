/* error.h: exit codes, and the error convention used everywhere.
 *
 * Fallible functions return 0 on success or a negative value on failure and
 * describe the failure in a caller-owned struct strbuf *err (left untouched on
 * success). Only cmd_* and main print and exit. Messages are lowercase, with
 * no trailing period, and quote their subject: "cannot open 'x': reason".
 * docs/exit-codes.md documents each exit code. */
#ifndef LLMPROF_ERROR_H
#define LLMPROF_ERROR_H

#include <stdio.h>

#include "core/strbuf.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_WORKLOAD_FAILED = 1, /* the profiled program failed or was killed */
	EXIT_USAGE = 2,		  /* bad command line */
	EXIT_CONFIG = 3,	  /* bad configuration or override */
	EXIT_TOOL_MISSING = 4,	  /* nsys, ncu, tracer or CUDA not usable */
	EXIT_BAD_INPUT = 5,	  /* unreadable, malformed or truncated input file */
	EXIT_STEP_FAILED = 6,	  /* a pipeline step (profiler, export) failed */
	EXIT_IO = 7,		  /* cannot write output (disk full, read-only) */
	EXIT_INCOMPLETE = 8,	  /* merge: some ranks missing or failed; the rest merged */
	EXIT_REGRESSION = 9,	  /* diff --fail-above: the metric got significantly worse */
	EXIT_CANNOT_TELL = 10,	  /* diff --fail-above: the gate cannot judge the change */
	EXIT_INTERRUPTED = 130,	  /* SIGINT/SIGTERM; bundle marked interrupted */
	EXIT_TIMEOUT = 124,	  /* run.timeout_s exceeded */
	EXIT_INTERNAL = 70,	  /* a bug in llmprof, or out of memory */
};

/* Appends a formatted message to err (if err is non-NULL) and returns -1. */
int error_set(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Like error_set, with ": strerror(errno)" appended. */
int error_errno(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "llmprof: error: ..." to stderr, one line: the message is escaped
 * as utf8_printable() does (control bytes, terminal escape sequences and
 * invalid UTF-8 as \xHH), whatever file name or tool output it quotes. */
void error_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "llmprof: ..." on stderr, escaped the same way: progress and notes. */
void note_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes s to fp escaped the same way, except for the bytes of keep (NULL,
 * or e.g. "\n\t" for a multi-line log tail). Every diagnostic that quotes
 * outside text goes through this or the printers above. */
void fputs_printable(const char *s, FILE *fp, const char *keep);
/* Print "llmprof: ..." and exit with code. Only for cmd_* and main. */
void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)
void bug_fl(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#endif
