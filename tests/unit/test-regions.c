/* test-regions.c: NVTX regions from the real H100 range-replay and
 * kernel-replay exports: nesting (parent, depth), inclusive totals that
 * reconcile within 1 %, scopes, "no matching regions", and the writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/regions.h"
#include "report/ncu_regions.h"
#include "core/fsutil.h"
#include "core/strbuf.h"

static void load(const char *name, struct strbuf *buf, struct ncu_raw *raw)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addf(&path, "%s/tests/data/ncu/%s", LLMPROF_SOURCE_DIR, name);
	strbuf_reset(buf);
	assert_int_equal(strbuf_read_file(buf, path.buf), 0);
	if (ncu_raw_parse(buf->buf, buf->len, name, raw, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

static const struct region *get(const struct regions *rg, const char *path)
{
	for (size_t i = 0; i < rg->nr; i++)
		if (!strcmp(rg->v[i].path, path))
			return &rg->v[i];
	fail_msg("no region '%s'", path);
	return NULL;
}

static void test_range_replay(void **state)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT, md = STRBUF_INIT;
	struct ncu_raw raw;
	struct regions rg;
	const struct region *r;

	load("nvtx-llm-domain-range-replay-h100-ncu2025.3.raw.csv", &buf, &raw);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	assert_int_equal(rg.mode, REGIONS_RANGE);
	assert_int_equal(rg.nr, 2);
	r = get(&rg, "LLM@prefill");
	assert_string_equal(r->name, "prefill");
	assert_string_equal(r->domain, "LLM");
	assert_null(r->parent);
	assert_int_equal(r->depth, 0);
	assert_int_equal(r->instances, 1);
	assert_true(r->inclusive_ns == 321984);
	assert_int_equal(r->nprocs, 1);
	assert_int_equal(r->procs[0].key, 990);
	assert_int_equal(r->devs[0].key, 0);
	r = get(&rg, "LLM@decode_all");
	assert_true(r->inclusive_ns == 314272);
	assert_true(r->self_ns == r->inclusive_ns);
	assert_true(rg.total_ns == 321984 + 314272);
	assert_true(rg.all_reconciled);
	regions_render_md(&rg, &raw, &md);
	assert_non_null(strstr(md.buf, "# Nsight Compute \xE2\x80\x93 NVTX Regions"));
	assert_non_null(strstr(md.buf, "| LLM@prefill | 0 |  | 1 | n/a | 0.321984 |"));
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&err);
	strbuf_release(&md);
}

/* Kernel replay: regions roll kernels up; the top level reconciles with the
 * sum of every kernel's duration. */
static void test_kernel_replay_rollup(void **state)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	struct regions rg;
	const struct region *a, *a1, *b;
	double sum = 0, v;

	load("nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv", &buf, &raw);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	assert_int_equal(rg.mode, REGIONS_KERNEL);
	assert_int_equal(rg.nr, 3);
	a = get(&rg, "A");
	a1 = get(&rg, "A/A::A1");
	b = get(&rg, "B");
	assert_null(a->domain);
	assert_string_equal(a1->name, "A::A1");
	assert_string_equal(a1->parent, "A");
	assert_int_equal(a1->depth, 1);
	assert_int_equal(a1->parent_idx, (long)(a - rg.v));
	assert_int_equal(a->kernels, 2);
	assert_int_equal(a->instances, 1); /* its own kernel: add */
	assert_true(a->inclusive_ns == 5984 + 5152);
	assert_true(a->children_ns == 5152);
	assert_true(a->self_ns == 5984);
	assert_true(b->inclusive_ns == 5216);
	for (size_t r = 0; r < raw.nrows; r++) {
		assert_int_equal(ncu_raw_metric(&raw, r, "gpu__time_duration.sum", &v), NCU_NUM_OK);
		sum += v;
	}
	assert_true(fabs(rg.total_ns - sum) <= 0.01 * sum);
	assert_true(rg.all_reconciled);
	assert_int_equal(rg.unattributed, 0);
	regions_release(&rg);
	ncu_raw_release(&raw);

	load("nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv", &buf, &raw);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	assert_int_equal(rg.nr, 2);
	a = get(&rg, "LLM@decode_all");
	a1 = get(&rg, "LLM@decode_all/LLM@decode_step");
	assert_int_equal(a->kernels, 8);
	assert_int_equal(a1->kernels, 8);
	assert_true(a->inclusive_ns == 45184);
	assert_true(a->self_ns == 0);
	assert_true(rg.all_reconciled);
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&err);
}

static void build_str(const char *csv, struct ncu_raw *raw, struct regions *rg)
{
	struct strbuf err = STRBUF_INIT;

	if (ncu_raw_parse(csv, strlen(csv), "s.csv", raw, &err) || regions_build(raw, rg, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&err);
}

#define HDR                                                                                        \
	"\"ID\",\"Process ID\",\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:"          \
	"Color:Msg_Type:Msg\",\"Kernel Name\",\"Device\",\"gpu__time_duration.sum\"\n"             \
	"\"\",\"\",\"\",\"\",\"\",\"nsecond\"\n"
#define ROW(id, pid, stack, dev, ns)                                                               \
	"\"" #id "\",\"" #pid "\",\"1  " stack "\",\"range\",\"" #dev "\",\"" #ns "\"\n"
#define E(x) "\"\"D:" x ":none:none:none:none:none:none\"\" "

/* Range replay with nested includes: children measured separately. */
static void test_reconciliation(void **state)
{
	struct ncu_raw raw;
	struct regions rg;
	const char *ok = HDR ROW(0, 7, E("outer"), 0, 1000) ROW(1, 7, E("outer") E("in1"), 0, 600)
	    ROW(2, 7, E("outer") E("in2"), 0, 200) ROW(3, 7, E("outer") E("in2"), 1, 205)
		ROW(4, 8, E("outer"), 1, 1000);
	const char *bad =
	    HDR ROW(0, 7, E("outer"), 0, 1000) ROW(1, 7, E("outer") E("in1"), 0, 1011);
	const char *tight =
	    HDR ROW(0, 7, E("outer"), 0, 1000) ROW(1, 7, E("outer") E("in1"), 0, 1009);
	const struct region *o, *in2;

	build_str(ok, &raw, &rg);
	assert_int_equal(rg.nr, 3);
	o = get(&rg, "D@outer");
	in2 = get(&rg, "D@outer/D@in2");
	assert_int_equal(o->instances, 2);
	assert_true(o->inclusive_ns == 2000);
	assert_true(o->children_ns == 1005);
	assert_true(o->self_ns == 995);
	assert_true(o->reconciled);
	/* scopes: per process and per device */
	assert_int_equal(o->nprocs, 2);
	assert_true(o->procs[0].key == 7 && o->procs[0].total_ns == 1000);
	assert_true(o->procs[1].key == 8 && o->procs[1].total_ns == 1000);
	assert_int_equal(in2->ndevs, 2);
	assert_true(in2->devs[1].key == 1 && in2->devs[1].total_ns == 205);
	assert_string_equal(in2->dir, "D_outer_D_in2");
	assert_true(rg.all_reconciled);
	regions_release(&rg);
	ncu_raw_release(&raw);

	build_str(bad, &raw, &rg);
	assert_false(get(&rg, "D@outer")->reconciled);
	assert_false(rg.all_reconciled);
	regions_release(&rg);
	ncu_raw_release(&raw);

	build_str(tight, &raw, &rg); /* 0.9 % over: within tolerance */
	assert_true(get(&rg, "D@outer")->reconciled);
	regions_release(&rg);
	ncu_raw_release(&raw);
}

static void test_no_regions_and_writer(void **state)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT, p = STRBUF_INIT;
	struct ncu_raw raw;
	struct regions rg;
	char tmpl[] = "/tmp/llmprof-regions-XXXXXX";
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	load("mathkernels-gtx1660ti-ncu2022.4.raw-base.csv", &buf, &raw);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	assert_int_equal(rg.nr, 0);
	assert_int_equal(rg.unattributed, 4);
	regions_render_md(&rg, &raw, &out);
	assert_non_null(strstr(out.buf, "No matching regions: the export has no NVTX columns"));
	strbuf_reset(&out);
	regions_render_json(&rg, &raw, &out);
	assert_non_null(strstr(out.buf, "\"message\": \"No matching regions"));
	regions_release(&rg);
	ncu_raw_release(&raw);

	load("nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv", &buf, &raw);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	assert_int_equal(regions_write(&rg, &raw, NULL, dir, &err), 0);
	strbuf_addf(&p, "%s/report.md", dir);
	assert_true(path_exists(p.buf));
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/A_A__A1/metrics.json", dir);
	strbuf_reset(&out);
	assert_int_equal(strbuf_read_file(&out, p.buf), 0);
	assert_non_null(strstr(out.buf, "\"gpu__time_duration.sum\": 5152"));
	assert_non_null(strstr(out.buf, "\"kernel\": \"scale(float *, float, int)\""));
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/report.json", dir);
	strbuf_reset(&out);
	assert_int_equal(strbuf_read_file(&out, p.buf), 0);
	assert_non_null(strstr(out.buf, "\"parent\": \"A\""));
	assert_non_null(strstr(out.buf, "\"json_path\": \"A_A__A1/metrics.json\""));
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_reset(&p);
	strbuf_addf(&p, "rm -rf '%s'", dir);
	assert_int_equal(system(p.buf), 0);
	strbuf_release(&buf);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&p);
}

/* A range name longer than a file name may be (PyTorch's emit_nvtx with
 * record_shapes=True writes ~270 bytes) gives a bounded directory name:
 * the first 91 bytes, '-' and 8 hex digits of the path's hash. Writing
 * never fails with "File name too long". */
static void test_long_range_name(void **state)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT, p = STRBUF_INIT, name = STRBUF_INIT;
	struct strbuf edited = STRBUF_INIT;
	struct ncu_raw raw;
	struct regions rg;
	char tmpl[] = "/tmp/llmprof-regions-XXXXXX";
	char *dir = mkdtemp(tmpl), *at;
	const struct region *r = NULL;
	(void)state;

	assert_non_null(dir);
	load("nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv", &buf, &raw);
	ncu_raw_release(&raw);
	for (int i = 0; i < 32; i++)
		strbuf_addstr(&name, "aten_mm_");
	strbuf_addstr(&name, "sizes_4096_4096");
	assert_true(name.len > 255);
	at = strstr(buf.buf, ":A1:");
	assert_non_null(at);
	/* the parsed rows borrow edited: released at the end */
	strbuf_add(&edited, buf.buf, (size_t)(at - buf.buf) + 1);
	strbuf_add(&edited, name.buf, name.len);
	strbuf_addstr(&edited, at + 3);
	assert_int_equal(ncu_raw_parse(edited.buf, edited.len, "long.csv", &raw, &err), 0);
	assert_int_equal(regions_build(&raw, &rg, &err), 0);
	for (size_t i = 0; i < rg.nr; i++)
		if (strstr(rg.v[i].name, name.buf)) /* "A::" then the name */
			r = &rg.v[i];
	assert_non_null(r);
	assert_int_equal(strlen(r->dir), 100);
	assert_int_equal(strspn(r->dir + 92, "0123456789abcdef"), 8);
	assert_int_equal(r->dir[91], '-');
	assert_int_equal(regions_write(&rg, &raw, NULL, dir, &err), 0);
	strbuf_addf(&p, "%s/%s/metrics.json", dir, r->dir);
	assert_true(path_exists(p.buf));
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_reset(&p);
	strbuf_addf(&p, "rm -rf '%s'", dir);
	assert_int_equal(system(p.buf), 0);
	strbuf_release(&buf);
	strbuf_release(&err);
	strbuf_release(&p);
	strbuf_release(&name);
	strbuf_release(&edited);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_range_replay),    cmocka_unit_test(test_kernel_replay_rollup),
	    cmocka_unit_test(test_reconciliation),  cmocka_unit_test(test_no_regions_and_writer),
	    cmocka_unit_test(test_long_range_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
