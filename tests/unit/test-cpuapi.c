/* test-cpuapi.c: CPU time of NVTX ranges inside CUDA API calls
 * (analysis/cpuapi.h) on traces built in memory: nested and overlapping
 * calls count once, calls clip to the range, other threads do not count,
 * versioned names merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/cpuapi.h"
#include "core/xalloc.h"
#include "trace/trace.h"

#define GT(pid, tid) ((1LL << 48) | ((int64_t)(pid) << 24) | (tid))

static void trace_new(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup("mem.sqlite");
	t->loaded = TRACE_CALLS | TRACE_NVTX;
	t->has_strings = t->has_calls = t->has_nvtx = 1;
}

static void add_range(struct trace *t, int64_t s, int64_t e, int64_t gtid)
{
	struct trace_range *r;

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges++];
	memset(r, 0, sizeof(*r));
	r->start = s;
	r->end = e;
	r->gtid = gtid;
	r->name = r->text = strtab_intern(&t->strs, "r", 1);
	r->domain = -1;
}

static void add_call(struct trace *t, const char *name, int64_t s, int64_t e, int64_t gtid)
{
	struct trace_call *c;
	struct trace_csig sig = {0};

	ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
	c = &t->calls[t->ncalls++];
	memset(c, 0, sizeof(*c));
	c->start = s;
	c->end = e;
	sig.gtid = gtid;
	sig.name = strtab_intern(&t->strs, name, strlen(name));
	c->sig = trace_csig_id(t, sig, (int64_t)t->ncalls, &c->corr_lo);
}

static void test_stage_split(void **state)
{
	struct trace t;
	struct cpu_api_use u[2];
	const uint8_t mask[3] = {1, 2, 1}; /* prefill, decode, prefill */
	int64_t a = GT(7, 7), b = GT(7, 8);

	(void)state;
	trace_new(&t);
	add_range(&t, 0, 1000, a);
	add_range(&t, 2000, 3000, a);
	add_range(&t, 4000, 4100, a);
	add_call(&t, "cudaMalloc_v3020", 100, 300, a);
	add_call(&t, "cuMemAlloc_v2", 150, 250, a);	/* inside cudaMalloc: not again */
	add_call(&t, "cudaFree_v3020", 250, 400, a);	/* overlaps it: 300..400 */
	add_call(&t, "cudaMalloc_v9999", 900, 1100, a); /* clipped at 1000; merged name */
	add_call(&t, "cudaLaunchKernel_v7000", 2100, 2110, a);
	add_call(&t, "cuCtxSynchronize", 3900, 4050, a); /* clipped at 4000 */
	add_call(&t, "cudaMalloc_v3020", 0, 5000, b);	 /* another thread */
	assert_true(cpu_api_complete(&t));
	memset(u, 0, sizeof(u));
	cpu_api_by_mask(u, 2, &t, mask);

	assert_int_equal(u[0].ns, 200 + 100 + 100 + 50);
	assert_int_equal(u[0].calls, 4);
	assert_int_equal(u[0].nnames, 3);
	assert_string_equal(u[0].names[0].name, "cudaMalloc");
	assert_int_equal(u[0].names[0].ns, 300);
	assert_int_equal(u[0].names[0].calls, 2);
	assert_string_equal(u[0].names[1].name, "cudaFree");
	assert_int_equal(u[0].names[1].ns, 100);
	assert_string_equal(u[0].names[2].name, "cuCtxSynchronize");
	assert_int_equal(u[0].names[2].ns, 50);

	assert_int_equal(u[1].ns, 10);
	assert_int_equal(u[1].nnames, 1);
	assert_string_equal(u[1].names[0].name, "cudaLaunchKernel");
	cpu_api_use_release(&u[0]);
	cpu_api_use_release(&u[1]);
	trace_close(&t);
}

static void test_launches_only(void **state)
{
	struct trace t;

	(void)state;
	trace_new(&t);
	assert_false(cpu_api_complete(&t));
	add_call(&t, "cudaLaunchKernel_v7000", 0, 10, GT(1, 1));
	add_call(&t, "cudaMemcpyAsync_v3020", 20, 30, GT(1, 1));
	add_call(&t, "cuLaunchKernelEx", 40, 50, GT(1, 1));
	add_call(&t, "cudaGraphLaunch_v10000", 60, 70, GT(1, 1));
	assert_false(cpu_api_complete(&t));
	add_call(&t, "cudaStreamSynchronize_v3020", 80, 90, GT(1, 1));
	assert_true(cpu_api_complete(&t));
	trace_close(&t);
}

static void test_name_len(void **state)
{
	(void)state;
	assert_int_equal(cpu_api_name_len("cudaMalloc_v3020"), 10);
	assert_int_equal(cpu_api_name_len("cuMemAlloc_v2"), 10);
	assert_int_equal(cpu_api_name_len("cuLaunchKernel"), 14);
	assert_int_equal(cpu_api_name_len("cuda_v"), 6);
	assert_int_equal(cpu_api_name_len("_v12"), 4);
	assert_int_equal(cpu_api_name_len(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stage_split),
	    cmocka_unit_test(test_launches_only),
	    cmocka_unit_test(test_name_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
