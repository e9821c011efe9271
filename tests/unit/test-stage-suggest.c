/* test-stage-suggest.c: the top-level ranges and the overrides the
 * no-stage-ranges finding offers (analysis/stage_suggest.h), on traces
 * built by hand: names, nesting, an engine's name, threads, NCCL's ranges,
 * numbered names and names no override can carry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/stage_suggest.h"
#include "core/xalloc.h"
#include "trace/trace.h"

static void trace_new(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup("mem.sqlite");
	t->loaded = TRACE_NVTX;
	t->has_strings = t->has_nvtx = 1;
}

static void add(struct trace *t, const char *text, const char *domain, int64_t s, int64_t e,
		int64_t gtid)
{
	struct trace_range *r;
	char name[256];

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges++];
	memset(r, 0, sizeof(*r));
	r->start = s;
	r->end = e;
	r->gtid = gtid;
	r->text = strtab_intern(&t->strs, text, strlen(text));
	r->domain = domain ? strtab_intern(&t->strs, domain, strlen(domain)) : -1;
	snprintf(name, sizeof(name), "%s%s%s", domain ? domain : "", domain ? ":" : "", text);
	r->name = strtab_intern(&t->strs, name, strlen(name));
}

struct out {
	struct strbuf list, ov, note;
};

static void run(struct trace *t, struct out *o)
{
	strbuf_init(&o->list, 0);
	strbuf_init(&o->ov, 0);
	strbuf_init(&o->note, 0);
	stage_suggest(t, &o->list, &o->ov, &o->note);
}

static void done(struct trace *t, struct out *o)
{
	strbuf_release(&o->list);
	strbuf_release(&o->ov);
	strbuf_release(&o->note);
	trace_close(t);
}

/* A generation loop: one range holding many steps, on another thread too;
 * NCCL's calls never count. Nesting names decode and its steps. */
static void test_nesting(void **state)
{
	struct trace t;
	struct out o;

	(void)state;
	trace_new(&t);
	add(&t, "generate", NULL, 0, 10000, 1);
	for (int i = 0; i < 4; i++)
		add(&t, "forward", NULL, 100 + i * 2000, 1900 + i * 2000, 1);
	add(&t, "ncclAllReduce", "NCCL", 0, 20000, 1);
	add(&t, "loader", NULL, 0, 500, 2);
	run(&t, &o);
	assert_string_equal(o.ov.buf, "'stages.decode=[generate]' 'stages.decode_step=[forward]'");
	assert_string_equal(o.list.buf, "`generate` ×1 (0.010 ms; inside: `forward` ×4), "
					"`loader` ×1 (0.001 ms)");
	assert_string_equal(o.note.buf, "");
	done(&t, &o);
}

/* Names before nesting: prefill and decode by their words, the step the
 * most frequent step-like name; a domain is written range@domain. */
static void test_names(void **state)
{
	struct trace t;
	struct out o;

	(void)state;
	trace_new(&t);
	add(&t, "run_prefill", "eng", 0, 1000, 1);
	add(&t, "Decode loop", "eng", 1000, 9000, 1);
	for (int i = 0; i < 3; i++)
		add(&t, "token step", "eng", 1100 + i * 2000, 2000 + i * 2000, 1);
	run(&t, &o);
	assert_string_equal(o.ov.buf, "'stages.prefill=[run_prefill@eng]' "
				      "'stages.decode=[Decode loop@eng]' "
				      "'stages.decode_step=[token step@eng]'");
	done(&t, &o);
}

/* TensorRT-LLM's range: said with its caveat. */
static void test_engine(void **state)
{
	struct trace t;
	struct out o;

	(void)state;
	trace_new(&t);
	for (int i = 0; i < 3; i++)
		add(&t, "_forward_step", NULL, i * 100, i * 100 + 50, 1);
	run(&t, &o);
	assert_non_null(strstr(o.ov.buf, "'stages.decode_step=[_forward_step]' (range names of "
					 "TensorRT-LLM"));
	done(&t, &o);
}

/* Numbered top-level names: no override, a note; a name with a quote is
 * never offered; no ranges: nothing at all. */
static void test_numbered_and_unsafe(void **state)
{
	struct trace t;
	struct out o;

	(void)state;
	trace_new(&t);
	add(&t, "forward_0", NULL, 0, 100, 1);
	add(&t, "forward_1", NULL, 200, 300, 1);
	add(&t, "forward_2", NULL, 400, 500, 1);
	run(&t, &o);
	assert_non_null(strstr(o.note.buf, "3 top-level range names differ only in a trailing "
					   "number (such as `forward_"));
	done(&t, &o);

	trace_new(&t);
	add(&t, "it's decode", NULL, 0, 100, 1);
	run(&t, &o);
	assert_string_equal(o.ov.buf, "");
	assert_non_null(strstr(o.list.buf, "it's decode"));
	done(&t, &o);

	trace_new(&t);
	run(&t, &o);
	assert_string_equal(o.list.buf, "");
	assert_string_equal(o.ov.buf, "");
	done(&t, &o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nesting),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_engine),
	    cmocka_unit_test(test_numbered_and_unsafe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
