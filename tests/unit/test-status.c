/* test-status.c: status.json content, step transitions, and that each
 * write replaces the file whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/strbuf.h"
#include "bundle/status.h"

static json_t *parse(const struct strbuf *sb)
{
	json_error_t e;
	json_t *j = json_loadb(sb->buf, sb->len, 0, &e);
	if (!j)
		fail_msg("bad json: %s at %d:%d", e.text, e.line, e.column);
	return j;
}

static const char *sget(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void assert_iso(const char *s)
{
	regex_t re;
	assert_non_null(s);
	assert_int_equal(
	    regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
		    REG_EXTENDED | REG_NOSUB),
	    0);
	assert_int_equal(regexec(&re, s, 0, NULL, 0), 0);
	regfree(&re);
}

static void test_lifecycle(void **state)
{
	struct run_status st;
	struct strbuf sb = STRBUF_INIT;
	json_t *j, *steps, *s;
	size_t w, t;

	run_status_init(&st, "20261121-151102-a3f9", "0.1.0 (abc)", NULL);
	w = run_status_add(&st, "workload");
	t = run_status_add(&st, "report");
	assert_int_equal(run_status_find(&st, "report"), 1);
	assert_int_equal(run_status_find(&st, "nope"), -1);
	run_status_start(&st, w);
	run_status_to_json(&st, &sb);
	j = parse(&sb);
	assert_string_equal(sget(j, "state"), "running");
	assert_true(json_is_null(json_object_get(j, "ended")));
	assert_true(json_is_null(json_object_get(j, "exit_code")));
	assert_iso(sget(j, "started"));
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 2);
	assert_string_equal(sget(json_array_get(steps, 0), "state"), "running");
	assert_string_equal(sget(json_array_get(steps, 1), "state"), "pending");
	json_decref(j);

	run_status_end(&st, w, STEP_FAILED, -1, SIGSEGV, "killed by signal 11\n(SIGSEGV)\xff");
	run_status_finish(&st, RUN_FAILED, 1, "not run: workload failed");
	strbuf_reset(&sb);
	run_status_to_json(&st, &sb);
	j = parse(&sb);
	assert_string_equal(sget(j, "run_id"), "20261121-151102-a3f9");
	assert_string_equal(sget(j, "llmprof_version"), "0.1.0 (abc)");
	assert_string_equal(sget(j, "state"), "failed");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 1);
	assert_iso(sget(j, "ended"));
	steps = json_object_get(j, "steps");
	s = json_array_get(steps, 0);
	assert_string_equal(sget(s, "name"), "workload");
	assert_string_equal(sget(s, "state"), "failed");
	assert_iso(sget(s, "start"));
	assert_iso(sget(s, "end"));
	assert_null(json_object_get(s, "exit_status"));
	assert_int_equal(json_integer_value(json_object_get(s, "signal")), SIGSEGV);
	assert_string_equal(sget(s, "signal_name"), "SIGSEGV");
	/* one line, valid UTF-8 */
	assert_string_equal(sget(s, "message"), "killed by signal 11 (SIGSEGV)\xef\xbf\xbd");
	s = json_array_get(steps, t);
	assert_string_equal(sget(s, "state"), "skipped");
	assert_string_equal(sget(s, "message"), "not run: workload failed");
	assert_true(json_is_null(json_object_get(s, "start")));
	json_decref(j);
	strbuf_release(&sb);
	run_status_release(&st);
}

static void test_write_replaces_atomically(void **state)
{
	char dir[] = "/tmp/llmprof-test-status.XXXXXX";
	struct strbuf path = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct run_status st;
	json_t *j;
	size_t i;

	assert_non_null(mkdtemp(dir));
	path_join(&path, dir, "status.json");
	run_status_init(&st, "20261121-151102-0000", "v", path.buf);
	i = run_status_add(&st, "workload");
	assert_int_equal(run_status_write(&st, NULL, &err), 0);
	run_status_start(&st, i);
	run_status_end(&st, i, STEP_OK, 0, 0, NULL);
	run_status_finish(&st, RUN_OK, 0, NULL);
	assert_int_equal(run_status_write(&st, NULL, &err), 0);
	assert_int_equal(strbuf_read_file(&got, path.buf), 0);
	j = parse(&got);
	assert_string_equal(sget(j, "state"), "ok");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(j, "steps"), 0), "exit_status")),
			 0);
	json_decref(j);
	unlink(path.buf);
	rmdir(dir);
	/* a vanished bundle directory is an error, not a crash */
	assert_int_equal(run_status_write(&st, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "status.json"));
	run_status_release(&st);
	strbuf_release(&path);
	strbuf_release(&got);
	strbuf_release(&err);
}

static void test_utf8_sanitize(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] =
	    "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 bad:\xc3 \xed\xa0\x80 \xc0\xaf";

	utf8_sanitize(&sb, in, sizeof(in) - 1);
	assert_string_equal(sb.buf,
			    "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 bad:\xef\xbf\xbd "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lifecycle),
	    cmocka_unit_test(test_write_replaces_atomically),
	    cmocka_unit_test(test_utf8_sanitize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
