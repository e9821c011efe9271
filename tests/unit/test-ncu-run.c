/* test-ncu-run.c: the pieces of profile's ncu step that need no GPU:
 * pipeline.ncu.* -> options (explicit filters, light set, one selected
 * kernel's filter), the --dry-run template, ncu lookup, ncu output
 * verdicts, and the merge of raw-page imports (NVIDIA's own CSVs from
 * tests/data/ncu with different column sets). */
#define LLMPROF_DEFAULT_METRICS                                                                    \
	"gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_"    \
	"memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_"    \
	"write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_"        \
	"executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_" \
	"thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on."  \
	"sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_"  \
	"fp32.sum,sm__ops_path_tensor_src_fp16.sum"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/config.h"
#include "trace/csv.h"
#include "nsight/ncu_config.h"
#include "nsight/ncu_nvtx.h"
#include "nsight/ncu_run.h"
#include "pipeline/ncu.h"

static const char *src_dir(void)
{
	const char *s = getenv("LLMPROF_SOURCE_DIR");
	return s && *s ? s : LLMPROF_SOURCE_DIR;
}

static struct config *load(size_t n, const char *const *ov)
{
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT;
	struct config *cfg = NULL;

	strbuf_addf(&dir, "%s/conf", src_dir());
	if (config_load(&cfg, dir.buf, n, ov, &err))
		fail_msg("load failed: %s", err.buf);
	strbuf_release(&err);
	strbuf_release(&dir);
	return cfg;
}

static void assert_contains(const char *s, const char *needle)
{
	if (!strstr(s, needle))
		fail_msg("'%s' does not contain '%s'", s, needle);
}

static const char *prog[] = {"./llm", "--new-tokens", "4"};

static char *line(const struct ncu_options *o)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;

	if (ncu_capture_argv(o, &cmd, &err))
		fail_msg("argv: %s", err.buf);
	ncu_cmd_format(&cmd, &sb);
	ncu_cmd_release(&cmd);
	strbuf_release(&err);
	return strbuf_detach(&sb, NULL);
}

static void test_defaults_per_kernel(void **state)
{
	struct config *cfg = load(0, NULL);
	struct ncu_options o = NCU_OPTIONS_INIT;
	char *s;

	(void)state;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	assert_false(ncu_options_explicit(&o));
	assert_false(ncu_options_range(&o));
	o.program = prog;
	o.nr_program = 3;
	o.output = "run/ncu/k2";
	ncu_options_for_kernel(&o, "regex:^gemm_bf16$", "demangled", 7, 1);
	s = line(&o);
	assert_string_equal(
	    s, "LC_ALL=C ncu --target-processes all --replay-mode kernel "
	       "--metrics " LLMPROF_DEFAULT_METRICS " --section SpeedOfLight "
	       "--section Occupancy --section LaunchStats "
	       "-o run/ncu/k2 --kernel-name-base demangled --kernel-name 'regex:^gemm_bf16$' "
	       "--launch-skip 7 --launch-count 1 --clock-control none --cache-control all "
	       "--force-overwrite ./llm --new-tokens 4");
	free(s);
	/* light: two sections, no set, same metrics */
	ncu_options_light(&o);
	s = line(&o);
	assert_contains(s, "--metrics gpu__time_duration.sum,");
	assert_contains(s, "--section SpeedOfLight --section Occupancy -o");
	assert_null(strstr(s, "--set"));
	assert_null(strstr(s, "MemoryWorkloadAnalysis"));
	free(s);
	config_free(cfg);
}

static void test_explicit(void **state)
{
	static const char *const ov1[] = {"pipeline.ncu.ncu_cli.kernel_name=regex:gemm"};
	static const char *const ov2[] = {"pipeline.ncu.ncu_cli.replay_mode=range",
					  "pipeline.ncu.ncu_cli.nvtx.include=[LLM@decode_all/]"};
	static const char *const ov3[] = {"pipeline.ncu.ncu_cli.launch_count=3"};
	struct ncu_options o = NCU_OPTIONS_INIT;
	struct config *cfg = load(1, ov1);
	char *s;

	(void)state;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	assert_true(ncu_options_explicit(&o));
	config_free(cfg);

	cfg = load(2, ov2);
	o = (struct ncu_options)NCU_OPTIONS_INIT;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	assert_true(ncu_options_explicit(&o));
	assert_true(ncu_options_range(&o));
	o.program = prog;
	o.nr_program = 3;
	o.output = "k0";
	s = line(&o);
	assert_contains(s, "--replay-mode range ");
	assert_contains(s, "--nvtx --nvtx-include LLM@decode_all/ ");
	free(s);
	config_free(cfg);

	/* launch_count alone is the per-kernel count, not a filter */
	cfg = load(1, ov3);
	o = (struct ncu_options)NCU_OPTIONS_INIT;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	assert_false(ncu_options_explicit(&o));
	assert_int_equal(o.launch_count, 3);
	config_free(cfg);
}

static void test_describe(void **state)
{
	static const char *const light[] = {"run.mode=light"};
	static const char *const kn[] = {"pipeline.ncu.ncu_cli.kernel_name=regex:gemm"};
	struct ncu_options o = NCU_OPTIONS_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct config *cfg = load(0, NULL);

	(void)state;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	o.ncu = "/opt/ncu";
	o.program = prog;
	o.nr_program = 3;
	assert_int_equal(ncu_plan_describe(&o, RUN_MODE_DEEP, "RUN", &sb, &err), 0);
	assert_contains(sb.buf, "one ncu run over the kernels select picks (until run.coverage, "
				"at most run.top_n_kernels; ncu/selection.json ncu_pass)");
	assert_contains(sb.buf, "-o RUN/ncu/k0 --kernel-name-base demangled --kernel-name "
				"'<regex:^(names of the selected kernels)$>' --launch-skip '<K>' "
				"--launch-count '<C>' --clock-control none");
	assert_contains(sb.buf, "LC_ALL=C /opt/ncu --target-processes all --replay-mode kernel");
	assert_contains(sb.buf, "then: ncu --import <rep> --csv --page raw --print-units base");
	config_free(cfg);

	strbuf_reset(&sb);
	cfg = load(1, light);
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	assert_int_equal(ncu_plan_describe(&o, config_typed(cfg)->run.mode, "RUN", &sb, &err), 0);
	assert_contains(sb.buf, "run.mode=light: at most 5, SpeedOfLight + Occupancy");
	assert_contains(sb.buf, "--section SpeedOfLight --section Occupancy -o");
	config_free(cfg);

	strbuf_reset(&sb);
	cfg = load(1, kn);
	o = (struct ncu_options)NCU_OPTIONS_INIT;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	o.program = prog;
	o.nr_program = 3;
	assert_int_equal(ncu_plan_describe(&o, RUN_MODE_DEEP, "RUN", &sb, &err), 0);
	assert_contains(sb.buf, "one ncu run with the configured filters");
	assert_contains(sb.buf, "-o RUN/ncu/k0 --kernel-name-base demangled --kernel-name "
				"regex:gemm --clock-control");
	config_free(cfg);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_verdicts(void **state)
{
	/* ncu 2024.1's texts */
	static const char perm[] =
	    "==PROF== Connected to process 4242 (/work/llm)\n"
	    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
	    "GPU Performance Counters on the target device 0. For instructions on enabling "
	    "permissions and to get more information see "
	    "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n";
	static const char none[] = "==PROF== Disconnected from process 4242\n"
				   "==WARNING== No kernels were profiled.\n";
	static const char ok[] = "==PROF== Profiling \"add\" - 0: 0%....50%....100% - 9 passes\n";
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_int_equal(ncu_output_diagnose(perm, sizeof(perm) - 1, &why), NCU_RUN_PERM);
	assert_contains(why.buf, "NVreg_RestrictProfilingToAdminUsers=0");
	strbuf_reset(&why);
	assert_int_equal(ncu_output_diagnose(none, sizeof(none) - 1, &why), NCU_RUN_NO_KERNELS);
	strbuf_reset(&why);
	assert_int_equal(ncu_output_diagnose(ok, sizeof(ok) - 1, &why), NCU_RUN_OK);
	assert_int_equal(why.len, 0);
	strbuf_release(&why);
}

static void read_data(const char *name, struct strbuf *sb)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s/tests/data/ncu/%s", src_dir(), name);
	if (strbuf_read_file(sb, p.buf) < 0)
		fail_msg("cannot read %s", p.buf);
	strbuf_release(&p);
}

static void test_merge(void **state)
{
	struct ncu_raw_merge m = NCU_RAW_MERGE_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct csv_reader r;
	size_t rows = 0, id_col = 0, name_col = 0;

	(void)state;
	read_data("h100-dummy-kernel-replay-ncu2025.3.raw.csv", &a);
	read_data("h100-gemm4096-bf16-ncu2025.3.raw.csv", &b);
	assert_int_equal(ncu_raw_merge_add(&m, a.buf, a.len, "a", &err), 14);
	assert_int_equal(ncu_raw_merge_add(&m, b.buf, b.len, "b", &err), 1);
	assert_int_equal(ncu_raw_merge_add(&m, "", 0, "empty", &err), 0);
	/* 568 and 1267 columns, 1322 distinct */
	assert_int_equal(m.ncols, 1322);
	ncu_raw_merge_write(&m, &out);
	csv_reader_init(&r, out.buf, out.len, "merged");
	assert_int_equal(csv_reader_next(&r, &err), 1);
	assert_int_equal(r.nr, 1322);
	for (size_t i = 0; i < r.nr; i++) {
		if (csv_field_eq(&r.fields[i], "ID"))
			id_col = i;
		if (csv_field_eq(&r.fields[i], "Kernel Name"))
			name_col = i;
	}
	assert_int_equal(csv_reader_next(&r, &err), 1); /* units */
	while (csv_reader_next(&r, &err) == 1) {
		struct strbuf v = STRBUF_INIT, want = STRBUF_INIT;

		assert_int_equal(r.nr, 1322);
		csv_field_unescape(&r.fields[id_col], &v);
		strbuf_addf(&want, "%zu", rows);
		assert_string_equal(v.buf, want.buf); /* renumbered */
		strbuf_reset(&v);
		csv_field_unescape(&r.fields[name_col], &v);
		if (rows == 14)
			assert_string_equal(v.buf,
					    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT");
		strbuf_release(&v);
		strbuf_release(&want);
		rows++;
	}
	assert_int_equal(rows, 15);
	csv_reader_release(&r);
	ncu_raw_merge_release(&m);

	/* a unit that changes between runs is an error, naming the column */
	{
		static const char x[] = "\"ID\",\"t\"\n\"\",\"ns\"\n\"0\",\"5\"\n";
		static const char y[] = "\"ID\",\"t\"\n\"\",\"us\"\n\"0\",\"5\"\n";

		assert_int_equal(ncu_raw_merge_add(&m, x, sizeof(x) - 1, "x", &err), 1);
		assert_int_equal(ncu_raw_merge_add(&m, y, sizeof(y) - 1, "y", &err), -1);
	}
	assert_contains(err.buf, "y: column 't' is in 'us' here but in 'ns'");
	strbuf_reset(&err);
	assert_int_equal(ncu_raw_merge_add(&m, "\"ID\",\"t\"\n", 9, "z", &err), -1);
	assert_contains(err.buf, "z: no units row");
	ncu_raw_merge_release(&m);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_nvtx_check(void **state)
{
	static const struct ncu_seen_range seen[] = {
	    {"LLM", "decode_all", 0}, {"LLM", "prefill", 0}, {NULL, "step", 1}};
	static const char *const ok[] = {"LLM@decode_all", "step", "LLM@prefill/"};
	static const char *const bad[] = {"decode_all"};
	struct strbuf err = STRBUF_INIT;
	char **x = NULL;

	(void)state;
	assert_int_equal(ncu_nvtx_check(ok, 3, seen, 3, &x, &err), 0);
	assert_string_equal(x[0], "LLM@decode_all/"); /* push/pop: trailing '/' */
	assert_string_equal(x[1], "step");	      /* start/end: none */
	assert_string_equal(x[2], "LLM@prefill/");
	ncu_nvtx_exprs_free(x, 3);
	/* the range exists, but in domain LLM, not the default domain */
	assert_int_equal(ncu_nvtx_check(bad, 1, seen, 3, &x, &err), -1);
	assert_null(x);
	assert_contains(err.buf, "pipeline.ncu.ncu_cli.nvtx.include matches no range of the trace");
	assert_contains(err.buf, "LLM@decode_all/");
	strbuf_release(&err);
}

/* What the ncu step says ncu spent its time on: one pass count or a span,
 * the split only for captures followed live. */
static void test_time_say(void **state)
{
	struct ncu_time t = {.results = 24,
			     .passes = 24 * 38,
			     .passes_min = 38,
			     .passes_max = 38,
			     .timed = 1,
			     .before_s = 6.14,
			     .profiling_s = 52.08,
			     .after_s = 5.2,
			     .wall_s = 63.42};
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	(void)state;
	ncu_time_say(&t, &sb);
	assert_string_equal(sb.buf,
			    "24 results x 38 replay passes (912 in all): 6.1 s before the "
			    "first, 52.1 s profiling (2.17 s a result), 5.2 s after the last");
	t.passes_min = 9;
	t.timed = 0;
	strbuf_reset(&sb);
	ncu_time_say(&t, &sb);
	assert_string_equal(sb.buf, "24 results x 9-38 replay passes (912 in all)");
	j = ncu_time_json(&t);
	assert_int_equal(json_integer_value(json_object_get(j, "replay_passes")), 912);
	assert_null(json_object_get(j, "profiling_s"));
	json_decref(j);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_per_kernel),
	    cmocka_unit_test(test_explicit),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_verdicts),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_nvtx_check),
	    cmocka_unit_test(test_time_say),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
