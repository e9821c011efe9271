/* test-live.c: profile's live status line (cmd/live.h): its text, the
 * terminal redraw and erase, the plain-line cadence of a log, the cut to
 * the terminal width, what a program's output may put in it, and the tail
 * of a log shown when a workload fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/live.h"

#define S(x) ((uint64_t)((x)*1e9))

/* What was written to fp since the last call. */
static char *drain(FILE *fp)
{
	static char buf[4096];
	long end = ftell(fp);
	size_t n;

	rewind(fp);
	n = fread(buf, 1, (size_t)end < sizeof(buf) - 1 ? (size_t)end : sizeof(buf) - 1, fp);
	buf[n] = '\0';
	rewind(fp);
	if (ftruncate(fileno(fp), 0))
		fail_msg("ftruncate");
	return buf;
}

static void test_format(void **state)
{
	struct live l;
	struct strbuf sb = STRBUF_INIT;

	live_init(&l, NULL, 1, 0, 0, S(100));
	live_step(&l, 4, 11, "workload", S(102));
	live_format(&l, S(114.7), &sb);
	assert_string_equal(sb.buf, "llmprof: step 4/11 workload, 12 s (total 14 s)");
	strbuf_reset(&sb);
	live_set_detail(&l, "ncu: kernel 3 of 12 \"add\": pass ~5 of 10 (50%)");
	live_format(&l, S(100 + 2 + 185), &sb);
	assert_string_equal(sb.buf, "llmprof: step 4/11 workload, 3m05s (total 3m07s): ncu: "
				    "kernel 3 of 12 \"add\": pass ~5 of 10 (50%)");
	/* a new step starts its clock and detail over */
	strbuf_reset(&sb);
	live_step(&l, 5, 11, "trace", S(4000));
	live_format(&l, S(4000), &sb);
	assert_string_equal(sb.buf, "llmprof: step 5/11 trace, 0 s (total 1h05m)");
	strbuf_release(&sb);
	live_release(&l);
}

static void test_detail_sanitized(void **state)
{
	struct live l;
	char big[400];

	live_init(&l, NULL, 1, 0, 0, 0);
	live_set_detail(&l, "\033[1;31mred\033[0m\ttab\a bell\033]0;title\a!");
	assert_string_equal(l.detail.buf, "red tab bell!");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	live_set_detail(&l, big);
	assert_int_equal(l.detail.len, 160);
	/* a multi-byte character is never cut in half */
	memset(big, 'x', sizeof(big));
	memcpy(big + 159, "\xc3\xa9", 2);
	big[161] = '\0';
	live_set_detail(&l, big);
	assert_int_equal(l.detail.len, 159);
	live_set_detail(&l, NULL);
	assert_int_equal(l.detail.len, 0);
	live_release(&l);
}

static void test_plain_cadence(void **state)
{
	FILE *fp = tmpfile();
	struct live l;

	live_init(&l, fp, 1, 0, 0, S(0));
	live_step(&l, 3, 9, "workload", S(0));
	live_tick(&l, S(1));
	live_tick(&l, S(4.9));
	assert_string_equal(drain(fp), ""); /* a quick step prints nothing */
	live_tick(&l, S(5));
	assert_string_equal(drain(fp), "llmprof: step 3/9 workload, 5 s (total 5 s)\n");
	live_tick(&l, S(6));
	live_tick(&l, S(9.9));
	assert_string_equal(drain(fp), "");
	live_tick(&l, S(10.2));
	assert_string_equal(drain(fp), "llmprof: step 3/9 workload, 10 s (total 10 s)\n");
	/* another line in the log postpones the next one */
	live_printed(&l, S(14));
	live_tick(&l, S(15.5));
	assert_string_equal(drain(fp), "");
	live_tick(&l, S(19));
	assert_string_equal(drain(fp), "llmprof: step 3/9 workload, 19 s (total 19 s)\n");
	/* nothing to erase in a log */
	live_clear(&l);
	assert_string_equal(drain(fp), "");
	/* disabled (-q): never a line */
	l.enabled = 0;
	live_tick(&l, S(100));
	assert_string_equal(drain(fp), "");
	live_release(&l);
	fclose(fp);
}

static void test_tty_redraw(void **state)
{
	FILE *fp = tmpfile();
	struct live l;

	live_init(&l, fp, 1, 1, 0, S(0));
	live_step(&l, 3, 9, "workload", S(0));
	live_clear(&l); /* nothing drawn yet: nothing to erase */
	assert_string_equal(drain(fp), "");
	live_tick(&l, S(0.5));
	assert_string_equal(drain(fp), "\r\033[Kllmprof: step 3/9 workload, 0 s (total 0 s)");
	live_set_detail(&l, "last output: loading");
	live_tick(&l, S(1));
	assert_string_equal(drain(fp), "\r\033[Kllmprof: step 3/9 workload, 1 s (total 1 s): "
				       "last output: loading");
	live_clear(&l);
	assert_string_equal(drain(fp), "\r\033[K");
	live_clear(&l);
	assert_string_equal(drain(fp), "");
	/* cut to the terminal's width less one column */
	l.width = 20;
	live_tick(&l, S(2));
	assert_string_equal(drain(fp), "\r\033[Kllmprof: step 3/9 w");
	live_release(&l);
	fclose(fp);
}

static void test_last_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *bar = "Loading\n 10%|#   |\r 50%|##  |\r";

	live_last_line(bar, strlen(bar), 100, &sb);
	assert_string_equal(sb.buf, "50%|##  |");
	strbuf_reset(&sb);
	live_last_line("one\ntwo\n\n  \n", 12, 100, &sb);
	assert_string_equal(sb.buf, "two");
	strbuf_reset(&sb);
	live_last_line("real\n\033[0m\n", 10, 100, &sb); /* escapes only: look further up */
	assert_string_equal(sb.buf, "real");
	strbuf_reset(&sb);
	live_last_line("\n\n", 2, 100, &sb);
	assert_string_equal(sb.buf, "");
	live_last_line("abcdef", 6, 3, &sb);
	assert_string_equal(sb.buf, "abc");
	strbuf_release(&sb);
}

static void test_file_tail(void **state)
{
	char path[] = "/tmp/llmprof-test-live.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct strbuf sb = STRBUF_INIT;

	assert_non_null(fp);
	for (int i = 1; i <= 15; i++)
		fprintf(fp, "line %d\n", i);
	fprintf(fp, "bell\a and \033[31mred\033[0m\r\n");
	fprintf(fp, "progress 10%%\rprogress 90%%\r\n");
	fflush(fp);
	assert_int_equal(live_file_tail(path, 4, 65536, "  ", &sb), 4);
	assert_string_equal(sb.buf, "  line 14\n  line 15\n  bell? and red\n  progress 90%\n");
	/* only the last bytes are read; a line cut by that is dropped */
	strbuf_reset(&sb);
	assert_int_equal(live_file_tail(path, 10, 56, "", &sb), 2);
	assert_string_equal(sb.buf, "bell? and red\nprogress 90%\n");
	fclose(fp);
	/* empty, and missing */
	fp = fopen(path, "w");
	fclose(fp);
	strbuf_reset(&sb);
	assert_int_equal(live_file_tail(path, 10, 4096, "", &sb), 0);
	assert_int_equal(sb.len, 0);
	unlink(path);
	assert_int_equal(live_file_tail(path, 10, 4096, "", &sb), -1);
	/* a last line without a newline counts */
	fp = fopen(path, "w");
	fputs("a\nb", fp);
	fclose(fp);
	assert_int_equal(live_file_tail(path, 10, 4096, "> ", &sb), 2);
	assert_string_equal(sb.buf, "> a\n> b\n");
	unlink(path);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format),	  cmocka_unit_test(test_detail_sanitized),
	    cmocka_unit_test(test_plain_cadence), cmocka_unit_test(test_tty_redraw),
	    cmocka_unit_test(test_last_line),	  cmocka_unit_test(test_file_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
