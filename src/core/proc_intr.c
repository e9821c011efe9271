/* proc_intr.c: the interrupts llmprof caught (proc.h: proc_catch_interrupts()
 * and what follows), kept apart from proc.c, which runs the children. Only
 * async-signal-safe calls in what a handler reaches.
 *
 * An interrupt is "seen" once a caller asked about it or a proc_run()
 * forwarded it. One that nobody saw when a proc_run() starts came after
 * the caller's last look (the pipeline looks before each step, then writes
 * status.json: milliseconds in which a Ctrl-C would otherwise be noted and
 * never acted on, the program run to its end): proc_run() hands it to the
 * child at once.
 *
 * The counters are C11 atomics, not volatile sig_atomic_t: volatile makes
 * a handler's write visible to the thread it interrupted, nothing more,
 * and trace_load()'s reader threads (trace_par.c) ask proc_interrupt_count()
 * while the handler counts on the main thread and the main thread marks
 * interrupts seen; with plain volatile those are data races. Lock-free
 * atomics are safe in a handler too (checked below). Sequentially
 * consistent, the default: the order of two reads matters below (a
 * handler may run between them), and they are too rare to cost anything. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "core/proc_intr.h"
#include "core/banned.h"

const int proc_interrupt_signals[PROC_NR_INTERRUPT_SIGNALS] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
const int proc_ignored_signals[PROC_NR_IGNORED_SIGNALS] = {SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may touch only lock-free atomics");

/* the first interrupt's signal, 0 = none yet */
static atomic_int pending_interrupt;
static atomic_int interrupt_count;
/* how many of them a caller or a proc_run() has seen: only grows */
static atomic_int interrupt_seen;
/* proc_exit_on_interrupt()'s code (-1 = not armed) and words */
static atomic_int exit_on_interrupt = -1;
static char *exit_words;
static size_t exit_words_len;

volatile pid_t proc_running_group;
char proc_echo_last[3] = {'\n', '\n', '\n'};

int proc_is_interrupt(int sig)
{
	for (size_t i = 0; i < PROC_NR_INTERRUPT_SIGNALS; i++)
		if (proc_interrupt_signals[i] == sig)
			return 1;
	return 0;
}

void proc_note_interrupt(int sig)
{
	int none = 0, code;

	atomic_compare_exchange_strong(&pending_interrupt, &none, sig);
	atomic_fetch_add(&interrupt_count, 1);
	code = atomic_load(&exit_on_interrupt);
	if (code < 0)
		return;
	if (proc_running_group > 0)
		kill(-proc_running_group, SIGKILL);
	if (exit_words_len && proc_echo_last[1] != '\n' && write(1, "\n", 1) < 0) {
		/* stdout gone: the exit code still says it */
	}
	if (exit_words_len && write(1, exit_words, exit_words_len) < 0) {
		/* as above */
	}
	atomic_exit(code);
}

static void on_interrupt(int sig)
{
	int saved = errno;

	proc_note_interrupt(sig);
	errno = saved;
}

void proc_catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < PROC_NR_INTERRUPT_SIGNALS; i++)
		sigaction(proc_interrupt_signals[i], &sa, NULL);
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < PROC_NR_IGNORED_SIGNALS; i++)
		sigaction(proc_ignored_signals[i], &sa, NULL);
}

/* Marks the first n interrupts seen. Threads may race here with counts
 * read at different times: the larger one stays, so a count read late
 * never unmarks one that another thread already saw. */
static void mark_seen(int n)
{
	int old = atomic_load(&interrupt_seen);

	while (old < n && !atomic_compare_exchange_weak(&interrupt_seen, &old, n)) {
	}
}

/* The count is read before the signal: one that lands between the two
 * reads is not marked seen, so a later proc_run() still forwards it. */
int proc_pending_interrupt(void)
{
	int n = atomic_load(&interrupt_count);
	int sig = atomic_load(&pending_interrupt);

	if (sig)
		mark_seen(n);
	return sig;
}

int proc_interrupt_count(void)
{
	int n = atomic_load(&interrupt_count);

	mark_seen(n);
	return n;
}

/* With the interrupt signals blocked on this thread, and the readers'
 * threads blocking all of them: the count cannot move meanwhile. */
int proc_interrupts_take_unseen(int *seen, int *sig)
{
	int n = atomic_load(&interrupt_count);
	int old = atomic_exchange(&interrupt_seen, n);

	*seen = old;
	*sig = atomic_load(&pending_interrupt);
	return n > old ? n - old : 0;
}

void proc_exit_on_interrupt(int code)
{
	atomic_store(&exit_on_interrupt, code);
}

void proc_set_exit_words(const char *text)
{
	char *old = exit_words;

	exit_words_len = 0; /* a handler never sees a half-set pair */
	exit_words = xstrdup(text);
	exit_words_len = strlen(text);
	free(old);
}

int proc_echo_at_line_start(int fd)
{
	return (fd != 1 && fd != 2) || proc_echo_last[fd] == '\n';
}
