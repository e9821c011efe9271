/* proc.h: running child processes (the workload, nsys, ncu, tool probes).
 *
 * A child gets an argv array (never a shell string), its own process group,
 * an environment built from ours plus additions and minus removals, and its
 * stdout/stderr in log files, optionally also copied to our terminal. A
 * timeout sends SIGTERM to the whole group and SIGKILL after a grace period;
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to llmprof while a child runs are
 * forwarded to the child's group (a second one sends SIGKILL), the child is
 * reaped and the caller learns PROC_INTERRUPTED. With
 * spec->interrupt_descendants_s, the first one goes to the child's
 * descendants only, so that a tool watching a program (ncu) sees it end and
 * keeps what it measured; the child itself gets it only if still running
 * that many seconds later. An interrupt counts as a second one also when
 * the first came before this proc_run() and was seen (llmprof was already
 * interrupted and only finishes what it keeps): SIGKILL at once. One that
 * came before proc_run() but after the caller last asked
 * (proc_pending_interrupt(), proc_interrupt_count()) was never acted on:
 * the child gets it as soon as it is started, as if it came then.
 *
 * Nothing the child started outlives proc_run(): once the child is reaped,
 * every process still in its group and, with spec->subreaper, every orphan
 * of its descendants (llmprof is their subreaper, PR_SET_CHILD_SUBREAPER,
 * for the duration: one that left the group with setsid is found too) gets
 * SIGTERM, and SIGKILL after the grace period (at once after a timeout or
 * an interrupt); res->leftovers says how many there were. proc_run()
 * returns only after they are gone and the child's pipes are closed, so a
 * log file gets no more output once it returns.
 *
 * Processes that were already our children before proc_run() are never
 * touched.
 *
 * proc_run() installs signal handlers for its duration and restores the old
 * ones, so only one proc_run() may be active per process at a time (not
 * thread-safe). The child side between fork and exec is async-signal-safe:
 * everything it needs is prepared before fork. */
#ifndef LLMPROF_PROC_H
#define LLMPROF_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* Default seconds between SIGTERM and SIGKILL. */
#define PROC_GRACE_S 5.0
/* Default seconds between two on_tick calls. */
#define PROC_TICK_S 1.0

/* Where one output stream of the child goes. All fields optional; with
 * none set the child inherits our stream. */
struct bundle_dir;
struct proc_sink {
	const char *path; /* log file, created/truncated (0666 & ~umask) */
	/* path is a name in this folder (core/bundle_dir.h), reached without
	 * following a symlink; NULL: path as given */
	const struct bundle_dir *dir;
	int echo;	    /* also copy to our own stream (fd 1 or 2) */
	struct strbuf *buf; /* also keep in memory, at most buf_max bytes */
	size_t buf_max;	    /* 0 = 64 KiB; bytes beyond are dropped */
	/* also handed to on_data, chunk by chunk as read (any chunking), while
	 * the child runs: live progress from its output */
	void (*on_data)(void *arg, const char *buf, size_t len);
	void *on_data_arg;
};

struct proc_spec {
	const char *const *argv;       /* NULL-terminated; argv[0] without '/' is
					  searched on the child's PATH */
	const char *const *env_add;    /* "NAME=VALUE", NULL-terminated, or NULL;
					  replaces an inherited NAME */
	const char *const *env_remove; /* names, NULL-terminated, or NULL */
	const char *cwd;	       /* NULL = ours; relative argv[0] with a
					  '/' is resolved after chdir */
	int stdin_null;		       /* child reads /dev/null instead of our stdin */
	struct proc_sink out, err;
	double timeout_s; /* 0 = none */
	double grace_s;	  /* 0 = PROC_GRACE_S */
	/* called every tick_s seconds (0 = PROC_TICK_S) while the child runs,
	 * from proc_run()'s own wait loop, the first time tick_s after the
	 * start: live status of a child that may print nothing for minutes */
	void (*on_tick)(void *arg);
	void *on_tick_arg;
	double tick_s;
	/* orphans of the child's descendants come to llmprof (and are ended
	 * with the group) instead of init: also a tool's own daemons (nsys's
	 * agent, started in a session of its own), which would otherwise
	 * outlive a timeout or an interrupt */
	int subreaper;
	/* leftovers whose executable is in this folder (the tool's own
	 * helpers: nsys's agent) are ended like the others but not counted in
	 * res->leftovers, which names what the program left (nor those already
	 * exiting, whose executable is gone). NULL = none */
	const char *helpers_dir;
	/* seconds the child's descendants have, after the first interrupt went
	 * to them alone, before the child gets it too (then SIGKILL after
	 * grace_s). 0 = the whole group gets it at once. For a tool that
	 * writes its results when its target ends (ncu) */
	double interrupt_descendants_s;
	/* set by the caller's on_data or on_tick to end the child's
	 * descendants, not the child: the first time proc_run() sees it
	 * nonzero it sends them SIGTERM, once, so that a tool watching a
	 * program (ncu) sees it end and writes what it has. One that ignores
	 * SIGTERM runs on to its own end (or the timeout). NULL = never */
	const volatile int *end_descendants;
};

enum proc_outcome {
	PROC_EXITED,	  /* exit_status is valid (0 = success) */
	PROC_SIGNALED,	  /* died by signal `signal` on its own */
	PROC_EXEC_FAILED, /* could not start: exec_errno, failed_call */
	PROC_TIMEOUT,	  /* timeout_s passed; `signal` ended it (SIGTERM/SIGKILL),
			     or exit_status if it exited after SIGTERM */
	PROC_INTERRUPTED, /* llmprof got interrupt_signal and forwarded it */
};

struct proc_result {
	enum proc_outcome outcome;
	pid_t pid;
	int exit_status;	       /* from WEXITSTATUS, when it exited; else -1 */
	int signal;		       /* from WTERMSIG, when it died by a signal; else 0 */
	int exec_errno;		       /* PROC_EXEC_FAILED */
	const char *failed_call;       /* PROC_EXEC_FAILED: "execve" or "chdir" (static) */
	int interrupt_signal;	       /* PROC_INTERRUPTED: SIGINT, SIGTERM, SIGHUP, SIGQUIT */
	uint64_t wall_ns;	       /* from fork to reaping */
	uint64_t out_bytes, err_bytes; /* bytes read from the child's pipes (echo/buf only) */
	int log_errno;		       /* first error writing a log file (e.g. ENOSPC), or 0;
					  the child was never blocked by it */
	int leftovers;		       /* processes the child left running when it ended
					  by itself (its group, its orphans), ended by us */
	int leftovers_signal;	       /* the last signal they needed: SIGTERM or SIGKILL */
	int descendants_ended;	       /* spec->end_descendants: how many got SIGTERM */
};

/* Runs spec to completion. Returns 0 when the child was started and its
 * fate is in *res (including exec failure), or -1 with err when nothing
 * could be started (cannot open a log file, fork failed). */
int proc_run(const struct proc_spec *spec, struct proc_result *res, struct strbuf *err);

/* Makes SIGINT/SIGTERM/SIGHUP/SIGQUIT set a flag instead of killing
 * llmprof, for the whole run (proc_run() also sets it while a child runs),
 * so the caller can mark its bundle interrupted between steps; SIGUSR1,
 * SIGUSR2, SIGALRM and SIGPIPE are ignored from then on (a child gets them
 * back at their default). */
void proc_catch_interrupts(void);
/* The interrupt signal received since proc_catch_interrupts(), or 0. The
 * interrupts it reports are seen: a later proc_run() does not forward them
 * (the caller decided to go on). */
int proc_pending_interrupt(void);
/* How many interrupt signals came since proc_catch_interrupts(): a second
 * one means "stop at once", not "stop and keep the work". Seen, as above.
 * Safe from any thread (trace_load()'s readers ask it, trace/trace_par.h). */
int proc_interrupt_count(void);
/* From now on the next interrupt ends llmprof at once with code: the
 * running child's group (if any) gets SIGKILL, the words of
 * proc_set_exit_words() go to fd 1, and it exits through atomic_exit()
 * (fsutil.h: no file half written, no temporary file left). For a run that
 * was interrupted once and goes on only to keep what it has (the reports
 * after an interrupted ncu step). */
void proc_exit_on_interrupt(int code);
/* The text written to fd 1 on that exit (the caller's last line, e.g.
 * "run: DIR\n"); copied. Preceded by a line end when echoed output left
 * the terminal mid-line. */
void proc_set_exit_words(const char *text);

/* One line describing *res: "exited with status 1", "killed by signal 9
 * (SIGKILL)", "cannot execute 'x': No such file or directory",
 * "timed out after 1 s (ended by SIGTERM)", "interrupted by SIGINT". */
void proc_result_describe(const struct proc_result *res, const struct proc_spec *spec,
			  struct strbuf *out);

/* "SIGKILL" for 9, "SIG42" for unknown numbers. Static storage for known
 * signals; unknown ones use a static buffer (not thread-safe). */
const char *proc_signal_name(int sig);

/* Appends arg with C-style escaping: printable ASCII except '\' as is;
 * '\\', '\n', '\t', '\r' escaped; every other byte as \xHH. The result has
 * no newline, so one argument per line is unambiguous (logs/<step>.argv). */
void proc_escape_c(struct strbuf *sb, const char *arg);
/* Appends arg quoted for display in a POSIX shell: as is when it only has
 * safe characters, '...' otherwise, and $'...' when it holds control or
 * non-ASCII bytes. For display only; nothing is ever run through a shell. */
void proc_quote_shell(struct strbuf *sb, const char *arg);
/* The same quoting, but control and non-ASCII bytes stay as they are inside
 * '...' (nsys/cmd.txt and ncu/cmd.txt keep a UTF-8 argument readable). */
void proc_quote_shell_bytes(struct strbuf *sb, const char *arg);

/* 1 unless the last byte a child's output echoed to our fd (1 or 2) was
 * not a line end: then what we print next starts on a fresh line. */
int proc_echo_at_line_start(int fd);

/* Writes argv, one C-escaped argument per line, to rel in bd (NULL: rel is
 * a path), atomically. */
int proc_write_argv(const struct bundle_dir *bd, const char *rel, const char *const *argv,
		    struct strbuf *err);

#endif
