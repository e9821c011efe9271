/* proc.c: see proc.h.
 *
 * Parent loop: one poll() over the child's stdout/stderr pipes (when they
 * are copied somewhere) and a self-pipe fed by the SIGCHLD/SIGINT/SIGTERM
 * handlers. Reads are 64 KiB chunks written straight to their sinks, so a
 * child that floods output never blocks on us and our memory stays flat. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "core/banned.h"

extern char **environ;

/* How long we keep reading the pipes after the child was reaped: a
 * grandchild that inherited them may keep them open for ever. */
#define DRAIN_AFTER_EXIT_NS (2ull * 1000000000ull)

static int sig_pipe_wr = -1;
static volatile sig_atomic_t pending_interrupt;

static void on_interrupt(int sig)
{
	if (!pending_interrupt)
		pending_interrupt = sig;
}

void proc_catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int proc_pending_interrupt(void)
{
	return pending_interrupt;
}

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if ((sig == SIGINT || sig == SIGTERM) && !pending_interrupt)
		pending_interrupt = sig;

	if (sig_pipe_wr >= 0 && write(sig_pipe_wr, &c, 1) < 0) {
		/* pipe full: the loop is already awake */
	}
	errno = saved;
}

static const struct {
	int sig;
	const char *name;
} signames[] = {
    {SIGHUP, "SIGHUP"},	      {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},	    {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},   {SIGCHLD, "SIGCHLD"},
    {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},   {SIGTTIN, "SIGTTIN"},
    {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},   {SIGXFSZ, "SIGXFSZ"},
    {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"}, {SIGIO, "SIGIO"},
    {SIGSYS, "SIGSYS"},
};

const char *proc_signal_name(int sig)
{
	static char buf[16];

	for (size_t i = 0; i < ARRAY_SIZE(signames); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

/* One output stream being copied by the parent. */
struct stream {
	int rd;	  /* read end of the child's pipe, -1 when closed */
	int file; /* log file, -1 if none */
	int echo; /* our fd to copy to, -1 if none (or after EPIPE) */
	struct strbuf *buf;
	size_t buf_max;
	void (*on_data)(void *arg, const char *buf, size_t len);
	void *on_data_arg;
	uint64_t bytes;
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads what is available; closes rd at EOF. Never blocks (rd is O_NONBLOCK). */
static void stream_pump(struct stream *s, int *log_errno)
{
	char chunk[65536];

	while (s->rd >= 0) {
		ssize_t n = read(s->rd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				close(s->rd);
				s->rd = -1;
			}
			return;
		}
		if (n == 0) {
			close(s->rd);
			s->rd = -1;
			return;
		}
		s->bytes += (uint64_t)n;
		if (s->file >= 0 && write_all(s->file, chunk, (size_t)n)) {
			/* keep draining so the child never blocks; report later */
			if (!*log_errno)
				*log_errno = errno;
			close(s->file);
			s->file = -1;
		}
		if (s->echo >= 0 && write_all(s->echo, chunk, (size_t)n))
			s->echo = -1; /* terminal gone (EPIPE): stop echoing */
		if (s->buf && s->buf->len < s->buf_max) {
			size_t room = s->buf_max - s->buf->len;
			strbuf_add(s->buf, chunk, (size_t)n < room ? (size_t)n : room);
		}
		if (s->on_data)
			s->on_data(s->on_data_arg, chunk, (size_t)n);
	}
}

/* Everything the child needs, prepared before fork. */
struct child_plan {
	char **candidates;	   /* execve paths to try, NULL-terminated */
	char **envp;		   /* borrowed strings */
	int fd_in, fd_out, fd_err; /* -1 = inherit */
	const char *cwd;
	int report_wr; /* CLOEXEC pipe for exec failure */
};

struct exec_report {
	int stage; /* 1 = chdir, 2 = execve, 3 = setup */
	int err;
};

static const char *env_value(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

static int env_name_in(const char *entry, const char *const *list, int list_has_values)
{
	size_t len = strcspn(entry, "=");

	for (; list && *list; list++) {
		size_t l = list_has_values ? strcspn(*list, "=") : strlen(*list);
		if (l == len && !strncmp(entry, *list, len))
			return 1;
	}
	return 0;
}

static char **build_env(const struct proc_spec *spec)
{
	char **envp = NULL;
	size_t nr = 0, alloc = 0;

	for (char **e = environ; e && *e; e++) {
		if (env_name_in(*e, spec->env_remove, 0) || env_name_in(*e, spec->env_add, 1))
			continue;
		ALLOC_GROW(envp, nr + 1, alloc);
		envp[nr++] = *e;
	}
	for (const char *const *a = spec->env_add; a && *a; a++) {
		ALLOC_GROW(envp, nr + 1, alloc);
		envp[nr++] = (char *)*a;
	}
	ALLOC_GROW(envp, nr + 1, alloc);
	envp[nr] = NULL;
	return envp;
}

static char **build_candidates(const char *name, char *const *envp)
{
	char **c = NULL;
	size_t nr = 0, alloc = 0;
	const char *path;

	if (strchr(name, '/') || !*name) {
		ALLOC_GROW(c, 2, alloc);
		c[nr++] = xstrdup(name);
		c[nr] = NULL;
		return c;
	}
	path = env_value(envp, "PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		struct strbuf sb = STRBUF_INIT;

		strbuf_add(&sb, len ? path : ".", len ? len : 1);
		strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, name);
		ALLOC_GROW(c, nr + 2, alloc);
		c[nr++] = strbuf_detach(&sb, NULL);
		if (!colon)
			break;
		path = colon + 1;
	}
	c[nr] = NULL;
	return c;
}

static void child_fail(int fd, int stage, int err)
{
	struct exec_report r = {stage, err};

	if (write(fd, &r, sizeof(r)) < 0) {
		/* nothing more we can do */
	}
	_exit(127);
}

/* Runs in the child after fork: async-signal-safe calls only. */
static void child_exec(const struct child_plan *p, char *const *argv)
{
	struct sigaction sa;
	sigset_t none;
	int saw_eacces = 0, last = ENOENT;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if ((p->fd_in >= 0 && dup2(p->fd_in, 0) < 0) ||
	    (p->fd_out >= 0 && dup2(p->fd_out, 1) < 0) ||
	    (p->fd_err >= 0 && dup2(p->fd_err, 2) < 0))
		child_fail(p->report_wr, 3, errno);
	if (p->cwd && chdir(p->cwd))
		child_fail(p->report_wr, 1, errno);
	for (char **c = p->candidates; *c; c++) {
		execve(*c, argv, p->envp);
		last = errno;
		if (last == EACCES)
			saw_eacces = 1;
		else if (last != ENOENT && last != ENOTDIR)
			break;
	}
	child_fail(p->report_wr, 2,
		   saw_eacces && (last == ENOENT || last == ENOTDIR) ? EACCES : last);
}

static int open_log(const char *path, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		error_errno(err, "cannot write '%s'", path);
	return fd;
}

static void set_nonblock_cloexec(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Sets up one stream: direct file, pipe, or inherit. */
static int stream_setup(const struct proc_sink *sink, int our_fd, struct stream *s, int *child_fd,
			int *child_close, struct strbuf *err)
{
	int fds[2];

	s->rd = s->file = s->echo = -1;
	s->buf = sink->buf;
	s->buf_max = sink->buf_max ? sink->buf_max : 65536;
	s->on_data = sink->on_data;
	s->on_data_arg = sink->on_data_arg;
	*child_fd = *child_close = -1;
	if (sink->path) {
		s->file = open_log(sink->path, err);
		if (s->file < 0)
			return -1;
	}
	if (!sink->echo && !sink->buf && !sink->on_data) {
		*child_fd = s->file; /* child writes the file itself: no copying */
		return 0;
	}
	if (pipe(fds))
		return error_errno(err, "cannot create a pipe");
	set_nonblock_cloexec(fds[0]);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	s->rd = fds[0];
	*child_fd = *child_close = fds[1];
	if (sink->echo)
		s->echo = our_fd;
	return 0;
}

static void stream_close(struct stream *s)
{
	if (s->rd >= 0)
		close(s->rd);
	if (s->file >= 0)
		close(s->file);
	s->rd = s->file = -1;
}

static void free_strv(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

static const int handled_signals[] = {SIGCHLD, SIGINT, SIGTERM};

int proc_run(const struct proc_spec *spec, struct proc_result *res, struct strbuf *err)
{
	struct stream so = {.rd = -1, .file = -1, .echo = -1},
		      se = {.rd = -1, .file = -1, .echo = -1};
	struct child_plan plan = {NULL, NULL, -1, -1, -1, spec->cwd, -1};
	struct sigaction old[ARRAY_SIZE(handled_signals)], old_pipe, sa;
	int child_out_close = -1, child_err_close = -1, report[2] = {-1, -1};
	int sigp[2] = {-1, -1}, handlers = 0, reaped = 0, status = 0, fatal = 0;
	uint64_t start, deadline = 0, kill_at = 0, drain_until = 0, next_tick = 0, tick_ns = 0;
	double grace = spec->grace_s > 0 ? spec->grace_s : PROC_GRACE_S;
	struct exec_report rep;
	pid_t pid;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	/* With fd 0-2 closed, a log file could get fd 1 and the dup2() in the
	 * child would keep its close-on-exec flag: fill the holes first. */
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
			if (n >= 0 && n != fd)
				close(n);
		}
	}
	if (!spec->argv || !spec->argv[0]) {
		error_set(err, "no program to run");
		goto out;
	}
	plan.envp = build_env(spec);
	plan.candidates = build_candidates(spec->argv[0], plan.envp);
	if (spec->stdin_null && (plan.fd_in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		error_errno(err, "cannot open '/dev/null'");
		goto out;
	}
	if (stream_setup(&spec->out, 1, &so, &plan.fd_out, &child_out_close, err) ||
	    stream_setup(&spec->err, 2, &se, &plan.fd_err, &child_err_close, err))
		goto out;
	if (pipe(report) || pipe(sigp)) {
		error_errno(err, "cannot create a pipe");
		goto out;
	}
	fcntl(report[0], F_SETFD, FD_CLOEXEC);
	fcntl(report[1], F_SETFD, FD_CLOEXEC);
	set_nonblock_cloexec(sigp[0]);
	set_nonblock_cloexec(sigp[1]);
	plan.report_wr = report[1];

	/* Handlers go in before fork so no SIGCHLD or SIGINT is lost. */
	sig_pipe_wr = sigp[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &sa, &old[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	handlers = 1;

	fflush(NULL);
	start = clock_mono_ns();
	pid = fork();
	if (pid < 0) {
		error_errno(err, "cannot start '%s': fork", spec->argv[0]);
		goto out;
	}
	if (pid == 0)
		child_exec(&plan, (char *const *)spec->argv);
	setpgid(pid, pid); /* also done by the child; whichever runs first wins */
	res->pid = pid;
	close(report[1]);
	report[1] = -1;
	if (child_out_close >= 0)
		close(child_out_close);
	if (child_err_close >= 0)
		close(child_err_close);
	child_out_close = child_err_close = -1;

	/* EOF on the report pipe = exec succeeded (CLOEXEC closed it). */
	for (;;) {
		ssize_t n = read(report[0], &rep, sizeof(rep));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == (ssize_t)sizeof(rep)) {
			res->outcome = PROC_EXEC_FAILED;
			res->exec_errno = rep.err;
			res->failed_call = rep.stage == 1   ? "chdir"
					   : rep.stage == 2 ? "execve"
							    : "dup2";
		}
		break;
	}
	if (spec->timeout_s > 0)
		deadline = start + (uint64_t)(spec->timeout_s * 1e9);
	if (spec->on_tick) {
		tick_ns = (uint64_t)((spec->tick_s > 0 ? spec->tick_s : PROC_TICK_S) * 1e9);
		if (tick_ns < 1000000)
			tick_ns = 1000000; /* 1 ms at least: the loop must sleep */
		next_tick = start + tick_ns;
	}

	while (!reaped || so.rd >= 0 || se.rd >= 0) {
		struct pollfd pfd[3];
		nfds_t n = 0;
		uint64_t now = clock_mono_ns(), wake = UINT64_MAX;
		int timeout_ms;

		if (reaped) {
			if (!drain_until)
				drain_until = now + DRAIN_AFTER_EXIT_NS;
			if (now >= drain_until)
				break;
			wake = drain_until;
		}
		if (!reaped && deadline && !fatal && now >= deadline) {
			res->outcome = PROC_TIMEOUT;
			fatal = 1;
			kill(-pid, SIGTERM);
			kill_at = now + (uint64_t)(grace * 1e9);
		}
		if (!reaped && kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		if (!reaped && deadline && !fatal && deadline < wake)
			wake = deadline;
		if (!reaped && kill_at && kill_at < wake)
			wake = kill_at;
		if (!reaped && next_tick) {
			if (now >= next_tick) {
				spec->on_tick(spec->on_tick_arg);
				now = clock_mono_ns();
				while (next_tick <= now)
					next_tick += tick_ns;
			}
			if (next_tick < wake)
				wake = next_tick;
		}
		timeout_ms = wake == UINT64_MAX ? -1
			     : wake <= now	? 0
						: (int)((wake - now) / 1000000ull + 1);

		pfd[n].fd = sigp[0];
		pfd[n++].events = POLLIN;
		if (so.rd >= 0) {
			pfd[n].fd = so.rd;
			pfd[n++].events = POLLIN;
		}
		if (se.rd >= 0) {
			pfd[n].fd = se.rd;
			pfd[n++].events = POLLIN;
		}
		if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR) {
			error_errno(err, "poll");
			break;
		}
		stream_pump(&so, &res->log_errno);
		stream_pump(&se, &res->log_errno);

		for (;;) {
			unsigned char c;
			if (read(sigp[0], &c, 1) != 1)
				break;
			if ((c == SIGINT || c == SIGTERM) && !reaped) {
				if (res->outcome != PROC_INTERRUPTED) {
					if (res->outcome != PROC_EXEC_FAILED)
						res->outcome = PROC_INTERRUPTED;
					res->interrupt_signal = c;
					fatal = 1;
					kill(-pid, c);
					kill_at = clock_mono_ns() + (uint64_t)(grace * 1e9);
				} else {
					kill(-pid, SIGKILL); /* second interrupt: no more waiting */
				}
			}
		}
		if (!reaped) {
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid) {
				reaped = 1;
				res->wall_ns = clock_mono_ns() - start;
				/* stragglers of a killed run go with it */
				if (fatal)
					kill(-pid, SIGKILL);
			}
		}
	}
	if (!reaped) {
		/* only after a poll() failure: do not leave a zombie or a runner */
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		res->wall_ns = clock_mono_ns() - start;
	}
	if (WIFEXITED(status))
		res->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->signal = WTERMSIG(status);
	if (res->outcome == PROC_EXITED && res->signal)
		res->outcome = PROC_SIGNALED;
	res->out_bytes = so.bytes;
	res->err_bytes = se.bytes;
	ret = 0;
out:
	if (handlers) {
		for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
			sigaction(handled_signals[i], &old[i], NULL);
		sigaction(SIGPIPE, &old_pipe, NULL);
		sig_pipe_wr = -1;
	}
	stream_close(&so);
	stream_close(&se);
	if (child_out_close >= 0)
		close(child_out_close);
	if (child_err_close >= 0)
		close(child_err_close);
	for (int i = 0; i < 2; i++) {
		if (report[i] >= 0)
			close(report[i]);
		if (sigp[i] >= 0)
			close(sigp[i]);
	}
	if (plan.fd_in >= 0)
		close(plan.fd_in);
	free_strv(plan.candidates);
	free(plan.envp);
	return ret;
}

void proc_result_describe(const struct proc_result *res, const struct proc_spec *spec,
			  struct strbuf *out)
{
	switch (res->outcome) {
	case PROC_EXITED:
		strbuf_addf(out, "exited with status %d", res->exit_status);
		break;
	case PROC_SIGNALED:
		strbuf_addf(out, "killed by signal %d (%s)", res->signal,
			    proc_signal_name(res->signal));
		break;
	case PROC_EXEC_FAILED:
		if (!strcmp(res->failed_call, "chdir"))
			strbuf_addf(out, "cannot change to directory '%s': %s",
				    spec && spec->cwd ? spec->cwd : "?", strerror(res->exec_errno));
		else
			strbuf_addf(out, "cannot execute '%s': %s",
				    spec && spec->argv ? spec->argv[0] : "?",
				    strerror(res->exec_errno));
		break;
	case PROC_TIMEOUT:
		strbuf_addf(out, "timed out after %g s", spec ? spec->timeout_s : 0.0);
		if (res->signal)
			strbuf_addf(out, " (ended by %s)", proc_signal_name(res->signal));
		else
			strbuf_addf(out, " (exited with status %d after SIGTERM)",
				    res->exit_status);
		break;
	case PROC_INTERRUPTED:
		strbuf_addf(out, "interrupted by %s", proc_signal_name(res->interrupt_signal));
		break;
	}
}

void proc_escape_c(struct strbuf *sb, const char *arg)
{
	for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
		switch (*p) {
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		default:
			if (*p >= 0x20 && *p < 0x7f)
				strbuf_addch(sb, *p);
			else
				strbuf_addf(sb, "\\x%02x", *p);
		}
	}
}

/* The one shell-quoting rule (dry-run lines, nsys/cmd.txt, ncu/cmd.txt):
 * safe characters as is, '...' otherwise; with escape, control and
 * non-ASCII bytes switch to $'...' so that the line stays one printable line. */
static void quote_shell(struct strbuf *sb, const char *arg, int escape)
{
	int safe = *arg != '\0', plain = 1;

	for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
		if (escape && (*p < 0x20 || *p >= 0x7f))
			plain = 0;
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_@%+=:,./-",
			    *p))
			safe = 0;
	}
	if (safe) {
		strbuf_addstr(sb, arg);
	} else if (plain) {
		strbuf_addch(sb, '\'');
		for (const char *p = arg; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(sb, "'\\''");
			else
				strbuf_addch(sb, *p);
		}
		strbuf_addch(sb, '\'');
	} else {
		strbuf_addstr(sb, "$'");
		for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(sb, "\\'");
			else
				proc_escape_c(sb, (const char[]){(char)*p, 0});
		}
		strbuf_addch(sb, '\'');
	}
}

void proc_quote_shell(struct strbuf *sb, const char *arg)
{
	quote_shell(sb, arg, 1);
}

void proc_quote_shell_bytes(struct strbuf *sb, const char *arg)
{
	quote_shell(sb, arg, 0);
}

int proc_write_argv(const char *path, const char *const *argv, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (; argv && *argv; argv++) {
		proc_escape_c(&sb, *argv);
		strbuf_addch(&sb, '\n');
	}
	ret = write_file_atomic(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}
