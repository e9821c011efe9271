/* test-trust.c: the trust report lists each planted item once, in a fixed
 * order, only when present; items above threshold are findings; the writers
 * show the Trust section and metrics.json's "trust". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/trust.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "report/report.h"

static size_t count(const struct report_model *m, const char *code)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr_findings; i++)
		n += !strcmp(m->findings[i].code, code);
	return n;
}

static void test_empty(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	report_model_init(&m);
	assert_int_equal(m.trust.checked, 0);
	trust_build(&m, &(struct trust_counts){0});
	assert_int_equal(m.trust.checked, 1);
	assert_int_equal(m.trust.nr, 0);
	assert_int_equal(m.nr_findings, 0);
	report_render_report_md(&m, &sb);
	assert_non_null(strstr(sb.buf, "## Trust\n\nNothing found that would make these numbers "
				       "wrong.\n"));
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"trust\": []"));
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_unchecked(void **state)
{
	struct report_model m;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	report_model_init(&m);
	report_render_report_md(&m, &sb);
	assert_null(strstr(sb.buf, "## Trust"));
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"trust\": null"));
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_planted(void **state)
{
	static const char *const order[] = {
	    "records-dropped-cupti",  "records-dropped-tracer",
	    "tracer-log-problems",    "processes-unflushed",
	    "timestamps-inverted",    "timestamps-clamped",
	    "kernels-without-launch", "kernels-outside-stages",
	    "stage-cross-thread",     "ranges-open",
	    "counters-unmatched",     "clock-skew",
	};
	struct trust_counts c = {.dropped_cupti = 12,
				 .dropped_tracer = 3,
				 .log_problems = 1,
				 .unflushed = 2,
				 .bad_times = 1,
				 .clamped = 2,
				 .no_launch = 4,
				 .outside = 5,
				 .cross_thread = 1,
				 .open_ranges = 6};
	struct report_coll_host hosts[2] = {{.aligned = 1}, {.aligned = 1, .offset_ns = 900}};
	struct report_unjoined uj = {.id = 1, .pid = 1};
	struct report_model m;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	report_model_init(&m);
	m.run.cjoin.ran = 1;
	m.run.cjoin.results = 2;
	m.run.cjoin.unjoined = &uj;
	m.run.cjoin.nr_unjoined = 1;
	m.ranks.coll.hosts = hosts;
	m.ranks.coll.nr_hosts = 2;
	m.ranks.coll.residual_median_ns = 1500;
	m.ranks.coll.residual_max_ns = 4000;
	trust_build(&m, &c);
	assert_int_equal(m.trust.nr, sizeof(order) / sizeof(order[0]));
	for (size_t i = 0; i < m.trust.nr; i++)
		assert_string_equal(m.trust.v[i].code, order[i]);
	assert_int_equal(m.trust.v[0].count, 12);
	assert_int_equal(m.trust.v[0].threshold, 0);
	assert_int_equal(m.trust.v[9].threshold, TRUST_NO_THRESHOLD);
	assert_non_null(strstr(m.trust.v[11].what, "(residual 1.5 us median, 4.0 us max)"));
	assert_string_equal(m.trust.v[3].what,
			    "processes ended without flushing the trace (crash, _exit, SIGKILL)");
	assert_int_equal(m.trust.v[3].count, 2);
	/* one finding each for the new rules, however many items fed them */
	assert_int_equal(count(&m, "records-dropped"), 1);
	assert_int_equal(count(&m, "timestamps-invalid"), 1);
	assert_int_equal(count(&m, "trace-unflushed"), 1);
	assert_int_equal(m.nr_findings, 3);

	report_render_report_md(&m, &sb);
	assert_non_null(strstr(sb.buf, "## Trust\n\n| What | How many | Affects |"));
	assert_non_null(strstr(sb.buf, "| CUPTI records dropped (buffer full) | 12 |"));
	assert_true(strstr(sb.buf, "## Findings") < strstr(sb.buf, "## Trust"));
	strbuf_reset(&sb);
	assert_int_equal(report_render_metrics_json(&m, &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\"code\": \"records-dropped-cupti\""));
	assert_non_null(strstr(sb.buf, "\"above_threshold\": true"));
	assert_non_null(strstr(sb.buf, "\"threshold\": null"));
	/* built again: the new counts replace the list, no second finding */
	trust_build(&m, &(struct trust_counts){.dropped_cupti = 1});
	assert_int_equal(m.trust.nr, 3); /* with counters-unmatched and clock-skew */
	assert_string_equal(m.trust.v[0].what, "CUPTI record dropped (buffer full)");
	assert_int_equal(count(&m, "records-dropped"), 1);
	/* a residual measured above 50 us (it is measured inside one clock too):
	 * a trust item; 1.5 us above was none */
	m.ranks.coll.residual_samples = 40;
	m.ranks.coll.residual_median_ns = 80000;
	m.ranks.coll.residual_max_ns = 120000;
	trust_build(&m, &(struct trust_counts){.dropped_cupti = 1});
	assert_int_equal(m.trust.nr, 4);
	assert_string_equal(m.trust.v[3].code, "clock-residual");
	assert_string_equal(m.trust.v[3].what, "clock residual after alignment above 50 us: "
					       "80.0 us median, 120.0 us max over 40 samples");
	m.run.cjoin.unjoined = NULL;
	m.run.cjoin.nr_unjoined = 0;
	m.ranks.coll.hosts = NULL;
	m.ranks.coll.nr_hosts = 0;
	report_model_release(&m);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* A clock not shifted (offset 0, or the reference host) is no item; a count
 * at its threshold is listed but no finding. */
static void test_thresholds(void **state)
{
	struct report_coll_host hosts[2] = {{.aligned = 1}, {.aligned = 1}};
	struct report_model m;

	(void)state;
	report_model_init(&m);
	m.ranks.coll.hosts = hosts;
	m.ranks.coll.nr_hosts = 2;
	trust_build(&m, &(struct trust_counts){.open_ranges = 1000});
	assert_int_equal(m.trust.nr, 1);
	assert_string_equal(m.trust.v[0].code, "ranges-open");
	assert_int_equal(m.nr_findings, 0);
	m.ranks.coll.hosts = NULL;
	m.ranks.coll.nr_hosts = 0;
	report_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_unchecked),
	    cmocka_unit_test(test_planted),
	    cmocka_unit_test(test_thresholds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
