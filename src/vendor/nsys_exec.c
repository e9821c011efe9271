/* nsys_exec.c: see nsys_exec.h. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "vendor/nsys_exec.h"
#include "core/banned.h"

void nsys_exec_result_release(struct nsys_exec_result *res)
{
	strbuf_release(&res->out);
	strbuf_release(&res->err);
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->out, 0);
	strbuf_init(&res->err, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: only async-signal-safe calls until exec. */
static void child_exec(const char *const *argv, const char *const *env, const char *cwd,
		       int out_fd, int err_fd, int status_fd)
{
	int e;

	setpgid(0, 0);
	if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	if (cwd && chdir(cwd))
		goto fail;
	for (size_t i = 0; env && env[i]; i++)
		if (putenv((char *)env[i]))
			goto fail;
	execvp(argv[0], (char *const *)argv);
fail:
	e = errno;
	if (write(status_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void drain(int *fd, struct strbuf *sb, int *truncated)
{
	char buf[8192];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	if (sb->len + (size_t)n > NSYS_EXEC_CAPTURE_MAX) {
		size_t room = NSYS_EXEC_CAPTURE_MAX - sb->len;
		strbuf_add(sb, buf, room);
		*truncated = 1;
		return;
	}
	strbuf_add(sb, buf, (size_t)n);
}

int nsys_exec_run(const char *const *argv, const char *const *env, const char *cwd,
		  uint64_t timeout_ms, struct nsys_exec_result *res, struct strbuf *err)
{
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, st_pipe[2] = { -1, -1 };
	uint64_t deadline = timeout_ms ? clock_mono_ns() + timeout_ms * 1000000ull : 0;
	uint64_t kill_at = 0;
	int exec_errno = 0, status = 0, ret = -1;
	pid_t pid;
	ssize_t n;

	if (!argv || !argv[0] || !*argv[0])
		return error_set(err, "no program to run");
	if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) ||
	    pipe2(st_pipe, O_CLOEXEC)) {
		error_errno(err, "cannot create a pipe");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error_errno(err, "cannot fork to run '%s'", argv[0]);
		goto out;
	}
	if (pid == 0)
		child_exec(argv, env, cwd, out_pipe[1], err_pipe[1], st_pipe[1]);
	setpgid(pid, pid); /* also in the parent: no race with kill() below */
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[1]);
	close_fd(&st_pipe[1]);

	while (out_pipe[0] >= 0 || err_pipe[0] >= 0) {
		struct pollfd pfd[2] = { { out_pipe[0], POLLIN, 0 }, { err_pipe[0], POLLIN, 0 } };
		int wait_ms = -1;

		if (deadline) {
			uint64_t now = clock_mono_ns();
			if (now >= deadline && !kill_at) {
				res->timed_out = 1;
				kill(-pid, SIGTERM);
				kill_at = now + 2000000000ull; /* 2 s grace, then SIGKILL */
			}
			if (kill_at && now >= kill_at) {
				kill(-pid, SIGKILL);
				kill_at = UINT64_MAX;
			}
			if (kill_at == UINT64_MAX)
				wait_ms = 100;
			else
				wait_ms = (int)(((kill_at ? kill_at : deadline) - now) / 1000000ull) + 1;
		}
		if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR) {
			error_errno(err, "poll");
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			goto out;
		}
		if (out_pipe[0] >= 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&out_pipe[0], &res->out, &res->truncated);
		if (err_pipe[0] >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&err_pipe[0], &res->err, &res->truncated);
	}
	/* Pipes closed: the child (or a grandchild holding them) is done. */
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error_errno(err, "waitpid");
			goto out;
		}
	}
	n = read(st_pipe[0], &exec_errno, sizeof(exec_errno));
	if (n == (ssize_t)sizeof(exec_errno)) {
		errno = exec_errno;
		error_errno(err, "cannot run '%s'", argv[0]);
		goto out;
	}
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signaled = 1;
		res->term_signal = WTERMSIG(status);
	}
	ret = 0;
out:
	close_fd(&out_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[0]);
	close_fd(&err_pipe[1]);
	close_fd(&st_pipe[0]);
	close_fd(&st_pipe[1]);
	return ret;
}

void nsys_exec_describe(const struct nsys_exec_result *res, uint64_t timeout_ms,
			struct strbuf *out)
{
	if (res->timed_out)
		strbuf_addf(out, "timed out after %.1f s", (double)timeout_ms / 1000.0);
	else if (res->signaled)
		strbuf_addf(out, "killed by signal %d (%s)", res->term_signal,
			    strsignal(res->term_signal));
	else
		strbuf_addf(out, "exit %d", res->exit_code);
}
