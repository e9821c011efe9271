/* llm_shape.h: what the built-in LLM and llmprof share: the model's shape
 * (struct llm_config) and the limits of each dimension, the run's sizes,
 * the shape check, and the analytic FLOPs and bytes a run does
 * (llm_analytic.c). llmprof's config schema checks model.* against the same
 * limits, and analysis/analytic_cfg.c writes the analytic JSON of an
 * external program with a model preset through the same code. The only
 * header of workloads/ that src/ includes (tests/cli/test-layers.sh); plain
 * C, no CUDA. The rest of the model is llm.h. */
#ifndef LLMPROF_WORKLOADS_LLM_SHAPE_H
#define LLMPROF_WORKLOADS_LLM_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum llm_dtype { LLM_FP32 = 0, LLM_BF16 = 1, LLM_FP16 = 2 };

/* The range of each model dimension: the workload's flags and llmprof's
 * config schema (model.*) both check against these, so a value the config
 * accepts is one the workload and the analytic model take. */
#define LLM_MAX_HIDDEN (1 << 20)
#define LLM_MAX_INTERMEDIATE (1 << 22)
#define LLM_MAX_LAYERS 4096
#define LLM_MAX_HEADS 4096
#define LLM_MIN_HEAD_DIM 2
#define LLM_MAX_HEAD_DIM 1024
#define LLM_MAX_VOCAB (1 << 24)
#define LLM_MAX_POSITION (1 << 24)

struct llm_config {
	char name[64];
	int hidden, intermediate, layers, heads, kv_heads, head_dim, vocab, max_pos;
	double rope_theta, rms_eps;
	int qkv_bias, tie_embeddings;
	uint64_t seed;
};

struct llm_run_opts {
	int batch, prompt_len, new_tokens;
	enum llm_dtype dtype;
	int cuda_graph;	     /* decode step captured once and replayed */
	int warmup;	     /* untimed, unranged full runs before the measured one */
	int threads;	     /* CPU: OpenMP threads (0 = runtime default) */
	int own_gemv;	     /* GPU: our GEMV for decode linears instead of cuBLASLt */
	int pdl;	     /* GPU: programmatic dependent launch of our kernels (sm_90+) */
	const char *weights; /* safetensors file or NULL */
};

/* Total parameters (tied embeddings counted once). */
uint64_t llm_param_count(const struct llm_config *c);
/* 0, or -1 with a one-line reason in err (errlen bytes): shape sanity. */
int llm_config_check(const struct llm_config *c, char *err, size_t errlen);
const char *llm_dtype_name(enum llm_dtype d);
int llm_dtype_bytes(enum llm_dtype d);

/* ---- analytic cost (llm_analytic.c) ---- */
/* Cost of one forward of n tokens per sequence at positions pos..pos+n-1
 * for batch sequences; head: final norm + LM head on the last position. */
struct llm_cost {
	double tokens; /* counts as doubles: exact below 2^53, never wrap */
	double matmul_flops, attn_flops, attn_flops_executed, flops;
	double weight_bytes, kv_read_bytes, kv_write_bytes, bytes;
};
void llm_cost_forward(const struct llm_config *c, int batch, int n, int pos, int head,
		      int elem_bytes, struct llm_cost *out);
/* 1 when the GPU prefill uses the flash kernel (else the GEMM path). */
int llm_prefill_flash(const struct llm_config *c, int elem_bytes);
/* Writes the analytic JSON (docs/workloads.md) to path. 0 or -1 + err.
 * Up to LLM_ANALYTIC_STEPS_LISTED decode steps are listed one by one
 * (decode_steps); more are given as the first and the change per step
 * (decode_steps_affine), so the file stays small whatever the token count. */
#define LLM_ANALYTIC_STEPS_LISTED 4096
int llm_analytic_write(const char *path, const struct llm_config *c, const struct llm_run_opts *opt,
		       char *err, size_t errlen);
/* The same JSON, appended to out (the program's own file is written by
 * llm_analytic_write(); llmprof writes it into a bundle itself). */
struct strbuf;
void llm_analytic_json(struct strbuf *out, const struct llm_config *c,
		       const struct llm_run_opts *opt);

#ifdef __cplusplus
}
#endif
#endif
