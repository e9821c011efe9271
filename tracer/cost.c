/* cost.c: what tracing costs the process, timed by the tracer itself
 * (cost.h, struct tlog_cost; docs/tracer.md "What tracing costs"). The
 * hooks add cycle-counter ticks; at exit the ticks become ns by the rate
 * the counter ran at since the tracer started (CLOCK_MONOTONIC over the
 * same span), so no per-hook clock call is made. It uses nothing of the
 * log writer: log.c asks for the record and writes it. */
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cost.h"

static struct {
	uint64_t ticks, n;
} tracer_cost[COST_NR];
static uint64_t g_ticks0, g_mono0;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cost_add(enum cost_slot s, uint64_t t0)
{
	uint64_t d = cost_ticks() - t0;

	__atomic_fetch_add(&tracer_cost[s].ticks, d, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tracer_cost[s].n, 1, __ATOMIC_RELAXED);
}

void cost_start(void)
{
	g_mono0 = mono_ns();
	g_ticks0 = cost_ticks();
}

void cost_fork_child(void)
{
	memset(tracer_cost, 0, sizeof(tracer_cost));
	cost_start();
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

void cost_fill(struct tlog_cost *c)
{
	uint64_t mono = mono_ns(), ticks = cost_ticks();
	double ns_per_tick = 0;
	struct rusage ru;

	if (ticks > g_ticks0 && mono > g_mono0)
		ns_per_tick = (double)(mono - g_mono0) / (double)(ticks - g_ticks0);
	memset(c, 0, sizeof(*c));
	c->h.type = TLOG_COST;
	c->h.size = sizeof(*c);
	c->wall_ns = mono - g_mono0;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		c->cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
#define COST_NS(s)                                                                                 \
	(uint64_t)((double)__atomic_load_n(&tracer_cost[s].ticks, __ATOMIC_RELAXED) * ns_per_tick)
#define COST_N(s) __atomic_load_n(&tracer_cost[s].n, __ATOMIC_RELAXED)
	c->api_ns = COST_NS(COST_API);
	c->api_n = COST_N(COST_API);
	c->resource_ns = COST_NS(COST_RESOURCE);
	c->resource_n = COST_N(COST_RESOURCE);
	c->nvtx_ns = COST_NS(COST_NVTX);
	c->nvtx_n = COST_N(COST_NVTX);
	c->buffer_ns = COST_NS(COST_BUFFER);
	c->buffer_n = COST_N(COST_BUFFER);
	c->flush_ns = COST_NS(COST_FLUSH);
	c->flush_n = COST_N(COST_FLUSH);
#undef COST_NS
#undef COST_N
}
