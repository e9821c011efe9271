/* test-plan.c: the profile plan (pure), inputs.yaml, env.json's pieces
 * that need no machine state, and the GPU probe on a machine without NVML
 * or nvidia-smi. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "core/util.h"
#include "nsight/gpu.h"
#include "pipeline/plan.h"
#include "pipeline/provenance.h"
#include "core/version.h"
#include "nsight/tools.h"

#define W 2 /* index of the workload step: config, provenance, workload, ... */

static void test_command_plan(void **state)
{
	const char *prog[] = {"/usr/bin/printf", "%s|", "a b", "$(id)", "q\"t", NULL};
	struct plan_params pp = {.run_dir = "/r/20261121-151102-a3f9",
				 .workload_kind = WORKLOAD_KIND_COMMAND,
				 .program_argv = prog,
				 .ncu_enable = 1,
				 .trace_reason = "pipeline.trace.enable=false"};
	const char *names[] = {"config", "provenance", "workload", "analyze",
			       "select", "ncu",	       "join",	   "reports"};
	struct plan p;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	assert_int_equal(p.nr, 8);
	for (size_t i = 0; i < p.nr; i++)
		assert_string_equal(p.steps[i].name, names[i]);
	assert_int_equal(p.steps[W].kind, STEP_KIND_WORKLOAD);
	assert_int_equal(p.steps[0].kind, STEP_KIND_INTERNAL);
	for (int i = 0; prog[i]; i++)
		assert_string_equal(p.steps[W].argv[i], prog[i]);
	assert_null(p.steps[W].argv[5]);
	assert_string_equal(p.steps[W].env_add[0], "LLMPROF_RUN_DIR=/r/20261121-151102-a3f9");
	assert_null(p.steps[W].env_add[1]);
	assert_string_equal(p.steps[W].out_log, "logs/workload.out");
	assert_string_equal(p.steps[W].err_log, "logs/workload.err");
	assert_null(p.steps[W].skip_reason);
	/* no trace: analyze and the counter steps are planned as skipped, with why */
	assert_string_equal(plan_find(&p, "analyze")->skip_reason,
			    "no timeline trace: pipeline.trace.enable=false");
	assert_string_equal(plan_find(&p, "ncu")->skip_reason,
			    "no timeline trace to select kernels from");
	assert_null(plan_find(&p, "reports")->skip_reason);
	assert_true(plan_find(&p, "reports")->after_failure);
	assert_false(plan_find(&p, "select")->after_failure);
	assert_null(plan_find(&p, "trace"));
	assert_int_equal(plan_check_programs(&p, NULL), 0);

	plan_format(&p, &sb);
	assert_non_null(strstr(sb.buf, "step 3: workload\n"
				       "  argv: /usr/bin/printf '%s|' 'a b' '$(id)' 'q\"t'\n"
				       "  env: LLMPROF_RUN_DIR=/r/20261121-151102-a3f9\n"
				       "  logs: logs/workload.out logs/workload.err\n"
				       "step 4: analyze (in llmprof)\n"));
	assert_non_null(
	    strstr(sb.buf, "  skipped: no timeline trace: pipeline.trace.enable=false\n"));
	strbuf_reset(&sb);
	provenance_inputs_yaml(&p.inputs, &sb);
	assert_non_null(strstr(sb.buf,
			       "workload:\n  kind: \"command\"\n  program: \"/usr/bin/printf\"\n"
			       "  argv:\n    - \"/usr/bin/printf\"\n    - \"%s|\"\n    - \"a b\"\n"
			       "    - \"$(id)\"\n    - \"q\\\"t\"\n"));
	assert_null(strstr(sb.buf, "infer:"));
	plan_release(&p);
	strbuf_release(&sb);
}

static void test_builtin_plan(void **state)
{
	struct plan_params pp = {.run_dir = "/r",
				 .workload_kind = WORKLOAD_KIND_LLM,
				 .workloads_dir = "/nonexistent/wl",
				 .device = "cpu",
				 .model = {.name = "tiny",
					   .hidden_size = 64,
					   .num_layers = 2,
					   .rope_theta = 500000,
					   .qkv_bias = 0,
					   .tie_word_embeddings = 1,
					   .seed = 1234},
				 .infer = {.prompt_len = 128,
					   .max_new_tokens = 32,
					   .batch_size = 2,
					   .dtype = INFER_DTYPE_BF16,
					   .cuda_graph = 1},
				 .warmup = 1,
				 .ncu_enable = 1};
	const char *want[] = {"/nonexistent/wl/llmprof-llm",
			      "--device",
			      "cpu",
			      "--model-name",
			      "tiny",
			      "--hidden",
			      "64",
			      "--layers",
			      "2",
			      "--rope-theta",
			      "500000",
			      "--qkv-bias",
			      "0",
			      "--tie-embeddings",
			      "1",
			      "--seed",
			      "1234",
			      "--dtype",
			      "bf16",
			      "--batch",
			      "2",
			      "--prompt-len",
			      "128",
			      "--new-tokens",
			      "32",
			      "--cuda-graph",
			      "1",
			      "--warmup",
			      "1",
			      "--analytic-out",
			      "/r/workload/analytic.json",
			      NULL};
	const char *tenv[] = {"CUDA_INJECTION64_PATH=/t/libllmprof_tracer.so", NULL};
	struct plan p;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	size_t i;

	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	for (i = 0; want[i]; i++)
		assert_string_equal(p.steps[W].argv[i], want[i]);
	assert_null(p.steps[W].argv[i]);
	assert_int_equal(plan_check_programs(&p, &err), -1);
	assert_non_null(
	    strstr(err.buf, "built-in workload '/nonexistent/wl/llmprof-llm' not found"));
	provenance_inputs_yaml(&p.inputs, &sb);
	assert_non_null(strstr(sb.buf, "  kind: \"llm\"\n"));
	assert_non_null(strstr(sb.buf, "device: \"cpu\"\nmodel:\n  name: \"tiny\"\n"
				       "infer:\n  prompt_len: 128\n  max_new_tokens: 32\n"
				       "  batch_size: 2\n  dtype: \"bf16\"\n  cuda_graph: true\n"
				       "  warmup: 1\n  seed: 1234\n"));
	plan_release(&p);

	/* builtin backend: the tracer's environment, then the trace step */
	pp.trace = PLAN_TRACE_BUILTIN;
	pp.workload_env = tenv;
	pp.mode = RUN_MODE_LIGHT;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	assert_string_equal(p.steps[W].env_add[1], tenv[0]);
	assert_string_equal(p.steps[W + 1].name, "trace");
	assert_true(p.steps[W + 1].after_failure);
	assert_null(plan_find(&p, "ncu")->skip_reason);
	assert_non_null(strstr(plan_find(&p, "ncu")->what, "one ncu run per selected kernel"));
	assert_null(plan_find(&p, "select")->skip_reason);
	assert_null(plan_find(&p, "join")->skip_reason);
	assert_non_null(strstr(plan_find(&p, "select")->what, "run.mode=light"));
	plan_release(&p);
	pp.ncu_enable = 0;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	assert_string_equal(plan_find(&p, "join")->skip_reason, "pipeline.ncu.enable=false");
	plan_release(&p);
	pp.trace = PLAN_TRACE_OFF;

	/* the typed values reach the argv and inputs.yaml as the words the
	 * user writes (config/enums.c) */
	pp.infer.dtype = INFER_DTYPE_FP16;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	assert_string_equal(p.steps[W].argv[18], "fp16");
	strbuf_reset(&sb);
	provenance_inputs_yaml(&p.inputs, &sb);
	assert_non_null(strstr(sb.buf, "  dtype: \"fp16\"\n"));
	plan_release(&p);

	pp.workload_kind = WORKLOAD_KIND_DUMMY;
	pp.infer.cuda_graph = 0;
	assert_int_equal(plan_build(&p, &pp, NULL), 0);
	assert_string_equal(p.steps[W].argv[0], "/nonexistent/wl/llmprof-dummy");
	assert_string_equal(p.steps[W].argv[7], "--seed");
	assert_string_equal(p.steps[W].argv[8], "1234");
	assert_null(p.steps[W].argv[9]);
	strbuf_reset(&sb);
	provenance_inputs_yaml(&p.inputs, &sb);
	assert_non_null(strstr(sb.buf, "  kind: \"dummy\"\n"));
	plan_release(&p);

	strbuf_reset(&err);
	pp.workload_kind = WORKLOAD_KIND_COMMAND;
	assert_int_equal(plan_build(&p, &pp, &err), -1);
	assert_non_null(strstr(err.buf, "needs a program"));
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* nsys backend: nsys profile wraps the program (with the NVTX gate in nsys's
 * range@domain syntax), then export and stats with the bundle's names. */
/* pipeline.trace.reference_run_max_s: the reference step follows the
 * workload, runs the program's own argv with nothing added, and is
 * optional; 0, no trace or nsys (whose start-up and report writing would
 * count as the program's) plans none. */
static void test_reference_plan(void **state)
{
	const char *prog[] = {"./app", "--x", NULL};
	const char *const tenv[] = {"NVTX_INJECTION64_PATH=/t.so", NULL};
	const char *const pyenv[] = {"LLMPROF_PYTORCH=modules", NULL};
	struct nsys_options o = {.nsys = "/opt/nsys", .trace = "cuda,nvtx"};
	struct plan_params pp = {.run_dir = "/r",
				 .workload_kind = WORKLOAD_KIND_COMMAND,
				 .program_argv = prog,
				 .nsys = &o,
				 .workload_env = tenv,
				 .pytorch_env = pyenv,
				 .reference_max_s = 12.5,
				 .trace_reason = "test"};
	enum plan_trace traces[] = {PLAN_TRACE_BUILTIN, PLAN_TRACE_NSYS, PLAN_TRACE_OFF};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(traces); i++) {
		struct plan p;
		const struct plan_step *s;
		struct strbuf sb = STRBUF_INIT;

		pp.trace = traces[i];
		assert_int_equal(plan_build(&p, &pp, NULL), 0);
		s = plan_find(&p, "reference");
		if (traces[i] != PLAN_TRACE_BUILTIN) {
			assert_null(s);
			plan_release(&p);
			continue;
		}
		assert_non_null(s);
		assert_string_equal((s - 1)->name, "workload");
		assert_int_equal(s->kind, STEP_KIND_TOOL);
		assert_true(s->optional);
		assert_string_equal(s->argv[0], "./app");
		assert_string_equal(s->argv[1], "--x");
		assert_null(s->argv[2]);
		assert_null(s->env_add[0]);
		assert_string_equal(s->out_log, "logs/reference.out");
		plan_format(&p, &sb);
		assert_non_null(strstr(sb.buf, "step 4: reference (optional)\n  does: the program "
					       "again, untraced, when the traced run took at most "
					       "12.5 s (pipeline.trace.reference_run_max_s)"));
		assert_non_null(strstr(sb.buf, "  argv: ./app --x\n  logs: logs/reference.out"));
		strbuf_release(&sb);
		plan_release(&p);
	}
	pp.trace = PLAN_TRACE_BUILTIN;
	pp.reference_max_s = 0;
	{
		struct plan p;

		assert_int_equal(plan_build(&p, &pp, NULL), 0);
		assert_null(plan_find(&p, "reference"));
		plan_release(&p);
	}
}

static void test_nsys_plan(void **state)
{
	const char *prog[] = {"./app", "--x", NULL};
	struct nsys_options o = {.nsys = "/opt/nsys",
				 .trace = "cuda,nvtx,osrt",
				 .capture_range = "nvtx",
				 .nvtx_capture = "LLM@decode_all",
				 .gating_nvtx = 1};
	struct plan_params pp = {.run_dir = "/r",
				 .workload_kind = WORKLOAD_KIND_COMMAND,
				 .program_argv = prog,
				 .trace = PLAN_TRACE_NSYS,
				 .nsys = &o,
				 .ncu_enable = 1,
				 .trace_reason =
				     "pipeline.trace.backend=auto: nsys can finish a report"};
	const char *names[] = {"config",  "provenance", "workload", "nsys-export", "nsys-stats",
			       "analyze", "select",	"ncu",	    "join",	   "reports"};
	const char *const pyenv[] = {"PYTHONPATH=/lib/llmprof/pytorch", "LLMPROF_PYTORCH=modules",
				     NULL};
	const char *const tenv[] = {"NVTX_INJECTION64_PATH=/t.so", NULL};
	struct plan p;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	size_t n;

	assert_int_equal(plan_build(&p, &pp, &err), 0);
	assert_int_equal(p.nr, ARRAY_SIZE(names));
	for (size_t i = 0; i < p.nr; i++)
		assert_string_equal(p.steps[i].name, names[i]);
	plan_format(&p, &sb);
	assert_non_null(strstr(sb.buf, "  argv: /opt/nsys profile --trace=cuda,nvtx,osrt"));
	assert_non_null(strstr(sb.buf, "--capture-range=nvtx --capture-range-end=stop "
				       "--nvtx-capture=decode_all@LLM "
				       "--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0"));
	assert_non_null(strstr(sb.buf, "-o /r/nsys/run --force-overwrite true ./app --x\n"));
	assert_non_null(strstr(sb.buf,
			       "  argv: /opt/nsys export --type sqlite --force-overwrite "
			       "true --quiet true -o /r/nsys/run.sqlite /r/nsys/run.nsys-rep\n"));
	assert_non_null(strstr(sb.buf,
			       "  argv: /opt/nsys stats -r cuda_gpu_kern_sum -f csv "
			       "--force-overwrite true -o /r/nsys/summary /r/nsys/run.sqlite\n"));
	assert_null(plan_find(&p, "analyze")->skip_reason);
	n = 0;
	while (p.steps[W].argv[n])
		n++;
	assert_string_equal(p.steps[W].argv[n - 2], "./app");
	/* inputs.yaml records the program, not the nsys wrapper */
	assert_string_equal(p.inputs.argv[0], "./app");
	assert_string_equal(p.inputs.argv[1], "--x");
	assert_null(p.inputs.argv[2]);
	/* the PyTorch startup module's variables reach the program under nsys
	 * too (nsys passes its environment on); the tracer's do not */
	assert_string_equal(p.steps[W].env_add[0], "LLMPROF_RUN_DIR=/r");
	assert_null(p.steps[W].env_add[1]);
	plan_release(&p);
	pp.pytorch_env = pyenv;
	pp.workload_env = tenv;
	assert_int_equal(plan_build(&p, &pp, &err), 0);
	assert_string_equal(p.steps[W].env_add[1], pyenv[0]);
	assert_string_equal(p.steps[W].env_add[2], pyenv[1]);
	assert_null(p.steps[W].env_add[3]);
	/* the program is checked by running it; nsys itself must exist */
	assert_int_equal(plan_check_programs(&p, &err), -1);
	assert_non_null(strstr(err.buf, "'/opt/nsys' not found"));
	plan_release(&p);

	/* a bad option is an error before anything runs */
	o.capture_range_end = "repeat:x";
	strbuf_reset(&err);
	assert_int_equal(plan_build(&p, &pp, &err), -1);
	assert_non_null(strstr(err.buf, "capture_range_end"));
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_env_allowlist_and_os_release(void **state)
{
	const char *yes[] = {
	    "PATH",	  "LD_LIBRARY_PATH",	    "CUDA_VISIBLE_DEVICES",
	    "CUDA_HOME",  "NVIDIA_VISIBLE_DEVICES", "NSYS_NVTX_PROFILER_REGISTER_ONLY",
	    "NCCL_DEBUG", "LLMPROF_CONF_DIR",	    "PYTORCH_CUDA_ALLOC_CONF",
	    NULL};
	const char *no[] = {"HOME",
			    "USER",
			    "AWS_SECRET_ACCESS_KEY",
			    "NVIDIA_API_KEY",
			    "CUDA_AUTH_TOKEN",
			    "PATHX",
			    "SSH_AUTH_SOCK",
			    "HF_TOKEN",
			    NULL};
	const char osr[] =
	    "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n";
	char *s;

	for (int i = 0; yes[i]; i++)
		assert_true(provenance_env_allowed(yes[i], strlen(yes[i])));
	for (int i = 0; no[i]; i++)
		assert_false(provenance_env_allowed(no[i], strlen(no[i])));
	s = provenance_parse_os_release(osr, sizeof(osr) - 1);
	assert_string_equal(s, "Debian GNU/Linux 12 (bookworm)");
	free(s);
	assert_null(provenance_parse_os_release("NAME=x\n", 7));
	s = provenance_parse_os_release("PRETTY_NAME=Plain", 17);
	assert_string_equal(s, "Plain");
	free(s);
}

static void test_smi_csv(void **state)
{
	const char csv[] =
	    "0, NVIDIA H100 80GB HBM3, GPU-1b2c3d4e-0000-1111-2222-333344445555, 00000000:19:00.0, "
	    "9.0, 81559, 1980, 2619, 345, 2619, 550.54.15\n"
	    "1, NVIDIA H100 80GB HBM3, GPU-ffff, 00000000:3B:00.0, [N/A], [N/A], 1980, 2619, "
	    "[N/A], [N/A], 550.54.15\n";
	struct gpu_probe p;
	struct strbuf err = STRBUF_INIT, v = STRBUF_INIT;
	json_t *j;

	memset(&p, 0, sizeof(p));
	strbuf_init(&p.note, 0);
	p.source = "nvidia-smi";
	assert_int_equal(gpu_parse_smi_csv(&p, csv, sizeof(csv) - 1, &err), 0);
	assert_int_equal(p.nr, 2);
	assert_string_equal(p.gpus[0].name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(p.gpus[0].cc_major, 9);
	assert_int_equal(p.gpus[0].cc_minor, 0);
	assert_int_equal(p.gpus[0].mem_total, 81559ull * 1024 * 1024);
	assert_int_equal(p.gpus[0].max_sm_clock_mhz, 1980);
	assert_int_equal(p.gpus[0].sm_clock_mhz, 345);
	assert_string_equal(p.driver_version, "550.54.15");
	assert_int_equal(p.gpus[1].cc_major, -1);
	assert_int_equal(p.gpus[1].mem_total, 0);
	assert_string_equal(p.gpus[1].pci_bus_id, "00000000:3B:00.0");
	j = provenance_gpu_json(&p);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0),
					      "compute_capability")),
	    "9.0");
	assert_true(json_is_null(
	    json_object_get(json_array_get(json_object_get(j, "gpus"), 1), "memory_total_bytes")));
	json_decref(j);
	assert_int_equal(gpu_parse_smi_csv(&p, "0, x, y\n", 8, &err), -1);
	assert_string_equal(err.buf, "nvidia-smi output line 1: expected 11 fields");
	gpu_probe_release(&p);
	gpu_format_cuda_version(&v, 12040);
	assert_string_equal(v.buf, "12.4");
	strbuf_release(&err);
	strbuf_release(&v);
}

/* No NVML, no nvidia-smi: no GPUs, and a note that says why. */
static void test_probe_without_gpu(void **state)
{
	struct gpu_probe p;

	setenv("LLMPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	setenv("LLMPROF_NVIDIA_SMI", "/nonexistent/nvidia-smi", 1);
	gpu_probe_run(&p);
	assert_string_equal(p.source, "none");
	assert_int_equal(p.nr, 0);
	assert_non_null(strstr(p.note.buf, "NVML: cannot load /nonexistent/libnvidia-ml.so.1"));
	assert_non_null(strstr(p.note.buf, "nvidia-smi: not found"));
	gpu_probe_release(&p);

	/* an nvidia-smi that fails is reported with its message */
	setenv("LLMPROF_NVIDIA_SMI", "/bin/false", 1);
	gpu_probe_run(&p);
	assert_int_equal(p.nr, 0);
	assert_non_null(strstr(p.note.buf, "nvidia-smi exited with status 1"));
	gpu_probe_release(&p);
	unsetenv("LLMPROF_NVML_LIBRARY");
	unsetenv("LLMPROF_NVIDIA_SMI");
}

static void test_tool_version(void **state)
{
	const char ncu[] = "NVIDIA (R) Nsight Compute Command Line Profiler\n"
			   "Copyright (c) 2018-2024 NVIDIA Corporation\n"
			   "Version 2024.1.1.0 (build 33998838) (public-release)\n";
	const char nsys[] = "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0\n";
	struct tool_info t = TOOL_INFO_INIT;
	char *v;

	v = version_parse(ncu, sizeof(ncu) - 1);
	assert_string_equal(v, "2024.1.1.0 (build 33998838) (public-release)");
	free(v);
	v = version_parse(nsys, sizeof(nsys) - 1);
	assert_string_equal(v, "2023.4.4.54-234433681190v0");
	free(v);
	assert_null(version_parse("hello\n", 6));
	/* the oldest supported: 2023.1 for both */
	assert_int_equal(version_older("2022.4.2.1-abc", 2023, 1), 1);
	assert_int_equal(version_older("2019.1.0 (build 1234)", 2023, 1), 1);
	assert_int_equal(version_older("2023.1.0", 2023, 1), 0);
	assert_int_equal(version_older("2023.10.1", 2023, 2), 0); /* 10 > 2, not "1" */
	assert_int_equal(version_older("2024.1.1.0 (build 33998838)", 2023, 1), 0);
	assert_int_equal(version_older("12.4", 2023, 1), -1);
	assert_int_equal(version_older(NULL, 2023, 1), -1);
	v = tool_too_old("nsys", "2022.4.2.1-abc");
	assert_string_equal(
	    v, "nsys 2022.4.2.1-abc is older than 2023.1, the oldest llmprof supports");
	free(v);
	assert_null(tool_too_old("ncu", "2025.3.1.0 (build 36398880)"));
	assert_null(tool_too_old("ncu", NULL));

	tool_probe(&t, "llmprof-no-such-tool", NULL);
	assert_null(t.path);
	assert_string_equal(t.note.buf, "'llmprof-no-such-tool' not found on PATH");
	tool_info_release(&t);
	tool_probe(&t, "x", "/bin/false");
	assert_string_equal(t.path, "/bin/false");
	assert_null(t.version);
	assert_string_equal(t.note.buf, "'/bin/false --version' exited with status 1");
	tool_info_release(&t);
}

static void test_env_json_shape(void **state)
{
	const char *argv[] = {"llmprof", "profile", "bad\xff", NULL};
	struct provenance_opts o = {.argc = 3, .argv = argv, .ncu_path = "/nonexistent/ncu"};
	struct gpu_probe p;
	json_t *j, *v;
	char *text;

	setenv("LLMPROF_NVML_LIBRARY", "", 1);
	setenv("LLMPROF_NVIDIA_SMI", "", 1);
	setenv("CUDA_VISIBLE_DEVICES", "0", 1);
	setenv("MY_PRIVATE_THING", "x", 1);
	gpu_probe_run(&p);
	o.gpus = &p;
	j = provenance_env_json(&o);
	text = json_dumps(j, 0);
	assert_non_null(text);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "argv"), 2)),
			    "bad\xef\xbf\xbd");
	assert_true(json_integer_value(json_object_get(json_object_get(j, "cpu"), "online_cpus")) >=
		    1);
	assert_true(
	    json_integer_value(json_object_get(json_object_get(j, "memory"), "total_bytes")) > 0);
	assert_true(json_is_string(json_object_get(json_object_get(j, "host"), "kernel")));
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 0);
	v = json_object_get(json_object_get(j, "gpu_probe"), "note");
	assert_non_null(strstr(json_string_value(v), "skipped"));
	v = json_object_get(json_object_get(j, "tools"), "ncu");
	assert_true(json_is_null(json_object_get(v, "path")));
	assert_non_null(strstr(json_string_value(json_object_get(v, "note")), "/nonexistent/ncu"));
	v = json_object_get(j, "environment");
	assert_string_equal(json_string_value(json_object_get(v, "CUDA_VISIBLE_DEVICES")), "0");
	assert_null(json_object_get(v, "MY_PRIVATE_THING"));
	assert_null(json_object_get(v, "HOME"));
	free(text);
	json_decref(j);
	gpu_probe_release(&p);
	unsetenv("LLMPROF_NVML_LIBRARY");
	unsetenv("LLMPROF_NVIDIA_SMI");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_command_plan),
	    cmocka_unit_test(test_builtin_plan),
	    cmocka_unit_test(test_nsys_plan),
	    cmocka_unit_test(test_env_allowlist_and_os_release),
	    cmocka_unit_test(test_smi_csv),
	    cmocka_unit_test(test_probe_without_gpu),
	    cmocka_unit_test(test_tool_version),
	    cmocka_unit_test(test_env_json_shape),
	    cmocka_unit_test(test_reference_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
