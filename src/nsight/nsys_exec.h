/* nsys_exec.h: run one short child (nsys export/stats, --version probes)
 * from an argv array through run/proc (own process group, so a timeout kills
 * nsys together with the helpers it forks), keeping its stdout and stderr in
 * memory. stdin is /dev/null.
 *
 * Ownership: the caller owns struct nsys_exec_result and releases it with
 * nsys_exec_result_release(). */
#ifndef LLMPROF_VENDOR_NSYS_EXEC_H
#define LLMPROF_VENDOR_NSYS_EXEC_H

#include <stdint.h>

#include "core/strbuf.h"

struct nsys_exec_result {
	int exited; /* 1: exited normally, status in exit_code */
	int exit_code;
	int signaled; /* 1: killed by signal term_signal */
	int term_signal;
	int timed_out;	   /* 1: we killed it after the timeout */
	int interrupted;   /* 1: llmprof got SIGINT/SIGTERM and forwarded it */
	struct strbuf out; /* captured stdout (at most NSYS_EXEC_CAPTURE_MAX bytes) */
	struct strbuf err; /* captured stderr (same cap) */
	int truncated;	   /* 1: some output beyond the cap was dropped */
};
#define NSYS_EXEC_RESULT_INIT                                                                      \
	{                                                                                          \
		0, 0, 0, 0, 0, 0, STRBUF_INIT, STRBUF_INIT, 0                                      \
	}
#define NSYS_EXEC_CAPTURE_MAX (4u << 20)

void nsys_exec_result_release(struct nsys_exec_result *res);

/* Runs argv[0] (a path, or a name looked up on PATH) with argv, adding the
 * "NAME=VALUE" strings of env (NULL-terminated, may be NULL) to the inherited
 * environment, in directory cwd (NULL: the current one). timeout_ms 0 means
 * no limit. Returns 0 once the child has been started and reaped (whatever
 * its exit status: see res), or -1 with err when it could not be started
 * ("cannot execute 'x': No such file or directory"). */
int nsys_exec_run(const char *const *argv, const char *const *env, const char *cwd,
		  uint64_t timeout_ms, struct nsys_exec_result *res, struct strbuf *err);

/* "exit 3", "killed by signal 9 (SIGKILL)", "timed out after 5.0 s". */
void nsys_exec_describe(const struct nsys_exec_result *res, uint64_t timeout_ms,
			struct strbuf *out);

#endif
