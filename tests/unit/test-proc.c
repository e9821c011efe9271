/* test-proc.c: the child-process launcher: outcomes, exec errors, signals,
 * timeouts that reach grandchildren, interrupt forwarding, descendants
 * ended on request, exact argv bytes, environment edits, and output floods
 * that must not block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/proc.h"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/llmprof-test-proc.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void tpath(struct strbuf *sb, const char *name)
{
	strbuf_reset(sb);
	path_join(sb, tmpdir, name);
}

static void run_ok(const struct proc_spec *spec, struct proc_result *res)
{
	struct strbuf err = STRBUF_INIT;
	int rc = proc_run(spec, res, &err);
	if (rc)
		fail_msg("proc_run: %s", err.buf);
	strbuf_release(&err);
}

static void test_exit_status(void **state)
{
	const char *argv0[] = {"true", NULL};
	const char *argv3[] = {"/bin/sh", "-c", "exit 3", NULL};
	struct proc_spec spec = {.argv = argv0};
	struct proc_result res;
	struct strbuf d = STRBUF_INIT;

	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 0);
	spec.argv = argv3;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 3);
	proc_result_describe(&res, &spec, &d);
	assert_string_equal(d.buf, "exited with status 3");
	strbuf_release(&d);
}

/* on_data sees every byte, in order, while the child runs, and the log
 * still gets all of it. */
static void collect(void *arg, const char *buf, size_t len)
{
	strbuf_add(arg, buf, len);
}

static void test_on_data(void **state)
{
	const char *argv[] = {"/bin/sh", "-c",
			      "printf 'a '; sleep 0.1; printf 'b\\n' >&2; seq 1 20000", NULL};
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;
	struct strbuf p = STRBUF_INIT, got = STRBUF_INIT, gote = STRBUF_INIT, log = STRBUF_INIT;

	(void)state;
	tpath(&p, "on-data.out");
	spec.out.path = p.buf;
	spec.out.on_data = collect;
	spec.out.on_data_arg = &got;
	spec.err.on_data = collect;
	spec.err.on_data_arg = &gote;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(strbuf_read_file(&log, p.buf), 0);
	assert_true(got.len > 100000);
	assert_int_equal(got.len, log.len);
	assert_memory_equal(got.buf, log.buf, log.len);
	assert_true(starts_with(got.buf, "a 1\n2\n"));
	assert_string_equal(gote.buf, "b\n");
	assert_int_equal(res.out_bytes, got.len);
	strbuf_release(&p);
	strbuf_release(&got);
	strbuf_release(&gote);
	strbuf_release(&log);
}

static void test_exec_failures(void **state)
{
	struct strbuf p = STRBUF_INIT, d = STRBUF_INIT;
	const char *argv[] = {NULL, NULL};
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;
	int fd;

	argv[0] = "/nonexistent/llmprof-no-such-program";
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_int_equal(res.exec_errno, ENOENT);
	proc_result_describe(&res, &spec, &d);
	assert_non_null(strstr(d.buf, "cannot execute '/nonexistent/llmprof-no-such-program'"));

	argv[0] = "llmprof-no-such-program-on-path";
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_int_equal(res.exec_errno, ENOENT);

	tpath(&p, "not-executable");
	fd = open(p.buf, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	argv[0] = p.buf;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_int_equal(res.exec_errno, EACCES);

	/* a bad working directory is reported too, as chdir */
	argv[0] = "true";
	spec.cwd = "/nonexistent-dir";
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXEC_FAILED);
	assert_string_equal(res.failed_call, "chdir");
	assert_int_equal(res.exec_errno, ENOENT);
	strbuf_release(&p);
	strbuf_release(&d);
}

static void test_death_by_signal(void **state)
{
	const char *argv[] = {"/bin/sh", "-c", "kill -USR1 $$", NULL};
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;
	struct strbuf d = STRBUF_INIT;

	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_SIGNALED);
	assert_int_equal(res.signal, SIGUSR1);
	proc_result_describe(&res, &spec, &d);
	assert_string_equal(d.buf, "killed by signal 10 (SIGUSR1)");
	strbuf_release(&d);
	assert_string_equal(proc_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(proc_signal_name(77), "SIG77");
}

static pid_t read_pid(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	long v = 0;

	for (int i = 0; i < 200 && (strbuf_read_file(&sb, path) || !sb.len); i++) {
		strbuf_reset(&sb);
		usleep(10000);
	}
	v = strtol(sb.buf, NULL, 10);
	strbuf_release(&sb);
	return (pid_t)v;
}

/* Gone = no such process, or a zombie waiting for init to reap it. */
static int process_gone(pid_t pid)
{
	char path[64], buf[256];
	for (int i = 0; i < 300; i++) {
		FILE *fp;
		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
		fp = fopen(path, "r");
		if (!fp)
			return 1;
		buf[0] = '\0';
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = '\0';
		fclose(fp);
		{
			char *rp = strrchr(buf, ')');
			if (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
				return 1;
		}
		usleep(10000);
	}
	return 0;
}

static void test_timeout_kills_group(void **state)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT;
	const char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .timeout_s = 0.3, .grace_s = 0.3};
	struct proc_result res;
	uint64_t t0;
	pid_t grandchild;

	tpath(&pidfile, "grandchild.pid");
	strbuf_addf(&script, "sleep 30 & echo $! > '%s'; wait", pidfile.buf);
	argv[2] = script.buf;
	t0 = clock_mono_ns();
	run_ok(&spec, &res);
	assert_true(clock_mono_ns() - t0 < 5000000000ull);
	assert_int_equal(res.outcome, PROC_TIMEOUT);
	assert_int_equal(res.signal, SIGTERM);
	grandchild = read_pid(pidfile.buf);
	assert_true(grandchild > 0);
	assert_true(process_gone(grandchild));

	/* a child that ignores SIGTERM gets SIGKILL after the grace period,
	 * and so does its grandchild */
	strbuf_reset(&script);
	unlink(pidfile.buf);
	strbuf_addf(&script, "trap '' TERM; sleep 30 & echo $! > '%s'; while :; do sleep 1; done",
		    pidfile.buf);
	argv[2] = script.buf;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_TIMEOUT);
	assert_int_equal(res.signal, SIGKILL);
	grandchild = read_pid(pidfile.buf);
	assert_true(grandchild > 0);
	assert_true(process_gone(grandchild));
	strbuf_release(&pidfile);
	strbuf_release(&script);
}

static void test_sigint_forwarded(void **state)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT, d = STRBUF_INIT;
	const char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .grace_s = 2};
	struct proc_result res;
	pid_t killer, self = getpid(), grandchild;
	uint64_t t0;

	tpath(&pidfile, "int.pid");
	strbuf_addf(&script, "sleep 30 & echo $! > '%s'; wait", pidfile.buf);
	argv[2] = script.buf;
	killer = fork();
	assert_true(killer >= 0);
	if (killer == 0) {
		usleep(300000);
		kill(self, SIGINT);
		_exit(0);
	}
	t0 = clock_mono_ns();
	run_ok(&spec, &res);
	waitpid(killer, NULL, 0);
	assert_true(clock_mono_ns() - t0 < 5000000000ull);
	assert_int_equal(res.outcome, PROC_INTERRUPTED);
	assert_int_equal(res.interrupt_signal, SIGINT);
	assert_int_equal(res.signal, SIGINT); /* sh died of the forwarded SIGINT */
	grandchild = read_pid(pidfile.buf);
	assert_true(process_gone(grandchild));
	proc_result_describe(&res, &spec, &d);
	assert_string_equal(d.buf, "interrupted by SIGINT");
	/* our own SIGINT disposition is back to default afterwards */
	{
		struct sigaction sa;
		sigaction(SIGINT, NULL, &sa);
		assert_true(sa.sa_handler == SIG_DFL);
	}
	strbuf_release(&pidfile);
	strbuf_release(&script);
	strbuf_release(&d);
}

/* The interrupt tests run in a process of their own: what proc.c remembers
 * of interrupts (the count, proc_exit_on_interrupt) lasts for a process.
 * CHECK fails that process; the test asserts it exited 0. */
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);      \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

static void in_own_process(void (*fn)(void))
{
	pid_t p = fork();
	int st = 0;

	assert_true(p >= 0);
	if (p == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A process that sends us sig after each delay (ms; 0 ends the list). */
static pid_t send_later(int sig, const int *delays_ms)
{
	pid_t self = getpid(), k = fork();

	if (k == 0) {
		for (; *delays_ms; delays_ms++) {
			usleep((useconds_t)*delays_ms * 1000);
			kill(self, sig);
		}
		_exit(0);
	}
	return k;
}

static double secs_since(uint64_t t0)
{
	return (double)(clock_mono_ns() - t0) / 1e9;
}

/* interrupt_descendants_s: the first SIGINT goes to the grandchild only; the
 * child, which traps nothing, sees it die, writes its marker and exits 0. */
static void descendants_first(void)
{
	struct strbuf marker = STRBUF_INIT, script = STRBUF_INIT, got = STRBUF_INIT;
	const char *argv[] = {"/bin/bash", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .grace_s = 1, .interrupt_descendants_s = 5};
	struct proc_result res;
	static const int at[] = {300, 0};
	uint64_t t0 = clock_mono_ns();
	pid_t k;

	proc_catch_interrupts();
	tpath(&marker, "descendants.marker");
	/* bash, unlike a shell that re-raises its child's SIGINT, goes on
	 * when only its child got it, as ncu does */
	strbuf_addf(&script, "/bin/sleep 30; echo \"grandchild ended $?\" > '%s'; exit 0",
		    marker.buf);
	argv[2] = script.buf;
	k = send_later(SIGINT, at);
	CHECK(proc_run(&spec, &res, &got) == 0);
	waitpid(k, NULL, 0);
	CHECK(res.outcome == PROC_INTERRUPTED);
	CHECK(res.interrupt_signal == SIGINT);
	CHECK(res.exit_status == 0 && res.signal == 0); /* ended by itself */
	CHECK(secs_since(t0) < 4);			/* long before the 5 s */
	strbuf_reset(&got);
	CHECK(strbuf_read_file(&got, marker.buf) == 0);
	CHECK(!strcmp(got.buf, "grandchild ended 130\n"));
	CHECK(proc_interrupt_count() == 1);
	strbuf_release(&marker);
	strbuf_release(&script);
	strbuf_release(&got);
}

static void test_interrupt_descendants_first(void **state)
{
	in_own_process(descendants_first);
}

/* A grandchild that ignores SIGINT: the child gets it interrupt_descendants_s
 * later, and SIGKILL grace_s after that; the grandchild is gone too. */
static void descendants_ignore(void)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT, err = STRBUF_INIT;
	const char *argv[] = {"/bin/bash", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .grace_s = 0.5, .interrupt_descendants_s = 0.5};
	struct proc_result res;
	static const int at[] = {300, 0};
	uint64_t t0;
	double took;
	pid_t k, gc;

	proc_catch_interrupts();
	tpath(&pidfile, "ignore.pid");
	strbuf_addf(
	    &script,
	    "/bin/sh -c 'trap \"\" INT; echo $$ > \"%s\"; while :; do sleep 0.05; done'; exit 0",
	    pidfile.buf);
	argv[2] = script.buf;
	k = send_later(SIGINT, at);
	t0 = clock_mono_ns();
	CHECK(proc_run(&spec, &res, &err) == 0);
	took = secs_since(t0);
	waitpid(k, NULL, 0);
	gc = read_pid(pidfile.buf);
	CHECK(res.outcome == PROC_INTERRUPTED);
	CHECK(res.signal == SIGKILL);
	CHECK(took > 1.2 && took < 3); /* 0.3 + 0.5 + 0.5 */
	CHECK(gc > 0 && process_gone(gc));
	strbuf_release(&pidfile);
	strbuf_release(&script);
	strbuf_release(&err);
}

static void test_interrupt_descendants_ignore(void **state)
{
	in_own_process(descendants_ignore);
}

/* A second SIGINT while the descendants have their time: SIGKILL at once. */
static void descendants_second(void)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT, err = STRBUF_INIT;
	const char *argv[] = {"/bin/bash", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .grace_s = 5, .interrupt_descendants_s = 10};
	struct proc_result res;
	static const int at[] = {300, 300, 0};
	uint64_t t0;
	pid_t k, gc;

	proc_catch_interrupts();
	tpath(&pidfile, "second.pid");
	strbuf_addf(
	    &script,
	    "/bin/sh -c 'trap \"\" INT; echo $$ > \"%s\"; while :; do sleep 0.05; done'; exit 0",
	    pidfile.buf);
	argv[2] = script.buf;
	k = send_later(SIGINT, at);
	t0 = clock_mono_ns();
	CHECK(proc_run(&spec, &res, &err) == 0);
	CHECK(secs_since(t0) < 2);
	waitpid(k, NULL, 0);
	gc = read_pid(pidfile.buf);
	CHECK(res.outcome == PROC_INTERRUPTED && res.signal == SIGKILL);
	CHECK(gc > 0 && process_gone(gc));
	CHECK(proc_interrupt_count() == 2);
	/* interrupted before it started: the first interrupt of a later
	 * proc_run is already a second one */
	{
		const char *sl[] = {"/bin/sleep", "30", NULL};
		struct proc_spec s2 = {.argv = sl, .grace_s = 5};
		static const int once[] = {200, 0};

		k = send_later(SIGINT, once);
		t0 = clock_mono_ns();
		CHECK(proc_run(&s2, &res, &err) == 0);
		waitpid(k, NULL, 0);
		CHECK(res.outcome == PROC_INTERRUPTED && res.signal == SIGKILL);
		CHECK(secs_since(t0) < 2);
	}
	strbuf_release(&pidfile);
	strbuf_release(&script);
	strbuf_release(&err);
}

static void test_interrupt_second(void **state)
{
	in_own_process(descendants_second);
}

/* An interrupt that came after the caller last looked and before
 * proc_run() installed its handlers (the pipeline writes status.json
 * there): the child gets it as soon as it starts, instead of running to its
 * end. One the caller saw is not forwarded (it chose to go on), and the
 * next one is a second: SIGKILL at once. */
static void before_handlers(void)
{
	const char *sl[] = {"/bin/sleep", "30", NULL};
	const char *ok[] = {"/bin/sh", "-c", "exit 0", NULL};
	struct proc_spec spec = {.argv = sl, .grace_s = 5};
	struct proc_spec quick = {.argv = ok, .grace_s = 5};
	struct strbuf err = STRBUF_INIT;
	struct proc_result res;

	proc_catch_interrupts();
	raise(SIGINT); /* noted by the handler of proc_catch_interrupts() */
	CHECK(proc_run(&spec, &res, &err) == 0);
	CHECK(res.outcome == PROC_INTERRUPTED);
	CHECK(res.interrupt_signal == SIGINT);
	CHECK(res.signal == SIGINT); /* the first one: forwarded, not SIGKILL */
	/* forwarded once: the next proc_run() does not get it again */
	CHECK(proc_run(&quick, &res, &err) == 0);
	CHECK(res.outcome == PROC_EXITED && res.exit_status == 0);
	/* seen by the caller, who goes on: not forwarded */
	raise(SIGTERM);
	CHECK(proc_interrupt_count() == 2);
	CHECK(proc_run(&quick, &res, &err) == 0);
	CHECK(res.outcome == PROC_EXITED && res.exit_status == 0);
	/* unseen, after one seen: a second interrupt, SIGKILL at once */
	raise(SIGTERM);
	CHECK(proc_run(&spec, &res, &err) == 0);
	CHECK(res.outcome == PROC_INTERRUPTED && res.signal == SIGKILL);
	strbuf_release(&err);
}

static void test_interrupt_before_handlers(void **state)
{
	in_own_process(before_handlers);
}

/* Threads that ask proc_interrupt_count() while interrupts come in, as
 * trace_load()'s readers do (signals blocked there, as trace_par.c does,
 * so the handler runs on this thread): every interrupt counted once, and
 * no thread ever sees the count go back. Under ThreadSanitizer (make
 * SANITIZE=thread) this is also the check that the counters are no data
 * race. */
#define COUNTING_INTERRUPTS 2000
static atomic_int counting_done;

static void *count_reader(void *arg)
{
	int last = 0, n;

	(void)arg;
	while (!atomic_load(&counting_done)) {
		n = proc_interrupt_count();
		if (n < last)
			return (void *)1;
		last = n;
	}
	return NULL;
}

static void counted_across_threads(void)
{
	pthread_t th[2];
	sigset_t all, old;
	void *bad;
	int backwards = 0;

	proc_catch_interrupts();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&th[i], NULL, count_reader, NULL) == 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < COUNTING_INTERRUPTS; i++) {
		raise(i % 2 ? SIGTERM : SIGINT);
		if (i % 3 == 0)
			CHECK(proc_pending_interrupt() == SIGINT); /* the first one's */
	}
	atomic_store(&counting_done, 1);
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_join(th[i], &bad) == 0);
		backwards += bad != NULL;
	}
	CHECK(backwards == 0);
	CHECK(proc_interrupt_count() == COUNTING_INTERRUPTS);
}

static void test_interrupts_counted_across_threads(void **state)
{
	in_own_process(counted_across_threads);
}

/* proc_exit_on_interrupt(): the next interrupt exits with the code and the
 * words, but only once the atomic_file being written is renamed. */
static void exit_armed(void)
{
	struct strbuf out = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;
	int fd;

	tpath(&out, "exit.out");
	tpath(&path, "exit.file");
	fd = open(out.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && dup2(fd, 1) == 1);
	proc_catch_interrupts();
	proc_set_exit_words("run: somewhere\n");
	proc_exit_on_interrupt(130);
	CHECK(atomic_file_open(&af, path.buf, &err) == 0);
	fputs("whole\n", af.fp);
	raise(SIGINT); /* must wait for the file */
	atomic_file_commit(&af, &err);
	_exit(1); /* not reached: the commit exits */
}

static void test_exit_on_interrupt(void **state)
{
	struct strbuf got = STRBUF_INIT, p = STRBUF_INIT;
	pid_t c = fork();
	int st = 0;

	assert_true(c >= 0);
	if (c == 0)
		exit_armed();
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 130);
	tpath(&p, "exit.file");
	assert_int_equal(strbuf_read_file(&got, p.buf), 0);
	assert_string_equal(got.buf, "whole\n");
	strbuf_reset(&got);
	tpath(&p, "exit.out");
	assert_int_equal(strbuf_read_file(&got, p.buf), 0);
	assert_string_equal(got.buf, "run: somewhere\n");
	{
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q '\\.tmp\\.'", tmpdir);
		assert_int_not_equal(system(cmd), 0); /* no temporary file */
	}
	strbuf_release(&got);
	strbuf_release(&p);
}

static void test_argv_bytes_untouched(void **state)
{
	const char *argv[] = {
	    "/usr/bin/printf", "[%s]",	       "a b", "q\"t", "it's", "$(id)", "`id`",
	    "line1\nline2",    "\xff\xfe\x80", "",    "*",    "\\n",  NULL};
	const char *expect = "[a b][q\"t][it's][$(id)][`id`][line1\nline2][\xff\xfe\x80][][*][\\n]";
	struct strbuf out = STRBUF_INIT, got = STRBUF_INIT, esc = STRBUF_INIT;
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;

	tpath(&out, "printf.out");
	spec.out.path = out.buf;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(strbuf_read_file(&got, out.buf), 0);
	assert_int_equal(got.len, strlen(expect));
	assert_memory_equal(got.buf, expect, got.len);

	/* the argv log escapes each argument onto one line */
	tpath(&out, "printf.argv");
	assert_int_equal(proc_write_argv(NULL, out.buf, argv, NULL), 0);
	strbuf_reset(&got);
	assert_int_equal(strbuf_read_file(&got, out.buf), 0);
	assert_string_equal(got.buf, "/usr/bin/printf\n[%s]\na b\nq\"t\nit's\n$(id)\n`id`\n"
				     "line1\\nline2\n\\xff\\xfe\\x80\n\n*\n\\\\n\n");
	proc_quote_shell(&esc, "plain/arg-1.0");
	strbuf_addch(&esc, ' ');
	proc_quote_shell(&esc, "it's $(x)");
	strbuf_addch(&esc, ' ');
	proc_quote_shell(&esc, "a\nb'\xff");
	strbuf_addch(&esc, ' ');
	proc_quote_shell(&esc, "");
	assert_string_equal(esc.buf, "plain/arg-1.0 'it'\\''s $(x)' $'a\\nb\\'\\xff' ''");
	strbuf_release(&out);
	strbuf_release(&got);
	strbuf_release(&esc);
}

/* One quoting rule for every displayed command line: the _bytes form (the
 * cmd.txt files) differs only in leaving control and non-ASCII bytes as
 * they are inside '...'. */
static void test_quote_shell_bytes(void **state)
{
	static const char *const same[] = {"plain/arg-1.0", "it's $(x)", "",	"a b",
					   "k=v,w@x%y+z:",  "'",	 "\"*?"};
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		strbuf_reset(&a);
		strbuf_reset(&b);
		proc_quote_shell(&a, same[i]);
		proc_quote_shell_bytes(&b, same[i]);
		assert_string_equal(a.buf, b.buf);
	}
	strbuf_reset(&b);
	proc_quote_shell_bytes(&b, "a\nb'\xff");
	strbuf_addch(&b, ' ');
	proc_quote_shell_bytes(&b, "caf\xc3\xa9");
	strbuf_addch(&b, ' ');
	proc_quote_shell_bytes(&b, "\t");
	assert_string_equal(b.buf, "'a\nb'\\''\xff' 'caf\xc3\xa9' '\t'");
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_env_and_cwd(void **state)
{
	const char *argv[] = {"/bin/sh", "-c",
			      "printf '%s|%s|' \"$LLMPROF_T\" \"${HOME-unset}\"; pwd", NULL};
	const char *add[] = {"LLMPROF_T=x y=z", NULL};
	const char *rm[] = {"HOME", NULL};
	struct strbuf buf = STRBUF_INIT;
	struct proc_spec spec = {
	    .argv = argv, .env_add = add, .env_remove = rm, .cwd = "/", .stdin_null = 1};
	struct proc_result res;

	setenv("LLMPROF_T", "old", 1);
	spec.out.buf = &buf;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_string_equal(buf.buf, "x y=z|unset|/\n");
	unsetenv("LLMPROF_T");

	/* PATH given to the child is the one used to find the program */
	{
		const char *argv2[] = {"printf", "ok", NULL};
		const char *add2[] = {"PATH=/nonexistent", NULL};
		struct proc_spec s2 = {.argv = argv2, .env_add = add2};
		run_ok(&s2, &res);
		assert_int_equal(res.outcome, PROC_EXEC_FAILED);
		assert_int_equal(res.exec_errno, ENOENT);
	}
	strbuf_release(&buf);
}

/* 64 MiB on each stream at once, copied to files and echoed: the child must
 * never block, every byte must arrive, and memory stays at the buffer cap. */
static void test_flood_and_echo(void **state)
{
	const char *argv[] = {"/bin/sh", "-c",
			      "head -c 67108864 /dev/zero >&2 & seq 1 2000000; wait", NULL};
	struct strbuf out = STRBUF_INIT, errp = STRBUF_INIT, echo = STRBUF_INIT, a = STRBUF_INIT,
		      b = STRBUF_INIT, cap = STRBUF_INIT;
	struct proc_spec spec = {.argv = argv, .timeout_s = 60};
	struct proc_result res;
	struct stat st;
	int saved_out, saved_err, fd, fd2;

	tpath(&out, "flood.out");
	tpath(&errp, "flood.err");
	tpath(&echo, "flood.echo");
	spec.out.path = out.buf;
	spec.out.echo = 1;
	spec.out.buf = &cap;
	spec.out.buf_max = 1024;
	spec.err.path = errp.buf;
	spec.err.echo = 1;

	fflush(stdout);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(echo.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fd2 = open("/dev/null", O_WRONLY);
	assert_true(saved_out >= 0 && saved_err >= 0 && fd >= 0 && fd2 >= 0);
	dup2(fd, 1);
	dup2(fd2, 2);
	run_ok(&spec, &res);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(fd);
	close(fd2);

	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(res.log_errno, 0);
	assert_int_equal(stat(errp.buf, &st), 0);
	assert_int_equal(st.st_size, 67108864);
	assert_int_equal(res.err_bytes, 67108864);
	assert_int_equal(strbuf_read_file(&a, out.buf), 0);
	assert_int_equal(strbuf_read_file(&b, echo.buf), 0);
	assert_int_equal(a.len, res.out_bytes);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	assert_true(starts_with(a.buf, "1\n2\n3\n"));
	assert_true(ends_with(a.buf, "\n1999999\n2000000\n"));
	assert_int_equal(cap.len, 1024);
	assert_memory_equal(cap.buf, a.buf, 1024);
	unlink(errp.buf);
	strbuf_release(&out);
	strbuf_release(&errp);
	strbuf_release(&echo);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&cap);
}

static int pid_alive(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	char *p;
	int alive = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		alive = p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return alive;
}

/* A background grandchild that keeps the output pipe open is ended once
 * the child is reaped (SIGTERM): proc_run returns at once, its output
 * complete, and says one process was left running. */
static void test_grandchild_holding_pipe(void **state)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT, buf = STRBUF_INIT;
	const char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;
	uint64_t t0, dt;
	pid_t gc;
	int gc_alive;

	tpath(&pidfile, "holder.pid");
	strbuf_addf(&script, "sleep 30 & echo $! > '%s'; echo done", pidfile.buf);
	argv[2] = script.buf;
	spec.out.buf = &buf;
	t0 = clock_mono_ns();
	run_ok(&spec, &res);
	dt = clock_mono_ns() - t0;
	gc = read_pid(pidfile.buf);
	gc_alive = gc > 0 && pid_alive(gc);
	if (gc > 0)
		kill(gc, SIGKILL);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 0);
	assert_string_equal(buf.buf, "done\n");
	assert_false(gc_alive);
	assert_int_equal(res.leftovers, 1);
	assert_int_equal(res.leftovers_signal, SIGTERM);
	assert_true(dt < 1500000000ull);
	strbuf_release(&pidfile);
	strbuf_release(&script);
	strbuf_release(&buf);
}

/* What the child left running is ended even outside its process group
 * (setsid: found as an orphan reparented to us) and when it ignores SIGTERM
 * (SIGKILL after the grace); a child we had before proc_run is untouched. */
static void test_leftovers_outside_group(void **state)
{
	struct strbuf pidfile = STRBUF_INIT, script = STRBUF_INIT;
	const char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	struct proc_spec spec = {.argv = argv, .grace_s = 0.3, .subreaper = 1};
	struct proc_result res;
	pid_t mine, gc;
	int gc_alive, mine_alive;

	if (access("/usr/bin/setsid", X_OK) && access("/bin/setsid", X_OK))
		skip();
	mine = fork();
	assert_true(mine >= 0);
	if (mine == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	tpath(&pidfile, "setsid.pid");
	strbuf_addf(&script,
		    "setsid sh -c 'trap \"\" TERM; echo $$ > \"%s\"; exec sleep 30' & "
		    "while ! [ -s '%s' ]; do sleep 0.01; done; exit 0",
		    pidfile.buf, pidfile.buf);
	argv[2] = script.buf;
	run_ok(&spec, &res);
	gc = read_pid(pidfile.buf);
	gc_alive = gc > 0 && pid_alive(gc);
	mine_alive = pid_alive(mine);
	if (gc > 0)
		kill(gc, SIGKILL);
	kill(mine, SIGKILL);
	waitpid(mine, NULL, 0);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_true(gc > 0);
	assert_false(gc_alive);
	assert_true(mine_alive);
	assert_int_equal(res.leftovers, 1);
	assert_int_equal(res.leftovers_signal, SIGKILL);
	strbuf_release(&pidfile);
	strbuf_release(&script);
}

static void test_log_file_unwritable(void **state)
{
	const char *argv[] = {"true", NULL};
	struct proc_spec spec = {.argv = argv};
	struct proc_result res;
	struct strbuf err = STRBUF_INIT;

	spec.out.path = "/nonexistent-dir/x.out";
	assert_int_equal(proc_run(&spec, &res, &err), -1);
	assert_non_null(strstr(err.buf, "cannot write '/nonexistent-dir/x.out'"));
	strbuf_release(&err);
}

/* on_tick: called while a silent child runs, at its interval, and never
 * after the child was reaped. */
struct ticks {
	int n;
	uint64_t first_ns, start_ns;
};

static void count_tick(void *arg)
{
	struct ticks *t = arg;

	if (!t->n++)
		t->first_ns = clock_mono_ns() - t->start_ns;
}

static void test_on_tick(void **state)
{
	const char *argv[] = {"sleep", "0.55", NULL};
	const char *quick[] = {"true", NULL};
	struct strbuf log = STRBUF_INIT;
	struct ticks t = {0, 0, 0};
	struct proc_spec spec = {
	    .argv = argv, .on_tick = count_tick, .on_tick_arg = &t, .tick_s = 0.1};
	struct proc_result res;

	tpath(&log, "tick.out");
	spec.out.path = log.buf; /* no pipe to poll: the tick alone wakes the loop */
	t.start_ns = clock_mono_ns();
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_in_range(t.n, 3, 7);
	assert_true(t.first_ns >= 90000000ull); /* the first one after tick_s */
	/* a child done before its first tick gets none */
	t.n = 0;
	spec.argv = quick;
	spec.tick_s = 5;
	run_ok(&spec, &res);
	assert_int_equal(t.n, 0);
	strbuf_release(&log);
}

/* end_descendants: once on_data saw "ready", the grandchild (ncu's
 * program, here a sleep) gets SIGTERM and the child (ncu, here bash) sees
 * it end and exits by itself with what it wants to say; a second "ready"
 * sends nothing more. Never set: nothing is signalled. */
struct ender {
	volatile int flag;
	int seen;
};

static void end_on_ready(void *arg, const char *buf, size_t len)
{
	struct ender *e = arg;

	/* ready is printed whole, in one write */
	for (size_t i = 0; i + 5 <= len; i++)
		if (!memcmp(buf + i, "ready", 5) && ++e->seen)
			e->flag = 1;
}

static void test_end_descendants(void **state)
{
	const char *argv[] = {"/bin/bash", "-c",
			      "/bin/sleep 30 & echo ready; echo ready; wait $!; echo \"ended $?\"; "
			      "exit 7",
			      NULL};
	const char *quick[] = {"/bin/bash", "-c", "echo ready; exit 0", NULL};
	struct ender e = {0, 0};
	struct proc_spec spec = {.argv = argv, .grace_s = 1, .end_descendants = &e.flag};
	struct proc_result res;
	struct strbuf log = STRBUF_INIT, got = STRBUF_INIT;
	uint64_t t0 = clock_mono_ns();

	(void)state;
	tpath(&log, "end-descendants.out");
	spec.out.path = log.buf;
	spec.out.on_data = end_on_ready;
	spec.out.on_data_arg = &e;
	run_ok(&spec, &res);
	assert_true(secs_since(t0) < 10); /* long before the sleep's 30 s */
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 7);
	assert_int_equal(res.descendants_ended, 1);
	assert_int_equal(strbuf_read_file(&got, log.buf), 0);
	assert_non_null(strstr(got.buf, "ended 143\n")); /* 128 + SIGTERM */
	/* the child itself is never the one ended, even with no descendant */
	e.flag = 0;
	spec.argv = quick;
	run_ok(&spec, &res);
	assert_int_equal(res.outcome, PROC_EXITED);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(res.descendants_ended, 0);
	strbuf_release(&log);
	strbuf_release(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    /* first: forked from a process that has had no interrupt yet */
	    cmocka_unit_test(test_interrupt_descendants_first),
	    cmocka_unit_test(test_interrupt_descendants_ignore),
	    cmocka_unit_test(test_interrupt_second),
	    cmocka_unit_test(test_exit_on_interrupt),
	    cmocka_unit_test(test_interrupt_before_handlers),
	    cmocka_unit_test(test_interrupts_counted_across_threads),
	    cmocka_unit_test(test_exit_status),
	    cmocka_unit_test(test_on_data),
	    cmocka_unit_test(test_on_tick),
	    cmocka_unit_test(test_end_descendants),
	    cmocka_unit_test(test_exec_failures),
	    cmocka_unit_test(test_death_by_signal),
	    cmocka_unit_test(test_timeout_kills_group),
	    cmocka_unit_test(test_sigint_forwarded),
	    cmocka_unit_test(test_argv_bytes_untouched),
	    cmocka_unit_test(test_quote_shell_bytes),
	    cmocka_unit_test(test_env_and_cwd),
	    cmocka_unit_test(test_flood_and_echo),
	    cmocka_unit_test(test_grandchild_holding_pipe),
	    cmocka_unit_test(test_leftovers_outside_group),
	    cmocka_unit_test(test_log_file_unwritable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
