/* test-findings-cause.c: the rules that find causes without the model
 * (stage-launch-bound, kernel-family-dominant, memory-below-ceiling,
 * tensor-below-ceiling, decode-host-copies) fire on their data, cite their
 * numbers and savings, and stay silent without; the counter-based MFU/MBU
 * arithmetic; kernel names in findings, as each demangler spells them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/findings.h"
#include "analysis/hw.h"
#include "core/strbuf.h"
#include "model/format.h"
#include "model/model.h"

static const struct report_finding *find(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return &m->findings[i];
	return NULL;
}

/* An H100 (datasheet peaks), no model FLOPs or bytes, one decode stage of
 * 31 steps: span gpu_ms, busy busy_ms, CPU cpu_ms, kernels launches. */
static struct report_stage *base(struct report_model *m, double gpu_ms, double busy_ms,
				 double cpu_ms, uint64_t kernels)
{
	struct report_stage *s;

	report_model_init(m);
	report_set_str(&m->env.gpu_name, "NVIDIA H100 80GB HBM3");
	m->env.sm_count = 132;
	hw_peaks_resolve(m, NULL, NULL, 0);
	s = report_model_add_stage(m, "decode", REPORT_ROLE_DECODE);
	s->instances = 1;
	s->steps = 31;
	s->gpu_ms = rnum_of(gpu_ms);
	s->busy_ms = rnum_of(busy_ms);
	s->cpu_ms = rnum_of(cpu_ms);
	s->kernels = kernels;
	return s;
}

static void run(struct report_model *m)
{
	report_model_derive(m);
	findings_run(m);
}

static void test_launch_bound_without_model(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	/* the transformers program on the H100: 412.1 ms span, 69.5 busy,
	 * 21018 kernels in 412.3 ms of CPU time, no model keys */
	base(&m, 412.1, 69.5, 412.3, 21018);
	run(&m);
	assert_null(find(&m, "decode-launch-bound")); /* needs MBU */
	f = find(&m, "stage-launch-bound");
	assert_non_null(f);
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_non_null(strstr(f->text, "idle in decode 83.1% of its GPU span"));
	assert_non_null(strstr(f->text, "342.600 ms of 412.100 ms"));
	assert_non_null(strstr(f->text, "50977 launches/s"));
	assert_non_null(strstr(f->text, "mean gap of 16.3 us"));
	assert_non_null(strstr(f->text, "19.6 us of CPU time per launch"));
	assert_non_null(strstr(f->recommendation, "CUDA graph"));
	/* the saving: the idle time per token, an upper bound */
	assert_true(f->saving_ms.available);
	assert_float_equal(f->saving_ms.v, 342.6 / 31, 1e-9);
	assert_string_equal(f->saving_unit, "token");
	assert_float_equal(f->saving_run_ms.v, 342.6, 1e-9);
	report_model_release(&m);

	/* GPU busy: silent */
	base(&m, 412.1, 400, 412.3, 21018);
	run(&m);
	assert_null(find(&m, "stage-launch-bound"));
	report_model_release(&m);
	/* idle, but few launches per CPU ms: setup, not launches */
	base(&m, 412.1, 69.5, 412.3, 100);
	run(&m);
	assert_null(find(&m, "stage-launch-bound"));
	report_model_release(&m);
	/* with the model's MBU, decode-launch-bound says it (with the saving) */
	base(&m, 412.1, 69.5, 412.3, 21018)->bytes = rnum_of(7.7e10);
	run(&m);
	assert_null(find(&m, "stage-launch-bound"));
	f = find(&m, "decode-launch-bound");
	assert_non_null(f);
	assert_float_equal(f->saving_ms.v, 342.6 / 31, 1e-9);
	report_model_release(&m);
	(void)state;
}

static struct report_kernel *kernel(struct report_model *m, const char *name, uint64_t ns)
{
	struct report_kernel *k = report_model_add_kernel(m, name, name);

	report_set_str(&k->stage, "decode");
	k->calls = 310;
	k->total_ns = ns;
	k->stage_calls[REPORT_ROLE_DECODE] = 310;
	k->stage_ns[REPORT_ROLE_DECODE] = ns;
	return k;
}

static void test_kernel_family(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	base(&m, 100, 99, 100, 930);
	kernel(&m, "nvjet_sm90_tst_128x64_64x8_2x1_v_bz_TNT", 25000000);
	kernel(&m, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT", 20000000);
	kernel(&m, "void rms_norm_kernel<float>(float*, int)", 55000000);
	run(&m);
	f = find(&m, "kernel-family-dominant");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "family `nvjet` (2 kernels"));
	assert_non_null(strstr(f->text, "45.0% of decode kernel time (45.000 ms)"));
	assert_null(strstr(f->text, "rms_norm"));
	report_model_release(&m);

	/* one kernel of the family: kernel-dominant's business */
	base(&m, 100, 99, 100, 930);
	kernel(&m, "nvjet_sm90_tst_128x64_64x8_2x1_v_bz_TNT", 45000000);
	kernel(&m, "void rms_norm_kernel<float>(float*, int)", 55000000);
	run(&m);
	assert_null(find(&m, "kernel-family-dominant"));
	report_model_release(&m);
	(void)state;
}

/* counters of one launch: duration, DRAM bytes, FLOPs, tensor FLOPs */
static void counters(struct report_kernel *k, enum kernel_bound b, double dur_ns, double bytes,
		     double flops, double tensor)
{
	report_kernel_counters(k)->profiled = 1;
	report_kernel_counters(k)->bound = b;
	report_kernel_counters(k)->duration_ns = rnum_of(dur_ns);
	report_kernel_counters(k)->dram_bytes = rnum_of(bytes);
	report_kernel_counters(k)->flops = rnum_of(flops);
	if (tensor > 0)
		report_kernel_counters(k)->flops_tensor = rnum_of(tensor);
	report_kernel_counters(k)->sm_sol_pct = rnum_of(b == BOUND_COMPUTE ? 70 : 20);
	report_kernel_counters(k)->dram_sol_pct = rnum_of(b == BOUND_MEMORY ? 70 : 20);
}

static void test_memory_ceiling(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_kernel *k;

	base(&m, 100, 99, 100, 620);
	m.peaks.measured_gbs = rnum_of(3000);
	/* 1.2e6 B in 1000 ns = 1200 GB/s = 40% of 3000: 60% of its 31 ms saved */
	k = kernel(&m, "void k_gemv<bf16, 2>(bf16*, int)", 31000000);
	counters(k, BOUND_MEMORY, 1000, 1.2e6, 2.4e6, 0);
	/* at 2700 GB/s (90%): not named */
	k = kernel(&m, "void k_copy(float*)", 31000000);
	counters(k, BOUND_MEMORY, 1000, 2.7e6, 0, 0);
	run(&m);
	f = find(&m, "memory-below-ceiling");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "1 memory-bound kernel of decode runs below 60%"));
	assert_non_null(strstr(f->text, "(3000 GB/s)"));
	assert_non_null(strstr(f->text, "`k_gemv` (1200 GB/s, 40.0%, 31.000 ms)"));
	assert_null(strstr(f->text, "k_copy"));
	assert_non_null(strstr(f->text, "save 18.600 ms"));
	assert_float_equal(f->saving_ms.v, 18.6 / 31, 1e-9);
	assert_string_equal(f->saving_unit, "token");
	report_model_release(&m);

	/* no calibration: no measured ceiling, silent */
	base(&m, 100, 99, 100, 620);
	k = kernel(&m, "void k_gemv<bf16, 2>(bf16*, int)", 31000000);
	counters(k, BOUND_MEMORY, 1000, 1.2e6, 2.4e6, 0);
	run(&m);
	assert_null(find(&m, "memory-below-ceiling"));
	report_model_release(&m);
	(void)state;
}

static void test_tensor_ceiling(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_kernel *k;

	base(&m, 100, 99, 100, 620);
	m.peaks.measured_tflops = rnum_of(800);
	m.peaks.measured_gbs = rnum_of(3000);
	/* 2e11 FLOP in 1 ms = 200 TFLOP/s = 25% of 800; AI 2e11 / 1e8 = 2000 */
	k = kernel(&m, "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT", 20000000);
	counters(k, BOUND_LATENCY, 1e6, 1e8, 2e11, 2e11);
	/* a tensor-core GEMV at batch 1: AI 1, memory-bound, not named */
	k = kernel(&m, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", 20000000);
	counters(k, BOUND_MEMORY, 1e6, 2e9, 2e9, 2e9);
	run(&m);
	f = find(&m, "tensor-below-ceiling");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "1 tensor-core kernel of decode runs below 40%"));
	assert_non_null(strstr(f->text, "(200 TFLOP/s, 25.0%, 20.000 ms)"));
	assert_non_null(strstr(f->text, "save 15.000 ms"));
	assert_null(strstr(f->text, "64x8"));
	report_model_release(&m);

	base(&m, 100, 99, 100, 620); /* no calibration: silent */
	k = kernel(&m, "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT", 20000000);
	counters(k, BOUND_COMPUTE, 1e6, 1e8, 2e11, 2e11);
	run(&m);
	assert_null(find(&m, "tensor-below-ceiling"));
	report_model_release(&m);
	(void)state;
}

static void test_decode_host_copies(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_stage *s;

	s = base(&m, 100, 99, 100, 620);
	s->copies = 62;
	s->copy_ms = rnum_of(0.31);
	s->copy_bytes = rnum_of(496);
	run(&m);
	f = find(&m, "decode-host-copies");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "62 host-device copies in decode (2.0 per token)"));
	assert_non_null(strstr(f->text, "0.310 ms"));
	assert_float_equal(f->saving_ms.v, 0.01, 1e-12);
	report_model_release(&m);

	base(&m, 100, 99, 100, 620);
	run(&m);
	assert_null(find(&m, "decode-host-copies"));
	report_model_release(&m);
	(void)state;
}

/* counter-based MFU/MBU: counter FLOPs (bytes) / coverage / stage time /
 * datasheet peak */
static void test_counter_utilisation(void **state)
{
	struct report_model m;
	struct report_stage *s = base(&m, 44.763, 44.763, 45, 4000);

	s->counter_flops = rnum_of(66068199940.0);
	s->counter_bytes = rnum_of(61491238910.0);
	s->counter_time_share = rnum_of(0.756887834);
	report_model_derive(&m);
	s = &m.stages[0];
	/* 61.49 GB / 0.7569 / 44.763 ms = 1815 GB/s of 3350 */
	assert_float_equal(s->mbu_counter.v,
			   61491238910.0 / 0.756887834 / 44.763e-3 / 1e9 / m.peaks.datasheet_gbs.v,
			   1e-12);
	assert_float_equal(s->mbu_counter.v, 0.5418, 1e-3);
	assert_float_equal(
	    s->mfu_counter.v,
	    66068199940.0 / 0.756887834 / 44.763e-3 / 1e12 / m.peaks.datasheet_tflops.v, 1e-12);
	assert_false(s->mbu_datasheet.available); /* no model bytes */
	report_model_release(&m);

	/* no coverage known: no counter-based numbers */
	s = base(&m, 44.763, 44.763, 45, 4000);
	s->counter_flops = rnum_of(66068199940.0);
	s->counter_bytes = rnum_of(61491238910.0);
	report_model_derive(&m);
	assert_false(m.stages[0].mbu_counter.available);
	assert_false(m.stages[0].mfu_counter.available);
	report_model_release(&m);
	(void)state;
}

static void test_ranked_by_saving(void **state)
{
	struct report_model m;
	struct report_kernel *k;
	struct report_stage *s = base(&m, 412.1, 69.5, 412.3, 21018);

	s->copies = 62;
	s->copy_ms = rnum_of(0.31);
	s->copy_bytes = rnum_of(496);
	m.peaks.measured_gbs = rnum_of(3000);
	k = kernel(&m, "void k_gemv<bf16, 2>(bf16*, int)", 31000000);
	counters(k, BOUND_MEMORY, 1000, 1.2e6, 2.4e6, 0);
	run(&m);
	/* warnings: launch-bound (342.6 ms) before the ceiling (18.6 ms) */
	assert_string_equal(m.findings[0].code, "stage-launch-bound");
	assert_string_equal(m.findings[1].code, "memory-below-ceiling");
	/* info: the one with a saving (the copies) before those without */
	assert_string_equal(m.findings[2].code, "decode-host-copies");
	assert_string_equal(m.findings[3].code, "kernel-dominant");
	report_model_release(&m);
	(void)state;
}

/* Kernels of an anonymous namespace, as nsys and the tracer spell them
 * (tests/data/nsys/hf-llama-h100-nsys2025.3.kernels.tsv, the tracer's
 * graph-decode-h100 logs): a finding names each by its qualified name,
 * not by the namespace before "<unnamed>" ("at::native::"), and two
 * unrelated kernels of one anonymous namespace are no family. */
static void test_kernel_names(void **state)
{
	static const char dist_nsys[] =
	    "void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, "
	    "(int)4, "
	    "void at::native::templates::cuda::uniform_and_transform<c10::BFloat16, float, "
	    "at::CUDAGeneratorImpl *, void at::native::templates::cuda::uniform_kernel<"
	    "at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, double, double, T1)::[lambda() "
	    "(instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() "
	    "const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, "
	    "T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)]>(long, at::PhiloxCudaState, "
	    "T3, "
	    "T4)";
	static const char cat_nsys[] =
	    "void at::native::<unnamed>::CatArrayBatchedCopy<at::native::<unnamed>::OpaqueType<"
	    "(unsigned int)2>, unsigned int, (int)4, (int)64, (int)64>(T1 *, "
	    "at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, "
	    "at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)";
	static const char softmax_tracer[] =
	    "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, "
	    "10, false, false>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, "
	    "int, bool)";
	struct report_model m;
	const struct report_finding *f;

	base(&m, 100, 99, 100, 930);
	kernel(&m, dist_nsys, 60000000);
	kernel(&m, cat_nsys, 25000000);
	kernel(&m, softmax_tracer, 15000000);
	run(&m);
	f = find(&m, "kernel-dominant");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "`at::native::distribution_elementwise_grid_stride_kernel` "
					"takes 60.0% of decode kernel time"));
	assert_null(find(&m, "kernel-family-dominant"));
	for (size_t i = 0; i < m.nr_findings; i++) {
		assert_null(strstr(m.findings[i].text, "`at::native::`"));
		assert_null(strstr(m.findings[i].text, "anonymous"));
	}
	report_model_release(&m);

	/* the tracer's spelling of the softmax kernel leads the decode stage */
	base(&m, 100, 99, 100, 930);
	kernel(&m, softmax_tracer, 80000000);
	kernel(&m, cat_nsys, 20000000);
	run(&m);
	f = find(&m, "kernel-dominant");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "`softmax_warp_forward` takes 80.0%"));
	report_model_release(&m);

	/* a CUTLASS 2 GEMM is named by the kernel its launcher template runs
	 * (ncu 2025.3's spelling, H100), not by "cutlass::Kernel2" */
	base(&m, 100, 99, 100, 930);
	kernel(&m, "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)",
	       70000000);
	kernel(&m, cat_nsys, 30000000);
	run(&m);
	f = find(&m, "kernel-dominant");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "`cutlass_80_simt_sgemm_128x32_8x5_tn_align1` takes"));
	report_model_release(&m);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_launch_bound_without_model),
	    cmocka_unit_test(test_kernel_family),
	    cmocka_unit_test(test_memory_ceiling),
	    cmocka_unit_test(test_tensor_ceiling),
	    cmocka_unit_test(test_decode_host_copies),
	    cmocka_unit_test(test_counter_utilisation),
	    cmocka_unit_test(test_ranked_by_saving),
	    cmocka_unit_test(test_kernel_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
