/* test-pipeline.c: the profile pipeline's pieces (src/pipeline/): the
 * step table against every plan, step states read back from their names,
 * the ncu step's --dry-run text set after the plan, and the ncu step's
 * plan driven through tests/cli/fake-ncu.sh, its progress reported
 * through struct pipeline_progress (pipeline/ prints nothing), and the
 * plan made once, for the run id drawn before the bundle is made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "pipeline/ncu.h"
#include "pipeline/plan.h"
#include "pipeline/run.h"
#include "pipeline/steps.h"

static const char *src_dir(void)
{
	const char *s = getenv("LLMPROF_SOURCE_DIR");

	return s ? s : ".";
}

static void rm_rf(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Every step the plan holds has an entry of the same kind in the table,
 * and the table lists them in the plan's order. */
static void check_table(const struct plan *p)
{
	long last = -1;

	for (size_t i = 0; i < p->nr; i++) {
		const struct pipeline_step *t = pipeline_step_find(p->steps[i].name);

		assert_non_null(t);
		assert_int_equal(t->kind, p->steps[i].kind);
		assert_true(t - pipeline_steps > last);
		last = t - pipeline_steps;
	}
}

static void test_step_table(void **state)
{
	const char *prog[] = {"./app", NULL};
	struct nsys_options o = {.nsys = "/opt/nsys", .trace = "cuda,nvtx"};
	struct plan_params pp = {.run_dir = "/r",
				 .workload_kind = WORKLOAD_KIND_COMMAND,
				 .program_argv = prog,
				 .ncu_enable = 1,
				 .trace_reason = "test"};
	enum plan_trace traces[] = {PLAN_TRACE_OFF, PLAN_TRACE_BUILTIN, PLAN_TRACE_NSYS};

	(void)state;
	pp.nsys = &o;
	pp.tracer_lib = "/lib/libllmprof_tracer.so";
	for (size_t i = 0; i < 2 * sizeof(traces) / sizeof(*traces); i++) {
		struct plan p;

		pp.trace = traces[i % 3];
		pp.reference_max_s = i < 3 ? 0 : 60; /* then with the reference step */
		assert_int_equal(plan_build(&p, &pp, NULL), 0);
		check_table(&p);
		plan_release(&p);
	}
	assert_int_equal(pipeline_nr_steps, 12);
	assert_null(pipeline_step_find("nope"));
	assert_string_equal(pipeline_steps[0].name, "config");
	assert_string_equal(pipeline_steps[pipeline_nr_steps - 1].name, "reports");
}

static void test_step_state_names(void **state)
{
	(void)state;
	for (int s = STEP_PENDING; s <= STEP_INTERRUPTED; s++)
		assert_int_equal(step_state_from_name(step_state_name((enum step_state)s)), s);
	assert_int_equal(step_state_from_name("bogus"), STEP_FAILED);
	assert_int_equal(step_state_from_name(NULL), STEP_FAILED);
}

static void test_plan_describe_ncu(void **state)
{
	const char *prog[] = {"./app", NULL};
	struct plan_params pp = {.run_dir = "/r",
				 .workload_kind = WORKLOAD_KIND_COMMAND,
				 .program_argv = prog,
				 .ncu_enable = 1,
				 .trace = PLAN_TRACE_BUILTIN,
				 .tracer_lib = "/lib/t.so",
				 .trace_reason = "test",
				 .dry_run = 1};
	struct plan p;

	(void)state;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	plan_describe_ncu(&p, "ncu --x ./app", 1, "no ncu", EXIT_TOOL_MISSING);
	assert_string_equal(plan_find(&p, "ncu")->what, "ncu --x ./app");
	assert_string_equal(plan_find(&p, "ncu")->would_fail, "no ncu");
	assert_int_equal(plan_find(&p, "ncu")->fail_code, EXIT_TOOL_MISSING);
	/* a mark already there stays */
	plan_describe_ncu(&p, "again", 1, "other", EXIT_CONFIG);
	assert_string_equal(plan_find(&p, "ncu")->would_fail, "no ncu");
	plan_release(&p);
	/* not a dry run, or a step planned as skipped: never marked */
	pp.dry_run = 0;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	plan_describe_ncu(&p, "x", 0, "no ncu", EXIT_TOOL_MISSING);
	assert_null(plan_find(&p, "ncu")->would_fail);
	plan_release(&p);
	pp.dry_run = 1;
	pp.ncu_enable = 0;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	plan_describe_ncu(&p, "x", 1, "no ncu", EXIT_TOOL_MISSING);
	assert_null(plan_find(&p, "ncu")->would_fail);
	plan_release(&p);
}

/* A pipeline_progress that records the events as text. */
static struct strbuf events = STRBUF_INIT;

static void ev_warning(void *arg, const char *msg)
{
	(void)arg;
	strbuf_addf(&events, "warning %s\n", msg);
}
static void ev_error(void *arg, const char *msg)
{
	(void)arg;
	strbuf_addf(&events, "error %s\n", msg);
}
static void ev_text(void *arg, const char *text)
{
	(void)arg;
	strbuf_addf(&events, "text %s", text);
}
static void ev_log_tail(void *arg, const char *e, const char *o)
{
	(void)arg;
	strbuf_addf(&events, "tail %s %s\n", e, o);
}
static void ev_step_begin(void *arg, size_t i, size_t nr, const char *name)
{
	(void)arg;
	strbuf_addf(&events, "begin %zu/%zu %s\n", i, nr, name);
}
static void ev_step_end(void *arg, const struct run_status *st, size_t i)
{
	(void)arg;
	strbuf_addf(&events, "end %s\n", st->steps[i].name);
}
static void ev_child_begin(void *arg, const char *name, struct proc_spec *spec, const char *out_log,
			   const char *err_log, const char *nvtx_log, const char *detail)
{
	(void)arg;
	(void)spec;
	(void)out_log;
	(void)err_log;
	(void)nvtx_log;
	strbuf_addf(&events, "child %s (%s)\n", name, detail ? detail : "-");
}
static void ev_child_end(void *arg)
{
	(void)arg;
	strbuf_addstr(&events, "child end\n");
}
static void ev_cap_begin(void *arg, size_t i, size_t n, const char *name, long long before)
{
	(void)arg;
	strbuf_addf(&events, "capture %zu/%zu %s %lld\n", i, n, name ? name : "-", before);
}
static void ev_cap_progress(void *arg, const struct ncu_progress *p, size_t expected,
			    uint64_t start_ns)
{
	(void)arg;
	(void)p;
	(void)expected;
	(void)start_ns;
}
static void ev_cap_end(void *arg, size_t i, size_t n, int measured, double secs, const char *why,
		       int explicit_run)
{
	(void)arg;
	(void)secs;
	strbuf_addf(&events, "capture end %zu/%zu %d %s %d\n", i, n, measured, why ? why : "-",
		    explicit_run);
}

static const struct pipeline_progress recorder = {
    .warning = ev_warning,
    .error = ev_error,
    .text = ev_text,
    .findings = ev_text,
    .log_tail = ev_log_tail,
    .step_begin = ev_step_begin,
    .step_end = ev_step_end,
    .child_begin = ev_child_begin,
    .child_end = ev_child_end,
    .ncu_capture_begin = ev_cap_begin,
    .ncu_capture_progress = ev_cap_progress,
    .ncu_capture_end = ev_cap_end,
};

/* A run_ctx with the config from conf/ and ov, and a bundle under dir. */
static void ctx_with(struct run_ctx *rc, const char *dir, size_t n, const char **ov)
{
	struct run_opts opts = {0, 0};
	struct strbuf conf = STRBUF_INIT, err = STRBUF_INIT;

	run_ctx_init(rc, &opts, &recorder);
	strbuf_addf(&conf, "%s/conf", src_dir());
	if (run_config_load(rc, conf.buf, n, ov, &err))
		fail_msg("config: %s", err.buf);
	if (bundle_create(&rc->bundle, dir, &err))
		fail_msg("bundle: %s", err.buf);
	strbuf_release(&err);
	/* rc->conf_dir is borrowed: point it at something that lives */
	rc->conf_dir = "conf";
	strbuf_release(&conf);
}

/* Nothing selected and no filters of the user's own: the ncu step is
 * skipped before looking for ncu, saying why. */
static void test_ncu_plan_nothing_selected(void **state)
{
	char dir[] = "/tmp/llmprof-unit-pipeline.XXXXXX";
	struct strbuf msg = STRBUF_INIT;
	struct run_ctx rc;
	struct ncu_job j;
	int code = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strbuf_reset(&events);
	ctx_with(&rc, dir, 0, NULL);
	ncu_job_init(&j, &rc);
	assert_int_equal(ncu_job_plan(&j, &msg, &code), STEP_SKIPPED);
	assert_string_equal(msg.buf,
			    "no kernels selected: nothing to measure (see the select step)");
	assert_null(j.ncu);
	assert_int_equal(events.len, 0);
	ncu_job_release(&j);
	run_ctx_release(&rc);
	strbuf_release(&msg);
	rm_rf(dir);
}

/* The user's own filter with the fake ncu: ncu is found, what it offers
 * listed (two children, reported through the progress calls), and the
 * step goes on with one run. */
static void test_ncu_plan_fake_ncu(void **state)
{
	char dir[] = "/tmp/llmprof-unit-pipeline.XXXXXX";
	struct strbuf msg = STRBUF_INIT, path = STRBUF_INIT, log = STRBUF_INIT;
	struct run_ctx rc;
	struct ncu_job j;
	const char *ov[2];
	int code = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "pipeline.ncu.path=%s/tests/cli/fake-ncu.sh", src_dir());
	ov[0] = path.buf;
	ov[1] = "pipeline.ncu.ncu_cli.kernel_name=regex:add";
	strbuf_addf(&log, "%s/fake.log", dir);
	setenv("FAKE_NCU_LOG", log.buf, 1);
	strbuf_reset(&events);
	ctx_with(&rc, dir, 2, ov);
	ncu_job_init(&j, &rc);
	assert_true(j.explicit_run);
	assert_int_equal(ncu_job_plan(&j, &msg, &code), STEP_RUNNING);
	assert_string_equal(msg.buf, "");
	assert_int_equal(j.nruns, 1);
	assert_non_null(j.ncu);
	assert_string_equal(events.buf, "child ncu-list-sections (ncu-list-sections)\n"
					"child end\n"
					"child ncu-query-metrics (ncu-query-metrics)\n"
					"child end\n");
	strbuf_reset(&path);
	bundle_path(&rc.bundle, "ncu/sections.txt", &path);
	assert_true(path_exists(path.buf));
	ncu_job_release(&j);
	run_ctx_release(&rc);
	unsetenv("FAKE_NCU_LOG");
	strbuf_release(&msg);
	strbuf_release(&path);
	strbuf_release(&log);
	rm_rf(dir);
}

/* 1 when some argv or env entry of the workload step contains dir. */
static int workload_names(const struct plan *p, const char *dir)
{
	const struct plan_step *s = plan_find(p, "workload");

	assert_non_null(s);
	for (char **a = s->argv; *a; a++)
		if (strstr(*a, dir))
			return 1;
	for (char **e = s->env_add; *e; e++)
		if (strstr(*e, dir))
			return 1;
	return 0;
}

/* The plan is made once, for the run id run_plan() draws, before anything
 * exists; the bundle is made after. Should another run take that id in
 * between, run_open_bundle() draws another and the plan names its folder. */
static void test_plan_for_drawn_bundle(void **state)
{
	const char *ov[] = {"workload=dummy", "device=cpu", "pipeline.trace.enable=false"};
	char dir[] = "/tmp/llmprof-unit-pipeline.XXXXXX";
	struct strbuf err = STRBUF_INIT, root = STRBUF_INIT, taken = STRBUF_INIT;
	struct strbuf conf = STRBUF_INIT;
	struct run_opts opts = {0, 0};
	struct run_ctx rc;
	int code = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&root, "%s/art", dir);
	run_ctx_init(&rc, &opts, &recorder);
	strbuf_addf(&conf, "%s/conf", src_dir());
	assert_int_equal(run_config_load(&rc, conf.buf, 3, ov, &err), 0);
	assert_int_equal(run_plan(&rc, root.buf, &err, &code), 0);
	assert_false(path_exists(root.buf)); /* drawn, not made */
	assert_true(starts_with(rc.bundle.dir, root.buf));
	assert_true(workload_names(&rc.plan, rc.bundle.dir));

	/* another run makes the same folder first */
	strbuf_addstr(&taken, rc.bundle.dir);
	assert_int_equal(mkdir_p(taken.buf, &err), 0);
	assert_int_equal(run_open_bundle(&rc, &err, &code), 0);
	assert_string_not_equal(rc.bundle.dir, taken.buf);
	assert_true(path_is_dir(rc.bundle.dir));
	assert_true(workload_names(&rc.plan, rc.bundle.dir));
	assert_false(workload_names(&rc.plan, taken.buf));
	run_ctx_release(&rc);
	strbuf_release(&conf);
	strbuf_release(&err);
	strbuf_release(&root);
	strbuf_release(&taken);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_step_table),
	    cmocka_unit_test(test_step_state_names),
	    cmocka_unit_test(test_plan_describe_ncu),
	    cmocka_unit_test(test_ncu_plan_nothing_selected),
	    cmocka_unit_test(test_ncu_plan_fake_ncu),
	    cmocka_unit_test(test_plan_for_drawn_bundle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
