/* test-nsys.c: nsys argv builders (every pipeline.nsys.* key), validation,
 * NVTX capture expressions, version parsing, importer search, report lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "config/config.h"
#include "nsight/nsys.h"
#include "nsight/nsys_config.h"

static const char *const prog[] = {"./llm", "--tokens", "8"};

static void opts_init(struct nsys_options *o)
{
	memset(o, 0, sizeof(*o));
	o->nsys = "/opt/nsys";
	o->output_base = "run/nsys/run";
	o->target_argv = prog;
	o->target_argc = 3;
}

/* Builds and joins; returns the joined command (static buffer) or the error. */
static char joined[4096];
static int build(const struct nsys_options *o)
{
	struct nsys_args a = NSYS_ARGS_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int ret = nsys_build_profile(o, &a, &err);

	if (ret == 0) {
		nsys_args_join(&a, &sb);
		assert_null(a.v[a.nr]);
	}
	snprintf(joined, sizeof(joined), "%s", ret ? err.buf : sb.buf);
	nsys_args_release(&a);
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

static void test_defaults(void **state)
{
	struct nsys_options o;

	opts_init(&o);
	assert_int_equal(build(&o), 0);
	assert_string_equal(
	    joined, "/opt/nsys profile --trace=cuda,nvtx,osrt --sample=none "
		    "--cuda-graph-trace=node --wait=primary -o run/nsys/run --force-overwrite true "
		    "./llm --tokens 8");
}

static void test_trace_and_sample(void **state)
{
	struct nsys_options o;

	opts_init(&o);
	o.trace = "cuda,nvtx";
	o.sample = "process-tree";
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--trace=cuda,nvtx --sample=process-tree "));
	/* no cuda traced: --cuda-graph-trace is meaningless and left out */
	o.trace = "nvtx,osrt";
	o.sample = "none";
	assert_int_equal(build(&o), 0);
	assert_null(strstr(joined, "--cuda-graph-trace"));
	o.trace = "cuda, nvtx";
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "pipeline.nsys.trace: unknown API ' nvtx'"));
	o.trace = "";
	assert_int_equal(build(&o), -1);
	o.trace = "cuda";
	o.sample = "sometimes";
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "pipeline.nsys.sample: 'sometimes' is not one of"));
}

static void test_gating_nvtx(void **state)
{
	struct nsys_options o;

	opts_init(&o);
	o.capture_range = "nvtx";
	o.nvtx_capture = "LLM@decode_all";
	/* gating off: capture everything, nvtx_capture is an error to flag */
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "needs pipeline.nsys.capture_range=nvtx and "
				       "pipeline.nsys.gating_nvtx=true"));
	o.gating_nvtx = 1;
	assert_int_equal(build(&o), 0);
	assert_string_equal(
	    joined, "/opt/nsys profile --trace=cuda,nvtx,osrt --sample=none "
		    "--capture-range=nvtx --capture-range-end=stop "
		    "--nvtx-capture=decode_all@LLM "
		    "--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 "
		    "--cuda-graph-trace=node --wait=primary -o run/nsys/run --force-overwrite true "
		    "./llm --tokens 8");
	o.capture_range_end = "repeat:4";
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--capture-range-end=repeat:4 "));
	o.nvtx_capture = NULL;
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "needs pipeline.nsys.nvtx_capture"));
	o.nvtx_capture = "prefill";
	o.trace = "cuda,osrt";
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "needs nvtx in pipeline.nsys.trace"));
}

static void test_gating_cuda_profiler_api(void **state)
{
	struct nsys_options o;

	opts_init(&o);
	o.gating_nvtx = 1;
	o.capture_range = "cudaProfilerApi";
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--capture-range=cudaProfilerApi --capture-range-end=stop "
				       "--cuda-graph-trace"));
	assert_null(strstr(joined, "REGISTER_ONLY"));
	assert_null(strstr(joined, "--nvtx-capture"));
	o.capture_range = "hotkey";
	assert_int_equal(build(&o), -1);
	o.capture_range = "range"; /* the seed's invalid value */
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "'range' is not one of none|nvtx|cudaProfilerApi|hotkey"));
	o.capture_range = "none";
	o.capture_range_end = "stop";
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "applies only with a capture range"));
}

static void test_capture_range_end_grammar(void **state)
{
	static const char *const good[] = {"none",     "stop",	    "stop-shutdown",	"repeat",
					   "repeat:1", "repeat:12", "repeat-shutdown:3"};
	static const char *const bad[] = {
	    "",		 "Stop",      "repeat:",	 "repeat:0",
	    "repeat:-1", "repeat:x",  "repeat-shutdown", "repeat-shutdown:0",
	    "stop:2",	 "repeat:1:2"};
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_int_equal(nsys_capture_range_end_check(good[i], &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		strbuf_reset(&err);
		assert_int_equal(nsys_capture_range_end_check(bad[i], &err), -1);
		assert_non_null(strstr(err.buf, "pipeline.nsys.capture_range_end"));
	}
	strbuf_release(&err);
}

static void test_cuda_graph_trace_and_extra(void **state)
{
	struct nsys_options o;
	static const char *const extra[] = {"--cuda-memory-usage=true", "--delay=2"};
	const char *extra2[] = {"--cuda-memory-usage=true", NULL};

	opts_init(&o);
	o.cuda_graph_trace = "graph";
	o.extra_args = extra;
	o.n_extra = 2;
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--cuda-graph-trace=graph --wait=primary "
				       "--cuda-memory-usage=true --delay=2 -o run/nsys/run"));
	/* the program's leftovers do not hold the run: --wait=primary, unless
	 * extra_args chooses */
	extra2[1] = "--wait=all";
	o.extra_args = extra2;
	assert_int_equal(build(&o), 0);
	assert_null(strstr(joined, "--wait=primary"));
	assert_non_null(strstr(joined, "--cuda-memory-usage=true --wait=all -o"));
	extra2[1] = "--waitx";
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--wait=primary --cuda-memory-usage=true --waitx -o"));
	o.cuda_graph_trace = "nodes";
	assert_int_equal(build(&o), -1);
}

static void test_output_split(void **state)
{
	struct nsys_options o;

	opts_init(&o);
	o.split = NSYS_SPLIT_PID;
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "-o run/nsys/run.%p --force-overwrite true"));
	o.split = NSYS_SPLIT_RANK;
	assert_int_equal(build(&o), -1);
	o.rank_env = "OMPI_COMM_WORLD_RANK";
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "-o 'run/nsys/run.%q{OMPI_COMM_WORLD_RANK}' --force"));
}

static void test_program_checks(void **state)
{
	struct nsys_options o;
	static const char *const dash[] = {"-weird"};
	static const char *const spaced[] = {"./my prog", "it's"};

	opts_init(&o);
	o.target_argc = 0;
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "no program to profile"));
	o.target_argv = dash;
	o.target_argc = 1;
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "starts with '-'"));
	o.target_argv = spaced;
	o.target_argc = 2;
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "true './my prog' 'it'\\''s'"));
	o.output_base = NULL;
	assert_int_equal(build(&o), -1);
}

static int expr(const char *name, const struct nsys_nvtx_range *k, size_t n, char *out,
		size_t outlen)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int ret = nsys_nvtx_capture_expr(name, k, n, &sb, &err);

	snprintf(out, outlen, "%s", ret ? err.buf : sb.buf);
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

static void test_nvtx_expr_syntactic(void **state)
{
	char b[512];

	assert_int_equal(expr("decode", NULL, 0, b, sizeof(b)), 0);
	assert_string_equal(b, "decode");
	assert_int_equal(expr("LLM@decode_all", NULL, 0, b, sizeof(b)), 0);
	assert_string_equal(b, "decode_all@LLM");
	assert_int_equal(expr("decode@*", NULL, 0, b, sizeof(b)), 0);
	assert_string_equal(b, "decode@*");
	assert_int_equal(expr("a@b@*", NULL, 0, b, sizeof(b)), 0);
	assert_string_equal(b, "a\\@b@*");
	/* domain@range where the range itself has an '@' */
	assert_int_equal(expr("D@x@y", NULL, 0, b, sizeof(b)), 0);
	assert_string_equal(b, "x\\@y@D");
	assert_int_equal(expr("@x", NULL, 0, b, sizeof(b)), -1);
	assert_int_equal(expr("x@", NULL, 0, b, sizeof(b)), -1);
	assert_int_equal(expr("", NULL, 0, b, sizeof(b)), -1);
}

static void test_nvtx_expr_resolved(void **state)
{
	/* what the built-in LLM and a PyTorch program of the original system emit */
	static const struct nsys_nvtx_range known[] = {
	    {"LLM", "prefill"}, {"LLM", "decode_all"}, {"LLM", "decode_step"},
	    {NULL, "A"},	{"", "LLM@prefill"},   {"TensorRT", "A"},
	};
	char b[512];

	assert_int_equal(expr("decode_all", known, 6, b, sizeof(b)), 0);
	assert_string_equal(b, "decode_all@LLM");
	assert_int_equal(expr("LLM@decode_all", known, 6, b, sizeof(b)), 0);
	assert_string_equal(b, "decode_all@LLM");
	/* a default-domain range literally named "LLM@prefill" wins, escaped */
	assert_int_equal(expr("LLM@prefill", known, 6, b, sizeof(b)), 0);
	assert_string_equal(b, "LLM\\@prefill");
	/* A: default domain and TensorRT -> ambiguous, say which */
	assert_int_equal(expr("A", known, 6, b, sizeof(b)), 0); /* exact default-domain match */
	assert_string_equal(b, "A");
	assert_int_equal(expr("TensorRT@A", known, 6, b, sizeof(b)), 0);
	assert_string_equal(b, "A@TensorRT");
	assert_int_equal(expr("decode", known, 6, b, sizeof(b)), -1);
	assert_non_null(strstr(b, "emits no NVTX range 'decode' (it emits: LLM@prefill, "
				  "LLM@decode_all, LLM@decode_step, A,"));
}

static void test_nvtx_expr_ambiguous(void **state)
{
	static const struct nsys_nvtx_range known[] = {
	    {"LLM", "step"},
	    {"Other", "step"},
	    {"LLM", "step"},
	};
	char b[512];

	assert_int_equal(expr("step", known, 3, b, sizeof(b)), -1);
	assert_non_null(strstr(b, "exists in 2 domains"));
	assert_non_null(strstr(b, "LLM@step"));
	assert_non_null(strstr(b, "Other@step"));
	assert_int_equal(expr("Other@step", known, 3, b, sizeof(b)), 0);
	assert_string_equal(b, "step@Other");
}

static void test_gating_uses_known_ranges(void **state)
{
	static const struct nsys_nvtx_range known[] = {{"LLM", "decode_all"}};
	struct nsys_options o;

	opts_init(&o);
	o.gating_nvtx = 1;
	o.capture_range = "nvtx";
	o.nvtx_capture = "decode_all";
	o.known_ranges = known;
	o.n_known = 1;
	assert_int_equal(build(&o), 0);
	assert_non_null(strstr(joined, "--nvtx-capture=decode_all@LLM "));
	o.nvtx_capture = "prefill";
	assert_int_equal(build(&o), -1);
	assert_non_null(strstr(joined, "emits no NVTX range 'prefill'"));
}

static void test_export_and_stats_argv(void **state)
{
	struct nsys_args a = NSYS_ARGS_INIT;
	struct strbuf sb = STRBUF_INIT;

	nsys_build_export("nsys", "r/nsys/run.nsys-rep", "r/nsys/run.sqlite", 0, &a);
	nsys_args_join(&a, &sb);
	assert_string_equal(sb.buf, "nsys export --type sqlite --force-overwrite true --quiet true "
				    "-o r/nsys/run.sqlite r/nsys/run.nsys-rep");
	nsys_args_release(&a);
	strbuf_reset(&sb);
	nsys_build_export("nsys", "r/nsys/run.nsys-rep", "r/nsys/run.sqlite", 1, &a);
	nsys_args_join(&a, &sb);
	assert_string_equal(sb.buf,
			    "nsys export --type sqlite --include-blobs true --force-overwrite "
			    "true --quiet true -o r/nsys/run.sqlite r/nsys/run.nsys-rep");
	nsys_args_release(&a);
	strbuf_reset(&sb);
	nsys_build_stats("nsys", "r/nsys/run.sqlite", "r/nsys/summary", &a);
	nsys_args_join(&a, &sb);
	assert_string_equal(sb.buf, "nsys stats -r cuda_gpu_kern_sum -f csv --force-overwrite true "
				    "-o r/nsys/summary r/nsys/run.sqlite");
	nsys_args_release(&a);
	/* nsys/cmd.txt: quoted, odd bytes kept as they are */
	strbuf_reset(&sb);
	nsys_args_push(&a, "prompt=caf\xc3\xa9");
	nsys_args_push(&a, "it's\n");
	nsys_args_push(&a, "");
	nsys_args_join(&a, &sb);
	assert_string_equal(sb.buf, "'prompt=caf\xc3\xa9' 'it'\\''s\n' ''");
	nsys_args_release(&a);
	strbuf_release(&sb);
}

static void test_version_parse(void **state)
{
	static const char v2023[] = "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0\n";
	static const char v2025[] = "NVIDIA Nsight Systems version 2025.3.1.90-253135822126v0";
	struct strbuf sb = STRBUF_INIT;
	int ma = 0, mi = 0;

	assert_int_equal(nsys_version_parse(v2023, strlen(v2023), &sb, &ma, &mi), 0);
	assert_string_equal(sb.buf, "2023.4.4.54-234433681190v0");
	assert_int_equal(ma, 2023);
	assert_int_equal(mi, 4);
	strbuf_reset(&sb);
	assert_int_equal(nsys_version_parse(v2025, strlen(v2025), &sb, &ma, &mi), 0);
	assert_int_equal(ma, 2025);
	assert_int_equal(mi, 3);
	strbuf_reset(&sb);
	assert_int_equal(nsys_version_parse("version 12", 10, &sb, &ma, &mi), -1);
	assert_int_equal(nsys_version_parse("", 0, &sb, &ma, &mi), -1);
	/* truncated input: no read past len */
	assert_int_equal(nsys_version_parse(v2023, 30, &sb, &ma, &mi), -1);
	strbuf_release(&sb);
}

static void test_loader_failure(void **state)
{
	struct strbuf data = STRBUF_INIT, lib = STRBUF_INIT, path = STRBUF_INIT;
	static const char h100[] = "/opt/nvidia/nsight-compute/2025.3.1/host/linux-desktop-"
				   "glibc_2_11_3-x64/QdstrmImporter: error while loading shared "
				   "libraries: libdw.so.1: cannot open shared object file: No such "
				   "file or directory\n";

	/* real: the 2024.1.1 importer without libssh.so (tests/data/nsys) */
	strbuf_addf(&path, "%s/tests/data/nsys/importer-version-nolib.txt", LLMPROF_SOURCE_DIR);
	assert_int_equal(strbuf_read_file(&data, path.buf), 0);
	assert_int_equal(nsys_importer_loader_failure(data.buf, data.len, &lib), 1);
	assert_string_equal(lib.buf, "libssh.so");
	strbuf_reset(&lib);
	assert_int_equal(nsys_importer_loader_failure(h100, strlen(h100), &lib), 1);
	assert_string_equal(lib.buf, "libdw.so.1");
	strbuf_reset(&lib);
	assert_int_equal(nsys_importer_loader_failure("QdstrmImporter allowed options:", 30, &lib),
			 0);
	/* the loader's list (LD_TRACE_LOADED_OBJECTS=1, ldd's format) */
	{
		static const char trace[] =
		    "\tlinux-vdso.so.1 (0x00007ffd5a9e6000)\n"
		    "\tlibdw.so.1 => not found\n"
		    "\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f3c)\n"
		    "\tlibelf.so.1 => not found\n"
		    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3b)\n";

		strbuf_reset(&lib);
		assert_int_equal(nsys_loader_not_found(trace, strlen(trace), &lib), 2);
		assert_string_equal(lib.buf, "libdw.so.1, libelf.so.1");
		strbuf_reset(&lib);
		assert_int_equal(nsys_loader_not_found("\tlibc.so.6 => /lib/libc.so.6\n", 29, &lib),
				 0);
		assert_int_equal(nsys_loader_not_found(" => not found", 13, &lib), 0);
		assert_string_equal(lib.buf, "");
	}
	strbuf_release(&data);
	strbuf_release(&lib);
	strbuf_release(&path);
}

static void touch(const char *dir, const char *name)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;

	path_join(&p, dir, name);
	assert_int_equal(write_file_atomic(p.buf, "x", 1, &err), 0);
	strbuf_release(&p);
	strbuf_release(&err);
}

static void test_find_importer_and_reports(void **state)
{
	char tmpl[] = "/tmp/llmprof-nsys-XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct nsys_args reps = NSYS_ARGS_INIT;
	char *imp;

	assert_non_null(dir);
	/* the H100 layout: host/target-linux-x64/nsys + host/linux-desktop-.../QdstrmImporter */
	strbuf_addf(&sb, "%s/host/target-linux-x64", dir);
	assert_int_equal(mkdir_p(sb.buf, &err), 0);
	touch(sb.buf, "nsys");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/host/target-linux-x64/nsys", dir);
	assert_null(nsys_find_importer(sb.buf));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/host/linux-desktop-glibc_2_11_3-x64", dir);
	assert_int_equal(mkdir_p(sb.buf, &err), 0);
	touch(sb.buf, "QdstrmImporter");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/host/target-linux-x64/nsys", dir);
	imp = nsys_find_importer(sb.buf);
	assert_non_null(imp);
	assert_non_null(strstr(imp, "/host/target-linux-x64/../linux-desktop-glibc_2_11_3-x64/"
				    "QdstrmImporter"));
	free(imp);

	/* reports: run.nsys-rep, repeat:N numbering, %p; not runner.nsys-rep */
	touch(dir, "run.2.nsys-rep");
	touch(dir, "run.1.nsys-rep");
	touch(dir, "run.nsys-rep");
	touch(dir, "runner.nsys-rep");
	touch(dir, "run.qdstrm");
	assert_int_equal(nsys_list_reports(dir, "run", &reps), 3);
	assert_non_null(strstr(reps.v[0], "/run.1.nsys-rep"));
	assert_non_null(strstr(reps.v[1], "/run.2.nsys-rep"));
	assert_non_null(strstr(reps.v[2], "/run.nsys-rep"));
	assert_int_equal(nsys_list_reports("/nonexistent-llmprof", "run", &reps), 0);
	nsys_args_release(&reps);

	strbuf_reset(&sb);
	strbuf_addf(&sb, "rm -rf '%s'", dir);
	assert_int_equal(system(sb.buf), 0);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* From conf/ with overrides to the built argv: every pipeline.nsys.* key. */
static int from_config(const char *const *ov, size_t n)
{
	struct config *cfg = NULL;
	struct strbuf err = STRBUF_INIT;
	struct nsys_options o;
	const char **extra = NULL;
	int ret;

	if (config_load(&cfg, LLMPROF_SOURCE_DIR "/conf", n, ov, &err))
		fail_msg("config: %s", err.buf);
	ret = nsys_options_from_config(cfg, &o, &extra, &err);
	if (ret == 0) {
		o.output_base = "r/nsys/run";
		o.target_argv = prog;
		o.target_argc = 3;
		if (!o.nsys)
			o.nsys = "nsys";
		ret = build(&o);
	} else {
		snprintf(joined, sizeof(joined), "%s", err.buf);
	}
	free(extra);
	config_free(cfg);
	strbuf_release(&err);
	return ret;
}

static void test_from_config(void **state)
{
	static const char *const gated[] = {
	    "pipeline.nsys.path=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys",
	    "pipeline.nsys.trace=cuda,nvtx",
	    "pipeline.nsys.sample=process-tree",
	    "pipeline.nsys.capture_range=nvtx",
	    "pipeline.nsys.capture_range_end=repeat:2",
	    "pipeline.nsys.nvtx_capture=LLM@decode_all",
	    "pipeline.nsys.gating_nvtx=true",
	    "pipeline.nsys.cuda_graph_trace=graph",
	    "pipeline.nsys.extra_args=[--delay=1,-w,true]",
	};
	static const char *const bad_end[] = {
	    "pipeline.nsys.capture_range=nvtx", "pipeline.nsys.gating_nvtx=true",
	    "pipeline.nsys.nvtx_capture=prefill", "pipeline.nsys.capture_range_end=repeat:0"};
	static const char *const no_gate[] = {"pipeline.nsys.nvtx_capture=prefill"};

	assert_int_equal(from_config(NULL, 0), 0);
	assert_string_equal(joined, "nsys profile --trace=cuda,nvtx,osrt --sample=none "
				    "--cuda-graph-trace=node --wait=primary -o r/nsys/run "
				    "--force-overwrite true "
				    "./llm --tokens 8");
	assert_int_equal(from_config(gated, sizeof(gated) / sizeof(*gated)), 0);
	assert_string_equal(
	    joined, "/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/"
		    "nsys profile --trace=cuda,nvtx --sample=process-tree "
		    "--capture-range=nvtx --capture-range-end=repeat:2 "
		    "--nvtx-capture=decode_all@LLM "
		    "--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 "
		    "--cuda-graph-trace=graph --wait=primary --delay=1 -w true -o r/nsys/run "
		    "--force-overwrite true ./llm --tokens 8");
	assert_int_equal(from_config(bad_end, 4), -1);
	assert_non_null(strstr(joined, "pipeline.nsys.capture_range_end: 'repeat:0'"));
	assert_int_equal(from_config(no_gate, 1), -1);
	assert_non_null(strstr(joined, "pipeline.nsys.nvtx_capture='prefill' needs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_trace_and_sample),
	    cmocka_unit_test(test_gating_nvtx),
	    cmocka_unit_test(test_gating_cuda_profiler_api),
	    cmocka_unit_test(test_capture_range_end_grammar),
	    cmocka_unit_test(test_cuda_graph_trace_and_extra),
	    cmocka_unit_test(test_output_split),
	    cmocka_unit_test(test_program_checks),
	    cmocka_unit_test(test_nvtx_expr_syntactic),
	    cmocka_unit_test(test_nvtx_expr_resolved),
	    cmocka_unit_test(test_nvtx_expr_ambiguous),
	    cmocka_unit_test(test_gating_uses_known_ranges),
	    cmocka_unit_test(test_export_and_stats_argv),
	    cmocka_unit_test(test_version_parse),
	    cmocka_unit_test(test_loader_failure),
	    cmocka_unit_test(test_find_importer_and_reports),
	    cmocka_unit_test(test_from_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
