/* collsynth.c: the synthetic multi-rank job of collsynth.h. Everything a
 * rank writes follows from (seed, rank, step) and three per-step arrays, so
 * ranks are generated one at a time in any order and the benchmark never
 * holds more than one rank's kernels. */
#include <stdlib.h>
#include <string.h>

#include "support/collsynth.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const char *const compute_names[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
    "flash_fwd_kernel",
};
static const char nccl_name[] =
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

void collsynth_config_default(struct collsynth_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nranks = 2;
	c->nhosts = 1;
	c->steps = 10;
	c->compute_per_step = 4;
	c->compute_ns = 20000;
	c->gap_ns = 2000;
	c->transfer_ns = 30000;
	c->jitter_ns = 5000;
	c->end_jitter_ns = 1000;
	c->straggler = -1;
	c->drop_rank = -1;
	c->seed = 1;
}

/* splitmix64: a good spread from consecutive inputs. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int64_t draw(const struct collsynth *g, size_t rank, size_t step, uint64_t salt,
		    int64_t range)
{
	uint64_t h = mix(g->cfg.seed ^ mix(((uint64_t)rank << 32) ^ step ^ (salt << 60)));

	return range > 0 ? (int64_t)(h % (uint64_t)range) : 0;
}

static int64_t arrival_from(const struct collsynth *g, int64_t start, size_t rank, size_t step)
{
	const struct collsynth_config *c = &g->cfg;
	int64_t t = start + (int64_t)c->compute_per_step * (c->compute_ns + c->gap_ns);

	t += draw(g, rank, step, 1, c->jitter_ns);
	if (c->straggler >= 0 && (size_t)c->straggler == rank)
		t += c->straggler_ns;
	return t;
}

int collsynth_init(struct collsynth *g, const struct collsynth_config *c, struct strbuf *err)
{
	int64_t t = 1000000; /* 1 ms: a session never starts at 0 */

	memset(g, 0, sizeof(*g));
	if (!c->nranks || !c->nhosts || c->nhosts > c->nranks || !c->steps)
		return error_set(err, "collsynth: need ranks >= hosts >= 1 and steps >= 1");
	if (c->compute_ns <= 0 || c->gap_ns < 0 || c->transfer_ns <= 0 || c->jitter_ns < 0 ||
	    c->end_jitter_ns < 0 || c->straggler_ns < 0 || c->overlap_ns < 0)
		return error_set(err, "collsynth: durations must be positive");
	g->cfg = *c;
	g->per_host = (c->nranks + c->nhosts - 1) / c->nhosts;
	g->step_start = xcalloc(c->steps, sizeof(*g->step_start));
	g->step_last = xcalloc(c->steps, sizeof(*g->step_last));
	g->step_end = xcalloc(c->steps, sizeof(*g->step_end));
	for (size_t s = 0; s < c->steps; s++) {
		int64_t last = 0, end = 0;

		g->step_start[s] = t;
		for (size_t r = 0; r < c->nranks; r++) {
			int64_t a = arrival_from(g, t, r, s);

			if (a > last)
				last = a;
		}
		g->step_last[s] = last;
		for (size_t r = 0; r < c->nranks; r++) {
			int64_t e = last + c->transfer_ns + draw(g, r, s, 2, c->end_jitter_ns);

			if (e > end)
				end = e;
		}
		g->step_end[s] = end;
		t = end + c->gap_ns;
	}
	return 0;
}

void collsynth_release(struct collsynth *g)
{
	free(g->step_start);
	free(g->step_last);
	free(g->step_end);
	memset(g, 0, sizeof(*g));
}

int collsynth_host(const struct collsynth *g, size_t rank)
{
	return (int)(rank / g->per_host);
}

int64_t collsynth_arrival(const struct collsynth *g, size_t rank, size_t step)
{
	return arrival_from(g, g->step_start[step], rank, step);
}

int64_t collsynth_end(const struct collsynth *g, size_t rank, size_t step)
{
	return g->step_last[step] + g->cfg.transfer_ns +
	       draw(g, rank, step, 2, g->cfg.end_jitter_ns);
}

int64_t collsynth_wait(const struct collsynth *g, size_t rank, size_t step)
{
	return g->step_last[step] - collsynth_arrival(g, rank, step);
}

int64_t collsynth_transfer(const struct collsynth *g, size_t rank, size_t step)
{
	return collsynth_end(g, rank, step) - g->step_last[step];
}

int64_t collsynth_exposed(const struct collsynth *g, size_t rank, size_t step)
{
	int64_t d = collsynth_end(g, rank, step) - collsynth_arrival(g, rank, step);

	return d > g->cfg.overlap_ns ? d - g->cfg.overlap_ns : 0;
}

size_t collsynth_kernels_per_rank(const struct collsynth *g)
{
	return g->cfg.steps * (g->cfg.compute_per_step + 1 + (g->cfg.overlap_ns > 0));
}

void collsynth_rank(const struct collsynth *g, size_t rank, struct coll_kernel **kernels,
		    size_t *kalloc, struct coll_window **windows, size_t *walloc,
		    struct coll_rank_input *in)
{
	const struct collsynth_config *c = &g->cfg;
	int64_t off = (int64_t)collsynth_host(g, rank) * c->host_offset_ns;
	int32_t dev = (int32_t)(rank % g->per_host), nccl_stream = 20 + (int32_t)(rank % 3);
	size_t n = 0;

	ALLOC_GROW(*kernels, collsynth_kernels_per_rank(g), *kalloc);
	ALLOC_GROW(*windows, c->steps, *walloc);
	for (size_t s = 0; s < c->steps; s++) {
		int64_t t = g->step_start[s], a = collsynth_arrival(g, rank, s);

		for (size_t k = 0; k < c->compute_per_step; k++) {
			/* the last compute kernel runs until gap_ns before the
			 * arrival: jitter and straggling are slower compute, or
			 * with straggler_host a later start */
			int last = k + 1 == c->compute_per_step;
			int64_t end = last ? a - c->gap_ns : t + c->compute_ns;
			int64_t start = t + (last && c->straggler_host && c->straggler >= 0 &&
						     (size_t)c->straggler == rank
						 ? c->straggler_ns
						 : 0);

			(*kernels)[n++] = (struct coll_kernel){compute_names[k % 3], start + off,
							       end + off, dev, 7};
			t += c->compute_ns + c->gap_ns;
		}
		if (c->drop_rank < 0 || (size_t)c->drop_rank != rank || c->drop_step != s)
			(*kernels)[n++] = (struct coll_kernel){
			    nccl_name, a + off, collsynth_end(g, rank, s) + off, dev, nccl_stream};
		if (c->overlap_ns > 0)
			(*kernels)[n++] = (struct coll_kernel){compute_names[0], a + off,
							       a + c->overlap_ns + off, dev, 8};
		(*windows)[s] =
		    (struct coll_window){"decode", g->step_start[s] + off, g->step_end[s] + off};
	}
	memset(in, 0, sizeof(*in));
	in->rank = (int)rank;
	in->host = collsynth_host(g, rank);
	in->clock = in->host; /* each host's clock is off by its own offset */
	in->kernels = *kernels;
	in->nkernels = n;
	in->windows = *windows;
	in->nwindows = c->steps;
}
