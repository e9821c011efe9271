/* slow-phdr-shim: an LD_PRELOAD library that makes every dl_iterate_phdr
 * of a thread other than the main one hold glibc's loader list lock for
 * LLMPROF_TEST_PHDR_HOLD_US microseconds (it sleeps in the first callback),
 * so a test can fork() while another thread walks the list, as a slow log
 * write would make it do (tests/cli/test-tracer-cpu-sample.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

struct hold {
	int (*cb)(struct dl_phdr_info *, size_t, void *);
	void *arg;
	long us;
};

static int held_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hold *h = arg;

	if (h->us > 0) {
		struct timespec ts = {h->us / 1000000, (h->us % 1000000) * 1000};

		h->us = 0;
		while (nanosleep(&ts, &ts) != 0)
			;
	}
	return h->cb(info, size, h->arg);
}

static iterate_fn real;
static long hold_us;

/* resolved at load, never in a signal handler (libunwind walks the list
 * from the CPU sampler's) */
__attribute__((constructor)) static void shim_init(void)
{
	const char *v = getenv("LLMPROF_TEST_PHDR_HOLD_US");

	real = (iterate_fn)(uintptr_t)dlsym(RTLD_NEXT, "dl_iterate_phdr");
	hold_us = v ? atol(v) : 0;
}

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *arg)
{
	struct hold h = {cb, arg, 0};

	if (!real)
		return 0;
	if (syscall(SYS_gettid) != getpid())
		h.us = hold_us;
	return real(held_cb, &h);
}
