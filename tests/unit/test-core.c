/* test-core.c: strbuf, number parsing, edit distance (bounded too), atomic
 * files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>

#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/md.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/util.h"

static void test_strbuf_grows_and_detaches(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len;

	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_true(strncmp(sb.buf, "0,1,2,", 6) == 0);
	s = strbuf_detach(&sb, &len);
	assert_int_equal(len, strlen(s));
	assert_string_equal(sb.buf, "");
	free(s);
	strbuf_addstr(&sb, "  x y \n");
	strbuf_trim(&sb);
	assert_string_equal(sb.buf, "x y");
	strbuf_release(&sb);
}

static void test_json_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = "a\"b\\c\n\x01";

	utf8_json_escape(&sb, in, sizeof(in) - 1);
	assert_string_equal(sb.buf, "a\\\"b\\\\c\\n\\u0001");
	strbuf_release(&sb);
}

/* The streaming writers print what jansson's json_dumps prints for the same
 * value (metrics.json and kernels.json are written a result at a time). */
static void test_json_stream_like_jansson(void **state)
{
	static const double reals[] = {0.0,
				       -0.0,
				       1.0,
				       0.1,
				       -2.5,
				       1e20,
				       1e-5,
				       1e21,
				       123456789012.0,
				       1234567890123.0,
				       1.5e300,
				       5e-324,
				       -7e-100,
				       2230.0,
				       0.002614,
				       1.0 / 3.0,
				       4096.0,
				       1e15,
				       9.999999999999e11};
	static const char *strs[] = {"",
				     "plain",
				     "q\"uote",
				     "back\\slash",
				     "tab\tnl\ncr\r",
				     "\b\f\x01\x1f",
				     "caf\xc3\xa9",
				     "\xe2\x80\x93 dash",
				     "a/b"};
	(void)state;
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		json_t *j = json_real(reals[i]);
		char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));

		json_add_real(&sb, reals[i], 12);
		assert_string_equal(sb.buf, want);
		free(want);
		json_decref(j);
		strbuf_release(&sb);
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		json_t *j = json_string(strs[i]);
		char *want = json_dumps(j, JSON_ENCODE_ANY);

		json_add_string(&sb, strs[i], strlen(strs[i]));
		assert_string_equal(sb.buf, want);
		free(want);
		json_decref(j);
		strbuf_release(&sb);
	}
	{
		struct strbuf sb = STRBUF_INIT;

		/* what jansson refuses: invalid UTF-8 and NUL become U+FFFD */
		json_add_string(&sb, "a\xff\0b", 4);
		assert_string_equal(sb.buf, "\"a\xef\xbf\xbd\xef\xbf\xbd"
					    "b\"");
		strbuf_reset(&sb);
		json_add_real(&sb, NAN, 12);
		assert_string_equal(sb.buf, "null");
		strbuf_release(&sb);
	}
}

/* Invalid UTF-8 becomes U+FFFD in JSON, as in every other output. */
static void test_json_escape_invalid_utf8(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = "k\xff\xc3\xa9\xe2\x82";

	(void)state;
	utf8_json_escape(&sb, in, sizeof(in) - 1);
	assert_string_equal(sb.buf, "k\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
	strbuf_release(&sb);
}

/* Markdown follows the same rule (it kept the bytes before). */
static void test_md_invalid_utf8(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	md_text(&sb, "a\xff_b");
	assert_string_equal(sb.buf, "a\xef\xbf\xbd\\_b");
	strbuf_reset(&sb);
	md_code(&sb, "k\xfe|");
	assert_string_equal(sb.buf, "`k\xef\xbf\xbd\\|`");
	strbuf_reset(&sb);
	md_escape_inline(&sb, "\xc3\xa9\xc3");
	assert_string_equal(sb.buf, "\xc3\xa9\xef\xbf\xbd");
	strbuf_release(&sb);
}

/* Diagnostics: control bytes, C1 controls and invalid UTF-8 escaped;
 * printable UTF-8 kept; keep lets line ends through. */
static void test_utf8_printable(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = "v1 \x1b]0;t\x07\x1b[31mR\xff\xc2\x9b\xc3\xa9\n\x7f";

	(void)state;
	utf8_printable(&sb, in, sizeof(in) - 1, NULL);
	assert_string_equal(sb.buf, "v1 \\x1b]0;t\\x07\\x1b[31mR\\xff\\xc2\\x9b\xc3\xa9\\x0a\\x7f");
	strbuf_reset(&sb);
	utf8_printable(&sb, "a\nb\tc\rd", 7, "\n\t");
	assert_string_equal(sb.buf, "a\nb\tc\\x0dd");
	strbuf_release(&sb);
}

static void test_parse_numbers(void **state)
{
	struct strbuf err = STRBUF_INIT;
	int64_t v;
	uint64_t u;
	double d;

	assert_int_equal(parse_i64("42", 0, 100, &v, &err), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_i64("-1", 0, 100, &v, &err), -1);
	assert_non_null(strstr(err.buf, "out of range"));
	strbuf_reset(&err);
	assert_int_equal(parse_i64("4x", 0, 100, &v, &err), -1);
	assert_non_null(strstr(err.buf, "not an integer"));
	assert_int_equal(parse_i64("", 0, 100, &v, NULL), -1);
	assert_int_equal(parse_u64("-3", 0, 10, &u, NULL), -1);
	assert_int_equal(parse_double("1.5e3", &d, NULL), 0);
	assert_true(d == 1500.0);
	assert_int_equal(parse_double("nan", &d, NULL), -1);
	strbuf_release(&err);
}

static void test_edit_distance(void **state)
{
	assert_int_equal(edit_distance("replay_mod", "replay_mode"), 1);
	assert_int_equal(edit_distance("profiel", "profile"), 1);
	assert_int_equal(edit_distance("", "abc"), 3);
	assert_int_equal(edit_distance("same", "same"), 0);
}

/* The optimal-string-alignment distance over the full matrix, as written in
 * the textbook: the reference the banded implementation is checked against. */
static size_t osa_reference(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), res;
	size_t *d = calloc((la + 1) * (lb + 1), sizeof(*d));

	assert_non_null(d);
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);

			if (D(i - 1, j) + 1 < best)
				best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	res = D(la, lb);
#undef D
	free(d);
	return res;
}

/* Both distances agree with the reference, the bounded one within its bound
 * and above it beyond, on short strings over a small alphabet (so
 * transpositions and near matches are common) and on strings past the
 * 127-byte stack rows. */
static void test_edit_distance_max(void **state)
{
	unsigned seed = 12345;
	char a[300], b[300];

	for (int round = 0; round < 3000; round++) {
		size_t la, lb, d;

		seed = seed * 1103515245 + 12345;
		la = round % 500 == 0 ? 130 + (seed >> 16) % 150 : (seed >> 16) % 12;
		seed = seed * 1103515245 + 12345;
		lb = round % 500 == 0 ? 130 + (seed >> 16) % 150 : (seed >> 16) % 12;
		for (size_t i = 0; i < la; i++) {
			seed = seed * 1103515245 + 12345;
			a[i] = "abc."[(seed >> 16) % 4];
		}
		for (size_t i = 0; i < lb; i++) {
			seed = seed * 1103515245 + 12345;
			b[i] = "abc."[(seed >> 16) % 4];
		}
		a[la] = b[lb] = '\0';
		d = osa_reference(a, b);
		assert_int_equal(edit_distance(a, b), d);
		for (size_t max = 0; max <= d + 2; max++) {
			size_t got = edit_distance_max(a, b, max);

			if (d <= max)
				assert_int_equal(got, d);
			else
				assert_true(got > max);
		}
		assert_int_equal(edit_distance_max(a, b, (size_t)-1), d);
	}
	assert_int_equal(edit_distance_max("replay_mod", "replay_mode", 1), 1);
	assert_int_equal(edit_distance_max("ab", "ba", 1), 1);
	assert_true(edit_distance_max("a.very.long.key.typed", "run", 3) > 3);
}

static void test_atomic_write(void **state)
{
	char dir[] = "/tmp/llmprof-test-XXXXXX";
	struct strbuf path = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;

	assert_non_null(mkdtemp(dir));
	path_join(&path, dir, "a/b/c");
	assert_int_equal(mkdir_p(path.buf, &err), 0);
	strbuf_addstr(&path, "/f.txt");
	assert_int_equal(write_file_atomic(path.buf, "hello", 5, &err), 0);
	assert_int_equal(strbuf_read_file(&got, path.buf), 0);
	assert_string_equal(got.buf, "hello");
	/* An aborted rewrite leaves the old content. */
	assert_int_equal(atomic_file_open(&af, path.buf, &err), 0);
	fputs("partial", af.fp);
	atomic_file_abort(&af);
	strbuf_reset(&got);
	assert_int_equal(strbuf_read_file(&got, path.buf), 0);
	assert_string_equal(got.buf, "hello");
	/* Writing into a missing directory fails with a message. */
	assert_int_equal(write_file_atomic("/nonexistent/dir/x", "", 0, &err), -1);
	assert_non_null(strstr(err.buf, "cannot write '/nonexistent/dir/x'"));
	strbuf_release(&path);
	strbuf_release(&got);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strbuf_grows_and_detaches),
	    cmocka_unit_test(test_json_escape),
	    cmocka_unit_test(test_json_stream_like_jansson),
	    cmocka_unit_test(test_json_escape_invalid_utf8),
	    cmocka_unit_test(test_md_invalid_utf8),
	    cmocka_unit_test(test_utf8_printable),
	    cmocka_unit_test(test_parse_numbers),
	    cmocka_unit_test(test_edit_distance),
	    cmocka_unit_test(test_edit_distance_max),
	    cmocka_unit_test(test_atomic_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
