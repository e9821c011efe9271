/* enums.c: the values of each enum config key, indexed by its C enum
 * (config/typed.h). The schema rows (schema.c) take their allowed values
 * from these arrays, and so do the ncu/nsys argv builders, which is why they
 * sit in a file of their own with no dependencies: a tool linked with
 * nsight/nsys.c alone (scripts/gpu/validate-nsys.sh) needs only this one.
 * A value the C enum has but its array lacks leaves a NULL hole, which
 * tests/unit/test-config-typed.c finds. */
#include "config/typed.h"
#include "core/banned.h"

const char *const run_mode_names[RUN_MODE_NR + 1] = {
    [RUN_MODE_DEEP] = "deep",
    [RUN_MODE_LIGHT] = "light",
};
const char *const run_stage_names[RUN_STAGE_NR + 1] = {
    [RUN_STAGE_PREFILL] = "prefill",
    [RUN_STAGE_DECODE] = "decode",
    [RUN_STAGE_DECODE_STEP] = "decode_step",
    [RUN_STAGE_ALL] = "all",
};
const char *const trace_backend_names[TRACE_BACKEND_NR + 1] = {
    [TRACE_BACKEND_AUTO] = "auto",
    [TRACE_BACKEND_BUILTIN] = "builtin",
    [TRACE_BACKEND_NSYS] = "nsys",
};
const char *const trace_api_calls_names[TRACE_API_CALLS_NR + 1] = {
    [TRACE_API_CALLS_LAUNCHES] = "launches",
    [TRACE_API_CALLS_ALL] = "all",
};
const char *const trace_pytorch_names[TRACE_PYTORCH_NR + 1] = {
    [TRACE_PYTORCH_AUTO] = "auto",
    [TRACE_PYTORCH_MODULES] = "modules",
    [TRACE_PYTORCH_OPS] = "ops",
    [TRACE_PYTORCH_NONE] = "none",
};
const char *const nsys_capture_range_names[NSYS_CAPTURE_RANGE_NR + 1] = {
    [NSYS_CAPTURE_RANGE_NONE] = "none",
    [NSYS_CAPTURE_RANGE_NVTX] = "nvtx",
    [NSYS_CAPTURE_RANGE_CUDA_PROFILER_API] = "cudaProfilerApi",
    [NSYS_CAPTURE_RANGE_HOTKEY] = "hotkey",
};
const char *const nsys_cuda_graph_trace_names[NSYS_GRAPH_TRACE_NR + 1] = {
    [NSYS_GRAPH_TRACE_NODE] = "node",
    [NSYS_GRAPH_TRACE_GRAPH] = "graph",
};
const char *const ncu_target_processes_names[NCU_TARGET_NR + 1] = {
    [NCU_TARGET_ALL] = "all",
    [NCU_TARGET_APPLICATION_ONLY] = "application-only",
};
const char *const ncu_replay_mode_names[NCU_REPLAY_NR + 1] = {
    [NCU_REPLAY_KERNEL] = "kernel",
    [NCU_REPLAY_APPLICATION] = "application",
    [NCU_REPLAY_RANGE] = "range",
    [NCU_REPLAY_APP_RANGE] = "app-range",
};
const char *const ncu_kernel_name_base_names[NCU_NAME_BASE_NR + 1] = {
    [NCU_NAME_BASE_FUNCTION] = "function",
    [NCU_NAME_BASE_DEMANGLED] = "demangled",
    [NCU_NAME_BASE_MANGLED] = "mangled",
};
const char *const ncu_clock_control_names[NCU_CLOCK_NR + 1] = {
    [NCU_CLOCK_NONE] = "none",
    [NCU_CLOCK_BASE] = "base",
};
const char *const ncu_cache_control_names[NCU_CACHE_NR + 1] = {
    [NCU_CACHE_ALL] = "all",
    [NCU_CACHE_NONE] = "none",
};
const char *const workload_kind_names[WORKLOAD_KIND_NR + 1] = {
    [WORKLOAD_KIND_LLM] = "llm",
    [WORKLOAD_KIND_DUMMY] = "dummy",
    [WORKLOAD_KIND_COMMAND] = "command",
};
const char *const model_arch_names[MODEL_ARCH_NR + 1] = {
    [MODEL_ARCH_LLAMA] = "llama",
};
const char *const infer_dtype_names[INFER_DTYPE_NR + 1] = {
    [INFER_DTYPE_BF16] = "bf16",
    [INFER_DTYPE_FP16] = "fp16",
    [INFER_DTYPE_FP32] = "fp32",
};
