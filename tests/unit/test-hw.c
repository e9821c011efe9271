/* test-hw.c: peak table matching on real device names, SM sanity checks,
 * MFU/MBU arithmetic against hand-computed values, peak resolution with
 * overrides and calibration, the calibration file format and store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/calibration.h"
#include "analysis/findings.h"
#include "analysis/hw.h"
#include "analysis/trust.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "report/report.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))
#include <math.h>

static const char *key_of(const char *name, int sm)
{
	const struct hw_spec *s = hw_lookup(name, sm, NULL);
	return s ? s->key : NULL;
}

static void test_match_real_names(void **state)
{
	static const struct {
		const char *name;
		int sm;
		const char *key;
	} cases[] = {
	    {"NVIDIA H100 80GB HBM3", 132, "H100 SXM5 80GB"},
	    {"NVIDIA H100 PCIe", 114, "H100 PCIe 80GB"},
	    {"NVIDIA H100 NVL", 132, "H100 NVL 94GB"},
	    {"NVIDIA H200", 132, "H200 SXM 141GB"},
	    {"NVIDIA H200 NVL", 132, "H200 NVL 141GB"},
	    {"NVIDIA A100-SXM4-80GB", 108, "A100 SXM4 80GB"},
	    {"NVIDIA A100-SXM4-40GB", 108, "A100 SXM4 40GB"},
	    {"NVIDIA A100-PCIE-40GB", 108, "A100 PCIe 40GB"},
	    {"NVIDIA A100 80GB PCIe", 108, "A100 PCIe 80GB"},
	    {"NVIDIA L40S", 142, "L40S"},
	    {"NVIDIA GeForce RTX 4090", 128, "GeForce RTX 4090"},
	    {"NVIDIA GeForce RTX 5090", 170, "GeForce RTX 5090"},
	    {"NVIDIA B200", 148, "B200"},
	    /* the GPUs LLMs run on that the table gained (docs/peaks.md) */
	    {"NVIDIA H20", 78, "H20 96GB"},
	    {"NVIDIA H800", 132, "H800 SXM5 80GB"},
	    {"NVIDIA H800 PCIe", 114, "H800 PCIe 80GB"},
	    {"NVIDIA GH200 480GB", 132, "GH200 96GB HBM3"},
	    {"NVIDIA GH200 144G HBM3e", 132, "GH200 144GB HBM3e"},
	    {"NVIDIA GB200", 148, "GB200"},
	    {"NVIDIA L40", 142, "L40"},
	    {"NVIDIA L4", 58, "L4"},
	    {"NVIDIA A10", 72, "A10"},
	    {"NVIDIA A10G", 80, "A10G"},
	    {"NVIDIA A40", 84, "A40"},
	    {"Tesla T4", 40, "T4"},
	    {"Tesla V100-SXM2-16GB", 80, "V100 SXM2"},
	    {"Tesla V100-PCIE-32GB", 80, "V100 PCIe"},
	    {"Tesla V100S-PCIE-32GB", 80, "V100S PCIe"},
	    {"NVIDIA GeForce RTX 4080", 76, "GeForce RTX 4080"},
	    {"NVIDIA GeForce RTX 4060 Ti", 34, "GeForce RTX 4060 Ti"},
	    {"NVIDIA GeForce RTX 5080", 84, "GeForce RTX 5080"},
	    /* case and punctuation do not matter */
	    {"nvidia h100 80gb hbm3", 0, "H100 SXM5 80GB"},
	    /* the SM count settles a name that does not give the SKU */
	    {"NVIDIA H100", 114, "H100 PCIe 80GB"},
	    {"NVIDIA H100", 132, "H100 SXM5 80GB"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *k = key_of(cases[i].name, cases[i].sm);
		if (!k || strcmp(k, cases[i].key))
			fail_msg("'%s' matched '%s', want '%s'", cases[i].name, k ? k : "(none)",
				 cases[i].key);
	}
}

static void test_no_false_matches(void **state)
{
	static const char *const names[] = {
	    "NVIDIA GeForce RTX 4090 D", /* 114 SMs, another SKU */
	    "NVIDIA GeForce RTX 4090 Laptop GPU",
	    "NVIDIA GeForce RTX 4080 SUPER", /* 80 SMs, other figures */
	    "NVIDIA GeForce RTX 4060",	     /* not the Ti */
	    "NVIDIA GeForce RTX 3090",
	    "NVIDIA A100X", /* not an A100, not an A10 */
	    "NVIDIA L20",
	    "",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (key_of(names[i], 0))
			fail_msg("'%s' matched '%s'", names[i], key_of(names[i], 0));
	assert_null(hw_lookup(NULL, 0, NULL));
	/* near names go to their own entries, never to their neighbours */
	assert_string_equal(key_of("NVIDIA GH200 480GB", 0), "GH200 96GB HBM3");
	assert_string_equal(key_of("NVIDIA GB200", 0), "GB200");
	assert_string_equal(key_of("NVIDIA L40", 0), "L40");
	assert_string_equal(key_of("NVIDIA H20", 0), "H20 96GB");
}

static void test_sm_mismatch_note(void **state)
{
	struct strbuf notes = STRBUF_INIT;
	const struct hw_spec *s;

	/* a MIG slice reports fewer SMs */
	s = hw_lookup("NVIDIA H100 80GB HBM3 MIG 3g.40gb", 60, &notes);
	assert_non_null(s);
	assert_string_equal(s->key, "H100 SXM5 80GB");
	assert_non_null(strstr(notes.buf, "reports 60 SMs"));
	assert_non_null(strstr(notes.buf, "has 132"));
	strbuf_reset(&notes);
	hw_lookup("NVIDIA H100 80GB HBM3", 132, &notes);
	assert_int_equal(notes.len, 0);
	hw_lookup("Some Future GPU", 200, &notes);
	assert_non_null(strstr(notes.buf, "not in the peak table"));
	strbuf_reset(&notes);
	hw_lookup("NVIDIA H100", 0, &notes);
	assert_non_null(strstr(notes.buf, "assumed SXM5"));
	strbuf_release(&notes);
}

static void test_table_is_dense_and_sane(void **state)
{
	size_t n;
	const struct hw_spec *t = hw_table(&n);

	assert_true(n >= 31);
	for (size_t i = 0; i < n; i++) {
		assert_true(t[i].bw_gbs > 0 && t[i].sm_count > 0);
		assert_non_null(t[i].source);
		/* an entry without a tensor figure says why (the source lists none) */
		if (!(t[i].bf16 > 0 || t[i].fp16 > 0))
			assert_non_null(t[i].note);
		/* no BF16 (Turing, Volta): a note says so */
		if (!(t[i].bf16 > 0) && t[i].fp16 > 0)
			assert_non_null(strstr(t[i].note, "no BF16"));
		/* FP8 is twice BF16 on every tensor-core generation listed (the L40S
		 * datasheet rounds 724 to 733: allow 2%) */
		if (t[i].fp8 > 0)
			assert_near(t[i].fp8 / (2 * t[i].bf16), 1, 0.02);
		/* dense, never the sparse figure: a GPU's BF16 tensor rate per SM
		 * per clock is at most 8192 FLOP (Blackwell), so the table's
		 * figure over SMs x boost clock must stay under it */
		if (t[i].bf16 > 0 && t[i].boost_mhz > 0)
			assert_true(t[i].bf16 * 1e12 / (t[i].sm_count * t[i].boost_mhz * 1e6) <
				    8192 * 1.01);
	}
	/* the case: NVIDIA lists 148 dense for the H20, and the SMs x
	 * clock estimate would have said 632.6 */
	assert_near(hw_lookup("NVIDIA H20", 78, NULL)->bf16, 148, 0);
	assert_near(hw_estimate_bf16_tflops("9.0", 78, 1980), 632.58624, 1e-6);
	/* the H100 SXM figure is the dense one, never the sparse 1979 */
	assert_near(hw_lookup("NVIDIA H100 80GB HBM3", 132, NULL)->bf16, 989.4, 1e-9);
	assert_near(hw_lookup("NVIDIA H200", 132, NULL)->bw_gbs, 4800, 1e-9);
}

/* docs/peaks.md lists every entry with its source: a row per key. */
static void test_docs_list_every_entry(void **state)
{
	const char *dir = getenv("LLMPROF_SOURCE_DIR");
	struct strbuf path = STRBUF_INIT, doc = STRBUF_INIT, row = STRBUF_INIT;
	size_t n;
	const struct hw_spec *t = hw_table(&n);

	strbuf_addf(&path, "%s/docs/peaks.md", dir && *dir ? dir : LLMPROF_SOURCE_DIR);
	assert_int_equal(strbuf_read_file(&doc, path.buf), 0);
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&row);
		strbuf_addf(&row, "\n| %s | %s | %d | ", t[i].key, t[i].cc, t[i].sm_count);
		if (!strstr(doc.buf, row.buf))
			fail_msg("docs/peaks.md has no row for '%s'", t[i].key);
		if (!strstr(doc.buf, t[i].source))
			fail_msg("docs/peaks.md does not name the source '%s'", t[i].source);
	}
	strbuf_release(&path);
	strbuf_release(&doc);
	strbuf_release(&row);
}

static void test_precision(void **state)
{
	enum hw_precision p;
	struct strbuf err = STRBUF_INIT;
	const struct hw_spec *s = hw_lookup("NVIDIA A100-SXM4-80GB", 108, NULL);

	assert_int_equal(hw_precision_parse("BF16", &p, &err), 0);
	assert_int_equal(p, HW_BF16);
	assert_int_equal(hw_precision_parse("float32", &p, &err), 0);
	assert_int_equal(p, HW_FP32);
	assert_int_equal(hw_precision_parse("int4", &p, &err), -1);
	assert_non_null(strstr(err.buf, "unknown precision 'int4'"));
	assert_near(hw_spec_tflops(s, HW_TF32), 156, 1e-9);
	assert_near(hw_spec_tflops(s, HW_FP8), 0, 0); /* Ampere has no FP8 */
	strbuf_release(&err);
}

static void test_estimate(void **state)
{
	/* 132 x 4096 x 1.83 GHz = 989.4 TFLOP/s: the H100 SXM datasheet figure */
	assert_near(hw_estimate_bf16_tflops("9.0", 132, 1830), 989.42976, 1e-6);
	/* A100: 108 x 2048 x 1.41 GHz = 311.9 */
	assert_near(hw_estimate_bf16_tflops("8.0", 108, 1410), 311.86944, 1e-6);
	assert_near(hw_estimate_bf16_tflops("8.9", 128, 2520), 0, 0); /* per-SM rate varies */
	assert_near(hw_estimate_bf16_tflops("9.0", 0, 1830), 0, 0);
}

static void test_mfu_mbu_arithmetic(void **state)
{
	/* 3.2e11 FLOP in 13.9 ms on 989.4 TFLOP/s: 3.2e11/0.0139/989.4e12 = 0.023268 */
	assert_near(hw_mfu(3.2e11, 0.0139, 989.4), 0.0232683, 1e-6);
	/* 7.75e10 B in 309.8 ms on 3350 GB/s: 250.16 GB/s / 3350 = 0.074675 */
	assert_near(hw_mbu(7.75e10, 0.3098, 3350), 0.0746753, 1e-6);
	assert_near(hw_mfu(0, 1, 1), -1, 0);
	assert_near(hw_mbu(1, 0, 1), -1, 0);
	assert_near(hw_mbu(1, 1, 0), -1, 0);
}

/* m made for a GPU: its name, its compute capability (NULL: unknown), SMs
 * and max SM clock (0: unknown), its peaks resolved from ov, cal and the
 * DRAM bandwidth a trace showed (0: none). */
static void gpu_peaks(struct report_model *m, const char *name, const char *cc, int sms, double mhz,
		      const struct hw_overrides *ov, const struct calibration *cal,
		      double trace_gbs)
{
	report_model_init(m);
	report_set_str(&m->env.gpu_name, name);
	report_set_str(&m->env.compute_capability, cc);
	m->env.sm_count = sms;
	if (mhz > 0)
		m->env.sm_clock_mhz = rnum_of(mhz);
	hw_peaks_resolve(m, ov, cal, trace_gbs);
}

static void test_derive_stage_utilisation(void **state)
{
	struct report_model m;
	struct report_stage *s;
	struct calibration cal = {0};
	struct hw_overrides ov = {RNUM_NONE, RNUM_NONE, RNUM_NONE, RNUM_NONE};

	cal.gemm_tflops = 800;
	cal.copy_gbs = 3000;
	gpu_peaks(&m, "NVIDIA H100 80GB HBM3", NULL, 132, 0, &ov, &cal, 0);
	s = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	/* 31 steps x 2.5 GB in 310 ms: 250 GB/s */
	s->bytes = rnum_of(7.75e10);
	s->flops = rnum_of(7.75e10);
	s->gpu_ms = rnum_of(310);
	s->busy_ms = rnum_of(200);
	s->cpu_ms = rnum_of(320);
	s->kernels = 6400;
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->flops = rnum_of(4e12);
	s->cpu_ms = rnum_of(10); /* no GPU span: falls back to wall time */
	report_model_derive(&m);

	s = &m.stages[0];
	assert_near(s->achieved_gbs.v, 250, 1e-9);
	assert_near(s->mbu_datasheet.v, 250.0 / 3350, 1e-12);
	assert_near(s->mbu_measured.v, 250.0 / 3000, 1e-12);
	assert_near(s->idle_ms.v, 110, 1e-12);
	assert_near(s->launches_per_s.v, 20000, 1e-9);
	s = &m.stages[1];
	/* 4e12 FLOP in 10 ms = 400 TFLOP/s; / 989.4 = 0.40428; / 800 = 0.5 */
	assert_near(s->achieved_tflops.v, 400, 1e-9);
	assert_near(s->mfu_datasheet.v, 400 / 989.4, 1e-12);
	assert_near(s->mfu_measured.v, 0.5, 1e-12);
	assert_false(s->mbu_datasheet.available); /* no bytes given: no MBU, never 0 */
	report_model_release(&m);
}

static void test_resolve_overrides_and_unknown(void **state)
{
	struct report_model m;
	struct hw_overrides ov = {rnum_of(500), RNUM_NONE, RNUM_NONE, rnum_of(2500)};
	struct calibration cal = {0};

	cal.gemm_tflops = 600;
	cal.copy_gbs = 1800;
	gpu_peaks(&m, "NVIDIA H100 PCIe", NULL, 114, 0, &ov, &cal, 0);
	assert_near(m.peaks.datasheet_tflops.v, 500, 0);
	assert_near(m.peaks.datasheet_gbs.v, 2000, 0);
	assert_near(m.peaks.measured_tflops.v, 600, 0);
	assert_near(m.peaks.measured_gbs.v, 2500, 0);
	assert_non_null(strstr(m.peaks.datasheet_source, "override hardware.peak_tflops"));
	assert_non_null(strstr(m.peaks.datasheet_source, "bandwidth: NVIDIA H100 datasheet"));
	assert_non_null(
	    strstr(m.peaks.measured_source, "override hardware.measured_bandwidth_gbs"));
	report_model_release(&m);

	/* unknown GPU of a known architecture: estimated compute, bandwidth from
	 * the trace, both labelled estimates (never a bare "datasheet" figure) */
	gpu_peaks(&m, "NVIDIA H999 Future", "9.0", 132, 1830, NULL, NULL, 3352.3);
	assert_near(m.peaks.datasheet_tflops.v, 989.42976, 1e-6);
	assert_near(m.peaks.datasheet_gbs.v, 3352.3, 0);
	assert_true(m.peaks.tflops_estimated && m.peaks.gbs_estimated);
	assert_true(report_peak_estimated(&m, 1) && report_peak_estimated(&m, 0));
	assert_non_null(strstr(m.peaks.datasheet_source, "estimate (no datasheet)"));
	assert_non_null(strstr(m.peaks.datasheet_source, "bandwidth: estimate (no datasheet)"));
	assert_false(m.peaks.measured_tflops.available);
	assert_true(m.peaks.nr_notes >= 4); /* not in table; two estimates; no calibration */
	assert_non_null(strstr(m.peaks.notes[1], "is llmprof's estimate"));
	assert_non_null(strstr(m.peaks.notes[2], "not a datasheet figure"));
	report_model_release(&m);

	/* an override replaces the estimate: no longer labelled one */
	ov.peak_tflops = rnum_of(700);
	gpu_peaks(&m, "NVIDIA H999 Future", "9.0", 132, 1830, &ov, NULL, 3352.3);
	assert_false(m.peaks.tflops_estimated);
	assert_true(m.peaks.gbs_estimated);
	report_model_release(&m);

	/* a table entry without a tensor figure: no peak, no estimate, a note */
	gpu_peaks(&m, "NVIDIA A10G", "8.6", 80, 0, NULL, NULL, 600);
	assert_false(m.peaks.datasheet_tflops.available);
	assert_false(m.peaks.tflops_estimated || m.peaks.gbs_estimated);
	assert_near(m.peaks.datasheet_gbs.v, 600, 0);
	assert_non_null(strstr(m.peaks.notes[0], "no dense bf16 figure for the A10G"));
	report_model_release(&m);

	/* unknown GPU, unknown architecture: nothing */
	report_model_init(&m);
	report_set_str(&m.env.gpu_name, "Mystery Accelerator");
	report_set_str(&m.llm.dtype, "fp32");
	hw_peaks_resolve(&m, NULL, NULL, 0);
	assert_false(m.peaks.datasheet_tflops.available);
	assert_false(m.peaks.datasheet_gbs.available);
	assert_null(m.peaks.datasheet_source);
	assert_string_equal(m.peaks.precision, "fp32");
	report_model_release(&m);
}

/* The H20 case before the H20 was in the table: a Hopper the table
 * lacks gets SMs x clock x 4096 = 632.6 TFLOP/s. Every place that shows it
 * or divides by it says "estimated"; none says "datasheet" alone, and the
 * trust section lists it. */
static void test_estimate_labelled_everywhere(void **state)
{
	struct report_model m;
	struct report_stage *s;
	struct strbuf md = STRBUF_INIT, sum = STRBUF_INIT;

	gpu_peaks(&m, "NVIDIA H2X Future", "9.0", 78, 1980, NULL, NULL, 4000);
	assert_near(m.peaks.datasheet_tflops.v, 632.58624, 1e-6);
	s = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	s->flops = rnum_of(1e12);
	s->gpu_ms = rnum_of(100); /* 10 TFLOP/s: 1.6% of the estimate */
	s = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	s->bytes = rnum_of(4e10);
	s->gpu_ms = rnum_of(100); /* 400 GB/s: 10% */
	s->busy_ms = rnum_of(95);
	report_model_derive(&m);
	findings_run(&m);
	trust_build(&m, &(struct trust_counts){0});
	report_render_report_md(&m, &md);
	report_render_summary_md(&m, &sum);
	assert_non_null(strstr(md.buf, "| Ceiling | Datasheet or ESTIMATE | Measured |"));
	assert_non_null(strstr(md.buf, "| Dense bf16 tensor (TFLOP/s) | 632.6 (estimate) |"));
	assert_non_null(strstr(md.buf, "| 4000 (estimate) |"));
	assert_non_null(strstr(md.buf, "MFU (ESTIMATED peak)"));
	assert_non_null(strstr(md.buf, "MBU (ESTIMATED peak)"));
	assert_non_null(strstr(md.buf, "TFLOP/s ESTIMATED (no datasheet figure) dense bf16"));
	assert_non_null(strstr(md.buf, "GB/s ESTIMATED peak (no datasheet figure)"));
	assert_non_null(strstr(md.buf,
			       "| peaks estimated by llmprof, not from a datasheet (GPU not "
			       "in the peak table): dense bf16 632.6 TFLOP/s, DRAM 4000 "
			       "GB/s | 2 |"));
	assert_null(strstr(md.buf, "Nothing found that would make these numbers wrong"));
	assert_null(strstr(md.buf, " of datasheet peaks"));
	assert_non_null(
	    strstr(sum.buf, "of peaks llmprof ESTIMATED (no datasheet figure: see Trust)"));
	assert_non_null(strstr(sum.buf, "(model, estimated peak)"));
	strbuf_release(&md);
	strbuf_release(&sum);
	report_model_release(&m);
}

static void test_calibration_parse(void **state)
{
	struct calibration c;
	struct strbuf err = STRBUF_INIT;
	const char good[] =
	    "{\"gpu\": \"NVIDIA H100 80GB HBM3\", \"sm_count\": 132, \"cc\": \"9.0\","
	    " \"gemm\": {\"m\": 8192, \"tflops\": 798.2}, \"copy\": {\"gbs\": 3003.1,"
	    " \"convention\": \"read+write\"}, \"created_at\": \"2026-11-21T16:00:00Z\"}";

	assert_int_equal(calibration_parse(good, strlen(good), "x.json", &c, &err), 0);
	assert_string_equal(c.gpu, "NVIDIA H100 80GB HBM3");
	assert_int_equal(c.sm_count, 132);
	assert_near(c.gemm_tflops, 798.2, 0);
	assert_near(c.copy_gbs, 3003.1, 0);
	assert_string_equal(c.created_at, "2026-11-21T16:00:00Z");
	calibration_release(&c);

	assert_int_equal(calibration_parse("{", 1, "x.json", &c, &err), -1);
	assert_non_null(strstr(err.buf, "x.json:1:"));
	strbuf_reset(&err);
	{
		const char neg[] =
		    "{\"gpu\": \"g\", \"gemm\": {\"tflops\": -1}, \"copy\": {\"gbs\": 1}}";
		assert_int_equal(calibration_parse(neg, strlen(neg), "x.json", &c, &err), -1);
		assert_non_null(strstr(err.buf, "'tflops' must be a positive number"));
	}
	strbuf_reset(&err);
	{
		const char conv[] =
		    "{\"gpu\": \"g\", \"gemm\": {\"tflops\": 1}, \"copy\": {\"gbs\": 1, "
		    "\"convention\": \"read\"}}";
		assert_int_equal(calibration_parse(conv, strlen(conv), "x.json", &c, &err), -1);
		assert_non_null(strstr(err.buf, "convention"));
	}
	strbuf_release(&err);
}

static void test_calibration_store_load(void **state)
{
	char tmpl[] = "/tmp/llmprof-cal-XXXXXX";
	struct calibration c = {0}, got;
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT, name = STRBUF_INIT;

	calibration_sanitize_name(&name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(name.buf, "NVIDIA_H100_80GB_HBM3");
	strbuf_reset(&name);
	calibration_sanitize_name(&name, " /../x ");
	assert_string_equal(name.buf, ".._x"); /* no '/' survives */
	strbuf_reset(&name);
	calibration_sanitize_name(&name, "///");
	assert_string_equal(name.buf, "unknown-gpu");

	assert_non_null(mkdtemp(tmpl));
	setenv("LLMPROF_CALIBRATION_DIR", tmpl, 1);
	assert_int_equal(calibration_load("NVIDIA H100 80GB HBM3", &got, &err), 0); /* none yet */
	c.gpu = (char *)"NVIDIA H100 80GB HBM3";
	c.sm_count = 132;
	c.gemm_tflops = 798.25;
	c.copy_gbs = 3001.5;
	c.created_at = (char *)"2026-11-21T16:00:00Z";
	assert_int_equal(calibration_store(&c, &path, &err), 0);
	assert_non_null(strstr(path.buf, "/NVIDIA_H100_80GB_HBM3.json"));
	assert_int_equal(calibration_load("NVIDIA H100 80GB HBM3", &got, &err), 1);
	assert_near(got.gemm_tflops, 798.25, 0);
	assert_near(got.copy_gbs, 3001.5, 0);
	assert_int_equal(got.sm_count, 132);
	assert_string_equal(got.path, path.buf);
	calibration_release(&got);
	/* a file whose gpu differs from the name it is stored under is refused */
	assert_int_equal(calibration_load("NVIDIA H100 80GB HBM3 ", &got, &err), -1);
	assert_non_null(strstr(err.buf, "measured on"));
	unlink(path.buf);
	rmdir(tmpl);
	unsetenv("LLMPROF_CALIBRATION_DIR");
	strbuf_release(&err);
	strbuf_release(&path);
	strbuf_release(&name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_real_names),
	    cmocka_unit_test(test_no_false_matches),
	    cmocka_unit_test(test_sm_mismatch_note),
	    cmocka_unit_test(test_table_is_dense_and_sane),
	    cmocka_unit_test(test_docs_list_every_entry),
	    cmocka_unit_test(test_precision),
	    cmocka_unit_test(test_estimate),
	    cmocka_unit_test(test_mfu_mbu_arithmetic),
	    cmocka_unit_test(test_derive_stage_utilisation),
	    cmocka_unit_test(test_resolve_overrides_and_unknown),
	    cmocka_unit_test(test_estimate_labelled_everywhere),
	    cmocka_unit_test(test_calibration_parse),
	    cmocka_unit_test(test_calibration_store_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
