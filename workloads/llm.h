/* llm.h: the built-in Llama-family decoder shared by the CPU path
 * (llm_cpu.c, plain C11 + OpenMP) and the GPU path (llm_cuda.cu).
 *
 * Both paths draw every weight from the same counter-based hash
 * (llm_init_value), so the same seed gives the same model on either device
 * and GPU logits can be checked against the CPU reference. Weight matrices
 * use the Hugging Face layout W[out][in]; q/k/v and gate/up are fused row
 * blocks: wqkv = [q rows; k rows; v rows], wgu = [gate rows; up rows]. */
#ifndef LLMPROF_WORKLOADS_LLM_H
#define LLMPROF_WORKLOADS_LLM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define LLM_HD __host__ __device__
#else
#define LLM_HD
#endif

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

/* What a run produced. tokens (batch * new_tokens, row per sequence) and,
 * when non-NULL, logits (new_tokens * batch * vocab: the logits that chose
 * each generated token) are caller-allocated. */
struct llm_result {
	double prefill_ms, decode_ms;
	int *tokens;
	float *logits;
};

/* Tensor ids for the init hash: global tensors use layer 0, per-layer
 * tensors layer l + 1. */
enum llm_tensor {
	LLM_T_EMBED = 0,
	LLM_T_ATTN_NORM,
	LLM_T_WQKV,
	LLM_T_BQKV,
	LLM_T_WO,
	LLM_T_MLP_NORM,
	LLM_T_WGU,
	LLM_T_WDOWN,
	LLM_T_FINAL_NORM,
	LLM_T_LM_HEAD,
	LLM_T_PROMPT,
};

static inline LLM_HD uint32_t llm_tensor_id(int kind, int layer)
{
	return (uint32_t)kind | ((uint32_t)(layer + 1) << 8);
}

/* splitmix64 of (seed, tensor, index): a pure function of its arguments, so
 * any element can be computed independently and in any order. */
static inline LLM_HD uint64_t llm_hash(uint64_t seed, uint32_t tensor, uint64_t i)
{
	uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tensor << 40) ^ i;
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* offset + scale * u, u uniform in [-1, 1) with 24 random bits: 2u - 1 is
 * exact in fp32, so host and device round only once, identically. */
static inline LLM_HD float llm_init_value(uint64_t seed, uint32_t tensor, uint64_t i, float scale,
					  float offset)
{
	float u = (float)(llm_hash(seed, tensor, i) >> 40) * (1.0f / 16777216.0f);
	float v = 2.0f * u - 1.0f;
	return offset + v * scale;
}

/* Scale and offset of each tensor kind (fan-in scaled uniform init). */
void llm_init_params(const struct llm_config *c, int kind, float *scale, float *offset);

/* Deterministic prompt token t of sequence b. */
int llm_prompt_token(const struct llm_config *c, int b, int t, int prompt_len);

/* Sizes. */
static inline int llm_q_dim(const struct llm_config *c)
{
	return c->heads * c->head_dim;
}
static inline int llm_kv_dim(const struct llm_config *c)
{
	return c->kv_heads * c->head_dim;
}
static inline int llm_qkv_dim(const struct llm_config *c)
{
	return (c->heads + 2 * c->kv_heads) * c->head_dim;
}
/* Element counts of each tensor kind (per layer for per-layer kinds). */
uint64_t llm_tensor_numel(const struct llm_config *c, int kind);
/* Total parameters (tied embeddings counted once). */
uint64_t llm_param_count(const struct llm_config *c);
/* 0, or -1 with a one-line reason in err (errlen bytes): shape sanity. */
int llm_config_check(const struct llm_config *c, char *err, size_t errlen);
const char *llm_dtype_name(enum llm_dtype d);
int llm_dtype_bytes(enum llm_dtype d);

/* RoPE table for positions [0, n_pos): cos/sin[p * head_dim/2 + i] of
 * p * theta^(-2i/head_dim), computed in double (same table on both paths).
 * Rotation pairs are (i, i + head_dim/2), as in Hugging Face's
 * rotate_half. */
void llm_rope_table(float *cos_t, float *sin_t, int n_pos, int head_dim, double theta);

/* bf16 round-to-nearest-even (the GPU's storage rounding). */
float llm_round_bf16(float x);
float llm_round_fp16(float x);

/* ---- CPU operators (pure; unit-tested against naive references) ---- */
void llm_op_rmsnorm(float *out, const float *x, const float *w, int n, float eps);
/* out[t][o] = sum_i x[t][i] * W[o][i] (+ bias[o]) (+ out[t][o] if accumulate). */
void llm_op_matmul(float *out, const float *x, const float *W, const float *bias, int n_tok, int in,
		   int out_dim, int accumulate);
/* Rotates n_heads vectors of head_dim at vec (contiguous) for position pos. */
void llm_op_rope(float *vec, int n_heads, int head_dim, const float *cos_row, const float *sin_row);
/* One query token (heads * head_dim) against n_keys cached keys/values of
 * one sequence and layer; cache layout [kv_heads][max_seq][head_dim].
 * scratch holds n_keys floats. out is heads * head_dim. */
void llm_op_attention(float *out, const float *q, const float *kcache, const float *vcache,
		      int heads, int kv_heads, int head_dim, int n_keys, int max_seq,
		      float *scratch);
void llm_op_swiglu(float *out, const float *gate, const float *up, int n);
void llm_op_softmax(float *x, int n);
int llm_op_argmax(const float *x, int n);

/* ---- CPU model ---- */
struct llm_cpu;
/* Builds weights (from seed or opt->weights) and state for opt's shape.
 * round_bf16 rounds weights and stored activations to bf16 to mimic the
 * GPU. Returns NULL with a reason in err. Free with llm_cpu_free. */
struct llm_cpu *llm_cpu_new(const struct llm_config *c, const struct llm_run_opts *opt,
			    int round_bf16, char *err, size_t errlen);
void llm_cpu_free(struct llm_cpu *m);
/* Runs n tokens per sequence (tokens[b * n + t]) at positions pos..pos+n-1
 * and writes the last token's logits of each sequence (batch * vocab);
 * logits NULL skips the final norm and LM head. */
void llm_cpu_forward(struct llm_cpu *m, const int *tokens, int n, int pos, float *logits);
/* The whole generation: prefill + greedy decode, with NVTX ranges when
 * ranged is set. */
int llm_cpu_generate(struct llm_cpu *m, int ranged, struct llm_result *res);

/* ---- GPU model (llm_cuda.cu; absent without nvcc) ---- */
/* Number of usable CUDA devices; 0 when there is no driver or GPU. */
int llm_cuda_device_count(void);
/* Full run on device dev: warm-ups, prefill, decode, with NVTX ranges on
 * the measured run. 0 or -1 with a reason in err. */
int llm_cuda_run(const struct llm_config *c, const struct llm_run_opts *opt, int dev,
		 struct llm_result *res, char *err, size_t errlen);
/* Every GPU operator against the CPU operator on small random shapes
 * (fresh inputs each run); prints one line per check and returns the
 * number of failures, or -1 when the device cannot be used. */
int llm_cuda_check_ops(int dev, enum llm_dtype dt);

/* ---- safetensors (safetensors.c) ---- */
/* Fills dst (numel floats) with tensor name from the file, converting
 * F32/BF16/F16 and checking the shape's element count. 0, or -1 with a
 * reason in err. */
struct st_file;
struct st_file *st_open(const char *path, char *err, size_t errlen);
int st_read_f32(struct st_file *f, const char *name, float *dst, uint64_t numel, char *err,
		size_t errlen);
int st_has(struct st_file *f, const char *name);
void st_close(struct st_file *f);
/* Loads the Hugging Face tensors of one kind (layer -1 for globals) into
 * dst in our fused layout. 0, or -1 with a reason in err. */
int llm_load_hf_tensor(struct st_file *f, const struct llm_config *c, int kind, int layer,
		       float *dst, char *err, size_t errlen);

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
