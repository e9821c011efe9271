/* cost.h: what tracing costs the process (cost.c, struct tlog_cost). A
 * hook reads cost_ticks() when it starts and calls cost_add() when it ends:
 * a cycle counter where there is one (rdtsc, cntvct_el0: a few ns, no
 * system call), converted to ns once at exit against CLOCK_MONOTONIC. The
 * sums are relaxed atomics: one uncontended add per hook on a launch
 * thread. cost_start() runs at tracer start, cost_fork_child() forgets the
 * parent's sums, cost_fill() makes the record, all but its ts (at exit,
 * before TLOG_END). */
#ifndef LLMPROF_TRACER_COST_H
#define LLMPROF_TRACER_COST_H

#include <stdint.h>
#include <time.h>

#define TLOG_WRITER_ONLY
#include "trace/tracelog.h"

#define COST_HIDDEN __attribute__((visibility("hidden")))

enum cost_slot { COST_API, COST_RESOURCE, COST_NVTX, COST_BUFFER, COST_FLUSH, COST_NR };

static inline uint64_t cost_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Adds the ticks since t0 (a cost_ticks() value) and one call to slot s. */
COST_HIDDEN void cost_add(enum cost_slot s, uint64_t t0);
COST_HIDDEN void cost_start(void);
COST_HIDDEN void cost_fork_child(void);
COST_HIDDEN void cost_fill(struct tlog_cost *c);

#endif
