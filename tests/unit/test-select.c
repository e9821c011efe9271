/* test-select.c: kernel selection: coverage arithmetic on the real LLM
 * kernel names of the DeepSeek-OCR nsys stats CSVs, launch-skip math
 * (NVTX-gated or not) on the real nvtx-probe export and on synthetic
 * sequences, include/exclude (exclude wins), NCCL never selected, top_n. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "analysis/select.h"
#include "analysis/select_pass.h"
#include "report/selection_json.h"
#include "core/strbuf.h"
#include "trace/csv.h"

struct launches {
	struct launch *v;
	size_t n, alloc;
	char **names;
	size_t nnames;
	double *totals; /* per kernel of the CSV, in CSV order */
};

static void add_launch(struct launches *L, const char *name, int grid, int64_t dur, int in_stage)
{
	int64_t t = L->n ? L->v[L->n - 1].end + 10 : 0;

	if (L->n == L->alloc) {
		L->alloc = L->alloc ? 2 * L->alloc : 64;
		L->v = realloc(L->v, L->alloc * sizeof(*L->v));
	}
	memset(&L->v[L->n], 0, sizeof(L->v[L->n]));
	L->v[L->n].name = name;
	L->v[L->n].grid[0] = grid;
	L->v[L->n].grid[1] = L->v[L->n].grid[2] = 1;
	L->v[L->n].block[0] = 128;
	L->v[L->n].block[1] = L->v[L->n].block[2] = 1;
	L->v[L->n].start = t;
	L->v[L->n].end = t + dur;
	L->v[L->n].in_stage = in_stage;
	L->n++;
}

/* add_launch() under operator range op (NULL: none). */
static void add_op_launch(struct launches *L, const char *name, int grid, int64_t dur, int in_stage,
			  const char *op)
{
	add_launch(L, name, grid, dur, in_stage);
	L->v[L->n - 1].op = op;
}

static void free_launches(struct launches *L)
{
	for (size_t i = 0; i < L->nnames; i++)
		free(L->names[i]);
	free(L->names);
	free(L->totals);
	free(L->v);
}

/* One selection case: the launches, the options (SELECT_OPTS_INIT until a
 * test changes them), the selection made from them and the error it set.
 * All of it is the case's; case_release() frees it. */
struct sel_case {
	struct launches L;
	struct select_opts o;
	struct selection sel;
	struct strbuf err;
};

static void case_init(struct sel_case *c)
{
	*c = (struct sel_case){.o = SELECT_OPTS_INIT, .err = STRBUF_INIT};
}

/* Selects from c's launches with c's options into c->sel, releasing the
 * selection made before; select_kernels()'s return. */
static int case_try(struct sel_case *c)
{
	selection_release(&c->sel);
	return select_kernels(c->L.v, c->L.n, &c->o, &c->sel, &c->err);
}

/* case_try(), which must succeed: a macro, so that a failure names the
 * test's line. */
#define case_select(c)                                                                             \
	do {                                                                                       \
		if (case_try(c))                                                                   \
			fail_msg("select_kernels: %s", (c)->err.buf);                              \
	} while (0)

static void case_release(struct sel_case *c)
{
	selection_release(&c->sel);
	free_launches(&c->L);
	strbuf_release(&c->err);
}

/* The one-pass plan of c's selection in mangled names at
 * SELECT_PASS_MAX_COUNT, in mode, which must succeed. */
static void plan_ok(struct sel_case *c, enum select_pass_mode mode, struct select_pass *p)
{
	if (select_plan_pass(c->L.v, c->L.n, &c->sel, SELECT_BASE_MANGLED, SELECT_PASS_MAX_COUNT,
			     mode, p, &c->err))
		fail_msg("select_plan_pass: %s", c->err.buf);
}

/* A cuda_gpu_kern_sum CSV -> launches: each kernel's Instances launches
 * whose durations add up exactly to its Total Time, interleaved round-robin
 * as a decode loop would launch them. */
static void load_kern_sum(const char *file, struct launches *L)
{
	char path[1024];
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
	struct csv_reader r;
	size_t *inst = NULL, *left = NULL, done = 0, total_inst = 0;
	int64_t *tot = NULL;

	memset(L, 0, sizeof(*L));
	snprintf(path, sizeof(path), "%s/tests/data/nsys/stats-csv/%s", LLMPROF_SOURCE_DIR, file);
	assert_int_equal(strbuf_read_file(&buf, path), 0);
	csv_reader_init(&r, buf.buf, buf.len, path);
	assert_int_equal(csv_reader_next(&r, &err), 1); /* header */
	assert_true(csv_field_eq(&r.fields[1], "Total Time (ns)"));
	assert_true(csv_field_eq(&r.fields[2], "Instances"));
	assert_true(csv_field_eq(&r.fields[8], "Name"));
	while (csv_reader_next(&r, &err) == 1) {
		struct strbuf name = STRBUF_INIT;
		size_t k = L->nnames++;

		assert_int_equal(r.nr, 9);
		L->names = realloc(L->names, L->nnames * sizeof(*L->names));
		inst = realloc(inst, L->nnames * sizeof(*inst));
		left = realloc(left, L->nnames * sizeof(*left));
		tot = realloc(tot, L->nnames * sizeof(*tot));
		L->totals = realloc(L->totals, L->nnames * sizeof(*L->totals));
		csv_field_unescape(&r.fields[8], &name);
		L->names[k] = strbuf_detach(&name, NULL);
		tot[k] = strtoll(r.fields[1].p, NULL, 10);
		inst[k] = left[k] = strtoull(r.fields[2].p, NULL, 10);
		L->totals[k] = (double)tot[k];
		total_inst += inst[k];
	}
	csv_reader_release(&r);
	while (done < total_inst) {
		for (size_t k = 0; k < L->nnames; k++) {
			int64_t d;

			if (!left[k])
				continue;
			d = tot[k] / (int64_t)inst[k];
			if (left[k] == 1)
				d = tot[k] - d * (int64_t)(inst[k] - 1);
			add_launch(L, L->names[k], 64, d, 1);
			left[k]--;
			done++;
		}
	}
	free(inst);
	free(left);
	free(tot);
	strbuf_release(&buf);
	strbuf_release(&err);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void coverage_case(const char *file, double cov, size_t top_n)
{
	struct sel_case c;
	double *sorted, stage = 0, acc = 0;
	size_t want = 0;

	case_init(&c);
	load_kern_sum(file, &c.L);
	sorted = malloc(c.L.nnames * sizeof(*sorted));
	memcpy(sorted, c.L.totals, c.L.nnames * sizeof(*sorted));
	qsort(sorted, c.L.nnames, sizeof(*sorted), dcmp);
	for (size_t k = 0; k < c.L.nnames; k++)
		stage += sorted[k];
	/* Independent arithmetic: take kernels by time until the share is met. */
	while (want < c.L.nnames && want < top_n && acc < cov * stage)
		acc += sorted[want++];
	c.o.coverage = cov;
	c.o.top_n = top_n;
	case_select(&c);
	assert_int_equal(c.sel.distinct, c.L.nnames);
	assert_int_equal(c.sel.stage_launches, c.L.n);
	assert_true(c.sel.stage_ns == stage);
	assert_int_equal(c.sel.nr, want);
	assert_true(fabs(c.sel.covered_ns - acc) < 1e-6);
	assert_true(fabs(c.sel.coverage - acc / stage) < 1e-12);
	for (size_t i = 0; i < c.sel.nr; i++) {
		assert_true(c.sel.k[i].total_ns == sorted[i]);
		if (i)
			assert_true(c.sel.k[i - 1].total_ns >= c.sel.k[i].total_ns);
	}
	if (want < c.L.nnames)
		assert_string_equal(c.sel.stop_reason,
				    acc >= cov * stage ? "coverage reached" : "top_n reached");
	free(sorted);
	case_release(&c);
}

static void test_coverage_real_names(void **state)
{
	coverage_case("dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv", 0.95, 30);
	coverage_case("dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv", 0.5, 30);
	coverage_case("dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv", 1.0, 1000);
	coverage_case("dsocr-rtx5090-prefill.cuda_gpu_kern_sum.csv", 0.95, 30);
	coverage_case("dsocr-rtx5090-prefill.cuda_gpu_kern_sum.csv", 0.95, 3);
	coverage_case("dsocr-rtx5090-all-stage.cuda_gpu_kern_sum.csv", 0.95, 30);
}

/* The regex in --kernel-name matches the real, template-heavy name. */
static void test_regex_escape_real_names(void **state)
{
	struct sel_case c;

	case_init(&c);
	load_kern_sum("dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv", &c.L);
	c.o.top_n = 1000;
	c.o.coverage = 1.0;
	case_select(&c);
	for (size_t i = 0; i < c.sel.nr; i++) {
		regex_t re;
		const char *pat = c.sel.k[i].kernel_name + strlen("regex:");

		assert_true(strncmp(c.sel.k[i].kernel_name, "regex:^", 7) == 0);
		assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
		for (size_t j = 0; j < c.sel.nr; j++)
			assert_int_equal(regexec(&re, c.sel.k[j].name, 0, NULL, 0) == 0, i == j);
		regfree(&re);
		/* Each kernel is launched round-robin from the start: skip 0. */
		assert_int_equal(c.sel.k[i].launch_skip, 0);
	}
	case_release(&c);
}

/* A repeated layer's index is not an operator of its own: the same kernel
 * under model.layers.0.mlp and model.layers.1.mlp is one class, so a
 * 16-layer PyTorch program does not split each kernel sixteen ways. */
static void test_layer_index_same_op(void **state)
{
	struct sel_case c;
	static const char *const ops[] = {
	    "model.layers.0.mlp.down_proj [Linear]", "model.layers.1.mlp.down_proj [Linear]",
	    "model.layers.12.mlp.down_proj [Linear]", "model.layers.1.self_attn.o_proj [Linear]"};

	case_init(&c);
	assert_true(select_same_op(NULL, NULL));
	assert_false(select_same_op("a", NULL));
	assert_true(select_same_op(ops[0], ops[2]));
	assert_false(select_same_op(ops[1], ops[3]));
	assert_true(select_same_op("3.mlp", "17.mlp"));
	assert_true(select_same_op("blocks.7", "blocks.12"));
	assert_false(select_same_op("blocks.7", "blocks.7x"));
	assert_false(select_same_op("blocks.7a", "blocks.8a"));
	assert_false(select_same_op("layer7", "layer8"));
	assert_false(select_same_op("model.layers.3.mlp", "model.layers.mlp"));

	for (size_t i = 0; i < 4; i++)
		add_op_launch(&c.L, "gemm", 8, 100, 1, ops[i]);

	c.o.top_n = 10;
	c.o.coverage = 1.0;
	case_select(&c);
	assert_int_equal(c.sel.distinct, 2);
	assert_int_equal(c.sel.nr, 2);
	case_release(&c);
	(void)state;
}

static void test_launch_skip_math(void **state)
{
	struct sel_case c;

	case_init(&c);
	/* warm-up outside the stage, then the stage; "gemm" with two launch
	 * configurations: -k by name counts both. */
	add_launch(&c.L, "gemm", 8, 100, 0);  /* 0 */
	add_launch(&c.L, "norm", 1, 10, 0);   /* 1 */
	add_launch(&c.L, "gemm", 16, 100, 0); /* 2 */
	add_launch(&c.L, "gemm", 8, 500, 1);  /* 3: first in-stage gemm/8 */
	add_launch(&c.L, "norm", 1, 10, 1);   /* 4 */
	add_launch(&c.L, "gemm", 16, 900, 1); /* 5: first in-stage gemm/16 */
	add_launch(&c.L, "gemm", 8, 500, 1);  /* 6 */
	add_launch(&c.L, "norm", 1, 10, 1);   /* 7 */
	c.o.coverage = 1.0;
	case_select(&c);
	assert_int_equal(c.sel.nr, 3);
	/* gemm/8: 1000 ns, gemm/16: 900 ns, norm: 20 ns */
	assert_int_equal(c.sel.k[0].grid[0], 8);
	assert_int_equal(c.sel.k[0].launch_index, 3);
	assert_int_equal(c.sel.k[0].launch_skip, 2); /* launches 0 and 2 */
	assert_string_equal(c.sel.k[0].kernel_name, "regex:^gemm$");
	assert_string_equal(c.sel.k[0].kernel_id, "::regex:^gemm$:3");
	assert_int_equal(c.sel.k[1].grid[0], 16);
	assert_int_equal(c.sel.k[1].launch_skip, 3); /* launches 0, 2 and 3 */
	case_release(&c);
}

static void test_launch_skip_gated(void **state)
{
	struct sel_case c;

	case_init(&c);
	add_launch(&c.L, "gemm", 8, 100, 0);
	add_launch(&c.L, "gemm", 16, 100, 0);
	add_launch(&c.L, "gemm", 8, 500, 1);
	add_launch(&c.L, "gemm", 16, 900, 1);
	c.o.coverage = 1.0;
	c.o.nvtx_gated = 1; /* ncu sees only launches inside the range */
	case_select(&c);
	assert_int_equal(c.sel.nr, 2);
	assert_int_equal(c.sel.k[0].grid[0], 16);
	assert_int_equal(c.sel.k[0].launch_skip, 1); /* launch 2 only */
	assert_int_equal(c.sel.k[1].grid[0], 8);
	assert_int_equal(c.sel.k[1].launch_skip, 0);
	c.o.nvtx_gated = 0;
	case_select(&c);
	assert_int_equal(c.sel.k[0].launch_skip, 3);
	assert_int_equal(c.sel.k[1].launch_skip, 2);
	case_release(&c);
}

static void test_function_base(void **state)
{
	struct sel_case c;

	case_init(&c);
	add_launch(&c.L, "void k<int>(T1)", 8, 100, 1);
	add_launch(&c.L, "void k<float>(T1)", 8, 300, 1);
	c.o.coverage = 1.0;
	c.o.base = SELECT_BASE_FUNCTION;
	case_select(&c);
	assert_string_equal(c.sel.k[0].short_name, "k");
	assert_string_equal(c.sel.k[0].kernel_name, "regex:^k$");
	assert_int_equal(c.sel.k[0].launch_skip, 1); /* k<int> matches "k" too */
	case_release(&c);
}

static void test_filters_and_nccl(void **state)
{
	struct sel_case c;
	struct strbuf js = STRBUF_INIT;
	const char *inc[] = {"gemm|attn"}, *exc[] = {"^gemm_small"}, *bad[] = {"("};

	case_init(&c);
	add_launch(&c.L, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096>)",
		   1, 5000, 1);
	add_launch(&c.L, "gemm_big", 8, 1000, 1);
	add_launch(&c.L, "gemm_small", 8, 800, 1);
	add_launch(&c.L, "attn", 8, 600, 1);
	add_launch(&c.L, "rmsnorm", 8, 400, 1);
	c.o.coverage = 1.0;
	c.o.include = inc;
	c.o.nr_include = 1;
	c.o.exclude = exc;
	c.o.nr_exclude = 1;
	case_select(&c);
	assert_int_equal(c.sel.nr, 2); /* gemm_big, attn */
	assert_string_equal(c.sel.k[0].name, "gemm_big");
	assert_string_equal(c.sel.k[1].name, "attn");
	assert_int_equal(c.sel.nccl_kernels, 1);
	assert_true(c.sel.nccl_ns == 5000);
	assert_int_equal(c.sel.excluded_kernels, 2); /* gemm_small (exclude wins), rmsnorm */
	assert_true(c.sel.stage_ns == 7800);
	assert_true(fabs(c.sel.coverage - 1600.0 / 7800) < 1e-12);
	assert_string_equal(c.sel.stop_reason, "no more kernels");
	selection_json(&c.sel, &c.o, NULL, &js);
	assert_non_null(strstr(js.buf, "\"nccl_kernels_not_replayed\": 1"));
	assert_non_null(strstr(js.buf, "\"nccl_gpu_time_ns\": 5000.0"));
	assert_non_null(strstr(js.buf, "\"stage_gpu_time_ns\": 7800.0"));
	assert_non_null(strstr(js.buf, "\"selected\": 2,"));
	assert_non_null(strstr(js.buf, "\"kernel_name\": \"regex:^gemm_big$\""));
	assert_non_null(strstr(js.buf, "\"exclude_patterns\": [\n    \"^gemm_small\""));
	/* top_n */
	c.o.nr_include = c.o.nr_exclude = 0;
	c.o.top_n = 2;
	case_select(&c);
	assert_int_equal(c.sel.nr, 2);
	assert_string_equal(c.sel.stop_reason, "top_n reached");
	/* errors */
	c.o.exclude = bad;
	c.o.nr_exclude = 1;
	assert_int_equal(case_try(&c), -1);
	assert_non_null(strstr(c.err.buf, "kernel pattern '('"));
	c.o.nr_exclude = 0;
	c.o.coverage = 0;
	assert_int_equal(case_try(&c), -1);
	case_release(&c);
	strbuf_release(&js);
}

/* The real nvtx-probe export: prefill launches add x3, decode_all launches
 * (scale, add) x4, then A/B launch more. Stage = LLM@decode_all. */
static void test_nvtx_probe(void **state)
{
	char path[1024];
	sqlite3 *db;
	sqlite3_stmt *st;
	struct sel_case c;
	char *names[32];
	size_t nn = 0;

	case_init(&c);
	snprintf(path, sizeof(path), "%s/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite",
		 LLMPROF_SOURCE_DIR);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(
		db,
		"SELECT s.value, k.start, k.end, k.gridX, k.blockX, k.deviceId, "
		"(SELECT count(*) FROM NVTX_EVENTS n JOIN NVTX_EVENTS d ON d.eventType = 75 "
		" AND d.domainId = n.domainId AND d.text = 'LLM' "
		" WHERE n.text = 'decode_all' AND r.start BETWEEN n.start AND n.end) "
		"FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
		"JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
		"ORDER BY r.start",
		-1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		names[nn] = strdup((const char *)sqlite3_column_text(st, 0));
		add_launch(&c.L, names[nn], sqlite3_column_int(st, 3), 0,
			   sqlite3_column_int(st, 6));
		c.L.v[c.L.n - 1].start = sqlite3_column_int64(st, 1);
		c.L.v[c.L.n - 1].end = sqlite3_column_int64(st, 2);
		c.L.v[c.L.n - 1].block[0] = sqlite3_column_int(st, 4);
		nn++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(c.L.n, 14);
	c.o.coverage = 1.0;
	c.o.nvtx_gated = 1;
	case_select(&c);
	assert_int_equal(c.sel.stage_launches, 8);
	assert_int_equal(c.sel.nr, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(c.sel.k[i].calls, 4);
		assert_int_equal(c.sel.k[i].launch_skip, 0);
	}
	c.o.nvtx_gated = 0; /* -k alone: the three prefill adds come first */
	case_select(&c);
	for (size_t i = 0; i < 2; i++) {
		if (!strncmp(c.sel.k[i].name, "add(", 4)) {
			assert_int_equal(c.sel.k[i].launch_skip, 3);
			assert_string_equal(c.sel.k[i].kernel_name,
					    "regex:^add\\(float \\*, const float \\*, int\\)$");
		} else {
			assert_int_equal(c.sel.k[i].launch_skip, 0);
		}
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	case_release(&c);
}

/* Mangled names: the H100 showed that a demangled regex built from the
 * trace can match nothing under ncu, so when every launch has a mangled
 * name the selection uses it (exact in both tools), and the launch-skip
 * counts launches of the same mangled name only: two instantiations of one
 * template are two kernels. */
static void test_mangled_base(void **state)
{
	static const char *const dm[] = {"void k_gemv<__nv_bfloat16, __nv_bfloat16>(int)",
					 "void k_gemv<__nv_bfloat16, float>(int)"};
	static const char *const mg[] = {"_Z6k_gemvI13__nv_bfloat16S0_EvPT_i",
					 "_Z6k_gemvI13__nv_bfloat16fEvPT0_i"};
	struct sel_case c;

	case_init(&c);
	/* warm-up outside the stage: bf16 x3, float x1; then the stage */
	for (int i = 0; i < 3; i++)
		add_launch(&c.L, dm[0], 8, 100, 0);
	add_launch(&c.L, dm[1], 8, 100, 0);
	for (int i = 0; i < 4; i++) {
		add_launch(&c.L, dm[1], 8, 50, 1);
		add_launch(&c.L, dm[0], 8, 500, 1);
	}
	for (size_t i = 0; i < c.L.n; i++)
		c.L.v[i].mangled = c.L.v[i].name == dm[0] ? mg[0] : mg[1];
	assert_int_equal(select_best_base(c.L.v, c.L.n, SELECT_BASE_DEMANGLED),
			 SELECT_BASE_MANGLED);
	assert_string_equal(select_base_name(SELECT_BASE_MANGLED), "mangled");
	c.o.base = SELECT_BASE_MANGLED;
	c.o.coverage = 1.0;
	case_select(&c);
	assert_int_equal(c.sel.nr, 2);
	assert_string_equal(c.sel.k[0].kernel_name, "regex:^_Z6k_gemvI13__nv_bfloat16S0_EvPT_i$");
	/* first bf16 launch in the stage is launch 5; before it: 3 bf16 launches */
	assert_int_equal(c.sel.k[0].launch_skip, 3);
	assert_string_equal(c.sel.k[1].kernel_name, "regex:^_Z6k_gemvI13__nv_bfloat16fEvPT0_i$");
	assert_int_equal(c.sel.k[1].launch_skip, 1);
	/* one launch without a mangled name: fall back for all */
	c.L.v[2].mangled = NULL;
	assert_int_equal(select_best_base(c.L.v, c.L.n, SELECT_BASE_FUNCTION),
			 SELECT_BASE_FUNCTION);
	case_release(&c);
}

/* The one-pass plan on the launch pattern of the filter probe run on the
 * H100 (scripts/gpu/probe/ncu_filter_probe.cu): a warm-up step outside the
 * stage, then three steps of kA(small) kB kA(large) kC<4> kC<8> kB, where
 * kA serves two operators under one launch configuration. ncu 2025.3.1 with
 * --filter-mode per-launch-config --launch-count 2 inside the stage measured,
 * in this order: kA kB kA kC<4> kC<8> kB kC<4> kC<8>
 * (docs/validation/ncu-one-pass-h100.md). */
static void probe_pattern(struct launches *L)
{
	static const char *const op[6] = {"a.small", NULL, "a.large", NULL, NULL, NULL};
	static const char *const nm[6] = {"_Z2kAPfi", "_Z2kBPfi", "_Z2kAPfi",
					  "_Z2kCPfi", "_Z2kCPfi", "_Z2kBPfi"};
	static const int grid[6] = {4, 4, 4, 4, 8, 4};
	static const int64_t dur[6] = {6000, 2500, 346000, 2800, 2700, 2600};

	for (int step = 0; step < 4; step++)
		for (int i = 0; i < 6; i++) {
			add_launch(L, nm[i], grid[i], dur[i], step > 0);
			L->v[L->n - 1].mangled = nm[i];
			L->v[L->n - 1].op = op[i];
		}
}

/* The probe pattern, every class taken (coverage 1), mangled names: the
 * selection both one-pass tests plan from. */
#define probe_case(c)                                                                              \
	do {                                                                                       \
		case_init(c);                                                                      \
		probe_pattern(&(c)->L);                                                            \
		(c)->o.coverage = 1.0;                                                             \
		(c)->o.base = SELECT_BASE_MANGLED;                                                 \
		case_select(c);                                                                    \
	} while (0)

static void test_one_pass_plan(void **state)
{
	struct sel_case c;
	struct select_pass p = SELECT_PASS_INIT;
	static const size_t want[] = {6, 7, 8, 9, 10, 11, 15, 16};
	/* what ncu answered, in its ID order */
	static const struct {
		const char *name;
		int grid;
	} got[] = {{"_Z2kAPfi", 4}, {"_Z2kBPfi", 4}, {"_Z2kAPfi", 4},
		   {"_Z2kCPfi", 4}, {"_Z2kCPfi", 8}, {"_Z2kBPfi", 4},
		   {"_Z2kCPfi", 4}, {"_Z2kCPfi", 8}, {"_Z2kZPfi", 4}};
	struct select_result_key r[9];
	size_t out[9];

	(void)state;
	probe_case(&c);
	/* kA is two classes (its two operators): five in all */
	assert_int_equal(c.sel.nr, 5);
	plan_ok(&c, SELECT_PASS_PER_CONFIG, &p);
	assert_int_equal(p.skip_before, 6);
	assert_int_equal(p.count, 2);
	assert_int_equal(p.nunreached, 0);
	assert_string_equal(p.kernel_name, "regex:^(_Z2kAPfi|_Z2kBPfi|_Z2kCPfi)$");
	assert_int_equal(p.nexpect, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < p.nexpect; i++)
		assert_int_equal(p.expect[i].launch_index, want[i]);
	memset(r, 0, sizeof(r));
	for (size_t i = 0; i < 9; i++) {
		r[i].name = got[i].name;
		r[i].grid[0] = got[i].grid;
		r[i].grid[1] = r[i].grid[2] = 1;
		r[i].block[0] = 128;
		r[i].block[1] = r[i].block[2] = 1;
	}
	/* every expected result maps to its launch; one the plan did not
	 * expect maps to none */
	assert_int_equal(select_pass_map(&p, r, 9, out), 8);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(out[i], want[i]);
	assert_int_equal(out[8], SIZE_MAX);
	/* the large kA is its class's first launch of kA's second class:
	 * mapped to launch 8 (the a.large operator), not to the small one */
	assert_string_equal(c.L.v[out[2]].op, "a.large");
	select_pass_release(&p);

	/* capped at one launch per key, kA's second class needs its own run */
	assert_int_equal(select_plan_pass(c.L.v, c.L.n, &c.sel, SELECT_BASE_MANGLED, 1,
					  SELECT_PASS_PER_CONFIG, &p, &c.err),
			 0);
	assert_int_equal(p.count, 1);
	assert_int_equal(p.nunreached, 1);
	assert_string_equal(c.sel.k[p.unreached[0]].op, "a.large");
	assert_int_equal(p.nexpect, 4); /* kA, kB, kC<4>, kC<8> */
	select_pass_release(&p);

	/* without operator ranges kA is one class: one launch per key */
	for (size_t i = 0; i < c.L.n; i++)
		c.L.v[i].op = NULL;
	case_select(&c);
	assert_int_equal(c.sel.nr, 4);
	plan_ok(&c, SELECT_PASS_PER_CONFIG, &p);
	assert_int_equal(p.count, 1);
	select_pass_release(&p);
	case_release(&c);
}

/* The window form on the probe pattern: the stage's first step
 * kA(small) kB kA(large) kC<4> kC<8> holds every class once, so ncu (global
 * filter mode) skips the 6 launches of the warm-up step and measures 5:
 * one result per class, where per-launch-config asks for 8 (kB, kC<4> and
 * kC<8> twice each). */
static void test_one_pass_window(void **state)
{
	struct sel_case c;
	struct select_pass p = SELECT_PASS_INIT;
	static const size_t want[] = {6, 7, 8, 9, 10};
	static const struct {
		const char *name;
		int grid;
	} got[] = {
	    {"_Z2kAPfi", 4}, {"_Z2kBPfi", 4}, {"_Z2kAPfi", 4}, {"_Z2kCPfi", 4}, {"_Z2kCPfi", 8}};
	struct select_result_key r[5];
	size_t out[5];

	(void)state;
	probe_case(&c);
	assert_int_equal(c.sel.nr, 5);
	/* per-launch-config: 8 results, 5 classes and 3 repeats */
	plan_ok(&c, SELECT_PASS_PER_CONFIG, &p);
	assert_int_equal(p.window, 0);
	assert_int_equal(p.nexpect, 8);
	assert_int_equal(p.selected_measured, 5);
	assert_int_equal(p.repeats, 3);
	assert_int_equal(p.other_classes, 0);
	select_pass_release(&p);
	/* auto takes the window: fewer results */
	plan_ok(&c, SELECT_PASS_AUTO, &p);
	assert_int_equal(p.window, 1);
	assert_int_equal(p.other_form_expect, 8);
	assert_int_equal(p.skip, 6);
	assert_int_equal(p.count, 5);
	assert_int_equal(p.nexpect, 5);
	assert_int_equal(p.selected_measured, 5);
	assert_int_equal(p.repeats, 0);
	assert_int_equal(p.nunreached, 0);
	assert_string_equal(p.kernel_name, "regex:^(_Z2kAPfi|_Z2kBPfi|_Z2kCPfi)$");
	for (size_t i = 0; i < p.nexpect; i++)
		assert_int_equal(p.expect[i].launch_index, want[i]);
	memset(r, 0, sizeof(r));
	for (size_t i = 0; i < 5; i++) {
		r[i].name = got[i].name;
		r[i].grid[0] = got[i].grid;
		r[i].grid[1] = r[i].grid[2] = 1;
		r[i].block[0] = 128;
		r[i].block[1] = r[i].block[2] = 1;
	}
	assert_int_equal(select_pass_map(&p, r, 5, out), 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(out[i], want[i]);
	assert_string_equal(c.L.v[out[2]].op, "a.large");
	select_pass_release(&p);

	/* only kA.large and kC<8> selected (kC<8> made the longer kC): the
	 * window is the shortest run of kA and kC launches holding both
	 * (kA.large, kC<4>, kC<8>), and the kC<4> inside it is a class nobody
	 * selected */
	for (size_t i = 0; i < c.L.n; i++)
		if (c.L.v[i].grid[0] == 8)
			c.L.v[i].end = c.L.v[i].start + 10000;
	c.o.top_n = 2;
	case_select(&c);
	assert_int_equal(c.sel.nr, 2);
	assert_string_equal(c.sel.k[0].op, "a.large");
	plan_ok(&c, SELECT_PASS_WINDOW, &p);
	assert_int_equal(p.nexpect, 3);
	assert_int_equal(p.expect[0].launch_index, 8);
	/* kA kC kC of the warm-up step, then kA(small) of the first step */
	assert_int_equal(p.skip, 5);
	assert_int_equal(p.selected_measured, 2);
	assert_int_equal(p.other_classes, 1);
	select_pass_release(&p);

	/* more than one launch per kernel asked for: auto keeps per-launch-config */
	c.o.coverage = 1.0;
	c.o.top_n = 30;
	c.o.launch_count = 2;
	case_select(&c);
	plan_ok(&c, SELECT_PASS_AUTO, &p);
	assert_int_equal(p.window, 0);
	assert_int_equal(p.count, 2);
	select_pass_release(&p);
	case_release(&c);
}

/* A transformer's decode as the PyTorch startup module names it: 2 steps of
 * 4 layers (norm: mul; attn: gemv q, gemv o, same configuration; mlp:
 * mul, gemv down), then lm_head, each kernel under its module's range. The
 * classes merge the layers (select_same_op), so one layer and the tail hold
 * each once: the window measures every class once, where per-launch-config
 * measures every configuration twice (q and o share theirs). */
static void test_one_pass_window_layers(void **state)
{
	struct sel_case c;
	struct select_pass p = SELECT_PASS_INIT;
	static char ops[4][5][48];
	static const char *const leaf[5] = {"input_layernorm", "self_attn.q_proj",
					    "self_attn.o_proj", "mlp", "mlp.down_proj"};
	static const char *const nm[5] = {"mul", "gemv", "gemv", "mul", "gemv"};
	static const int grid[5] = {16, 32, 32, 64, 16};

	(void)state;
	case_init(&c);
	for (int layer = 0; layer < 4; layer++)
		for (int k = 0; k < 5; k++)
			snprintf(ops[layer][k], sizeof(ops[layer][k]), "model.layers.%d.%s", layer,
				 leaf[k]);
	add_launch(&c.L, "prefill_only", 8, 1000, 0);
	for (int step = 0; step < 2; step++) {
		for (int layer = 0; layer < 4; layer++)
			for (int k = 0; k < 5; k++)
				add_op_launch(&c.L, nm[k], grid[k], 100 + 10 * k, 1, ops[layer][k]);
		add_op_launch(&c.L, "gemv", 512, 900, 1, "lm_head");
	}
	c.o.coverage = 1.0;
	case_select(&c);
	assert_int_equal(c.sel.nr, 6);
	assert_int_equal(select_plan_pass(c.L.v, c.L.n, &c.sel, SELECT_BASE_DEMANGLED,
					  SELECT_PASS_MAX_COUNT, SELECT_PASS_PER_CONFIG, &p,
					  &c.err),
			 0);
	/* mul<16>, mul<64>, gemv<32> x2 (q, o), gemv<16>, gemv<512>: each twice */
	assert_int_equal(p.count, 2);
	assert_int_equal(p.nexpect, 10);
	assert_int_equal(p.repeats, 4);
	select_pass_release(&p);
	assert_int_equal(select_plan_pass(c.L.v, c.L.n, &c.sel, SELECT_BASE_DEMANGLED,
					  SELECT_PASS_MAX_COUNT, SELECT_PASS_AUTO, &p, &c.err),
			 0);
	assert_int_equal(p.window, 1);
	/* the last layer of step 0 (launches 16-20) and lm_head (21) */
	assert_int_equal(p.nexpect, 6);
	assert_int_equal(p.expect[0].launch_index, 16);
	assert_int_equal(p.expect[5].launch_index, 21);
	assert_int_equal(p.selected_measured, 6);
	assert_int_equal(p.repeats, 0);
	assert_int_equal(p.other_classes, 0);
	/* every launch of mul and gemv before launch 16: 15 of the 16 decode
	 * launches before it (prefill_only is neither) */
	assert_int_equal(p.skip, 15);
	select_pass_release(&p);
	case_release(&c);
}

/* The window against runs of their own: kA under operator x ten times, kB
 * sixty times, then kA with no operator (the PyTorch module ranges went off):
 * per-launch-config (at most 4 launches a configuration) cannot reach the
 * last class and leaves it a run of its own; the window holding all three
 * classes is 62 launches. Auto takes per-launch-config while the window asks
 * for more than SELECT_PASS_RUN_RESULTS results more than it, and the
 * window once it asks for fewer. */
static void test_one_pass_window_cost(void **state)
{
	struct sel_case c;
	struct select_pass p = SELECT_PASS_INIT;
	int nb[2] = {60, 20};

	(void)state;
	case_init(&c);
	for (int round = 0; round < 2; round++) {
		c.L.n = 0;
		add_launch(&c.L, "prefill_only", 8, 1000, 0);
		for (int i = 0; i < 10; i++)
			add_op_launch(&c.L, "kA", 4, 100, 1, "x");
		for (int i = 0; i < nb[round]; i++)
			add_op_launch(&c.L, "kB", 4, 50, 1, "y");
		add_launch(&c.L, "kA", 4, 100, 1);
		c.o.coverage = 1.0;
		case_select(&c);
		assert_int_equal(c.sel.nr, 3);
		plan_ok(&c, SELECT_PASS_PER_CONFIG, &p);
		assert_int_equal(p.nunreached, 1);
		assert_int_equal(p.nexpect, 2);
		select_pass_release(&p);
		plan_ok(&c, SELECT_PASS_AUTO, &p);
		if (round == 0) { /* 62 > 2 + 25: per-launch-config and one run more */
			assert_int_equal(p.window, 0);
			assert_int_equal(p.nunreached, 1);
			assert_int_equal(p.other_form_expect, 62);
		} else { /* 22 < 2 + 25: the window, no run more */
			assert_int_equal(p.window, 1);
			assert_int_equal(p.nexpect, 22);
			assert_int_equal(p.nunreached, 0);
		}
		select_pass_release(&p);
	}
	case_release(&c);
}

/* Classes of one kernel and configuration under other operators: within
 * the tolerance of a selected class's mean duration they are its same work
 * (its time covered, no result of their own, measured on the group's
 * earliest launch); outside it, and with the tolerance 0, classes of their
 * own. Four steps with operator ranges, then six after the ranges went off. */
static void test_same_work(void **state)
{
	struct sel_case c;
	struct strbuf js = STRBUF_INIT;

	case_init(&c);
	for (int st = 0; st < 10; st++) {
		int ops = st < 4;

		add_op_launch(&c.L, "gemm", 8, ops ? 1000 : 1020, 1,
			      ops ? "model.layers.0.attn.q" : NULL);
		if (ops) {
			add_op_launch(&c.L, "gemm", 8, 1040, 1, "model.layers.0.attn.o");
			add_launch(&c.L, "gemm", 8, 1500, 1); /* another shape */
			c.L.v[c.L.n - 1].op = "model.layers.0.attn.k";
		}
		add_op_launch(&c.L, "norm", 1, 100, 1, ops ? "model.layers.0.ln" : NULL);
	}
	c.o.top_n = 10;
	c.o.coverage = 1.0;
	c.o.merge_tolerance = 0.1;
	case_select(&c);
	assert_int_equal(c.sel.distinct, 6);
	assert_int_equal(c.sel.nr, 3);
	assert_int_equal(c.sel.merged, 3);
	assert_true(fabs(c.sel.merged_ns - (4000 + 6120 + 400)) < 1e-6);
	assert_true(fabs(c.sel.coverage - 1.0) < 1e-12);
	/* gemm without operator (6 x 1020) ran under q, o and k before: a
	 * mixture of their launches, so it takes them (k first, by time) and is
	 * the same work of the nearest by mean, o (1040), which stands for q
	 * (1000) too */
	assert_string_equal(c.sel.k[0].op, "model.layers.0.attn.k"); /* 47 % off */
	assert_int_equal(c.sel.k[0].nr_same, 0);
	assert_int_equal(c.sel.k[0].launch_index, 2);
	assert_int_equal(c.sel.k[0].launch_skip, 2);
	assert_string_equal(c.sel.k[1].op, "model.layers.0.attn.o");
	assert_int_equal(c.sel.k[1].calls, 4);
	assert_int_equal(c.sel.k[1].nr_same, 2);
	assert_string_equal(c.sel.k[1].same[0].op, "model.layers.0.attn.q");
	assert_null(c.sel.k[1].same[1].op);
	assert_int_equal(c.sel.k[1].launch_index, 0); /* q's, the group's first */
	assert_int_equal(c.sel.k[1].launch_skip, 0);
	assert_string_equal(c.sel.k[1].kernel_id, "::regex:^gemm$:1");
	assert_null(c.sel.k[2].op);		 /* norm: no operator (600) stands for ln (400): */
	assert_int_equal(c.sel.k[2].nr_same, 1); /* one operator is no mixture */
	assert_int_equal(c.sel.k[2].launch_index, 3);
	assert_true(select_kernel_covers(&c.sel.k[1], &c.L.v[0]));
	assert_true(select_kernel_covers(&c.sel.k[1], &c.L.v[c.L.n - 2]));
	assert_false(select_kernel_covers(&c.sel.k[1], &c.L.v[2]));
	assert_false(select_kernel_covers(&c.sel.k[1], &c.L.v[3]));
	assert_true(select_kernel_covers(&c.sel.k[2], &c.L.v[3]));
	selection_json(&c.sel, &c.o, NULL, &js);
	assert_non_null(strstr(js.buf, "\"same_work_classes\": 3"));
	assert_non_null(
	    strstr(js.buf, "\"operator\": \"model.layers.0.attn.q\",\n          \"calls\": 4"));

	/* tolerance 0: a class per operator, as before */
	c.o.merge_tolerance = 0;
	case_select(&c);
	assert_int_equal(c.sel.nr, 6);
	assert_int_equal(c.sel.merged, 0);
	assert_int_equal(c.sel.k[0].nr_same, 0);

	/* top_n 1: the mixture's first part fills it, and the selection stops */
	c.o.merge_tolerance = 0.1;
	c.o.top_n = 1;
	case_select(&c);
	assert_int_equal(c.sel.nr, 1);
	assert_string_equal(c.sel.stop_reason, "top_n reached");

	c.o.merge_tolerance = -0.1;
	assert_int_equal(case_try(&c), -1);
	assert_non_null(strstr(c.err.buf, "run.same_work_tolerance"));
	free_launches(&c.L);

	/* past the stop: a class the selected result stands for is covered
	 * too (A under y, 1 % off), one that would need a result is not (B) */
	memset(&c.L, 0, sizeof(c.L));
	for (int i = 0; i < 10; i++) {
		add_op_launch(&c.L, "A", 4, 100, 1, "x");
		if (i < 2)
			add_op_launch(&c.L, "A", 4, 101, 1, "y");
		if (i < 4)
			add_op_launch(&c.L, "B", 4, 50, 1, "z");
	}
	c.o.top_n = 10;
	c.o.coverage = 0.7;
	c.o.merge_tolerance = 0.1;
	case_select(&c);
	assert_int_equal(c.sel.nr, 1);
	assert_string_equal(c.sel.stop_reason, "coverage reached");
	assert_int_equal(c.sel.merged, 1);
	assert_string_equal(c.sel.k[0].same[0].op, "y");
	assert_true(fabs(c.sel.coverage - 1202.0 / 1402.0) < 1e-12);
	case_release(&c);
	strbuf_release(&js);
	(void)state;
}

/* Random stages (3 kernels, 3 configurations, 4 operators or none, random
 * durations): whatever the mix, the selection's books balance. Every
 * covered nanosecond is a selected class's or one of its same work's, each
 * class is counted once, the measured launch belongs to its group and is
 * the group's first, and top_n holds. */
static void test_same_work_invariants(void **state)
{
	static const char *const names[] = {"ka", "kb", "kc"};
	static const char *const ops[] = {NULL, "m.layers.0.a", "m.layers.1.a", "m.b", "m.c"};
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		struct sel_case c;
		size_t n = 5 + (size_t)(rand_r(&seed) % 200);
		double sum = 0;
		size_t classes = 0;

		case_init(&c);
		for (size_t i = 0; i < n; i++)
			add_op_launch(&c.L, names[rand_r(&seed) % 3], 1 + (int)(rand_r(&seed) % 3),
				      50 + (int64_t)(rand_r(&seed) % 100), rand_r(&seed) % 8 != 0,
				      ops[rand_r(&seed) % 5]);

		c.o.top_n = 1 + (size_t)(rand_r(&seed) % 12);
		c.o.coverage = 0.05 + (rand_r(&seed) % 96) / 100.0;
		c.o.merge_tolerance = (rand_r(&seed) % 4) * 0.1;
		case_select(&c);
		assert_true(c.sel.nr <= c.o.top_n);
		for (size_t k = 0; k < c.sel.nr; k++) {
			const struct selected_kernel *x = &c.sel.k[k];
			size_t first = SIZE_MAX;

			sum += x->total_ns;
			classes += 1 + x->nr_same;
			assert_true(select_kernel_covers(x, &c.L.v[x->launch_index]));
			assert_true(c.L.v[x->launch_index].in_stage);
			for (size_t i = 0; i < c.L.n && first == SIZE_MAX; i++)
				if (c.L.v[i].in_stage && select_kernel_covers(x, &c.L.v[i]))
					first = i;
			assert_int_equal(x->launch_index, first);
			for (size_t w = 0; w < x->nr_same; w++)
				sum += x->same[w].total_ns;
			/* a launch is one selected kernel's, never two */
			for (size_t j = k + 1; j < c.sel.nr; j++)
				assert_false(
				    select_kernel_covers(&c.sel.k[j], &c.L.v[x->launch_index]));
		}
		assert_true(fabs(sum - c.sel.covered_ns) < 1e-6);
		assert_true(classes <= c.sel.distinct);
		assert_true(c.sel.merged == classes - c.sel.nr);
		assert_true(c.sel.covered_ns <= c.sel.stage_ns + 1e-6);
		if (c.o.merge_tolerance == 0)
			assert_int_equal(c.sel.merged, 0);
		case_release(&c);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coverage_real_names),
	    cmocka_unit_test(test_regex_escape_real_names),
	    cmocka_unit_test(test_launch_skip_math),
	    cmocka_unit_test(test_launch_skip_gated),
	    cmocka_unit_test(test_function_base),
	    cmocka_unit_test(test_filters_and_nccl),
	    cmocka_unit_test(test_nvtx_probe),
	    cmocka_unit_test(test_mangled_base),
	    cmocka_unit_test(test_one_pass_plan),
	    cmocka_unit_test(test_one_pass_window),
	    cmocka_unit_test(test_one_pass_window_layers),
	    cmocka_unit_test(test_one_pass_window_cost),
	    cmocka_unit_test(test_layer_index_same_op),
	    cmocka_unit_test(test_same_work),
	    cmocka_unit_test(test_same_work_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
