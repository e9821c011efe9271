/* test-diff.c: llmprof diff's parts on hand-built models: kernel families,
 * Welch's interval against hand-computed values, the waterfall summing
 * exactly to the stage's change, kernel matching passes, and the gate
 * (size and significance both needed); kernels that overlap (PDL) ranked
 * and summed by their exposed time, and launches outside every stage kept
 * apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/diff.h"
#include "core/xalloc.h"
#include "model/model.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void family_is(const char *name, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	diff_family(name, &sb);
	if (strcmp(sb.buf, want))
		fail_msg("family of '%s': '%s', want '%s'", name, sb.buf, want);
	strbuf_release(&sb);
}

static void test_family(void **state)
{
	(void)state;
	family_is("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "nvjet_*_tst_*_*_*_v_bz_TNT");
	family_is("nvjet_sm90_tst_128x8_64x8_2x1_v_bz_TNT", "nvjet_*_tst_*_*_*_v_bz_TNT");
	family_is("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage4_kernel",
		  "*_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize*_stage4_kernel");
	family_is("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x64x64_stage4_kernel",
		  "*_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize*_stage4_kernel");
	family_is("ampere_sgemm_128x64_tn", "*_sgemm_*_tn");
	family_is("void k_gemv<__nv_bfloat16, float, 1>(float*, int)", "k_gemv");
	family_is(
	    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
	    "(int, at::native::FillFunctor<float>)",
	    "at::native::vectorized_elementwise_kernel");
	/* one family whichever demangler spelled the anonymous namespace (the
	 * tracer, nsys): was "(anonymous namespace)::softmax_warp" and
	 * "::softmax_warp", two families */
	family_is("void (anonymous namespace)::softmax_warp<float>(float*)", "softmax_warp");
	family_is("void <unnamed>::softmax_warp<float>(float*)", "softmax_warp");
	/* the two spellings, shortened, of one PyTorch kernel (the tracer's
	 * H100 logs, nsys 2025.3's hf-llama list): were
	 * "at::native::(anonymous namespace)::...kernel(anonymous namespace)"
	 * and "at::native::::...kernel" */
	family_is("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_"
		  "kernel<float, 4, at::native::(anonymous namespace)::distribution_nullary_kernel<"
		  "c10::BFloat16, float>(at::TensorIteratorBase&)::{lambda(int, float)#1}>(long, "
		  "at::PhiloxCudaState)",
		  "at::native::distribution_elementwise_grid_stride_kernel");
	family_is("void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, "
		  "(int)4, void at::native::<unnamed>::distribution_nullary_kernel<c10::BFloat16, "
		  "float>(at::TensorIteratorBase &)::[lambda(int, float) (instance 1)]>(long, "
		  "at::PhiloxCudaState, T3, T4)",
		  "at::native::distribution_elementwise_grid_stride_kernel");
	/* a launcher template stays the name: CUTLASS 2 GEMMs are one family */
	family_is("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)",
		  "cutlass::Kernel2");
	family_is("elementwise_add", "elementwise_add");
}

static void test_welch(void **state)
{
	const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 3, 4, 5, 6}, c[] = {7, 7, 7};
	double lo, hi;

	(void)state;
	/* d = 1, se = 1, df = 8, t = 2.306 */
	assert_int_equal(diff_welch(a, 5, b, 5, &lo, &hi), 0);
	assert_near(lo, 1 - 2.306, 1e-9);
	assert_near(hi, 1 + 2.306, 1e-9);
	/* no variance: the interval is the change itself */
	assert_int_equal(diff_welch(c, 3, c, 3, &lo, &hi), 0);
	assert_true(lo == 0 && hi == 0);
	assert_int_equal(diff_welch(a, 1, b, 5, &lo, &hi), -1);
	assert_near(diff_t975(1), 12.706, 1e-9);
	assert_near(diff_t975(8.5), (2.306 + 2.262) / 2, 1e-9);
	assert_near(diff_t975(100), 1.984, 1e-3);
	assert_near(diff_t975(1e9), 1.96, 1e-3);
}

/* A one-run model: a decode stage of n steps of step_ns each (plus i * jitter),
 * idle_ns of idle, and kernels (name, decode ns). */
static void make_model(struct report_model *m, size_t n, int64_t step_ns, int64_t jitter,
		       int64_t idle_ns, const char *const *names, const uint64_t *ns, size_t nk)
{
	struct report_stage *s;
	int64_t total = 0;

	report_model_init(m);
	s = report_model_add_stage(m, "decode", REPORT_ROLE_DECODE);
	s->sample_ns = xmalloc(n * sizeof(*s->sample_ns));
	for (size_t i = 0; i < n; i++)
		total += s->sample_ns[i] = step_ns + (int64_t)i * jitter;
	s->nr_samples = n;
	/* a loop without host gaps: each step's period is its GPU span */
	s->step_period_ns = xmalloc(n * sizeof(*s->step_period_ns));
	memcpy(s->step_period_ns, s->sample_ns, n * sizeof(*s->step_period_ns));
	s->nr_step_periods = n;
	s->steps = n;
	s->gpu_ms = rnum_of((double)(total + idle_ns) / 1e6);
	s->idle_ms = rnum_of((double)idle_ns / 1e6);
	s->busy_ms = rnum_of((double)total / 1e6);
	s->step_wall_ms = rnum_of((double)total / 1e6);
	m->agg.tpot_ms = rnum_of((double)total / (double)n / 1e6);
	for (size_t i = 0; i < nk; i++) {
		struct report_kernel *k = report_model_add_kernel(m, names[i], NULL);

		k->calls = n;
		k->total_ns = k->stage_ns[REPORT_ROLE_DECODE] = ns[i];
		/* no overlap: all of it exposed */
		k->exposed_ns = k->stage_exposed_ns[REPORT_ROLE_DECODE] = ns[i];
		k->stage_calls[REPORT_ROLE_DECODE] = n;
	}
}

static void test_waterfall_and_matching(void **state)
{
	static const char *const na[] = {"nvjet_sm90_tst_64x8_v", "k_rmsnorm", "old_kernel"};
	static const char *const nb[] = {"nvjet_sm90_tst_128x8_v", "k_rmsnorm", "new_kernel"};
	const uint64_t nsa[] = {600000, 300000, 100000}, nsb[] = {700000, 290000, 50000};
	struct report_model ma, mb;
	const struct report_model *ra[1] = {&ma}, *rb[1] = {&mb};
	struct diff_input a = {"a", ra, NULL, 1}, b = {"b", rb, NULL, 1};
	const char *backends[1] = {"trace file"};
	struct diff d;
	double sum = 0;

	(void)state;
	a.backends = b.backends = backends;
	make_model(&ma, 10, 100000, 0, 1234, na, nsa, 3);
	make_model(&mb, 10, 104000, 0, 999, nb, nsb, 3);
	diff_compute(&a, &b, 10, &d);
	assert_true(d.falls[REPORT_ROLE_DECODE].available);
	for (size_t i = 0; i < d.falls[REPORT_ROLE_DECODE].nr; i++)
		sum += d.falls[REPORT_ROLE_DECODE].rows[i].delta_ns;
	assert_true(sum == d.falls[REPORT_ROLE_DECODE].delta_ns);
	assert_true(d.falls[REPORT_ROLE_DECODE].delta_ns == 40000 + 999 - 1234);
	/* nvjet by family, rmsnorm by name, old/new: gone and new */
	assert_int_equal(d.nr_kernels, 4);
	assert_int_equal(d.kernels[0].match, DIFF_MATCH_FAMILY);
	assert_near(d.kernels[0].delta_ns, 100000, 0);
	assert_int_equal(d.nr_new, 1);
	assert_int_equal(d.nr_gone, 1);
	/* no variance in the steps: +4 % is significant; the gate needs both */
	assert_int_equal(diff_gate(&d, "tpot", 5, 0, NULL), DIFF_GATE_PASS);
	assert_string_equal(d.gate_text, "gate tpot: +4.00 % [+4.00, +4.00], within 5 %: pass");
	assert_int_equal(diff_gate(&d, "tpot", 3, 0, NULL), DIFF_GATE_FAIL);
	assert_int_equal(diff_gate(&d, "stage:decode", 3, 0, NULL), DIFF_GATE_FAIL);
	assert_int_equal(diff_gate(&d, "p99", 3, 0, NULL), -1);
	/* tokens/s is not in these models: a side without the metric cannot tell */
	assert_int_equal(diff_gate(&d, "tokens_per_s", 3, 0, NULL), DIFF_GATE_CANNOT_TELL);
	assert_string_equal(d.gate_text,
			    "gate tokens_per_s: not measured on either side: cannot tell");
	diff_release(&d);
	/* B against A: an improvement is called one, and passes */
	diff_compute(&b, &a, 10, &d);
	assert_int_equal(diff_gate(&d, "tpot", 3, 0, NULL), DIFF_GATE_PASS);
	assert_non_null(strstr(d.gate_text, ", an improvement (better by 3.85 %): pass"));
	diff_release(&d);
	/* other GPUs: cannot tell, unless allowed */
	ma.env.gpu_name = xstrdup("NVIDIA H100 80GB HBM3");
	mb.env.gpu_name = xstrdup("NVIDIA H200");
	diff_compute(&a, &b, 10, &d);
	assert_true(d.hw_differs);
	assert_int_equal(diff_gate(&d, "tpot", 3, 0, NULL), DIFF_GATE_CANNOT_TELL);
	assert_non_null(strstr(d.gate_text, "A ran on NVIDIA H100 80GB HBM3 and B on NVIDIA H200"));
	assert_int_equal(diff_gate(&d, "tpot", 3, 1, NULL), DIFF_GATE_FAIL);
	diff_release(&d);
	report_model_release(&mb);
	/* wide noise: +4 % on average, but not significant: above 3 % the gate
	 * cannot tell, below 5 % it passes */
	make_model(&mb, 10, 68000, 8000, 999, nb, nsb, 3);
	diff_compute(&a, &b, 10, &d);
	assert_int_equal(diff_gate(&d, "tpot", 3, 0, NULL), DIFF_GATE_CANNOT_TELL);
	assert_int_equal(diff_gate(&d, "tpot", 5, 0, NULL), DIFF_GATE_PASS);
	assert_false(d.metrics[0].significant);
	diff_release(&d);
	report_model_release(&ma);
	report_model_release(&mb);
}

/* Overlapping kernels (programmatic dependent launch): k_norm starts early
 * and waits for the GEMV before it, so its duration is mostly waiting. In B
 * the GEMV is 100 us slower; k_norm's duration drops by 300 us (it waited
 * less), its exposed time does not move. The rows rank by exposed time
 * inside the stage, the waterfall's terms are exposed deltas (k_norm: 0)
 * and sum exactly to the stage's change; the warm-up outside the stage is
 * kept apart and changes no term. */
static void test_overlap_and_outside(void **state)
{
	static const char *const names[] = {"k_gemv", "k_norm"};
	const uint64_t dur_a[] = {500000, 400000}, dur_b[] = {600000, 100000};
	const uint64_t exp_a[] = {500000, 50000}, exp_b[] = {600000, 50000};
	const uint64_t warm_a[] = {0, 1000000}, warm_b[] = {0, 3000000};
	struct report_model m[2];
	const struct report_model *ra[1] = {&m[0]}, *rb[1] = {&m[1]};
	const char *backends[1] = {"trace file"};
	struct diff_input a = {"a", ra, backends, 1}, b = {"b", rb, backends, 1};
	const struct diff_waterfall *w;
	struct diff d;
	double sum = 0;

	(void)state;
	for (int s = 0; s < 2; s++) {
		const uint64_t *dur = s ? dur_b : dur_a, *ex = s ? exp_b : exp_a;
		const uint64_t *warm = s ? warm_b : warm_a;
		struct report_stage *st;

		report_model_init(&m[s]);
		st = report_model_add_stage(&m[s], "decode", REPORT_ROLE_DECODE);
		/* busy = the exposed kernel time + 7 us (A) or 9 us (B) of copies */
		st->busy_ms = rnum_of((double)(ex[0] + ex[1] + (s ? 9000 : 7000)) / 1e6);
		st->idle_ms = rnum_of(s ? 0.002 : 0.001);
		st->gpu_ms = rnum_of(st->busy_ms.v + st->idle_ms.v);
		for (int i = 0; i < 2; i++) {
			struct report_kernel *k = report_model_add_kernel(&m[s], names[i], NULL);

			k->stage_calls[REPORT_ROLE_DECODE] = 10;
			k->calls = 10 + (warm[i] ? 10 : 0);
			k->stage_ns[REPORT_ROLE_DECODE] = dur[i];
			k->total_ns = dur[i] + warm[i];
			k->stage_exposed_ns[REPORT_ROLE_DECODE] = ex[i];
			k->exposed_ns = ex[i] + warm[i];
		}
	}
	diff_compute(&a, &b, 10, &d);
	/* k_gemv first (+100 us exposed), though k_norm's duration moved more,
	 * in the stage (-300 us) and outside it (+2 ms) */
	assert_int_equal(d.nr_kernels, 2);
	assert_string_equal(d.kernels[0].name_b, "k_gemv");
	assert_near(d.kernels[0].delta_ns, 100000, 0);
	assert_string_equal(d.kernels[1].name_b, "k_norm");
	assert_near(d.kernels[1].delta_ns, 0, 0);
	assert_near(d.kernels[1].stage_ns_b[REPORT_ROLE_DECODE] -
			d.kernels[1].stage_ns_a[REPORT_ROLE_DECODE],
		    -300000, 0);
	assert_near(d.kernels[1].out_ns_a, 1000000, 0);
	assert_near(d.kernels[1].out_ns_b, 3000000, 0);
	assert_near(d.kernels[1].out_calls_b, 10, 0);
	assert_near(d.out_ns_b - d.out_ns_a, 2000000, 0);
	/* the waterfall: k_gemv +100 us, k_norm 0, copies +2 us, idle +1 us
	 * (the old durations would have made k_norm -300 us and the copies
	 * +302 us), and the sum is exact */
	w = &d.falls[REPORT_ROLE_DECODE];
	assert_true(w->available);
	assert_int_equal(w->nr, 4);
	assert_string_equal(w->rows[0].label, "k_gemv");
	assert_near(w->rows[0].delta_ns, 100000, 0);
	assert_near(w->rows[1].delta_ns, 0, 0);
	assert_string_equal(w->rows[2].label, DIFF_OTHER_WORK);
	assert_near(w->rows[2].delta_ns, 2000, 1e-6);
	assert_string_equal(w->rows[3].label, "GPU idle");
	assert_near(w->rows[3].delta_ns, 1000, 1e-6);
	for (size_t i = 0; i < w->nr; i++)
		sum += w->rows[i].delta_ns;
	assert_true(sum == w->delta_ns);
	assert_near(w->delta_ns, 103000, 1e-6);
	diff_release(&d);
	report_model_release(&m[0]);
	report_model_release(&m[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_family),
	    cmocka_unit_test(test_welch),
	    cmocka_unit_test(test_waterfall_and_matching),
	    cmocka_unit_test(test_overlap_and_outside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
