/* test-analytic.c: the built-in LLM's analytic file into the report model,
 * and peaks_load(): config overrides, stored calibration, datasheet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/analytic.h"
#include "analysis/calibration.h"
#include "analysis/findings.h"
#include "analysis/peaks.h"
#include "config/config.h"
#include "core/fsutil.h"
#include "model/model.h"

static const char *source_dir(void)
{
	const char *s = getenv("LLMPROF_SOURCE_DIR");
	return s && *s ? s : LLMPROF_SOURCE_DIR;
}

static void test_analytic_file(void **state)
{
	struct report_model m;
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct report_stage *pre, *dec;

	report_model_init(&m);
	report_set_str(&m.llm.name, "from-config"); /* set fields win */
	pre = report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
	(void)pre;
	report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
	strbuf_addf(&path, "%s/tests/data/report/analytic-llama-tiny.json", source_dir());
	assert_int_equal(analytic_load_file(&m, path.buf, &err), 0);
	pre = &m.stages[0];
	dec = &m.stages[1];
	assert_true(pre->flops.available && pre->flops.v == 93233152);
	assert_true(pre->bytes.v == 15843328);
	assert_true(dec->flops.v == 17464320);
	assert_true(dec->bytes.v == 47400960);
	assert_string_equal(m.llm.name, "from-config");
	assert_int_equal(m.llm.hidden_size, 256);
	assert_int_equal(m.llm.num_kv_heads, 2);
	assert_int_equal(m.llm.new_tokens, 4);
	assert_string_equal(m.llm.dtype, "fp32");
	assert_true(m.llm.params.v == 3944704);
	report_model_release(&m);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* The decode work follows the steps whose GPU work the trace holds (a gated
 * capture that stops while the GPU runs behind loses the last steps'
 * kernels), and a mismatch is said, never divided through. */
static void load_with_steps(struct report_model *m, const uint64_t *kernels, size_t nsteps,
			    uint64_t instances)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct report_stage *dec;

	report_model_init(m);
	report_model_add_stage(m, "prefill", REPORT_ROLE_PREFILL)->instances = instances;
	dec = report_model_add_stage(m, "decode", REPORT_ROLE_DECODE);
	dec->steps = nsteps;
	dec->instances = instances;
	if (nsteps) {
		dec->step_kernels = malloc(nsteps * sizeof(*dec->step_kernels));
		memcpy(dec->step_kernels, kernels, nsteps * sizeof(*kernels));
		dec->nr_step_kernels = nsteps;
	}
	strbuf_addf(&path, "%s/tests/data/report/analytic-llama-tiny.json", source_dir());
	assert_int_equal(analytic_load_file(m, path.buf, &err), 0);
	findings_run(m);
	strbuf_release(&path);
	strbuf_release(&err);
}

static const struct report_finding *finding(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return &m->findings[i];
	return NULL;
}

static void test_analytic_decode_steps(void **state)
{
	/* the file's 3 steps cost (flops, bytes): (5819392, 15798272),
	 * (5821440, 15800320), (5823488, 15802368) */
	static const uint64_t whole[] = {40, 40, 40}, cut[] = {40, 10, 0},
			      two_gen[] = {40, 40, 40, 40, 40, 40},
			      two_gen_cut[] = {40, 40, 40, 40, 40, 0}, none[] = {0, 0, 0};
	struct report_model m;
	const struct report_finding *f;

	load_with_steps(&m, whole, 3, 1); /* every step whole: the file's totals */
	assert_true(m.stages[1].flops.v == 17464320 && m.stages[1].bytes.v == 47400960);
	assert_int_equal(m.stages[1].steps_expected, 0);
	assert_null(finding(&m, "decode-steps-missing"));
	assert_null(finding(&m, "decode-steps-mismatch"));
	report_model_release(&m);

	/* stopped early: step 2 a quarter recorded, step 3 not at all */
	load_with_steps(&m, cut, 3, 1);
	assert_true(m.stages[1].flops.v == 5819392 + 5821440 / 4.0);
	assert_true(m.stages[1].bytes.v == 15798272 + 15800320 / 4.0);
	assert_int_equal(m.stages[1].steps_expected, 3);
	assert_non_null(f = finding(&m, "decode-steps-missing"));
	assert_non_null(strstr(f->text, "GPU work of 1.2 of the 3 decode steps"));
	assert_non_null(strstr(f->text, "(1 steps have no kernels and 1 only some)"));
	report_model_release(&m);

	load_with_steps(&m, two_gen, 6, 2); /* two generations: twice the work */
	assert_true(m.stages[0].flops.v == 2 * 93233152.0);
	assert_true(m.stages[1].flops.v == 2 * 17464320.0);
	report_model_release(&m);

	load_with_steps(&m, two_gen_cut, 6, 2); /* no per-step costs for two runs */
	assert_false(m.stages[1].flops.available);
	assert_non_null(finding(&m, "decode-steps-mismatch"));
	report_model_release(&m);

	load_with_steps(&m, whole, 2, 1); /* fewer ranges than steps: no telling which */
	assert_false(m.stages[1].flops.available);
	assert_non_null(finding(&m, "decode-steps-mismatch"));
	report_model_release(&m);

	load_with_steps(&m, none, 3, 1); /* no GPU work traced (CPU run): the totals */
	assert_true(m.stages[1].flops.v == 17464320);
	assert_null(finding(&m, "decode-steps-mismatch"));
	report_model_release(&m);

	/* a step's cost is needed and malformed: one line says which, nothing set */
	{
		static const char bad[] =
		    "{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": 1, "
		    "\"bytes\": 1}, \"decode\": {\"flops\": 3, \"bytes\": 3}, \"decode_steps\": "
		    "[{\"flops\": 1, \"bytes\": 1}, 7]}";
		static const uint64_t two[] = {40, 0};
		struct strbuf err = STRBUF_INIT;
		struct report_stage *dec;

		report_model_init(&m);
		dec = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
		dec->steps = 2;
		dec->step_kernels = malloc(sizeof(two));
		memcpy(dec->step_kernels, two, sizeof(two));
		dec->nr_step_kernels = 2;
		assert_int_equal(analytic_load_buffer(&m, bad, strlen(bad), "a.json", &err), -1);
		assert_string_equal(err.buf, "a.json: decode_steps[1] is not an object");
		assert_false(dec->flops.available);
		strbuf_release(&err);
		report_model_release(&m);
	}

	/* a long generation's file gives the first step and the change per
	 * step (decode_steps_affine): the same three steps, the same figures */
	{
		static const char affine[] =
		    "{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": 1, "
		    "\"bytes\": 1}, \"decode\": {\"flops\": 17464320, \"bytes\": 47400960}, "
		    "\"decode_steps_affine\": {\"steps\": 3, \"first\": {\"flops\": 5819392, "
		    "\"bytes\": 15798272}, \"per_step\": {\"flops\": 2048, \"bytes\": 2048}}}";
		static const char bad_affine[] =
		    "{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": 1, "
		    "\"bytes\": 1}, \"decode\": {\"flops\": 3, \"bytes\": 3}, "
		    "\"decode_steps_affine\": {\"steps\": -1}}";
		struct strbuf err = STRBUF_INIT;
		struct report_stage *dec;

		report_model_init(&m);
		dec = report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
		dec->steps = 3;
		dec->instances = 1;
		dec->step_kernels = malloc(sizeof(cut));
		memcpy(dec->step_kernels, cut, sizeof(cut));
		dec->nr_step_kernels = 3;
		assert_int_equal(analytic_load_buffer(&m, affine, strlen(affine), "a.json", &err),
				 0);
		assert_true(m.stages[0].flops.v == 5819392 + 5821440 / 4.0);
		assert_true(m.stages[0].bytes.v == 15798272 + 15800320 / 4.0);
		assert_int_equal(m.stages[0].steps_expected, 3);
		report_model_release(&m);
		report_model_init(&m);
		report_model_add_stage(&m, "decode", REPORT_ROLE_DECODE);
		assert_int_equal(
		    analytic_load_buffer(&m, bad_affine, strlen(bad_affine), "a.json", &err), -1);
		assert_string_equal(err.buf,
				    "a.json: decode_steps_affine.steps is not a step count");
		strbuf_release(&err);
		report_model_release(&m);
	}

	load_with_steps(&m, NULL, 0, 1); /* no decode_step ranges: the stage as a whole */
	assert_true(m.stages[1].flops.v == 17464320);
	report_model_release(&m);
	(void)state;
}

static void test_analytic_errors(void **state)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
	    {"{\"schema\": \"x\"}", "not an analytic file"},
	    {"{\"schema\": \"llmprof-llm-analytic/1\"}", "'prefill' object is missing"},
	    {"{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": -1, \"bytes\": 1},"
	     " \"decode\": {\"flops\": 1, \"bytes\": 1}}",
	     "'prefill.flops' must be a non-negative number"},
	    {"{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": 1, \"bytes\": "
	     "\"1\"},"
	     " \"decode\": {\"flops\": 1, \"bytes\": 1}}",
	     "'prefill.bytes' must be a non-negative number"},
	    {"{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": 1, \"bytes\": 1}}",
	     "'decode' object is missing"},
	    {"{\n  \"schema\": ,\n}", "a.json:2:"},
	};
	struct report_model m;
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		report_model_init(&m);
		report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
		strbuf_reset(&err);
		assert_int_equal(
		    analytic_load_buffer(&m, cases[i].json, strlen(cases[i].json), "a.json", &err),
		    -1);
		if (!strstr(err.buf, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.buf, cases[i].want);
		assert_false(m.stages[0].flops.available && i < 2);
		report_model_release(&m);
	}
	/* counts beyond 2^63 come as reals in exponent form, read as such */
	{
		static const char big[] =
		    "{\"schema\": \"llmprof-llm-analytic/1\", \"prefill\": {\"flops\": "
		    "5.60000000000000000e+19, \"bytes\": 1}, \"decode\": {\"flops\": 1, "
		    "\"bytes\": 1}}";

		report_model_init(&m);
		report_model_add_stage(&m, "prefill", REPORT_ROLE_PREFILL);
		strbuf_reset(&err);
		assert_int_equal(analytic_load_buffer(&m, big, strlen(big), "a.json", &err), 0);
		assert_true(m.stages[0].flops.available);
		assert_true(m.stages[0].flops.v == 5.6e19);
		report_model_release(&m);
	}
	strbuf_reset(&err);
	report_model_init(&m);
	assert_int_equal(analytic_load_file(&m, "/nonexistent/analytic.json", &err), -1);
	assert_non_null(strstr(err.buf, "cannot read '/nonexistent/analytic.json'"));
	report_model_release(&m);
	strbuf_release(&err);
}

static void test_peaks_load(void **state)
{
	char tmpl[] = "/tmp/llmprof-peaks-XXXXXX";
	struct strbuf conf = STRBUF_INIT, err = STRBUF_INIT, path = STRBUF_INIT;
	struct config *cfg = NULL;
	struct calibration c = {0};
	struct report_model m;
	const char *ov[] = {"hardware.peak_bandwidth_gbs=3000", "hardware.measured_tflops=-5"};

	assert_non_null(mkdtemp(tmpl));
	setenv("LLMPROF_CALIBRATION_DIR", tmpl, 1);
	c.gpu = (char *)"NVIDIA H200";
	c.gemm_tflops = 788;
	c.copy_gbs = 4300;
	assert_int_equal(calibration_store(&c, &path, &err), 0);

	strbuf_addf(&conf, "%s/conf", source_dir());
	if (config_load(&cfg, conf.buf, 2, ov, &err))
		fail_msg("config: %s", err.buf);
	report_model_init(&m);
	report_set_str(&m.env.gpu_name, "NVIDIA H200");
	m.env.sm_count = 132;
	peaks_load(&m, cfg, 0);
	assert_true(m.peaks.datasheet_tflops.v == 989.4);
	assert_true(m.peaks.datasheet_gbs.v == 3000);  /* override */
	assert_true(m.peaks.measured_tflops.v == 788); /* -5 ignored */
	assert_true(m.peaks.measured_gbs.v == 4300);
	assert_int_equal(m.peaks.nr_notes, 1);
	assert_non_null(strstr(m.peaks.notes[0], "hardware.measured_tflops = -5 ignored"));
	report_model_release(&m);

	/* a damaged calibration file is a note, not a failure */
	assert_int_equal(write_file_atomic(path.buf, "{", 1, &err), 0);
	report_model_init(&m);
	report_set_str(&m.env.gpu_name, "NVIDIA H200");
	peaks_load(&m, NULL, 0);
	assert_true(m.peaks.datasheet_gbs.v == 4800);
	assert_false(m.peaks.measured_gbs.available);
	assert_non_null(strstr(m.peaks.notes[0], "calibration not used"));
	report_model_release(&m);

	unlink(path.buf);
	rmdir(tmpl);
	unsetenv("LLMPROF_CALIBRATION_DIR");
	config_free(cfg);
	strbuf_release(&conf);
	strbuf_release(&err);
	strbuf_release(&path);
}

/* null and .nan read as unset (no note); .inf and 0 are ignored with one */
static void test_peaks_overrides_null_nan(void **state)
{
	struct strbuf conf = STRBUF_INIT, err = STRBUF_INIT;
	struct config *cfg = NULL;
	struct hw_overrides ov;
	struct report_model m;
	const char *o[] = {"hardware.peak_tflops=.nan", "hardware.measured_tflops=.inf",
			   "hardware.measured_bandwidth_gbs=0"};

	strbuf_addf(&conf, "%s/conf", source_dir());
	if (config_load(&cfg, conf.buf, 3, o, &err))
		fail_msg("config: %s", err.buf);
	report_model_init(&m);
	peaks_overrides_from_config(cfg, &ov, &m);
	assert_false(ov.peak_tflops.available);
	assert_false(ov.peak_gbs.available);
	assert_false(ov.measured_tflops.available);
	assert_false(ov.measured_gbs.available);
	assert_int_equal(m.peaks.nr_notes, 2);
	assert_non_null(strstr(m.peaks.notes[0], "hardware.measured_tflops = inf ignored"));
	assert_non_null(strstr(m.peaks.notes[1], "hardware.measured_bandwidth_gbs = 0 ignored"));
	report_model_release(&m);
	config_free(cfg);
	strbuf_release(&conf);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_analytic_file),
	    cmocka_unit_test(test_analytic_decode_steps),
	    cmocka_unit_test(test_analytic_errors),
	    cmocka_unit_test(test_peaks_load),
	    cmocka_unit_test(test_peaks_overrides_null_nan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
