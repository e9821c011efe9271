/* test-trace-memory.c: what keeps a big trace small. The per-kernel and
 * per-call records stay 32 bytes (their shared parts interned once), the
 * in-place sorts (the int64_t one too) order like qsort(), and nvtx_kern_sum's groups, built
 * one thread at a time, equal those of the full list of (kernel, range)
 * pairs, also when two threads share a (PID, TID) on different hosts.
 * bench/results/trace-memory.md has the numbers on 8 M kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/nvtxkern.h"
#include "analysis/nvtxproj.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "trace/rectab.h"
#include "trace/trace.h"

#define GT(host, pid, tid) (((int64_t)(host) << 48) | ((int64_t)(pid) << 24) | (tid))

/* 8 M kernels and their launch calls: 384 MB, of the 1 GB a report may
 * take on them (issue: every report on 8 M kernels within 1 GB). */
static void test_record_sizes(void **state)
{
	(void)state;
	assert_true(sizeof(struct trace_kernel) <= 24);
	assert_true(sizeof(struct trace_call) <= 24);
}

/* A correlationId beyond 32 bits (a damaged or crafted export) and NULL
 * (-1) read back whole: the high bits live in the shared part. */
static void test_corr_split(void **state)
{
	static const int64_t corrs[] = {0,  1,	       0xffffffffLL, 0x100000000LL,
					-1, INT64_MIN, INT64_MAX};
	struct trace t;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.kernels = xcalloc(7, sizeof(*t.kernels));
	t.calls = xcalloc(7, sizeof(*t.calls));
	for (size_t i = 0; i < 7; i++) {
		struct trace_ksig ks = {0};
		struct trace_csig cs = {0};

		t.kernels[i].sig = trace_ksig_id(&t, ks, corrs[i], &t.kernels[i].corr_lo);
		t.calls[i].sig = trace_csig_id(&t, cs, corrs[i], &t.calls[i].corr_lo);
	}
	t.nkernels = t.ncalls = 7;
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(trace_kernel_corr(&t, &t.kernels[i]), corrs[i]);
		assert_int_equal(trace_call_corr(&t, &t.calls[i]), corrs[i]);
	}
	/* real ones (0 .. 2^32 - 1) share one signature */
	assert_int_equal(t.kernels[0].sig, t.kernels[2].sig);
	trace_close(&t);
}

static void test_rectab_interns(void **state)
{
	struct rectab rt = RECTAB_INIT(sizeof(int64_t[2]));
	uint32_t ids[3000];

	(void)state;
	for (int64_t i = 0; i < 3000; i++) {
		int64_t rec[2] = {i % 700, -1};

		ids[i] = rectab_intern(&rt, rec);
	}
	assert_int_equal(rt.nr, 700);
	for (int64_t i = 0; i < 3000; i++) {
		const int64_t *rec = rectab_get(&rt, ids[i]);

		assert_int_equal(ids[i], ids[i % 700]);
		assert_int_equal(rec[0], i % 700);
		assert_int_equal(rec[1], -1);
	}
	rectab_release(&rt);
	assert_int_equal(rt.nr, 0);
}

struct rec12 {
	uint32_t a, b, c;
};

static int cmp_rec12(const void *x, const void *y)
{
	const struct rec12 *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

struct rec80 {
	uint64_t k;
	char pad[72];
};

static int cmp_rec80(const void *x, const void *y)
{
	const struct rec80 *p = x, *q = y;

	return p->k < q->k ? -1 : p->k > q->k;
}

/* Random, sorted, reversed, all-equal and few-distinct inputs of sizes
 * around the insertion-sort cut-off: the same order as qsort() (the keys
 * are distinct where order would otherwise be unspecified). */
static void test_sort_inplace(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 100, 1000, 20000};
	struct rec12 *v = xmalloc(20000 * sizeof(*v)), *w = xmalloc(20000 * sizeof(*w));
	struct rec80 *big = xmalloc(300 * sizeof(*big));
	unsigned seed = 12345;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (int shape = 0; shape < 5; shape++) {
			size_t n = sizes[si];

			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				v[i].a = shape == 0   ? seed >> 8
					 : shape == 1 ? (uint32_t)i
					 : shape == 2 ? (uint32_t)(n - i)
					 : shape == 3 ? 7
						      : (seed >> 8) % 3;
				v[i].b = (uint32_t)i; /* distinct: a total order */
				v[i].c = v[i].a ^ v[i].b;
			}
			memcpy(w, v, n * sizeof(*v));
			sort_inplace(v, n, sizeof(*v), cmp_rec12);
			qsort(w, n, sizeof(*w), cmp_rec12);
			assert_memory_equal(v, w, n * sizeof(*v) + 1 * !n);
		}
	}
	for (size_t i = 0; i < 300; i++) {
		memset(&big[i], (int)i, sizeof(big[i]));
		big[i].k = (i * 7919) % 300;
	}
	sort_inplace(big, 300, sizeof(*big), cmp_rec80);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(big[i].k, i);
	free(v);
	free(w);
	free(big);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* The inputs that trouble a quicksort or a quickselect, by name: value i
 * of n in shape, r a fresh pseudo-random number. */
static const char *const shapes[] = {"random",	     "sorted",	   "reversed", "all equal",
				     "few distinct", "organ pipe", "sawtooth"};

static int64_t shape_value(size_t shape, size_t i, size_t n, uint64_t r)
{
	switch (shape) {
	case 0:
		return (int64_t)r;
	case 1:
		return (int64_t)i;
	case 2:
		return -(int64_t)i;
	case 3:
		return 42;
	case 4:
		return (int64_t)(r >> 33) % 3;
	case 5:
		return (int64_t)(i < n / 2 ? i : n - i);
	default:
		return (int64_t)(i % 17);
	}
}

/* sort_i64() and select_i64() against qsort() on every shape, around the
 * insertion cut-off and large (random with INT64_MIN and INT64_MAX in it):
 * the sort gives qsort's order; the selection of every k (large sizes: a
 * spread of k) gives the k-th value and leaves v split around it. */
static void test_sort_select_i64(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 16, 17, 33, 1000, 50000};
	int64_t *v = xmalloc(50000 * sizeof(*v)), *w = xmalloc(50000 * sizeof(*w));
	int64_t *x = xmalloc(50000 * sizeof(*x));
	uint64_t seed = 7;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
			size_t n = sizes[si], step = n > 100 ? n / 37 : 1;

			for (size_t i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				v[i] = shape_value(sh, i, n, seed);
			}
			if (n > 3 && sh == 0)
				v[1] = INT64_MIN, v[2] = INT64_MAX;
			memcpy(w, v, n * sizeof(*v));
			qsort(w, n, sizeof(*w), cmp_i64);
			memcpy(x, v, n * sizeof(*v));
			sort_i64(x, n);
			if (n && memcmp(x, w, n * sizeof(*x)))
				fail_msg("sort_i64: %s, n = %zu: not qsort's order", shapes[sh], n);
			for (size_t k = 0; k < n; k += step) {
				int split = 1;

				memcpy(x, v, n * sizeof(*v));
				if (select_i64(x, n, k) != w[k] || x[k] != w[k])
					fail_msg("select_i64: %s, n = %zu, k = %zu: not the k-th",
						 shapes[sh], n, k);
				for (size_t i = 0; i < n; i++)
					split &= i < k ? x[i] <= w[k] : x[i] >= w[k];
				if (!split)
					fail_msg("select_i64: %s, n = %zu, k = %zu: not split at k",
						 shapes[sh], n, k);
			}
		}
	}
	free(v);
	free(w);
	free(x);
}

static int cmp_rec12_a(const void *x, const void *y)
{
	const struct rec12 *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

static size_t rec12_bucket(const void *x)
{
	return ((const struct rec12 *)x)->a >> 8;
}

/* Many ties (a few distinct keys, 4 buckets): ties keep their order, as
 * the sort by (key, position) gives it; one bucket is in order already. */
static void test_sort_stable(void **state)
{
	enum { N = 5000 };
	struct rec12 *v = xmalloc(N * sizeof(*v)), *w = xmalloc(N * sizeof(*w));
	unsigned seed = 99;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i].a = i < 1000 ? (uint32_t)i / 10 : (seed >> 8) % 4 * 256 + (seed >> 20) % 5;
		v[i].b = (uint32_t)i; /* the position: what ties must keep */
		v[i].c = seed;
	}
	memcpy(w, v, N * sizeof(*v));
	sort_stable(v, N, sizeof(*v), cmp_rec12_a, 4, rec12_bucket);
	qsort(w, N, sizeof(*w), cmp_rec12);
	assert_memory_equal(v, w, N * sizeof(*v));
	free(v);
	free(w);
}

/* ---- nvtx_kern_sum groups ---- */

static int32_t S(struct trace *t, const char *s)
{
	return strtab_intern(&t->strs, s, strlen(s));
}

static void add_range(struct trace *t, const char *name, int64_t s, int64_t e, int64_t gtid)
{
	struct trace_range *r;

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges];
	memset(r, 0, sizeof(*r));
	r->start = s;
	r->end = e;
	r->gtid = gtid;
	r->rowid = (int64_t)++t->nranges;
	r->name = r->text = S(t, name);
	r->domain = r->domain_reg = -1;
	if (e > t->nvtx_max_range)
		t->nvtx_max_range = t->nvtx_max_all = e;
}

/* A launch call on gtid at ts and its kernel name, dur ns later. */
static void add_launch(struct trace *t, const char *name, int64_t ts, int64_t dur, int64_t gtid)
{
	struct trace_csig cs = {0};
	struct trace_ksig ks = {0};
	int64_t corr = (int64_t)t->ncalls + 1;

	ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
	cs.gtid = gtid;
	cs.name = S(t, "cudaLaunchKernel_v7000");
	t->calls[t->ncalls].start = ts;
	t->calls[t->ncalls].end = ts + 5;
	t->calls[t->ncalls].sig = trace_csig_id(t, cs, corr, &t->calls[t->ncalls].corr_lo);
	t->ncalls++;
	ALLOC_GROW(t->kernels, t->nkernels + 1, t->kernels_alloc);
	ks.gpid = gtid & TRACE_GPID_MASK;
	ks.name = S(t, name);
	ks.graph_node = -1;
	t->kernels[t->nkernels].start = ts + 100;
	t->kernels[t->nkernels].end = ts + 100 + dur;
	t->kernels[t->nkernels].sig = trace_ksig_id(t, ks, corr, &t->kernels[t->nkernels].corr_lo);
	t->nkernels++;
}

static struct nvtxkern_group *cur_groups;

static int cmp_pair_key(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;

	for (int i = 0; i < 7; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The groups as the full pair list gives them, checked against g. */
static void check_against_pairs(const struct trace *t, const struct nvtxkern_group *g, size_t ng)
{
	struct nvtx_proj p;
	int64_t(*k)[7];
	size_t n = 0, gi = 0;

	nvtx_proj_compute(&p, t, NVTX_PROJ_PAIRS);
	k = xcalloc(p.npairs + 1, sizeof(*k));
	for (size_t i = 0; i < p.npairs; i++) {
		const struct proj_pair *pp = &p.pairs[i];
		int64_t gtid = pp->call >= 0 ? trace_csig(t, &t->calls[pp->call])->gtid : 0;

		if (pp->op >= t->nkernels)
			continue;
		k[n][0] = pp->call >= 0 ? trace_pid(gtid) : -1;
		k[n][1] = pp->call >= 0 ? trace_tid(gtid) : -1;
		k[n][2] = pp->range >= 0 ? t->strs.rank[t->ranges[pp->range].name] : -1;
		k[n][3] = pp->range >= 0 ? t->ranges[pp->range].style : -1;
		k[n][4] = t->strs.rank[trace_ksig(t, &t->kernels[pp->op])->name];
		k[n][5] = pp->range;
		k[n++][6] = pp->op;
	}
	qsort(k, n, sizeof(*k), cmp_pair_key);
	for (size_t lo = 0, hi; lo < n; lo = hi, gi++) {
		int64_t total = 0, ranges = 0, kernels = 0;

		for (hi = lo; hi < n && !memcmp(k[hi], k[lo], 5 * sizeof(int64_t)); hi++) {
			const struct trace_kernel *kk = &t->kernels[k[hi][6]];

			total += kk->end - kk->start;
		}
		/* distinct ranges and kernels of the group */
		for (size_t i = lo; i < hi; i++) {
			int seen_r = k[i][5] < 0, seen_k = 0;

			for (size_t j = lo; j < i; j++) {
				seen_r |= k[j][5] == k[i][5];
				seen_k |= k[j][6] == k[i][6];
			}
			ranges += !seen_r;
			kernels += !seen_k;
		}
		assert_true(gi < ng);
		assert_memory_equal(g[gi].key, k[lo], 5 * sizeof(int64_t));
		assert_int_equal(g[gi].s.n, hi - lo);
		assert_int_equal(g[gi].s.total, total);
		assert_int_equal(g[gi].ranges, ranges);
		assert_int_equal(g[gi].kernels, kernels);
	}
	assert_int_equal(gi, ng);
	free(k);
	nvtx_proj_release(&p);
}

static void run_groups(struct trace *t)
{
	int32_t *names = xmalloc((t->nranges + 1) * sizeof(*names));
	size_t ng;

	for (size_t r = 0; r < t->nranges; r++)
		names[r] = t->ranges[r].name;
	strtab_rank(&t->strs);
	cur_groups = nvtxkern_groups(t, names, &ng);
	check_against_pairs(t, cur_groups, ng);
	free(names);
}

static void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup("mem.sqlite");
	t->loaded = TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX;
	t->has_strings = t->has_kernels = t->has_calls = t->has_nvtx = 1;
}

/* Nested ranges of one name (a kernel counts once per range), three
 * threads, a kernel outside every range. */
static void test_kern_groups_threads(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	for (int th = 1; th <= 3; th++) {
		int64_t g = GT(1, 10, th), base = th * 100000;

		add_range(&t, "layer", base, base + 5000, g);
		add_range(&t, "layer", base + 100, base + 4000, g);
		add_range(&t, "attn", base + 200, base + 1000, g);
		for (int i = 0; i < 20; i++)
			add_launch(&t, i % 3 ? "gemm" : "softmax", base + 300 + i * 150,
				   10 + (i * 37) % 50 + th, g);
		add_launch(&t, "gemm", base + 9000, 99, g);
	}
	run_groups(&t);
	free(cur_groups);
	trace_close(&t);
}

/* Threads A and B share (PID, TID) on two hosts; C sorts between them:
 * A's groups are summarised before B's pairs come. Summing B's kernels
 * over A's summary would lose A's durations. */
static void test_kern_groups_host_clash(void **state)
{
	struct trace t;
	int64_t a = GT(1, 7, 7), c = GT(1, 8, 8), b = GT(2, 7, 7);

	(void)state;
	trace_init(&t);
	add_range(&t, "step", 0, 1000, a);
	add_launch(&t, "gemm", 100, 40, a);
	add_range(&t, "step", 0, 1000, c);
	add_launch(&t, "gemm", 100, 50, c);
	add_range(&t, "step", 0, 1000, b);
	add_launch(&t, "gemm", 100, 60, b);
	add_launch(&t, "gemm", 300, 70, b);
	run_groups(&t);
	/* (7, 7) step gemm: A's 40 and B's 60 + 70 */
	assert_int_equal(cur_groups[0].key[0], 7);
	assert_int_equal(cur_groups[0].s.total, 170);
	assert_int_equal(cur_groups[0].ranges, 2);
	assert_int_equal(cur_groups[0].kernels, 3);
	free(cur_groups);
	trace_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_sizes),
	    cmocka_unit_test(test_corr_split),
	    cmocka_unit_test(test_rectab_interns),
	    cmocka_unit_test(test_sort_inplace),
	    cmocka_unit_test(test_sort_select_i64),
	    cmocka_unit_test(test_sort_stable),
	    cmocka_unit_test(test_kern_groups_threads),
	    cmocka_unit_test(test_kern_groups_host_clash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
