/* test-bundle-layout.c: the table of a bundle's files (bundle/layout.h):
 * one row per artifact in enum order, relative paths only, no name twice
 * in one place, every row documented; the varying parts filled in order;
 * the mangled-names file found beside a raw page by the one rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bundle/layout.h"
#include "core/strbuf.h"

static void test_rows(void **state)
{
	size_t n;
	const struct bundle_art_row *rows = bundle_layout(&n);

	(void)state;
	assert_int_equal(n, BA_NR);
	for (size_t i = 0; i < n; i++) {
		const struct bundle_art_row *r = &rows[i];

		assert_int_equal(r->id, i);
		assert_ptr_equal(bundle_art_row(r->id), r);
		assert_true(r->place < BUNDLE_PLACE_NR);
		/* relative, no "..", no trailing '/', nothing empty */
		assert_true(r->path[0] && r->path[0] != '/');
		assert_null(strstr(r->path, ".."));
		assert_true(r->path[strlen(r->path) - 1] != '/');
		assert_true(r->writer[0] && r->readers[0] && r->doc[0]);
		/* the Markdown table's cells hold no '|' */
		assert_null(strchr(r->path, '|'));
		assert_null(strchr(r->writer, '|'));
		assert_null(strchr(r->readers, '|'));
		assert_null(strchr(r->doc, '|'));
		/* a folder llmprof writes into is a folder */
		if (r->flags & BUNDLE_ART_OURS)
			assert_true(r->flags & BUNDLE_ART_DIR);
		for (size_t j = 0; j < i; j++)
			assert_false(rows[j].place == r->place && !strcmp(rows[j].path, r->path));
	}
}

static void test_names(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(bundle_art(BA_STATUS), "status.json");
	assert_string_equal(bundle_art(BA_NCU_RAW), "ncu/raw.csv");
	assert_string_equal(bundle_art_base(BA_NCU_RAW), "raw.csv");
	assert_string_equal(bundle_art_base(BA_REPORT_MD), "report.md");
	bundle_art_fill(&sb, BA_LOG_OUT, "workload");
	assert_string_equal(sb.buf, "logs/workload.out");
	strbuf_reset(&sb);
	bundle_art_fill(&sb, BA_NCU_CAPTURE_NAMES, "3", "mangled");
	assert_string_equal(sb.buf, "ncu/k3.mangled.csv");
	strbuf_reset(&sb);
	bundle_art_fill(&sb, BA_STATUS); /* nothing varies */
	assert_string_equal(sb.buf, "status.json");
	strbuf_reset(&sb);
	bundle_art_stem(&sb, BA_NSYS_REP);
	assert_string_equal(sb.buf, "nsys/run");
	strbuf_reset(&sb);
	bundle_art_stem(&sb, BA_NCU_CAPTURE_RAW);
	assert_string_equal(sb.buf, "ncu/k<i>");
	strbuf_release(&sb);
}

static void test_mangled_beside(void **state)
{
	static const char *const ok[][2] = {
	    {"ncu/raw.csv", "ncu/mangled.csv"},
	    {"/a/b/ncu/k0.raw.csv", "/a/b/ncu/k0.mangled.csv"},
	    {"raw.csv", "mangled.csv"},
	    {"x_raw.csv", "x_mangled.csv"},
	};
	static const char *const no[] = {"raw.csv.gz", "ncu/raw.CSV", "", "csv", "aw.csv"};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		strbuf_reset(&sb);
		assert_int_equal(bundle_mangled_beside(ok[i][0], &sb), 0);
		assert_string_equal(sb.buf, ok[i][1]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		strbuf_reset(&sb);
		assert_int_equal(bundle_mangled_beside(no[i], &sb), -1);
		assert_int_equal(sb.len, 0);
	}
	strbuf_release(&sb);
}

/* One Markdown row per artifact, each under its place's heading. */
static void test_markdown(void **state)
{
	struct strbuf md = STRBUF_INIT;
	size_t rows = 0;

	(void)state;
	bundle_layout_markdown(&md);
	for (const char *p = md.buf; (p = strstr(p, "\n| `")); p++)
		rows++;
	assert_int_equal(rows, BA_NR);
	assert_non_null(strstr(md.buf, "| `ncu/raw.csv` | ncu | join, report |"));
	assert_non_null(strstr(md.buf, "| `charts/` |"));
	strbuf_release(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_mangled_beside),
	    cmocka_unit_test(test_markdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
