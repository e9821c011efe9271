/* test-merge.c: the launcher path's merge against the single-trace path on
 * synthetic jobs (support/collsynth.h) with planted truths: each rank's
 * collectives.tsv written by the product's writer (rank_summary.h) in a
 * stated clock, read back by merge_run(), gives the same straggler, wait,
 * transfer and lateness as the same ranks analysed together
 * (coll_analyze(), what one multi-process trace gets) for 2, 8 and 256
 * ranks, and the same stragglers' causes (a planted host cause: its last
 * kernel launched late, its GPU idle; a planted GPU cause: that kernel
 * slower) with the same numbers; hosts whose clocks are off are aligned
 * to within 2 us; a rank that states no clock (a version 1 file) is
 * aligned on collective ends and counted as such, its stragglers' cause
 * unknown and said to be. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/collectives.h"
#include "analysis/collectives_cause.h"
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

/* The file as version 1 or 2 wrote it: that first line, kernel lines
 * without the gap columns (START END DEVICE STREAM NAME), no step lines. */
static void downgrade(struct strbuf *sb, const char *magic)
{
	struct strbuf o = STRBUF_INIT;
	char *line = strchr(sb->buf, '\n') + 1, *next;

	strbuf_addf(&o, "%s\n", magic);
	for (; *line; line = next + 1) {
		next = strchr(line, '\n');
		if (!strncmp(line, "kernel\t", 7)) {
			char *f = line;

			for (int i = 0; i < 5; i++) /* kernel START END DEVICE STREAM */
				f = strchr(f, '\t') + 1;
			strbuf_add(&o, line, (size_t)(f - line));
			for (int i = 0; i < 4; i++) /* LAUNCH PREV_END BUSY KERNELS */
				f = strchr(f, '\t') + 1;
			strbuf_add(&o, f, (size_t)(next - f + 1));
		} else if (strncmp(line, "step\t", 5)) {
			strbuf_add(&o, line, (size_t)(next - line + 1));
		}
	}
	strbuf_reset(sb);
	strbuf_add(sb, o.buf, o.len);
	strbuf_release(&o);
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
		assert_int_equal(rank_summary_format_kernels(in.kernels, NULL, in.nkernels,
							     in.windows, in.nwindows, NULL, 0,
							     host.buf, stated ? &c : NULL, &sb),
				 g->cfg.steps);
		if (v1)
			downgrade(&sb, RANK_SUMMARY_MAGIC_V1);
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

/* The single-trace view of g: every rank analysed together, and why its
 * stragglers are late (each rank's gaps from all its kernels). */
static void analyse_together(const struct collsynth *g, struct coll_result *r,
			     struct coll_causes *cs)
{
	struct strbuf err = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	size_t ka = 0, wa = 0, n = g->cfg.nranks;
	struct coll_cause_rank *cr = calloc(n, sizeof(*cr));
	struct coll_gap **gaps = calloc(n, sizeof(*gaps));
	struct coll_window **wins = calloc(n, sizeof(*wins));

	for (size_t i = 0; i < n; i++) {
		struct coll_rank_input in;

		collsynth_rank(g, i, &k, &ka, &w, &wa, &in);
		assert_int_equal(coll_builder_add_rank(b, &in, &err), 0);
		gaps[i] = calloc(in.nkernels + 1, sizeof(**gaps));
		coll_gaps_compute(in.kernels, in.nkernels, NULL, gaps[i]);
		wins[i] = calloc(in.nwindows + 1, sizeof(**wins));
		memcpy(wins[i], in.windows, in.nwindows * sizeof(**wins));
		cr[i] =
		    (struct coll_cause_rank){gaps[i], in.nkernels, wins[i], in.nwindows, NULL, 0};
	}
	assert_int_equal(coll_builder_finish(b, r, &err), 0);
	coll_causes_compute(r, cr, cs);
	for (size_t i = 0; i < n; i++) {
		free(gaps[i]);
		free(wins[i]);
	}
	free(gaps);
	free(wins);
	free(cr);
	coll_builder_free(b);
	free(k);
	free(w);
	strbuf_release(&err);
}

static void near(double a, double b, double rel)
{
	double d = a > b ? a - b : b - a, m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	if (d > rel * m + 1e-9) {
		print_error("%.3f vs %.3f (%.2f %%)\n", a, b, m ? 100 * d / m : 0);
		fail();
	}
}

/* The merge's causes (the reports' form) against the single-trace ones:
 * the same ranks, stages, counts, lateness, cause and deltas. */
static void same_causes(const struct merge_result *m, const struct coll_causes *cs,
			const char *cause)
{
	assert_int_equal(m->nstraggles, cs->n);
	assert_null(m->cause_why);
	for (size_t i = 0; i < cs->n; i++) {
		const struct report_coll_straggle *a = &m->straggles[i];
		const struct coll_straggle *b = &cs->v[i];

		assert_int_equal(a->rank_index, b->rank_index);
		assert_string_equal(a->stage, b->stage);
		assert_int_equal(a->count, b->count);
		assert_int_equal(a->instances, b->instances);
		assert_int_equal(a->explained, b->explained);
		near(a->late.p50_ns, (double)b->late.p50_ns, 0.01);
		near(a->late.p90_ns, (double)b->late.p90_ns, 0.01);
		near(a->late.max_ns, (double)b->late.max_ns, 0.01);
		near(a->busy_ns, b->busy_ns, 0.01);
		near(a->idle_ns, b->idle_ns, 0.01);
		assert_string_equal(a->cause, coll_cause_name(b->cause));
	}
	assert_true(cs->n > 0);
	assert_string_equal(m->straggles[0].cause, cause);
	for (size_t i = 0; i < m->nfindings; i++)
		if (!strcmp(m->findings[i].code, "collective-straggler")) {
			struct strbuf want = STRBUF_INIT;

			strbuf_addf(&want, "Cause: **%s**", cause);
			assert_non_null(strstr(m->findings[i].text, want.buf));
			strbuf_release(&want);
			return;
		}
	fail_msg("no straggler finding");
}

/* Same straggler, lateness, wait and transfer (within 1 %; in fact equal),
 * and the same cause: host_cause plants a host that launches late, else a
 * slower GPU. */
static void same_answer(size_t nranks, size_t nhosts, long straggler, int host_cause)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result one;
	struct coll_causes cs;
	struct merge_result m;
	struct strbuf err = STRBUF_INIT, run = STRBUF_INIT;

	collsynth_config_default(&c);
	c.nranks = nranks;
	c.nhosts = nhosts;
	c.steps = 20;
	c.straggler = straggler;
	c.straggler_ns = 200 * US;
	c.host_offset_ns = 5 * MS;
	c.straggler_host = host_cause;
	assert_int_equal(collsynth_init(&g, &c, &err), 0);
	strbuf_addf(&run, "%s/n%zu-h%zu-%d", tmpdir, nranks, nhosts, host_cause);
	write_run(run.buf, &g, 1, 0);
	analyse_together(&g, &one, &cs);
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
	same_causes(&m, &cs, host_cause ? "host" : "GPU");
	merge_result_release(&m);
	coll_causes_release(&cs);
	coll_result_release(&one);
	collsynth_release(&g);
	strbuf_release(&run);
	strbuf_release(&err);
}

static void test_same_answer_2(void **state)
{
	(void)state;
	same_answer(2, 1, 1, 0);
	same_answer(2, 1, 1, 1);
}

static void test_same_answer_8(void **state)
{
	(void)state;
	same_answer(8, 1, 5, 1);
	same_answer(8, 8, 3, 0); /* 8 hosts, each 5 ms further ahead */
	same_answer(8, 8, 3, 1);
}

static void test_same_answer_256(void **state)
{
	(void)state;
	same_answer(256, 32, 77, 0);
	same_answer(256, 32, 77, 1);
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
	/* no gaps in a version 1 file: the lateness, but no cause, and why */
	assert_non_null(m.cause_why);
	assert_non_null(strstr(m.cause_why, "ranks 0 (version 1), 1 (version 1)"));
	assert_true(m.nstraggles > 0);
	assert_string_equal(m.straggles[0].cause, "unknown");
	assert_int_equal(m.straggles[0].explained, 0);
	assert_true(m.straggles[0].late.p50_ns > 150 * US);
	for (size_t i = 0; i < m.nfindings; i++)
		if (!strcmp(m.findings[i].code, "collective-straggler")) {
			assert_non_null(strstr(m.findings[i].text, "Cause unknown: the "));
			assert_null(strstr(m.findings[i].text, "Cause: **"));
		}
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
