/* nsys_exec.c: see nsys_exec.h. A thin layer over run/proc that keeps the
 * child's output in memory, for the short nsys steps and probes. */
#include <string.h>

#include "core/error.h"
#include "core/proc.h"
#include "nsight/nsys_exec.h"
#include "core/banned.h"

void nsys_exec_result_release(struct nsys_exec_result *res)
{
	strbuf_release(&res->out);
	strbuf_release(&res->err);
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->out, 0);
	strbuf_init(&res->err, 0);
}

int nsys_exec_run(const char *const *argv, const char *const *env, const char *cwd,
		  uint64_t timeout_ms, struct nsys_exec_result *res, struct strbuf *err)
{
	struct proc_spec spec;
	struct proc_result pr;
	struct strbuf how = STRBUF_INIT;

	if (!argv || !argv[0] || !*argv[0])
		return error_set(err, "no program to run");
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.env_add = env;
	spec.cwd = cwd;
	spec.stdin_null = 1;
	spec.out.buf = &res->out;
	spec.out.buf_max = NSYS_EXEC_CAPTURE_MAX;
	spec.err.buf = &res->err;
	spec.err.buf_max = NSYS_EXEC_CAPTURE_MAX;
	spec.timeout_s = (double)timeout_ms / 1000.0;
	spec.grace_s = 2.0;
	if (proc_run(&spec, &pr, err))
		return -1;
	res->truncated = pr.out_bytes > res->out.len || pr.err_bytes > res->err.len;
	switch (pr.outcome) {
	case PROC_EXITED:
		res->exited = 1;
		res->exit_code = pr.exit_status;
		break;
	case PROC_SIGNALED:
		res->signaled = 1;
		res->term_signal = pr.signal;
		break;
	case PROC_TIMEOUT:
		res->timed_out = 1;
		res->signaled = pr.signal != 0;
		res->term_signal = pr.signal;
		break;
	case PROC_INTERRUPTED:
		res->signaled = 1;
		res->term_signal = pr.interrupt_signal;
		res->interrupted = 1;
		break;
	case PROC_EXEC_FAILED:
		proc_result_describe(&pr, &spec, &how);
		error_set(err, "%s", how.buf);
		strbuf_release(&how);
		return -1;
	}
	return 0;
}

void nsys_exec_describe(const struct nsys_exec_result *res, uint64_t timeout_ms, struct strbuf *out)
{
	if (res->timed_out)
		strbuf_addf(out, "timed out after %.1f s", (double)timeout_ms / 1000.0);
	else if (res->interrupted)
		strbuf_addf(out, "interrupted by %s", proc_signal_name(res->term_signal));
	else if (res->signaled)
		strbuf_addf(out, "killed by signal %d (%s)", res->term_signal,
			    proc_signal_name(res->term_signal));
	else
		strbuf_addf(out, "exit %d", res->exit_code);
}
