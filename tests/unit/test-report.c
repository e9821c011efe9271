/* test-report.c: golden files for every writer (tests/data/report/), text
 * escaping, determinism, degenerate models, timeline size bounds.
 *
 * LLMPROF_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
 * `test-report --write DIR [complete|ncu-failed]` writes all reports of a
 * fixture into DIR (used by tests/cli/test-html.sh). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/bundle_dir.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/md.h"
#include "model/format.h"
#include "report/report.h"
#include "report/svg.h"
#include "report/model_tables.h"
#include "report-fixture.h"

static const char *source_dir(void)
{
	const char *s = getenv("LLMPROF_SOURCE_DIR");
	return s && *s ? s : LLMPROF_SOURCE_DIR;
}

static void check_golden(const char *name, const struct strbuf *got)
{
	struct strbuf path = STRBUF_INIT, want = STRBUF_INIT, err = STRBUF_INIT;
	const char *upd = getenv("LLMPROF_UPDATE_GOLDEN");

	strbuf_addf(&path, "%s/tests/data/report/%s", source_dir(), name);
	if (upd && *upd == '1') {
		assert_int_equal(write_file_atomic(path.buf, got->buf, got->len, &err), 0);
	} else {
		if (strbuf_read_file(&want, path.buf))
			fail_msg("cannot read golden file %s (LLMPROF_UPDATE_GOLDEN=1 creates it)",
				 path.buf);
		if (want.len != got->len || memcmp(want.buf, got->buf, got->len)) {
			size_t i = 0, line = 1;
			while (i < want.len && i < got->len && want.buf[i] == got->buf[i])
				line += want.buf[i++] == '\n';
			fail_msg("%s differs from the golden file at line %zu", name, line);
		}
	}
	strbuf_release(&path);
	strbuf_release(&want);
	strbuf_release(&err);
}

static void golden_all(enum fixture_kind kind, const char *prefix)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, name = STRBUF_INIT;

	fixture_build(&m, kind);
#define GOLDEN(file, render)                                                                       \
	do {                                                                                       \
		strbuf_reset(&sb);                                                                 \
		strbuf_reset(&name);                                                               \
		render;                                                                            \
		strbuf_addf(&name, "%s%s", prefix, file);                                          \
		check_golden(name.buf, &sb);                                                       \
	} while (0)
	GOLDEN("kernels.md", report_render_kernels_md(&m, &sb));
	GOLDEN("operators.md", report_render_operators_md(&m, &sb));
	GOLDEN("report.md", report_render_report_md(&m, &sb));
	GOLDEN("stakeholder_summary.md", report_render_summary_md(&m, &sb));
	GOLDEN("metrics.json", assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0));
	GOLDEN("report.html", report_render_html(&m, &sb));
	GOLDEN("timeline.svg", svg_timeline(&sb, &m, REPORT_CHART_WIDTH));
	GOLDEN("kernels.svg", svg_kernel_bars(&sb, &m, REPORT_CHART_WIDTH, REPORT_CHART_TOP));
	GOLDEN("roofline.svg", svg_roofline(&sb, &m, REPORT_CHART_WIDTH));
#undef GOLDEN
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
	strbuf_release(&name);
}

static void test_golden_complete(void **state)
{
	golden_all(FIXTURE_COMPLETE, "complete-");
}

static void test_golden_ncu_failed(void **state)
{
	golden_all(FIXTURE_NCU_FAILED, "ncu-failed-");
}

static void render_everything(struct report_model *m, struct strbuf *sb)
{
	struct strbuf err = STRBUF_INIT;

	report_render_kernels_md(m, sb);
	report_render_operators_md(m, sb);
	report_render_report_md(m, sb);
	report_render_summary_md(m, sb);
	assert_int_equal(report_render_metrics_json(m, sb, &err), 0);
	report_render_html(m, sb);
	strbuf_release(&err);
}

static void test_deterministic(void **state)
{
	struct report_model a, b;
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

	fixture_build(&a, FIXTURE_COMPLETE);
	fixture_build(&b, FIXTURE_COMPLETE);
	/* deriving twice changes nothing */
	report_model_derive(&b);
	findings_run(&b);
	render_everything(&a, &x);
	render_everything(&b, &y);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.buf, y.buf, x.len);
	report_model_release(&a);
	report_model_release(&b);
	strbuf_release(&x);
	strbuf_release(&y);
}

/* The sections the original system's summary promised (Environment,
 * Aggregates, Per-Stage Timings, MFU, Top Operators, Top Kernels, the
 * executive summary) plus Recommendations, in this order, nothing else at
 * level 1-2. */
static const char *const summary_want[] = {
    "# Stakeholder Summary", "## Environment",	   "## Aggregates",
    "## Per-Stage Timings",  "## MFU and MBU",	   "## Top Operators",
    "## Top Kernels",	     "## Recommendations", "## Glossary"};

static void check_summary_headings(const char *md)
{
	size_t n = 0;

	for (const char *p = md; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (*p != '#')
			continue;
		if (n >= sizeof(summary_want) / sizeof(summary_want[0]) ||
		    strncmp(p, summary_want[n], strlen(summary_want[n])) ||
		    p[strlen(summary_want[n])] != '\n')
			fail_msg("summary heading %zu: got '%.40s', want '%s'", n, p,
				 n < sizeof(summary_want) / sizeof(summary_want[0])
				     ? summary_want[n]
				     : "(none)");
		n++;
	}
	assert_int_equal(n, sizeof(summary_want) / sizeof(summary_want[0]));
}

static void test_summary_sections(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	fixture_build(&m, FIXTURE_COMPLETE);
	report_render_summary_md(&m, &sb);
	check_summary_headings(sb.buf);
	/* the executive summary comes before the first section and cites numbers */
	p = strstr(sb.buf, "**Executive summary.**");
	assert_non_null(p);
	assert_true(p < strstr(sb.buf, "## Environment"));
	assert_non_null(strstr(sb.buf, "TPOT 9.999 ms"));
	/* environment: GPU, driver, tools, model, backend */
	assert_non_null(strstr(sb.buf, "**GPU** NVIDIA H100 80GB HBM3 (132 SMs), peak table: H100 "
				       "SXM5 80GB; **Driver** 580.65.06, CUDA 13.0; **Tools** "
				       "llmprof 0.1.0, ncu 2024.1.1; **Model** llama-3.2-1b, bf16; "
				       "**Backend** llmprof's tracer + Nsight Compute counters."));
	/* aggregates: report.md's table on one line */
	assert_non_null(strstr(
	    sb.buf, "**TTFT (ms)** 14.250; **TPOT (ms; decode wall time per step)** 9.999;"));
	/* MFU/MBU against both peaks, the peaks with their source */
	assert_non_null(strstr(sb.buf, "- prefill: MFU 2.3% of the datasheet peak (model), 2.9% of "
				       "the measured ceiling; 23.0 TFLOP/s."));
	assert_non_null(
	    strstr(sb.buf, "- peaks: 989.4 TFLOP/s dense bf16, 3350 GB/s (H100 SXM5 80GB"));
	/* top kernels: 5 rows, the rest named */
	assert_non_null(strstr(sb.buf, "| `gemv_bf16_kernel<128, 4>` | 121.400 | 3472 |"));
	assert_non_null(strstr(sb.buf, "2 more in kernels.md."));
	/* recommendations: the first 3 findings with savings */
	assert_true(strstr(sb.buf, "## Recommendations") < strstr(sb.buf, "1. **warning**"));
	assert_non_null(strstr(sb.buf, "Estimated saving: up to 3.594 ms per token"));
	assert_non_null(strstr(sb.buf, "From the first 3 of the 5 findings in report.md"));
	report_model_release(&m);
	strbuf_release(&sb);
}

/* Nothing known: every section is still there and says why it is empty. */
static void test_summary_sections_empty(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT;

	report_model_init(&m);
	report_model_derive(&m);
	report_render_summary_md(&m, &sb);
	check_summary_headings(sb.buf);
	assert_non_null(strstr(sb.buf, "No trace was analysed, so there are no stage timings."));
	assert_non_null(strstr(sb.buf, "No prefill or decode stage, so no MFU or MBU."));
	assert_non_null(strstr(sb.buf, "**Driver** unknown;"));
	assert_non_null(strstr(sb.buf, "No operator ranges: there are no stages to hold them."));
	assert_non_null(strstr(sb.buf, "No kernels: no trace was analysed"));
	assert_non_null(strstr(sb.buf, "None: nothing was measured to judge"));
	assert_non_null(strstr(sb.buf, "**Model** unknown: no model= keys or config.json"));
	report_model_release(&m);
	strbuf_release(&sb);

	/* one finding: "1 finding", never "the first 1" */
	report_model_init(&m);
	report_model_add_finding(&m, FINDING_INFO, "x-test", NULL, "One thing.");
	report_render_summary_md(&m, &sb);
	assert_null(strstr(sb.buf, "the first 1"));
	assert_non_null(strstr(sb.buf, " 1 finding: under Recommendations."));
	assert_non_null(strstr(sb.buf, "From the one finding of report.md:"));
	report_model_release(&m);
	strbuf_release(&sb);
}

static void test_report_md_first_line(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT;

	fixture_build(&m, FIXTURE_NCU_FAILED);
	report_render_report_md(&m, &sb);
	assert_true(starts_with(sb.buf, "# Profiling report: INCOMPLETE (step 'ncu' failed)\n"));
	report_model_release(&m);
	strbuf_reset(&sb);
	fixture_build(&m, FIXTURE_COMPLETE);
	report_render_report_md(&m, &sb);
	assert_true(starts_with(sb.buf, "# Profiling report\n"));
	report_model_release(&m);
	strbuf_release(&sb);
}

static void test_escaping(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	md_text(&sb, "a|b*c_d<e>\nf\\ _x y_ up_gate");
	assert_string_equal(sb.buf, "a\\|b\\*c_d&lt;e&gt; f\\\\ \\_x y\\_ up_gate");
	strbuf_reset(&sb);
	md_code(&sb, "x`y|z");
	assert_string_equal(sb.buf, "``x`y\\|z``");
	strbuf_reset(&sb);
	md_code(&sb, "`a`");
	assert_string_equal(sb.buf, "`` `a` ``");
	strbuf_reset(&sb);
	xml_text(&sb, "<a href=\"x\">&'\x01");
	assert_string_equal(sb.buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\xEF\xBF\xBD");
	strbuf_reset(&sb);
	md_inline_html(&sb, "kernel ``a`b\\|c`` at 5% & <x>");
	assert_string_equal(sb.buf, "kernel <code>a`b|c</code> at 5% &amp; &lt;x&gt;");
	strbuf_reset(&sb);
	md_escape_inline(&sb, "a*b <c>|\n#");
	assert_string_equal(sb.buf, "a\\*b \\<c\\>\\| \\#");
	strbuf_reset(&sb);
	md_inline_html(&sb, "a\\*b \\<c\\>\\| \\# `x\\*`");
	assert_string_equal(sb.buf, "a*b &lt;c&gt;| # <code>x\\*</code>");
	strbuf_reset(&sb);
	fmt_ellipsize(&sb, "abcdefghij", 6);
	assert_string_equal(sb.buf, "abc...");
	strbuf_reset(&sb);
	fmt_ellipsize(&sb, "abc", 6);
	assert_string_equal(sb.buf, "abc");
	strbuf_release(&sb);
}

static void test_invalid_utf8(void **state)
{
	struct report_model m;
	struct report_kernel *k;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	xml_text(&sb, "a\xff b\xc0\xaf c\xed\xa0\x80 d\xc3\xa9 e\xf0\x9f\x98\x80 \xe2\x82 <");
	assert_string_equal(sb.buf, "a\xEF\xBF\xBD b\xEF\xBF\xBD\xEF\xBF\xBD "
				    "c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD d\xc3\xa9 "
				    "e\xf0\x9f\x98\x80 \xEF\xBF\xBD\xEF\xBF\xBD &lt;");

	/* one badly encoded kernel name must not cost the run its metrics.json */
	report_model_init(&m);
	k = report_model_add_kernel(&m, "k\xff", NULL);
	k->calls = 1;
	k->total_ns = 10;
	report_model_derive(&m);
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"name\": \"k\xEF\xBF\xBD\""));
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* Counter FLOPs count a kernel's launches inside the stage only (never its
 * warm-up), and only in the stage the counters were taken in. */
static struct report_model *counter_model(struct report_model *m, const char *taken)
{
	struct report_kernel *k;

	report_model_init(m);
	report_set_str(&m->run.counters_stage, taken);
	report_model_add_stage(m, "prefill", REPORT_ROLE_PREFILL)->gpu_ms = rnum_of(1);
	report_model_add_stage(m, "decode", REPORT_ROLE_DECODE)->gpu_ms = rnum_of(1);
	k = report_model_add_kernel(m, "pre_only", NULL); /* 2 warm-up + 3 prefill */
	report_set_str(&k->stage, "prefill");
	k->calls = 5;
	k->stage_calls[REPORT_ROLE_PREFILL] = 3;
	k->stage_ns[REPORT_ROLE_PREFILL] = 300;
	report_kernel_counters(k)->flops = rnum_of(10);
	k = report_model_add_kernel(m, "mixed", NULL); /* 1 prefill + 4 decode */
	report_set_str(&k->stage, "mixed");
	k->calls = 5;
	k->stage_calls[REPORT_ROLE_PREFILL] = 1;
	k->stage_calls[REPORT_ROLE_DECODE] = 4;
	k->stage_ns[REPORT_ROLE_PREFILL] = 100;
	k->stage_ns[REPORT_ROLE_DECODE] = 400;
	report_kernel_counters(k)->flops = rnum_of(1000);
	k = report_model_add_kernel(m, "dec_only", NULL); /* 6 decode, no counters */
	report_set_str(&k->stage, "decode");
	k->calls = 6;
	k->stage_calls[REPORT_ROLE_DECODE] = 6;
	k->stage_ns[REPORT_ROLE_DECODE] = 600;
	report_model_derive(m);
	return m;
}

static void test_counter_flops_by_stage(void **state)
{
	struct report_model m;
	const struct report_stage *pre, *dec;

	counter_model(&m, "decode");
	pre = report_model_stage_by_role(&m, REPORT_ROLE_PREFILL);
	dec = report_model_stage_by_role(&m, REPORT_ROLE_DECODE);
	assert_false(pre->counter_flops.available); /* taken in decode */
	assert_true(dec->counter_flops.available);
	assert_true(dec->counter_flops.v == 4000);
	assert_true(fabs(dec->counter_time_share.v - 0.4) < 1e-12);
	report_model_release(&m);

	counter_model(&m, "prefill");
	pre = report_model_stage_by_role(&m, REPORT_ROLE_PREFILL);
	dec = report_model_stage_by_role(&m, REPORT_ROLE_DECODE);
	assert_true(pre->counter_flops.v == 3 * 10 + 1000); /* not 5 x 10 + 5 x 1000 */
	assert_true(pre->counter_time_share.v == 1);
	assert_false(dec->counter_flops.available);
	report_model_release(&m);

	/* "all": the mixed kernel's per-launch mean describes neither stage */
	counter_model(&m, "all");
	pre = report_model_stage_by_role(&m, REPORT_ROLE_PREFILL);
	dec = report_model_stage_by_role(&m, REPORT_ROLE_DECODE);
	assert_true(pre->counter_flops.v == 30);
	assert_true(fabs(pre->counter_time_share.v - 0.75) < 1e-12);
	assert_false(dec->counter_flops.available);
	report_model_release(&m);
	(void)state;
}

/* TTFT and tokens/s when the CPU leaves a range before the GPU is done (the
 * H100 numbers of the built-in llama-3.2-1b without a sync at decode_all's
 * end), and per recorded step when a capture lost some steps' kernels. */
static void test_aggregates_cpu_ahead(void **state)
{
	struct report_model m;
	struct report_stage *p, *d;

	report_model_init(&m);
	m.llm.batch_size = 1;
	p = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	p->instances = 1;
	p->cpu_ms = rnum_of(1.998);
	p->gpu_ms = rnum_of(2.239);
	p->done_ms = rnum_of(2.274); /* range start to the last prefill kernel's end */
	d = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	d->instances = 1;
	d->steps = 31;
	d->cpu_ms = rnum_of(34.948);
	d->gpu_ms = rnum_of(44.654);
	d->step_mean_ms = rnum_of(1.441);
	report_model_derive(&m);
	assert_true(fabs(m.agg.ttft_ms.v - 2.274) < 1e-9);
	assert_true(fabs(m.agg.tokens_per_s.v - 31 / 0.044654) < 1e-6); /* 694.2, not 887 */
	assert_true(m.agg.tpot_ms.v == 1.441);
	report_model_release(&m);

	/* the decode range opened while the GPU still ran the prefill (CPU time
	 * 45.5 ms > GPU span 44.763 ms; the workload's events: 692.48 tokens/s) */
	report_model_init(&m);
	m.llm.batch_size = 1;
	d = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	d->instances = 1;
	d->steps = 31;
	d->cpu_ms = rnum_of(45.5);
	d->gpu_ms = rnum_of(44.763);
	report_model_derive(&m);
	assert_true(fabs(m.agg.tokens_per_s.v - 31 / 0.044763) < 1e-6);
	report_model_release(&m);

	report_model_init(&m); /* no done time: the later of CPU time and GPU span */
	p = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	p->instances = 1;
	p->cpu_ms = rnum_of(1.998);
	p->gpu_ms = rnum_of(2.239);
	report_model_derive(&m);
	assert_true(fabs(m.agg.ttft_ms.v - 2.239) < 1e-9);
	report_model_release(&m);

	report_model_init(&m); /* a gated capture recorded 24.5 of 31 steps */
	m.llm.batch_size = 1;
	d = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	d->instances = 1;
	d->steps = 31;
	d->cpu_ms = rnum_of(34.736);
	d->gpu_ms = rnum_of(35.167);
	d->step_mean_ms = rnum_of(1.407);
	d->steps_recorded = 24.5;
	report_model_derive(&m);
	assert_true(fabs(m.agg.tpot_ms.v - 35.167 / 24.5) < 1e-9);
	assert_true(fabs(m.agg.tokens_per_s.v - 24.5 / 0.035167) < 1e-6);
	report_model_release(&m);
	(void)state;
}

static void test_number_format(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	fmt_ms(&sb, RNUM_NONE);
	assert_string_equal(sb.buf, "n/a");
	strbuf_reset(&sb);
	fmt_ms(&sb, rnum_of(-0.0001));
	assert_string_equal(sb.buf, "0.000");
	strbuf_reset(&sb);
	fmt_frac_pct(&sb, rnum_of(0.3849));
	assert_string_equal(sb.buf, "38.5%");
	strbuf_reset(&sb);
	fmt_si(&sb, rnum_of(3.2e11), "FLOP");
	assert_string_equal(sb.buf, "320 GFLOP");
	strbuf_reset(&sb);
	fmt_si(&sb, rnum_of(7.75e10), "B");
	assert_string_equal(sb.buf, "77.5 GB");
	strbuf_reset(&sb);
	fmt_tflops(&sb, rnum_of(0.2485));
	assert_string_equal(sb.buf, "0.248");
	strbuf_release(&sb);
}

/* A measured number never reads as 0: a positive value below the format's
 * last decimal keeps two significant digits, in every formatter. */
static void test_number_format_small(void **state)
{
	static const struct {
		void (*fmt)(struct strbuf *, struct rnum);
		double v;
		const char *want;
	} cases[] = {
	    {fmt_gbs, 0.47, "0.47"}, /* decode GB/s of a tiny CPU run */
	    {fmt_gbs, 0.6, "1"},     /* rounds to 1, not to 0 */
	    {fmt_gbs, 250.4, "250"},
	    {fmt_gbs, 0.0, "0"},	    /* a real zero stays 0 */
	    {fmt_ms, 0.0004, "0.0004"},	    /* 400 ns */
	    {fmt_ms, 0.000001, "0.000001"}, /* 1 ns */
	    {fmt_ms, 1e-12, "0.000"},	    /* rounding residue, not a time */
	    {fmt_ms, -0.0001, "0.000"},	    /* never "-0.000" */
	    {fmt_pct, 0.04, "0.04"},
	    {fmt_tflops, 0.0002, "0.0002"},
	    {fmt_tflops, 0.0999, "0.100"},
	};
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		cases[i].fmt(&sb, rnum_of(cases[i].v));
		assert_string_equal(sb.buf, cases[i].want);
	}
	strbuf_reset(&sb);
	fmt_frac_pct(&sb, rnum_of(0.00001));
	assert_string_equal(sb.buf, "0.001%");
	strbuf_reset(&sb);
	fmt_fixed(&sb, rnum_of(0.47), 0);
	assert_string_equal(sb.buf, "0.47");
	strbuf_release(&sb);
	(void)state;
}

/* "every report below is complete" only when it is: not beside skipped
 * counter steps, not on the CPU path, not when analyze was skipped (then
 * the summary says INCOMPLETE, never an all-clear). */
static void test_complete_only_when_complete(void **state)
{
	static const char complete[] = "every report below is complete";
	struct report_model m;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	fixture_build(&m, FIXTURE_COMPLETE);
	report_render_report_md(&m, &sb);
	assert_non_null(strstr(sb.buf, complete));
	report_model_release(&m);

	/* counters skipped */
	report_model_init(&m);
	report_model_add_step(&m, "analyze", STEP_OK, NULL);
	report_model_add_step(&m, "ncu", STEP_SKIPPED, "pipeline.ncu.enable=false");
	report_model_derive(&m);
	findings_run(&m);
	strbuf_reset(&sb);
	report_render_report_md(&m, &sb);
	assert_null(strstr(sb.buf, complete));
	assert_non_null(strstr(sb.buf, "without kernel counters (step 'ncu' skipped: "
				       "pipeline.ncu.enable=false)"));
	assert_true(starts_with(sb.buf, "# Profiling report\n"));
	report_model_release(&m);

	/* the CPU path: Device row, headline, no GPU name, no completeness claim */
	report_model_init(&m);
	m.env.device = REPORT_DEVICE_CPU_NO_GPU;
	report_set_str(&m.llm.name, "tiny");
	report_model_add_step(&m, "analyze", STEP_OK, NULL);
	report_model_add_step(&m, "select", STEP_SKIPPED, "no kernel launches in run.stage=decode");
	report_model_derive(&m);
	findings_run(&m);
	strbuf_reset(&sb);
	report_render_report_md(&m, &sb);
	assert_null(strstr(sb.buf, complete));
	assert_non_null(strstr(sb.buf, "| Device | CPU (no GPU found) |"));
	assert_null(strstr(sb.buf, "| GPU |"));
	assert_non_null(strstr(sb.buf, "ran on the CPU (no GPU found) on purpose"));
	strbuf_reset(&sb);
	report_render_summary_md(&m, &sb);
	assert_non_null(strstr(sb.buf, "tiny on the CPU (no GPU found)."));
	assert_null(strstr(sb.buf, "unknown GPU"));
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"device\": \"CPU (no GPU found)\""));
	report_model_release(&m);

	/* analyze skipped: INCOMPLETE everywhere, no all-clear */
	report_model_init(&m);
	report_model_add_step(&m, "workload", STEP_OK, NULL);
	report_model_add_step(&m, "analyze", STEP_SKIPPED, "no timeline trace: no backend");
	report_model_derive(&m);
	findings_run(&m);
	strbuf_reset(&sb);
	report_render_report_md(&m, &sb);
	assert_true(starts_with(sb.buf, "# Profiling report: INCOMPLETE (step 'analyze' "
					"skipped)\n"));
	assert_non_null(strstr(sb.buf, "| State | incomplete |"));
	assert_null(strstr(sb.buf, complete));
	strbuf_reset(&sb);
	report_render_summary_md(&m, &sb);
	assert_non_null(strstr(sb.buf, "> INCOMPLETE: analyze skipped because no timeline "
				       "trace: no backend"));
	assert_null(strstr(sb.buf, "No bottleneck crossed the thresholds"));
	assert_null(strstr(sb.buf, "None: no rule"));
	strbuf_reset(&sb);
	report_render_html(&m, &sb);
	assert_non_null(strstr(sb.buf, "<h1>Profiling report: INCOMPLETE</h1>"));
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"state\": \"incomplete\""));
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_empty_model(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT;

	report_model_init(&m);
	report_model_derive(&m);
	findings_run(&m);
	render_everything(&m, &sb);
	assert_non_null(strstr(sb.buf, "No kernels were captured."));
	assert_non_null(strstr(sb.buf, "No timeline data was captured."));
	assert_non_null(strstr(sb.buf, "no-gpu-work"));
	/* never a made-up number: no MFU when nothing is known */
	assert_null(strstr(sb.buf, "nan"));
	report_model_release(&m);
	strbuf_release(&sb);
}

static void test_timeline_bounded(void **state)
{
	struct report_model m;
	struct report_lane *l;
	struct strbuf sb = STRBUF_INIT;

	report_model_init(&m);
	l = report_model_add_lane(&m, "GPU stream 1", LANE_GPU);
	for (int64_t i = 0; i < 1000000; i++)
		report_lane_add(l, i * 1000, i * 1000 + (i % 7) * 100 + 50, NULL);
	svg_timeline(&sb, &m, 1100);
	/* one lane binned to ~900 columns: a few hundred KB would mean one rect per kernel */
	assert_true(sb.len < 120000);
	assert_non_null(strstr(sb.buf, "fill-opacity"));
	report_model_release(&m);
	strbuf_release(&sb);
}

static void test_scales(void **state)
{
	struct svg_scale lin = {0, 10, 100, 200, 0}, lg = {1, 1000, 0, 300, 1};

	assert_true(svg_scale_map(&lin, 5) == 150);
	assert_true(svg_scale_map(&lg, 10) > 99.999 && svg_scale_map(&lg, 10) < 100.001);
	assert_true(svg_nice_step(100, 5) == 20);
	assert_true(svg_nice_step(7, 8) == 1);
	assert_true(svg_nice_step(0.33, 8) > 0.049 && svg_nice_step(0.33, 8) < 0.051);
}

static void test_write_all(void **state)
{
	struct report_model m;
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT, p = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	char tmpl[] = "/tmp/llmprof-report-XXXXXX";
	static const char *const files[] = {
	    "kernels.md",	  "operators.md", "report.md",		 "stakeholder_summary.md",
	    "metrics.json",	  "report.html",  "charts/timeline.svg", "charts/kernels.svg",
	    "charts/roofline.svg"};

	assert_non_null(mkdtemp(tmpl));
	strbuf_addf(&dir, "%s/out", tmpl);
	fixture_build(&m, FIXTURE_COMPLETE);
	assert_int_equal(mkdir_p(dir.buf, &err), 0);
	assert_int_equal(bundle_dir_open(&bd, dir.buf, 0, &err), 0);
	assert_int_equal(report_write_all(&m, &bd, &err), 0);
	bundle_dir_close(&bd);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir.buf, files[i]);
		assert_true(path_exists(p.buf));
		unlink(p.buf);
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/charts", dir.buf);
	rmdir(p.buf);
	rmdir(dir.buf);
	/* an unwritable target fails with a message */
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_open(&bd, "/proc", 0, &err), 0);
	assert_int_equal(report_write_all(&m, &bd, &err), -1);
	assert_true(err.len > 0);
	bundle_dir_close(&bd);
	rmdir(tmpl);
	report_model_release(&m);
	strbuf_release(&dir);
	strbuf_release(&err);
	strbuf_release(&p);
}

static int write_mode(const char *dir, const char *kind)
{
	struct report_model m;
	struct strbuf err = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	int ret;

	fixture_build(&m,
		      kind && !strcmp(kind, "ncu-failed") ? FIXTURE_NCU_FAILED : FIXTURE_COMPLETE);
	ret = mkdir_p(dir, &err) || bundle_dir_open(&bd, dir, 0, &err) ||
	      report_write_all(&m, &bd, &err);
	bundle_dir_close(&bd);
	if (ret)
		fprintf(stderr, "test-report: %s\n", err.buf);
	report_model_release(&m);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_complete),
	    cmocka_unit_test(test_golden_ncu_failed),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_summary_sections),
	    cmocka_unit_test(test_summary_sections_empty),
	    cmocka_unit_test(test_report_md_first_line),
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_number_format),
	    cmocka_unit_test(test_number_format_small),
	    cmocka_unit_test(test_counter_flops_by_stage),
	    cmocka_unit_test(test_aggregates_cpu_ahead),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_complete_only_when_complete),
	    cmocka_unit_test(test_empty_model),
	    cmocka_unit_test(test_timeline_bounded),
	    cmocka_unit_test(test_scales),
	    cmocka_unit_test(test_write_all),
	};

	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return write_mode(argv[2], argc > 3 ? argv[3] : NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
