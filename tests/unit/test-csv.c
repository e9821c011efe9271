/* test-csv.c: the RFC 4180 tokenizer: quoting, escapes, embedded newlines,
 * ragged rows, CRLF, BOM, blank lines, file:line:col errors and nsys stats'
 * lenient quotes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trace/csv.h"

/* Tokenizes s and renders it as "a|b\n" per record ("" unescaped). */
static int render(const char *s, struct strbuf *out, struct strbuf *err)
{
	struct csv_reader r;
	int rc;

	csv_reader_init(&r, s, strlen(s), "t.csv");
	while ((rc = csv_reader_next(&r, err)) == 1) {
		for (size_t i = 0; i < r.nr; i++) {
			if (i)
				strbuf_addch(out, '|');
			csv_field_unescape(&r.fields[i], out);
		}
		strbuf_addch(out, '\n');
	}
	csv_reader_release(&r);
	return rc;
}

static void expect(const char *in, const char *want)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	assert_int_equal(render(in, &out, &err), 0);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void expect_error(const char *in, const char *want)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	assert_int_equal(render(in, &out, &err), -1);
	assert_string_equal(err.buf, want);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_basic(void **state)
{
	expect("a,b,c\n1,2,3\n", "a|b|c\n1|2|3\n");
	expect("a,b,c", "a|b|c\n");		/* no final newline */
	expect("a,,c\n,\n", "a||c\n|\n");	/* empty fields */
	expect("a,b\r\n1,2\r\n", "a|b\n1|2\n"); /* CRLF */
	expect("\xEF\xBB\xBFID,x\n", "ID|x\n"); /* BOM */
	expect("a\n\n\nb\n", "a\nb\n");		/* blank lines skipped */
	expect("", "");
}

static void test_quoted(void **state)
{
	expect("\"a,b\",\"c\"\"d\"\n", "a,b|c\"d\n");
	expect("\"line1\nline2\",x\n", "line1\nline2|x\n");
	expect("\"\",\"\"\"\"\n", "|\"\n");
	/* An ncu NVTX cell: quotes doubled inside a quoted field. */
	expect("\"829  \"\"LLM:decode_all\"\"  \"\"LLM:decode_step\"\" \"\n",
	       "829  \"LLM:decode_all\"  \"LLM:decode_step\" \n");
}

static void test_ragged(void **state)
{
	struct csv_reader r;
	const char *s = "a,b,c,d\n1,2,\n1,2,3,4,5\n";
	struct strbuf err = STRBUF_INIT;

	csv_reader_init(&r, s, strlen(s), "t.csv");
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_int_equal(r.nr, 4);
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_int_equal(r.nr, 3);
	assert_int_equal(r.record_line, 2);
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_int_equal(r.nr, 5);
	assert_int_equal(csv_reader_next(&r, &err), 0);
	csv_reader_release(&r);
	strbuf_release(&err);
}

static void test_zero_copy(void **state)
{
	struct csv_reader r;
	const char *s = "abc,\"de\"\n";
	struct strbuf err = STRBUF_INIT;

	csv_reader_init(&r, s, strlen(s), "t.csv");
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_ptr_equal(r.fields[0].p, s);
	assert_ptr_equal(r.fields[1].p, s + 5);
	assert_int_equal(r.fields[1].len, 2);
	assert_true(r.fields[1].quoted);
	assert_false(r.fields[1].escaped);
	assert_true(csv_field_eq(&r.fields[0], "abc"));
	assert_false(csv_field_eq(&r.fields[0], "ab"));
	csv_reader_release(&r);
	strbuf_release(&err);
}

static void test_errors(void **state)
{
	expect_error("a,b\nc,\"unterminated\n", "t.csv:2:3: unterminated quoted field");
	expect_error("a,b\nx\"y,z\n", "t.csv:2:2: quote inside an unquoted field");
	expect_error("\"a\"b,c\n", "t.csv:1:4: unexpected character after closing quote");
	/* Line numbers count newlines inside quoted fields. */
	expect_error("\"x\ny\",1\nq\"\n", "t.csv:3:2: quote inside an unquoted field");
}

/* nsys stats' dialect: quotes inside a quoted field stay undoubled; only a
 * quote before a comma or line end closes it. "" still reads as one quote. */
static void test_lenient_quotes(void **state)
{
	const char *s = "\"f<\"x\">(int, int)\",a\"b,\"c\"\"d\"\n\"cut";
	struct csv_reader r;
	struct strbuf err = STRBUF_INIT, f = STRBUF_INIT;

	csv_reader_init(&r, s, strlen(s), "t.csv");
	r.lenient_quotes = 1;
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_int_equal(r.nr, 3);
	csv_field_unescape(&r.fields[0], &f);
	assert_string_equal(f.buf, "f<\"x\">(int, int)");
	strbuf_reset(&f);
	csv_field_unescape(&r.fields[1], &f);
	assert_string_equal(f.buf, "a\"b");
	strbuf_reset(&f);
	csv_field_unescape(&r.fields[2], &f);
	assert_string_equal(f.buf, "c\"d");
	assert_false(r.cut);
	assert_int_equal(csv_reader_next(&r, &err), -1);
	assert_true(r.cut);
	assert_string_equal(err.buf, "t.csv:2:1: unterminated quoted field");
	csv_reader_release(&r);
	/* the RFC dialect refuses the same record */
	expect_error("\"f<\"x\">(int)\",1\n",
		     "t.csv:1:5: unexpected character after closing quote");
	strbuf_release(&err);
	strbuf_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),  cmocka_unit_test(test_quoted),
	    cmocka_unit_test(test_ragged), cmocka_unit_test(test_zero_copy),
	    cmocka_unit_test(test_errors), cmocka_unit_test(test_lenient_quotes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
