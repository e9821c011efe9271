/* test-ncu-match.c: counter results matched to trace launches
 * (analysis/ncu_match.h; the normalised name itself, kname_key(), is
 * tested on every tool's spellings in test-kname.c): the real
 * transformers pair (tests/data/ncu/hf-llama-decode-h100-ncu2025.3.*.csv
 * against the nsys kernels of the same program,
 * tests/data/nsys/hf-llama-h100-nsys2025.3.kernels.tsv): every result
 * joins by mangled name, and every one by normalised name alone, to the
 * same kernel; launch indices from measured.json; the reasons of the
 * misses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/join.h"
#include "analysis/ncu_match.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

/* --------------------------------------------------- the real fixtures */

struct tsv {
	struct launch *l;
	char **strs;
	size_t n, nstrs;
};

/* Equal strings are one pointer, as in a trace's string table. */
static char *dup_field(const char *p, size_t n, struct tsv *t)
{
	char *s;

	for (size_t i = 0; i < t->nstrs; i++)
		if (strlen(t->strs[i]) == n && !memcmp(t->strs[i], p, n))
			return t->strs[i];
	s = strndup(p, n);

	t->strs = realloc(t->strs, (t->nstrs + 1) * sizeof(*t->strs));
	t->strs[t->nstrs++] = s;
	return s;
}

static void parse_dims(const char *s, int v[3])
{
	assert_int_equal(sscanf(s, "%d,%d,%d", &v[0], &v[1], &v[2]), 3);
}

/* One launch per row of the nsys kernel list (first_ordinal launches
 * in_decode demangled short mangled grid block). */
static void read_tsv(struct tsv *t, int with_mangled)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	char *line, *save = NULL;

	memset(t, 0, sizeof(*t));
	strbuf_addf(&path, "%s/tests/data/nsys/hf-llama-h100-nsys2025.3.kernels.tsv",
		    LLMPROF_SOURCE_DIR);
	assert_int_equal(strbuf_read_file(&buf, path.buf), 0);
	line = strtok_r(buf.buf, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		const char *f[8];
		size_t len[8];
		struct launch *l;
		char tmp[64];
		int nf = 0;

		for (const char *p = line; nf < 8; nf++) {
			const char *tab = strchr(p, '\t');

			f[nf] = p;
			len[nf] = tab ? (size_t)(tab - p) : strlen(p);
			if (!tab) {
				nf++;
				break;
			}
			p = tab + 1;
		}
		assert_int_equal(nf, 8);
		t->l = realloc(t->l, (t->n + 1) * sizeof(*t->l));
		l = &t->l[t->n++];
		memset(l, 0, sizeof(*l));
		l->name = dup_field(f[3], len[3], t);
		l->short_name = dup_field(f[4], len[4], t);
		l->mangled = with_mangled ? dup_field(f[5], len[5], t) : NULL;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)len[6], f[6]);
		parse_dims(tmp, l->grid);
		snprintf(tmp, sizeof(tmp), "%.*s", (int)len[7], f[7]);
		parse_dims(tmp, l->block);
		l->in_stage = f[2][0] == '1';
	}
	assert_int_equal(t->n, 112);
	strbuf_release(&path);
	strbuf_release(&buf);
}

static void tsv_release(struct tsv *t)
{
	for (size_t i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->l);
}

static void read_ncu(struct ncu_kernel_table *t, int with_mangled)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, note = STRBUF_INIT;

	strbuf_addf(&path, "%s/tests/data/ncu/hf-llama-decode-h100-ncu2025.3.raw.csv",
		    LLMPROF_SOURCE_DIR);
	assert_int_equal(join_read_ncu(path.buf, "raw.csv", t, &note, &err), 0);
	assert_int_equal(t->nr, 25);
	assert_string_equal(note.buf, ""); /* every mangled name attached */
	for (size_t j = 0; j < t->nr; j++) {
		assert_non_null(t->k[j].mangled);
		if (!with_mangled)
			FREE_AND_NULL(t->k[j].mangled);
	}
	strbuf_release(&path);
	strbuf_release(&err);
	strbuf_release(&note);
}

static void test_real_pair_mangled(void **state)
{
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct ncu_match mt[25];
	struct tsv tsv;

	read_ncu(&t, 1);
	read_tsv(&tsv, 1);
	/* ID 0 is the indexSelectSmallIndex of the issue */
	assert_string_equal(t.k[0].mangled,
			    "_ZN2at6native44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb21index"
			    "SelectSmallIndexIN3c108BFloat16EljLi2ELi2ELin2EEEvNS_4cuda6detail10"
			    "TensorInfoIT_T1_EENS7_IKS8_S9_EENS7_IKT0_S9_EEiiS9_l");
	ncu_match_results(&t, tsv.l, tsv.n, NULL, 0, mt);
	for (size_t j = 0; j < t.nr; j++) {
		if (mt[j].how != NCU_MATCH_MANGLED)
			fail_msg("ID %lld %s: %s", t.k[j].id, t.k[j].name,
				 mt[j].reason ? mt[j].reason : ncu_match_how_name(mt[j].how));
		assert_true(mt[j].launch < tsv.n);
		assert_string_equal(tsv.l[mt[j].launch].mangled, t.k[j].mangled);
		assert_memory_equal(tsv.l[mt[j].launch].grid, t.k[j].grid, sizeof(t.k[j].grid));
		assert_memory_equal(tsv.l[mt[j].launch].block, t.k[j].block, sizeof(t.k[j].block));
		/* the decode kernel, not a warm-up launch of the same name */
		assert_true(tsv.l[mt[j].launch].in_stage);
	}
	ncu_matches_release(mt, t.nr);
	ncu_kernel_table_release(&t);
	tsv_release(&tsv);
	(void)state;
}

/* A user's exports: ncu's default demangled names, a trace without mangled
 * names. Every result joins by its normalised name alone (the nvjet, cuDNN
 * and CUTLASS kernels, spelled alike by both tools, by the name itself), and to
 * the very kernel its mangled name names: the lambda-bearing PyTorch
 * kernels included, whose enclosing functions ncu writes without their
 * namespace ("at::direct_copy_kernel_cuda(...)::[lambda() (instance 3)]"
 * against nsys's "at::native::direct_copy_kernel_cuda(...)::..."). */
static void test_real_pair_normalised(void **state)
{
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct ncu_match mt[25];
	struct launch *bare;
	char *mangled[25];
	struct tsv tsv;
	size_t by_name = 0, by_norm = 0;

	read_ncu(&t, 1);
	read_tsv(&tsv, 1);
	for (size_t j = 0; j < t.nr; j++) {
		mangled[j] = t.k[j].mangled;
		t.k[j].mangled = NULL;
	}
	bare = calloc(tsv.n, sizeof(*bare));
	for (size_t i = 0; i < tsv.n; i++) {
		bare[i] = tsv.l[i];
		bare[i].mangled = NULL;
	}
	ncu_match_results(&t, bare, tsv.n, NULL, 0, mt);
	for (size_t j = 0; j < t.nr; j++) {
		if (mt[j].how == NCU_MATCH_NONE)
			fail_msg("ID %lld %s: %s", t.k[j].id, t.k[j].name, mt[j].reason);
		assert_true(mt[j].how == NCU_MATCH_NORMALISED || mt[j].how == NCU_MATCH_NAME);
		by_name += mt[j].how == NCU_MATCH_NAME;
		by_norm += mt[j].how == NCU_MATCH_NORMALISED;
		/* the kernel the mangled name names, in the decode range */
		assert_string_equal(tsv.l[mt[j].launch].mangled, mangled[j]);
		assert_memory_equal(tsv.l[mt[j].launch].grid, t.k[j].grid, sizeof(t.k[j].grid));
		assert_true(tsv.l[mt[j].launch].in_stage);
	}
	/* nvjet_* x5, cudnn_generated_*, cutlass::Kernel2<...>(T1::Params) */
	assert_int_equal(by_name, 7);
	assert_int_equal(by_norm, 18);
	for (size_t j = 0; j < t.nr; j++)
		t.k[j].mangled = mangled[j];
	free(bare);
	ncu_matches_release(mt, t.nr);
	ncu_kernel_table_release(&t);
	tsv_release(&tsv);
	(void)state;
}

static struct ncu_kernel result(long long id, const char *name, const char *mangled, int g0, int b0)
{
	struct ncu_kernel k;

	memset(&k, 0, sizeof(k));
	k.id = id;
	k.pid = 7;
	k.name = (char *)name;
	k.mangled = (char *)mangled;
	k.grid[0] = g0;
	k.grid[1] = k.grid[2] = 1;
	k.block[0] = b0;
	k.block[1] = k.block[2] = 1;
	return k;
}

/* Every reason, launch indices, and no over-match. */
static void test_reasons(void **state)
{
	static const char nsys_gemv[] = "void k_gemv<__nv_bfloat16, __nv_bfloat16, (int)1, "
					"(bool)0>(__nv_bfloat16 *, int)";
	struct launch l[4];
	struct ncu_kernel r[7];
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct ncu_match mt[7];
	struct ncu_launch_hint h[2] = {{6, 7, 3}, {5, 7, 99}};

	memset(l, 0, sizeof(l));
	for (int i = 0; i < 4; i++) {
		l[i].grid[1] = l[i].grid[2] = l[i].block[1] = l[i].block[2] = 1;
		l[i].block[0] = 256;
		l[i].in_stage = 1;
	}
	l[0].name = nsys_gemv;
	l[0].grid[0] = 256;
	l[1].name = nsys_gemv;
	l[1].grid[0] = 384;
	l[2].name = "void k_rmsnorm<__nv_bfloat16>(__nv_bfloat16 *)";
	l[2].grid[0] = 1;
	l[3].name = nsys_gemv;
	l[3].grid[0] = 16032;
	r[0] =
	    result(0, "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(T2 *, int)", NULL, 384, 256);
	r[1] =
	    result(1, "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(T2 *, int)", NULL, 512, 256);
	r[2] = result(2, "void k_gemv<__nv_bfloat16, float, 1, 0>(float *, int)", NULL, 384, 256);
	r[3] = result(3, "void k_rmsnorm<__nv_bfloat16>(__nv_bfloat16 *)", NULL, 1, 256);
	r[4] = result(4, "range", NULL, 0, 0);
	r[4].grid[1] = r[4].grid[2] = r[4].block[1] = r[4].block[2] = 0;
	r[5] = result(5, "void k_rmsnorm<__nv_bfloat16>(__nv_bfloat16 *)", NULL, 1, 256);
	r[6] = result(6, "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(T2 *, int)", NULL, 16032,
		      256);
	t.k = r;
	t.nr = 7;
	ncu_match_results(&t, l, 4, h, 2, mt);
	assert_int_equal(mt[0].how, NCU_MATCH_NORMALISED);
	assert_int_equal(mt[0].launch, 1);
	assert_int_equal(mt[1].how, NCU_MATCH_NONE);
	assert_non_null(strstr(mt[1].reason, "name matches void k_gemv<__nv_bfloat16, "
					     "__nv_bfloat16, (int)1, (bool)0>(__nv_bfloat16 *, "
					     "int) but grid/block differ: ncu (512,1,1)x(256,1,1), "
					     "trace (256,1,1)x(256,1,1), (384,1,1)x(256,1,1), "
					     "(16032,1,1)x(256,1,1)"));
	assert_int_equal(mt[2].how, NCU_MATCH_NONE);
	assert_string_equal(mt[2].reason, "no trace kernel with this normalised name");
	assert_int_equal(mt[3].how, NCU_MATCH_NAME);
	assert_int_equal(mt[3].launch, 2);
	assert_int_equal(mt[4].how, NCU_MATCH_RANGE);
	assert_int_equal(mt[5].how, NCU_MATCH_NONE);
	assert_string_equal(mt[5].reason,
			    "launch_index 99 is beyond the trace's 4 kernel launches");
	assert_int_equal(mt[6].how, NCU_MATCH_LAUNCH);
	assert_int_equal(mt[6].launch, 3);
	ncu_matches_release(mt, 7);

	/* mangled names: exact, or the reason */
	l[0].mangled = l[1].mangled = l[3].mangled = "_Z6k_gemvI13__nv_bfloat16S0_Li1ELb0EEvPT0_i";
	l[2].mangled = "_Z9k_rmsnormI13__nv_bfloat16EvPT_";
	r[0].mangled = "_Z6k_gemvI13__nv_bfloat16S0_Li1ELb0EEvPT0_i";
	r[1].mangled = "_Z6k_gemvI13__nv_bfloat16S0_Li1ELb0EEvPT0_i";
	r[2].mangled = "_Z6k_gemvI13__nv_bfloat16fLi1ELb0EEvPfi";
	r[3].mangled = r[5].mangled = "_Z9k_rmsnormI13__nv_bfloat16EvPT_";
	/* a launch index naming another kernel is not trusted */
	h[0].launch_index = 2;
	r[6].mangled = "_Z6k_gemvI13__nv_bfloat16S0_Li1ELb0EEvPT0_i";
	ncu_match_results(&t, l, 4, h, 1, mt);
	assert_int_equal(mt[0].how, NCU_MATCH_MANGLED);
	assert_int_equal(mt[0].launch, 1);
	assert_int_equal(mt[1].how, NCU_MATCH_NONE);
	assert_non_null(strstr(mt[1].reason, "but grid/block differ: ncu (512,1,1)x(256,1,1)"));
	assert_string_equal(mt[2].reason, "no trace kernel has this mangled name");
	assert_int_equal(mt[3].how, NCU_MATCH_MANGLED);
	assert_int_equal(mt[5].how, NCU_MATCH_MANGLED); /* no hint for it now */
	assert_int_equal(mt[6].how, NCU_MATCH_NONE);
	assert_non_null(strstr(mt[6].reason, "launch_index 2 is void k_rmsnorm"));
	ncu_matches_release(mt, 7);

	/* two trace kernels that normalise alike with one configuration:
	 * ambiguous, not the first of them */
	l[0].mangled = l[1].mangled = l[2].mangled = l[3].mangled = NULL;
	for (int i = 0; i < 7; i++)
		r[i].mangled = NULL;
	l[2].name = "void ns1::k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(int)";
	l[2].grid[0] = 384;
	ncu_match_results(&t, l, 4, NULL, 0, mt);
	assert_int_equal(mt[0].how, NCU_MATCH_NONE);
	assert_non_null(strstr(mt[0].reason, "fit 2 trace kernels"));
	assert_non_null(strstr(mt[0].reason, "ambiguous"));
	ncu_matches_release(mt, 7);
	(void)state;
}

static void test_hints_json(void **state)
{
	json_t *j = json_loads("{\"results\": [{\"id\": 3, \"pid\": 10, \"launch_index\": 42},"
			       " {\"id\": 4, \"launch_index\": 7}, {\"id\": 5}, "
			       "{\"id\": 6, \"launch_index\": -1}, 12]}",
			       0, NULL);
	struct ncu_launch_hint *h;

	assert_non_null(j);
	assert_int_equal(ncu_hints_from_json(j, &h), 2);
	assert_int_equal(h[0].id, 3);
	assert_int_equal(h[0].pid, 10);
	assert_int_equal(h[0].launch_index, 42);
	assert_int_equal(h[1].pid, -1);
	assert_int_equal(h[1].launch_index, 7);
	free(h);
	assert_int_equal(ncu_hints_from_json(NULL, &h), 0);
	assert_null(h);
	json_decref(j);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_pair_mangled),
	    cmocka_unit_test(test_real_pair_normalised),
	    cmocka_unit_test(test_reasons),
	    cmocka_unit_test(test_hints_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
