/* test-ncu-argv.c: ncu argv builder (each ncu_cli key -> its flags, order,
 * validation), import argv, sections/metrics checks, NVTX filter syntax
 * (nsys vs ncu) and the filter checker against the ranges of the real
 * nvtx-probe nsys export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "nsight/ncu_argv.h"
#include "nsight/ncu_config.h"
#include "nsight/ncu_progress.h"
#include "nsight/nvtx_filter.h"

static const char *prog[] = {"./app", "--n", "3"};

static char *argv_line(const struct ncu_options *o, int *rc)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	*rc = ncu_capture_argv(o, &cmd, &err);
	if (*rc)
		strbuf_addstr(&sb, err.buf);
	else
		ncu_cmd_format(&cmd, &sb);
	ncu_cmd_release(&cmd);
	strbuf_release(&err);
	return strbuf_detach(&sb, NULL);
}

static void expect_argv(const struct ncu_options *o, const char *want)
{
	int rc;
	char *got = argv_line(o, &rc);

	assert_int_equal(rc, 0);
	assert_string_equal(got, want);
	free(got);
}

static void expect_error(const struct ncu_options *o, const char *want)
{
	int rc;
	char *got = argv_line(o, &rc);

	assert_int_equal(rc, -1);
	assert_string_equal(got, want);
	free(got);
}

static void base(struct ncu_options *o)
{
	struct ncu_options z = NCU_OPTIONS_INIT;

	*o = z;
	o->output = "run/ncu/decode";
	o->program = prog;
	o->nr_program = 3;
}

static void test_minimal(void **state)
{
	struct ncu_options o;

	base(&o);
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode ./app --n 3");
}

static void test_each_key(void **state)
{
	static const char *inc[] = {"LLM@decode_all/", "A/"}, *exc[] = {"LLM@decode_step/"};
	static const char *sec[] = {"SpeedOfLight", "Occupancy"};
	static const char *met[] = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
	struct ncu_options o;

	base(&o);
	o.target_processes = "all";
	expect_argv(&o, "LC_ALL=C ncu --target-processes all -o run/ncu/decode ./app --n 3");
	base(&o);
	o.replay_mode = "app-range";
	expect_argv(&o, "LC_ALL=C ncu --replay-mode app-range -o run/ncu/decode ./app --n 3");
	base(&o);
	o.nvtx_include = inc;
	o.nr_nvtx_include = 2;
	o.nvtx_exclude = exc;
	o.nr_nvtx_exclude = 1;
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --nvtx --nvtx-include LLM@decode_all/ "
			"--nvtx-include A/ --nvtx-exclude LLM@decode_step/ ./app --n 3");
	base(&o);
	o.nvtx = 1;
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --nvtx ./app --n 3");
	base(&o);
	o.set = "roofline";
	expect_argv(&o, "LC_ALL=C ncu --set roofline -o run/ncu/decode ./app --n 3");
	base(&o);
	o.sections = sec;
	o.nr_sections = 2;
	expect_argv(&o, "LC_ALL=C ncu --section SpeedOfLight --section Occupancy "
			"-o run/ncu/decode ./app --n 3");
	base(&o);
	o.metrics = met;
	o.nr_metrics = 2;
	expect_argv(&o, "LC_ALL=C ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum "
			"-o run/ncu/decode ./app --n 3");
	base(&o);
	o.kernel_name = "regex:^gemm$";
	o.kernel_name_base = "demangled";
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --kernel-name-base demangled "
			"--kernel-name 'regex:^gemm$' ./app --n 3");
	base(&o);
	o.kernel_name_base = "demangled"; /* alone: no kernel filter, not emitted */
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode ./app --n 3");
	base(&o);
	o.kernel_id = "::regex:^k$:3";
	o.kernel_name_base = "function";
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --kernel-name-base function "
			"--kernel-id '::regex:^k$:3' ./app --n 3");
	base(&o);
	o.launch_skip = 0;
	o.launch_count = 1;
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --launch-skip 0 --launch-count 1 "
			"./app --n 3");
	base(&o);
	o.clock_control = "none";
	o.cache_control = "all";
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --clock-control none --cache-control all "
			"./app --n 3");
	base(&o);
	o.force_overwrite = 1;
	o.ncu = "/opt/ncu";
	expect_argv(&o, "LC_ALL=C /opt/ncu -o run/ncu/decode --force-overwrite ./app --n 3");
}

/* Everything at once: the emission order of seed-system.md 2.4. */
static void test_full_order(void **state)
{
	static const char *inc[] = {"LLM@decode_all/"};
	static const char *sec[] = {"SpeedOfLight"};
	static const char *met[] = {"gpu__time_duration.sum"};
	struct ncu_options o;

	base(&o);
	o.target_processes = "all";
	o.set = "roofline";
	o.replay_mode = "kernel";
	o.metrics = met;
	o.nr_metrics = 1;
	o.sections = sec;
	o.nr_sections = 1;
	o.nvtx_include = inc;
	o.nr_nvtx_include = 1;
	o.kernel_name = "regex:^add\\(";
	o.kernel_name_base = "demangled";
	o.launch_skip = 3;
	o.launch_count = 1;
	o.clock_control = "none";
	o.cache_control = "all";
	o.force_overwrite = 1;
	expect_argv(&o, "LC_ALL=C ncu --target-processes all --set roofline --replay-mode kernel "
			"--metrics gpu__time_duration.sum --section SpeedOfLight -o run/ncu/decode "
			"--nvtx --nvtx-include LLM@decode_all/ --kernel-name-base demangled "
			"--kernel-name 'regex:^add\\(' --launch-skip 3 --launch-count 1 "
			"--clock-control none --cache-control all --force-overwrite ./app --n 3");
}

static void test_validation(void **state)
{
	struct ncu_options o;

	base(&o);
	o.replay_mode = "kernels";
	expect_error(&o, "pipeline.ncu.ncu_cli.replay_mode: 'kernels' is not one of "
			 "kernel|application|range|app-range");
	base(&o);
	o.clock_control = "locked";
	expect_error(&o, "pipeline.ncu.ncu_cli.clock_control: 'locked' is not one of none|base");
	base(&o);
	o.launch_count = 0;
	expect_error(&o, "pipeline.ncu.ncu_cli.launch_count: 0 is below 1");
	base(&o);
	o.launch_skip = -5;
	expect_error(&o, "pipeline.ncu.ncu_cli.launch_skip: -5 is below 0");
	base(&o);
	o.kernel_name = "regex:";
	expect_error(&o, "pipeline.ncu.ncu_cli.kernel_name: 'regex:' needs a pattern");
	base(&o);
	o.kernel_name = "a";
	o.kernel_id = "::a:1";
	expect_error(&o, "pipeline.ncu.ncu_cli.kernel_name and kernel_id are exclusive: ncu "
			 "takes one kernel filter");
	base(&o);
	o.output = NULL;
	expect_error(&o, "ncu needs an output path (-o)");
	base(&o);
	o.nr_program = 0;
	expect_error(&o, "ncu needs a program to profile");
	base(&o);
	o.target_processes = "some";
	expect_error(&o, "pipeline.ncu.ncu_cli.target_processes: 'some' is not one of "
			 "all|application-only");
}

/* The one pass (analysis/select.h) as the H100 probe ran it, and the
 * --help check that decides whether ncu can. */
static void test_one_pass(void **state)
{
	struct ncu_options o;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf sb = STRBUF_INIT;
	/* ncu 2024.1.1's --help lines; 2025.3.1 prints the same */
	static const char help[] =
	    "  --filter-mode arg (=global)           Set the filter mode for kernel launches. "
	    "Available modes:\n"
	    "                                           global (default) : Apply provided launch "
	    "filters on kernel launches\n"
	    "                                           per-launch-config: Apply kernel filters "
	    "and launch filters on kernel\n";
	static const char old_help[] = "  --kernel-id arg    Set the identifier to use\n"
				       "  -k [ --kernel-name ] arg  Filter the kernel\n";

	base(&o);
	ncu_options_for_pass(&o, "regex:^(_Z2kAPfi|_Z2kCPfi)$", "mangled", 6, 2);
	expect_argv(&o, "LC_ALL=C ncu -o run/ncu/decode --filter-mode per-launch-config "
			"--kernel-name-base mangled --kernel-name "
			"'regex:^(_Z2kAPfi|_Z2kCPfi)$' --launch-skip-before-match 6 "
			"--launch-count 2 ./app --n 3");
	o.filter_mode = "per-kernel";
	expect_error(&o, "--filter-mode: 'per-kernel' is not one of "
			 "global|per-gpu|per-launch-config");
	base(&o);
	o.launch_skip_before_match = -2;
	expect_error(&o, "--launch-skip-before-match: -2 is below 0");
	assert_true(ncu_help_has_per_launch_config(help, sizeof(help) - 1));
	assert_false(ncu_help_has_per_launch_config(old_help, sizeof(old_help) - 1));
	assert_false(ncu_help_has_per_launch_config("per-launch-config", 17));
	ncu_import_names_argv(NULL, "r.ncu-rep", "mangled", &cmd);
	ncu_cmd_format(&cmd, &sb);
	assert_string_equal(sb.buf, "LC_ALL=C ncu --import r.ncu-rep --csv --page raw "
				    "--print-units base --print-kernel-base mangled --metrics "
				    "gpu__time_duration.sum");
	ncu_cmd_release(&cmd);
	strbuf_release(&sb);
	(void)state;
}

static void test_import_argv(void **state)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf sb = STRBUF_INIT;

	ncu_import_argv(NULL, "run/ncu/decode.ncu-rep", "raw", &cmd);
	ncu_cmd_format(&cmd, &sb);
	assert_string_equal(sb.buf, "LC_ALL=C ncu --import run/ncu/decode.ncu-rep --csv --page raw "
				    "--print-units base");
	assert_null(cmd.argv[cmd.argc]);
	ncu_cmd_release(&cmd);
	strbuf_reset(&sb);
	{
		const char *sec[] = {"SpeedOfLight", "Occupancy"};

		ncu_sections_report_argv(NULL, "r.ncu-rep", sec, 2, &cmd);
		ncu_cmd_format(&cmd, &sb);
		assert_string_equal(sb.buf, "LC_ALL=C ncu --import r.ncu-rep --page details "
					    "--section SpeedOfLight --section Occupancy");
		ncu_cmd_release(&cmd);
		strbuf_reset(&sb);
	}
	/* ncu/cmd.txt: quoted, odd bytes kept as they are */
	ncu_import_argv(NULL, "caf\xc3\xa9 run/it's.ncu-rep", "raw", &cmd);
	ncu_cmd_format(&cmd, &sb);
	assert_string_equal(sb.buf,
			    "LC_ALL=C ncu --import 'caf\xc3\xa9 run/it'\\''s.ncu-rep' --csv "
			    "--page raw --print-units base");
	ncu_cmd_release(&cmd);
	strbuf_reset(&sb);
	ncu_list_sections_argv("ncu", &cmd);
	ncu_cmd_format(&cmd, &sb);
	assert_string_equal(sb.buf, "LC_ALL=C ncu --list-sections");
	ncu_cmd_release(&cmd);
	strbuf_release(&sb);
}

/* Excerpts of ncu 2024.1.1's own output. */
static const char list_sections[] =
    "------------------------- ------------------------ ------- ---------\n"
    "Identifier                Display Name             Enabled Filename\n"
    "------------------------- ------------------------ ------- ---------\n"
    "LaunchStats               Launch Statistics        yes     .../LaunchStatistics.section\n"
    "Occupancy                 Occupancy                yes     .../Occupancy.section\n"
    "SpeedOfLight              GPU Speed Of Light Throu yes     .../SpeedOfLight.section\n"
    "MemoryWorkloadAnalysis    Memory Workload Analysis no      "
    ".../MemoryWorkloadAnalysis.section\n";
/* NVIDIA's own `ncu --list-sections` (2024.1.1, needs no GPU): every
 * section the presets ask for is there, the header and rules are not, and
 * a misspelt or a set name is refused with the closest identifier. */
static void test_sections_real_list(void **state)
{
	static const char *ok[] = {"SpeedOfLight",
				   "MemoryWorkloadAnalysis",
				   "Occupancy",
				   "SchedulerStats",
				   "LaunchStats",
				   "WarpStateStats",
				   "SpeedOfLight_HierarchicalTensorRooflineChart",
				   "regex:^Nvlink"};
	static const char *bad[] = {"SpeedOfLite", "roofline", "MemoryWorkloadAnalysis_Table"};
	const char *s = getenv("LLMPROF_SOURCE_DIR");
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_options o;
	char **ids;
	size_t nids;

	(void)state;
	strbuf_addf(&path, "%s/tests/data/ncu/list-sections-ncu2024.1.1.txt",
		    s && *s ? s : LLMPROF_SOURCE_DIR);
	assert_int_equal(strbuf_read_file(&text, path.buf), 0);
	ncu_sections_parse(text.buf, text.len, &ids, &nids);
	assert_int_equal(nids, 24);
	assert_string_equal(ids[0], "C2CLink");
	assert_string_equal(ids[23], "WorkloadDistribution");
	base(&o);
	o.sections = ok;
	o.nr_sections = sizeof(ok) / sizeof(ok[0]);
	assert_int_equal(ncu_check_requested(&o, ids, nids, NULL, 0, &err), 0);
	assert_int_equal(err.len, 0);
	o.sections = bad;
	o.nr_sections = sizeof(bad) / sizeof(bad[0]);
	assert_int_equal(ncu_check_requested(&o, ids, nids, NULL, 0, &err), -1);
	assert_string_equal(err.buf,
			    "unknown section 'SpeedOfLite' (did you mean 'SpeedOfLight'?); "
			    "unknown section 'roofline'; unknown section "
			    "'MemoryWorkloadAnalysis_Table' (did you mean "
			    "'MemoryWorkloadAnalysis_Tables'?): not offered by this "
			    "GPU/ncu (see ncu/sections.txt, ncu/metrics.txt)");
	ncu_names_free(ids, nids);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&err);
}

static const char query_metrics[] =
    "Chip gh100\n"
    "----------------------- --------------- --------------- ------------\n"
    "Metric Name             Metric Type     Metric Unit     Metric Description\n"
    "----------------------- --------------- --------------- ------------\n"
    "dram__bytes_read        Counter         byte            # of bytes read from DRAM\n"
    "gpu__time_duration      Counter         nsecond         total duration in nanoseconds\n"
    "sm__throughput          Throughput      %               SM throughput\n"
    "sm__ops_path_tensor_src_fp64 Counter                    # of math ops\n"
    "sm__ops_path_tensor_src_fp16_dst_fp32 Counter               # of math ops\n"
    "sm__ops_path_tensor_src_fp16_dst_fp16 Counter               # of math ops\n";

static void test_sections_metrics_check(void **state)
{
	static const char *sec[] = {"SpeedOfLight", "SchedulerStats", "Ocupancy"};
	static const char *met[] = {
	    "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	    "flop_count_sp", "dram__bytes_red.sum", "sm__ops_path_tensor_src_fp16.sum"};
	char **ids, **names;
	size_t nids, nnames;
	struct ncu_options o;
	struct strbuf err = STRBUF_INIT;

	ncu_sections_parse(list_sections, sizeof(list_sections) - 1, &ids, &nids);
	assert_int_equal(nids, 4);
	assert_string_equal(ids[0], "LaunchStats");
	assert_string_equal(ids[3], "MemoryWorkloadAnalysis");
	ncu_metrics_parse(query_metrics, sizeof(query_metrics) - 1, &names, &nnames);
	assert_int_equal(nnames, 6);
	assert_string_equal(names[1], "gpu__time_duration");
	base(&o);
	o.sections = sec;
	o.nr_sections = 1;
	o.metrics = met;
	o.nr_metrics = 2;
	assert_int_equal(ncu_check_requested(&o, ids, nids, names, nnames, &err), 0);
	o.nr_sections = 3;
	o.nr_metrics = 5;
	assert_int_equal(ncu_check_requested(&o, ids, nids, names, nnames, &err), -1);
	assert_string_equal(err.buf,
			    "unknown section 'SchedulerStats'; unknown section 'Ocupancy' (did you "
			    "mean 'Occupancy'?); unknown metric 'flop_count_sp'; unknown metric "
			    "'dram__bytes_red.sum' (did you mean 'dram__bytes_read'?); unknown "
			    "metric 'sm__ops_path_tensor_src_fp16.sum' (did you mean "
			    "'sm__ops_path_tensor_src_fp16_dst_fp32'?): not offered "
			    "by this GPU/ncu (see ncu/sections.txt, ncu/metrics.txt)");
	ncu_names_free(ids, nids);
	ncu_names_free(names, nnames);
	strbuf_release(&err);
}

static void translate(const char *user, const char *pushpop, const char *startend, const char *nsys)
{
	struct nvtx_spec s;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	assert_int_equal(nvtx_spec_parse(user, &s, &err), 0);
	nvtx_ncu_expr(&s, NCU_NVTX_PUSHPOP, &sb);
	assert_string_equal(sb.buf, pushpop);
	strbuf_reset(&sb);
	nvtx_ncu_expr(&s, NCU_NVTX_STARTEND, &sb);
	assert_string_equal(sb.buf, startend);
	strbuf_reset(&sb);
	if (nsys) {
		assert_int_equal(nvtx_nsys_capture(&s, &sb, &err), 0);
		assert_string_equal(sb.buf, nsys);
	} else {
		assert_int_equal(nvtx_nsys_capture(&s, &sb, &err), -1);
	}
	nvtx_spec_release(&s);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_nvtx_translation(void **state)
{
	struct nvtx_spec s;
	struct strbuf err = STRBUF_INIT;

	translate("decode_all", "decode_all/", "decode_all", "decode_all");
	translate("LLM@decode_all", "LLM@decode_all/", "LLM@decode_all", "decode_all@LLM");
	translate("LLM@decode_all/", "LLM@decode_all/", "LLM@decode_all", "decode_all@LLM");
	translate("prefill", "prefill/", "prefill", "prefill");
	translate("A::A1", "A::A1/", "A::A1", "A::A1");
	translate("D@a/b,c*", "D@a\\/b\\,c\\*/", "D@a\\/b\\,c\\*", "a/b,c*@D");
	translate("x\\@y", "x\\@y/", "x\\@y", NULL);
	assert_int_equal(nvtx_spec_parse("", &s, &err), -1);
	assert_int_equal(nvtx_spec_parse("LLM@", &s, &err), -1);
	assert_int_equal(nvtx_spec_parse("@x", &s, &err), -1);
	strbuf_release(&err);
}

/* The NVTX ranges of the real nvtx-probe export (nsys 2025.3, H100). */
struct seen_list {
	struct nvtx_seen v[32];
	char *owned[64];
	size_t n, nowned;
};

static char *keep(struct seen_list *l, const unsigned char *s)
{
	char *d = s ? strdup((const char *)s) : NULL;

	if (d)
		l->owned[l->nowned++] = d;
	return d;
}

static void load_seen(struct seen_list *l)
{
	const char *path = LLMPROF_SOURCE_DIR "/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite";
	sqlite3 *db;
	sqlite3_stmt *st;

	memset(l, 0, sizeof(*l));
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(
		db,
		"SELECT DISTINCT d.text, e.text, e.eventType FROM NVTX_EVENTS e "
		"LEFT JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.domainId = e.domainId "
		"AND e.domainId != 0 WHERE e.eventType IN (59, 60) ORDER BY 1, 2",
		-1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && l->n < 32) {
		l->v[l->n].domain = keep(l, sqlite3_column_text(st, 0));
		l->v[l->n].name = keep(l, sqlite3_column_text(st, 1));
		l->v[l->n].style =
		    sqlite3_column_int(st, 2) == 59 ? NCU_NVTX_PUSHPOP : NCU_NVTX_STARTEND;
		l->n++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void free_seen(struct seen_list *l)
{
	for (size_t i = 0; i < l->nowned; i++)
		free(l->owned[i]);
}

static void check(const struct seen_list *l, const char *expr, int want, const char *suggest)
{
	struct strbuf why = STRBUF_INIT, sug = STRBUF_INIT;
	int got = nvtx_ncu_expr_matches(expr, l->v, l->n, &why);

	if (got != want)
		fail_msg("'%s': want %d got %d (%s)", expr, want, got, why.buf);
	nvtx_ncu_suggest(expr, l->v, l->n, &sug);
	if (suggest)
		assert_string_equal(sug.buf, suggest);
	strbuf_release(&why);
	strbuf_release(&sug);
}

static void test_nvtx_checker(void **state)
{
	struct seen_list l;
	struct strbuf out = STRBUF_INIT;
	const char *exprs[] = {"decode_all/", "LLM@prefill/"};

	load_seen(&l);
	assert_int_equal(l.n, 6); /* A, A::A1, B; LLM: decode_all, decode_step, prefill */
	check(&l, "LLM@decode_all/", 1, NULL);
	check(&l, "LLM@decode_all/decode_step", 1, NULL);
	check(&l, "A/", 1, NULL);
	check(&l, "A/A::A1", 1, NULL);
	check(&l, "A/*/A::A1", 1, NULL);
	check(&l, "B/", 1, NULL);
	check(&l, "regex:LLM@decode.*/", 1, NULL);
	check(&l, "regex:L+M@^pre/", 1, NULL);
	/* The traps: default domain, start/end syntax for a push/pop range,
	 * nsys order, a typo. */
	check(&l, "decode_all/", 0, "LLM@decode_all/");
	check(&l, "LLM@decode_all", 0, "LLM@decode_all/");
	check(&l, "decode_all@LLM", 0, "LLM@decode_all/");
	check(&l, "LLM@decode/", 0, "LLM@decode_all/");
	check(&l, "LLM@A/", 0, "A/");
	check(&l, "zzzzzzzzzzzz/", 0, "");
	check(&l, "a/b,c", -1, NULL);
	nvtx_diagnose(exprs, 2, l.v, l.n, &out);
	assert_non_null(strstr(out.buf, "--nvtx-include 'decode_all/': matches no range"));
	assert_non_null(strstr(out.buf, "no push/pop range 'decode_all' in the default domain"));
	assert_non_null(strstr(out.buf, "the expression that would match: 'LLM@decode_all/'"));
	assert_non_null(strstr(out.buf, "--nvtx-include 'LLM@prefill/': matches ranges"));
	assert_non_null(strstr(out.buf, "  LLM@decode_step (push/pop) -> ncu 'LLM@decode_step/'"));
	assert_non_null(strstr(out.buf, "  A::A1 (push/pop) -> ncu 'A::A1/'"));
	strbuf_reset(&out);
	nvtx_diagnose(exprs, 1, NULL, 0, &out);
	assert_non_null(strstr(out.buf, "the trace saw no NVTX ranges at all"));
	strbuf_release(&out);
	free_seen(&l);
}

/* ncu's progress lines, fed in every chunk size. */
static void test_progress(void **state)
{
	static const char out[] =
	    "==PROF== Connected to process 367502 (/usr/bin/python3.10)\n"
	    "==PROF== Profiling \"unrolled_elementwise_kernel\" - 0: 0%....50%....100% - 8 passes\n"
	    "==PROF== Profiling \"sg2bmm_bs1_n10000_m64_w1000_d...\" - 1: 0%....50%....100%Graph "
	    "Tensors:\nTensor 805, shape [8,10000,64]\n - 8 passes\n"
	    "==PROF== Profiling \"add_kernel\": 0%....50%....100% - 1 pass\r\n"
	    "==PROF== Disconnected from process 367502\n"
	    "==PROF== Report: /tmp/run/ncu/decode.ncu-rep\n";

	for (size_t chunk = 1; chunk <= 9; chunk++) {
		struct ncu_progress p;

		ncu_progress_init(&p);
		for (size_t i = 0; i < sizeof(out) - 1; i += chunk)
			ncu_progress_feed(&p, out + i,
					  i + chunk <= sizeof(out) - 1 ? chunk
								       : sizeof(out) - 1 - i);
		assert_int_equal(p.done, 3);
		assert_int_equal(p.passes, 1);
		/* what the step says ncu spent its time on */
		assert_int_equal(p.passes_total, 17);
		assert_int_equal(p.passes_min, 1);
		assert_int_equal(p.passes_max, 8);
		assert_false(p.in_progress);
		assert_string_equal(p.name, "add_kernel");
		assert_int_equal(p.current_id, -1); /* older format: no ID */
		assert_string_equal(p.report, "/tmp/run/ncu/decode.ncu-rep");
		assert_int_equal(p.connected, 1); /* one process: ncu may end it */
		ncu_progress_release(&p);
	}
	{
		struct ncu_progress p;
		struct strbuf sb = STRBUF_INIT;
		const char *a = "==PROF== Profiling \"gemm\" - 0: 0%....50%....100% - 10 passes\n";
		const char *b = "==PROF== Profiling \"attn\" - 1: 0%....50%..";

		ncu_progress_init(&p);
		assert_int_equal(ncu_progress_feed(&p, b, 30), 1);
		assert_true(p.in_progress);
		ncu_progress_format(&p, 12, 1.25, &sb);
		assert_string_equal(
		    sb.buf, "ncu: kernel 1 of 12 \"attn\": 0% of its passes, 1.2 s elapsed");
		ncu_progress_release(&p);
		ncu_progress_init(&p);
		ncu_progress_feed(&p, a, strlen(a));
		assert_int_equal(ncu_progress_feed(&p, b, strlen(b)), 1);
		assert_int_equal(p.pct, 70);
		assert_int_equal(p.current_id, 1);
		strbuf_reset(&sb);
		ncu_progress_format(&p, 12, 12.34, &sb);
		assert_string_equal(
		    sb.buf, "ncu: kernel 2 of 12 \"attn\": pass ~7 of 10 (70%), 12.3 s elapsed");
		assert_int_equal(ncu_progress_feed(&p, "", 0), 0);
		{
			const char *c =
			    "..100% - 10 passes\n==WARNING== No kernels were profiled.\n";

			ncu_progress_feed(&p, c, strlen(c));
		}
		assert_int_equal(p.done, 2);
		assert_true(p.no_kernels);
		strbuf_reset(&sb);
		ncu_progress_format(&p, 0, 20, &sb);
		assert_string_equal(sb.buf,
				    "ncu: kernel 2 \"attn\": done (10 passes), 20.0 s elapsed");
		ncu_progress_release(&p);
		strbuf_release(&sb);
	}
	{
		/* an id of 23 digits (fuzz-ncu-csv): no overflow, the line still reads */
		struct ncu_progress p;
		const char *d = "==PROF== Profiling \"k\" - 99999999999999999999999: 0%....50%\n";

		ncu_progress_init(&p);
		assert_int_equal(ncu_progress_feed(&p, d, strlen(d)), 1);
		assert_true(p.current_id > 0);
		assert_int_equal(p.pct, 50);
		assert_string_equal(p.name, "k");
		ncu_progress_release(&p);
	}
}

/* A tensor-pipe metric the GPU names otherwise is dropped, named once;
 * the others stay in order, whatever the listing says of them. */
static void test_drop_optional(void **state)
{
	char *offered[] = {"dram__bytes_read", "sm__ops_path_tensor_src_bf16_dst_fp32",
			   "sm__ops_path_tensor_src_fp16_dst_fp16"};
	const char *m[] = {"dram__bytes_read.sum",
			   "sm__ops_path_tensor_src_fp16.sum",
			   "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
			   "flop_count_sp",
			   "sm__pipe_tensor_cycles_active.sum",
			   NULL};
	struct strbuf dropped = STRBUF_INIT;
	size_t n;

	assert_true(ncu_metric_optional("sm__ops_path_tensor_src_fp16.sum"));
	assert_true(ncu_metric_optional("sm__inst_executed_pipe_tensor_op_hmma.sum"));
	assert_false(ncu_metric_optional("dram__bytes_read.sum"));
	n = ncu_drop_unoffered_optional(m, 5, offered, 3, &dropped);
	assert_int_equal(n, 3);
	assert_string_equal(m[0], "dram__bytes_read.sum");
	assert_string_equal(m[1], "sm__ops_path_tensor_src_bf16_dst_fp32.sum");
	assert_string_equal(m[2], "flop_count_sp"); /* not optional: the check refuses it */
	assert_null(m[3]);
	assert_string_equal(dropped.buf,
			    "sm__ops_path_tensor_src_fp16.sum, sm__pipe_tensor_cycles_active.sum");
	strbuf_release(&dropped);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minimal),
	    cmocka_unit_test(test_each_key),
	    cmocka_unit_test(test_full_order),
	    cmocka_unit_test(test_validation),
	    cmocka_unit_test(test_import_argv),
	    cmocka_unit_test(test_one_pass),
	    cmocka_unit_test(test_sections_metrics_check),
	    cmocka_unit_test(test_sections_real_list),
	    cmocka_unit_test(test_nvtx_translation),
	    cmocka_unit_test(test_nvtx_checker),
	    cmocka_unit_test(test_progress),
	    cmocka_unit_test(test_drop_optional),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
