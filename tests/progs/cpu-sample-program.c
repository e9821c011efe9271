/* cpu-sample-program: a thread that opens an NVTX range ("prefill") and burns
 * about 300 ms of CPU time in one known function, for the tracer's CPU
 * sampler (tests/cli/test-tracer-cpu-sample.sh). With "own-handler" it
 * first installs its own handler on the sampler's signal (SIGRTMIN+7) and
 * checks at the end that it is still installed and was never called. With
 * "storm" the thread pushes and pops NVTX ranges for ~100 ms of CPU time
 * instead, so samples land inside the tracer's own code, and says how many.
 * With "fork" the main thread spins ~100 ms in "prefill", forks, and the
 * child spins ~200 ms in a "prefill" of its own before it exits. With
 * "libc" the thread spends ~200 ms of CPU time in libc's memset, called
 * from cpu_sample_memset(), so the samples' innermost frame is libc's.
 * With "fork-phdr" the main thread spins ~50 ms in "prefill", then forks 5
 * children, one every 3 ms, each walking the loaded objects
 * (dl_iterate_phdr) under a 3 s alarm, and says how many hung. With
 * "sigwait" the thread blocks every signal before its range and spins
 * ~100 ms, then asks sigtimedwait() for any pending signal, as a program
 * that takes its signals synchronously does. With "threads" 1100 threads
 * one after the other push and pop a range, then one spins ~100 ms in
 * "prefill".
 * Exits with status 7 so the test can see the status passes through. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

/* Not static: the program links with -rdynamic so that the tracer resolves
 * samples in them by their exported names. */
void cpu_sample_spin(double seconds);
void cpu_sample_memset(double seconds);

static volatile unsigned long sink;
static volatile sig_atomic_t own_calls;

static void own_handler(int sig)
{
	(void)sig;
	own_calls++;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The function the samples must land in. The clock is read every 100,000
 * steps (~0.1 ms): reading a thread's CPU clock is a system call (no vDSO
 * fast path), and on a loaded machine the kernel delivers the sampler's
 * signal at that call's return far more often than its share of the time
 * (read every 10,000 steps, 10-20% of the samples landed in the clock). */
__attribute__((noinline)) void cpu_sample_spin(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long x = 1;

	while (cpu_seconds() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static volatile size_t memset_len = 1u << 20;

/* The function whose libc calls the samples must be attributed to. */
__attribute__((noinline)) void cpu_sample_memset(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned char *buf = malloc(memset_len);

	if (!buf)
		return;
	for (unsigned i = 0; cpu_seconds() < end; i++)
		for (int k = 0; k < 16; k++)
			memset(buf, (int)(i + (unsigned)k), memset_len);
	sink = buf[memset_len - 1];
	free(buf);
}

static void *launcher_libc(void *arg)
{
	(void)arg;
	nvtxRangePushA("prefill");
	cpu_sample_memset(0.2);
	nvtxRangePop();
	return NULL;
}

static unsigned long storm_ranges;

static void *storm(void *arg)
{
	double end = cpu_seconds() + 0.1;

	(void)arg;
	while (cpu_seconds() < end) {
		for (int i = 0; i < 100; i++) {
			nvtxRangePushA("step");
			nvtxRangePop();
		}
		storm_ranges += 100;
	}
	return NULL;
}

static int count_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	++*(int *)arg;
	return 0;
}

static int fork_phdr(void)
{
	int hung = 0;

	nvtxRangePushA("prefill");
	cpu_sample_spin(0.05);
	nvtxRangePop();
	for (int i = 0; i < 5; i++) {
		struct timespec ts = {0, 3000000};
		pid_t child;
		int st = 0;

		nanosleep(&ts, NULL);
		child = fork();
		if (child == 0) {
			int n = 0;

			alarm(3);
			dl_iterate_phdr(count_object, &n);
			_exit(n > 0 ? 0 : 1);
		}
		if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st))
			hung++;
	}
	printf("cpu-sample-program: %d of 5 children hung\n", hung);
	return 7;
}

static void *sigwaiter(void *arg)
{
	struct timespec zero = {0, 0};
	sigset_t all;
	siginfo_t si;
	int sig;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	nvtxRangePushA("prefill");
	cpu_sample_spin(0.1);
	nvtxRangePop();
	sig = sigtimedwait(&all, &si, &zero);
	if (sig < 0)
		printf("cpu-sample-program: no signal pending\n");
	else
		printf("cpu-sample-program: got signal %d\n", sig);
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	nvtxRangePushA("t");
	nvtxRangePop();
	return NULL;
}

static void *launcher(void *arg)
{
	(void)arg;
	nvtxRangePushA("prefill");
	cpu_sample_spin(0.3);
	nvtxRangePop();
	return NULL;
}

int main(int argc, char **argv)
{
	int own = argc > 1 && strcmp(argv[1], "own-handler") == 0;
	pthread_t th;

	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t child;
		int st = 0;

		nvtxRangePushA("prefill");
		cpu_sample_spin(0.1);
		nvtxRangePop();
		child = fork();
		if (child == 0) {
			nvtxRangePushA("prefill");
			cpu_sample_spin(0.2);
			nvtxRangePop();
			exit(0);
		}
		waitpid(child, &st, 0);
		printf("cpu-sample-program: child exited %d\n",
		       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 7;
	}
	if (argc > 1 && strcmp(argv[1], "fork-phdr") == 0)
		return fork_phdr();
	if (argc > 1 && strcmp(argv[1], "sigwait") == 0) {
		pthread_create(&th, NULL, sigwaiter, NULL);
		pthread_join(th, NULL);
		return 7;
	}
	if (argc > 1 && strcmp(argv[1], "threads") == 0) {
		for (int i = 0; i < 1100; i++) {
			if (pthread_create(&th, NULL, short_lived, NULL) != 0)
				return 1;
			pthread_join(th, NULL);
		}
		pthread_create(&th, NULL, launcher, NULL);
		pthread_join(th, NULL);
		printf("cpu-sample-program: done\n");
		return 7;
	}
	if (argc > 1 && strcmp(argv[1], "storm") == 0) {
		pthread_create(&th, NULL, storm, NULL);
		pthread_join(th, NULL);
		printf("cpu-sample-program: %lu ranges\n", storm_ranges);
		return 7;
	}
	if (argc > 1 && strcmp(argv[1], "libc") == 0) {
		pthread_create(&th, NULL, launcher_libc, NULL);
		pthread_join(th, NULL);
		printf("cpu-sample-program: done\n");
		return 7;
	}
	if (own) {
		struct sigaction sa, now;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = own_handler;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGRTMIN + 7, &sa, NULL);
		nvtxMarkA("start");
		pthread_create(&th, NULL, launcher, NULL);
		pthread_join(th, NULL);
		sigaction(SIGRTMIN + 7, NULL, &now);
		printf("cpu-sample-program: handler %s, called %d times\n",
		       now.sa_handler == own_handler ? "intact" : "replaced", (int)own_calls);
		return 7;
	}
	pthread_create(&th, NULL, launcher, NULL);
	pthread_join(th, NULL);
	printf("cpu-sample-program: done\n");
	return 7;
}
