/* test-ncu-csv.c: ncu raw/details pages: numbers in any locale, units of any
 * scale, n/a and instance cells, NVTX cells, details page, and golden kernel
 * records for every raw fixture in tests/data/ncu (expected values in
 * tests/data/ncu/<fixture>.expected.tsv, extracted independently of this parser and
 * hand-checked against the CSVs). Also kernels.md rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/md.h"
#include "core/util.h"
#include "core/strbuf.h"
#include "analysis/ncu_export.h"
#include "report/report.h"
#include "trace/ncu_csv.h"
#include "trace/ncu_details.h"
#include "analysis/ncu_kernel.h"

static double num(const char *s, char dec)
{
	double v = -12345;
	enum ncu_num rc = ncu_parse_number(s, strlen(s), dec, &v);

	return rc == NCU_NUM_OK ? v : -(double)rc - 1000;
}

static void test_numbers(void **state)
{
	assert_true(num("4,096", '.') == 4096);
	assert_true(num("4.096", ',') == 4096);
	assert_true(num("4 096", '.') == 4096);
	assert_true(num("4'096", '.') == 4096);
	assert_true(num("4\xC2\xA0"
			"096",
			',') == 4096); /* U+00A0 */
	assert_true(num("4\xE2\x80\xAF"
			"096",
			',') == 4096); /* U+202F */
	assert_true(num("1,402,267,379,679.14", '.') == 1402267379679.14);
	assert_true(num("1.402.267.379.679,14", ',') == 1402267379679.14);
	assert_true(num("5.280000", '.') == 5.28);
	assert_true(num("5,280000", ',') == 5.28);
	assert_true(num("4.096", '.') == 4.096); /* the file's decimal mark decides */
	assert_true(num("-0.5", '.') == -0.5);
	assert_true(num("1.5e-3", '.') == 1.5e-3);
	assert_true(num(" 42 ", '.') == 42);
	/* Instance cells: the leading aggregate. */
	assert_true(num("158 (0: 158)", '.') == 158);
	assert_true(num("6652 (0; 0; 2042.62; 0)", '.') == 6652);
	assert_true(num("1,024 (0: 1,024)", '.') == 1024);
	/* Not numbers / unavailable. */
	assert_true(num("", '.') == -(double)NCU_NUM_EMPTY - 1000);
	assert_true(num("n/a", '.') == -(double)NCU_NUM_NA - 1000);
	assert_true(num("N/A", '.') == -(double)NCU_NUM_NA - 1000);
	assert_true(num("(0; 0; 0.01)", '.') == -(double)NCU_NUM_NA - 1000);
	assert_true(num("127.0.0.1", '.') == -(double)NCU_NUM_BAD - 1000);
	assert_true(num("(256, 1, 1)x", '.') == -(double)NCU_NUM_NA - 1000);
	assert_true(num("1,23", '.') == -(double)NCU_NUM_BAD - 1000); /* bad grouping */
	assert_true(num("12abc", '.') == -(double)NCU_NUM_BAD - 1000);
	assert_true(num("PolicySpread", '.') == -(double)NCU_NUM_BAD - 1000);
	assert_true(num("-", '.') == -(double)NCU_NUM_BAD - 1000);
	assert_true(num("1e999", '.') == -(double)NCU_NUM_BAD - 1000);
}

static double uscale(const char *u, const char *want_base)
{
	struct strbuf base = STRBUF_INIT;
	double s = -1;

	assert_int_equal(ncu_unit_scale(u, strlen(u), &s, &base), 0);
	assert_string_equal(base.buf, want_base);
	strbuf_release(&base);
	return s;
}

static void test_units(void **state)
{
	assert_true(uscale("", "") == 1);
	assert_true(uscale("%", "%") == 1);
	assert_true(uscale("nsecond", "nsecond") == 1);
	assert_true(uscale("ns", "nsecond") == 1);
	assert_true(uscale("usecond", "nsecond") == 1e3);
	assert_true(uscale("us", "nsecond") == 1e3);
	assert_true(uscale("msecond", "nsecond") == 1e6);
	assert_true(uscale("second", "nsecond") == 1e9);
	assert_true(uscale("Kbyte", "byte") == 1e3);
	assert_true(uscale("Mbyte", "byte") == 1e6);
	assert_true(uscale("Gbyte", "byte") == 1e9);
	assert_true(uscale("Ghz", "hz") == 1e9);
	assert_true(uscale("hz", "hz") == 1);
	assert_true(uscale("cycle/nsecond", "cycle/second") == 1e9);
	assert_true(uscale("cycle/usecond", "cycle/second") == 1e6);
	assert_true(uscale("cycle/second", "cycle/second") == 1);
	assert_true(uscale("byte/s", "byte/second") == 1);
	assert_true(uscale("Gbyte/second", "byte/second") == 1e9);
	assert_true(uscale("Tbyte/s", "byte/second") == 1e12);
	assert_true(uscale("Kbyte/block", "byte/block") == 1e3);
	assert_true(uscale("Kbyte/cycle", "byte/cycle") == 1e3);
	assert_true(fabs(uscale("%/Kbyte", "%/byte") - 1e-3) < 1e-18);
	assert_true(uscale("inst/cycle", "inst/cycle") == 1);
	assert_true(uscale("register/thread", "register/thread") == 1);
	assert_true(uscale("SM", "SM") == 1);
	{
		double s;

		assert_int_equal(ncu_unit_scale("foo-bar", 7, &s, NULL), -1);
		assert_true(s == 1);
	}
}

static void test_nvtx_cells(void **state)
{
	struct ncu_nvtx_stack st = {0};
	struct strbuf err = STRBUF_INIT;
	const char *llm = "829  \"LLM:decode_all:none:none:none:none:ASCII:decode_all\"  "
			  "\"LLM:decode_step:none:none:none:none:ASCII:decode_step\" ";
	const char *def = "1067  \"<default domain>:A:none:none:none:none:none:none\"  "
			  "\"<default domain>:A::A1:none:none:none:none:none:none\" ";
	const char *colon = "7  \"D:a:b:none:none:none:none:ASCII:a:b\" ";

	assert_int_equal(ncu_nvtx_parse_cell(llm, strlen(llm), NCU_NVTX_PUSHPOP, &st, &err), 0);
	assert_int_equal(st.thread, 829);
	assert_int_equal(st.nr, 2);
	assert_string_equal(st.ranges[0].domain, "LLM");
	assert_string_equal(st.ranges[0].name, "decode_all");
	assert_string_equal(st.ranges[1].name, "decode_step");
	ncu_nvtx_stack_release(&st);

	assert_int_equal(ncu_nvtx_parse_cell(def, strlen(def), NCU_NVTX_PUSHPOP, &st, &err), 0);
	assert_int_equal(st.nr, 2);
	assert_null(st.ranges[0].domain);
	assert_string_equal(st.ranges[0].name, "A");
	assert_string_equal(st.ranges[1].name, "A::A1");
	ncu_nvtx_stack_release(&st);

	assert_int_equal(ncu_nvtx_parse_cell(colon, strlen(colon), NCU_NVTX_PUSHPOP, &st, &err), 0);
	assert_string_equal(st.ranges[0].domain, "D");
	assert_string_equal(st.ranges[0].name, "a:b");
	ncu_nvtx_stack_release(&st);

	assert_int_equal(ncu_nvtx_parse_cell("", 0, NCU_NVTX_PUSHPOP, &st, &err), 0);
	assert_int_equal(st.nr, 0);
	assert_int_equal(ncu_nvtx_parse_cell("5 \"x", 4, NCU_NVTX_PUSHPOP, &st, &err), -1);
	assert_non_null(strstr(err.buf, "unterminated"));
	ncu_nvtx_stack_release(&st);
	strbuf_release(&err);
}

static int load(const char *name, struct strbuf *buf, struct strbuf *path)
{
	strbuf_reset(path);
	strbuf_addf(path, "%s/tests/data/ncu/%s", LLMPROF_SOURCE_DIR, name);
	strbuf_reset(buf);
	return strbuf_read_file(buf, path->buf);
}

static void check_value(const char *what, const char *want, double got, size_t line)
{
	double w;

	if (!strcmp(want, "na")) {
		if (ncu_have(got))
			fail_msg("line %zu %s: want n/a, got %.17g", line, what, got);
		return;
	}
	w = strtod(want, NULL);
	if (!ncu_have(got) || fabs(got - w) > 1e-9 * fabs(w) + 1e-9)
		fail_msg("line %zu %s: want %s, got %.17g", line, what, want, got);
}

/* Compares every record with tests/data/ncu/<fixture>.expected.tsv. */
static void golden(const char *fixture)
{
	struct strbuf buf = STRBUF_INIT, path = STRBUF_INIT, exp = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	struct ncu_kernel_table t;
	char *line, *save = NULL;
	size_t n = 0, lineno = 0;

	assert_int_equal(load(fixture, &buf, &path), 0);
	if (ncu_raw_parse(buf.buf, buf.len, fixture, &raw, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	strbuf_addf(&path, "%s", ""); /* keep path valid */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/tests/data/ncu/%.*s.expected.tsv", LLMPROF_SOURCE_DIR,
		    (int)(strlen(fixture) - 4), fixture);
	assert_int_equal(strbuf_read_file(&exp, path.buf), 0);
	for (line = strtok_r(exp.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[12], *fs = NULL, *tok;
		int nf = 0;
		const struct ncu_kernel *k;
		char grid[64];

		lineno++;
		if (line[0] == '#')
			continue;
		for (tok = strtok_r(line, "\t", &fs); tok && nf < 12;
		     tok = strtok_r(NULL, "\t", &fs))
			f[nf++] = strcmp(tok, "-") ? tok : "";
		assert_int_equal(nf, 12);
		assert_true(n < t.nr);
		k = &t.k[n++];
		assert_int_equal(k->id, strtoll(f[0], NULL, 10));
		assert_string_equal(k->name, f[1]);
		if (k->grid[0])
			snprintf(grid, sizeof(grid), "(%d,%d,%d)", k->grid[0], k->grid[1],
				 k->grid[2]);
		else
			grid[0] = '\0';
		assert_string_equal(grid, f[2]);
		check_value("duration", f[3], k->duration_ns, lineno);
		check_value("sm_sol", f[4], k->sm_sol_pct, lineno);
		check_value("mem_sol", f[5], k->mem_sol_pct, lineno);
		check_value("achieved_occ", f[6], k->achieved_occ_pct, lineno);
		check_value("theoretical_occ", f[7], k->theoretical_occ_pct, lineno);
		check_value("registers", f[8], k->registers, lineno);
		check_value("flops_fp32", f[9], k->flops[NCU_PREC_FP32], lineno);
		check_value("dram_bytes", f[10], k->dram_bytes, lineno);
		assert_string_equal(ncu_bound_name(k->bound), f[11]);
	}
	assert_int_equal(n, t.nr);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&path);
	strbuf_release(&exp);
	strbuf_release(&err);
}

static void test_golden_fixtures(void **state)
{
	golden("matadd-t4-ncu2024.2-v1.raw-base.csv");
	golden("matadd-t4-ncu2024.2-v7.raw-base.csv");
	golden("mathkernels-gtx1660ti-ncu2022.4.raw.csv");
	golden("mathkernels-gtx1660ti-ncu2022.4.raw-base.csv");
	golden("nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv");
	golden("nvtx-llm-domain-range-replay-h100-ncu2025.3.raw.csv");
	golden("nvtx-nested-default-domain-h100-ncu2025.3.raw.csv");
	golden("nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv");
}

/* Facts about the fixtures beyond the golden columns. */
static void test_fixture_details(void **state)
{
	struct strbuf buf = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	struct ncu_kernel_table t;
	long c;
	double v;

	/* Auto units (usecond, Mbyte) and base units (nsecond, byte) agree. */
	assert_int_equal(load("mathkernels-gtx1660ti-ncu2022.4.raw.csv", &buf, &path), 0);
	assert_int_equal(ncu_raw_parse(buf.buf, buf.len, "m.csv", &raw, &err), 0);
	assert_true(raw.has_units_row);
	assert_int_equal(raw.nrows, 4);
	assert_int_equal(raw.ncols, 279);
	c = ncu_raw_col(&raw, "gpu__time_duration.sum");
	assert_string_equal(raw.cols[c].unit, "usecond");
	assert_string_equal(raw.cols[c].base_unit, "nsecond");
	assert_int_equal(ncu_raw_metric(&raw, 0, "profiler__replayer_bytes_mem_accessible.sum", &v),
			 NCU_NUM_OK);
	assert_true(fabs(v - 67113600) < 1e-6);
	assert_int_equal(ncu_raw_metric(&raw, 0, "gpc__cycles_elapsed.avg.per_second", &v),
			 NCU_NUM_OK);
	assert_true(fabs(v - 1.362708e9) < 1e-3); /* 1.362708 cycle/nsecond */
	assert_int_equal(ncu_raw_metric(&raw, 0, "no_such_metric", &v), NCU_NUM_EMPTY);
	ncu_raw_release(&raw);

	/* Thousands separators and the decimal mark of ncu 2025.3 base units. */
	assert_int_equal(
	    load("nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv", &buf, &path), 0);
	assert_int_equal(ncu_raw_parse(buf.buf, buf.len, "n.csv", &raw, &err), 0);
	assert_int_equal(raw.decimal, '.');
	assert_int_equal(ncu_raw_metric(&raw, 0, "dram__bytes.sum.per_second", &v), NCU_NUM_OK);
	assert_true(v == 1402267379679.14);
	assert_int_equal(ncu_raw_metric(&raw, 0, "launch__thread_count", &v), NCU_NUM_OK);
	assert_true(v == 1048576);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	/* The add kernel adds 1<<20 floats: 1,048,576 FP32 FLOPs, counted by
	 * the roofline rates x elapsed cycles (2-decimal rounding in this
	 * export costs < 0.01 %). */
	assert_true(fabs(t.k[0].flops[NCU_PREC_FP32] - 1048576) / 1048576 < 1e-4);
	assert_true(t.k[0].flops[NCU_PREC_FP64] == 0);
	assert_false(ncu_have(t.k[0].flops[NCU_PREC_FP16]));
	assert_false(ncu_have(t.k[0].flops[NCU_PREC_TENSOR]));
	assert_string_equal(t.k[0].nvtx, "A");
	assert_string_equal(t.k[1].nvtx, "A/A::A1");
	assert_string_equal(t.k[2].nvtx, "B");
	assert_true(t.k[0].shared_mem == 0);
	assert_int_equal(t.ngroups, 2); /* scale x2, add x1 */
	assert_string_equal(t.groups[0].short_name, "scale");
	assert_int_equal(t.groups[0].calls, 2);
	assert_true(t.groups[0].total_ns == 5152 + 5216);
	assert_true(t.groups[0].min_ns == 5152 && t.groups[0].max_ns == 5216);
	assert_true(t.total_ns == 5984 + 5152 + 5216);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);

	/* Range replay: one result per range, Stream n/a, no launch dims. */
	assert_int_equal(load("nvtx-llm-domain-range-replay-h100-ncu2025.3.raw.csv", &buf, &path),
			 0);
	assert_int_equal(ncu_raw_parse(buf.buf, buf.len, "r.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	assert_int_equal(t.nr, 2);
	assert_int_equal(t.k[0].stream, -1);
	assert_string_equal(t.k[0].nvtx, "LLM@prefill");
	assert_string_equal(t.k[1].nvtx, "LLM@decode_all");
	assert_true(t.k[1].duration_ns == 314272);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);

	/* Kernel replay inside LLM@decode_all/decode_step. */
	assert_int_equal(load("nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv", &buf, &path),
			 0);
	assert_int_equal(ncu_raw_parse(buf.buf, buf.len, "k.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	assert_int_equal(t.nr, 8);
	assert_string_equal(t.k[0].nvtx, "LLM@decode_all/LLM@decode_step");
	assert_true(t.k[0].shared_mem == 0);
	assert_true(t.k[0].registers == 16);
	assert_int_equal(t.ngroups, 2);
	assert_int_equal(t.groups[0].calls + t.groups[1].calls, 8);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);

	strbuf_release(&buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

static void test_details_page(void **state)
{
	struct strbuf buf = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_details d;
	double v;
	size_t rules = 0;

	assert_int_equal(load("mathkernels-gtx1660ti-ncu2022.4.details.csv", &buf, &path), 0);
	assert_int_equal(ncu_details_parse(buf.buf, buf.len, "d.csv", &d, &err), 0);
	assert_int_equal(d.nr, 124);
	for (size_t i = 0; i < d.nr; i++)
		rules += d.rows[i].rule_name.len > 0;
	assert_int_equal(rules, 12); /* 3 rules x 4 kernels */
	assert_int_equal(ncu_details_metric(&d, 0, "Duration", &v), NCU_NUM_OK);
	assert_true(fabs(v - 1600) < 1e-9); /* 1.60 usecond */
	assert_int_equal(ncu_details_metric(&d, 3, "Achieved Occupancy", &v), NCU_NUM_OK);
	assert_int_equal(ncu_details_metric(&d, 9, "Duration", &v), NCU_NUM_EMPTY);
	ncu_details_release(&d);

	assert_int_equal(
	    load("nvtx-llm-domain-kernel-replay-h100-ncu2025.3.details.csv", &buf, &path), 0);
	assert_int_equal(ncu_details_parse(buf.buf, buf.len, "d.csv", &d, &err), 0);
	assert_int_equal(d.nr, 434);
	assert_int_equal(ncu_details_metric(&d, 0, "Elapsed Cycles", &v), NCU_NUM_OK);
	assert_true(v == 10426);
	assert_int_equal(ncu_details_metric(&d, 0, "Threads", &v), NCU_NUM_OK);
	assert_true(v == 1048576);
	assert_int_equal(ncu_details_metric(&d, 0, "Duration", &v), NCU_NUM_OK);
	assert_true(fabs(v - 5280) < 1e-6); /* 5.28 us */
	ncu_details_release(&d);
	strbuf_release(&buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* The details page read as its raw page (ncu_details.h): each result one
 * row, each value moved to the base unit by its decimal point (us, ms,
 * Kbyte, a thousands separator, a decimal comma), identity cells kept,
 * rule rows and unmapped labels dropped. */
static void test_details_as_raw(void **state)
{
	static const char page[] =
	    "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Section "
	    "Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule "
	    "Type\",\"Rule Description\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"GPU Speed Of Light "
	    "Throughput\",\"Duration\",\"us\",\"33.28\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"GPU Speed Of Light "
	    "Throughput\",\"Compute (SM) Throughput\",\"%\",\"71.61\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"SpeedOfLight\",\"\",\"\",\"\","
	    "\"SOLBottleneck\",\"OPT\",\"This kernel ...\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"Launch Statistics\",\"Static "
	    "Shared Memory Per Block\",\"Kbyte/block\",\"49.15\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"Launch "
	    "Statistics\",\"Threads\",\"thread\",\"1,024\"\n"
	    "\"1\",\"7\",\"m\",\"(128, 1, 1)\",\"(2, 1, 1)\",\"GPU Speed Of Light "
	    "Throughput\",\"Duration\",\"ms\",\"1.05\"\n"
	    "\"1\",\"7\",\"m\",\"(128, 1, 1)\",\"(2, 1, 1)\",\"Occupancy\",\"Achieved "
	    "Occupancy\",\"%\",\"n/a\"\n";
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	double v;
	struct str c;

	assert_true(ncu_csv_is_details(page, sizeof(page) - 1));
	assert_int_equal(ncu_details_to_raw(page, sizeof(page) - 1, "d.csv", &out, &err), 0);
	assert_string_equal(
	    out.buf,
	    "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid "
	    "Size\",\"gpu__time_duration.sum\",\"sm__throughput.avg.pct_of_peak_sustained_"
	    "elapsed\",\"launch__shared_mem_per_block_static\",\"sm__warps_active.avg.pct_of_"
	    "peak_sustained_active\"\n"
	    "\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"byte/block\",\"%\"\n"
	    "\"0\",\"7\",\"k\"\"a\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"33280\",\"71.61\",\"49150\","
	    "\"\"\n"
	    "\"1\",\"7\",\"m\",\"(128, 1, 1)\",\"(2, 1, 1)\",\"1050000\",\"\",\"\",\"n/a\"\n");
	/* ncu_raw_parse() takes the page as it is */
	assert_int_equal(ncu_raw_parse(page, sizeof(page) - 1, "d.csv", &raw, &err), 0);
	assert_true(raw.from_details);
	assert_int_equal(raw.nrows, 2);
	assert_int_equal(ncu_raw_metric(&raw, 0, "gpu__time_duration.sum", &v), NCU_NUM_OK);
	assert_true(v == 33280);
	assert_int_equal(ncu_raw_metric(&raw, 1, "gpu__time_duration.sum", &v), NCU_NUM_OK);
	assert_true(v == 1050000);
	assert_int_equal(
	    ncu_raw_metric(&raw, 1, "sm__warps_active.avg.pct_of_peak_sustained_active", &v),
	    NCU_NUM_NA);
	c = ncu_raw_cell(&raw, 0, (size_t)ncu_raw_col(&raw, "Kernel Name"));
	assert_int_equal(c.len, 3);
	assert_memory_equal(c.p, "k\"a", 3);
	ncu_raw_release(&raw);
	assert_false(ncu_csv_is_details("\"ID\",\"Kernel Name\"\n", 19));
	strbuf_release(&out);
	strbuf_release(&err);
}

/* The H200 details page ncu wrote with its defaults and the raw page of
 * the same 6 results: every number of the details page equals the raw
 * page's at the precision the details page prints (half a unit of its
 * last digit). */
static void test_details_equal_raw(void **state)
{
	static const char *const metrics[] = {
	    "gpu__time_duration.sum",
	    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
	    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
	    "launch__registers_per_thread",
	    "launch__shared_mem_per_block_static",
	    "launch__shared_mem_per_block_dynamic",
	    "sm__warps_active.avg.pct_of_peak_sustained_active",
	    "sm__maximum_warps_per_active_cycle_pct",
	};
	struct strbuf db = STRBUF_INIT, rb = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw d, r;

	assert_int_equal(load("h200-torch-default-ncu2025.3.details.csv", &db, &path), 0);
	assert_int_equal(load("h200-torch-default-ncu2025.3.raw-base.csv", &rb, &path), 0);
	assert_int_equal(ncu_raw_parse(db.buf, db.len, "d", &d, &err), 0);
	assert_int_equal(ncu_raw_parse(rb.buf, rb.len, "r", &r, &err), 0);
	assert_int_equal(d.nrows, 6);
	assert_int_equal(r.nrows, 6);
	for (size_t i = 0; i < 6; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(metrics); k++) {
			double a, b;
			/* Duration: "12.83" us, 10 ns per last digit; the rest
			 * print as the raw page does */
			double tol = k == 0 ? 5 : 0;

			assert_int_equal(ncu_raw_metric(&d, i, metrics[k], &a), NCU_NUM_OK);
			assert_int_equal(ncu_raw_metric(&r, i, metrics[k], &b), NCU_NUM_OK);
			if (fabs(a - b) > tol)
				fail_msg("result %zu %s: details %g, raw %g", i, metrics[k], a, b);
		}
		for (size_t k = 0; k < 3; k++) {
			static const char *const ident[] = {"ID", "Kernel Name", "Grid Size"};
			struct str x = ncu_raw_cell(&d, i, (size_t)ncu_raw_col(&d, ident[k]));
			struct str y = ncu_raw_cell(&r, i, (size_t)ncu_raw_col(&r, ident[k]));

			assert_int_equal(x.len, y.len);
			assert_memory_equal(x.p, y.p, x.len);
		}
	}
	ncu_raw_release(&d);
	ncu_raw_release(&r);
	strbuf_release(&db);
	strbuf_release(&rb);
	strbuf_release(&path);
	strbuf_release(&err);
}

static int parse_str(const char *s, struct ncu_raw *raw, struct strbuf *err)
{
	return ncu_raw_parse(s, strlen(s), "x.csv", raw, err);
}

static void test_raw_errors_and_locales(void **state)
{
	struct ncu_raw raw;
	struct strbuf err = STRBUF_INIT;
	double v;

	assert_int_equal(parse_str("\"ID\",\"Kernel Name\"\n\"0\",\"k\",\"extra\"\n", &raw, &err),
			 -1);
	assert_string_equal(err.buf, "x.csv:2: row has 3 fields, the header 2");
	strbuf_reset(&err);
	assert_int_equal(
	    parse_str("\"ID\",\"Section Name\",\"Metric Name\",\"Metric Value\"\n", &raw, &err),
	    -1);
	assert_non_null(strstr(err.buf, "not an ncu details-page CSV"));
	strbuf_reset(&err);
	assert_int_equal(parse_str("==PROF== Connected to process 1\n"
				   "==WARNING== No kernels were profiled.\n",
				   &raw, &err),
			 -1);
	assert_non_null(strstr(err.buf, "No kernels were profiled"));
	strbuf_reset(&err);
	assert_int_equal(parse_str("", &raw, &err), -1);
	assert_non_null(strstr(err.buf, "empty"));
	strbuf_reset(&err);
	assert_int_equal(parse_str("\"ID\",\"k\"\n\"0\",\"a\"b\n", &raw, &err), -1);
	assert_string_equal(err.buf, "x.csv:2:8: unexpected character after closing quote");
	strbuf_reset(&err);

	/* Every row of the raw page has the header's length: a short row in
	 * the middle (it used to give empty cells, an empty-named kernel) is
	 * an error like a long one and a short last one. */
	assert_int_equal(parse_str("\"ID\",\"Kernel Name\",\"x\"\n"
				   "\"0\",\"k\",\"1\"\n"
				   "\"1\"\n"
				   "\"2\",\"k\",\"1\"\n",
				   &raw, &err),
			 -1);
	assert_string_equal(err.buf, "x.csv:3: row has 1 fields, the header 3");
	strbuf_reset(&err);
	assert_int_equal(parse_str("\"ID\",\"Kernel Name\",\"x\"\n\"0\",\"k\"\n", &raw, &err), -1);
	assert_string_equal(err.buf, "x.csv:2: row has 2 fields, the header 3");
	strbuf_reset(&err);
	/* the details page is ragged by design, but never longer */
	{
		struct ncu_details d;
		const char *s = "\"ID\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
				"\"Metric Value\"\n"
				"\"0\",\"s\",\"m\",\"\",\"1\",\"extra\"\n";

		assert_int_equal(ncu_details_parse(s, strlen(s), "d.csv", &d, &err), -1);
		assert_string_equal(err.buf, "d.csv:2: row has 6 fields, the header 5");
		ncu_details_release(&d);
		strbuf_reset(&err);
	}

	/* A European-locale export: ',' decimal, '.' thousands, log lines
	 * around it. */
	assert_int_equal(parse_str("==PROF== Connected\n"
				   "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"x\"\n"
				   "\"\",\"\",\"usecond\",\"byte\"\n"
				   "\"0\",\"k\",\"5,280000\",\"1.048.576\"\n"
				   "\"1\",\"k\",\"1.234,5\",\"\"\n",
				   &raw, &err),
			 0);
	assert_int_equal(raw.decimal, ',');
	assert_int_equal(raw.nrows, 2);
	assert_int_equal(ncu_raw_number(&raw, 0, 2, &v), NCU_NUM_OK);
	assert_true(fabs(v - 5280) < 1e-9);
	assert_int_equal(ncu_raw_number(&raw, 0, 3, &v), NCU_NUM_OK);
	assert_true(v == 1048576);
	assert_int_equal(ncu_raw_number(&raw, 1, 2, &v), NCU_NUM_OK);
	assert_true(fabs(v - 1234500) < 1e-6);
	assert_int_equal(ncu_raw_number(&raw, 1, 3, &v), NCU_NUM_EMPTY);
	ncu_raw_release(&raw);

	/* No units row (e.g. --print-units none in the future): values as is. */
	assert_int_equal(parse_str("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
				   "\"0\",\"k\",\"4,096\"\n",
				   &raw, &err),
			 0);
	assert_false(raw.has_units_row);
	assert_int_equal(raw.decimal, '.'); /* nothing decides: LC_ALL=C */
	assert_int_equal(ncu_raw_number(&raw, 0, 2, &v), NCU_NUM_OK);
	assert_true(v == 4096);
	ncu_raw_release(&raw);
	strbuf_release(&err);
}

static void test_bound_rule(void **state)
{
	assert_int_equal(ncu_bound_classify(80, 30), NCU_BOUND_COMPUTE);
	assert_int_equal(ncu_bound_classify(60, 60), NCU_BOUND_COMPUTE); /* tie: compute */
	assert_int_equal(ncu_bound_classify(70, 90), NCU_BOUND_MEMORY);
	assert_int_equal(ncu_bound_classify(10, 60), NCU_BOUND_MEMORY);
	assert_int_equal(ncu_bound_classify(59.9, 59.9), NCU_BOUND_LATENCY);
	assert_int_equal(ncu_bound_classify(NAN, 80), NCU_BOUND_UNKNOWN);
}

/* Tensor FLOPs: typed gh100 metric names (with and without _dst_, split by
 * sparsity), the per-instruction-kind split not added twice, and the
 * untyped instruction count gives no FLOPs (its factor depends on the
 * instruction shape: 65,536 per HGMMA on the H100, not ncu's 512). */
static void test_tensor_flops(void **state)
{
	struct ncu_raw raw;
	struct ncu_kernel_table t;
	struct strbuf err = STRBUF_INIT;
	const char *typed =
	    "\"ID\",\"Kernel Name\",\"sm__ops_path_tensor_src_bf16_dst_fp32.sum\","
	    "\"sm__ops_path_tensor_src_fp16.sum\",\"sm__ops_path_tensor_src_fp8_sparsity_on.sum\","
	    "\"sm__ops_path_tensor_src_fp8_sparsity_off.sum\","
	    "\"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum\","
	    "\"sm__ops_path_tensor_src_int8.sum\",\"sm__ops_path_tensor_src_tf32_dst_fp32.sum.per_"
	    "second\","
	    "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n"
	    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"Mbyte\"\n"
	    "\"0\",\"gemm\",\"137,438,953,472\",\"1,000\",\"10\",\"20\",\"137,438,953,472\",\"5\","
	    "\"9\","
	    "\"100\",\"34.5\"\n";
	const char *untyped =
	    "\"ID\",\"Kernel Name\",\"smsp__inst_executed_pipe_tensor.sum.per_cycle_elapsed\","
	    "\"smsp__cycles_elapsed.avg\"\n\"\",\"\",\"inst/cycle\",\"cycle\"\n"
	    "\"0\",\"mma\",\"2.5\",\"1,000\"\n";

	assert_int_equal(ncu_raw_parse(typed, strlen(typed), "t.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	assert_true(t.k[0].flops[NCU_PREC_BF16] == 137438953472.0);
	assert_true(t.k[0].flops[NCU_PREC_FP16] == 1000);
	assert_true(t.k[0].flops[NCU_PREC_FP8] == 30);
	assert_false(ncu_have(t.k[0].flops[NCU_PREC_TF32])); /* only a rate was exported */
	assert_false(ncu_have(t.k[0].flops[NCU_PREC_TENSOR]));
	assert_true(t.k[0].tensor_flops == 137438953472.0 + 1000 + 30);
	assert_true(t.k[0].flops_total == t.k[0].tensor_flops);
	assert_true(t.k[0].dram_bytes == 134.5e6);
	assert_true(fabs(t.k[0].ai - t.k[0].flops_total / 134.5e6) < 1e-9);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);

	assert_int_equal(ncu_raw_parse(untyped, strlen(untyped), "u.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	assert_false(ncu_have(t.k[0].flops[NCU_PREC_TENSOR]));
	assert_false(ncu_have(t.k[0].tensor_flops));
	assert_false(ncu_have(t.k[0].flops_total));
	assert_false(ncu_have(t.k[0].ai)); /* no bytes */
	assert_int_equal(t.k[0].bound, NCU_BOUND_UNKNOWN);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&err);
}

/* A synthetic export with names that need escaping and many kernels. */
static void test_kernels_md(void **state)
{
	struct strbuf csv = STRBUF_INIT, md = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	struct ncu_kernel_table t;
	struct report_model m;
	size_t calls = 0;
	double total = 0;
	const char *p;

	strbuf_addstr(&csv, "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
			    "\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"\",\"nsecond\"\n");
	for (int i = 0; i < 30; i++)
		strbuf_addf(&csv,
			    "\"%d\",\"void ns::k%d<float, a|b>(T1, \"\"q\"\")\","
			    "\"(128, 1, 1)\",\"(%d, 1, 1)\",\"%d\"\n",
			    i, i % 7, 1 + i % 2, 1000 + 37 * i);
	assert_int_equal(ncu_raw_parse(csv.buf, csv.len, "s.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	assert_int_equal(t.nr, 30);
	assert_int_equal(t.ngroups, 14);
	for (size_t j = 1; j < t.ngroups; j++)
		assert_true(t.groups[j - 1].total_ns >= t.groups[j].total_ns);
	report_model_init(&m);
	report_model_from_ncu(&m, &t, 5);
	report_render_kernels_md(&m, &md);
	report_model_release(&m);
	/* Calls and Total (ms) of the table rows add up to the export's. */
	for (p = strstr(md.buf, "\n| "); p; p = strstr(p + 1, "\n| ")) {
		unsigned long c;
		double ms;
		const char *cell = p + 1;

		for (int bar = 0; bar < 3; bar++)
			cell = strchr(cell + 1, '|');
		if (sscanf(cell + 1, " %lu | %lf", &c, &ms) == 2) {
			calls += c;
			total += ms;
		}
	}
	assert_int_equal(calls, 30);
	assert_true(fabs(total * 1e6 - t.total_ns) < 1e-3);
	assert_non_null(strstr(md.buf, "(10 other kernels)"));
	/* '|' in names is escaped in cells; full names stay intact below. */
	assert_non_null(strstr(md.buf, "`void ns::k"));
	assert_non_null(strstr(md.buf, "<float, a|b>(T1, \"q\")`"));
	assert_null(strstr(md.buf, "Compute SOL"));
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_reset(&md);
	md_text(&md, "a|b<c>*_\\\n");
	assert_string_equal(md.buf, "a\\|b&lt;c&gt;\\*\\_\\\\ ");
	strbuf_release(&md);
	strbuf_release(&csv);
	strbuf_release(&err);
}

/* A measured share never reads as 0: a kernel with 0.001 % of the time
 * keeps its significant digits (model/format.h). */
static void test_kernels_md_small_share(void **state)
{
	static const char csv[] = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
				  "\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"\",\"nsecond\"\n"
				  "\"0\",\"big\",\"(128, 1, 1)\",\"(1, 1, 1)\",\"9999900\"\n"
				  "\"1\",\"tiny\",\"(128, 1, 1)\",\"(1, 1, 1)\",\"100\"\n";
	struct strbuf md = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw;
	struct ncu_kernel_table t;
	struct report_model m;

	assert_int_equal(ncu_raw_parse(csv, sizeof(csv) - 1, "s.csv", &raw, &err), 0);
	assert_int_equal(ncu_kernels_from_raw(&raw, &t, &err), 0);
	report_model_init(&m);
	report_model_from_ncu(&m, &t, 0);
	report_render_kernels_md(&m, &md);
	report_model_release(&m);
	assert_non_null(
	    strstr(md.buf, "| tiny | (1,1,1) x (128,1,1) | 1 | 0.000100 | 0.000100 | 0.001 |"));
	assert_non_null(
	    strstr(md.buf, "| big | (1,1,1) x (128,1,1) | 1 | 9.999900 | 9.999900 | 100.00 |"));
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&md);
	strbuf_release(&err);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_nvtx_cells),
	    cmocka_unit_test(test_golden_fixtures),
	    cmocka_unit_test(test_fixture_details),
	    cmocka_unit_test(test_details_page),
	    cmocka_unit_test(test_raw_errors_and_locales),
	    cmocka_unit_test(test_bound_rule),
	    cmocka_unit_test(test_tensor_flops),
	    cmocka_unit_test(test_kernels_md),
	    cmocka_unit_test(test_details_as_raw),
	    cmocka_unit_test(test_details_equal_raw),
	    cmocka_unit_test(test_kernels_md_small_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
