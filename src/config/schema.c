/* schema.c: every config key llmprof reads, with its type, default, allowed
 * values, help and the field of struct llmprof_config it fills
 * (config/typed.h), and the one walker that fills defaults, validates and
 * suggests. docs/configuration.md embeds the table (`llmprof config keys
 * --markdown`); tests/cli/test-config.sh fails when they differ, and
 * tests/unit/test-config-typed.c when a row and its field do.
 *
 * Adding a key: add its field to config/typed.h, a row here (and the key to
 * the conf/ file that owns it), then regenerate the docs table. No map is
 * open (CONFIG_OPEN_MAP) today, so a '+key=value' outside the table is an
 * unknown key. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "workloads/llm_shape.h"
#include "core/banned.h"

#define N CONFIG_NULLABLE
#define REQ CONFIG_REQUIRED
#define GE(x) .flags = CONFIG_HAS_MIN, .min = (x)
#define IN(a, b) .flags = CONFIG_HAS_MIN | CONFIG_HAS_MAX, .min = (a), .max = (b)

/* Binding a row to its field of struct llmprof_config: the _Generic has one
 * association, the C type the row's type needs, so a field of another type
 * (or none: a misspelled member) does not compile. */
#define FIELD(m) (((struct llmprof_config *)0)->m)
#define BIND(m, ctype_, c_type)                                                                    \
	.offset = _Generic(FIELD(m), c_type : offsetof(struct llmprof_config, m)), .ctype = (ctype_)
#define STR(m) BIND(m, CONFIG_C_STR, const char *)
#define DEF_NUM(n) DEF_NUM_(n)
#define DEF_NUM_(n) #n
#define INT(m) BIND(m, CONFIG_C_INT, int64_t)
#define INT_OR_NULL(m) BIND(m, CONFIG_C_INT_OR_NULL, const int64_t *)
#define FLOAT(m) BIND(m, CONFIG_C_FLOAT, double)
#define FLOAT_OR_NULL(m) BIND(m, CONFIG_C_FLOAT_OR_NULL, const double *)
#define BOOL(m) BIND(m, CONFIG_C_BOOL, int)
#define LIST(m) BIND(m, CONFIG_C_STRLIST, struct config_strlist)
/* bind.c stores an enum as an int: the array size is -1 if it is not one */
#define ENUM(m, name, nr)                                                                          \
	BIND(m, CONFIG_C_ENUM, enum name),                                                         \
	    .nr_values = (nr) + 0 * sizeof(char[sizeof(FIELD(m)) == sizeof(int) ? 1 : -1])

static const struct config_key schema[] = {
    {"device", CONFIG_STR, 0, "cuda:0", NULL, 0, 0,
     "GPU the workload uses (\"cuda:N\"); \"cpu\" forces the CPU path", STR(device)},
    {"artifacts.root", CONFIG_STR, CONFIG_NONEMPTY | CONFIG_NO_CTRL, "tmp/stage2", NULL, 0, 0,
     "run bundles go to <root>/<run_id>/ (no control characters)", STR(artifacts.root)},
    {"run.mode", CONFIG_ENUM, 0, "deep", run_mode_names, 0, 0,
     "deep: trace, then ncu counters on the kernels covering run.coverage; light: trace, "
     "then ncu's SpeedOfLight and Occupancy on at most 5 kernels",
     ENUM(run.mode, run_mode, RUN_MODE_NR)},
    {"run.top_n_kernels", CONFIG_INT, IN(1, 100000), .def = "100",
     .help = "at most this many kernels get ncu counters (run.coverage decides first)",
     INT(run.top_n_kernels)},
    {"run.coverage", CONFIG_FLOAT, CONFIG_HAS_MIN | CONFIG_HAS_MAX | CONFIG_MIN_EXCLUSIVE, "0.95",
     NULL, 0, 1, "also stop ranking once these kernels cover this fraction of GPU time",
     FLOAT(run.coverage)},
    {"run.same_work_tolerance", CONFIG_FLOAT, IN(0, 1), .def = "0.1",
     .help = "a kernel's launches in another operator, of the same launch configuration and "
	     "within this fraction of the selected class's mean duration, are the same work: one "
	     "ncu result stands for both (0 = a result per operator)",
     FLOAT(run.same_work_tolerance)},
    {"run.report_rows", CONFIG_INT, IN(1, 100000000), .def = DEF_NUM(CONFIG_REPORT_ROWS_DEFAULT),
     .help = "rows of each kernel and operator table of the reports and metrics.json, and "
	     "results of a region's metrics.json, the last one summing the rest (kernels.tsv "
	     "has every kernel)",
     INT(run.report_rows)},
    {"run.timeout_s", CONFIG_FLOAT, IN(0, 1e7), .def = "0",
     .help = "kill the workload after this many seconds (0 = no limit)", FLOAT(run.timeout_s)},
    {"run.stage", CONFIG_ENUM, 0, "decode", run_stage_names, 0, 0,
     "stage whose kernels get counters: prefill, decode (its steps included), decode_step or "
     "all",
     ENUM(run.stage, run_stage, RUN_STAGE_NR)},
    {"run.echo", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "also copy the workload's output to the terminal", BOOL(run.echo)},
    {"pipeline.trace.enable", CONFIG_BOOL, 0, "true", NULL, 0, 0, "record a timeline trace",
     BOOL(pipeline.trace.enable)},
    {"pipeline.trace.backend", CONFIG_ENUM, 0, "auto", trace_backend_names, 0, 0,
     "who records the trace: builtin CUPTI tracer, nsys, or auto (nsys when it can finish "
     "a report, else builtin)",
     ENUM(pipeline.trace.backend, trace_backend, TRACE_BACKEND_NR)},
    {"pipeline.trace.api_calls", CONFIG_ENUM, 0, "launches", trace_api_calls_names, 0, 0,
     "CUDA API calls the builtin tracer records: launches (kernel/graph launches, memcpy, "
     "memset) or all (also cudaMalloc, module loading, synchronisation: where a stage's CPU "
     "time goes)",
     ENUM(pipeline.trace.api_calls, trace_api_calls, TRACE_API_CALLS_NR)},
    {"pipeline.trace.cpu_sample_hz", CONFIG_INT, IN(0, 1000), .def = "0",
     .help = "CPU stack samples per second of CPU time of the threads that launch GPU work, "
	     "builtin tracer only: 0 = off (no timer, no signal), else 10..1000 (where a "
	     "stage's CPU time outside CUDA goes)",
     INT(pipeline.trace.cpu_sample_hz)},
    {"pipeline.trace.reference_run_max_s", CONFIG_FLOAT, IN(0, 1e7), .def = "0",
     .help = "builtin tracer: after a traced run of at most this many seconds, run the "
	     "program again untraced and report the wall-time ratio traced/untraced (0 = never; "
	     "the program runs twice)",
     FLOAT(pipeline.trace.reference_run_max_s)},
    {"pipeline.trace.max_json_events", CONFIG_INT, GE(0), .def = "2000000",
     .help = "cap on events written to the Perfetto trace.json",
     INT(pipeline.trace.max_json_events)},
    {"pipeline.trace.pytorch", CONFIG_ENUM, 0, "auto", trace_pytorch_names, 0, 0,
     "PyTorch programs: NVTX ranges named by module path for every nn.Module call (modules), "
     "also ATen operators (ops), none, or auto (modules for a Python program while their estimated "
     "slowdown stays within pipeline.trace.pytorch_budget_pct, none for others)",
     ENUM(pipeline.trace.pytorch, trace_pytorch, TRACE_PYTORCH_NR)},
    {"pipeline.trace.pytorch_depth", CONFIG_INT, IN(1, 64), .def = "8",
     .help = "module ranges nest at most this deep (the outermost module is 1)",
     INT(pipeline.trace.pytorch_depth)},
    {"pipeline.trace.pytorch_shapes", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "pipeline.trace.pytorch=ops: operator ranges carry their input shapes",
     BOOL(pipeline.trace.pytorch_shapes)},
    {"pipeline.trace.pytorch_budget_pct", CONFIG_FLOAT, IN(0, 100), .def = "3",
     .help = "pipeline.trace.pytorch=auto: module ranges stay on while they make the program at "
	     "most this much (%) slower, as estimated in the program (calibrated hooked call "
	     "path x module calls + the hooks' own time, over the wall time), off above it",
     FLOAT(pipeline.trace.pytorch_budget_pct)},
    {"pipeline.nsys.enable", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "also run a full nsys capture (the trace backend is pipeline.trace.backend)",
     BOOL(pipeline.nsys.enable)},
    {"pipeline.nsys.path", CONFIG_STR, N, "null", NULL, 0, 0,
     "nsys executable; null = search PATH, then the known install locations",
     STR(pipeline.nsys.path)},
    {"pipeline.nsys.trace", CONFIG_STR, 0, "cuda,nvtx,osrt", NULL, 0, 0, "nsys --trace",
     STR(pipeline.nsys.trace)},
    {"pipeline.nsys.sample", CONFIG_STR, 0, "none", NULL, 0, 0,
     "nsys --sample (emitted unless none)", STR(pipeline.nsys.sample)},
    {"pipeline.nsys.capture_range", CONFIG_ENUM, 0, "none", nsys_capture_range_names, 0, 0,
     "nsys --capture-range",
     ENUM(pipeline.nsys.capture_range, nsys_capture_range, NSYS_CAPTURE_RANGE_NR)},
    {"pipeline.nsys.capture_range_end", CONFIG_STR, N, "null", NULL, 0, 0,
     "nsys --capture-range-end (none, stop, stop-shutdown, repeat[:N], repeat-shutdown:N)",
     STR(pipeline.nsys.capture_range_end)},
    {"pipeline.nsys.nvtx_capture", CONFIG_STR, N, "null", NULL, 0, 0,
     "stage or range name to capture; translated to range@domain for --nvtx-capture",
     STR(pipeline.nsys.nvtx_capture)},
    {"pipeline.nsys.gating_nvtx", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "limit the nsys capture to nvtx_capture", BOOL(pipeline.nsys.gating_nvtx)},
    {"pipeline.nsys.cuda_graph_trace", CONFIG_ENUM, 0, "node", nsys_cuda_graph_trace_names, 0, 0,
     "nsys --cuda-graph-trace",
     ENUM(pipeline.nsys.cuda_graph_trace, nsys_cuda_graph_trace, NSYS_GRAPH_TRACE_NR)},
    {"pipeline.nsys.extra_args", CONFIG_STRLIST, 0, "[]", NULL, 0, 0,
     "more arguments passed to nsys profile as given", LIST(pipeline.nsys.extra_args)},
    {"pipeline.ncu.enable", CONFIG_BOOL, 0, "true", NULL, 0, 0,
     "collect per-kernel counters with ncu (run.mode=deep)", BOOL(pipeline.ncu.enable)},
    {"pipeline.ncu.path", CONFIG_STR, N, "null", NULL, 0, 0,
     "ncu executable; null = search PATH, then the known install locations",
     STR(pipeline.ncu.path)},
    {"pipeline.ncu.gating_nvtx", CONFIG_BOOL, 0, "true", NULL, 0, 0,
     "limit ncu to the kernels of run.stage via NVTX filters", BOOL(pipeline.ncu.gating_nvtx)},
    {"pipeline.ncu.description", CONFIG_STR, N, "null", NULL, 0, 0,
     "what the preset is for (shown in reports)", STR(pipeline.ncu.description)},
    {"pipeline.ncu.stop_after_last", CONFIG_BOOL, 0, "true", NULL, 0, 0,
     "end the profiled program (SIGTERM) once ncu has every result the plan asks for, when "
     "ncu profiles one process; false lets it run to its end",
     BOOL(pipeline.ncu.stop_after_last)},
    {"pipeline.ncu.ncu_cli.target_processes", CONFIG_ENUM, 0, "all", ncu_target_processes_names, 0,
     0, "ncu --target-processes",
     ENUM(pipeline.ncu.ncu_cli.target_processes, ncu_target_processes, NCU_TARGET_NR)},
    {"pipeline.ncu.ncu_cli.replay_mode", CONFIG_ENUM, 0, "kernel", ncu_replay_mode_names, 0, 0,
     "ncu --replay-mode", ENUM(pipeline.ncu.ncu_cli.replay_mode, ncu_replay_mode, NCU_REPLAY_NR)},
    {"pipeline.ncu.ncu_cli.nvtx.include", CONFIG_STRLIST, N, "null", NULL, 0, 0,
     "ncu --nvtx-include expressions (null = derived from run.stage)",
     LIST(pipeline.ncu.ncu_cli.nvtx.include)},
    {"pipeline.ncu.ncu_cli.nvtx.exclude", CONFIG_STRLIST, N, "null", NULL, 0, 0,
     "ncu --nvtx-exclude expressions", LIST(pipeline.ncu.ncu_cli.nvtx.exclude)},
    {"pipeline.ncu.ncu_cli.set", CONFIG_STR, N, "null", NULL, 0, 0,
     "ncu --set (section set); null = none", STR(pipeline.ncu.ncu_cli.set)},
    {"pipeline.ncu.ncu_cli.sections", CONFIG_STRLIST, N, "[SpeedOfLight, Occupancy, LaunchStats]",
     NULL, 0, 0, "ncu --section, one per item", LIST(pipeline.ncu.ncu_cli.sections)},
    {"pipeline.ncu.ncu_cli.metrics", CONFIG_STRLIST, N,
     "[gpu__time_duration.sum, sm__throughput.avg.pct_of_peak_sustained_elapsed, "
     "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed, dram__bytes_read.sum, "
     "dram__bytes_write.sum, sm__sass_thread_inst_executed_op_ffma_pred_on.sum, "
     "sm__sass_thread_inst_executed_op_fadd_pred_on.sum, "
     "sm__sass_thread_inst_executed_op_fmul_pred_on.sum, "
     "sm__sass_thread_inst_executed_op_hfma_pred_on.sum, "
     "sm__sass_thread_inst_executed_op_hadd_pred_on.sum, "
     "sm__sass_thread_inst_executed_op_hmul_pred_on.sum, "
     "sm__ops_path_tensor_src_bf16_dst_fp32.sum, sm__ops_path_tensor_src_fp16.sum]",
     NULL, 0, 0, "ncu --metrics, joined with ','", LIST(pipeline.ncu.ncu_cli.metrics)},
    {"pipeline.ncu.ncu_cli.kernel_name", CONFIG_STR, N, "null", NULL, 0, 0,
     "ncu --kernel-name: exact name, or \"regex:<pattern>\"",
     STR(pipeline.ncu.ncu_cli.kernel_name)},
    {"pipeline.ncu.ncu_cli.kernel_name_base", CONFIG_ENUM, 0, "demangled",
     ncu_kernel_name_base_names, 0, 0, "ncu --kernel-name-base",
     ENUM(pipeline.ncu.ncu_cli.kernel_name_base, ncu_kernel_name_base, NCU_NAME_BASE_NR)},
    {"pipeline.ncu.ncu_cli.kernel_id", CONFIG_STR, N, "null", NULL, 0, 0,
     "ncu --kernel-id (context:stream:name:invocation)", STR(pipeline.ncu.ncu_cli.kernel_id)},
    {"pipeline.ncu.ncu_cli.kernel_exclude", CONFIG_STRLIST, N, "null", NULL, 0, 0,
     "regexes of kernel names never profiled (exclude wins over include)",
     LIST(pipeline.ncu.ncu_cli.kernel_exclude)},
    {"pipeline.ncu.ncu_cli.launch_skip", CONFIG_INT, N | CONFIG_HAS_MIN, "null", NULL, 0, 0,
     "ncu --launch-skip", INT_OR_NULL(pipeline.ncu.ncu_cli.launch_skip)},
    {"pipeline.ncu.ncu_cli.launch_count", CONFIG_INT, N | CONFIG_HAS_MIN, "null", NULL, 1, 0,
     "ncu --launch-count", INT_OR_NULL(pipeline.ncu.ncu_cli.launch_count)},
    {"pipeline.ncu.ncu_cli.clock_control", CONFIG_ENUM, 0, "none", ncu_clock_control_names, 0, 0,
     "ncu --clock-control (none keeps boost clocks, as in production)",
     ENUM(pipeline.ncu.ncu_cli.clock_control, ncu_clock_control, NCU_CLOCK_NR)},
    {"pipeline.ncu.ncu_cli.cache_control", CONFIG_ENUM, 0, "all", ncu_cache_control_names, 0, 0,
     "ncu --cache-control (all flushes caches before each replay)",
     ENUM(pipeline.ncu.ncu_cli.cache_control, ncu_cache_control, NCU_CACHE_NR)},
    {"pipeline.ncu.ncu_cli.force_overwrite", CONFIG_BOOL, 0, "true", NULL, 0, 0,
     "ncu --force-overwrite", BOOL(pipeline.ncu.ncu_cli.force_overwrite)},
    {"workload.kind", CONFIG_ENUM, 0, "llm", workload_kind_names, 0, 0,
     "llm: built-in transformer; dummy: synthetic kernels; command: the program after --",
     ENUM(workload.kind, workload_kind, WORKLOAD_KIND_NR)},
    {"workload.program", CONFIG_STR, N, "null", NULL, 0, 0, "kind=command: the program to run",
     STR(workload.program)},
    {"workload.args", CONFIG_STRLIST, 0, "[]", NULL, 0, 0, "kind=command: its arguments",
     LIST(workload.args)},
    {"workload.warmup", CONFIG_INT, GE(0), .def = "1",
     .help = "warm-up iterations outside the profiled ranges", INT(workload.warmup)},
    {"model.name", CONFIG_STR, REQ, NULL, NULL, 0, 0,
     "model preset name (auto = llama-3.2-1b with a GPU, tiny without)", STR(model.name)},
    {"model.arch", CONFIG_ENUM, 0, "llama", model_arch_names, 0, 0, "architecture family",
     ENUM(model.arch, model_arch, MODEL_ARCH_NR)},
    {"model.hidden_size", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_HIDDEN, "hidden (embedding) size", INT(model.hidden_size)},
    {"model.intermediate_size", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_INTERMEDIATE, "MLP intermediate size", INT(model.intermediate_size)},
    {"model.num_layers", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_LAYERS, "transformer layers", INT(model.num_layers)},
    {"model.num_heads", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_HEADS, "attention (query) heads", INT(model.num_heads)},
    {"model.num_kv_heads", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_HEADS, "key/value heads (grouped-query attention)", INT(model.num_kv_heads)},
    {"model.head_dim", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL,
     LLM_MIN_HEAD_DIM, LLM_MAX_HEAD_DIM, "size of one attention head", INT(model.head_dim)},
    {"model.vocab_size", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_VOCAB, "vocabulary size", INT(model.vocab_size)},
    {"model.max_position", CONFIG_INT, REQ | CONFIG_HAS_MIN | CONFIG_HAS_MAX, NULL, NULL, 1,
     LLM_MAX_POSITION, "longest sequence the model supports", INT(model.max_position)},
    {"model.rope_theta", CONFIG_FLOAT, REQ, NULL, NULL, 0, 0, "RoPE base frequency",
     FLOAT(model.rope_theta)},
    {"model.rms_norm_eps", CONFIG_FLOAT, REQ, NULL, NULL, 0, 0, "RMSNorm epsilon",
     FLOAT(model.rms_norm_eps)},
    {"model.qkv_bias", CONFIG_BOOL, 0, "false", NULL, 0, 0, "Q/K/V projections have a bias",
     BOOL(model.qkv_bias)},
    {"model.tie_word_embeddings", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "the LM head shares the embedding matrix", BOOL(model.tie_word_embeddings)},
    {"model.weights", CONFIG_STR, N, "null", NULL, 0, 0,
     "local safetensors file (never downloaded); null = random weights from model.seed",
     STR(model.weights)},
    {"model.seed", CONFIG_INT, 0, "1234", NULL, 0, 0, "seed of the random weights",
     INT(model.seed)},
    {"infer.prompt_len", CONFIG_INT, IN(1, 1048576), .def = "128",
     .help = "prompt tokens (prefill length)", INT(infer.prompt_len)},
    {"infer.max_new_tokens", CONFIG_INT, IN(0, 1048576), .def = "32",
     .help = "generated tokens (decode steps)", INT(infer.max_new_tokens)},
    {"infer.batch_size", CONFIG_INT, IN(1, 4096), .def = "1", .help = "sequences per batch",
     INT(infer.batch_size)},
    {"infer.dtype", CONFIG_ENUM, 0, "bf16", infer_dtype_names, 0, 0, "weight and activation type",
     ENUM(infer.dtype, infer_dtype, INFER_DTYPE_NR)},
    {"infer.cuda_graph", CONFIG_BOOL, 0, "false", NULL, 0, 0,
     "run each decode step as a CUDA graph", BOOL(infer.cuda_graph)},
    {"stages.prefill", CONFIG_STRLIST, 0, "[LLM@prefill, prefill]", NULL, 0, 0,
     "NVTX ranges (range@domain or bare names) that mark prefill", LIST(stages.prefill)},
    {"stages.decode", CONFIG_STRLIST, 0, "[LLM@decode_all, decode]", NULL, 0, 0,
     "NVTX ranges that mark the whole decode phase", LIST(stages.decode)},
    {"stages.decode_step", CONFIG_STRLIST, 0, "[LLM@decode_step, decode_step]", NULL, 0, 0,
     "NVTX ranges that mark one decode step", LIST(stages.decode_step)},
    {"stages.operator_pattern", CONFIG_STR, 0, ".", NULL, 0, 0,
     "ranges whose name contains this text are operators (none does: every range that is not a "
     "stage)",
     STR(stages.operator_pattern)},
    {"hardware.peak_tflops", CONFIG_FLOAT, N, "null", NULL, 0, 0,
     "override the datasheet dense peak TFLOP/s for infer.dtype",
     FLOAT_OR_NULL(hardware.peak_tflops)},
    {"hardware.peak_bandwidth_gbs", CONFIG_FLOAT, N, "null", NULL, 0, 0,
     "override the datasheet DRAM bandwidth (GB/s)", FLOAT_OR_NULL(hardware.peak_bandwidth_gbs)},
    {"hardware.measured_tflops", CONFIG_FLOAT, N, "null", NULL, 0, 0,
     "override the calibrated compute ceiling (TFLOP/s)", FLOAT_OR_NULL(hardware.measured_tflops)},
    {"hardware.measured_bandwidth_gbs", CONFIG_FLOAT, N, "null", NULL, 0, 0,
     "override the calibrated bandwidth ceiling (GB/s)",
     FLOAT_OR_NULL(hardware.measured_bandwidth_gbs)},
};

const struct config_key *config_schema(size_t *n)
{
	*n = ARRAY_SIZE(schema);
	return schema;
}

void config_key_type_format(const struct config_key *k, struct strbuf *sb)
{
	switch (k->type) {
	case CONFIG_STR:
		strbuf_addstr(sb, "str");
		break;
	case CONFIG_INT:
		strbuf_addstr(sb, "int");
		break;
	case CONFIG_FLOAT:
		strbuf_addstr(sb, "float");
		break;
	case CONFIG_BOOL:
		strbuf_addstr(sb, "bool");
		break;
	case CONFIG_ENUM:
		strbuf_addstr(sb, "enum(");
		config_key_values_format(k, sb);
		strbuf_addch(sb, ')');
		break;
	case CONFIG_STRLIST:
		strbuf_addstr(sb, "list[str]");
		break;
	case CONFIG_OPEN_MAP:
		strbuf_addstr(sb, "map");
		break;
	}
	if (k->flags & CONFIG_NULLABLE)
		strbuf_addch(sb, '?');
}

void config_key_values_format(const struct config_key *k, struct strbuf *sb)
{
	for (const char *const *v = k->values; v && *v; v++)
		strbuf_addf(sb, "%s%s", v == k->values ? "" : "|", *v);
}

void config_key_range_format(const struct config_key *k, struct strbuf *sb)
{
	if ((k->flags & CONFIG_HAS_MIN) && (k->flags & CONFIG_HAS_MAX))
		strbuf_addf(sb, "%s%.15g, %.15g]", k->flags & CONFIG_MIN_EXCLUSIVE ? "(" : "[",
			    k->min, k->max);
	else if (k->flags & CONFIG_HAS_MIN)
		strbuf_addf(sb, "%s %.15g", k->flags & CONFIG_MIN_EXCLUSIVE ? ">" : ">=", k->min);
	else if (k->flags & CONFIG_HAS_MAX)
		strbuf_addf(sb, "<= %.15g", k->max);
}

/* --- defaults --- */

static struct cnode *default_node(const struct config_key *k)
{
	static const char origin[] = "default";
	struct cnode_pos pos = {origin, 0, 0};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct config_override o;
	struct cnode *n;

	/* Defaults are written in override syntax, so strings stay strings. */
	strbuf_addf(&text, "x=%s", k->def);
	if (config_override_parse(text.buf, origin, &o, &err))
		BUG("bad default for '%s': %s", k->key, err.buf);
	n = o.value;
	o.value = NULL;
	config_override_release(&o);
	if (k->type == CONFIG_STR && n->type != CNODE_STRING && n->type != CNODE_NULL)
		cnode_set_string(n, k->def, strlen(k->def));
	n->pos = pos;
	strbuf_release(&text);
	strbuf_release(&err);
	return n;
}

void config_schema_fill_defaults(struct cnode *root, const struct config_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct config_key *k = &keys[i];
		struct cnode *map = root;
		const char *p = k->key;
		struct cnode_pos pos = {"default", 0, 0};

		if (!k->def)
			continue;
		for (;;) {
			const char *dot = strchr(p, '.');
			char *seg = dot ? xstrndup(p, (size_t)(dot - p)) : xstrdup(p);
			struct cnode *child = cnode_map_get(map, seg);

			if (!dot) {
				if (!child) {
					child = default_node(k);
					child->key = seg;
					cnode_append(map, child);
				} else {
					free(seg);
				}
				break;
			}
			if (!child) {
				child = cnode_new(CNODE_MAP, seg, pos);
				cnode_append(map, child);
			}
			free(seg);
			if (child->type != CNODE_MAP)
				break; /* validation reports it */
			map = child;
			p = dot + 1;
		}
	}
}

/* --- suggestions --- */

static const char *last_segment(const char *key)
{
	const char *dot = strrchr(key, '.');
	return dot ? dot + 1 : key;
}

struct suggestion {
	const char *key;
	const char *best;
	char *best_owned;
	size_t score, full;
};

static void consider(struct suggestion *s, const char *cand)
{
	size_t last_limit = strlen(last_segment(s->key)) / 3;
	size_t full_limit = strlen(s->key) / 4;
	size_t full, last, score;

	/* About one typo per three letters of the last name, or per four of the
	 * whole key; short keys get one. Most candidates are far on both
	 * counts, and the bounded distance says so cheaply; a distance over its
	 * limit is computed in full only when the other is within its own. */
	last_limit = last_limit ? last_limit : 1;
	full_limit = full_limit ? full_limit : 1;
	if (!strcmp(cand, s->key))
		return;
	last = edit_distance_max(last_segment(s->key), last_segment(cand), last_limit);
	full = edit_distance_max(s->key, cand, full_limit);
	if (last > last_limit && full > full_limit)
		return;
	if (last > last_limit)
		last = edit_distance(last_segment(s->key), last_segment(cand));
	if (full > full_limit)
		full = edit_distance(s->key, cand);
	score = full < last ? full : last;
	if (!s->best || score < s->score || (score == s->score && full < s->full)) {
		free(s->best_owned);
		s->best_owned = xstrdup(cand);
		s->best = s->best_owned;
		s->score = score;
		s->full = full;
	}
}

static void consider_tree(struct suggestion *s, const struct cnode *n, struct strbuf *path)
{
	for (size_t i = 0; n->type == CNODE_MAP && i < n->nr; i++) {
		size_t len = path->len;

		if (len)
			strbuf_addch(path, '.');
		strbuf_addstr(path, n->items[i]->key);
		consider(s, path->buf);
		consider_tree(s, n->items[i], path);
		strbuf_setlen(path, len);
	}
}

void config_suggest_key(const char *key, const struct cnode *root, const struct config_key *keys,
			size_t n, struct strbuf *sb)
{
	struct suggestion s = {key, NULL, NULL, 0, 0};
	struct strbuf path = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		consider(&s, keys[i].key);
	if (root)
		consider_tree(&s, root, &path);
	if (s.best)
		strbuf_addf(sb, "; did you mean '%s'?", s.best);
	else
		strbuf_addstr(sb, " (see 'llmprof config keys')");
	free(s.best_owned);
	strbuf_release(&path);
}

/* --- validation --- */

static const struct config_key *key_find(const struct config_key *keys, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i].key, key))
			return &keys[i];
	return NULL;
}

/* Whether key is a proper prefix (a section) of some schema key. */
static int is_schema_map(const struct config_key *keys, size_t n, const char *key)
{
	size_t len = strlen(key);

	for (size_t i = 0; i < n; i++)
		if (!strncmp(keys[i].key, key, len) && keys[i].key[len] == '.')
			return 1;
	return 0;
}

static const char *type_noun(enum config_type t)
{
	switch (t) {
	case CONFIG_STR:
		return "a string";
	case CONFIG_INT:
		return "an integer";
	case CONFIG_FLOAT:
		return "a number";
	case CONFIG_BOOL:
		return "true or false";
	case CONFIG_ENUM:
		return "one of";
	case CONFIG_STRLIST:
		return "a list of strings";
	case CONFIG_OPEN_MAP:
		return "a mapping";
	}
	return "?";
}

static void value_text(const struct cnode *n, struct strbuf *sb)
{
	/* What the user wrote when we kept it (0x10, 1e3), else the value. */
	if (n->s && n->type != CNODE_STRING)
		strbuf_addstr(sb, n->s);
	else
		cnode_scalar_render(n, sb);
}

static int bad(struct strbuf *err, const struct cnode *n, const char *key, const char *fmt,
	       const char *arg)
{
	const char *hole = strstr(fmt, "%s");

	/* fmt holds one "%s" for arg (kept simple so formats stay literal). */
	strbuf_addf(err, "config key '%s' ", key);
	strbuf_add(err, fmt, (size_t)(hole - fmt));
	strbuf_addstr(err, arg);
	strbuf_addstr(err, hole + 2);
	strbuf_addstr(err, ", got '");
	value_text(n, err);
	strbuf_addstr(err, "' (");
	cnode_pos_format(&n->pos, err);
	strbuf_addch(err, ')');
	return -1;
}

static int enum_has(const char *const *values, const char *v)
{
	for (; values && *values; values++)
		if (!strcmp(*values, v))
			return 1;
	return 0;
}

/* "expects one of deep|light" */
static int bad_enum(struct strbuf *err, const struct cnode *n, const struct config_key *k)
{
	struct strbuf v = STRBUF_INIT;

	config_key_values_format(k, &v);
	bad(err, n, k->key, "expects one of %s", v.buf);
	strbuf_release(&v);
	return -1;
}

/* A byte below 0x20 or DEL: a newline in a path would split the 'run:'
 * line and every "file:line" message naming it. */
static int has_ctrl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Scalars given for a string become their text (0x10 stays "0x10"). */
static void to_string(struct cnode *n)
{
	struct strbuf sb = STRBUF_INIT;

	value_text(n, &sb);
	cnode_set_string(n, sb.buf, sb.len);
	strbuf_release(&sb);
}

static int check_range(const struct config_key *k, struct cnode *n, struct strbuf *err)
{
	double v = n->type == CNODE_INT ? (double)n->i : n->f;
	int lo = !(k->flags & CONFIG_HAS_MIN) ||
		 (k->flags & CONFIG_MIN_EXCLUSIVE ? v > k->min : v >= k->min);
	int hi = !(k->flags & CONFIG_HAS_MAX) || v <= k->max;
	struct strbuf r = STRBUF_INIT;
	int ret = 0;

	if (isnan(v) && (k->flags & (CONFIG_HAS_MIN | CONFIG_HAS_MAX)))
		lo = 0;
	if (!lo || !hi) {
		config_key_range_format(k, &r);
		ret = bad(err, n, k->key, "must be in %s", r.buf);
	}
	strbuf_release(&r);
	return ret;
}

static int check_value(const struct config_key *k, struct cnode *n, struct strbuf *err)
{
	if (n->type == CNODE_NULL) {
		if (k->flags & CONFIG_NULLABLE)
			return 0;
		if (k->type == CONFIG_ENUM)
			return bad_enum(err, n, k);
		return bad(err, n, k->key, "expects %s (it cannot be null)", type_noun(k->type));
	}
	switch (k->type) {
	case CONFIG_STR:
	case CONFIG_ENUM:
		if (n->type == CNODE_LIST || n->type == CNODE_MAP)
			return k->type == CONFIG_ENUM
				   ? bad_enum(err, n, k)
				   : bad(err, n, k->key, "expects %s", "a string");
		if (n->type != CNODE_STRING)
			to_string(n);
		if (k->type == CONFIG_ENUM && !enum_has(k->values, n->s))
			return bad_enum(err, n, k);
		if ((k->flags & CONFIG_NONEMPTY) && !*n->s)
			return bad(err, n, k->key, "%s", "cannot be empty");
		if ((k->flags & CONFIG_NO_CTRL) && has_ctrl(n->s))
			return bad(err, n, k->key, "expects %s",
				   "a path without control characters (newline, tab, escape)");
		return 0;
	case CONFIG_INT:
		if (n->type != CNODE_INT)
			return bad(err, n, k->key, "expects %s", "an integer");
		return check_range(k, n, err);
	case CONFIG_FLOAT:
		if (n->type == CNODE_INT) {
			n->f = (double)n->i;
			n->type = CNODE_FLOAT;
		}
		if (n->type != CNODE_FLOAT)
			return bad(err, n, k->key, "expects %s", "a number");
		return check_range(k, n, err);
	case CONFIG_BOOL:
		if (n->type != CNODE_BOOL)
			return bad(err, n, k->key, "expects %s", "true or false");
		return 0;
	case CONFIG_STRLIST:
		if (n->type != CNODE_LIST)
			return bad(err, n, k->key, "expects %s", "a list of strings, e.g. [a, b]");
		for (size_t i = 0; i < n->nr; i++) {
			struct cnode *item = n->items[i];

			if (item->type == CNODE_NULL || item->type == CNODE_LIST ||
			    item->type == CNODE_MAP)
				return bad(err, item, k->key, "expects %s",
					   "a list of strings; an item");
			if (item->type != CNODE_STRING)
				to_string(item);
		}
		return 0;
	case CONFIG_OPEN_MAP:
		if (n->type != CNODE_MAP)
			return bad(err, n, k->key, "expects %s", "a mapping");
		return 0;
	}
	return 0;
}

static int validate(struct cnode *map, struct strbuf *path, const struct cnode *root,
		    const struct config_key *keys, size_t n, struct strbuf *err)
{
	for (size_t i = 0; i < map->nr; i++) {
		struct cnode *c = map->items[i];
		size_t len = path->len;
		const struct config_key *k;
		int ret = 0;

		if (len)
			strbuf_addch(path, '.');
		strbuf_addstr(path, c->key);
		k = key_find(keys, n, path->buf);
		if (k) {
			ret = check_value(k, c, err);
		} else if (is_schema_map(keys, n, path->buf)) {
			if (c->type != CNODE_MAP)
				ret = bad(err, c, path->buf, "is a section (%s)",
					  "a mapping of keys");
			else
				ret = validate(c, path, root, keys, n, err);
		} else {
			strbuf_addf(err, "unknown config key '%s'", path->buf);
			config_suggest_key(path->buf, NULL, keys, n, err);
			strbuf_addstr(err, " (");
			cnode_pos_format(&c->pos, err);
			strbuf_addch(err, ')');
			ret = -1;
		}
		strbuf_setlen(path, len);
		if (ret)
			return -1;
	}
	return 0;
}

int config_schema_validate(struct cnode *root, const struct config_key *keys, size_t n,
			   struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = validate(root, &path, root, keys, n, err);

	strbuf_release(&path);
	if (ret)
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((keys[i].flags & CONFIG_REQUIRED) && !cnode_lookup(root, keys[i].key))
			return error_set(err,
					 "config key '%s' is required but no config file "
					 "sets it (%s)",
					 keys[i].key, keys[i].help);
	return 0;
}

/* --- order --- */

static size_t schema_rank(const struct config_key *keys, size_t n, const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < n; i++)
		if (!strncmp(keys[i].key, path, len) &&
		    (keys[i].key[len] == '.' || keys[i].key[len] == '\0'))
			return i;
	return n;
}

static void sort_map(struct cnode *map, struct strbuf *path, const struct config_key *keys,
		     size_t n)
{
	size_t *rank = xcalloc(map->nr ? map->nr : 1, sizeof(*rank));

	for (size_t i = 0; i < map->nr; i++) {
		size_t len = path->len;

		strbuf_addf(path, "%s%s", len ? "." : "", map->items[i]->key);
		rank[i] = schema_rank(keys, n, path->buf);
		if (map->items[i]->type == CNODE_MAP)
			sort_map(map->items[i], path, keys, n);
		strbuf_setlen(path, len);
	}
	/* Stable insertion sort: maps are small. */
	for (size_t i = 1; i < map->nr; i++)
		for (size_t j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
			struct cnode *t = map->items[j];
			size_t r = rank[j];

			map->items[j] = map->items[j - 1];
			map->items[j - 1] = t;
			rank[j] = rank[j - 1];
			rank[j - 1] = r;
		}
	free(rank);
}

void config_schema_sort(struct cnode *root, const struct config_key *keys, size_t n)
{
	struct strbuf path = STRBUF_INIT;

	sort_map(root, &path, keys, n);
	strbuf_release(&path);
}
