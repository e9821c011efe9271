/* test-table.c: the one table renderer (model/table.h), byte for byte:
 * Markdown and HTML of the same table (alignment, code cells, escaping of
 * what a kernel name or a path may hold, NULL and empty cells, a table with
 * no rows), headers built at run time, and the csv writer on the same
 * cells. The nsys column writer has its own tests (test-stats-format.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "model/table.h"

/* Kernel | Stage | Total (ms): a code, a text and a number column. */
static void fill(struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "clr", "Kernel", "Stage", "Total (ms)", NULL);
	table_add_str(t, "void k<a|b>(float*)");
	table_add_str(t, "decode_step [x] *y* <z> _lead up_gate");
	table_addf(t, "%.3f", 1.5);
	table_add_str(t, ""); /* an empty code cell is no code span */
	table_add_null(t);
	strbuf_addstr(&sb, "n/a");
	table_add_sb(t, &sb);
	assert_int_equal(sb.len, 0); /* reset for the next cell */
	strbuf_release(&sb);
}

static void test_markdown(void **state)
{
	struct table t;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	fill(&t);
	assert_int_equal(t.nrows, 2);
	table_write_md(&t, &out);
	assert_string_equal(out.buf,
			    "| Kernel | Stage | Total (ms) |\n"
			    "| --- | --- | ---: |\n"
			    "| `void k<a\\|b>(float*)` | decode_step \\[x\\] \\*y\\* &lt;z&gt; "
			    "\\_lead up_gate | 1.500 |\n"
			    "|  |  | n/a |\n");
	table_release(&t);
	strbuf_release(&out);
}

static void test_html(void **state)
{
	struct table t;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	fill(&t);
	table_write_html(&t, &out, NULL);
	assert_string_equal(
	    out.buf, "<div class=\"tablewrap\"><table class=\"data\">\n"
		     "<thead><tr><th>Kernel</th><th>Stage</th><th class=\"num\">Total (ms)</th>"
		     "</tr></thead>\n<tbody>\n"
		     "<tr><td><code>void k&lt;a|b&gt;(float*)</code></td>"
		     "<td>decode_step [x] *y* &lt;z&gt; _lead up_gate</td>"
		     "<td class=\"num\">1.500</td></tr>\n"
		     "<tr><td></td><td></td><td class=\"num\">n/a</td></tr>\n"
		     "</tbody>\n</table></div>\n");
	table_release(&t);
	strbuf_release(&out);
}

/* A table with a header only: no body in either format. */
static void test_empty(void **state)
{
	static const char *const names[] = {"a", "b"};
	struct table t;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	table_init_names(&t, "lr", names);
	assert_int_equal(t.ncols, 2);
	assert_int_equal(t.nrows, 0);
	table_write_md(&t, &out);
	assert_string_equal(out.buf, "| a | b |\n| --- | ---: |\n");
	strbuf_reset(&out);
	table_write_html(&t, &out, "data sortable");
	assert_string_equal(out.buf, "<div class=\"tablewrap\"><table class=\"data sortable\">\n"
				     "<thead><tr><th>a</th><th class=\"num\">b</th></tr></thead>\n"
				     "</table></div>\n");
	table_release(&t);
	strbuf_release(&out);
}

/* The same cells through nsys's csv: code is text there, NULL is empty. */
static void test_csv(void **state)
{
	struct table t;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	fill(&t);
	assert_string_equal(table_cell(&t, 0, 2), "1.500");
	assert_null(table_cell(&t, 1, 1));
	table_write_csv(&t, &out);
	assert_string_equal(out.buf,
			    "Kernel,Stage,Total (ms)\n"
			    "void k<a|b>(float*),decode_step [x] *y* <z> _lead up_gate,1.500\n"
			    ",,n/a\n");
	table_release(&t);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_markdown),
	    cmocka_unit_test(test_html),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
