/* bench-collectives-scale.c: time and peak memory of the collectives
 * analysis (analysis/collectives.h) on a synthetic job (analysis/collsynth.h).
 *
 * usage: bench-collectives-scale RANKS [KERNELS_PER_RANK [RANKS_PER_HOST]]
 * Defaults: 100000 kernels per rank (10000 steps of 9 compute kernels and one
 * AllReduce, plus a "decode" window per step), 8 ranks per host, host h's
 * clock 5 ms * h ahead, rank RANKS/3 arriving 200 us late every step.
 * Ranks are generated and added one at a time into one reused buffer, as a
 * merge reading per-rank files would, so memory holds one rank's kernels and
 * every rank's collectives. Prints the analysis time (add + finish, without
 * generation; wall and CPU time), the total, and the peak RSS (getrusage ru_maxrss) of the
 * process; bench/collectives-scale.sh runs two sizes and prints the ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/collectives.h"
#include "support/collsynth.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/banned.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t arg(int argc, char **argv, int i, int64_t def, int64_t max)
{
	struct strbuf err = STRBUF_INIT;
	int64_t v = def;

	if (argc > i && parse_i64(argv[i], 1, max, &v, &err)) {
		fprintf(stderr, "bench-collectives-scale: %s\n", err.buf);
		exit(2);
	}
	strbuf_release(&err);
	return v;
}

int main(int argc, char **argv)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;
	struct strbuf err = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	size_t ka = 0, wa = 0, kernels = 0;
	uint64_t t0 = clock_mono_ns(), analyse = 0, analyse_cpu = 0, t, c0;
	struct rusage ru;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-collectives-scale RANKS [KERNELS_PER_RANK "
				"[RANKS_PER_HOST]]\n");
		return 2;
	}
	collsynth_config_default(&c);
	c.nranks = (size_t)arg(argc, argv, 1, 64, 1 << 20);
	c.compute_per_step = 9;
	c.steps = (size_t)arg(argc, argv, 2, 100000, INT64_MAX / 2) / 10;
	c.nhosts = (c.nranks + (size_t)arg(argc, argv, 3, 8, 1 << 20) - 1) /
		   (size_t)arg(argc, argv, 3, 8, 1 << 20);
	c.straggler = (long)(c.nranks / 3);
	c.straggler_ns = 200000;
	c.host_offset_ns = 5000000;
	if (collsynth_init(&g, &c, &err)) {
		fprintf(stderr, "bench-collectives-scale: %s\n", err.buf);
		return 1;
	}
	for (size_t i = 0; i < c.nranks; i++) {
		struct coll_rank_input in;

		collsynth_rank(&g, i, &k, &ka, &w, &wa, &in);
		kernels += in.nkernels;
		t = clock_mono_ns();
		c0 = cpu_ns();
		if (coll_builder_add_rank(b, &in, &err)) {
			fprintf(stderr, "bench-collectives-scale: %s\n", err.buf);
			return 1;
		}
		analyse += clock_mono_ns() - t;
		analyse_cpu += cpu_ns() - c0;
	}
	free(k);
	free(w);
	t = clock_mono_ns();
	c0 = cpu_ns();
	if (coll_builder_finish(b, &r, &err)) {
		fprintf(stderr, "bench-collectives-scale: %s\n", err.buf);
		return 1;
	}
	analyse += clock_mono_ns() - t;
	analyse_cpu += cpu_ns() - c0;
	getrusage(RUSAGE_SELF, &ru);
	printf("ranks %zu hosts %zu kernels %zu (%zu per rank) instances %zu\n", c.nranks, c.nhosts,
	       kernels, kernels / c.nranks, r.ninstances);
	printf("straggler rank %d (planted %ld) mean lateness %.1f us; residual median %.3f us "
	       "max %.3f us over %zu samples; mismatches %zu\n",
	       r.nstragglers ? r.stragglers[0].rank : -1, c.straggler,
	       r.nstragglers ? r.stragglers[0].mean_late_ns / 1e3 : 0.0,
	       (double)r.residual_median_ns / 1e3, (double)r.residual_max_ns / 1e3,
	       r.residual_samples, r.nmismatches);
	printf("analysis_s %.3f total_s %.3f maxrss_mb %.1f analysis_cpu_s %.3f\n",
	       (double)analyse / 1e9, (double)(clock_mono_ns() - t0) / 1e9,
	       (double)ru.ru_maxrss / 1024.0, (double)analyse_cpu / 1e9);
	coll_result_release(&r);
	coll_builder_free(b);
	collsynth_release(&g);
	strbuf_release(&err);
	return 0;
}
