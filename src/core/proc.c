/* proc.c: see proc.h.
 *
 * Parent loop: one poll() over the child's stdout/stderr pipes (when they
 * are copied somewhere) and a self-pipe fed by the SIGCHLD/SIGINT/SIGTERM
 * handlers. Reads are 64 KiB chunks written straight to their sinks, so a
 * child that floods output never blocks on us and our memory stays flat. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bundle_dir.h" /* and fsutil.h: atomic_exit() */
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "core/proc_intr.h"
#include "core/banned.h"

extern char **environ;

/* How long we keep reading the pipes after the child was reaped: a
 * grandchild that inherited them may keep them open for ever. */
#define DRAIN_AFTER_EXIT_NS (2ull * 1000000000ull)

static int sig_pipe_wr = -1;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if (proc_is_interrupt(sig))
		proc_note_interrupt(sig);

	if (sig_pipe_wr >= 0 && write(sig_pipe_wr, &c, 1) < 0) {
		/* pipe full: the loop is already awake */
	}
	errno = saved;
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
		else if (s->echo == 1 || s->echo == 2)
			proc_echo_last[s->echo] = chunk[n - 1];
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
	for (size_t i = 0; i < PROC_NR_INTERRUPT_SIGNALS; i++)
		sigaction(proc_interrupt_signals[i], &sa, NULL);
	for (size_t i = 0; i < PROC_NR_IGNORED_SIGNALS; i++)
		sigaction(proc_ignored_signals[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
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

static int open_log(const struct proc_sink *sink, struct strbuf *err)
{
	return bundle_dir_new_file(sink->dir, sink->path, err); /* never through a symlink */
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
		s->file = open_log(sink, err);
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

static const int handled_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* One proc_run(): the child, its streams, our signal handlers and the
 * clocks of the parent loop. */
struct run {
	const struct proc_spec *spec;
	struct proc_result *res;
	struct stream so, se;
	struct child_plan plan;
	struct sigaction old[ARRAY_SIZE(handled_signals)], old_pipe;
	int child_out_close, child_err_close; /* our copies of the child's pipe ends */
	int report[2];			      /* exec failures, child -> us */
	int sigp[2];			      /* the self-pipe the handlers write */
	int handlers, reaped, status, fatal;
	int subreaper_old, subreaper_set;
	int ending;	       /* processes left behind by the reaped child are being ended */
	int helpers;	       /* of the last leftover scan: those in spec->helpers_dir */
	int sigchld;	       /* a SIGCHLD came since the last look */
	int descendants_asked; /* spec->end_descendants was acted on */
	pid_t *before;	       /* our children before the fork */
	size_t before_nr;
	pid_t pid;
	uint64_t start, deadline, kill_at, drain_until, next_tick, tick_ns;
	uint64_t left_next, left_kill_at, left_give_up;
	double grace;
	int interrupted_before; /* an interrupt was seen before this proc_run() */
	int child_sig;		/* the interrupt the child gets at child_sig_at */
	uint64_t child_sig_at;	/* its descendants got it first; 0 = not waiting */
};

/* With fd 0-2 closed, a log file could get fd 1 and the dup2() in the
 * child would keep its close-on-exec flag: fill the holes first. */
static void fill_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
			if (n >= 0 && n != fd)
				close(n);
		}
	}
}

/* Environment, program candidates, stdin, the streams and our pipes. */
static int run_prepare(struct run *r, struct strbuf *err)
{
	const struct proc_spec *spec = r->spec;

	r->plan.envp = build_env(spec);
	r->plan.candidates = build_candidates(spec->argv[0], r->plan.envp);
	if (spec->stdin_null && (r->plan.fd_in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return error_errno(err, "cannot open '/dev/null'");
	if (stream_setup(&spec->out, 1, &r->so, &r->plan.fd_out, &r->child_out_close, err) ||
	    stream_setup(&spec->err, 2, &r->se, &r->plan.fd_err, &r->child_err_close, err))
		return -1;
	if (pipe(r->report) || pipe(r->sigp))
		return error_errno(err, "cannot create a pipe");
	fcntl(r->report[0], F_SETFD, FD_CLOEXEC);
	fcntl(r->report[1], F_SETFD, FD_CLOEXEC);
	set_nonblock_cloexec(r->sigp[0]);
	set_nonblock_cloexec(r->sigp[1]);
	r->plan.report_wr = r->report[1];
	return 0;
}

/* Handlers go in before fork so no SIGCHLD or SIGINT is lost. An
 * interrupt that came before them and that no caller saw (proc_intr.c)
 * goes into the self-pipe as if it came now: the child gets it at once.
 * The signals are blocked meanwhile, so each interrupt is counted either
 * as one of those or by the new handler, never both, never neither. */
static void handlers_install(struct run *r)
{
	struct sigaction sa;
	sigset_t block, old;
	int unseen, seen, sig;

	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaddset(&block, handled_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	sig_pipe_wr = r->sigp[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &sa, &r->old[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &r->old_pipe);
	r->handlers = 1;
	unseen = proc_interrupts_take_unseen(&seen, &sig);
	r->interrupted_before = seen > 0;
	for (int i = 0; i < unseen && i < 2; i++) {
		unsigned char c = (unsigned char)sig;

		if (write(r->sigp[1], &c, 1) < 0) {
			/* cannot be full: it is new */
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void handlers_restore(struct run *r)
{
	int seen, sig;

	if (!r->handlers)
		return;
	/* what came while they were in was forwarded */
	proc_interrupts_take_unseen(&seen, &sig);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &r->old[i], NULL);
	sigaction(SIGPIPE, &r->old_pipe, NULL);
	sig_pipe_wr = -1;
	r->handlers = 0;
}

/* After fork, in the parent: our copies of the child's ends go, then the
 * report pipe says whether exec failed (EOF = it succeeded: CLOEXEC closed
 * it). */
static void read_exec_report(struct run *r)
{
	struct exec_report rep;

	close(r->report[1]);
	r->report[1] = -1;
	if (r->child_out_close >= 0)
		close(r->child_out_close);
	if (r->child_err_close >= 0)
		close(r->child_err_close);
	r->child_out_close = r->child_err_close = -1;
	for (;;) {
		ssize_t n = read(r->report[0], &rep, sizeof(rep));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == (ssize_t)sizeof(rep)) {
			r->res->outcome = PROC_EXEC_FAILED;
			r->res->exec_errno = rep.err;
			r->res->failed_call = rep.stage == 1   ? "chdir"
					      : rep.stage == 2 ? "execve"
							       : "dup2";
		}
		break;
	}
}

/* How often the processes left behind are looked for again while they end,
 * and how long after SIGKILL we still wait for them (a process in
 * uninterruptible sleep cannot be hurried). */
#define LEFTOVER_POLL_NS (20ull * 1000000ull)
#define LEFTOVER_GIVE_UP_NS (2ull * 1000000000ull)

/* Reads /proc/<pid>/stat: state, parent and process group. */
static int read_stat(long pid, char *state, long *ppid, long *pgrp)
{
	char path[64], buf[512], *end, *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold ')' */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	*state = p[2];
	*ppid = strtol(p + 4, &end, 10);
	*pgrp = strtol(end, &end, 10);
	return 0;
}

static int pid_in(pid_t pid, const pid_t *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

/* What one walk over /proc does. */
enum scan {
	SCAN_SNAPSHOT,	/* note our children before the fork: never touched (a
			   shell's process substitution can make llmprof the
			   parent of a process it never started) */
	SCAN_ZOMBIES,	/* while the child runs, reap the orphans of its
			   descendants that died, as init would: a program
			   may wait for a pid to vanish */
	SCAN_LEFTOVERS, /* after it was reaped: what it left running */
};

/* Whether pid's executable lies in dir (a tool's own helper), or is gone
 * (it is exiting: nothing to count). */
static int is_helper(long pid, const char *dir)
{
	char path[64], exe[PATH_MAX] = "";
	size_t len = strlen(dir);

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	if (readlink(path, exe, sizeof(exe) - 1) <= 0)
		return 1;
	return !strncmp(exe, dir, len) && exe[len] == '/';
}

/* Walks /proc for our children (not those of the snapshot) and, for
 * SCAN_LEFTOVERS, the processes of the child's group. Our zombies are
 * reaped. Leftovers (not zombies) get sig (0: only counted); returns how
 * many (r->helpers: how many of them are the tool's own helpers).
 * proc_run() makes llmprof the subreaper of the child's descendants, so
 * their orphans, even outside the group, are our children. */
static int scan_proc(struct run *r, enum scan what, int sig)
{
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t alloc = 0;
	int nr = 0;

	r->helpers = 0;
	if (!d) /* no /proc: the group is all we can find */
		return what == SCAN_LEFTOVERS && kill(-r->pid, sig) == 0;
	while ((de = readdir(d))) {
		char *end, state;
		long pid = strtol(de->d_name, &end, 10), ppid, pg;
		int ours;

		if (*end || pid <= 0 || pid == self || read_stat(pid, &state, &ppid, &pg))
			continue;
		if (what == SCAN_SNAPSHOT) {
			if (ppid == self) {
				ALLOC_GROW(r->before, r->before_nr + 1, alloc);
				r->before[r->before_nr++] = (pid_t)pid;
			}
			continue;
		}
		ours = ppid == self && !pid_in((pid_t)pid, r->before, r->before_nr);
		if (state == 'Z' || state == 'X') {
			if (ours && (pid_t)pid != r->pid)
				waitpid((pid_t)pid, NULL, WNOHANG);
		} else if (what == SCAN_LEFTOVERS && (ours || pg == r->pid)) {
			nr++;
			if (r->spec->helpers_dir && is_helper(pid, r->spec->helpers_dir))
				r->helpers++;
			if (sig)
				kill((pid_t)pid, sig);
		}
	}
	closedir(d);
	return nr;
}

/* The child's descendants, not the child: the processes whose parent
 * chain reaches it, the rest of its group, and our children that are
 * orphans of them (subreaper). Those not zombies get sig; returns how many. */
static int signal_descendants(struct run *r, int sig)
{
	struct node {
		pid_t pid, ppid;
		char mark, zombie;
	} *v = NULL;
	size_t nr = 0, alloc = 0;
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *de;
	int changed = 1, n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end, state;
		long pid = strtol(de->d_name, &end, 10), ppid, pg;

		if (*end || pid <= 0 || pid == self || pid == r->pid ||
		    read_stat(pid, &state, &ppid, &pg))
			continue;
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr].pid = (pid_t)pid;
		v[nr].ppid = (pid_t)ppid;
		v[nr].zombie = state == 'Z' || state == 'X';
		v[nr].mark =
		    pg == r->pid || (ppid == self && !pid_in((pid_t)pid, r->before, r->before_nr));
		nr++;
	}
	closedir(d);
	/* down the tree, one generation (at least) per pass */
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < nr; i++) {
			int parent = v[i].ppid == r->pid;

			for (size_t k = 0; k < nr && !parent && !v[i].mark; k++)
				parent = v[k].mark && v[k].pid == v[i].ppid;
			if (!v[i].mark && parent)
				v[i].mark = changed = 1;
		}
	}
	for (size_t i = 0; i < nr; i++)
		if (v[i].mark && !v[i].zombie && !kill(v[i].pid, sig))
			n++;
	free(v);
	return n;
}

/* The child was reaped: what it left behind gets SIGTERM now (SIGKILL at
 * once after a timeout or an interrupt, whose grace is spent). */
static void leftovers_begin(struct run *r, uint64_t now)
{
	int sig = r->fatal ? SIGKILL : SIGTERM;
	int nr = scan_proc(r, SCAN_LEFTOVERS, sig);

	if (!nr)
		return;
	if (!r->fatal && nr > r->helpers) {
		r->res->leftovers = nr - r->helpers;
		r->res->leftovers_signal = sig;
	}
	r->ending = 1;
	r->left_next = now + LEFTOVER_POLL_NS;
	r->left_kill_at = r->fatal ? now : now + (uint64_t)(r->grace * 1e9);
	r->left_give_up = r->left_kill_at + LEFTOVER_GIVE_UP_NS;
}

/* Looks again; SIGKILL for those still there once the grace is over. */
static void leftovers_check(struct run *r, uint64_t now)
{
	int kill_now = now >= r->left_kill_at;
	int nr;

	if (now < r->left_next)
		return;
	nr = scan_proc(r, SCAN_LEFTOVERS, kill_now ? SIGKILL : 0);
	if (nr && kill_now && r->res->leftovers)
		r->res->leftovers_signal = SIGKILL;
	if (!nr || now >= r->left_give_up)
		r->ending = 0;
	r->left_next = now + LEFTOVER_POLL_NS;
}

static void clocks_start(struct run *r)
{
	const struct proc_spec *spec = r->spec;

	if (spec->timeout_s > 0)
		r->deadline = r->start + (uint64_t)(spec->timeout_s * 1e9);
	if (spec->on_tick) {
		r->tick_ns = (uint64_t)((spec->tick_s > 0 ? spec->tick_s : PROC_TICK_S) * 1e9);
		if (r->tick_ns < 1000000)
			r->tick_ns = 1000000; /* 1 ms at least: the loop must sleep */
		r->next_tick = r->start + r->tick_ns;
	}
}

/* The clocks at now: the drain after exit, the timeout (SIGTERM, then
 * SIGKILL after the grace), the tick. Returns 0 to stop the loop, else 1
 * with *timeout_ms = how long poll() may sleep. */
static int clocks_due(struct run *r, uint64_t now, int *timeout_ms)
{
	uint64_t wake = UINT64_MAX;

	if (r->ending) {
		leftovers_check(r, now);
		if (r->ending)
			wake = r->left_next;
	}
	if (r->reaped && !r->ending) {
		if (r->so.rd < 0 && r->se.rd < 0)
			return 0; /* all gone, all read */
		if (!r->drain_until)
			r->drain_until = now + DRAIN_AFTER_EXIT_NS;
		if (now >= r->drain_until)
			return 0;
		wake = r->drain_until;
	}
	if (!r->reaped && r->deadline && !r->fatal && now >= r->deadline) {
		r->res->outcome = PROC_TIMEOUT;
		r->fatal = 1;
		kill(-r->pid, SIGTERM);
		r->kill_at = now + (uint64_t)(r->grace * 1e9);
	}
	if (!r->reaped && r->child_sig_at && now >= r->child_sig_at) {
		/* its descendants had their time: the child gets it too */
		kill(-r->pid, r->child_sig);
		r->child_sig_at = 0;
		r->kill_at = now + (uint64_t)(r->grace * 1e9);
	}
	if (!r->reaped && r->kill_at && now >= r->kill_at) {
		kill(-r->pid, SIGKILL);
		r->kill_at = 0;
	}
	if (!r->reaped && r->child_sig_at && r->child_sig_at < wake)
		wake = r->child_sig_at;
	if (!r->reaped && r->deadline && !r->fatal && r->deadline < wake)
		wake = r->deadline;
	if (!r->reaped && r->kill_at && r->kill_at < wake)
		wake = r->kill_at;
	if (!r->reaped && r->next_tick) {
		if (now >= r->next_tick) {
			r->spec->on_tick(r->spec->on_tick_arg);
			now = clock_mono_ns();
			while (r->next_tick <= now)
				r->next_tick += r->tick_ns;
		}
		if (r->next_tick < wake)
			wake = r->next_tick;
	}
	*timeout_ms = wake == UINT64_MAX ? -1
		      : wake <= now	 ? 0
					 : (int)((wake - now) / 1000000ull + 1);
	return 1;
}

/* The first interrupt: to the child's group, or with
 * interrupt_descendants_s to its descendants alone (the child gets it
 * later, in clocks_due); the group at once when it has none left. */
static void interrupt_first(struct run *r, int sig)
{
	uint64_t now = clock_mono_ns();
	double wait = r->spec->interrupt_descendants_s;

	if (wait > 0 && signal_descendants(r, sig) > 0) {
		r->child_sig = sig;
		r->child_sig_at = now + (uint64_t)(wait * 1e9);
		return;
	}
	kill(-r->pid, sig);
	r->kill_at = now + (uint64_t)(r->grace * 1e9);
}

/* The signals the handlers wrote: SIGINT/SIGTERM go on to the child's
 * group (a second one: SIGKILL, no more waiting). */
static void forward_signals(struct run *r)
{
	struct proc_result *res = r->res;

	for (;;) {
		unsigned char c;
		if (read(r->sigp[0], &c, 1) != 1)
			break;
		if (c == SIGCHLD)
			r->sigchld = 1;
		if (proc_is_interrupt(c) && r->ending) {
			r->left_kill_at = 0; /* an interrupt while they end: no more waiting */
			r->left_next = 0;
		} else if (proc_is_interrupt(c) && !r->reaped) {
			int first = res->outcome != PROC_INTERRUPTED && !r->interrupted_before;

			if (res->outcome != PROC_EXEC_FAILED)
				res->outcome = PROC_INTERRUPTED;
			if (!res->interrupt_signal)
				res->interrupt_signal = c;
			r->fatal = 1;
			if (first) {
				interrupt_first(r, c);
				continue;
			}
			/* second interrupt: no more waiting, for any of them */
			kill(-r->pid, SIGKILL);
			signal_descendants(r, SIGKILL);
			r->child_sig_at = 0;
		}
	}
}

/* The caller asked (spec->end_descendants, from a callback) to end the
 * child's descendants: SIGTERM to them, once; not after an interrupt or a
 * timeout, which end them their own way. */
static void end_descendants_due(struct run *r)
{
	const volatile int *ask = r->spec->end_descendants;

	if (!ask || !*ask || r->descendants_asked || r->reaped || r->fatal)
		return;
	r->descendants_asked = 1;
	r->res->descendants_ended = signal_descendants(r, SIGTERM);
}

/* One poll() over the self-pipe and the child's pipes until the child is
 * reaped and its pipes are drained (or the drain time is up). */
static void run_loop(struct run *r, struct strbuf *err)
{
	while (!r->reaped || r->ending || r->so.rd >= 0 || r->se.rd >= 0) {
		struct pollfd pfd[3];
		nfds_t n = 0;
		int timeout_ms;

		if (!clocks_due(r, clock_mono_ns(), &timeout_ms))
			break;
		pfd[n].fd = r->sigp[0];
		pfd[n++].events = POLLIN;
		if (r->so.rd >= 0) {
			pfd[n].fd = r->so.rd;
			pfd[n++].events = POLLIN;
		}
		if (r->se.rd >= 0) {
			pfd[n].fd = r->se.rd;
			pfd[n++].events = POLLIN;
		}
		if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR) {
			error_errno(err, "poll");
			break;
		}
		stream_pump(&r->so, &r->res->log_errno);
		stream_pump(&r->se, &r->res->log_errno);
		forward_signals(r);
		end_descendants_due(r);
		if (r->sigchld && r->subreaper_set && !r->reaped) {
			r->sigchld = 0;
			scan_proc(r, SCAN_ZOMBIES, 0);
		}
		if (!r->reaped) {
			pid_t w = waitpid(r->pid, &r->status, WNOHANG);
			if (w == r->pid) {
				r->reaped = 1;
				r->res->wall_ns = clock_mono_ns() - r->start;
				/* stragglers of a killed run go with it */
				if (r->fatal)
					kill(-r->pid, SIGKILL);
				leftovers_begin(r, clock_mono_ns());
			}
		}
	}
}

/* The child's end in res. */
static void run_result(struct run *r)
{
	struct proc_result *res = r->res;

	if (!r->reaped) {
		/* only after a poll() failure: do not leave a zombie or a runner */
		kill(-r->pid, SIGKILL);
		while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
			;
		res->wall_ns = clock_mono_ns() - r->start;
	}
	if (r->ending || !r->reaped)
		scan_proc(r, SCAN_LEFTOVERS, SIGKILL); /* the loop stopped early */
	if (WIFEXITED(r->status))
		res->exit_status = WEXITSTATUS(r->status);
	else if (WIFSIGNALED(r->status))
		res->signal = WTERMSIG(r->status);
	if (res->outcome == PROC_EXITED && res->signal)
		res->outcome = PROC_SIGNALED;
	res->out_bytes = r->so.bytes;
	res->err_bytes = r->se.bytes;
}

static void run_release(struct run *r)
{
	handlers_restore(r);
	proc_running_group = 0;
	if (r->subreaper_set)
		prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)r->subreaper_old, 0, 0, 0);
	stream_close(&r->so);
	stream_close(&r->se);
	if (r->child_out_close >= 0)
		close(r->child_out_close);
	if (r->child_err_close >= 0)
		close(r->child_err_close);
	for (int i = 0; i < 2; i++) {
		if (r->report[i] >= 0)
			close(r->report[i]);
		if (r->sigp[i] >= 0)
			close(r->sigp[i]);
	}
	if (r->plan.fd_in >= 0)
		close(r->plan.fd_in);
	free(r->before);
	free_strv(r->plan.candidates);
	free(r->plan.envp);
}

int proc_run(const struct proc_spec *spec, struct proc_result *res, struct strbuf *err)
{
	struct run r = {
	    .spec = spec,
	    .res = res,
	    .so = {.rd = -1, .file = -1, .echo = -1},
	    .se = {.rd = -1, .file = -1, .echo = -1},
	    .plan = {NULL, NULL, -1, -1, -1, spec->cwd, -1},
	    .child_out_close = -1,
	    .child_err_close = -1,
	    .report = {-1, -1},
	    .sigp = {-1, -1},
	    .grace = spec->grace_s > 0 ? spec->grace_s : PROC_GRACE_S,
	};
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	fill_std_fds();
	if (!spec->argv || !spec->argv[0]) {
		error_set(err, "no program to run");
		goto out;
	}
	if (run_prepare(&r, err))
		goto out;
	handlers_install(&r);
	/* orphans of the child's descendants come to us, not to init: we can
	 * find them after the child ended, even outside its group */
	if (spec->subreaper && !prctl(PR_GET_CHILD_SUBREAPER, &r.subreaper_old, 0, 0, 0) &&
	    !prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0, 0, 0))
		r.subreaper_set = 1;
	scan_proc(&r, SCAN_SNAPSHOT, 0);
	fflush(NULL);
	r.start = clock_mono_ns();
	r.pid = fork();
	if (r.pid < 0) {
		error_errno(err, "cannot start '%s': fork", spec->argv[0]);
		goto out;
	}
	if (r.pid == 0)
		child_exec(&r.plan, (char *const *)spec->argv);
	setpgid(r.pid, r.pid); /* also done by the child; whichever runs first wins */
	proc_running_group = r.pid;
	res->pid = r.pid;
	read_exec_report(&r);
	clocks_start(&r);
	run_loop(&r, err);
	run_result(&r);
	ret = 0;
out:
	run_release(&r);
	return ret;
}
