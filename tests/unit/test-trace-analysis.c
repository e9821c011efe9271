/* test-trace-analysis.c: NVTX projection edge cases (nesting, cross-thread
 * start/end, CUDA graphs, overlapping streams, several processes, missing
 * launch calls, open ranges), stages and operators, nsys number formatting,
 * and the kernel-summary CSV reader. Traces are built in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/exposed.h"
#include "analysis/nsysstats.h"
#include "analysis/nvtxproj.h"
#include "analysis/summary.h"
#include "analysis/timeline.h"
#include "core/xalloc.h"
#include "model/table.h"
#include "trace/trace.h"

#define GT(pid, tid) ((1LL << 48) | ((int64_t)(pid) << 24) | (tid))
#define GP(pid) ((1LL << 48) | ((int64_t)(pid) << 24))

static void trace_new(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup("mem.sqlite");
	t->loaded = TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX;
	t->has_strings = t->has_kernels = t->has_calls = t->has_nvtx = 1;
}

static int32_t S(struct trace *t, const char *s)
{
	return strtab_intern(&t->strs, s, strlen(s));
}

static size_t add_range(struct trace *t, const char *domain, const char *text, int64_t s, int64_t e,
			int64_t gtid, int style)
{
	struct trace_range *r;
	char name[256];

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges];
	memset(r, 0, sizeof(*r));
	r->category = -1;
	r->start = s;
	r->end = e;
	r->open = e < 0;
	r->gtid = gtid;
	r->rowid = (int64_t)t->nranges + 1;
	r->text = S(t, text);
	r->domain = domain ? S(t, domain) : -1;
	snprintf(name, sizeof(name), "%s%s%s", domain ? domain : "", domain ? ":" : "", text);
	r->name = S(t, name);
	r->style = (uint8_t)style;
	if (!r->open && e > t->nvtx_max_range)
		t->nvtx_max_range = e;
	if (s > t->nvtx_max_range)
		t->nvtx_max_range = s;
	t->nvtx_max_all = t->nvtx_max_range;
	return t->nranges++;
}

static void add_call(struct trace *t, int64_t s, int64_t e, int64_t gtid, int64_t corr)
{
	struct trace_call *c;
	struct trace_csig sig = {0};

	ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
	c = &t->calls[t->ncalls++];
	c->start = s;
	c->end = e;
	sig.gtid = gtid;
	sig.name = S(t, "cudaLaunchKernel_v7000");
	c->sig = trace_csig_id(t, sig, corr, &c->corr_lo);
}

static size_t add_kernel(struct trace *t, const char *name, int64_t s, int64_t e, int64_t gpid,
			 int64_t corr, int stream)
{
	struct trace_kernel *k;
	struct trace_ksig sig = {0};

	ALLOC_GROW(t->kernels, t->nkernels + 1, t->kernels_alloc);
	k = &t->kernels[t->nkernels];
	memset(k, 0, sizeof(*k));
	k->start = s;
	k->end = e;
	sig.gpid = gpid;
	sig.name = S(t, name);
	sig.stream = stream;
	sig.grid[0] = 1 + stream;
	sig.graph_node = -1;
	k->sig = trace_ksig_id(t, sig, corr, &k->corr_lo);
	return t->nkernels++;
}

static void set_device(struct trace *t, size_t k, int32_t device)
{
	struct trace_ksig sig = *trace_ksig(t, &t->kernels[k]);

	sig.device = device;
	t->kernels[k].sig =
	    trace_ksig_id(t, sig, trace_kernel_corr(t, &t->kernels[k]), &t->kernels[k].corr_lo);
}

/* Exposed time: per device, in start order, what no earlier-started kernel
 * still covers. A PDL chain (each kernel starts before its predecessor
 * ends), a kernel inside another, one of a second stream, a tie, and a
 * second device, listed out of start order. */
static void test_kernel_exposed(void **state)
{
	struct trace t;
	int64_t ex[8];
	size_t k[8];

	(void)state;
	trace_new(&t);
	/* on device 0, in start order: gemm (first: all of it), tie (starts
	 * with gemm, after it by index: 210..230), inner (under gemm: 0),
	 * pdl2 (waits, under gemm and tie: 230..260), gap (after a gap: all of
	 * it), bad (end before start: 0), tail (350..400); dev1 on device 1:
	 * all of it */
	k[0] = add_kernel(&t, "pdl2", 150, 260, GP(1), 2, 7);
	k[1] = add_kernel(&t, "gemm", 100, 210, GP(1), 1, 7);
	k[2] = add_kernel(&t, "inner", 120, 200, GP(1), 3, 8);
	k[3] = add_kernel(&t, "tie", 100, 230, GP(1), 4, 8);
	k[4] = add_kernel(&t, "dev1", 150, 260, GP(1), 5, 7);
	k[5] = add_kernel(&t, "gap", 300, 350, GP(1), 6, 7);
	k[6] = add_kernel(&t, "bad", 340, 330, GP(1), 7, 7);
	k[7] = add_kernel(&t, "tail", 345, 400, GP(1), 8, 7);
	set_device(&t, k[4], 1);
	kernel_exposed_times(&t, ex);
	assert_int_equal(ex[k[1]], 110);
	assert_int_equal(ex[k[3]], 20);
	assert_int_equal(ex[k[2]], 0);
	assert_int_equal(ex[k[0]], 30);
	assert_int_equal(ex[k[4]], 110);
	assert_int_equal(ex[k[5]], 50);
	assert_int_equal(ex[k[6]], 0);
	assert_int_equal(ex[k[7]], 50);
	/* device 0's exposed times sum to the union of its kernels: 100..260, 300..400 */
	assert_int_equal(ex[k[0]] + ex[k[1]] + ex[k[2]] + ex[k[3]] + ex[k[5]] + ex[k[6]] + ex[k[7]],
			 260);
	trace_close(&t);
}

static void test_nesting(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	size_t a, b, k1, k2;

	trace_new(&t);
	a = add_range(&t, NULL, "A", 0, 100, GT(1, 1), TRACE_PUSHPOP);
	b = add_range(&t, NULL, "B", 10, 50, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 20, 25, GT(1, 1), 1);
	add_call(&t, 60, 65, GT(1, 1), 2);
	k1 = add_kernel(&t, "k1", 200, 300, GP(1), 1, 7);
	k2 = add_kernel(&t, "k2", 310, 400, GP(1), 2, 7);
	nvtx_proj_compute(&p, &t, NVTX_PROJ_PAIRS);
	assert_int_equal(p.nops[a], 2);
	assert_int_equal(p.proj_start[a], 200);
	assert_int_equal(p.proj_end[a], 400);
	assert_int_equal(p.nops[b], 1);
	assert_int_equal(p.proj_end[b] - p.proj_start[b], 100);
	assert_int_equal(p.parent[b], (int)a);
	assert_int_equal(p.parent[a], -1);
	assert_int_equal(p.level[b], 1);
	assert_int_equal(p.nchild_ops[a], 1);
	assert_int_equal(p.kernel_inner[k1], (int)b);
	assert_int_equal(p.kernel_inner[k2], (int)a);
	assert_int_equal(p.npairs, 3); /* k1 in A and B, k2 in A */
	nvtx_proj_release(&p);
	trace_close(&t);
}

/* The projection keeps properly nested ranges on a stack and sums launches
 * into them lazily: ranges that overlap in part, identical ranges (the
 * first is the parent), and a group with several launch calls, which counts
 * again in a range when another launch came between (as nsys's join does). */
static void test_nesting_overlap_and_repeated_calls(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	size_t a, b, c, d, e;

	trace_new(&t);
	a = add_range(&t, NULL, "A", 0, 1000, GT(1, 1), TRACE_STARTEND);
	b = add_range(&t, NULL, "B", 100, 2000, GT(1, 1), TRACE_STARTEND); /* overlaps A */
	c = add_range(&t, NULL, "C", 150, 900, GT(1, 1), TRACE_PUSHPOP);
	d = add_range(&t, NULL, "D", 150, 900, GT(1, 1), TRACE_PUSHPOP); /* same as C */
	e = add_range(&t, NULL, "E", 200, 300, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 210, 220, GT(1, 1), 1);
	add_call(&t, 400, 410, GT(1, 1), 2);
	add_call(&t, 500, 510, GT(1, 1), 3);
	add_call(&t, 600, 610, GT(1, 1), 2); /* group 2 again, after group 3 */
	add_call(&t, 700, 705, GT(1, 1), 4);
	add_call(&t, 710, 715, GT(1, 1), 4); /* group 4 again, right after */
	for (int g = 1; g <= 4; g++)
		add_kernel(&t, "k", 3000 + 100 * g, 3050 + 100 * g, GP(1), g, 7);
	nvtx_proj_compute(&p, &t, 0);
	assert_int_equal(p.parent[a], -1);
	assert_int_equal(p.parent[b], -1);
	assert_int_equal(p.parent[c], (int)a); /* least slack: A, not B */
	assert_int_equal(p.parent[d], (int)c);
	assert_int_equal(p.parent[e], (int)c); /* C and D tie: the first */
	assert_int_equal(p.level[e], 2);
	/* groups 1, 2, 3, 2 again, 4 once */
	assert_int_equal(p.nops[a], 5);
	assert_int_equal(p.nops[b], 5);
	assert_int_equal(p.nops[c], 5);
	assert_int_equal(p.nops[d], 5);
	assert_int_equal(p.nops[e], 1);
	assert_int_equal(p.proj_start[c], 3100);
	assert_int_equal(p.proj_end[c], 3450);
	assert_int_equal(p.proj_start[e], 3100);
	assert_int_equal(p.proj_end[e], 3150);
	assert_int_equal(p.kern_ns[a], 5 * 50);
	assert_int_equal(p.kernel_inner[0], (int)e);
	assert_int_equal(p.kernel_inner[2], (int)d);
	nvtx_proj_release(&p);
	trace_close(&t);
}

static void test_cross_thread_and_other_thread(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	size_t x, y, z;

	trace_new(&t);
	/* a start/end range ended on another thread: nsys drops it */
	x = add_range(&t, NULL, "req", 0, 100, GT(1, 1), TRACE_STARTEND);
	t.ranges[x].cross_thread = 1;
	/* the same span on another thread: the launch is not on its thread */
	y = add_range(&t, NULL, "other", 0, 100, GT(1, 2), TRACE_STARTEND);
	/* a start/end range on the launching thread is kept */
	z = add_range(&t, NULL, "mine", 0, 100, GT(1, 1), TRACE_STARTEND);
	add_call(&t, 10, 20, GT(1, 1), 1);
	add_kernel(&t, "k", 30, 40, GP(1), 1, 7);
	nvtx_proj_compute(&p, &t, 0);
	assert_false(p.candidate[x]);
	assert_int_equal(p.nops[x], 0);
	assert_int_equal(p.nops[y], 0);
	assert_int_equal(p.nops[z], 1);
	nvtx_proj_release(&p);
	trace_close(&t);
}

static void test_graph_launch(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	size_t r;

	trace_new(&t);
	r = add_range(&t, "LLM", "decode_step", 0, 100, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 10, 20, GT(1, 1), 9); /* cudaGraphLaunch */
	for (int i = 0; i < 3; i++)
		add_kernel(&t, "node", 200 + 50 * i, 240 + 50 * i, GP(1), 9, 7);
	nvtx_proj_compute(&p, &t, NVTX_PROJ_PAIRS);
	assert_int_equal(p.nops[r], 1); /* distinct correlationIds, as nsys counts */
	assert_int_equal(p.proj_start[r], 200);
	assert_int_equal(p.proj_end[r], 340);
	assert_int_equal(p.kern_ns[r], 120);
	assert_int_equal(p.npairs, 3);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(p.kernel_inner[k], (int)r);
	nvtx_proj_release(&p);
	trace_close(&t);
}

static void test_processes_and_missing_calls(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	size_t r1, r2, open;

	trace_new(&t);
	/* the same correlationId in two processes joins within each process */
	r1 = add_range(&t, NULL, "p1", 0, 100, GT(1, 1), TRACE_PUSHPOP);
	r2 = add_range(&t, NULL, "p2", 500, 600, GT(2, 5), TRACE_PUSHPOP);
	add_call(&t, 10, 20, GT(1, 1), 7);
	add_call(&t, 510, 520, GT(2, 5), 7);
	add_kernel(&t, "a", 30, 40, GP(1), 7, 7);
	add_kernel(&t, "b", 530, 560, GP(2), 7, 7);
	/* no launch call at all */
	add_kernel(&t, "lost", 700, 710, GP(1), 99, 7);
	/* a range never closed ends at the last NVTX timestamp */
	open = add_range(&t, NULL, "open", 800, -1, GT(1, 1), TRACE_PUSHPOP);
	add_range(&t, NULL, "late", 900, 1000, GT(1, 3), TRACE_PUSHPOP);
	add_call(&t, 950, 960, GT(1, 1), 8);
	add_kernel(&t, "c", 970, 990, GP(1), 8, 7);
	nvtx_proj_compute(&p, &t, NVTX_PROJ_PAIRS);
	assert_int_equal(p.nops[r1], 1);
	assert_int_equal(p.proj_end[r1] - p.proj_start[r1], 10);
	assert_int_equal(p.nops[r2], 1);
	assert_int_equal(p.proj_end[r2] - p.proj_start[r2], 30);
	assert_int_equal(p.nops_no_call, 1);
	/* kernel 2 found no launch call: its one pair has none */
	assert_int_equal(p.nkernels_no_call, 1);
	for (size_t i = 0; i < p.npairs; i++)
		if (p.pairs[i].op == 2)
			assert_int_equal(p.pairs[i].call, -1);
	assert_int_equal(trace_range_end(&t, &t.ranges[open]), 1000);
	assert_int_equal(p.nops[open], 1);
	nvtx_proj_release(&p);
	trace_close(&t);
}

/* Timestamps at the limits the loader clamps to (TRACE_TIME_MAX): each
 * difference fits, their sums saturate instead of overflowing (a damaged
 * export found by fuzz-sqlite), and the analysis completes. */
static void test_extreme_timestamps_saturate(void **state)
{
	struct trace t;
	struct nvtx_proj p;
	struct timeline tl;
	struct stage_config cfg;
	struct strbuf err = STRBUF_INIT;
	size_t r;

	trace_new(&t);
	stage_config_default(&cfg);
	r = add_range(&t, NULL, "prefill", -TRACE_TIME_MAX, TRACE_TIME_MAX, GT(1, 1),
		      TRACE_PUSHPOP);
	add_range(&t, NULL, "inner", 0, TRACE_TIME_MAX, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 1, 2, GT(1, 1), 7);
	/* one launch, two kernels of almost 2^63 ns each */
	add_kernel(&t, "a", -TRACE_TIME_MAX, TRACE_TIME_MAX, GP(1), 7, 7);
	add_kernel(&t, "b", -TRACE_TIME_MAX, TRACE_TIME_MAX, GP(1), 7, 8);
	nvtx_proj_compute(&p, &t, NVTX_PROJ_PAIRS);
	assert_int_equal(p.nops[r], 1); /* one launch */
	assert_true(p.kern_ns[r] == INT64_MAX);
	nvtx_proj_release(&p);
	assert_int_equal(timeline_build(&tl, &t, &cfg, &err), 0);
	assert_true(tl.stages[STAGE_PREFILL].kernel_ns == INT64_MAX);
	assert_true(tl.stages[STAGE_PREFILL].cpu_ns == 2 * TRACE_TIME_MAX);
	timeline_release(&tl);
	strbuf_release(&err);
	trace_close(&t);
}

/* Inverted kernels (end before start, +-TRACE_TIME_MAX) in a stage: the
 * busy time of their union is 0, not a wrapped or negative sum (it used to
 * overflow in union_length), and each kernel's share of the total in
 * cuda_gpu_kern_sum is 50 %, not 100 % each against a saturated total. */
static void test_inverted_timestamps_union(void **state)
{
	struct trace t;
	struct timeline tl;
	struct stage_config cfg;
	struct table tbl;
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;

	trace_new(&t);
	stage_config_default(&cfg);
	add_range(&t, NULL, "prefill", -TRACE_TIME_MAX, TRACE_TIME_MAX, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 1, 2, GT(1, 1), 7);
	add_kernel(&t, "a", TRACE_TIME_MAX, -TRACE_TIME_MAX, GP(1), 7, 7);
	add_kernel(&t, "b", TRACE_TIME_MAX - 1, -TRACE_TIME_MAX, GP(1), 7, 8);
	assert_int_equal(timeline_build(&tl, &t, &cfg, &err), 0);
	assert_true(tl.stage_found[STAGE_PREFILL]);
	assert_true(tl.stages[STAGE_PREFILL].busy_ns == 0);
	timeline_release(&tl);
	assert_int_equal(nsysstats_build(&t, "cuda_gpu_kern_sum", NULL, &tbl, &msg, &err), 0);
	table_write_csv(&tbl, &out);
	assert_non_null(strstr(out.buf, "\n50.0,"));
	assert_null(strstr(out.buf, "\n100.0,"));
	table_release(&tbl);
	strbuf_release(&msg);
	strbuf_release(&err);
	strbuf_release(&out);
	trace_close(&t);
}

static void test_reports_on_memory_trace(void **state)
{
	struct trace t;
	struct table tbl;
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;

	trace_new(&t);
	add_range(&t, NULL, "A", 0, 100, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 10, 20, GT(1, 1), 1);
	add_call(&t, 30, 40, GT(1, 1), 2);
	add_kernel(&t, "f(int, int)", 50, 60, GP(1), 1, 7);
	add_kernel(&t, "f(int, int)", 55, 75, GP(1), 2, 8);
	assert_int_equal(nsysstats_build(&t, "cuda_gpu_kern_sum", NULL, &tbl, &msg, &err), 0);
	table_write_csv(&tbl, &out);
	assert_string_equal(out.buf,
			    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),"
			    "Max (ns),StdDev (ns),Name\n"
			    "100.0,30,2,15.0,15.0,10,20,7.1,\"f(int, int)\"\n");
	table_release(&tbl);
	strbuf_reset(&out);
	assert_int_equal(nsysstats_build(&t, "nvtx_gpu_proj_sum", NULL, &tbl, &msg, &err), 0);
	table_write_csv(&tbl, &out);
	assert_non_null(
	    strstr(out.buf, "\nA,PushPop,25,100,1,25.0,25.0,25,25,0.0,2,2.0,0.0,0.0\n"));
	table_release(&tbl);
	t.has_memcpy = t.has_memset = 0;
	assert_int_equal(nsysstats_build(&t, "cuda_gpu_mem_time_sum", NULL, &tbl, &msg, &err), 1);
	assert_string_equal(msg.buf, "mem.sqlite does not contain GPU memory data.");
	strbuf_release(&msg);
	strbuf_release(&err);
	strbuf_release(&out);
	trace_close(&t);
}

static void test_stages_and_operators(void **state)
{
	struct trace t;
	struct timeline tl;
	struct stage_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct stage_timing *pre, *step;
	size_t r;

	trace_new(&t);
	stage_config_default(&cfg);
	add_range(&t, "LLM", "prefill", 0, 100, GT(1, 1), TRACE_PUSHPOP);
	add_range(&t, "LLM", "attn.qkv", 5, 50, GT(1, 1), TRACE_PUSHPOP);
	add_call(&t, 10, 15, GT(1, 1), 1);
	add_call(&t, 60, 65, GT(1, 1), 2);
	add_kernel(&t, "gemm", 1000, 1100, GP(1), 1, 7); /* in attn.qkv */
	add_kernel(&t, "norm", 1150, 1200, GP(1), 2, 7); /* prefill only */
	for (int s = 0; s < 3; s++) {
		int64_t b = 2000 + 1000 * s;

		add_range(&t, "LLM", "decode_step", b, b + 500, GT(1, 1), TRACE_PUSHPOP);
		add_call(&t, b + 10, b + 20, GT(1, 1), 10 + s);
		add_kernel(&t, "gemv", b + 100, b + 100 + 10 * (s + 1), GP(1), 10 + s, 7);
	}
	add_call(&t, 9000, 9010, GT(1, 1), 50);
	add_kernel(&t, "warmup", 9100, 9200, GP(1), 50, 7);
	/* a decode range ended on another thread: CPU time only */
	r = add_range(&t, NULL, "decode", 8000, 9500, GT(1, 1), TRACE_STARTEND);
	t.ranges[r].cross_thread = 1; /* add_range may move t.ranges */
	assert_int_equal(timeline_build(&tl, &t, &cfg, &err), 0);
	pre = &tl.stages[STAGE_PREFILL];
	assert_true(tl.stage_found[STAGE_PREFILL]);
	assert_true(tl.stage_found[STAGE_DECODE]);
	assert_int_equal(tl.stages[STAGE_DECODE].cpu_ns, 1500);
	assert_int_equal(tl.stages[STAGE_DECODE].proj_ns, 0);
	assert_int_equal(tl.stage_cross_thread, 1);
	assert_int_equal(pre->instances, 1);
	assert_int_equal(pre->cpu_ns, 100);
	assert_int_equal(pre->proj_ns, 200);
	assert_int_equal(pre->busy_ns, 150);
	assert_int_equal(pre->idle_ns, 50);
	assert_int_equal(pre->kernels, 2);
	assert_int_equal(pre->launches, 2);
	step = &tl.stages[STAGE_DECODE_STEP];
	assert_int_equal(step->instances, 3);
	assert_int_equal(step->max_ns, 30);
	assert_true(step->p50_ns == 20.0);
	assert_true(step->p90_ns > 27.9 && step->p90_ns < 28.1);
	assert_int_equal(tl.kernels_outside, 1);
	assert_int_equal(tl.kernel_ns_outside, 100);
	assert_int_equal(tl.nops, 1);
	assert_string_equal(strtab_str(&t.strs, tl.ops[0].text), "attn.qkv");
	assert_int_equal(tl.ops[0].stage, STAGE_PREFILL);
	assert_int_equal(tl.ops[0].gpu_ns, 100);
	assert_true(tl.ops[0].stage_share > 0.666 && tl.ops[0].stage_share < 0.667);
	assert_string_equal(strtab_str(&t.strs, tl.by_name.rows[0].name), "gemm");
	{
		/* kernel selection: the kernels of one stage only */
		struct kernel_summary ks;

		kernel_summary_build(&ks, &t, tl.kernel_stages, 1u << STAGE_DECODE_STEP, 0);
		assert_int_equal(ks.nrows, 1);
		assert_string_equal(strtab_str(&t.strs, ks.rows[0].name), "gemv");
		assert_int_equal(ks.calls, 3);
		assert_int_equal(ks.total_ns, 60);
		kernel_summary_release(&ks);
	}
	timeline_release(&tl);
	strbuf_release(&err);
	trace_close(&t);
}

/* The operator stat of text in stage PREFILL, or NULL. */
static const struct operator_stat *op_named(const struct timeline *tl, const struct trace *t,
					    const char *text)
{
	for (size_t i = 0; i < tl->nops; i++)
		if (!strcmp(strtab_str(&t->strs, tl->ops[i].text), text) &&
		    tl->ops[i].stage == STAGE_PREFILL)
			return &tl->ops[i];
	return NULL;
}

/* A class's GPU time incl. nested counts each kernel once, however deep
 * the operators of other classes between two of one class: a layer
 * (class Layer) around 300 nested blocks (class Block, one inside the
 * other) around a second layer, one kernel in the innermost. The inner
 * layer is inside one of its class: its kernel is already the outer's. */
static void test_operator_class_deep(void **state)
{
	enum { DEPTH = 300 };
	struct trace t;
	struct timeline tl;
	struct stage_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct operator_stat *layer, *block;
	int32_t cls_layer, cls_block;
	size_t r;

	(void)state;
	trace_new(&t);
	stage_config_default(&cfg);
	cls_layer = S(&t, "Layer");
	cls_block = S(&t, "Block");
	add_range(&t, "LLM", "prefill", 0, 10000, GT(1, 1), TRACE_PUSHPOP);
	r = add_range(&t, "LLM", "model.layer", 1, 9999, GT(1, 1), TRACE_PUSHPOP);
	t.ranges[r].category = cls_layer;
	for (int i = 0; i < DEPTH; i++) {
		r = add_range(&t, "LLM", "model.block", 2 + i, 9998 - i, GT(1, 1), TRACE_PUSHPOP);
		t.ranges[r].category = cls_block;
	}
	r = add_range(&t, "LLM", "model.layer", 1000, 2000, GT(1, 1), TRACE_PUSHPOP);
	t.ranges[r].category = cls_layer;
	add_call(&t, 1500, 1510, GT(1, 1), 1);
	add_kernel(&t, "gemm", 20000, 20100, GP(1), 1, 7);
	assert_int_equal(timeline_build(&tl, &t, &cfg, &err), 0);
	layer = op_named(&tl, &t, "model.layer");
	block = op_named(&tl, &t, "model.block");
	assert_non_null(layer);
	assert_non_null(block);
	assert_int_equal(layer->cls, cls_layer);
	assert_int_equal(layer->calls, 2);
	assert_int_equal(layer->gpu_incl_ns, 200);
	assert_int_equal(layer->gpu_incl_outer_ns, 100);
	assert_int_equal(block->cls, cls_block);
	assert_int_equal(block->calls, DEPTH);
	assert_int_equal(block->gpu_incl_ns, 100 * DEPTH);
	assert_int_equal(block->gpu_incl_outer_ns, 100);
	timeline_release(&tl);
	strbuf_release(&err);
	trace_close(&t);
}

static void test_stage_names(void **state)
{
	assert_true(stage_name_matches("prefill@LLM", "prefill", "LLM"));
	assert_true(stage_name_matches("LLM@prefill", "prefill", "LLM")); /* SCHEMA.md order */
	assert_false(stage_name_matches("prefill@LLM", "prefill", NULL));
	assert_true(stage_name_matches("prefill", "prefill", NULL));
	assert_true(stage_name_matches("prefill", "prefill", "LLM"));
	assert_true(stage_name_matches("prefill@*", "prefill", "X"));
	assert_false(stage_name_matches("decode", "decode_step", NULL));
	assert_true(stage_name_matches("a\\@b@D", "a@b", "D"));
}

static void pyfloat_is(double v, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	format_pyfloat(&sb, v);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_number_formatting(void **state)
{
	struct nsys_summary s;
	int64_t v[] = {1, 2};

	pyfloat_is(3.0, "3.0");
	pyfloat_is(268797.4, "268797.4");
	pyfloat_is(0.1 + 0.2, "0.30000000000000004");
	pyfloat_is(1e16, "1e+16");
	pyfloat_is(3.5e15, "3500000000000000.0");
	pyfloat_is(1e-5, "1e-05");
	pyfloat_is(0.0001, "0.0001");
	pyfloat_is(-2.5, "-2.5");
	/* SQLite round(): halves away from zero on the decimal value */
	assert_true(nsys_round(0.25, 1, NSYS_ROUND_SQLITE_3_42) == 0.3);
	assert_true(nsys_round(0.35, 1, NSYS_ROUND_SQLITE_3_42) == 0.4);
	assert_true(nsys_round(2.675, 2, NSYS_ROUND_SQLITE_3_42) == 2.68);
	assert_true(nsys_round(-2.25, 1, NSYS_ROUND_SQLITE_3_42) == -2.3);
	assert_true(nsys_round(1449006.05, 1, NSYS_ROUND_SQLITE_3_42) == 1449006.1);
	assert_true(nsys_round(51679 / 20.0, 1, NSYS_ROUND_SQLITE_3_42) == 2584.0);
	/* SQLite 3.43+: the digits the double holds, halves away from zero */
	assert_true(nsys_round(51679 / 20.0, 1, NSYS_ROUND_SQLITE_3_43) == 2583.9);
	assert_true(nsys_round(0.25, 1, NSYS_ROUND_SQLITE_3_43) == 0.3);
	assert_true(nsys_round(0.35, 1, NSYS_ROUND_SQLITE_3_43) == 0.3);
	assert_true(nsys_round(2.675, 2, NSYS_ROUND_SQLITE_3_43) == 2.67);
	assert_true(nsys_round(-2.25, 1, NSYS_ROUND_SQLITE_3_43) == -2.3);
	assert_true(nsys_round(1449006.05, 1, NSYS_ROUND_SQLITE_3_43) == 1449006.1);
	assert_true(nsys_round(9.96, 1, NSYS_ROUND_SQLITE_3_43) == 10.0);
	assert_true(nsys_round(0.04, 1, NSYS_ROUND_SQLITE_3_43) == 0.0);
	assert_true(nsys_round(0.05, 1, NSYS_ROUND_SQLITE_3_43) == 0.1);
	assert_true(nsys_round(1e17, 1, NSYS_ROUND_SQLITE_3_43) == 1e17);
	nsys_summarize(v, 2, &s);
	assert_true(s.med == 1.5);
	assert_true(s.stddev > 0.7071067 && s.stddev < 0.7071068); /* sample */
	assert_int_equal(s.total, 3);
}

/* nsys_summarize_weighted() of values with weights is nsys_summarize() of
 * the values repeated, to the bit (nvtx_kern_sum counts nested pairs by
 * their weight). Random small multisets, zero weights among them. */
static void test_summary_weighted(void **state)
{
	unsigned seed = 12345;
	(void)state;

	for (int round = 0; round < 500; round++) {
		int64_t v[8], flat[8 * 9];
		uint64_t w[8];
		size_t n = 1 + (size_t)(round % 8), nf = 0;
		struct nsys_summary a, b;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			v[i] = (int64_t)(i ? v[i - 1] : -50) + (int64_t)(seed >> 16) % 40;
			w[i] = (seed >> 8) % 9;
			for (uint64_t k = 0; k < w[i]; k++)
				flat[nf++] = v[i];
		}
		nsys_summarize_weighted(v, w, n, &a);
		nsys_summarize(flat, nf, &b);
		assert_int_equal(a.n, b.n);
		assert_int_equal(a.total, b.total);
		if (!nf)
			continue;
		assert_int_equal(a.min, b.min);
		assert_int_equal(a.max, b.max);
		assert_true(a.avg == b.avg && a.med == b.med && a.stddev == b.stddev);
	}
}

static int cmp_i64_asc(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* nsys_summarize_unsorted() of shuffled values is nsys_summarize() of them
 * sorted, to the bit: odd and even counts (the median of two middles),
 * ties, negatives, and values large enough for the long double deviation. */
static void test_summary_unsorted(void **state)
{
	uint64_t seed = 99;
	(void)state;

	for (int round = 0; round < 400; round++) {
		int64_t v[300], w[300];
		size_t n = 1 + (size_t)(round * 7 % 300);
		struct nsys_summary a, b;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v[i] = round % 5 == 4 ? (int64_t)(seed >> 2) - (INT64_C(1) << 61)
			       : round % 2    ? (int64_t)(seed >> 40) % 50 - 10
					      : (int64_t)(seed >> 20);
		}
		memcpy(w, v, n * sizeof(*v));
		qsort(w, n, sizeof(*w), cmp_i64_asc);
		nsys_summarize(w, n, &b);
		nsys_summarize_unsorted(v, n, &a);
		assert_int_equal(a.n, b.n);
		assert_int_equal(a.total, b.total);
		assert_int_equal(a.min, b.min);
		assert_int_equal(a.max, b.max);
		assert_true(a.avg == b.avg && a.med == b.med && a.stddev == b.stddev);
	}
}

static void test_csv_writers(void **state)
{
	static const char *const cols[] = {"N", "Name"};
	struct table t;
	struct strbuf out = STRBUF_INIT;

	table_init_names(&t, "rl", cols);
	table_add_i64(&t, 1);
	table_add_str(&t, "a, \"b\"");
	table_add_i64(&t, 2);
	table_add_str(&t, "x\"y");
	table_write_csv(&t, &out);
	/* nsys quotes on commas only and does not double quotes */
	assert_string_equal(out.buf, "N,Name\n1,\"a, \"b\"\"\n2,x\"y\n");
	strbuf_reset(&out);
	table_write_json(&t, &out);
	assert_string_equal(out.buf, "[\n  {\n    \"N\": 1,\n    \"Name\": \"a, \\\"b\\\"\"\n  },\n"
				     "  {\n    \"N\": 2,\n    \"Name\": \"x\\\"y\"\n  }\n]\n");
	table_release(&t);
	strbuf_release(&out);
}

static void test_kernel_csv_reader(void **state)
{
	const char good[] =
	    "Processing [x.sqlite] with [...]\n"
	    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
	    "StdDev (ns),Name\n"
	    "60.0,300,3,100.0,100.0,90,110,10.0,\"f(int, int)\"\n"
	    "40.0,200,1,200.0,200.0,200,200,0.0,g\n";
	const char bad[] = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
			   "StdDev (ns),Name\n"
			   "60.0,3x0,3,100.0,100.0,90,110,10.0,f\n";
	struct kernel_summary ks;
	struct strtab st = STRTAB_INIT;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(kernel_summary_read_csv(&ks, &st, good, strlen(good), "k.csv", &err), 0);
	assert_int_equal(ks.nrows, 2);
	assert_string_equal(strtab_str(&st, ks.rows[0].name), "f(int, int)");
	assert_int_equal(ks.rows[0].calls, 3);
	assert_int_equal(ks.total_ns, 500);
	kernel_summary_release(&ks);
	assert_int_equal(kernel_summary_read_csv(&ks, &st, bad, strlen(bad), "k.csv", &err), -1);
	assert_string_equal(err.buf, "k.csv:2:2: Total Time (ns): '3x0' is not a number");
	strbuf_reset(&err);
	assert_int_equal(kernel_summary_read_csv(&ks, &st, "a,b\n", 4, "k.csv", &err), -1);
	strtab_release(&st);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_exposed),
	    cmocka_unit_test(test_summary_weighted),
	    cmocka_unit_test(test_summary_unsorted),
	    cmocka_unit_test(test_nesting),
	    cmocka_unit_test(test_nesting_overlap_and_repeated_calls),
	    cmocka_unit_test(test_cross_thread_and_other_thread),
	    cmocka_unit_test(test_graph_launch),
	    cmocka_unit_test(test_processes_and_missing_calls),
	    cmocka_unit_test(test_extreme_timestamps_saturate),
	    cmocka_unit_test(test_inverted_timestamps_union),
	    cmocka_unit_test(test_reports_on_memory_trace),
	    cmocka_unit_test(test_stages_and_operators),
	    cmocka_unit_test(test_operator_class_deep),
	    cmocka_unit_test(test_stage_names),
	    cmocka_unit_test(test_number_formatting),
	    cmocka_unit_test(test_csv_writers),
	    cmocka_unit_test(test_kernel_csv_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
