/* sample.c: CPU-time sampling of the threads that make traced calls
 * (LLMPROF_TRACE_CPU_SAMPLE_HZ, off by default).
 *
 * Each such thread gets a timer on its own CPU-time clock
 * (CLOCK_THREAD_CPUTIME_ID) that sends SAMPLE_SIGNAL to that thread
 * (SIGEV_THREAD_ID) every period of CPU time it uses: a thread blocked in a
 * system call or waiting on the GPU uses none, so it is rarely interrupted.
 * The handler, async-signal-safe, keeps the time and the stack's addresses
 * (libunwind's unw_backtrace when libunwind.so.8 loads, else the
 * interrupted instruction only) in the thread's own log buffer; a signal
 * that arrives while the thread works on that buffer drops its sample
 * (counted); the time spent in the handler is summed and written with the
 * totals at exit. Symbols are resolved offline from the loaded objects this file
 * writes at each flush (dl_iterate_phdr). Off means off: no handler, no
 * timer, nothing but one branch per traced call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "tracer.h"
#include "trace/tracer_env.h"

#define SAMPLE_SIGNAL (SIGRTMIN + 7)
#define SAMPLE_FRAMES 32
#define SAMPLE_SKIP 8 /* the handler's own frames above the interrupted one */
#define SAMPLE_MAX_THREADS 1024

int tracer_sample_on;
__thread int tracer_sample_started;

typedef int (*unw_backtrace_fn)(void **, int);

static int g_setup; /* sampling was configured in this process */
static int g_signo;
static uint64_t g_period_ns;
static unw_backtrace_fn g_unw;
static uint64_t g_samples, g_dropped;
static uint64_t g_handler_ns, g_handler_calls;		    /* the handler's own cost */
static pthread_mutex_t g_tlock = PTHREAD_MUTEX_INITIALIZER; /* the timers */
static struct {
	timer_t id;
	int live;
} g_timers[SAMPLE_MAX_THREADS];
static uint32_t g_ntimers;  /* slots used so far (a dead thread's is reused) */
static uint32_t g_nsampled; /* threads that got a timer */
static __thread int tl_timer = -1;
static pthread_mutex_t g_mlock = PTHREAD_MUTEX_INITIALIZER; /* module list */
static unsigned long long g_mod_adds, g_mod_subs;
static int g_mod_written, g_stolen;
static int g_fork_locked; /* g_mlock taken by sample_fork_prepare */

static uint64_t leaf_pc(void *ucv)
{
	const ucontext_t *uc = ucv;

	if (!uc)
		return 0;
#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#else
	return 0;
#endif
}

/* The stack into pcs (interrupted instruction first); returns the frame
 * count and sets *method. libunwind's walk starts in this handler: its
 * frames up to the interrupted one are cut; a walk that never reaches it
 * keeps the interrupted instruction alone. */
static int unwind(void **pcs, void *ucv, int *method)
{
	void *raw[SAMPLE_FRAMES + SAMPLE_SKIP];
	uint64_t leaf = leaf_pc(ucv);
	int n, first;

	*method = TLOG_UNWIND_LEAF;
	if (g_unw && leaf) {
		n = g_unw(raw, SAMPLE_FRAMES + SAMPLE_SKIP);
		for (first = 0; first < n && (uint64_t)(uintptr_t)raw[first] != leaf; first++)
			;
		if (first < n) {
			n -= first;
			if (n > SAMPLE_FRAMES)
				n = SAMPLE_FRAMES;
			memcpy(pcs, raw + first, (size_t)n * sizeof(*pcs));
			*method = TLOG_UNWIND_LIBUNWIND;
			return n;
		}
	}
	pcs[0] = (void *)(uintptr_t)leaf;
	return leaf ? 1 : 0;
}

static void take_sample(void *ucv, int overrun)
{
	void *pcs[SAMPLE_FRAMES];
	struct tlog_cpu_sample *s;
	int method, n = unwind(pcs, ucv, &method);
	size_t size = sizeof(*s) + (size_t)n * 8;

	s = tracer_reserve_signal(size);
	if (!s) {
		__atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	s->h.type = TLOG_CPU_SAMPLE;
	s->h.size = (uint16_t)size;
	s->h.aux = (uint32_t)method;
	s->ts = tracer_now();
	s->nframes = (uint32_t)n;
	s->overrun = overrun > 0 ? (uint32_t)overrun : 0;
	for (int i = 0; i < n; i++) {
		uint64_t a = (uint64_t)(uintptr_t)pcs[i];
		memcpy((unsigned char *)(s + 1) + (size_t)i * 8, &a, 8);
	}
	tracer_commit_signal();
	__atomic_fetch_add(&g_samples, 1, __ATOMIC_RELAXED);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe, the vDSO's */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time from the handler's entry to its exit is summed (with the calls):
 * the sampler's direct cost, written with its totals. The kernel's signal
 * delivery and return are not in it. */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	uint64_t t0;

	(void)sig;
	if (tracer_sample_on && si && si->si_code == SI_TIMER) {
		t0 = mono_ns();
		take_sample(ucv, si->si_overrun);
		__atomic_fetch_add(&g_handler_ns, mono_ns() - t0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&g_handler_calls, 1, __ATOMIC_RELAXED);
	}
	errno = saved;
}

static void write_settings(uint32_t aux)
{
	struct tlog_cpu_sampling c;

	memset(&c, 0, sizeof(c));
	c.h.type = TLOG_CPU_SAMPLING;
	c.h.size = sizeof(c);
	c.h.aux = aux;
	c.ts = tracer_now();
	c.period_ns = g_period_ns;
	c.signo = (uint32_t)g_signo;
	c.method = g_unw ? TLOG_UNWIND_LIBUNWIND : TLOG_UNWIND_LEAF;
	c.samples = __atomic_load_n(&g_samples, __ATOMIC_RELAXED);
	c.dropped = __atomic_load_n(&g_dropped, __ATOMIC_RELAXED);
	c.threads = g_nsampled;
	c.handler_ns = __atomic_load_n(&g_handler_ns, __ATOMIC_RELAXED);
	c.handler_calls = __atomic_load_n(&g_handler_calls, __ATOMIC_RELAXED);
	tracer_write_now(&c, sizeof(c));
}

/* libunwind, loaded (never linked: a program without it still runs,
 * sampled by leaf only) and called once here, outside any handler, so its
 * first-use setup is done before a signal needs it. */
static void load_unwinder(void)
{
	const char *how = getenv(TRACER_ENV_CPU_UNWIND);
	void *warm[4];
	void *h;

	if (how && !strcmp(how, "leaf"))
		return;
	if (how && *how && strcmp(how, "libunwind"))
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "%s=%s not understood (libunwind or leaf): using libunwind",
			    TRACER_ENV_CPU_UNWIND, how);
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "CPU sampling: libunwind.so.8 not found: each sample keeps the "
			    "interrupted function only, no callers");
		return;
	}
	g_unw = (unw_backtrace_fn)(uintptr_t)dlsym(h, "unw_backtrace");
	if (!g_unw) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "CPU sampling: libunwind.so.8 has no unw_backtrace: each sample keeps "
			    "the interrupted function only");
		return;
	}
	g_unw(warm, 4);
}

static int handler_is_ours(void)
{
	struct sigaction old;

	if (sigaction(g_signo, NULL, &old) != 0)
		return 0;
	return (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_signal;
}

void sample_setup(void)
{
	const char *v = getenv(TRACER_ENV_CPU_SAMPLE_HZ);
	uint64_t hz = tracer_env_u64(TRACER_ENV_CPU_SAMPLE_HZ, 0, 1000);
	struct sigaction sa, old;

	if (!v || !*v || (hz == 0 && strcmp(v, "0") == 0))
		return;
	if (hz < 10) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "%s=%s not understood (0, or 10..1000 samples per second): CPU "
			    "sampling off",
			    TRACER_ENV_CPU_SAMPLE_HZ, v);
		return;
	}
	g_signo = SAMPLE_SIGNAL;
	g_period_ns = 1000000000u / hz;
	if (sigaction(g_signo, NULL, &old) != 0 ||
	    ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL : old.sa_handler != SIG_DFL)) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "CPU sampling off: the program has its own handler for signal %d "
			    "(SIGRTMIN+7), which the sampler would use",
			    g_signo);
		return;
	}
	load_unwinder();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(g_signo, &sa, NULL) != 0) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "CPU sampling off: sigaction(%d): %s", g_signo, strerror(errno));
		return;
	}
	g_setup = 1;
	write_settings(0);
	__atomic_store_n(&tracer_sample_on, 1, __ATOMIC_RELEASE);
}

void sample_thread_start_slow(void)
{
	struct sigevent ev;
	struct itimerspec its;
	sigset_t mask;
	timer_t id;
	uint32_t k;
	void *warm[4];

	tracer_sample_started = 1;
	if (tracer_thread_ready() < 0)
		return;
	/* A thread that blocks the signal would keep it pending, for its own
	 * sigwait(), sigtimedwait() or signalfd() to take (or for a program it
	 * exec()s to inherit): such a thread is not sampled. */
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, g_signo) == 1) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "CPU sampling: thread %u not sampled (it blocks signal %d)",
			    tracer_tid(), g_signo);
		return;
	}
	/* libunwind's per-thread cache is made at a thread's first unwind:
	 * here, not in the handler */
	if (g_unw)
		g_unw(warm, 4);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = g_signo;
	ev._sigev_un._tid = (pid_t)tracer_tid();
	pthread_mutex_lock(&g_tlock);
	/* the first free slot: an exited thread's timer is deleted, its slot free */
	for (k = 0; k < g_ntimers && g_timers[k].live; k++)
		;
	if (!tracer_sample_on || k >= SAMPLE_MAX_THREADS ||
	    timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &id) != 0) {
		int full = k >= SAMPLE_MAX_THREADS;
		pthread_mutex_unlock(&g_tlock);
		if (tracer_sample_on)
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
				    "CPU sampling: thread %u not sampled (%s)", tracer_tid(),
				    full ? "too many threads" : "timer_create failed");
		return;
	}
	if (k == g_ntimers)
		g_ntimers++;
	g_nsampled++;
	g_timers[k].id = id;
	g_timers[k].live = 1;
	tl_timer = (int)k;
	its.it_interval.tv_sec = (time_t)(g_period_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(g_period_ns % 1000000000u);
	its.it_value = its.it_interval;
	timer_settime(id, 0, &its, NULL);
	pthread_mutex_unlock(&g_tlock);
	/* the objects loaded so far, for a process that ends before a flush */
	sample_write_modules();
}

static void delete_timer(int k)
{
	if (k >= 0 && (uint32_t)k < g_ntimers && g_timers[k].live) {
		timer_delete(g_timers[k].id);
		g_timers[k].live = 0;
	}
}

void sample_thread_exit(void)
{
	if (!g_setup)
		return;
	pthread_mutex_lock(&g_tlock);
	delete_timer(tl_timer);
	tl_timer = -1;
	pthread_mutex_unlock(&g_tlock);
}

static void stop_timers(void)
{
	__atomic_store_n(&tracer_sample_on, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&g_tlock);
	for (uint32_t k = 0; k < g_ntimers; k++)
		delete_timer((int)k);
	pthread_mutex_unlock(&g_tlock);
}

/* The handler stays installed: a signal already queued when the timers go
 * would otherwise take its default action and end the program. */
void sample_stop(void)
{
	if (!g_setup)
		return;
	stop_timers();
	write_settings(1);
}

struct mod_scan {
	unsigned long long adds, subs;
	int write;
};

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mod_scan *m = arg;
	struct tlog_module rec;
	char exe[4096];
	const char *path = info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	m->adds = info->dlpi_adds;
	m->subs = info->dlpi_subs;
	if (!m->write)
		return 1; /* the counters only: the first call has them */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	if (!path || !*path) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = exe;
	}
	memset(&rec, 0, sizeof(rec));
	rec.h.type = TLOG_MODULE;
	rec.base = info->dlpi_addr;
	rec.lo = lo;
	rec.hi = hi;
	rec.len = (uint32_t)strlen(path);
	tracer_write_def(&rec, sizeof(rec), path, rec.len, NULL, 0);
	return 0;
}

/* A program that installs its own handler for the signal later would get
 * the timers' signals: stop them and say so. */
static void check_handler(void)
{
	if (g_stolen || !tracer_sample_on || handler_is_ours())
		return;
	g_stolen = 1;
	stop_timers();
	tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
		    "CPU sampling stopped: the program installed its own handler for signal %d "
		    "(SIGRTMIN+7)",
		    g_signo);
}

void sample_write_modules(void)
{
	struct mod_scan m = {0, 0, 0};

	if (!g_setup)
		return;
	check_handler();
	pthread_mutex_lock(&g_mlock);
	dl_iterate_phdr(module_cb, &m);
	if (!g_mod_written || m.adds != g_mod_adds || m.subs != g_mod_subs) {
		m.write = 1;
		dl_iterate_phdr(module_cb, &m);
		g_mod_adds = m.adds;
		g_mod_subs = m.subs;
		g_mod_written = 1;
	}
	pthread_mutex_unlock(&g_mlock);
}

/* glibc's fork() does not reset the loader's list lock that
 * dl_iterate_phdr holds: a fork while another thread walked the list here
 * would leave it held in the child by a thread that does not exist there,
 * and the child's next dl_iterate_phdr or dlopen would hang. So fork waits
 * for the walk to end (log.c's fork handlers call these). */
void sample_fork_prepare(void)
{
	if (!g_setup)
		return;
	pthread_mutex_lock(&g_mlock);
	g_fork_locked = 1;
}

void sample_fork_parent(void)
{
	if (!g_fork_locked)
		return;
	g_fork_locked = 0;
	pthread_mutex_unlock(&g_mlock);
}

/* Timers are not inherited by a fork()ed child: it starts clean, with the
 * handler (which is) and a log of its own. */
void sample_fork_child(void)
{
	pthread_mutex_init(&g_tlock, NULL);
	pthread_mutex_init(&g_mlock, NULL);
	g_fork_locked = 0;
	g_ntimers = 0;
	g_nsampled = 0;
	tl_timer = -1;
	tracer_sample_started = 0;
	g_samples = 0;
	g_dropped = 0;
	g_handler_ns = 0;
	g_handler_calls = 0;
	g_mod_written = 0;
	if (g_setup && tracer_sample_on)
		write_settings(0);
}
