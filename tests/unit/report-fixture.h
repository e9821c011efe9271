/* report-fixture.h: a report model built in code for the writer, findings
 * and HTML tests. The numbers are shaped like a real llama-3.2-1b bf16 run on
 * an H100 (batch 1, eager decode, so launch-bound); kernel names include
 * the characters escaping must handle (| < > ` & and newlines). */
#ifndef LLMPROF_TEST_REPORT_FIXTURE_H
#define LLMPROF_TEST_REPORT_FIXTURE_H

#include "analysis/calibration.h"
#include "analysis/findings.h"
#include "analysis/trust.h"
#include "analysis/hw.h"
#include "model/model.h"

#include <string.h>

enum fixture_kind {
	FIXTURE_COMPLETE,   /* every step ok, counters on the selected kernels */
	FIXTURE_NCU_FAILED, /* the ncu step failed: no counters */
};

static inline struct report_kernel *fixture_kernel(struct report_model *m, const char *s,
						   const char *full, const char *stage,
						   uint64_t calls, uint64_t total_ns)
{
	struct report_kernel *k = report_model_add_kernel(m, s, full);

	report_set_str(&k->device, "GPU 0");
	report_set_str(&k->stage, stage);
	k->calls = calls;
	k->total_ns = total_ns;
	k->exposed_ns = total_ns; /* no kernel overlaps another */
	if (stage && !strcmp(stage, "prefill")) {
		k->stage_calls[REPORT_ROLE_PREFILL] = calls;
		k->stage_ns[REPORT_ROLE_PREFILL] = total_ns;
		k->stage_exposed_ns[REPORT_ROLE_PREFILL] = total_ns;
	} else if (stage && !strcmp(stage, "decode")) {
		k->stage_calls[REPORT_ROLE_DECODE] = calls;
		k->stage_ns[REPORT_ROLE_DECODE] = total_ns;
		k->stage_exposed_ns[REPORT_ROLE_DECODE] = total_ns;
	}
	return k;
}

static inline void fixture_counters(struct report_kernel *k, double dur_ns, double sm, double mem,
				    double dram, double occ, double flops, double bytes)
{
	k->selected = 1;
	report_kernel_counters(k)->profiled = 3;
	report_kernel_counters(k)->duration_ns = rnum_of(dur_ns);
	report_kernel_counters(k)->sm_sol_pct = rnum_of(sm);
	report_kernel_counters(k)->mem_sol_pct = rnum_of(mem);
	report_kernel_counters(k)->dram_sol_pct = rnum_of(dram);
	report_kernel_counters(k)->occupancy_pct = rnum_of(occ);
	report_kernel_counters(k)->flops_tensor = rnum_of(flops);
	report_kernel_counters(k)->dram_bytes = rnum_of(bytes);
}

static inline void fixture_build(struct report_model *m, enum fixture_kind kind)
{
	struct report_stage *s;
	struct report_kernel *k;
	struct report_operator *o;
	struct report_lane *l;
	struct calibration cal = {0};
	struct hw_overrides ov = {RNUM_NONE, RNUM_NONE, RNUM_NONE, RNUM_NONE};
	static const char *const step_names[] = {"config", "provenance", "trace", "analyze",
						 "select", "ncu",	 "join",  "reports"};

	report_model_init(m);
	report_set_str(&m->run.run_id, "20261121-120000-a1b2");
	report_set_str(&m->run.mode, "deep");
	report_set_str(&m->run.started_at, "2026-11-21T12:00:00.000Z");
	report_set_str(&m->run.trace_path, "trace/trace.sqlite");
	for (size_t i = 0; i < sizeof(step_names) / sizeof(step_names[0]); i++) {
		const char *name = step_names[i];

		if (kind == FIXTURE_NCU_FAILED && !strcmp(name, "ncu")) {
			report_model_add_step(m, name, STEP_FAILED,
					      "ncu exited with status 1 (see logs/ncu.stderr)");
			continue;
		}
		if (kind == FIXTURE_NCU_FAILED && !strcmp(name, "join")) {
			report_model_add_step(m, name, STEP_SKIPPED, "no counters to join");
			continue;
		}
		report_model_add_step(m, name, STEP_OK, NULL);
	}
	report_set_str(&m->run.state, kind == FIXTURE_COMPLETE ? "complete" : "failed");
	if (kind == FIXTURE_COMPLETE) {
		report_set_str(&m->run.ncu_path, "ncu/raw.csv");
		report_set_str(&m->run.counters_stage, "decode");
	}

	report_set_str(&m->env.gpu_name, "NVIDIA H100 80GB HBM3");
	m->env.sm_count = 132;
	report_set_str(&m->env.compute_capability, "9.0");
	m->env.gpu_memory_gib = rnum_of(79.6);
	m->env.sm_clock_mhz = rnum_of(1980);
	report_set_str(&m->env.driver, "580.65.06");
	report_set_str(&m->env.cuda, "13.0");
	report_set_str(&m->env.host, "gpu-node-1");
	report_model_add_tool(m, "llmprof", "0.1.0");
	report_model_add_tool(m, "ncu", "2024.1.1");

	report_set_str(&m->llm.name, "llama-3.2-1b");
	report_set_str(&m->llm.arch, "llama");
	m->llm.params = rnum_of(1.236e9);
	m->llm.hidden_size = 2048;
	m->llm.intermediate_size = 8192;
	m->llm.num_layers = 16;
	m->llm.num_heads = 32;
	m->llm.num_kv_heads = 8;
	m->llm.head_dim = 64;
	m->llm.vocab_size = 128256;
	report_set_str(&m->llm.dtype, "bf16");
	m->llm.batch_size = 1;
	m->llm.prompt_len = 128;
	m->llm.new_tokens = 32;
	m->llm.cuda_graph = 0;

	s = report_model_add_stage(m, "prefill", REPORT_ROLE_PREFILL);
	s->instances = 1;
	s->cpu_ms = rnum_of(14.25);
	s->gpu_ms = rnum_of(13.9);
	s->busy_ms = rnum_of(12.1);
	s->kernels = 210;
	s->flops = rnum_of(3.2e11);
	s->bytes = rnum_of(2.6e9);
	s = report_model_add_stage(m, "decode", REPORT_ROLE_DECODE);
	s->instances = 1;
	s->cpu_ms = rnum_of(310.5);
	s->gpu_ms = rnum_of(309.8);
	s->busy_ms = rnum_of(198.4);
	s->kernels = 6510;
	s->steps = 31;
	s->step_mean_ms = rnum_of(9.98);
	s->step_p50_ms = rnum_of(9.91);
	s->step_p90_ms = rnum_of(10.4);
	s->step_max_ms = rnum_of(12.7);
	/* the steps' ranges below: 31 of them 10 ms apart, the last 9.98 ms long */
	s->step_wall_ms = rnum_of(30 * 10.0 + 9.98);
	s->flops = rnum_of(7.7e10);
	s->bytes = rnum_of(7.75e10);
	m->agg.ttft_ms = rnum_of(14.25);
	m->agg.e2e_ms = rnum_of(325.1);
	m->agg.gpu_span_ms = rnum_of(324.0);
	m->agg.gpu_busy_ms = rnum_of(212.6);

	k = fixture_kernel(m, "gemv_bf16_kernel<128, 4>",
			   "void gemv_bf16_kernel<128, 4>(const __nv_bfloat16 *, const "
			   "__nv_bfloat16 *, __nv_bfloat16 *, int, int)",
			   "decode", 3472, 121400000);
	/* 32 warm-up launches before the first stage: not the decode stage's work */
	k->stage_calls[REPORT_ROLE_DECODE] = 3440;
	k->stage_ns[REPORT_ROLE_DECODE] = 120281000;
	k->stage_exposed_ns[REPORT_ROLE_DECODE] = 120281000;
	if (kind == FIXTURE_COMPLETE)
		fixture_counters(k, 34900, 18.2, 41.5, 41.0, 22.4, 2.4e7, 4.79e7);
	k = fixture_kernel(m, "flash_fwd_splitkv_kernel",
			   "void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<64, 64, 128, 4, "
			   "false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)",
			   "decode", 496, 28300000);
	if (kind == FIXTURE_COMPLETE)
		fixture_counters(k, 57100, 12.5, 30.1, 22.7, 18.9, 1.1e7, 4.34e7);
	k = fixture_kernel(m, "rms_norm_kernel", "rms_norm_kernel(float *, const float *, int)",
			   "decode", 1023, 9800000);
	if (kind == FIXTURE_COMPLETE)
		fixture_counters(k, 9600, 8.1, 14.2, 9.5, 30.2, 1.2e5, 3.06e6);
	k = fixture_kernel(m, "elementwise_kernel<add|mul>",
			   "void at::native::elementwise_kernel<128, 2, add|mul>(int, "
			   "`lambda`)\n(second line)",
			   "decode", 1519, 6100000);
	k = fixture_kernel(m, "cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_32x3_tn_align8",
			   "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_"
			   "32x3_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_32x3_"
			   "tn_align8::Params)",
			   "prefill", 112, 9100000);
	if (kind == FIXTURE_COMPLETE)
		fixture_counters(k, 81200, 22.5, 38.2, 35.0, 12.4, 2.5e9, 9.52e7);
	k = fixture_kernel(
	    m, "flash_fwd_kernel",
	    "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>(Flash_fwd_params)",
	    "prefill", 16, 1900000);
	k = fixture_kernel(m, "fill_kernel<float> & co",
			   "void fill_kernel<float>(float *, float, long)", NULL, 40, 19500000);

	o = report_model_add_operator(m, "mlp.up_gate", "decode");
	o->calls = 496;
	o->gpu_ms = rnum_of(80.2);
	o->cpu_ms = rnum_of(95.1);
	o = report_model_add_operator(m, "attn.qkv", "decode");
	o->calls = 496;
	o->gpu_ms = rnum_of(30.4);
	o->cpu_ms = rnum_of(40.3);
	o = report_model_add_operator(m, "attn.sdpa", "decode");
	o->calls = 496;
	o->gpu_ms = rnum_of(28.9);
	o->cpu_ms = rnum_of(36.0);
	o = report_model_add_operator(m, "mlp.up_gate", "prefill");
	o->calls = 16;
	o->gpu_ms = rnum_of(5.1);
	o->cpu_ms = rnum_of(5.3);
	o = report_model_add_operator(m, "attn.sdpa", "prefill");
	o->calls = 16;
	o->gpu_ms = rnum_of(1.9);
	o->cpu_ms = rnum_of(2.2);

	m->sel.available = 1;
	report_set_str(&m->sel.stage, "decode");
	m->sel.top_n = 30;
	m->sel.coverage_target = 0.95;
	m->sel.coverage = rnum_of(0.962);
	m->sel.nr_selected = 4;
	m->sel.nr_candidates = 6;
	report_model_add_reason(m,
				"stopped after 4 kernels: 96.2%% of decode kernel time >= 95.0%%");

	l = report_model_add_lane(m, "Stages (NVTX)", LANE_RANGE);
	report_lane_add(l, 0, 14250000, "prefill");
	for (int i = 0; i < 31; i++)
		report_lane_add(l, 14400000 + (int64_t)i * 10000000,
				14400000 + (int64_t)i * 10000000 + 9980000, "decode_step");
	l = report_model_add_lane(m, "GPU stream 7", LANE_GPU);
	/* dense prefill, then decode steps with launch gaps */
	for (int i = 0; i < 200; i++)
		report_lane_add(l, 100000 + (int64_t)i * 69000, 100000 + (int64_t)i * 69000 + 60000,
				NULL);
	for (int st = 0; st < 31; st++)
		for (int i = 0; i < 60; i++) {
			int64_t t = 14500000 + (int64_t)st * 10000000 + (int64_t)i * 160000;
			report_lane_add(l, t, t + 105000, NULL);
		}

	cal.gemm_tflops = 798.0;
	cal.copy_gbs = 3000.0;
	cal.created_at = (char *)"2026-11-21T11:00:00Z";
	hw_peaks_resolve(m, &ov, &cal, 0);
	report_model_derive(m);
	findings_run(m);
	trust_build(m, &(struct trust_counts){0});
}

#endif
