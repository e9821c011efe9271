/* test-findings.c: each rule fires on the data it needs and stays silent
 * without it; every finding cites numbers; order is by severity. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/findings.h"
#include "analysis/hw.h"
#include "model/model.h"

static const struct report_finding *find(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return &m->findings[i];
	return NULL;
}

static size_t count(const struct report_model *m, const char *code)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr_findings; i++)
		n += !strcmp(m->findings[i].code, code);
	return n;
}

/* A model with an H100 datasheet peak, one decode stage and one kernel in it. */
static void base(struct report_model *m, double bytes, double gpu_ms, double busy_ms)
{
	struct report_stage *s;
	struct report_kernel *k;

	report_model_init(m);
	report_set_str(&m->env.gpu_name, "NVIDIA H100 80GB HBM3");
	m->env.sm_count = 132;
	hw_peaks_resolve(m, NULL, NULL, 0);
	s = report_model_add_stage(m, "decode", REPORT_ROLE_DECODE);
	s->bytes = bytes > 0 ? rnum_of(bytes) : RNUM_NONE;
	s->gpu_ms = gpu_ms > 0 ? rnum_of(gpu_ms) : RNUM_NONE;
	s->busy_ms = busy_ms > 0 ? rnum_of(busy_ms) : RNUM_NONE;
	s->cpu_ms = rnum_of(gpu_ms > 0 ? gpu_ms : 100);
	s->kernels = 1000;
	k = report_model_add_kernel(m, "gemv", NULL);
	report_set_str(&k->stage, "decode");
	k->calls = 1000;
	k->total_ns = 20000000;
}

static void run(struct report_model *m)
{
	report_model_derive(m);
	findings_run(m);
}

static void test_decode_launch_bound(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	/* 7.75e10 B in 310 ms = 250 GB/s = 7.5% MBU; idle 110/310 = 35.5% */
	base(&m, 7.75e10, 310, 200);
	run(&m);
	f = find(&m, "decode-launch-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "7.5% MBU"));
	assert_non_null(strstr(f->text, "idle 35.5% of decode"));
	assert_non_null(strstr(f->recommendation, "CUDA graph"));
	assert_null(find(&m, "decode-kernels-inefficient"));
	report_model_release(&m);

	/* the step already runs as a graph: do not suggest graphs again */
	base(&m, 7.75e10, 310, 200);
	m.llm.cuda_graph = 1;
	run(&m);
	f = find(&m, "decode-launch-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->recommendation, "already runs as a CUDA graph"));
	assert_null(strstr(f->recommendation, "Capture"));
	report_model_release(&m);

	/* nothing said so, but the trace shows the decode replaying graphs
	 * (torch.compile "reduce-overhead": 3,000 of 3,525 kernels from graph
	 * replays): where the time between replays goes, not "capture" */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].kernels = 3525;
	m.stages[0].graph_kernels = 3000;
	m.stages[0].copies = 62;
	m.stages[0].copy_ms = rnum_of(1.25);
	run(&m);
	f = find(&m, "decode-launch-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->recommendation, "already replays CUDA graphs (3000 of its 3525 "
						  "kernels)"));
	assert_non_null(strstr(f->recommendation, "62 host-device copies (1.250 ms)"));
	assert_null(strstr(f->recommendation, "Capture"));
	report_model_release(&m);

	/* a few graph kernels in an eager decode: still worth capturing */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].graph_kernels = 10;
	run(&m);
	f = find(&m, "decode-launch-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->recommendation, "Capture the decode step"));
	report_model_release(&m);

	/* MBU at 80%: no decode finding at all */
	base(&m, 0.8 * 3350e9 * 0.310, 310, 200);
	run(&m);
	assert_null(find(&m, "decode-launch-bound"));
	assert_null(find(&m, "decode-kernels-inefficient"));
	report_model_release(&m);

	/* no analytic bytes: MBU unknown, so silent */
	base(&m, 0, 310, 200);
	run(&m);
	assert_null(find(&m, "decode-launch-bound"));
	assert_null(find(&m, "decode-kernels-inefficient"));
	report_model_release(&m);

	/* busy time unknown: cannot tell launch overhead from slow kernels */
	base(&m, 7.75e10, 310, 0);
	run(&m);
	assert_null(find(&m, "decode-launch-bound"));
	assert_null(find(&m, "decode-kernels-inefficient"));
	report_model_release(&m);
}

static void test_decode_kernels_inefficient(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_kernel *k;

	/* busy 300 of 310 ms: 3.2% idle */
	base(&m, 7.75e10, 310, 300);
	run(&m);
	f = find(&m, "decode-kernels-inefficient");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "idle only 3.2%"));
	/* without counters it asks for them instead of naming kernels */
	assert_non_null(strstr(f->recommendation, "run.mode=deep"));
	report_model_release(&m);

	base(&m, 7.75e10, 310, 300);
	k = &m.kernels[0];
	report_kernel_counters(k)->profiled = 1;
	report_kernel_counters(k)->sm_sol_pct = rnum_of(20);
	report_kernel_counters(k)->mem_sol_pct = rnum_of(65);
	report_kernel_counters(k)->dram_sol_pct = rnum_of(64.5);
	run(&m);
	f = find(&m, "decode-kernels-inefficient");
	assert_non_null(f);
	assert_non_null(strstr(f->recommendation, "`gemv` (DRAM SOL 64.5%, 100.0% of decode"));
	report_model_release(&m);
}

static void test_prefill_mfu_low(void **state)
{
	struct report_model m;
	struct report_stage *s;
	const struct report_finding *f;

	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->flops = rnum_of(3.2e11);
	s->gpu_ms = rnum_of(13.9);
	run(&m);
	f = find(&m, "prefill-mfu-low");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "2.3% MFU (23.0 TFLOP/s of 989.4"));
	report_model_release(&m);

	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->flops = rnum_of(6e12); /* 6e12 / 10 ms = 600 TFLOP/s = 61% */
	s->gpu_ms = rnum_of(10);
	run(&m);
	assert_null(find(&m, "prefill-mfu-low"));
	report_model_release(&m);

	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->gpu_ms = rnum_of(10); /* no FLOPs: no MFU */
	run(&m);
	assert_null(find(&m, "prefill-mfu-low"));
	report_model_release(&m);
}

/* The H100 transformers program's prefill (issue 19): 74.6 ms of CPU time
 * for 0.85 ms of kernels, the first use of its shapes. */
static void test_setup_stage(void **state)
{
	struct report_model m;
	struct report_stage *s;
	const struct report_finding *f;

	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->cpu_ms = rnum_of(74.6);
	s->gpu_ms = rnum_of(60.2);
	s->busy_ms = rnum_of(0.85);
	s->kernels = 83;
	run(&m);
	f = find(&m, "stage-setup-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "prefill spent 74.600 ms of CPU time for 0.850 ms of GPU "
					"work (83 kernels, the GPU busy 1.1% of it)"));
	assert_non_null(strstr(f->recommendation, "warm-up"));
	assert_int_equal(count(&m, "stage-setup-bound"), 1);
	report_model_release(&m);

	/* many launches with the GPU idle is launch overhead, not setup */
	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->cpu_ms = rnum_of(74.6);
	s->busy_ms = rnum_of(0.85);
	s->kernels = 5000;
	run(&m);
	assert_null(find(&m, "stage-setup-bound"));
	report_model_release(&m);
	/* busy 10% of the CPU time, or a short stage: not setup */
	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->cpu_ms = rnum_of(74.6);
	s->busy_ms = rnum_of(7.46);
	run(&m);
	assert_null(find(&m, "stage-setup-bound"));
	report_model_release(&m);
	base(&m, 0, 0, 0);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->cpu_ms = rnum_of(5);
	s->busy_ms = rnum_of(0.01);
	run(&m);
	assert_null(find(&m, "stage-setup-bound"));
	report_model_release(&m);
	(void)state;
}

static void test_kernel_dominant(void **state)
{
	struct report_model m;
	struct report_kernel *k;
	const struct report_finding *f;

	base(&m, 0, 0, 0);
	report_kernel_counters(&m.kernels[0])->profiled = 1;
	report_kernel_counters(&m.kernels[0])->sm_sol_pct = rnum_of(10);
	report_kernel_counters(&m.kernels[0])->dram_sol_pct = rnum_of(82);
	k = report_model_add_kernel(&m, "small", NULL);
	report_set_str(&k->stage, "decode");
	k->calls = 10;
	k->total_ns = 5000000; /* gemv: 20/25 = 80% */
	run(&m);
	f = find(&m, "kernel-dominant");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "`gemv` takes 80.0% of decode kernel time"));
	assert_non_null(strstr(f->text, "memory-bound"));
	assert_non_null(strstr(f->recommendation, "memory-bound"));
	assert_int_equal(count(&m, "kernel-dominant"), 1);
	report_model_release(&m);

	/* four equal kernels: 25% each, none dominates */
	base(&m, 0, 0, 0);
	for (int i = 0; i < 3; i++) {
		k = report_model_add_kernel(&m, i == 0 ? "a" : i == 1 ? "b" : "c", NULL);
		report_set_str(&k->stage, "decode");
		k->calls = 1;
		k->total_ns = 20000000;
	}
	run(&m);
	assert_null(find(&m, "kernel-dominant"));
	report_model_release(&m);
}

/* Two different kernels that share a base name are never both `k_gemv` in
 * one finding: template arguments, then the launch configuration, tell them
 * apart. */
static void test_kernel_names_disambiguated(void **state)
{
	static const struct {
		const char *full;
		int grid;
	} ks[] = {
	    {"void k_gemv<128, 4>(float const*, float*)", 64},
	    {"void k_gemv<64, 2>(float const*, float*)", 64},
	    {"void k_gemv<64, 2>(float const*, float*)", 128},
	};
	struct report_model m;
	const struct report_finding *f;

	/* 7.75e10 B in 310 ms = 7.5% MBU, idle 10/310: the kernels, not launches */
	base(&m, 7.75e10, 310, 300);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		struct report_kernel *k = report_model_add_kernel(&m, "k_gemv", ks[i].full);

		report_set_str(&k->stage, "decode");
		k->calls = 100;
		k->total_ns = 90000000 - i * 1000000;
		k->grid[0] = ks[i].grid;
		k->grid[1] = k->grid[2] = k->block[1] = k->block[2] = 1;
		k->block[0] = 256;
		report_kernel_counters(k)->profiled = 1;
		report_kernel_counters(k)->sm_sol_pct = rnum_of(10);
		report_kernel_counters(k)->dram_sol_pct = rnum_of(82);
	}
	run(&m);
	f = find(&m, "decode-kernels-inefficient");
	assert_non_null(f);
	assert_non_null(strstr(f->recommendation, "`k_gemv<128, 4>`"));
	assert_non_null(strstr(f->recommendation, "`k_gemv<64, 2> (grid 64x1x1, block 256x1x1)`"));
	assert_non_null(strstr(f->recommendation, "`k_gemv<64, 2> (grid 128x1x1, block 256x1x1)`"));
	assert_null(strstr(f->recommendation, "`k_gemv`"));
	report_model_release(&m);

	/* alone, a kernel keeps its short name */
	base(&m, 7.75e10, 310, 300);
	{
		struct report_kernel *k = report_model_add_kernel(&m, "k_gemv", ks[0].full);

		report_set_str(&k->stage, "decode");
		k->calls = 100;
		k->total_ns = 90000000;
		report_kernel_counters(k)->profiled = 1;
		report_kernel_counters(k)->sm_sol_pct = rnum_of(10);
		report_kernel_counters(k)->dram_sol_pct = rnum_of(82);
	}
	run(&m);
	assert_non_null(f = find(&m, "decode-kernels-inefficient"));
	assert_non_null(strstr(f->recommendation, "`k_gemv` (DRAM SOL"));
	report_model_release(&m);
}

static void test_outside_stages(void **state)
{
	struct report_model m;
	struct report_kernel *k;

	base(&m, 0, 0, 0);
	k = report_model_add_kernel(&m, "warmup", NULL);
	k->calls = 3;
	k->total_ns = 5000000; /* 5 / 25 = 20% outside */
	run(&m);
	assert_non_null(find(&m, "kernels-outside-stages"));
	assert_non_null(
	    strstr(find(&m, "kernels-outside-stages")->text, "20.0% of GPU kernel time"));
	report_model_release(&m);

	base(&m, 0, 0, 0);
	k = report_model_add_kernel(&m, "warmup", NULL);
	k->calls = 3;
	k->total_ns = 500000; /* 0.5 / 20.5 = 2.4% */
	run(&m);
	assert_null(find(&m, "kernels-outside-stages"));
	report_model_release(&m);
}

static void test_no_gpu_work_and_failed_steps(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	report_model_init(&m);
	report_model_add_step(&m, "trace", STEP_OK, NULL);
	run(&m);
	assert_non_null(f = find(&m, "no-gpu-work"));
	assert_non_null(strstr(f->text, "no GPU kernels and no copies (0 kernel records, 0 ms"));
	assert_null(find(&m, "step-failed"));
	report_model_release(&m);

	/* copies without kernels: the finding names their time, never "0 ms of GPU
	 * time" beside a stage table with 20.051 ms of copies */
	report_model_init(&m);
	report_model_add_step(&m, "trace", STEP_OK, NULL);
	report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL)->copy_ms = rnum_of(20.051);
	run(&m);
	assert_non_null(f = find(&m, "no-gpu-work"));
	assert_non_null(strstr(f->text, "the GPU's only work was 20.051 ms of copies and memsets"));
	assert_null(strstr(f->text, "0 ms of GPU time"));
	report_model_release(&m);

	/* the failed trace step explains the empty trace: one finding, not two */
	report_model_init(&m);
	report_model_add_step(&m, "trace", STEP_FAILED, "the program exited with status 1");
	run(&m);
	assert_null(find(&m, "no-gpu-work"));
	f = find(&m, "step-failed");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "Step 'trace' failed (the program exited with status 1)"));
	report_model_release(&m);

	base(&m, 0, 0, 0);
	run(&m);
	assert_null(find(&m, "no-gpu-work"));
	assert_null(find(&m, "step-failed"));
	report_model_release(&m);
}

/* The CPU path: no GPU rule fires on the missing GPU numbers, one info
 * finding says why they are missing; even an H100's peaks are not used. */
static void test_cpu_path(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	report_model_init(&m);
	m.env.device = REPORT_DEVICE_CPU_NO_GPU;
	report_model_add_step(&m, "trace", STEP_OK, NULL);
	report_model_add_step(&m, "select", STEP_SKIPPED, "no kernel launches in run.stage=decode");
	run(&m);
	assert_null(find(&m, "no-gpu-work"));
	f = find(&m, "cpu-path");
	assert_non_null(f);
	assert_int_equal(f->severity, FINDING_INFO);
	assert_non_null(strstr(f->text, "ran on the CPU (no GPU found) on purpose"));
	assert_non_null(strstr(f->recommendation, "NVIDIA GPU"));
	assert_int_equal(m.nr_findings, 1);
	report_model_release(&m);

	/* device=cpu with a GPU present: the advice is the device key */
	report_model_init(&m);
	m.env.device = REPORT_DEVICE_CPU;
	run(&m);
	f = find(&m, "cpu-path");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "CPU (device=cpu)"));
	assert_non_null(strstr(f->recommendation, "device=cuda:0"));
	report_model_release(&m);

	/* on a GPU the rule is silent */
	base(&m, 0, 0, 0);
	run(&m);
	assert_null(find(&m, "cpu-path"));
	report_model_release(&m);
}

/* A skipped analyze step is not an all-clear: a critical finding says what
 * is missing and why; a failed step's finding is not doubled. */
static void test_step_skipped(void **state)
{
	struct report_model m;
	const struct report_finding *f;

	report_model_init(&m);
	report_model_add_step(&m, "workload", STEP_OK, NULL);
	report_model_add_step(&m, "analyze", STEP_SKIPPED, "no timeline trace: no backend");
	report_model_add_step(&m, "ncu", STEP_SKIPPED, "no timeline trace to select kernels from");
	run(&m);
	f = find(&m, "step-skipped");
	assert_non_null(f);
	assert_int_equal(f->severity, FINDING_CRITICAL);
	assert_non_null(strstr(f->text, "Incomplete: analyze skipped because no timeline "
					"trace: no backend"));
	assert_non_null(f->recommendation);
	assert_int_equal(count(&m, "step-skipped"), 1);
	assert_null(find(&m, "no-gpu-work"));
	report_model_release(&m);

	/* only counter steps skipped: the timings are there, no such finding */
	report_model_init(&m);
	report_model_add_step(&m, "analyze", STEP_OK, NULL);
	report_model_add_step(&m, "select", STEP_SKIPPED, "no kernel launches");
	report_model_add_step(&m, "ncu", STEP_SKIPPED, "no kernels selected");
	run(&m);
	assert_null(find(&m, "step-skipped"));
	report_model_release(&m);

	/* after a failure the failed step explains the skips */
	report_model_init(&m);
	report_model_add_step(&m, "workload", STEP_FAILED, "exited with status 1");
	report_model_add_step(&m, "trace", STEP_SKIPPED, "not run: the workload failed");
	run(&m);
	assert_non_null(find(&m, "step-failed"));
	assert_null(find(&m, "step-skipped"));
	report_model_release(&m);
}

static void test_counters_missing(void **state)
{
	struct report_model m;

	base(&m, 0, 0, 0);
	m.sel.available = 1;
	m.sel.nr_selected = 3;
	run(&m);
	assert_non_null(find(&m, "counters-missing"));
	report_model_release(&m);

	base(&m, 0, 0, 0);
	m.sel.available = 1;
	m.sel.nr_selected = 3;
	report_kernel_counters(&m.kernels[0])->profiled = 2;
	run(&m);
	assert_null(find(&m, "counters-missing"));
	report_model_release(&m);

	/* a failed ncu step says it already */
	base(&m, 0, 0, 0);
	m.sel.available = 1;
	m.sel.nr_selected = 3;
	report_model_add_step(&m, "ncu", STEP_FAILED, "timeout");
	run(&m);
	assert_null(find(&m, "counters-missing"));
	assert_non_null(strstr(find(&m, "step-failed")->text, "kernel counters"));
	report_model_release(&m);
}

static void test_numbers_and_order(void **state)
{
	struct report_model m;
	struct report_kernel *k;

	base(&m, 7.75e10, 310, 200);
	report_model_add_step(&m, "ncu", STEP_FAILED, "exit 1");
	k = report_model_add_kernel(&m, "warmup", NULL);
	k->calls = 3;
	k->total_ns = 50000000;
	run(&m);
	assert_true(m.nr_findings >= 3);
	for (size_t i = 0; i < m.nr_findings; i++) {
		const char *p = m.findings[i].text;
		int digit = 0;

		while (*p)
			digit |= isdigit((unsigned char)*p++);
		assert_true(digit);
		if (i)
			assert_true(m.findings[i - 1].severity >= m.findings[i].severity);
	}
	assert_int_equal(m.findings[0].severity, FINDING_CRITICAL);
	/* running twice gives the same list */
	{
		size_t n = m.nr_findings;
		findings_run(&m);
		assert_int_equal(n, m.nr_findings);
	}
	report_model_release(&m);
}

static void test_counter_flops_above_model(void **state)
{
	struct report_model m;
	struct report_kernel *k;
	const struct report_finding *f;

	/* 1000 decode launches x 2.68e8 counted FLOPs = 2.68e11 against a model
	 * of 3.35e10: 8x, the padding of a batch-1 GEMM to an 8-row tile */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].flops = rnum_of(3.355e10);
	k = &m.kernels[0];
	k->stage_calls[REPORT_ROLE_DECODE] = 1000;
	k->stage_ns[REPORT_ROLE_DECODE] = 20000000;
	report_kernel_counters(k)->flops = rnum_of(2.684e8);
	run(&m);
	/* more than 2x: a warning, with padding as the likely cause */
	assert_null(find(&m, "counter-flops-above-model"));
	assert_non_null(f = find(&m, "counter-flops-vs-model"));
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_non_null(strstr(f->text, "268 GFLOP in decode's profiled kernels, 100.0% of its"));
	assert_non_null(strstr(f->text, "8.0x the model's 33.5 GFLOP"));
	assert_non_null(strstr(f->text, "MMA tile"));
	report_model_release(&m);

	/* 1.8x: information only */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].flops = rnum_of(3.355e10);
	m.kernels[0].stage_calls[REPORT_ROLE_DECODE] = 1000;
	m.kernels[0].stage_ns[REPORT_ROLE_DECODE] = 20000000;
	report_kernel_counters(&m.kernels[0])->flops = rnum_of(6.04e7);
	run(&m);
	assert_null(find(&m, "counter-flops-vs-model"));
	assert_non_null(f = find(&m, "counter-flops-above-model"));
	assert_int_equal(f->severity, FINDING_INFO);
	assert_non_null(strstr(f->text, "1.8x the model's 33.5 GFLOP"));
	report_model_release(&m);

	/* far below (the decode: 80 MFLOP of counters against an
	 * analytic 77.2 GFLOP): a warning naming both figures and the stage */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].flops = rnum_of(7.72e10);
	m.kernels[0].stage_calls[REPORT_ROLE_DECODE] = 1000;
	m.kernels[0].stage_ns[REPORT_ROLE_DECODE] = 20000000;
	report_kernel_counters(&m.kernels[0])->flops = rnum_of(8.0e4);
	run(&m);
	assert_non_null(f = find(&m, "counter-flops-vs-model"));
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_non_null(strstr(f->text, "counted 80 MFLOP in decode's profiled kernels"));
	assert_non_null(strstr(f->text, "0.00104x the analytic model's 77.2 GFLOP for the "
					"whole stage, off by more than 2x"));
	report_model_release(&m);

	/* counters below the model (a lower bound): nothing to say */
	base(&m, 7.75e10, 310, 200);
	m.stages[0].flops = rnum_of(3.355e10);
	m.kernels[0].stage_calls[REPORT_ROLE_DECODE] = 1000;
	report_kernel_counters(&m.kernels[0])->flops = rnum_of(3.0e7);
	run(&m);
	assert_null(find(&m, "counter-flops-above-model"));
	report_model_release(&m);
	(void)state;
}

/* Results the join left unmatched: a warning naming the first, and the
 * report says incomplete. */
static void test_unjoined(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_unjoined *u;

	base(&m, 0, 0, 0);
	m.run.cjoin.ran = 1;
	m.run.cjoin.results = 7;
	m.run.cjoin.joined = 7;
	run(&m);
	assert_null(find(&m, "counters-unmatched"));
	assert_string_equal(report_model_state(&m), "complete");
	m.run.cjoin.joined = 2;
	m.run.cjoin.nr_unjoined = m.run.cjoin.alloc_unjoined = 5;
	m.run.cjoin.unjoined = calloc(5, sizeof(*u));
	for (int i = 0; i < 5; i++) {
		u = &m.run.cjoin.unjoined[i];
		u->id = i;
		u->name = strdup("void k_gemv<__nv_bfloat16, __nv_bfloat16, 1, 0>(T2 *)");
		u->reason = strdup("no trace kernel with this normalised name");
	}
	run(&m);
	assert_non_null(f = find(&m, "counters-unmatched"));
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_non_null(strstr(f->text, "Incomplete: 5 of 7 Nsight Compute results matched no "
					"kernel of the trace (first: `void k_gemv<__nv_bfloat16, "
					"__nv_bfloat16, 1, 0>(T2 *)`: no trace kernel with this "
					"normalised name)"));
	assert_int_equal(report_model_unjoined(&m), 5);
	assert_false(report_model_complete(&m));
	assert_string_equal(report_model_state(&m), "incomplete");
	report_model_release(&m);
	(void)state;
}

/* A top-5 kernel of the counters' stage without a Bound. */
static void test_top_bound(void **state)
{
	struct report_model m;
	const struct report_finding *f;
	struct report_kernel *k;

	base(&m, 0, 0, 0);
	m.kernels[0].stage_ns[REPORT_ROLE_DECODE] = 20000000;
	m.kernels[0].stage_calls[REPORT_ROLE_DECODE] = 1000;
	k = report_model_add_kernel(&m, "k_attn", NULL);
	k->stage_ns[REPORT_ROLE_DECODE] = 5000000;
	k->stage_calls[REPORT_ROLE_DECODE] = 100;
	report_kernel_counters(k)->profiled = 1;
	report_kernel_counters(k)->sm_sol_pct = rnum_of(20);
	report_kernel_counters(k)->mem_sol_pct = rnum_of(70);
	/* no join ran: nothing to say */
	run(&m);
	assert_null(find(&m, "top-kernel-no-bound"));
	m.run.cjoin.ran = 1;
	m.sel.available = 1;
	m.kernels[0].selected = 1;
	run(&m);
	assert_non_null(f = find(&m, "top-kernel-no-bound"));
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_string_equal(f->text, "1 of the 2 longest kernels has no Bound: `gemv` (#1 by GPU "
				     "time: Bound n/a, selected but no counter result joined it).");
	/* left out by the selection: information */
	m.kernels[0].selected = 0;
	run(&m);
	assert_non_null(f = find(&m, "top-kernel-no-bound"));
	assert_int_equal(f->severity, FINDING_INFO);
	/* counters without SOL metrics in any result: the collection had
	 * none (ncu.fast), information that says so, whatever was selected */
	m.kernels[0].selected = 1;
	report_kernel_counters(&m.kernels[0])->profiled = 1;
	report_kernel_counters(k)->sm_sol_pct = RNUM_NONE;
	report_kernel_counters(k)->mem_sol_pct = RNUM_NONE;
	report_kernel_counters(k)->bound = BOUND_UNKNOWN;
	run(&m);
	assert_non_null(f = find(&m, "top-kernel-no-bound"));
	assert_int_equal(f->severity, FINDING_INFO);
	assert_string_equal(f->text, "2 of the 2 longest kernels have no Bound: `gemv` (#1 by GPU "
				     "time: Bound unknown, no SOL metrics collected); `k_attn` (#2 "
				     "by GPU time: Bound unknown, no SOL metrics collected).");
	assert_non_null(strstr(f->recommendation, "profiling/ncu=ncu.default"));
	/* one result with them: the others' are missing, a warning */
	report_kernel_counters(k)->sm_sol_pct = rnum_of(20);
	report_kernel_counters(k)->mem_sol_pct = rnum_of(70);
	report_kernel_counters(k)->bound = BOUND_UNKNOWN;
	run(&m);
	assert_non_null(f = find(&m, "top-kernel-no-bound"));
	assert_int_equal(f->severity, FINDING_WARNING);
	assert_non_null(strstr(f->text, "Bound unknown, its SOL metrics are missing"));
	/* with its counters: silent */
	report_kernel_counters(&m.kernels[0])->sm_sol_pct = rnum_of(10);
	report_kernel_counters(&m.kernels[0])->mem_sol_pct = rnum_of(80);
	run(&m);
	assert_null(find(&m, "top-kernel-no-bound"));
	report_model_release(&m);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decode_launch_bound),
	    cmocka_unit_test(test_decode_kernels_inefficient),
	    cmocka_unit_test(test_prefill_mfu_low),
	    cmocka_unit_test(test_setup_stage),
	    cmocka_unit_test(test_kernel_dominant),
	    cmocka_unit_test(test_kernel_names_disambiguated),
	    cmocka_unit_test(test_outside_stages),
	    cmocka_unit_test(test_no_gpu_work_and_failed_steps),
	    cmocka_unit_test(test_cpu_path),
	    cmocka_unit_test(test_step_skipped),
	    cmocka_unit_test(test_counters_missing),
	    cmocka_unit_test(test_counter_flops_above_model),
	    cmocka_unit_test(test_unjoined),
	    cmocka_unit_test(test_top_bound),
	    cmocka_unit_test(test_numbers_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
