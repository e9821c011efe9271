/* segv_report.c: an LD_PRELOAD probe for GPU machines without gdb. On
 * SIGSEGV/SIGBUS/SIGABRT it prints the faulting address, the instruction
 * pointer and a backtrace, each frame as module+offset (and symbol when the
 * module exports one), so the offsets can be resolved with addr2line where
 * the binaries were built. Not part of llmprof.
 * Build: cc -shared -fPIC -O1 -g -o segv_report.so segv_report.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void frame(int fd, int i, void *pc)
{
	Dl_info di;
	char line[512];
	int n;

	memset(&di, 0, sizeof(di));
	if (dladdr(pc, &di) && di.dli_fname)
		n = snprintf(line, sizeof(line), "segv_report: #%d %p %s+0x%lx %s+0x%lx\n", i, pc,
			     di.dli_fname, (unsigned long)((char *)pc - (char *)di.dli_fbase),
			     di.dli_sname ? di.dli_sname : "?",
			     di.dli_saddr ? (unsigned long)((char *)pc - (char *)di.dli_saddr)
					  : 0ul);
	else
		n = snprintf(line, sizeof(line), "segv_report: #%d %p ?\n", i, pc);
	if (n > 0)
		(void)!write(fd, line, (size_t)n);
}

static void handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	void *pcs[64];
	char line[256];
	int n, i;

	n = snprintf(line, sizeof(line), "segv_report: signal %d addr %p tid %ld\n", sig,
		     si->si_addr, (long)gettid());
	(void)!write(2, line, (size_t)n);
	frame(2, -1, (void *)uc->uc_mcontext.gregs[REG_RIP]);
	n = backtrace(pcs, 64);
	for (i = 0; i < n; i++)
		frame(2, i, pcs[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((constructor)) static void install(void)
{
	struct sigaction sa;
	void *warm[2];

	backtrace(warm, 2); /* loads libgcc_s now, not inside the handler */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}
