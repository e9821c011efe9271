/* typed.h: the resolved configuration as a C struct, one field per schema
 * key, and a C enum for every enum key.
 *
 * Each row of the schema table (schema.c) names the field it fills with
 * offsetof(); config_load() validates the tree and then fills the struct
 * once, so code reads
 *
 *	const struct llmprof_config *c = config_typed(cfg);
 *	if (c->run.mode == RUN_MODE_LIGHT) ...
 *
 * and a key misspelled in code does not compile. Defaults live only in the
 * schema: every field holds the resolved value, never a fallback.
 *
 * How values are represented (the schema type -> the C type):
 *   str            const char *          (NULL when the key is null)
 *   int / int?     int64_t / const int64_t *      (pointer: NULL when null)
 *   float / float? double / const double *        (pointer: NULL when null)
 *   bool           int (0 or 1)
 *   enum(...)      enum <name>; <name>_names[v] is the text the user writes
 *   list[str]      struct config_strlist (v NULL when null, else nr items)
 *   map            const struct cnode * (free-form subtree, read with the
 *                  tree API of config.h; no key uses one today)
 * Nullable bools and enums do not exist; the schema test fails if a row
 * asks for one.
 *
 * Adding a key: add the field here, then its row in schema.c (which binds
 * the row to the field and fails to compile if the C type is wrong), then
 * its conf/ file and the docs table (docs/configuration.md). An enum key
 * also gets its C enum below and its names array in enums.c, the one list
 * of its values: the schema checks user input against it and the ncu/nsys
 * argv builders use it too.
 *
 * Ownership: every pointer in the struct is borrowed from the struct config
 * it came from and lives until config_free(). */
#ifndef LLMPROF_CONFIG_TYPED_H
#define LLMPROF_CONFIG_TYPED_H

#include <stddef.h>
#include <stdint.h>

struct cnode;

/* A list[str] value: nr strings in v (NULL-terminated). v is NULL only for
 * a null value, so null and [] stay apart. */
struct config_strlist {
	const char *const *v;
	size_t nr;
};

/* run.mode */
enum run_mode { RUN_MODE_DEEP, RUN_MODE_LIGHT, RUN_MODE_NR };
extern const char *const run_mode_names[RUN_MODE_NR + 1];

/* run.stage: the launches whose kernels get counters (decode includes its
 * steps; all: every launch) */
enum run_stage {
	RUN_STAGE_PREFILL,
	RUN_STAGE_DECODE,
	RUN_STAGE_DECODE_STEP,
	RUN_STAGE_ALL,
	RUN_STAGE_NR
};
extern const char *const run_stage_names[RUN_STAGE_NR + 1];

/* pipeline.trace.backend */
enum trace_backend {
	TRACE_BACKEND_AUTO,
	TRACE_BACKEND_BUILTIN,
	TRACE_BACKEND_NSYS,
	TRACE_BACKEND_NR
};
extern const char *const trace_backend_names[TRACE_BACKEND_NR + 1];

/* pipeline.trace.api_calls */
enum trace_api_calls { TRACE_API_CALLS_LAUNCHES, TRACE_API_CALLS_ALL, TRACE_API_CALLS_NR };
extern const char *const trace_api_calls_names[TRACE_API_CALLS_NR + 1];

/* pipeline.trace.pytorch (docs/pytorch.md) */
enum trace_pytorch {
	TRACE_PYTORCH_AUTO,
	TRACE_PYTORCH_MODULES,
	TRACE_PYTORCH_OPS,
	TRACE_PYTORCH_NONE,
	TRACE_PYTORCH_NR
};
extern const char *const trace_pytorch_names[TRACE_PYTORCH_NR + 1];

/* pipeline.nsys.capture_range */
enum nsys_capture_range {
	NSYS_CAPTURE_RANGE_NONE,
	NSYS_CAPTURE_RANGE_NVTX,
	NSYS_CAPTURE_RANGE_CUDA_PROFILER_API,
	NSYS_CAPTURE_RANGE_HOTKEY,
	NSYS_CAPTURE_RANGE_NR
};
extern const char *const nsys_capture_range_names[NSYS_CAPTURE_RANGE_NR + 1];

/* pipeline.nsys.cuda_graph_trace */
enum nsys_cuda_graph_trace { NSYS_GRAPH_TRACE_NODE, NSYS_GRAPH_TRACE_GRAPH, NSYS_GRAPH_TRACE_NR };
extern const char *const nsys_cuda_graph_trace_names[NSYS_GRAPH_TRACE_NR + 1];

/* pipeline.ncu.ncu_cli.target_processes */
enum ncu_target_processes { NCU_TARGET_ALL, NCU_TARGET_APPLICATION_ONLY, NCU_TARGET_NR };
extern const char *const ncu_target_processes_names[NCU_TARGET_NR + 1];

/* pipeline.ncu.ncu_cli.replay_mode */
enum ncu_replay_mode {
	NCU_REPLAY_KERNEL,
	NCU_REPLAY_APPLICATION,
	NCU_REPLAY_RANGE,
	NCU_REPLAY_APP_RANGE,
	NCU_REPLAY_NR
};
extern const char *const ncu_replay_mode_names[NCU_REPLAY_NR + 1];

/* pipeline.ncu.ncu_cli.kernel_name_base */
enum ncu_kernel_name_base {
	NCU_NAME_BASE_FUNCTION,
	NCU_NAME_BASE_DEMANGLED,
	NCU_NAME_BASE_MANGLED,
	NCU_NAME_BASE_NR
};
extern const char *const ncu_kernel_name_base_names[NCU_NAME_BASE_NR + 1];

/* pipeline.ncu.ncu_cli.clock_control */
enum ncu_clock_control { NCU_CLOCK_NONE, NCU_CLOCK_BASE, NCU_CLOCK_NR };
extern const char *const ncu_clock_control_names[NCU_CLOCK_NR + 1];

/* pipeline.ncu.ncu_cli.cache_control */
enum ncu_cache_control { NCU_CACHE_ALL, NCU_CACHE_NONE, NCU_CACHE_NR };
extern const char *const ncu_cache_control_names[NCU_CACHE_NR + 1];

/* workload.kind */
enum workload_kind {
	WORKLOAD_KIND_LLM,
	WORKLOAD_KIND_DUMMY,
	WORKLOAD_KIND_COMMAND,
	WORKLOAD_KIND_NR
};
extern const char *const workload_kind_names[WORKLOAD_KIND_NR + 1];

/* model.arch */
enum model_arch { MODEL_ARCH_LLAMA, MODEL_ARCH_NR };
extern const char *const model_arch_names[MODEL_ARCH_NR + 1];

/* infer.dtype */
enum infer_dtype { INFER_DTYPE_BF16, INFER_DTYPE_FP16, INFER_DTYPE_FP32, INFER_DTYPE_NR };
extern const char *const infer_dtype_names[INFER_DTYPE_NR + 1];

/* run.report_rows's default: also the bound of the reports llmprof writes
 * without a configuration (`report --ncu-csv` alone). */
#define CONFIG_REPORT_ROWS_DEFAULT 1000

/* The fields follow the keys: run.top_n_kernels is run.top_n_kernels.
 * docs/configuration.md says what each key means. */
struct config_run {
	enum run_mode mode;
	int64_t top_n_kernels;
	double coverage;
	double same_work_tolerance; /* 0 = one ncu result per operator class */
	int64_t report_rows;	    /* rows per report table; the rest summed in one row */
	double timeout_s;	    /* 0 = no limit */
	enum run_stage stage;
	int echo;
};

struct config_trace {
	int enable;
	enum trace_backend backend;
	enum trace_api_calls api_calls;
	int64_t cpu_sample_hz;	    /* 0 = off, else 10..1000 */
	double reference_run_max_s; /* 0 = no untraced rerun */
	int64_t max_json_events;
	enum trace_pytorch pytorch;
	int64_t pytorch_depth; /* 1..64 */
	int pytorch_shapes;
	double pytorch_budget_pct; /* 0..100 */
};

struct config_nsys {
	int enable;
	const char *path; /* NULL: search PATH and the known install locations */
	const char *trace;
	const char *sample;
	enum nsys_capture_range capture_range;
	const char *capture_range_end;
	const char *nvtx_capture;
	int gating_nvtx;
	enum nsys_cuda_graph_trace cuda_graph_trace;
	struct config_strlist extra_args;
};

struct config_ncu_cli {
	enum ncu_target_processes target_processes;
	enum ncu_replay_mode replay_mode;
	struct {
		struct config_strlist include, exclude;
	} nvtx;
	const char *set;
	struct config_strlist sections, metrics;
	const char *kernel_name;
	enum ncu_kernel_name_base kernel_name_base;
	const char *kernel_id;
	struct config_strlist kernel_exclude;
	const int64_t *launch_skip, *launch_count;
	enum ncu_clock_control clock_control;
	enum ncu_cache_control cache_control;
	int force_overwrite;
};

struct config_ncu {
	int enable;
	const char *path; /* NULL: search PATH and the known install locations */
	int gating_nvtx;
	const char *description;
	int stop_after_last;
	struct config_ncu_cli ncu_cli;
};

struct config_pipeline {
	struct config_trace trace;
	struct config_nsys nsys;
	struct config_ncu ncu;
};

struct config_workload {
	enum workload_kind kind;
	const char *program;
	struct config_strlist args;
	int64_t warmup;
};

/* model.* and infer.*: the one source of the model's shape and of the run's
 * sizes. A preset (conf/model/) sets every required key and the schema
 * defaults the rest, so readers copy these fields as they are and keep no
 * fallback of their own (prompt_len 128 in one place and 0 in another was
 * such a fallback). A reader's own "unknown", like the report's cuda_graph
 * -1 for a program that is not the built-in LLM, is about its data, not
 * about the key. */
struct config_model {
	const char *name;
	enum model_arch arch;
	int64_t hidden_size, intermediate_size, num_layers, num_heads, num_kv_heads, head_dim;
	int64_t vocab_size, max_position;
	double rope_theta, rms_norm_eps;
	int qkv_bias, tie_word_embeddings;
	const char *weights;
	int64_t seed;
};

struct config_infer {
	int64_t prompt_len, max_new_tokens, batch_size;
	enum infer_dtype dtype;
	int cuda_graph;
};

struct config_stages {
	struct config_strlist prefill, decode, decode_step;
	const char *operator_pattern;
};

struct config_hardware {
	const double *peak_tflops, *peak_bandwidth_gbs, *measured_tflops, *measured_bandwidth_gbs;
};

struct llmprof_config {
	const char *device;
	struct {
		const char *root;
	} artifacts;
	struct config_run run;
	struct config_pipeline pipeline;
	struct config_workload workload;
	struct config_model model;
	struct config_infer infer;
	struct config_stages stages;
	struct config_hardware hardware;
};

#endif
