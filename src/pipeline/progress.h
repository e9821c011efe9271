/* progress.h: what the pipeline tells the person watching, as calls.
 *
 * pipeline/ never writes to stdout or stderr: it reports events through
 * these function pointers, and cmd/profile_view.c decides what to print
 * (the live status line, -v, -q, a terminal or a log). Every pointer must
 * be set; arg is passed back as is. Texts are borrowed for the call. */
#ifndef LLMPROF_PIPELINE_PROGRESS_H
#define LLMPROF_PIPELINE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/proc.h"
#include "nsight/ncu_progress.h"
#include "bundle/status.h"

struct pipeline_progress {
	void *arg;
	/* one line, without the "llmprof: warning: " / "error: " prefix */
	void (*warning)(void *arg, const char *msg);
	void (*error)(void *arg, const char *msg);
	/* text as it is, whole lines (the tracer's diagnostics) */
	void (*text)(void *arg, const char *text);
	/* the reports step's critical and warning findings, one a line */
	void (*findings)(void *arg, const char *text);
	/* a failed workload: the last lines of its logs are worth showing */
	void (*log_tail)(void *arg, const char *err_log, const char *out_log);

	/* step i (0-based) of nr starts; step i has ended (st->steps[i]) */
	void (*step_begin)(void *arg, size_t i, size_t nr, const char *name);
	void (*step_end)(void *arg, const struct run_status *st, size_t i);

	/* A child is about to run (spec is complete): the callee may set
	 * spec->on_tick. out_log/err_log: its logs, whose last line says what
	 * it does (NULL: not watched); nvtx_log: the builtin tracer's log
	 * folder of a traced workload (NULL: none); detail: what to show as
	 * its progress until something better (NULL: keep). child_end: it
	 * has exited (or could not start). */
	void (*child_begin)(void *arg, const char *name, struct proc_spec *spec,
			    const char *out_log, const char *err_log, const char *nvtx_log,
			    const char *detail);
	void (*child_end)(void *arg);

	/* The ncu step: capture i (0-based) of n starts; name is the kernel
	 * (NULL: the configured filters); results_before: results the
	 * earlier captures were to give. */
	void (*ncu_capture_begin)(void *arg, size_t i, size_t n, const char *name,
				  long long results_before);
	/* ncu printed progress (p: its parsed console); expected results, 0
	 * when unknown; start_ns: when the step started (monotonic) */
	void (*ncu_capture_progress)(void *arg, const struct ncu_progress *p, size_t expected,
				     uint64_t start_ns);
	/* capture i ended: measured in secs, or not (why); explicit_run: the
	 * user's own filters, not a selected kernel */
	void (*ncu_capture_end)(void *arg, size_t i, size_t n, int measured, double secs,
				const char *why, int explicit_run);
};

/* One warning or error line, printf-formatted, through pr->warning or
 * pr->error (run.h's run_warning() and run_error() are these on a run's
 * progress). */
void progress_warning(const struct pipeline_progress *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void progress_error(const struct pipeline_progress *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
