/* test-stats-format.c: the pieces of `llmprof stats` that the golden files
 * cannot reach everywhere: the column writer's number grouping for any
 * locale's separator and grouping (the golden en_US test needs that locale),
 * its first-100-rows widths and clipping, and the nsys-version spelling of
 * NVTX range names in nvtx_sum, nvtx_gpu_proj_sum and nvtx_kern_sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/nsysstats.h"
#include "core/xalloc.h"
#include "model/table.h"
#include "trace/trace.h"

static void column(const struct table *t, const char *sep, const char *grouping, struct strbuf *out)
{
	struct table_column_opts o = {sep, grouping};

	strbuf_reset(out);
	table_write_column(t, &o, out);
}

static void test_grouping(void **state)
{
	static const char *const cols[] = {"n", "Name"};
	struct table t;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	table_init_names(&t, "rl", cols);
	table_add_str(&t, "1234567");
	table_add_str(&t, "1234567");
	table_add_str(&t, "-91322827.0");
	table_add_str(&t, "a");
	table_add_str(&t, "1e+16");
	table_add_null(&t);
	table_add_null(&t);
	table_add_str(&t, "b");
	table_add_str(&t, "999");
	table_add_str(&t, "c");
	column(&t, ",", "\3", &out);
	assert_string_equal(out.buf, "       n         Name  \n"
				     " -------------  -------\n"
				     "     1,234,567  1234567\n"
				     " -91,322,827.0  a      \n"
				     "         1e+16         \n"
				     "                b      \n"
				     "           999  c      \n");
	/* Indian grouping: 3, then 2 repeated; C locale: none */
	column(&t, ",", "\3\2", &out);
	assert_non_null(strstr(out.buf, "\n      12,34,567  1234567\n"));
	column(&t, "", "", &out);
	assert_non_null(strstr(out.buf, "\n     1234567  1234567\n"));
	/* grouping that stops (CHAR_MAX) after one group */
	column(&t, ".", "\3\177", &out);
	assert_non_null(strstr(out.buf, "\n     1234.567  1234567\n"));
	table_release(&t);
	strbuf_release(&out);
}

/* Widths come from the header and the first 100 rows; a wider cell later is
 * clipped with an ellipsis (numbers too, on the right), and no column is
 * wider than 100 characters. */
static void test_autolines_and_clip(void **state)
{
	static const char *const cols[] = {"Name", "n"};
	struct table t;
	struct strbuf out = STRBUF_INIT;
	char longname[150];
	const char *last;

	(void)state;
	table_init_names(&t, "lr", cols);
	for (int i = 0; i < 100; i++) {
		table_add_str(&t, "abcd");
		table_add_str(&t, "12");
	}
	table_add_str(&t, "abcdefgh");
	table_add_str(&t, "123456");
	column(&t, NULL, NULL, &out);
	last = strrchr(out.buf, '\n');
	while (last > out.buf && last[-1] != '\n')
		last--;
	assert_string_equal(last, " abc\xe2\x80\xa6  1\xe2\x80\xa6\n");
	table_release(&t);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	table_init_names(&t, "lr", cols);
	table_add_str(&t, longname);
	table_add_str(&t, "1");
	column(&t, NULL, NULL, &out);
	/* the data row: " " + 99 x + ellipsis (3 bytes) + "  " + "1" + "\n" */
	last = strchr(strchr(out.buf, '\n') + 1, '\n') + 1;
	assert_int_equal(strlen(last), 1 + 99 + 3 + 2 + 1 + 1);
	assert_non_null(strstr(last, "x\xe2\x80\xa6  1\n"));
	table_release(&t);
	strbuf_release(&out);
}

static void test_spelling_versions(void **state)
{
	(void)state;
	assert_int_equal(nsysstats_spelling("2023.1.2.43"), NSYS_SPELL_2023);
	assert_int_equal(nsysstats_spelling("2023.4.4.54-234433681190v0"), NSYS_SPELL_2023);
	assert_int_equal(nsysstats_spelling("2024.1"), NSYS_SPELL_2024);
	assert_int_equal(nsysstats_spelling("2025.3.2.0"), NSYS_SPELL_2024);
	assert_int_equal(nsysstats_spelling("2026.1.3.425"), NSYS_SPELL_2024);
	assert_int_equal(nsysstats_spelling("latest"), -1);
	assert_int_equal(nsysstats_spelling(""), -1);
}

static int32_t S(struct trace *t, const char *s)
{
	return strtab_intern(&t->strs, s, strlen(s));
}

/* domain: the domain-create event's text; reg: its registered name (NULL:
 * none, the text stands in) */
static void add_range_reg(struct trace *t, const char *domain, const char *reg, const char *text,
			  int64_t s, int64_t e)
{
	struct trace_range *r;
	char name[128];

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges++];
	memset(r, 0, sizeof(*r));
	r->category = -1;
	r->start = s;
	r->end = e;
	r->gtid = (1LL << 24) | 1;
	r->rowid = (int64_t)t->nranges;
	r->text = text ? S(t, text) : -1;
	r->domain = domain ? S(t, domain) : -1;
	r->domain_reg = reg ? S(t, reg) : r->domain;
	snprintf(name, sizeof(name), "%s%s%s", domain ? domain : "", domain ? ":" : "",
		 text ? text : "");
	r->name = text ? S(t, name) : -1;
	if (e > t->nvtx_max_all)
		t->nvtx_max_all = t->nvtx_max_range = e;
}

static void add_range(struct trace *t, const char *domain, const char *text, int64_t s, int64_t e)
{
	add_range_reg(t, domain, NULL, text, s, e);
}

static void test_spelling_nvtx_sum(void **state)
{
	struct nsysstats_opts o23 = {NSYS_SPELL_2023}, o24 = {NSYS_SPELL_2024};
	struct trace t;
	struct table tbl;
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.path = xstrdup("mem.sqlite");
	t.loaded = TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX;
	t.has_strings = t.has_nvtx = 1;
	add_range(&t, "LLM", "decode", 0, 40);
	add_range(&t, NULL, "decode", 0, 30);
	add_range(&t, NULL, NULL, 0, 20); /* no message at all */
	add_range(&t, "LLM", NULL, 0, 10);
	/* a domain created with a registered string: 2023.4 reads only the
	 * event's text (none here: the range reads bare), 2024 on the string */
	add_range_reg(&t, NULL, "Reg", "step", 0, 5);
	assert_int_equal(nsysstats_build(&t, "nvtx_sum", &o23, &tbl, &msg, &err), 0);
	table_write_csv(&tbl, &out);
	assert_non_null(strstr(out.buf, ",PushPop,LLM:decode\n"));
	assert_non_null(strstr(out.buf, ",PushPop,decode\n"));
	assert_non_null(strstr(out.buf, ",PushPop,step\n"));
	/* 2023.4: a NULL name; both nameless ranges group together */
	assert_non_null(strstr(out.buf, "\n28.6,30,2,15.0,15.0,10,20,7.1,PushPop,\n"));
	table_release(&tbl);
	strbuf_reset(&out);
	assert_int_equal(nsysstats_build(&t, "nvtx_sum", &o24, &tbl, &msg, &err), 0);
	table_write_csv(&tbl, &out);
	assert_non_null(strstr(out.buf, ",PushPop,LLM:decode\n"));
	assert_non_null(strstr(out.buf, ",PushPop,:decode\n"));
	assert_non_null(strstr(out.buf, ",PushPop,:\n"));
	assert_non_null(strstr(out.buf, ",PushPop,LLM:\n"));
	assert_non_null(strstr(out.buf, ",PushPop,Reg:step\n"));
	assert_null(strstr(out.buf, ",decode\n"));
	table_release(&tbl);
	strbuf_release(&msg);
	strbuf_release(&err);
	strbuf_release(&out);
	trace_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grouping),
	    cmocka_unit_test(test_autolines_and_clip),
	    cmocka_unit_test(test_spelling_versions),
	    cmocka_unit_test(test_spelling_nvtx_sum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
