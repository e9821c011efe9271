/* status.h: <run>/status.json, the truth about a run's steps.
 *
 * Every change is followed by run_status_write(), which rewrites the file
 * atomically, so after a crash or kill -9 the file on disk still says what
 * had happened up to then. Schema: docs/run-bundle.md. */
#ifndef LLMPROF_BUNDLE_STATUS_H
#define LLMPROF_BUNDLE_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "model/state.h"

enum run_state { RUN_RUNNING, RUN_OK, RUN_FAILED, RUN_INTERRUPTED, RUN_TIMEOUT };

struct status_step {
	char *name; /* owned */
	enum step_state state;
	uint64_t start_ns, end_ns; /* wall clock, 0 = not yet */
	int exit_status;	   /* -1 = none */
	int signal;		   /* 0 = none */
	char *message;		   /* owned, one line, may be NULL */
};

struct run_status {
	char *run_id;  /* owned */
	char *version; /* owned: llmprof version (and commit) */
	char *path;    /* owned: status.json's name in its bundle_dir, NULL = never written */
	enum run_state state;
	uint64_t started_ns, ended_ns;
	int exit_code; /* -1 while running */
	long trust;    /* items of the reports' trust report (docs/report.md "Trust");
			  -1 = not known (no reports, or no trace) */
	struct status_step *steps;
	size_t nr, alloc;
};

/* Copies run_id, version and path (path may be NULL). */
void run_status_init(struct run_status *st, const char *run_id, const char *version,
		     const char *path);
void run_status_release(struct run_status *st);

/* Adds a pending step and returns its index. */
size_t run_status_add(struct run_status *st, const char *name);
/* Index of the step called name, or -1. */
long run_status_find(const struct run_status *st, const char *name);
void run_status_start(struct run_status *st, size_t i);
/* Ends step i. exit_status -1 / signal 0 when not applicable; message is
 * copied with newlines and tabs turned into spaces (may be NULL). */
void run_status_end(struct run_status *st, size_t i, enum step_state state, int exit_status,
		    int signal, const char *message);
/* Marks the run finished; still-pending steps become skipped with `why`. */
void run_status_finish(struct run_status *st, enum run_state state, int exit_code, const char *why);

const char *run_state_name(enum run_state s);
/* step_state_name(), step_state_from_name(): model/state.h. */
/* Renders status.json (pure). */
void run_status_to_json(const struct run_status *st, struct strbuf *out);
/* Rewrites st->path in bd (NULL: st->path is a path) atomically. 0, or -1
 * with err. */
struct bundle_dir;
int run_status_write(const struct run_status *st, const struct bundle_dir *bd, struct strbuf *err);

#endif
