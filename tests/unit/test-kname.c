/* test-kname.c: trace/kname.h on real kernel names: NVIDIA's demangler (nsys,
 * ncu: "<unnamed>", "(int)4", "[lambda() (instance 1)]"), the C++ runtime's
 * (the builtin tracer: "(anonymous namespace)", "{lambda()#1}", "2ul"), and
 * names that are no C++ declaration (cuBLAS's nvjet, NCCL, TensorRT,
 * mangled names, ncu's "range").
 *
 * The truth is outside llmprof: nsys's own shortName for every kernel of
 * every nsys export in tests/data, and one kernel named by three
 * demanglers (nsys, ncu, the tracer on the same H100 and program), paired
 * by its mangled name: each operation must give the three one answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/strbuf.h"
#include "core/util.h"
#include "trace/kname.h"
#include "trace/ncu_csv.h"

static char *base(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	kname_base(&sb, name);
	return strbuf_detach(&sb, NULL);
}

static char *display(const char *name, unsigned flags, size_t max)
{
	struct strbuf sb = STRBUF_INIT;

	kname_display(&sb, name, flags, max);
	return strbuf_detach(&sb, NULL);
}

static char *key(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	kname_key(&sb, name);
	return strbuf_detach(&sb, NULL);
}

static void str_is(struct str s, const char *want, const char *name)
{
	if (s.len != strlen(want) || memcmp(s.p, want, s.len))
		fail_msg("%s:\n  got  '%.*s'\n  want '%s'", name, (int)s.len, s.p, want);
}

#define FIXED_IS(got, want)                                                                        \
	do {                                                                                       \
		char *g_ = (got);                                                                  \
		assert_string_equal(g_, want);                                                     \
		free(g_);                                                                          \
	} while (0)

/* ------------------------------------------------------------ parse */

static void test_parse(void **state)
{
	/* name, scope, base, template list, parameter list */
	static const char *const cases[][5] = {
	    /* nsys 2025.3, H100 (hf-llama-h100-nsys2025.3.kernels.tsv) */
	    {"void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, "
	     "(int)4, "
	     "void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const "
	     "at::TensorBase &, double, double, T1)::[lambda() (instance 1)]>(long, "
	     "at::PhiloxCudaState, T3, T4)",
	     "at::native::<unnamed>::", "distribution_elementwise_grid_stride_kernel",
	     "<float, (int)4, void "
	     "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl "
	     "*>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]>",
	     "(long, at::PhiloxCudaState, T3, T4)"},
	    {"void <unnamed>::softmax_warp_forward<float, float, float, (int)6, (bool)0, "
	     "(bool)0>(T2 "
	     "*, const T1 *, int, int, int, const bool *, int, bool)",
	     "<unnamed>::", "softmax_warp_forward",
	     "<float, float, float, (int)6, (bool)0, (bool)0>",
	     "(T2 *, const T1 *, int, int, int, const bool *, int, bool)"},
	    /* the builtin tracer, the C++ runtime's demangler */
	    {"void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, "
	     "float, "
	     "10, false, false>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, "
	     "int, bool)",
	     "(anonymous namespace)::", "softmax_warp_forward",
	     "<c10::BFloat16, c10::BFloat16, float, 10, false, false>",
	     "(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, bool)"},
	    {"void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::"
	     "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
	     "std::array<char*, 3ul>)",
	     "at::native::", "vectorized_elementwise_kernel",
	     "<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >",
	     "(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"},
	    /* a GCC clone of a function, as the C++ runtime spells it */
	    {"void k_gemv<__nv_bfloat16, float, 1>(float*, int) [clone .constprop.0]", "", "k_gemv",
	     "<__nv_bfloat16, float, 1>", "(float*, int)"},
	    /* cuBLAS through a return type that is a template (nsys stats, RTX 5090) */
	    {"std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, "
	     "(bool)0, (bool)1>(T13)",
	     "internal::gemvx::", "kernel", "<int, int, __nv_bfloat16, (bool)0, (bool)1>", "(T13)"},
	    /* CUTLASS 2's launcher (ncu 2025.3, H100) */
	    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)",
	     "cutlass::", "Kernel2", "<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>",
	     "(T1::Params)"},
	    /* flash-attention (nsys stats, RTX 5090) */
	    {"void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<(int)128, "
	     "(int)64, "
	     "(int)128, (int)4, (bool)0, (bool)0, cutlass::bfloat16_t, "
	     "Flash_kernel_traits<(int)128, "
	     "(int)64, (int)128, (int)4, cutlass::bfloat16_t>>, (int)4, (int)1, "
	     "(bool)1>(flash::Flash_fwd_params)",
	     "flash::", "flash_fwd_splitkv_combine_kernel",
	     "<Flash_fwd_kernel_traits<(int)128, (int)64, (int)128, (int)4, (bool)0, (bool)0, "
	     "cutlass::bfloat16_t, Flash_kernel_traits<(int)128, (int)64, (int)128, (int)4, "
	     "cutlass::bfloat16_t>>, (int)4, (int)1, (bool)1>",
	     "(flash::Flash_fwd_params)"},
	    {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
	     "cutlass::bfloat16_t, cutlass::arch::Sm80, (bool)1, (int)64, (int)64, (int)64, "
	     "(bool)1, "
	     "(bool)1>::Params)",
	     "", "fmha_cutlassF_bf16_aligned_64x64_rf_sm80", "",
	     "(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, "
	     "(bool)1, (int)64, (int)64, (int)64, (bool)1, (bool)1>::Params)"},
	    /* NCCL (nsys 2025.3, 2 x H200) */
	    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "",
	     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "", "(ncclDevKernelArgsStorage<4096ul>)"},
	    /* a static member function of a class template */
	    {"ns::Foo<int>::bar(int) const", "ns::Foo<int>::", "bar", "", "(int)"},
	    /* no C++ declaration: all base */
	    {"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "", "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT",
	     "", ""},
	    {"_ZN8cublasLt19splitKreduce_kernelILi32ELi16Eif13__nv_bfloat16fS1_Lb0EfS1_S1_"
	     "Lb1ELb0ELb0E"
	     "Lb0EEEvNS_18cublasSplitKParamsIT4_EEPKT2_",
	     "",
	     "_ZN8cublasLt19splitKreduce_kernelILi32ELi16Eif13__nv_bfloat16fS1_Lb0EfS1_S1_"
	     "Lb1ELb0ELb0E"
	     "Lb0EEEvNS_18cublasSplitKParamsIT4_EEPKT2_",
	     "", ""},
	    {"range", "", "range", "", ""},
	    /* ncu's --print-nvtx-rename kernel: the range path before the name */
	    {"A::A1/scale(float *, float, int)", "", "scale", "", "(float *, float, int)"},
	    /* a report model's short name: a template list and no parameters */
	    {"gemv_bf16_kernel<128, 4>", "", "gemv_bf16_kernel", "<128, 4>", ""},
	    /* a ')' inside the template list ends no parameter list */
	    {"void f<(int)1024>", "", "f", "<(int)1024>", ""},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kname k;
		const char *n = cases[i][0];

		kname_parse(&k, n, strlen(n));
		str_is(k.scope, cases[i][1], n);
		str_is(k.base, cases[i][2], n);
		str_is(k.targs, cases[i][3], n);
		str_is(k.params, cases[i][4], n);
	}
}

/* Damaged or odd names: the parts stay inside the name and in order, and
 * every operation returns. */
static void test_parse_damaged(void **state)
{
	static const char *const names[] = {"",
					    " ",
					    "void k<<<((",
					    "void k<int>>(int)",
					    ")))",
					    "(((",
					    "::::",
					    "::k",
					    ">>>",
					    "<<<",
					    "[clone .x]",
					    "k [clone",
					    "]",
					    "k(int) [clone .a] [clone .b]",
					    "void (anonymous "
					    "namespace)::",
					    "<unnamed>",
					    "void <unnamed>::<unnamed>::k<>()",
					    "k<>",
					    "operator()",
					    "a b c d",
					    "~X()",
					    "k(int) const &&"};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const char *n = names[i], *end = n + strlen(n);
		struct str args[4];
		struct kname k;

		kname_parse(&k, n, strlen(n));
		assert_true(k.scope.p >= n && k.scope.p + k.scope.len <= end);
		assert_true(k.base.p >= k.scope.p + k.scope.len && k.base.p + k.base.len <= end);
		assert_true(k.targs.p >= k.base.p + k.base.len && k.targs.p + k.targs.len <= end);
		assert_true(k.params.p >= k.targs.p + k.targs.len &&
			    k.params.p + k.params.len <= end);
		free(base(n));
		free(key(n));
		free(display(n, KNAME_SCOPE | KNAME_UNWRAP, SIZE_MAX));
		free(display(n, KNAME_UNWRAP | KNAME_KEEP_SHORT, 8));
		assert_true(kname_targs(n, args, ARRAY_SIZE(args)) < 100);
	}
	FIXED_IS(base("k(int) [clone .a] [clone .b]"), "k");
	FIXED_IS(base("void k<int>(int) const &&"), "k");
	FIXED_IS(base(""), "");
	/* a byte that is not UTF-8, or a UTF-8 letter, is part of the name */
	FIXED_IS(base("add_\xff_kernel"), "add_\xff_kernel");
	FIXED_IS(base("void k_\xc3\xa9t\xc3\xa9<int>(int)"), "k_\xc3\xa9t\xc3\xa9");
	FIXED_IS(display("add_\xff_kernel", KNAME_SCOPE | KNAME_UNWRAP, 80), "add_\xff_kernel");
	FIXED_IS(base("void <unnamed>::<unnamed>::k<>()"), "k");
	FIXED_IS(display("void <unnamed>::<unnamed>::k<>()", KNAME_SCOPE, SIZE_MAX), "k");
}

/* ---------------------------------------------------------------- base */

/* nsys's shortName of every kernel in the hf-llama H100 list: the demangled
 * name's base, lambdas, anonymous namespaces and all. */
static void test_base_nsys_list(void **state)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	char *line, *save = NULL;
	size_t n = 0;

	(void)state;
	strbuf_addf(&path, "%s/tests/data/nsys/hf-llama-h100-nsys2025.3.kernels.tsv",
		    LLMPROF_SOURCE_DIR);
	assert_int_equal(strbuf_read_file(&buf, path.buf), 0);
	line = strtok_r(buf.buf, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[6], *p = line, *got;

		for (int i = 0; i < 6; i++) {
			f[i] = p;
			p = strchr(p, '\t');
			assert_non_null(p);
			*p++ = '\0';
		}
		got = base(f[3]);
		if (strcmp(got, f[4]))
			fail_msg("%s\n  nsys: %s\n  kname_base: %s", f[3], f[4], got);
		free(got);
		n++;
	}
	assert_int_equal(n, 112);
	strbuf_release(&path);
	strbuf_release(&buf);
}

/* The same against the nsys exports: TensorRT and cuTENSOR names (nsys
 * 2023.1), PyTorch and NCCL runs (2025.3), plain C kernels (2026.1). */
static void test_base_nsys_exports(void **state)
{
	static const char *const files[] = {
	    "trt-resnet-rtx3090-nsys2023.1.sqlite", "vectoradd-um-a4500-nsys2026.1.sqlite",
	    "nvtx-probe-h100-nsys2025.3.sqlite", "nccl-ws1-h100-nsys2025.3-blobs.sqlite"};
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct strbuf uri = STRBUF_INIT;
		sqlite3 *db = NULL;
		sqlite3_stmt *s = NULL;

		strbuf_addf(&uri, "file:%s/tests/data/nsys/%s?immutable=1", LLMPROF_SOURCE_DIR,
			    files[i]);
		assert_int_equal(
		    sqlite3_open_v2(uri.buf, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
		    SQLITE_OK);
		assert_int_equal(
		    sqlite3_prepare_v2(db,
				       "SELECT DISTINCT d.value, s.value FROM "
				       "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
				       "d.id = k.demangledName JOIN StringIds s ON s.id = "
				       "k.shortName",
				       -1, &s, NULL),
		    SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(s, 0);
			const char *sh = (const char *)sqlite3_column_text(s, 1);
			char *got = base(d);

			if (strcmp(got, sh))
				fail_msg("%s: %s\n  nsys: %s\n  kname_base: %s", files[i], d, sh,
					 got);
			free(got);
			n++;
		}
		sqlite3_finalize(s);
		sqlite3_close(db);
		strbuf_release(&uri);
	}
	assert_true(n >= 20);
}

/* What the two earlier copies of this rule (ncu's short name, the
 * converter's shortName) were tested with. */
static void test_base_cases(void **state)
{
	static const char *const cases[][2] = {
	    {"scale(float *, float, int)", "scale"},
	    {"A::A1/scale(float *, float, int)", "scale"},
	    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
	     "at::detail::Array<char *, 1>>(int, T2, T3)",
	     "vectorized_elementwise_kernel"},
	    {"std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, "
	     "(bool)0, (bool)1>(T13)",
	     "kernel"},
	    {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn",
	     "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn"},
	    {"range", "range"},
	    {"void k<(int)1>(T1) const", "k"},
	    {"gemv_bf16(const float *, const float *, float *, int)", "gemv_bf16"},
	    {"void llm::rmsnorm<128>(float *)", "rmsnorm"},
	    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
	     "execute_segment_k_off_kernel__5x_cublas",
	     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
	     "execute_segment_k_off_kernel__5x_cublas"},
	    {"ns::Foo<int>::bar(int) const", "bar"},
	    {"void (anonymous namespace)::k(float)", "k"},
	    {"triton_poi_fused_mul_silu_split_4", "triton_poi_fused_mul_silu_split_4"},
	    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"},
	    {"void k_gemv<__nv_bfloat16, float, 1>(float*, int) [clone .constprop.0]", "k_gemv"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		FIXED_IS(base(cases[i][0]), cases[i][1]);
}

/* ------------------------------------------------- three demanglers */

struct spelled {
	char *mangled, *nsys, *nsys_short, *ncu, *tracer;
};

static struct spelled *find_or_add(struct spelled **v, size_t *n, const char *mangled, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i].mangled) == len && !memcmp((*v)[i].mangled, mangled, len))
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].mangled = strndup(mangled, len);
	return &(*v)[(*n)++];
}

static void read_tsv_names(struct spelled **v, size_t *n, const char *file, int mcol, int dcol,
			   int scol)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	char *line, *save = NULL;

	strbuf_addf(&path, "%s/tests/data/%s", LLMPROF_SOURCE_DIR, file);
	assert_int_equal(strbuf_read_file(&buf, path.buf), 0);
	line = strtok_r(buf.buf, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[8] = {0}, *p = line;
		struct spelled *s;

		for (int i = 0; i < 8 && p; i++) {
			f[i] = p;
			if ((p = strchr(p, '\t')))
				*p++ = '\0';
		}
		s = find_or_add(v, n, f[mcol], strlen(f[mcol]));
		if (scol >= 0) {
			free(s->nsys);
			free(s->nsys_short);
			s->nsys = strdup(f[dcol]);
			s->nsys_short = strdup(f[scol]);
		} else {
			free(s->tracer);
			s->tracer = strdup(f[dcol]);
		}
	}
	strbuf_release(&path);
	strbuf_release(&buf);
}

static void read_ncu_names(struct spelled **v, size_t *n)
{
	struct ncu_raw dem = NCU_RAW_INIT, man = NCU_RAW_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	long dn, mn;

	assert_int_equal(strbuf_read_file(&a, LLMPROF_SOURCE_DIR
					  "/tests/data/ncu/hf-llama-decode-h100-ncu2025.3.raw.csv"),
			 0);
	assert_int_equal(strbuf_read_file(&b, LLMPROF_SOURCE_DIR
					  "/tests/data/ncu/"
					  "hf-llama-decode-h100-ncu2025.3.mangled.csv"),
			 0);
	assert_int_equal(ncu_raw_parse(a.buf, a.len, "raw", &dem, &err), 0);
	assert_int_equal(ncu_raw_parse(b.buf, b.len, "mangled", &man, &err), 0);
	dn = ncu_raw_col(&dem, "Kernel Name");
	mn = ncu_raw_col(&man, "Kernel Name");
	assert_true(dn >= 0 && mn >= 0);
	assert_int_equal(dem.nrows, man.nrows); /* the same results, by ID */
	for (size_t r = 0; r < dem.nrows; r++) {
		struct str d = ncu_raw_cell(&dem, r, (size_t)dn),
			   m = ncu_raw_cell(&man, r, (size_t)mn);
		struct spelled *s = find_or_add(v, n, m.p, m.len);

		free(s->ncu);
		s->ncu = strndup(d.p, d.len);
	}
	ncu_raw_release(&dem);
	ncu_raw_release(&man);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

/* A kernel name with a lambda: the demanglers spell lambdas, and the
 * function types around them, too differently for one key (below). */
static int has_lambda(const char *s)
{
	return s && strstr(s, "lambda");
}

static void same_answer(const char *what, const char *a, const char *b, const char *name)
{
	if (strcmp(a, b))
		fail_msg("%s of %s differs:\n  %s\n  %s", what, name, a, b);
}

/* One kernel, three spellings (nsys, ncu, the tracer's C++ runtime), paired
 * by mangled name: one base name (nsys's shortName) and, where no lambda is
 * in it, one match key; nsys and the tracer one display name with scope
 * (ncu leaves namespaces out: "at::vectorized_elementwise_kernel" for
 * nsys's "at::native::vectorized_elementwise_kernel"). */
static void test_three_demanglers(void **state)
{
	struct spelled *v = NULL;
	size_t n = 0, pairs = 0, keyed = 0, triples = 0;

	(void)state;
	read_tsv_names(&v, &n, "nsys/hf-llama-h100-nsys2025.3.kernels.tsv", 5, 3, 4);
	read_tsv_names(&v, &n, "tracer/graph-decode-h100/kernel-names.tsv", 0, 1, -1);
	read_ncu_names(&v, &n);
	for (size_t i = 0; i < n; i++) {
		const char *sp[3] = {v[i].nsys, v[i].ncu, v[i].tracer};
		char *b0 = NULL, *d0 = NULL, *k0 = NULL;
		int have = 0, lambda = 0;

		for (int j = 0; j < 3; j++) {
			char *b, *d, *k;

			if (!sp[j])
				continue;
			lambda |= has_lambda(sp[j]);
			b = base(sp[j]);
			d = display(sp[j], KNAME_SCOPE | KNAME_UNWRAP, SIZE_MAX);
			k = key(sp[j]);
			if (v[i].nsys_short)
				same_answer("base", b, v[i].nsys_short, sp[j]);
			if (have++) {
				same_answer("base", b, b0, sp[j]);
				if (j == 2 && sp[0])
					same_answer("display", d, d0, sp[j]);
				if (!has_lambda(sp[j]) && !has_lambda(sp[0] ? sp[0] : sp[1]))
					same_answer("key", k, k0, sp[j]);
				free(b);
				free(d);
				free(k);
			} else {
				b0 = b;
				d0 = d;
				k0 = k;
			}
		}
		pairs += have >= 2;
		triples += have == 3;
		keyed += have >= 2 && !lambda;
		free(b0);
		free(d0);
		free(k0);
		free(v[i].mangled);
		free(v[i].nsys);
		free(v[i].nsys_short);
		free(v[i].ncu);
		free(v[i].tracer);
	}
	free(v);
	/* what the fixtures hold: if these drop, the test checks less */
	assert_int_equal(pairs, 25);
	assert_int_equal(triples, 4);
	assert_int_equal(keyed, 17);
}

/* ------------------------------------------------------------- display */

static void test_display_scoped(void **state)
{
	/* findings and kernel families: namespaces kept, anonymous ones out,
	 * launchers unwrapped */
	static const char *const cases[][2] = {
	    {"void k_gemv<__nv_bfloat16, float, 1>(float*, __nv_bfloat16 const*, int)", "k_gemv"},
	    {"nvjet_sm90_tst_128x64_64x8_2x1_v_bz_TNT", "nvjet_sm90_tst_128x64_64x8_2x1_v_bz_TNT"},
	    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
	     "(int, at::native::FillFunctor<float>)",
	     "at::native::vectorized_elementwise_kernel"},
	    {"rms_norm_kernel", "rms_norm_kernel"},
	    /* cut at the anonymous namespace before: "at::native::" */
	    {"void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, "
	     "(int)4>(long, at::PhiloxCudaState, T3, T4)",
	     "at::native::distribution_elementwise_grid_stride_kernel"},
	    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<"
	     "float, 4>(long, at::PhiloxCudaState)",
	     "at::native::distribution_elementwise_grid_stride_kernel"},
	    {"at::cuda::(anonymous namespace)::spin_kernel(long)", "at::cuda::spin_kernel"},
	    {"void <unnamed>::softmax_warp_forward<float, float, float, (int)6, (bool)0, "
	     "(bool)0>(T2 "
	     "*, const T1 *, int, int, int, const bool *, int, bool)",
	     "softmax_warp_forward"},
	    /* was "std::enable_if", the return type */
	    {"std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, "
	     "(bool)0, (bool)1>(T13)",
	     "internal::gemvx::kernel"},
	    /* was "cutlass::Kernel2", every CUTLASS 2 GEMM's launcher */
	    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_nn_"
	     "align8>(T1::Params)",
	     "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_nn_align8"},
	    {"void "
	     "cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_128x128_"
	     "32x3_nhwc_align8>(T1::Params)",
	     "cutlass_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x3_nhwc_align8"},
	    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"},
	    {"gemv_bf16_kernel<128, 4>", "gemv_bf16_kernel"},
	    {"", "(unnamed)"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		FIXED_IS(display(cases[i][0], KNAME_SCOPE | KNAME_UNWRAP, SIZE_MAX), cases[i][1]);
	FIXED_IS(display(NULL, KNAME_SCOPE, SIZE_MAX), "(unnamed)");
	/* without KNAME_UNWRAP the launcher is the name (llmprof diff's family) */
	FIXED_IS(display("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>"
			 "(T1::Params)",
			 KNAME_SCOPE, SIZE_MAX),
		 "cutlass::Kernel2");
}

static void test_display_short(void **state)
{
	/* report.html and the charts: the base name, or a name that is already
	 * short as it is */
	static const unsigned f = KNAME_UNWRAP | KNAME_KEEP_SHORT;
	(void)state;
	FIXED_IS(display("void at::native::vectorized_elementwise_kernel<(int)4, "
			 "at::native::FillFunctor<float>>(int, T2, T3)",
			 f, 44),
		 "vectorized_elementwise_kernel");
	FIXED_IS(display("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_"
			 "32x3_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_32x3_"
			 "tn_align8::Params)",
			 f, 44),
		 "cutlass_80_tensorop_bf16_s16816gemm_bf16_...");
	FIXED_IS(display("gemv_bf16_kernel<128, 4>", f, 44), "gemv_bf16_kernel<128, 4>");
	FIXED_IS(display("fill_kernel<float> & co", f, 44), "fill_kernel<float> & co");
	FIXED_IS(display("elementwise_kernel<add|mul>", f, 10), "element...");
	FIXED_IS(display("", f, 44), "(unnamed)");
	FIXED_IS(display("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", f, 20), "nvjet_sm90_tst_64...");
	/* a wrapper whose argument is itself qualified */
	FIXED_IS(display("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<int, "
			 "float>>(T1::Params)",
			 f, 44),
		 "GemmUniversal");
}

/* -------------------------------------------------------- template args */

static void test_targs(void **state)
{
	static const char tracer[] = "void k_gemv<__nv_bfloat16, float, 1, true>(float*, "
				     "__nv_bfloat16 const*, int)";
	static const char nsys[] = "void k_gemv<__nv_bfloat16, __nv_bfloat16, (int)1, (bool)0>("
				   "__nv_bfloat16 *, const __nv_bfloat16 *, int)";
	struct str a[8], b[8];
	size_t na = kname_targs(tracer, a, ARRAY_SIZE(a));
	size_t nb = kname_targs(nsys, b, ARRAY_SIZE(b));
	size_t differ = SIZE_MAX;

	(void)state;
	assert_int_equal(na, 4);
	assert_int_equal(nb, 4);
	str_is(a[0], "__nv_bfloat16", tracer);
	str_is(a[3], "true", tracer);
	str_is(b[2], "(int)1", nsys);
	/* two instantiations told apart argument by argument, whoever spelled
	 * them: the first difference is the output type, not "1" vs "(int)1" */
	for (size_t i = 0; i < na && differ == SIZE_MAX; i++) {
		struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

		kname_key_arg(&x, a[i]);
		kname_key_arg(&y, b[i]);
		if (strcmp(x.buf, y.buf))
			differ = i;
		strbuf_release(&x);
		strbuf_release(&y);
	}
	assert_int_equal(differ, 1);

	/* nested arguments stay whole; only as many as asked are written */
	assert_int_equal(
	    kname_targs("void at::native::vectorized_elementwise_kernel<8, "
			"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
			"3ul> >(int)",
			a, 2),
	    3);
	str_is(a[1], "at::native::CUDAFunctor_add<c10::BFloat16>", "nested");
	assert_int_equal(kname_targs("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", a, 8), 0);
	assert_int_equal(kname_targs("void k<>(int)", a, 8), 0);
	assert_int_equal(kname_targs("gemv_bf16_kernel<128, 4>", a, 8), 2);
	str_is(a[1], "4", "short name");
	assert_int_equal(kname_targs(NULL, a, 8), 0);
}

/* ------------------------------------------------------------------ key */

static void assert_same_key(const char *a, const char *b)
{
	char *x = key(a), *y = key(b);

	if (strcmp(x, y))
		fail_msg("not the same kernel:\n  %s\n  -> %s\n  %s\n  -> %s", a, x, b, y);
	free(x);
	free(y);
}

static void assert_other_key(const char *a, const char *b)
{
	char *x = key(a), *y = key(b);

	if (!strcmp(x, y))
		fail_msg("should differ:\n  %s\n  %s\n  -> %s", a, b, x);
	free(x);
	free(y);
}

/* The spellings of one k_gemv by ncu 2025.3, nsys 2025.3 and the tracer's
 * C++ runtime demangler on the H100. */
static void test_key_spellings(void **state)
{
	static const char ncu[] = "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(T2 *, const "
				  "T1 *, const T1 *, const T1 *, int, int, int, int, int)";
	static const char nsys[] = "void k_gemv<__nv_bfloat16, __nv_bfloat16, (int)1, (bool)0>("
				   "__nv_bfloat16 *, const __nv_bfloat16 *, const __nv_bfloat16 *, "
				   "const __nv_bfloat16 *, int, int, int, int, int)";
	static const char tracer[] = "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, false>("
				     "__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, "
				     "__nv_bfloat16 const*, int, int, int, int, int)";
	char *k = key(ncu);

	(void)state;
	assert_string_equal(k, "k_gemv<__nv_bfloat16,__nv_bfloat16,1,0>");
	free(k);
	assert_same_key(ncu, nsys);
	assert_same_key(ncu, tracer);
	/* another instantiation stays apart */
	assert_other_key(ncu, "void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 1>(T2 *, const T1 *)");
	assert_other_key(tracer, "void k_gemv<__nv_bfloat16, float, 1, false>(float*)");
	assert_other_key(ncu, "void k_gemv<__nv_bfloat16, __nv_bfloat16, 2, 0>(T2 *)");

	assert_same_key("void at::<unnamed>::indexSelectSmallIndex<c10::BFloat16, long, unsigned "
			"int, 2, 2, (int)-2>(cuda::TensorInfo<T1, T3>, cuda::TensorInfo<const "
			"T1, T3>, cuda::TensorInfo<const T2, T3>, int, int, T3, long)",
			"void at::native::<unnamed>::indexSelectSmallIndex<c10::BFloat16, long, "
			"unsigned int, (int)2, (int)2, (int)-2>(at::cuda::detail::TensorInfo<T1, "
			"T3>, at::cuda::detail::TensorInfo<const T1, T3>, "
			"at::cuda::detail::TensorInfo<const T2, T3>, int, int, T3, long)");
	k = key("void at::<unnamed>::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, "
		"2, (int)-2>(cuda::TensorInfo<T1, T3>)");
	assert_string_equal(k, "indexSelectSmallIndex<BFloat16,long,unsignedint,2,2,-2>");
	free(k);
	assert_same_key("void at::native::<unnamed>::CatArrayBatchedCopy<at::native::<unnamed>::"
			"OpaqueType<(unsigned int)2>, unsigned int, (int)4, (int)64, (int)64>("
			"T1 *)",
			"void at::<unnamed>::CatArrayBatchedCopy<at::<unnamed>::OpaqueType<2>, "
			"unsigned int, 4, 64, 64>(T1 *)");
	/* the C++ runtime's spelling of an anonymous namespace, integer suffixes */
	assert_same_key("void (anonymous namespace)::k<2ul, true>(int)",
			"void <unnamed>::k<(unsigned long)2, (bool)1>(int)");
	/* no template list, no parameter list (cuBLAS, cuDNN) */
	k = key("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
	assert_string_equal(k, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
	free(k);
	/* a '(' inside the template list does not end the name */
	assert_same_key("void f<(int)1024>(float *)", "void f<1024>(float*)");
	assert_same_key("void f<(int)1024>", "f<1024>");
	/* appends */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "x:");
		kname_key(&sb, "void f<(int)1024>(float *)");
		assert_string_equal(sb.buf, "x:f<1024>");
		strbuf_release(&sb);
	}
}

/* Two instantiations of one PyTorch kernel, and lambdas (nsys's spelling,
 * from the fixture): apart, and no crash. */
static void test_key_instantiations(void **state)
{
	static const char v4[] = "void at::native::vectorized_elementwise_kernel<(int)4, void "
				 "at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, "
				 "float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance "
				 "1)], std::array<char *, "
				 "(unsigned long)2>>(int, T2, T3)";
	static const char v8[] = "void at::native::vectorized_elementwise_kernel<(int)8, void "
				 "at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, "
				 "float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance "
				 "1)], std::array<char *, "
				 "(unsigned long)2>>(int, T2, T3)";
	static const char ncu4[] =
	    "void at::vectorized_elementwise_kernel<4, void "
	    "at::<unnamed>::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, "
	    "T2)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)";
	static const char l2[] = "void at::native::unrolled_elementwise_kernel<at::native::"
				 "direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() "
				 "(instance 3)]::operator ()() const::[lambda() (instance 7)]::"
				 "operator ()() const::[lambda(float) (instance 1)], "
				 "std::array<char *, (unsigned long)2>>(int, T1, T2)";
	static const char l3[] = "void at::native::unrolled_elementwise_kernel<at::native::"
				 "direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() "
				 "(instance 3)]::operator ()() const::[lambda() (instance 8)]::"
				 "operator ()() const::[lambda(float) (instance 1)], "
				 "std::array<char *, (unsigned long)2>>(int, T1, T2)";

	(void)state;
	assert_other_key(v4, v8);
	assert_same_key(v4, ncu4);
	assert_other_key(l2, l3);
}

/* Inductor's kernel names as torch.compile (torch 2.11, Inductor's default
 * naming) gave them on an H200 (the small Llama-shaped model of
 * scripts/gpu/pytorch_modules.py; the issue's own examples), and names
 * that are not Inductor's. */
static void test_inductor(void **state)
{
	static const struct {
		const char *name, *label;
	} cases[] = {
	    {"triton_poi_fused_mul_silu_split_4", "pointwise: mul, silu, split"},
	    {"triton_red_fused__fused_rms_norm_add_9", "reduction: _fused_rms_norm, add"},
	    {"triton_red_fused__to_copy_add_embedding_mean_mul_pow_rsqrt_0",
	     "reduction: _to_copy, add, embedding, mean, mul, pow, rsqrt"},
	    {"triton_poi_fused__unsafe_view_index_copy_transpose_view_1",
	     "pointwise: _unsafe_view, index_copy, transpose, view"},
	    {"triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_arange_clone_"
	     "expand_le_scalar_tensor_transpose_unsqueeze_view_where_2",
	     "pointwise: _scaled_dot_product_cudnn_attention, _unsafe_view, arange, clone, "
	     "expand, le, scalar_tensor, transpose, unsqueeze, view, where"},
	    {"triton_poi_fused_arange_le_scalar_tensor_unsqueeze_where_3",
	     "pointwise: arange, le, scalar_tensor, unsqueeze, where"},
	    {"triton_poi_fused__unsafe_view_mul_silu_5", "pointwise: _unsafe_view, mul, silu"},
	    {"triton_red_fused__to_copy__unsafe_view_add_mean_mul_pow_rsqrt_12",
	     "reduction: _to_copy, _unsafe_view, add, mean, mul, pow, rsqrt"},
	    {"triton_per_fused_add_mean_0", "persistent reduction: add, mean"},
	    {"triton_tem_fused_mm_7", "template: mm"},
	    {"triton_poi_fused_0", "pointwise"},
	    {"triton_poi_fused_cat_12(float *, int)", "pointwise: cat"},
	};
	static const char *const not_inductor[] = {
	    "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT",
	    "triton_mm",
	    "triton_",
	    "my_triton_poi_x",
	    "",
	    "void at::native::vectorized_elementwise_kernel<4, float>(int, float)",
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		assert_int_equal(kname_inductor(&sb, cases[i].name), 1);
		assert_string_equal(sb.buf, cases[i].label);
	}
	for (size_t i = 0; i < sizeof(not_inductor) / sizeof(not_inductor[0]); i++) {
		strbuf_reset(&sb);
		assert_int_equal(kname_inductor(&sb, not_inductor[i]), 0);
		assert_int_equal(sb.len, 0);
	}
	assert_int_equal(kname_inductor(&sb, NULL), 0);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_damaged),
	    cmocka_unit_test(test_base_nsys_list),
	    cmocka_unit_test(test_base_nsys_exports),
	    cmocka_unit_test(test_base_cases),
	    cmocka_unit_test(test_three_demanglers),
	    cmocka_unit_test(test_display_scoped),
	    cmocka_unit_test(test_display_short),
	    cmocka_unit_test(test_targs),
	    cmocka_unit_test(test_key_spellings),
	    cmocka_unit_test(test_key_instantiations),
	    cmocka_unit_test(test_inductor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
