/* test-collectives-cause.c: why a rank arrives last (analysis/
 * collectives_cause.h), on synthetic jobs whose cause is planted:
 * - host: the straggler's GPU idles before each collective while its host is
 *   late (its kernels start just after their launch; the others' hosts run
 *   2 ms ahead);
 * - GPU: its compute kernel before each collective runs longer, no idle;
 * - an extra kernel before every second collective on a host-late rank: the
 *   cause stays host, and the extra kernel is found where it was planted.
 * Checked: the cause, the lateness distribution (nearest rank below), first
 * steps against the rest, the deltas, the launch lags, and the findings'
 * text (rank or pid naming, cause, recommendation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/collectives.h"
#include "analysis/collectives_cause.h"

#define US 1000LL
#define STEPS 20
#define PER_STEP 2 /* collectives per step: after attention, after the MLP */
#define MAXR 8
#define MAXK (STEPS * PER_STEP * 3 + 4)

enum plant { PLANT_HOST, PLANT_GPU, PLANT_HOST_EXTRA };

struct job {
	int nranks, slow;
	struct coll_kernel k[MAXR][MAXK];
	int64_t launch[MAXR][MAXK];
	size_t nk[MAXR];
	struct coll_window win[MAXR][1], steps[MAXR][STEPS];
	int64_t late[STEPS * PER_STEP]; /* planted lateness of each collective */
};

static void kernel(struct job *j, int r, const char *name, int64_t s, int64_t e, int64_t launch)
{
	size_t i = j->nk[r]++;

	j->k[r][i] = (struct coll_kernel){name, s, e, 0, strstr(name, "nccl") ? 7 : 0};
	j->launch[r][i] = launch;
}

/* The straggler's delay before collective c of step s: 1000..1090 us in the
 * first two steps (warm-up), then 300..390 us (the GPU plant takes 100 us
 * off). */
static int64_t delay(int s, int c)
{
	return (s < 2 ? 1000 : 300) * US + (int64_t)((s * 7 + c) % 10) * 10 * US;
}

static void build(struct job *j, int nranks, int slow, enum plant p)
{
	int64_t t = 10000 * US;

	memset(j, 0, sizeof(*j));
	j->nranks = nranks;
	j->slow = slow;
	for (int r = 0; r < nranks; r++) { /* a first collective, where all arrive together */
		kernel(j, r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", t - 50 * US, t,
		       t - 60 * US);
	}
	for (int s = 0; s < STEPS; s++) {
		int64_t step0 = t;

		for (int c = 0; c < PER_STEP; c++) {
			int64_t arrive[MAXR] = {0}, last = 0;
			int64_t d = delay(s, c) - (p == PLANT_GPU ? 100 * US : 0);

			for (int r = 0; r < nranks; r++) {
				int64_t idle = 5 * US, busy = 40 * US, lag = 2000 * US, cs;

				if (r == slow && p != PLANT_GPU) {
					idle += d;
					lag = 8 * US;
				}
				if (r == slow && p == PLANT_GPU)
					busy += d;
				cs = t + idle;
				kernel(j, r, "gemm", cs, cs + busy, cs - lag);
				cs += busy;
				if (r == slow && p == PLANT_HOST_EXTRA && c == 1) {
					kernel(j, r, "spin", cs, cs + 100 * US, cs - lag);
					cs += 100 * US;
				}
				arrive[r] = cs;
				if (cs > last)
					last = cs;
			}
			j->late[s * PER_STEP + c] = arrive[slow] - arrive[slow ? 0 : 1];
			for (int r = 0; r < nranks; r++)
				kernel(j, r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)",
				       arrive[r], last + 10 * US,
				       arrive[r] -
					   (r == slow && p != PLANT_GPU ? 8 * US : 2000 * US));
			t = last + 10 * US;
		}
		for (int r = 0; r < nranks; r++)
			j->steps[r][s] = (struct coll_window){"decode_step", step0, t};
	}
	for (int r = 0; r < nranks; r++)
		j->win[r][0] = (struct coll_window){"decode", 10000 * US + 1, t + 1};
}

struct run {
	struct coll_result r;
	struct coll_causes cs;
	struct coll_finding *f;
	size_t nf;
};

static void analyse(struct job *j, struct run *x, const char *const *labels)
{
	struct coll_rank_input in[MAXR];
	struct coll_cause_rank cr[MAXR];
	static struct coll_gap gaps[MAXR][MAXK];
	struct strbuf err = STRBUF_INIT;

	for (int r = 0; r < j->nranks; r++) {
		in[r] = (struct coll_rank_input){r, 0, j->k[r], j->nk[r], j->win[r], 1};
		coll_gaps_compute(j->k[r], j->nk[r], j->launch[r], gaps[r]);
		cr[r] =
		    (struct coll_cause_rank){gaps[r], j->nk[r], j->win[r], 1, j->steps[r], STEPS};
	}
	assert_int_equal(coll_analyze(in, (size_t)j->nranks, &x->r, &err), 0);
	assert_int_equal(x->r.ninstances, 1 + STEPS * PER_STEP);
	coll_causes_compute(&x->r, cr, &x->cs);
	x->nf = coll_findings(&x->r, "decode", &x->cs, labels, &x->f);
	strbuf_release(&err);
}

static void release(struct run *x)
{
	coll_findings_free(x->f, x->nf);
	coll_causes_release(&x->cs);
	coll_result_release(&x->r);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The decode straggle of the slow rank, checked against the planted
 * lateness: distribution, first 2 steps against the rest. */
static const struct coll_straggle *check_late(const struct job *j, const struct run *x)
{
	const struct coll_straggle *s = NULL;
	int64_t v[STEPS * PER_STEP], e[2 * PER_STEP];
	size_t n = STEPS * PER_STEP, ne = 2 * PER_STEP;

	for (size_t i = 0; i < x->cs.n; i++)
		if (!strcmp(x->cs.v[i].stage, "decode") && !s)
			s = &x->cs.v[i];
	assert_non_null(s);
	assert_int_equal(x->r.ranks[s->rank_index].rank, j->slow);
	assert_int_equal(s->instances, n);
	assert_int_equal(s->count, n);
	memcpy(v, j->late, sizeof(v));
	memcpy(e, j->late, sizeof(e));
	qsort(v, n, sizeof(*v), cmp_i64);
	qsort(e, ne, sizeof(*e), cmp_i64);
	assert_int_equal(s->late.p50_ns, v[n / 2]);
	assert_int_equal(s->late.p90_ns, v[n * 9 / 10]);
	assert_int_equal(s->late.max_ns, v[n - 1]);
	assert_true(s->early_by_steps);
	assert_int_equal(s->early.n, ne);
	assert_int_equal(s->early_instances, ne);
	assert_int_equal(s->early.p50_ns, e[ne / 2]);
	assert_int_equal(s->steady.n, n - ne);
	assert_true(s->early.p50_ns > s->steady.p50_ns + 500 * US); /* warm-up shows */
	assert_int_equal(s->explained, n);
	return s;
}

static const struct coll_finding *finding(const struct run *x, const char *code)
{
	for (size_t i = 0; i < x->nf; i++)
		if (!strcmp(x->f[i].code, code))
			return &x->f[i];
	return NULL;
}

static void test_host(void **state)
{
	static struct job j;
	struct run x;
	const struct coll_straggle *s;
	const struct coll_finding *f;

	(void)state;
	for (int n = 2; n <= 8; n *= 2) {
		build(&j, n, n - 1, PLANT_HOST);
		analyse(&j, &x, NULL);
		s = check_late(&j, &x);
		assert_int_equal(s->cause, COLL_CAUSE_HOST);
		/* idle holds the lateness (all of it, planted), busy nothing */
		assert_true(s->idle_ns > 0.99 * s->late.mean_ns &&
			    s->idle_ns < 1.01 * s->late.mean_ns);
		assert_true(s->busy_ns > -1 && s->busy_ns < 1);
		assert_true(s->lag_ns > 7.9 * US && s->lag_ns < 8.1 * US);
		assert_true(s->others_lag_ns > 1999 * US && s->others_lag_ns < 2001 * US);
		assert_int_equal(s->extra_n, 0);
		f = finding(&x, "collective-straggler");
		assert_non_null(f);
		assert_non_null(strstr(f->text, "Cause: **host**"));
		assert_non_null(strstr(f->text, "p50 "));
		assert_non_null(
		    strstr(f->text, "In the first 2 steps of them it is last at 4 of 4 (p50 "));
		assert_non_null(strstr(f->text, "after them at 36 of 36 (p50 "));
		assert_non_null(strstr(f->recommendation, "CUDA graph"));
		release(&x);
	}
}

static void test_gpu(void **state)
{
	static struct job j;
	struct run x;
	const struct coll_straggle *s;
	const struct coll_finding *f;
	const char *labels[2] = {"pid 11", "pid 12"};

	(void)state;
	build(&j, 2, 1, PLANT_GPU);
	analyse(&j, &x, labels);
	s = check_late(&j, &x);
	assert_int_equal(s->cause, COLL_CAUSE_GPU);
	assert_true(s->busy_ns > 0.99 * s->late.mean_ns && s->busy_ns < 1.01 * s->late.mean_ns);
	assert_true(s->idle_ns > -1 && s->idle_ns < 1);
	assert_true(s->kernels > -0.01 && s->kernels < 0.01); /* the same kernels, slower */
	f = finding(&x, "collective-straggler");
	assert_non_null(f);
	/* only a pid names it: the finding says so */
	assert_non_null(strstr(f->text, "Process pid 12 arrives last at 40 of 41"));
	assert_non_null(strstr(f->text, "Cause: **GPU**"));
	assert_non_null(strstr(f->recommendation, "same kernels"));
	release(&x);
}

static void test_host_with_extra_kernel(void **state)
{
	static struct job j;
	struct run x;
	const struct coll_straggle *s;
	const struct coll_finding *f;

	(void)state;
	build(&j, 4, 2, PLANT_HOST_EXTRA);
	analyse(&j, &x, NULL);
	s = check_late(&j, &x);
	assert_int_equal(s->cause, COLL_CAUSE_HOST);
	assert_int_equal(s->extra_n, STEPS); /* before every second collective */
	assert_true(s->extra_kernels > 0.99 && s->extra_kernels < 1.01);
	assert_true(s->extra_busy_ns > 99.9 * US && s->extra_busy_ns < 100.1 * US);
	f = finding(&x, "collective-straggler");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "Rank 2 arrives last"));
	assert_non_null(strstr(f->text, "Before 20 of them it also ran 1.0 more kernels"));
	release(&x);
}

/* A rank without gaps (a merge's version 2 file): the lateness is still
 * measured, the cause is unknown, and the finding says why when told. */
static void test_unknown(void **state)
{
	static struct job j;
	struct coll_rank_input in[2];
	struct coll_cause_rank cr[2];
	static struct coll_gap gaps[MAXK];
	struct strbuf err = STRBUF_INIT;
	struct coll_result r;
	struct coll_causes cs;
	struct coll_finding *f;
	size_t nf;

	(void)state;
	build(&j, 2, 1, PLANT_HOST);
	for (int k = 0; k < 2; k++)
		in[k] = (struct coll_rank_input){k, 0, j.k[k], j.nk[k], j.win[k], 1};
	coll_gaps_compute(j.k[0], j.nk[0], j.launch[0], gaps);
	cr[0] = (struct coll_cause_rank){gaps, j.nk[0], j.win[0], 1, j.steps[0], STEPS};
	cr[1] = (struct coll_cause_rank){NULL, 0, j.win[1], 1, NULL, 0};
	assert_int_equal(coll_analyze(in, 2, &r, &err), 0);
	coll_causes_compute(&r, cr, &cs);
	assert_true(cs.n > 0);
	assert_int_equal(cs.v[0].rank_index, 1);
	assert_int_equal(cs.v[0].cause, COLL_CAUSE_UNKNOWN);
	assert_int_equal(cs.v[0].explained, 0);
	assert_int_equal(cs.v[0].count, STEPS * PER_STEP);
	assert_true(cs.v[0].late.p50_ns > 300 * US);
	assert_string_equal(coll_cause_name(cs.v[0].cause), "unknown");
	cs.unknown_why = "rank 1's file predates the gaps";
	nf = coll_findings(&r, "decode", &cs, NULL, &f);
	assert_true(nf > 0 && !strcmp(f[0].code, "collective-straggler"));
	assert_non_null(strstr(f[0].text, "Cause unknown: rank 1's file predates the gaps."));
	assert_null(strstr(f[0].text, "Cause: **"));
	assert_non_null(strstr(f[0].recommendation, "a slower GPU, more work"));
	coll_findings_free(f, nf);
	coll_causes_release(&cs);
	coll_result_release(&r);
	strbuf_release(&err);
}

/* Fewer than two ranks, or no causes given: nothing, and the findings fall
 * back to the generic recommendation. */
static void test_none(void **state)
{
	static struct job j;
	struct run x;
	struct coll_causes cs;
	const struct coll_finding *f;

	(void)state;
	build(&j, 2, 1, PLANT_HOST);
	analyse(&j, &x, NULL);
	coll_findings_free(x.f, x.nf);
	x.nf = coll_findings(&x.r, "decode", NULL, NULL, &x.f);
	f = finding(&x, "collective-straggler");
	assert_non_null(f);
	assert_null(strstr(f->text, "Cause:"));
	assert_non_null(strstr(f->recommendation, "a slower GPU, more work"));
	x.r.nranks = 1;
	coll_causes_compute(&x.r, NULL, &cs);
	assert_int_equal(cs.n, 0);
	coll_causes_release(&cs);
	x.r.nranks = 2;
	release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_gpu),
	    cmocka_unit_test(test_host_with_extra_kernel),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
