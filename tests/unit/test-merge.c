/* test-merge.c: the launcher path's merge against the single-trace path on
 * synthetic jobs (support/collsynth.h) with planted truths: each rank's
 * collectives.tsv written by the product's writer (rank_summary.h) in a
 * stated clock, read back by merge_run(), gives the same straggler, wait,
 * transfer and lateness as the same ranks analysed together
 * (coll_analyze(), what one multi-process trace gets) for 2, 8 and 256
 * ranks; hosts whose clocks are off are aligned to within 2 us; a rank
 * that states no clock (a version 1 file) is aligned on collective ends
 * and counted as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/collectives.h"
#include "analysis/merge.h"
#include "analysis/rank_summary.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "support/collsynth.h"

#define US 1000LL
#define MS 1000000LL

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/llmprof-test-merge.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *dir, const char *name, const char *text, size_t len)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addf(&p, "%s/%s", dir, name);
	assert_int_equal(write_file_atomic(p.buf, text, len, &err), 0);
	strbuf_release(&p);
	strbuf_release(&err);
}

/* Writes RUN/ranks/<r>/ for every rank of g: the clock each rank states is
 * its host's (clock_of < 0: every rank states none, version 1 style). */
static void write_run(const char *run, const struct collsynth *g, int stated, int v1)
{
	struct strbuf dir = STRBUF_INIT, sb = STRBUF_INIT, host = STRBUF_INIT, err = STRBUF_INIT;
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	size_t ka = 0, wa = 0;

	for (size_t r = 0; r < g->cfg.nranks; r++) {
		struct coll_rank_input in;
		struct rank_clock c = {"realtime", NULL, "boot-0", 0};

		collsynth_rank(g, r, &k, &ka, &w, &wa, &in);
		strbuf_reset(&host);
		strbuf_addf(&host, "node%d", collsynth_host(g, r));
		c.host = host.buf;
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/ranks/%zu", run, r);
		assert_int_equal(mkdir_p(dir.buf, &err), 0);
		strbuf_reset(&sb);
		assert_int_equal(rank_summary_format_kernels(in.kernels, in.nkernels, in.windows,
							     in.nwindows, host.buf,
							     stated ? &c : NULL, &sb),
				 g->cfg.steps);
		if (v1) /* the version before clocks: its first line */
			memcpy(sb.buf, RANK_SUMMARY_MAGIC_V1, strlen(RANK_SUMMARY_MAGIC_V1));
		put(dir.buf, "collectives.tsv", sb.buf, sb.len);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "{\"rank\": %zu, \"world_size\": %zu, \"host\": \"%s\"}", r,
			    g->cfg.nranks, host.buf);
		put(dir.buf, "rank.json", sb.buf, sb.len);
		put(dir.buf, "status.json", "{\"state\": \"ok\"}", 15);
		put(dir.buf, "metrics.json", "{\"stages\": []}", 14);
	}
	free(k);
	free(w);
	strbuf_release(&dir);
	strbuf_release(&sb);
	strbuf_release(&host);
	strbuf_release(&err);
}

/* The single-trace view of g: every rank analysed together. */
static void analyse_together(const struct collsynth *g, struct coll_result *r)
{
	struct strbuf err = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	size_t ka = 0, wa = 0;

	for (size_t i = 0; i < g->cfg.nranks; i++) {
		struct coll_rank_input in;

		collsynth_rank(g, i, &k, &ka, &w, &wa, &in);
		assert_int_equal(coll_builder_add_rank(b, &in, &err), 0);
	}
	assert_int_equal(coll_builder_finish(b, r, &err), 0);
	coll_builder_free(b);
	free(k);
	free(w);
	strbuf_release(&err);
}

static void near(double a, double b, double rel)
{
	double d = a > b ? a - b : b - a, m = a > b ? a : b;

	if (d > rel * m + 1e-9) {
		print_error("%.3f vs %.3f (%.2f %%)\n", a, b, m ? 100 * d / m : 0);
		fail();
	}
}

/* Same straggler, lateness, wait and transfer (within 1 %; in fact equal). */
static void same_answer(size_t nranks, size_t nhosts, long straggler)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result one;
	struct merge_result m;
	struct strbuf err = STRBUF_INIT, run = STRBUF_INIT;

	collsynth_config_default(&c);
	c.nranks = nranks;
	c.nhosts = nhosts;
	c.steps = 20;
	c.straggler = straggler;
	c.straggler_ns = 200 * US;
	c.host_offset_ns = 5 * MS;
	assert_int_equal(collsynth_init(&g, &c, &err), 0);
	strbuf_addf(&run, "%s/n%zu-h%zu", tmpdir, nranks, nhosts);
	write_run(run.buf, &g, 1, 0);
	analyse_together(&g, &one);
	assert_int_equal(merge_run(run.buf, &m, &err), 0);
	assert_true(m.have_coll);
	assert_int_equal(m.nunstated, 0);
	assert_int_equal(m.coll.nranks, nranks);
	assert_int_equal(m.coll.ninstances, one.ninstances);
	assert_int_equal(m.coll.nclocks, nhosts);
	assert_true(one.nstragglers > 0 && m.coll.nstragglers > 0);
	assert_int_equal(m.coll.stragglers[0].rank, straggler);
	assert_int_equal(one.stragglers[0].rank, straggler);
	assert_int_equal(m.slowest_rank, straggler);
	near(m.coll.stragglers[0].mean_late_ns, one.stragglers[0].mean_late_ns, 0.01);
	near(m.coll.stragglers[0].share, one.stragglers[0].share, 0.01);
	for (size_t i = 0; i < nranks; i++) {
		near((double)m.coll.ranks[i].wait_ns, (double)one.ranks[i].wait_ns, 0.01);
		near((double)m.coll.ranks[i].transfer_ns, (double)one.ranks[i].transfer_ns, 0.01);
		assert_int_equal(m.coll.ranks[i].clock_offset_ns, one.ranks[i].clock_offset_ns);
	}
	for (size_t h = 0; h < nhosts; h++) { /* the planted offsets, within 2 us */
		int64_t d = m.coll.clocks[h].offset_ns - (int64_t)h * c.host_offset_ns;

		assert_true(d >= -2 * US && d <= 2 * US);
	}
	assert_int_equal(m.coll.residual_samples, nranks * c.steps);
	assert_true(m.coll.residual_median_ns <= 2 * US);
	merge_result_release(&m);
	coll_result_release(&one);
	collsynth_release(&g);
	strbuf_release(&run);
	strbuf_release(&err);
}

static void test_same_answer_2(void **state)
{
	(void)state;
	same_answer(2, 1, 1);
}

static void test_same_answer_8(void **state)
{
	(void)state;
	same_answer(8, 1, 5);
	same_answer(8, 8, 3); /* 8 hosts, each 5 ms further ahead */
}

static void test_same_answer_256(void **state)
{
	(void)state;
	same_answer(256, 32, 77);
}

/* Version 1 files (times from each process's own origin, here each rank
 * 5 ms x host off, no clock stated): every rank a clock domain of its own,
 * aligned on collective ends, the straggler still found, the ranks counted
 * as stating none. */
static void test_unstated_clocks(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct merge_result m;
	struct strbuf err = STRBUF_INIT, run = STRBUF_INIT;

	(void)state;
	collsynth_config_default(&c);
	c.nranks = 4;
	c.nhosts = 4;
	c.straggler = 2;
	c.straggler_ns = 200 * US;
	c.host_offset_ns = 189 * MS;
	assert_int_equal(collsynth_init(&g, &c, &err), 0);
	strbuf_addf(&run, "%s/v1", tmpdir);
	write_run(run.buf, &g, 0, 1);
	assert_int_equal(merge_run(run.buf, &m, &err), 0);
	assert_int_equal(m.nunstated, 4);
	assert_int_equal(m.coll.nclocks, 4);
	for (size_t i = 0; i < 4; i++)
		assert_null(m.ranks[i].clock);
	assert_int_equal(m.coll.stragglers[0].rank, 2);
	near(m.coll.stragglers[0].mean_late_ns, 200 * US, 0.05);
	for (size_t h = 0; h < 4; h++) {
		int64_t d = m.coll.clocks[h].offset_ns - (int64_t)h * c.host_offset_ns;

		assert_true(d >= -2 * US && d <= 2 * US);
	}
	assert_true(m.coll.residual_samples > 0);
	merge_result_release(&m);
	collsynth_release(&g);
	strbuf_release(&run);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_answer_2),
	    cmocka_unit_test(test_same_answer_8),
	    cmocka_unit_test(test_same_answer_256),
	    cmocka_unit_test(test_unstated_clocks),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
