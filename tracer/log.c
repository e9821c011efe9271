/* log.c: the tracer's append-only log writer.
 *
 * Each thread appends to its own buffer (no syscall, one uncontended mutex
 * so the exit flush can take the buffer safely); a full buffer becomes one
 * chunk written with a single write(2) on an O_APPEND descriptor, so chunks
 * of concurrent threads never interleave inside. The library never prints,
 * never exits the program and never raises a signal: failures become
 * diagnostics in the log, or silent no-ops when there is no log at all. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "tracer.h"
#include "trace/rankid.h"
#include "trace/tracer_env.h"

struct tbuf {
	pthread_mutex_t lock;
	unsigned char *data;
	uint32_t used;
	uint32_t cap;
	uint32_t tid;
	int dead; /* owner thread exited: flushed, reusable by nobody */
	struct tbuf *next;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* fd, list, seq */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_fd = -1;
static int g_enabled;
static uint32_t g_flags;
static uint32_t g_seq;
static uint32_t g_buf_cap = 512u << 10;
static struct tbuf *g_bufs;
static struct tbuf g_gpu = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0, NULL};
static uint64_t g_dropped; /* records the tracer itself could not keep */
static int g_io_failed;
static pthread_key_t g_key;
static char g_dir[4096];
/* The rank and host, read once at init (getenv, gethostname): a fork()ed
 * child records the same identity without reading the environment in the
 * child, where another thread may have held a lock at fork time. */
static struct rank_ident g_rank;
static char g_host[256];

static __thread struct tbuf *tl_buf;
static __thread uint32_t tl_tid;
static __thread int tl_in_tracer; /* no re-entry from our own write() */
/* Nonzero while the thread works on its own buffer (or takes any buffer's
 * lock): a CPU sample's signal arriving then is dropped, not appended, since
 * the buffer is half-written and its lock held by the interrupted code. */
static __thread volatile int tl_busy;

static void busy_enter(void)
{
	tl_busy++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void busy_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tl_busy--;
}

uint64_t tracer_now(void)
{
	struct timespec ts;
	/* CUPTI's own clock on Linux x86_64/aarch64 (cupti_activity.h): GPU and
	 * CPU records share one time base without a timestamp callback. */
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t tracer_tid(void)
{
	if (!tl_tid)
		tl_tid = (uint32_t)syscall(SYS_gettid);
	return tl_tid;
}

int tracer_enabled(void)
{
	return g_enabled;
}

uint64_t tracer_env_u64(const char *name, uint64_t def, uint64_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return def;
	return v;
}

static void write_all(const struct iovec *iov, int n)
{
	struct iovec v[2];
	int i;

	if (g_fd < 0 || g_io_failed)
		return;
	for (i = 0; i < n; i++)
		v[i] = iov[i];
	while (n > 0) {
		ssize_t w = writev(g_fd, v, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			g_io_failed = 1; /* disk full etc.: stop, keep the prefix */
			return;
		}
		while (n > 0 && (size_t)w >= v[0].iov_len) {
			w -= (ssize_t)v[0].iov_len;
			v[0] = v[1];
			n--;
		}
		if (n > 0) {
			v[0].iov_base = (char *)v[0].iov_base + w;
			v[0].iov_len -= (size_t)w;
		}
	}
}

/* Writes buffer contents as one chunk; caller holds b->lock. */
static void chunk_out(struct tbuf *b)
{
	struct tlog_chunk_header ch;
	struct iovec iov[2];

	if (!b->used)
		return;
	ch.magic = TLOG_CHUNK_MAGIC;
	ch.size = b->used;
	ch.tid = b->tid;
	ch.seq = __atomic_fetch_add(&g_seq, 1, __ATOMIC_RELAXED);
	iov[0].iov_base = &ch;
	iov[0].iov_len = sizeof(ch);
	iov[1].iov_base = b->data;
	iov[1].iov_len = b->used;
	tl_in_tracer++;
	write_all(iov, 2);
	tl_in_tracer--;
	b->used = 0;
}

static void thread_exit(void *p)
{
	struct tbuf *b = p;

	sample_thread_exit();
	busy_enter();
	pthread_mutex_lock(&b->lock);
	chunk_out(b);
	b->dead = 1;
	pthread_mutex_unlock(&b->lock);
	busy_leave();
}

/* The OS name of the calling thread (its comm, as ps shows), written once
 * when the thread first records something; an NVTX name given to the thread
 * takes precedence in the database. aux = 1 marks it as the OS name. */
static void write_os_thread_name(uint32_t tid)
{
	struct tlog_thread_name t;
	char path[64], name[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		n--;
	memset(&t, 0, sizeof(t));
	t.h.type = TLOG_THREAD_NAME;
	t.h.aux = 1;
	t.tid = tid;
	t.len = (uint32_t)n;
	tracer_write_def(&t, sizeof(t), name, (size_t)n, NULL, 0);
}

static struct tbuf *my_buf(void)
{
	struct tbuf *b = tl_buf;

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->data = malloc(g_buf_cap);
	if (!b->data) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	b->cap = g_buf_cap;
	b->tid = tracer_tid();
	pthread_mutex_lock(&g_lock);
	b->next = g_bufs;
	g_bufs = b;
	pthread_mutex_unlock(&g_lock);
	pthread_setspecific(g_key, b);
	tl_buf = b;
	write_os_thread_name(b->tid);
	return b;
}

static void *reserve_raw(struct tbuf *b, size_t size)
{
	void *p;

	if (size > b->cap) {
		__atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (b->used + size > b->cap)
		chunk_out(b);
	p = b->data + b->used;
	b->used += (uint32_t)size;
	return p;
}

static void *reserve_in(struct tbuf *b, size_t size)
{
	void *p = reserve_raw(b, size);

	if (p)
		memset(p, 0, size);
	return p;
}

void *tracer_reserve(size_t size)
{
	struct tbuf *b;
	void *p;

	if (!g_enabled || tl_in_tracer)
		return NULL;
	busy_enter();
	b = my_buf();
	if (!b) {
		__atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
		busy_leave();
		return NULL;
	}
	pthread_mutex_lock(&b->lock);
	p = reserve_in(b, size);
	if (!p) {
		pthread_mutex_unlock(&b->lock);
		busy_leave();
	}
	return p;
}

void tracer_commit(void)
{
	pthread_mutex_unlock(&tl_buf->lock);
	busy_leave();
}

int tracer_thread_ready(void)
{
	struct tbuf *b;

	if (!g_enabled)
		return -1;
	busy_enter();
	b = my_buf();
	busy_leave();
	return b ? 0 : -1;
}

void *tracer_reserve_signal(size_t size)
{
	struct tbuf *b = tl_buf;
	void *p;

	if (!g_enabled || tl_in_tracer || tl_busy || !b)
		return NULL;
	/* Another thread (the periodic flush) may hold it: never wait. */
	if (pthread_mutex_trylock(&b->lock) != 0)
		return NULL;
	p = reserve_in(b, size);
	if (!p)
		pthread_mutex_unlock(&b->lock);
	return p;
}

void tracer_commit_signal(void)
{
	pthread_mutex_unlock(&tl_buf->lock);
}

void tracer_append(const void *rec, size_t size)
{
	void *p = tracer_reserve(size);

	if (!p)
		return;
	memcpy(p, rec, size);
	tracer_commit();
}

void tracer_gpu_lock(void)
{
	pthread_mutex_lock(&g_gpu.lock);
}

void tracer_gpu_unlock(void)
{
	pthread_mutex_unlock(&g_gpu.lock);
}

void *tracer_gpu_reserve(size_t size)
{
	if (!g_enabled || !g_gpu.data) {
		__atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/* not zeroed: every GPU record is built whole (records.c memsets it) */
	return reserve_raw(&g_gpu, size);
}

void tracer_write_now(const void *rec, size_t size)
{
	struct tlog_chunk_header ch;
	struct iovec iov[2];

	if (!g_enabled)
		return;
	ch.magic = TLOG_CHUNK_MAGIC;
	ch.size = (uint32_t)size;
	ch.tid = tracer_tid();
	ch.seq = __atomic_fetch_add(&g_seq, 1, __ATOMIC_RELAXED);
	iov[0].iov_base = &ch;
	iov[0].iov_len = sizeof(ch);
	iov[1].iov_base = (void *)rec;
	iov[1].iov_len = size;
	tl_in_tracer++;
	write_all(iov, 2);
	tl_in_tracer--;
}

void tracer_write_def(void *fixed, size_t fixed_size, const char *s1, size_t n1, const char *s2,
		      size_t n2)
{
	unsigned char stackbuf[1024];
	unsigned char *buf = stackbuf;
	size_t total;
	struct tlog_rec *h = fixed;

	if (!g_enabled)
		return;
	if (n1 > TRACER_MAX_STR)
		n1 = TRACER_MAX_STR;
	if (n2 > TRACER_MAX_STR)
		n2 = TRACER_MAX_STR;
	total = TLOG_ALIGN8(fixed_size + n1 + 1 + (s2 ? n2 + 1 : 0));
	if (total > sizeof(stackbuf)) {
		buf = malloc(total);
		if (!buf) {
			__atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	memset(buf, 0, total);
	h->size = (uint16_t)total;
	memcpy(buf, fixed, fixed_size);
	if (s1)
		memcpy(buf + fixed_size, s1, n1);
	if (s2)
		memcpy(buf + fixed_size + n1 + 1, s2, n2);
	tracer_write_now(buf, total);
	if (buf != stackbuf)
		free(buf);
}

void tracer_diag(int level, int code, const char *fmt, ...)
{
	struct tlog_diag d;
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	memset(&d, 0, sizeof(d));
	d.h.type = TLOG_DIAG;
	d.h.aux = (uint32_t)level;
	d.ts = tracer_now();
	d.code = (uint32_t)code;
	d.len = (uint32_t)n;
	tracer_write_def(&d, sizeof(d), msg, (size_t)n, NULL, 0);
}

static void write_dropped(void)
{
	uint64_t n = __atomic_exchange_n(&g_dropped, 0, __ATOMIC_RELAXED);
	struct tlog_dropped d;

	if (!n)
		return;
	memset(&d, 0, sizeof(d));
	d.h.type = TLOG_DROPPED;
	d.h.size = sizeof(d);
	d.h.aux = 1;
	d.ts = tracer_now();
	d.count = n;
	tracer_write_now(&d, sizeof(d));
}

void tracer_flush_all(void)
{
	struct tbuf *b;

	if (!g_enabled)
		return;
	sample_write_modules();
	busy_enter();
	pthread_mutex_lock(&g_lock);
	for (b = g_bufs; b; b = b->next) {
		pthread_mutex_lock(&b->lock);
		chunk_out(b);
		pthread_mutex_unlock(&b->lock);
	}
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_lock(&g_gpu.lock);
	chunk_out(&g_gpu);
	pthread_mutex_unlock(&g_gpu.lock);
	busy_leave();
	write_dropped();
	if (g_io_failed) {
		/* Cannot write the diag itself; nothing else to do. */
	}
}

/* Writes every buffer out periodically, so a process that ends without
 * running atexit handlers (_exit, as Python's multiprocessing children do, or
 * a crash) loses at most the last interval. */
static void *flusher(void *arg)
{
	uint64_t ms = (uint64_t)(uintptr_t)arg;
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	for (;;) {
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		ts.tv_sec = (time_t)(ms / 1000);
		ts.tv_nsec = (long)(ms % 1000) * 1000000L;
		{
			uint64_t t0 = cost_ticks();

			tracer_flush_all();
			cost_add(COST_FLUSH, t0);
		}
	}
	return NULL;
}

static void start_flusher(void)
{
	uint64_t ms = tracer_env_u64(TRACER_ENV_LOG_FLUSH_MS, 1000, 3600000);
	pthread_attr_t a;
	pthread_t t;

	if (!ms)
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, flusher, (void *)(uintptr_t)ms) != 0)
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "periodic log flush thread not started: records since the last "
			    "buffer flush are lost if the process ends without exit()");
	pthread_attr_destroy(&a);
}

/* The last handler to run (registered first): every buffer, CUPTI's
 * included (cupti.c flushes before), is out, then TLOG_END says so. */
static void at_exit(void)
{
	struct tlog_end e;
	struct tlog_cost c;
	uint64_t t0;

	sample_stop();
	t0 = cost_ticks();
	tracer_flush_all();
	cost_add(COST_FLUSH, t0);
	cost_fill(&c);
	c.ts = tracer_now();
	tracer_write_now(&c, sizeof(c));
	memset(&e, 0, sizeof(e));
	e.h.type = TLOG_END;
	e.h.size = sizeof(e);
	e.ts = tracer_now();
	tracer_write_now(&e, sizeof(e));
}

static void write_process(void)
{
	struct tlog_process p;
	char cmd[4096];
	size_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t r = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		if (r > 0) {
			n = (size_t)r;
			while (n && cmd[n - 1] == '\0')
				n--;
			for (size_t i = 0; i < n; i++)
				if (cmd[i] == '\0')
					cmd[i] = ' ';
		}
	}
	memset(&p, 0, sizeof(p));
	p.h.type = TLOG_PROCESS;
	p.ts = tracer_now();
	p.pid = (uint32_t)getpid();
	p.ppid = (uint32_t)getppid();
	p.len = (uint32_t)n;
	tracer_write_def(&p, sizeof(p), cmd, n, NULL, 0);
}

static const char *env_get(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

/* Reads the identity once; never fails (no rank, no host name is fine). */
static void read_rank(void)
{
	rank_ident_from_env(&g_rank, env_get, NULL);
	if (gethostname(g_host, sizeof(g_host) - 1) != 0)
		g_host[0] = '\0';
	g_host[sizeof(g_host) - 1] = '\0';
}

static void write_rank(void)
{
	struct tlog_rank r;
	size_t n = strlen(g_host);

	memset(&r, 0, sizeof(r));
	r.h.type = TLOG_RANK;
	r.rank = g_rank.rank;
	r.local_rank = g_rank.local_rank;
	r.world_size = g_rank.world_size;
	r.launcher = g_rank.launcher;
	r.source = g_rank.source;
	r.len = (uint32_t)n;
	tracer_write_def(&r, sizeof(r), g_host, n, NULL, 0);
}

static int open_log(uint32_t extra_flags)
{
	char path[4200];
	struct tlog_file_header h;
	struct timespec mono;
	struct iovec iov;
	int n;

	n = snprintf(path, sizeof(path), "%s/" TRACER_LOG_PREFIX "%d" TRACER_LOG_SUFFIX, g_dir,
		     (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (g_fd < 0)
		return -1;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.start_ns = tracer_now();
	clock_gettime(CLOCK_MONOTONIC, &mono);
	h.start_mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	h.flags = g_flags | extra_flags | TLOG_F_END_RECORD;
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	g_io_failed = 0;
	write_all(&iov, 1);
	return g_io_failed ? -1 : 0;
}

static void fork_prepare(void)
{
	sample_fork_prepare();
	pthread_mutex_lock(&g_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
	sample_fork_parent();
}

/* The child starts a file of its own; buffered parent records are the
 * parent's to write, so the child's copies are discarded. The forking
 * thread gets a new buffer at its first record, which writes its thread name
 * at once: a child log without one recorded nothing (it exec()ed), so a
 * missing TLOG_END there lost nothing. */
static void fork_child(void)
{
	struct tbuf *b;

	pthread_mutex_unlock(&g_lock);
	if (!g_enabled)
		return;
	tl_tid = 0;
	tl_busy = 0;
	for (b = g_bufs; b; b = b->next) {
		pthread_mutex_init(&b->lock, NULL);
		b->used = 0;
		b->dead = 1;
	}
	tl_buf = NULL;
	pthread_mutex_init(&g_gpu.lock, NULL);
	g_gpu.used = 0;
	if (g_fd >= 0)
		close(g_fd);
	g_fd = -1;
	if (open_log(TLOG_F_FORKED) < 0) {
		g_enabled = 0;
		return;
	}
	write_process();
	write_rank();
	start_flusher(); /* threads do not survive fork() */
	sample_fork_child();
	cost_fork_child();
}

static void init_once(void)
{
	const char *dir = getenv(TRACER_ENV_OUT);

	if (!dir || !*dir || strlen(dir) >= sizeof(g_dir))
		return;
	memcpy(g_dir, dir, strlen(dir) + 1);
	g_buf_cap = (uint32_t)tracer_env_u64(TRACER_ENV_BUFFER_KB, 512, 65536) << 10;
	if (g_buf_cap < (16u << 10))
		g_buf_cap = 16u << 10;
	if (pthread_key_create(&g_key, thread_exit) != 0)
		return;
	g_gpu.data = malloc(4u << 20);
	g_gpu.cap = g_gpu.data ? 4u << 20 : 0;
	if (open_log(0) < 0)
		return;
	g_enabled = 1;
	cost_start();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(at_exit);
	read_rank();
	write_process();
	write_rank();
	start_flusher();
	sample_setup();
}

int tracer_init(uint32_t flag)
{
	/* before the once-init, so the file header names the first entry point */
	__atomic_fetch_or(&g_flags, flag, __ATOMIC_RELAXED);
	pthread_once(&g_once, init_once);
	return g_enabled ? 0 : -1;
}
