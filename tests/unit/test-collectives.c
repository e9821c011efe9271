/* test-collectives.c: NCCL collectives across ranks on synthetic jobs with
 * planted truths (analysis/collsynth.h): the straggler and its lateness,
 * host clock offsets recovered from collective ends, wait and transfer
 * sums, count mismatches, exposed communication, findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/collectives.h"
#include "analysis/collectives_priv.h"
#include "support/collsynth.h"
#include "model/model.h"

#define US 1000LL
#define MS 1000000LL

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* coll_median's selection against a sort, on sizes 1..40 with many ties. */
static void test_median(void **state)
{
	int64_t v[40], s[40];
	uint64_t x = 42;

	(void)state;
	assert_int_equal(coll_median(v, 0), 0);
	for (size_t n = 1; n <= 40; n++)
		for (int round = 0; round < 50; round++) {
			int64_t want;

			for (size_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				v[i] = s[i] = (int64_t)(x >> 33) % (round % 2 ? 5 : 1000) - 300;
			}
			qsort(s, n, sizeof(*s), cmp_i64);
			want = n % 2 ? s[n / 2] : s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2;
			assert_int_equal(coll_median(v, n), want);
		}
}

static void test_names(void **state)
{
	struct coll_name n;

	(void)state;
	assert_int_equal(coll_parse_name("ncclDevKernel_AllReduce_Sum_bf16_RING_LL("
					 "ncclDevKernelArgsStorage<4096ul>)",
					 &n),
			 1);
	assert_int_equal(n.type, COLL_ALLREDUCE);
	assert_string_equal(n.op, "Sum");
	assert_string_equal(n.dtype, "bf16");
	assert_string_equal(n.algo, "RING");
	assert_string_equal(n.proto, "LL");
	assert_int_equal(
	    coll_parse_name("void ncclKernel_AllReduce_RING_LL128_Sum_float(ncclWorkElem)", &n), 1);
	assert_int_equal(n.type, COLL_ALLREDUCE);
	assert_string_equal(n.op, "Sum");
	assert_string_equal(n.dtype, "float");
	assert_string_equal(n.proto, "LL128");
	assert_int_equal(coll_parse_name("ncclKernel_AllReduce_TREE_SIMPLE_Sum___nv_bfloat16", &n),
			 1);
	assert_string_equal(n.dtype, "__nv_bfloat16");
	assert_string_equal(n.algo, "TREE");
	assert_string_equal(n.proto, "SIMPLE");
	assert_int_equal(coll_parse_name("ncclDevKernel_ReduceScatter_Sum_f32_NVLS_SIMPLE(x)", &n),
			 1);
	assert_int_equal(n.type, COLL_REDUCESCATTER);
	assert_string_equal(n.algo, "NVLS");
	assert_int_equal(coll_parse_name("ncclDevKernel_Reduce_Max_i32_RING_LL(x)", &n), 1);
	assert_int_equal(n.type, COLL_REDUCE);
	assert_string_equal(n.op, "Max");
	assert_int_equal(coll_parse_name("ncclDevKernel_AllGather_RING_LL(x)", &n), 1);
	assert_int_equal(n.type, COLL_ALLGATHER);
	assert_null(n.op);
	assert_null(n.dtype);
	assert_int_equal(coll_parse_name("ncclDevKernel_SendRecv(x)", &n), 1);
	assert_int_equal(n.type, COLL_SENDRECV);
	assert_int_equal(coll_parse_name("ncclKernel_Send_RING_SIMPLE_Sum_int8_t(x)", &n), 1);
	assert_int_equal(n.type, COLL_SEND);
	assert_int_equal(coll_parse_name("ncclDevKernel_Broadcast_RING_LL(x)", &n), 1);
	assert_int_equal(n.type, COLL_BROADCAST);
	assert_int_equal(coll_parse_name("ncclDevKernel_AllToAll_f16(x)", &n), 1);
	assert_int_equal(n.type, COLL_ALLTOALL);
	assert_int_equal(
	    coll_parse_name("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", &n), 1);
	assert_int_equal(n.type, COLL_OTHER);
	assert_int_equal(coll_parse_name("sm90_xmma_gemm_bf16", &n), 0);
	assert_int_equal(coll_parse_name("my_ncclDevKernel_AllReduce", &n), 0);
	assert_int_equal(coll_parse_name(NULL, &n), 0);
}

/* Generates every rank of cfg and analyses them through the builder, one
 * rank at a time (as the benchmark does). */
static void run(const struct collsynth_config *cfg, struct collsynth *g, struct coll_result *r)
{
	struct strbuf err = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	size_t ka = 0, wa = 0;

	assert_int_equal(collsynth_init(g, cfg, &err), 0);
	for (size_t i = cfg->nranks; i-- > 0;) { /* reversed: the builder sorts */
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

static void config(struct collsynth_config *c, size_t nranks, size_t nhosts, long straggler)
{
	collsynth_config_default(c);
	c->nranks = nranks;
	c->nhosts = nhosts;
	c->steps = 20;
	c->jitter_ns = 500; /* below 1 us: lateness vs the median stays within it */
	c->straggler = straggler;
	c->straggler_ns = 300 * US;
	c->host_offset_ns = 5 * MS;
}

/* The planted straggler is named, last at every step, and its mean
 * lateness is within 1 us of straggler_ns. */
static void check_straggler(const struct coll_result *r, const struct collsynth_config *c)
{
	assert_true(r->nstragglers >= 1);
	assert_int_equal(r->stragglers[0].rank, c->straggler);
	assert_int_equal(r->stragglers[0].count, c->steps);
	assert_int_equal(r->ninstances, c->steps);
	assert_true(r->stragglers[0].mean_late_ns > (double)(c->straggler_ns - US));
	assert_true(r->stragglers[0].mean_late_ns < (double)(c->straggler_ns + US));
	for (size_t i = 0; i < r->ninstances; i++)
		assert_int_equal(r->ranks[r->instances[i].last_rank].rank, c->straggler);
}

/* Each host's estimated offset is its planted one within tol, and the
 * median residual is below 50 us, measured over every (instance, rank). */
static void check_clocks_within(const struct coll_result *r, const struct collsynth_config *c,
				int64_t tol)
{
	assert_int_equal(r->nclocks, c->nhosts);
	for (size_t h = 0; h < r->nclocks; h++) {
		int64_t want = (int64_t)h * c->host_offset_ns, d = r->clocks[h].offset_ns - want;

		assert_int_equal(r->clocks[h].clock, (int)h);
		assert_int_equal(r->clocks[h].host, (int)h);
		assert_true(r->clocks[h].aligned);
		assert_true(d >= -tol && d <= tol);
		assert_int_equal(r->clocks[h].samples, r->clocks[h].ranks * r->ninstances);
	}
	assert_true(r->residual_median_ns < 50 * US);
	assert_int_equal(r->residual_samples, r->nranks * r->ninstances);
	assert_true(r->residual_samples > 0);
}

static void check_clocks(const struct coll_result *r, const struct collsynth_config *c)
{
	check_clocks_within(r, c, 50 * US);
}

static void test_two_ranks(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	(void)state;
	config(&c, 2, 2, 1);
	run(&c, &g, &r);
	assert_int_equal(r.nranks, 2);
	check_straggler(&r, &c);
	check_clocks(&r, &c);
	assert_int_equal(r.ranks[1].nccl_streams, 1);
	assert_int_equal(r.nmismatches, 0);
	coll_result_release(&r);
	collsynth_release(&g);
}

/* Wait and transfer per rank equal the planted sums exactly: one host (no
 * estimate between them), and again on two hosts with simultaneous ends (the
 * offset is then recovered exactly). Duration = wait + transfer. */
static void check_sums(size_t nhosts, int64_t end_jitter)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	config(&c, 8, nhosts, 5);
	c.jitter_ns = 40 * US;
	c.end_jitter_ns = end_jitter;
	run(&c, &g, &r);
	assert_int_equal(r.stragglers[0].rank, 5); /* jitter 40 us: lateness is not exact */
	assert_int_equal(r.ninstances, c.steps);
	for (size_t i = 0; i < r.nranks; i++) {
		const struct coll_type_stat *ts = &r.ranks[i].by_type[COLL_ALLREDUCE];
		int64_t wait = 0, transfer = 0;

		for (size_t s = 0; s < c.steps; s++) {
			wait += collsynth_wait(&g, i, s);
			transfer += collsynth_transfer(&g, i, s);
		}
		assert_int_equal(r.ranks[i].rank, (int)i);
		assert_int_equal(ts->calls, c.steps);
		assert_int_equal(ts->matched, c.steps);
		assert_int_equal(ts->wait_ns, wait);
		assert_int_equal(ts->transfer_ns, transfer);
		assert_int_equal(r.ranks[i].wait_ns, wait);
		assert_int_equal(ts->wait_ns + ts->transfer_ns, ts->total_ns);
		assert_int_equal(r.ranks[i].unmatched, 0);
	}
	coll_result_release(&r);
	collsynth_release(&g);
}

static void test_eight_ranks_sums(void **state)
{
	(void)state;
	check_sums(1, 1000);
	check_sums(2, 0);
}

/* 8 ranks on 2 hosts, host 1 5 ms ahead, ends jittered by up to 1 us. */
static void test_eight_ranks_skew(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	(void)state;
	config(&c, 8, 2, 6);
	run(&c, &g, &r);
	check_straggler(&r, &c);
	check_clocks(&r, &c);
	assert_int_equal(r.ranks[6].clock_offset_ns, r.clocks[1].offset_ns);
	/* aligned arrivals are true times within the residual */
	for (size_t i = 0; i < r.ninstances; i++) {
		const struct coll_call *calls = coll_instance_calls(&r, i);

		for (size_t k = 0; k < r.nranks; k++) {
			int64_t d = calls[k].start - collsynth_arrival(&g, k, r.instances[i].seq);

			assert_true(d > -50 * US && d < 50 * US);
		}
	}
	coll_result_release(&r);
	collsynth_release(&g);
}

/* 256 ranks on 32 hosts, each host 5 ms further ahead than the one before. */
static void test_256_ranks(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	(void)state;
	config(&c, 256, 32, 77);
	c.end_jitter_ns = 3 * US;
	run(&c, &g, &r);
	assert_int_equal(r.nranks, 256);
	check_straggler(&r, &c);
	check_clocks(&r, &c);
	assert_int_equal(r.nstragglers, 1);
	coll_result_release(&r);
	collsynth_release(&g);
}

/* 8 hosts of 2 ranks, each 5 ms further ahead, ends jittered by up to
 * 1 us: every offset recovered within 2 us. */
static void test_eight_hosts_offsets(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	(void)state;
	config(&c, 16, 8, 11);
	c.steps = 50;
	run(&c, &g, &r);
	check_straggler(&r, &c);
	check_clocks_within(&r, &c, 2 * US);
	assert_true(r.residual_median_ns <= 2 * US);
	coll_result_release(&r);
	collsynth_release(&g);
}

/* Ranks said to share one clock whose clocks differ by 5 ms: the residual,
 * measured also inside a clock domain, shows it, and a finding says so;
 * with one true clock it stays at the end jitter (1 us). */
static void test_residual_inside_domain(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;
	struct strbuf err = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct coll_kernel *k = NULL;
	struct coll_window *w = NULL;
	struct coll_finding *f;
	size_t ka = 0, wa = 0, nf, hit = 0;

	(void)state;
	config(&c, 4, 2, 1);
	assert_int_equal(collsynth_init(&g, &c, &err), 0);
	for (size_t i = 0; i < c.nranks; i++) {
		struct coll_rank_input in;

		collsynth_rank(&g, i, &k, &ka, &w, &wa, &in);
		in.clock = 0; /* the wrong claim: one clock */
		assert_int_equal(coll_builder_add_rank(b, &in, &err), 0);
	}
	assert_int_equal(coll_builder_finish(b, &r, &err), 0);
	assert_int_equal(r.nclocks, 1);
	assert_int_equal(r.residual_samples, c.nranks * c.steps);
	assert_true(r.residual_median_ns > 4 * MS && r.residual_median_ns < 6 * MS);
	nf = coll_findings(&r, "decode", NULL, NULL, &f);
	for (size_t i = 0; i < nf; i++)
		hit += !strcmp(f[i].code, "clock-residual");
	assert_int_equal(hit, 1);
	coll_findings_free(f, nf);
	coll_result_release(&r);
	collsynth_release(&g);
	c.host_offset_ns = 0; /* one true clock */
	run(&c, &g, &r);
	assert_true(r.residual_median_ns <= 1 * US);
	assert_true(r.residual_max_ns <= 2 * US);
	coll_result_release(&r);
	collsynth_release(&g);
	coll_builder_free(b);
	free(k);
	free(w);
	strbuf_release(&err);
}

/* Rank 3 misses step 5's AllReduce: the sequence is reported, not matched. */
static void test_count_mismatch(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;
	struct coll_finding *f;
	size_t nf, hit = 0;

	(void)state;
	config(&c, 8, 2, 6);
	c.drop_rank = 3;
	c.drop_step = 5;
	run(&c, &g, &r);
	assert_int_equal(r.nmismatches, 1);
	assert_int_equal(r.mismatches[0].type, COLL_ALLREDUCE);
	assert_int_equal(r.mismatches[0].min_rank, 3);
	assert_int_equal(r.mismatches[0].min_calls, c.steps - 1);
	assert_int_equal(r.mismatches[0].max_calls, c.steps);
	assert_int_equal(r.mismatches[0].ranks_short, 1);
	assert_int_equal(r.ninstances, 0);
	assert_int_equal(r.ranks[3].calls, c.steps - 1);
	assert_int_equal(r.ranks[3].unmatched, c.steps - 1);
	assert_int_equal(r.nstragglers, 0);
	assert_false(r.clocks[1].aligned);	 /* nothing matched to align on */
	assert_int_equal(r.residual_samples, 0); /* and no residual: never "0 us" */
	nf = coll_findings(&r, "decode", NULL, NULL, &f);
	for (size_t i = 0; i < nf; i++)
		hit += !strcmp(f[i].code, "collective-count-mismatch") ||
		       !strcmp(f[i].code, "clock-unaligned");
	assert_int_equal(hit, 2);
	coll_findings_free(f, nf);
	coll_result_release(&r);
	collsynth_release(&g);
}

/* A compute kernel on a second stream hides overlap_ns of every AllReduce. */
static void test_exposed_planted(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;

	(void)state;
	config(&c, 8, 2, 2);
	c.overlap_ns = 10 * US;
	run(&c, &g, &r);
	for (size_t i = 0; i < r.nranks; i++) {
		int64_t exposed = 0, comm = 0;

		for (size_t s = 0; s < c.steps; s++) {
			exposed += collsynth_exposed(&g, i, s);
			comm += collsynth_end(&g, i, s) - collsynth_arrival(&g, i, s);
		}
		assert_int_equal(r.ranks[i].comm_ns, comm);
		assert_int_equal(r.ranks[i].exposed_ns, exposed);
		assert_int_equal(r.ranks[i].exposed_ns, comm - (int64_t)c.steps * 10 * US);
		assert_int_equal(r.ranks[i].nstages, 1);
		assert_string_equal(r.ranks[i].stages[0].stage, "decode");
		assert_int_equal(r.ranks[i].stages[0].windows, c.steps);
		assert_int_equal(r.ranks[i].stages[0].comm_ns, comm);
		assert_int_equal(r.ranks[i].stages[0].exposed_ns, exposed);
	}
	coll_result_release(&r);
	collsynth_release(&g);
}

/* Hand-made: compute [0,100) and NCCL [50,150) on device 0, NCCL alone on
 * device 1 [0,40); windows cut them. */
static void test_exposed_by_hand(void **state)
{
	static const char *ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)";
	struct coll_kernel k[] = {
	    {"gemm", 0, 100, 0, 7}, {ar, 50, 150, 0, 13}, {ar, 0, 40, 1, 13}, {"bad", 10, 5, 0, 7}};
	struct coll_window w[] = {{"decode", 0, 75}, {"decode", 120, 200}, {"prefill", 75, 120}};
	struct coll_rank_input in = {
	    .rank = 0, .kernels = k, .nkernels = 4, .windows = w, .nwindows = 3};
	struct strbuf err = STRBUF_INIT;
	struct coll_result r;

	(void)state;
	assert_int_equal(coll_analyze(&in, 1, &r, &err), 0);
	assert_int_equal(r.ranks[0].comm_ns, 100 + 40);
	assert_int_equal(r.ranks[0].exposed_ns, 50 + 40);
	assert_int_equal(r.ranks[0].bad_kernels, 1);
	assert_int_equal(r.ranks[0].nccl_streams, 2);
	assert_int_equal(r.ranks[0].nstages, 2);
	assert_string_equal(r.ranks[0].stages[0].stage, "decode");
	assert_int_equal(r.ranks[0].stages[0].window_ns, 75 + 80);
	assert_int_equal(r.ranks[0].stages[0].comm_ns, 25 + 40 + 30);
	assert_int_equal(r.ranks[0].stages[0].exposed_ns, 40 + 30);
	assert_int_equal(r.ranks[0].stages[1].comm_ns, 45);
	assert_int_equal(r.ranks[0].stages[1].exposed_ns, 20);
	/* one rank: every collective matches itself, with no wait */
	assert_int_equal(r.ninstances, 2);
	assert_int_equal(r.ranks[0].wait_ns, 0);
	assert_int_equal(r.nstragglers, 0); /* nobody to wait for */
	coll_result_release(&r);
	strbuf_release(&err);
}

static void test_errors(void **state)
{
	struct coll_rank_input in[2] = {{.rank = 4}, {.rank = 4}};
	struct coll_window w = {"decode", 10, 5};
	struct strbuf err = STRBUF_INIT;
	struct coll_result r;

	(void)state;
	assert_int_equal(coll_analyze(in, 2, &r, &err), -1);
	assert_non_null(strstr(err.buf, "rank 4 was added twice"));
	strbuf_reset(&err);
	in[1].rank = 5;
	in[1].windows = &w;
	in[1].nwindows = 1;
	assert_int_equal(coll_analyze(in, 2, &r, &err), -1);
	assert_non_null(strstr(err.buf, "ends before it starts"));
	strbuf_reset(&err);
	assert_int_equal(coll_analyze(in, 0, &r, &err), -1);
	strbuf_release(&err);
}

static const struct coll_finding *find(const struct coll_finding *f, size_t n, const char *code)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].code, code))
			return &f[i];
	return NULL;
}

static void test_findings(void **state)
{
	struct collsynth_config c;
	struct collsynth g;
	struct coll_result r;
	struct coll_finding *f;
	const struct coll_finding *s, *e;
	size_t nf;

	(void)state;
	config(&c, 8, 2, 6);
	c.overlap_ns = 5 * US;
	run(&c, &g, &r);
	nf = coll_findings(&r, "decode", NULL, NULL, &f);
	s = find(f, nf, "collective-straggler");
	assert_non_null(s);
	assert_int_equal(s->severity, FINDING_WARNING);
	assert_non_null(strstr(s->text, "Rank 6 (host 1) arrives last at 20 of 20"));
	assert_non_null(strstr(s->text, "after the median of the other ranks by "));
	assert_non_null(s->recommendation);
	e = find(f, nf, "collective-exposed");
	assert_non_null(e);
	assert_non_null(strstr(e->text, "of decode"));
	assert_null(find(f, nf, "clock-residual"));
	for (size_t i = 1; i < nf; i++)
		assert_true(f[i - 1].severity >= f[i].severity);
	coll_findings_free(f, nf);
	coll_result_release(&r);
	collsynth_release(&g);

	/* no straggler planted: no straggler finding */
	config(&c, 8, 1, -1);
	run(&c, &g, &r);
	nf = coll_findings(&r, NULL, NULL, NULL, &f);
	assert_null(find(f, nf, "collective-straggler"));
	assert_null(find(f, nf, "collective-exposed"));
	coll_findings_free(f, nf);
	coll_result_release(&r);
	collsynth_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_median),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_two_ranks),
	    cmocka_unit_test(test_eight_ranks_sums),
	    cmocka_unit_test(test_eight_ranks_skew),
	    cmocka_unit_test(test_256_ranks),
	    cmocka_unit_test(test_eight_hosts_offsets),
	    cmocka_unit_test(test_residual_inside_domain),
	    cmocka_unit_test(test_count_mismatch),
	    cmocka_unit_test(test_exposed_planted),
	    cmocka_unit_test(test_exposed_by_hand),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
