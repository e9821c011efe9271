/* trace_par.h: trace_load()'s readers on threads of their own.
 *
 * The kernels and the CUDA API calls are the two biggest tables of an
 * export and the two whose reading interns no string: each can be read on
 * its own SQLite connection (SQLITE_OPEN_NOMUTEX: one thread per
 * connection) into a trace of its own while the caller's thread reads the
 * rest, and moved into the caller's trace when both are done. The result
 * is the same whatever the threads' timing: each table is read by one
 * thread in table order, and a reader writes nothing the others read
 * until trace_par_finish() has joined it.
 *
 * Internal to trace.c. */
#ifndef LLMPROF_TRACE_PAR_H
#define LLMPROF_TRACE_PAR_H

#include <pthread.h>

#include "core/strbuf.h"
#include "trace/nsysdb.h"
#include "trace/trace.h"

/* Loads one part into t (trace.c's load_part()): 0, or -1 with err and
 * the part left empty. */
typedef int (*trace_part_loader)(struct trace *t, unsigned part, struct strbuf *err);

struct trace_reader {
	unsigned part;
	trace_part_loader load;
	struct trace scratch; /* what this reader fills, on its own connection */
	struct nsysdb db;
	struct strbuf err;
	int rc;
	pthread_t thread;
};

struct trace_par {
	struct trace_reader r[2];
	size_t n;
};

/* Starts a reader for each part of todo worth a thread of its own: the
 * kernels and the API calls when todo holds another part for the caller's
 * thread to read meanwhile. Returns the parts started (0: none; the caller
 * reads everything itself). Where SQLite is built without threads, the
 * file cannot be opened again as it was, or a thread cannot start, the
 * part is left to the caller. */
unsigned trace_par_start(struct trace_par *par, struct trace *t, unsigned todo,
			 trace_part_loader load);
/* Waits for every reader. What a reader read goes into t (its part marked
 * loaded); a reader that failed leaves its part unloaded and its error in
 * errs[k], k the part's bit index (TRACE_KERNELS: 0). */
void trace_par_finish(struct trace_par *par, struct trace *t, struct strbuf *errs);

#endif
