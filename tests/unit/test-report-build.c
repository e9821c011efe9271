/* test-report-build.c: the report model filled from a bundle's files
 * (analysis/model_build.h): steps from status.json (analyze/join redone, reports left
 * out, unfinished and timed-out steps as failures with their reason), env.json,
 * paths shown relative to the bundle, stages from the trace, and the
 * analysis reused from the analyze step giving the same model, and an ncu
 * export handed over parsed joining as when read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bundle/open.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "analysis/select.h"
#include "report/selection_json.h"
#include "analysis/join.h"
#include "analysis/model_build.h"
#include "model/model.h"
#include "report/report.h"

static char dir[] = "/tmp/llmprof-test-build.XXXXXX";

static void put(const char *rel, const char *text)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;

	path_join(&p, dir, rel);
	assert_int_equal(write_file_atomic(p.buf, text, strlen(text), &err), 0);
	strbuf_release(&p);
	strbuf_release(&err);
}

static const struct report_step *step(const struct report_model *m, const char *name)
{
	for (size_t i = 0; i < m->run.nr_steps; i++)
		if (!strcmp(m->run.steps[i].name, name))
			return &m->run.steps[i];
	return NULL;
}

static void test_bundle_model(void **state)
{
	struct report_build_opts o = {0};
	struct report_build_result res;
	struct report_model m, m2;
	struct strbuf err = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT, trace = STRBUF_INIT;
	struct report_analysis *an;
	struct bundle_in bundle = BUNDLE_IN_INIT;
	const char *msg;

	put("status.json",
	    "{\"run_id\":\"20261121-151102-a3f9\",\"state\":\"timeout\",\"started\":"
	    "\"2026-11-21T15:11:02.000Z\",\"steps\":["
	    "{\"name\":\"config\",\"state\":\"ok\"},"
	    "{\"name\":\"workload\",\"state\":\"timeout\",\"message\":\"timed out after 1 s\"},"
	    "{\"name\":\"analyze\",\"state\":\"failed\",\"message\":\"stale\"},"
	    "{\"name\":\"select\",\"state\":\"pending\"},"
	    "{\"name\":\"ncu\",\"state\":\"skipped\",\"message\":\"ncu support not built yet\"},"
	    "{\"name\":\"join\",\"state\":\"skipped\"},"
	    "{\"name\":\"reports\",\"state\":\"running\"}]}");
	put("env.json",
	    "{\"gpus\":[{\"name\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":132}],"
	    "\"driver_version\":\"580.65.06\",\"tools\":{\"nsys\":{\"version\":\"2025.3.1\"}}}");
	path_join(&trace, dir, "nsys");
	assert_int_equal(mkdir_p(trace.buf, &err), 0);
	strbuf_reset(&trace);
	path_join(&trace, dir, "ncu");
	assert_int_equal(mkdir_p(trace.buf, &err), 0);
	strbuf_reset(&trace);
	strbuf_addf(
	    &trace,
	    "cp '%s/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite' '%s/nsys/run.sqlite'",
	    LLMPROF_SOURCE_DIR, dir);
	assert_int_equal(system(trace.buf), 0);

	assert_int_equal(bundle_open(&bundle, dir, BUNDLE_READ_REPORT, &err), 0);
	/* the backend as the bundle records it: no status step names it
	 * here, so the trace's row does */
	assert_string_equal(bundle_backend_name(bundle.backend), "nsys");
	o.bundle = &bundle;
	o.out_dir = dir;
	report_model_init(&m);
	report_build_result_init(&res);
	report_build_model(&o, &m, &res);
	assert_string_equal(m.run.run_id, "20261121-151102-a3f9");
	assert_string_equal(m.run.started_at, "2026-11-21T15:11:02.000Z");
	assert_string_equal(m.run.trace_path,
			    "nsys/run.sqlite"); /* relative: moves with the bundle */
	assert_string_equal(m.env.gpu_name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(m.env.sm_count, 132);
	/* recorded steps kept, analyze/join redone, reports left out */
	assert_string_equal(step_state_name(step(&m, "workload")->status), "failed");
	assert_string_equal(step(&m, "workload")->reason, "timeout: timed out after 1 s");
	assert_string_equal(step_state_name(step(&m, "analyze")->status), "ok");
	assert_string_equal(step_state_name(step(&m, "select")->status), "failed");
	assert_non_null(strstr(step(&m, "select")->reason, "never finished (pending"));
	assert_string_equal(step(&m, "ncu")->reason, "ncu support not built yet");
	assert_string_equal(step_state_name(step(&m, "join")->status), "skipped");
	assert_null(step(&m, "reports"));
	assert_false(report_model_finished(&m));
	/* the trace's stages (cross-checked with nsys stats in test-report-trace.sh) */
	assert_int_equal(m.nr_stages, 2);
	assert_true(m.stages[0].gpu_ms.available);
	assert_true(m.stages[0].gpu_ms.v > 0.025951 && m.stages[0].gpu_ms.v < 0.025953);
	assert_int_equal(m.stages[1].steps, 4);
	report_render_report_md(&m, &a);
	report_build_result_release(&res);

	/* an analysis run beforehand (profile's analyze step) gives the same bytes */
	an = report_analysis_new();
	report_analysis_run(an, bundle_trace(dir, &b, NULL), NULL);
	assert_string_equal(step_state_name(report_analysis_state(an, &msg)), "ok");
	/* no range is named like an operator (stages.operator_pattern "."):
	 * the non-stage ranges A, A::A1 and B are the operators */
	assert_string_equal(msg, "14 kernels, 2 memory operations, 3 operators");
	o.analysis = an;
	report_model_init(&m2);
	report_build_result_init(&res);
	report_build_model(&o, &m2, &res);
	strbuf_reset(&b);
	report_render_report_md(&m2, &b);
	assert_string_equal(a.buf, b.buf);

	/* kernel selection over the analyzed launches of decode; its
	 * selection.json marks the kernels selected in the reports */
	{
		struct launch *l = NULL;
		size_t n = 0;
		struct select_opts so = SELECT_OPTS_INIT;
		struct selection sel = SELECTION_INIT;
		struct strbuf js = STRBUF_INIT;
		struct report_model m3;

		assert_int_equal(report_analysis_launches(an, "decode", &l, &n, &err), 0);
		assert_int_equal(n, 14);
		assert_int_equal(select_kernels(l, n, &so, &sel, &err), 0);
		assert_true(sel.stage_launches > 0);
		assert_true(sel.nr >= 1);
		/* decode = launches 5..12 (4 add, 4 scale); add's 4 take 14560 ns
		 * (3744 + 3584 + 3616 + 3616, from the kernel table) */
		assert_int_equal(sel.nr, 2);
		assert_string_equal(sel.k[0].name, "add(float *, const float *, int)");
		assert_int_equal(sel.k[0].calls, 4);
		assert_true(sel.k[0].total_ns == 14560.0);
		assert_string_equal(sel.k[1].name, "scale(float *, float, int)");
		assert_true(sel.k[1].total_ns == 14336.0);
		selection_json(&sel, &so, NULL, &js);
		put("ncu/selection.json", js.buf);
		report_model_init(&m3);
		report_build_result_release(&res);
		report_build_result_init(&res);
		bundle_in_release(&bundle); /* opened again: the selection is new */
		assert_int_equal(bundle_open(&bundle, dir, BUNDLE_READ_REPORT, &err), 0);
		report_build_model(&o, &m3, &res);
		assert_true(m3.sel.available);
		assert_int_equal(m3.sel.nr_selected, sel.nr);
		for (size_t i = 0; i < m3.nr_kernels; i++)
			assert_true(m3.kernels[i].selected);
		report_model_release(&m3);
		free(l);
		assert_int_equal(report_analysis_launches(an, "nosuchstage", &l, &n, &err), -1);
		assert_null(l);
		assert_non_null(strstr(err.buf, "run.stage=nosuchstage"));
		selection_release(&sel);
		free(l);
		strbuf_release(&js);
	}
	report_analysis_free(an);
	report_build_result_release(&res);
	report_model_release(&m);
	report_model_release(&m2);

	bundle_in_release(&bundle);

	/* a status.json whose steps name the builtin backend's trace step:
	 * that record wins over where the trace lies */
	put("status.json", "{\"steps\":[{\"name\":\"trace\",\"state\":\"ok\"}]}");
	assert_int_equal(bundle_open(&bundle, dir, BUNDLE_READ_STATUS, &err), 0);
	assert_string_equal(bundle_backend_name(bundle.backend), "builtin");
	bundle_in_release(&bundle);

	/* a broken status.json is an error naming the file and position */
	put("status.json", "{\"steps\": [");
	assert_int_equal(bundle_open(&bundle, dir, BUNDLE_READ_REPORT, &err), -1);
	assert_non_null(strstr(err.buf, "status.json:1:"));
	bundle_in_release(&bundle);
	strbuf_release(&err);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&trace);
}

/* A trace that is not a database: analyze fails inside the model, the call
 * does not, and the reports say so. */
static void test_bad_trace(void **state)
{
	struct report_build_opts o = {0};
	struct report_build_result res;
	struct report_model m;
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;

	path_join(&p, dir, "bad.sqlite");
	put("bad.sqlite", "not a database");
	o.trace_path = p.buf;
	o.out_dir = dir;
	report_model_init(&m);
	report_build_result_init(&res);
	report_build_model(&o, &m, &res);
	assert_string_equal(step_state_name(res.analyze_state), "failed");
	assert_string_equal(step_state_name(step(&m, "analyze")->status), "failed");
	assert_false(report_model_finished(&m));
	report_build_result_release(&res);
	report_model_release(&m);
	strbuf_release(&err);
	strbuf_release(&p);
}

/* The join step can take the export already parsed (a run parses
 * ncu/raw.csv once): the same model as when it reads the file itself, and
 * the file is not read again. */
static void test_parsed_ncu_table(void **state)
{
	struct report_build_opts o = {0};
	struct report_build_result res;
	struct report_model m;
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct strbuf err = STRBUF_INIT, trace = STRBUF_INIT, raw = STRBUF_INIT;
	struct strbuf md1 = STRBUF_INIT, md2 = STRBUF_INIT, msg1 = STRBUF_INIT;

	strbuf_addf(&trace, "%s/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite",
		    LLMPROF_SOURCE_DIR);
	path_join(&raw, dir, "parsed-raw.csv");
	strbuf_addf(
	    &err,
	    "cp '%s/tests/data/ncu/nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv' '%s'",
	    LLMPROF_SOURCE_DIR, raw.buf);
	assert_int_equal(system(err.buf), 0);
	strbuf_reset(&err);
	o.trace_path = trace.buf;
	o.ncu_csv = raw.buf;

	report_model_init(&m);
	report_build_result_init(&res);
	report_build_model(&o, &m, &res);
	assert_string_equal(step_state_name(res.join_state), "ok");
	strbuf_add(&msg1, res.join_msg.buf, res.join_msg.len);
	report_render_kernels_md(&m, &md1);
	report_build_result_release(&res);
	report_model_release(&m);

	assert_int_equal(join_read_ncu(raw.buf, raw.buf, &t, NULL, &err), 0);
	assert_int_equal(unlink(raw.buf), 0);
	o.ncu_table = &t;
	report_model_init(&m);
	report_build_result_init(&res);
	report_build_model(&o, &m, &res);
	assert_string_equal(step_state_name(res.join_state), "ok");
	assert_string_equal(res.join_msg.buf, msg1.buf);
	report_render_kernels_md(&m, &md2);
	assert_string_equal(md2.buf, md1.buf);
	report_build_result_release(&res);
	report_model_release(&m);

	/* without it the join reads the file, which is gone now */
	o.ncu_table = NULL;
	report_model_init(&m);
	report_build_result_init(&res);
	report_build_model(&o, &m, &res);
	assert_string_equal(step_state_name(res.join_state), "failed");
	report_build_result_release(&res);
	report_model_release(&m);

	ncu_kernel_table_release(&t);
	strbuf_release(&err);
	strbuf_release(&trace);
	strbuf_release(&raw);
	strbuf_release(&md1);
	strbuf_release(&md2);
	strbuf_release(&msg1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bundle_model),
	    cmocka_unit_test(test_bad_trace),
	    cmocka_unit_test(test_parsed_ncu_table),
	};
	struct strbuf cmd = STRBUF_INIT;
	int ret;

	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	strbuf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf))
		ret = 1;
	strbuf_release(&cmd);
	return ret;
}
