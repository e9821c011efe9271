/* llm_common.c: shapes, init parameters and RoPE tables shared by the CPU
 * and GPU paths. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm.h"
#include "core/banned.h"

void llm_init_params(const struct llm_config *c, int kind, float *scale, float *offset)
{
	*offset = 0.0f;
	switch (kind) {
	case LLM_T_EMBED:
		*scale = 1.0f;
		break;
	case LLM_T_ATTN_NORM:
	case LLM_T_MLP_NORM:
	case LLM_T_FINAL_NORM:
		*scale = 0.1f;
		*offset = 1.0f;
		break;
	case LLM_T_BQKV:
		*scale = 0.1f;
		break;
	case LLM_T_WO:
		*scale = (float)(1.0 / sqrt((double)llm_q_dim(c)));
		break;
	case LLM_T_WDOWN:
		*scale = (float)(1.0 / sqrt((double)c->intermediate));
		break;
	default: /* WQKV, WGU, LM_HEAD: fan-in is hidden */
		*scale = (float)(1.0 / sqrt((double)c->hidden));
		break;
	}
}

int llm_prompt_token(const struct llm_config *c, int b, int t, int prompt_len)
{
	uint64_t h = llm_hash(c->seed, llm_tensor_id(LLM_T_PROMPT, -1),
			      (uint64_t)b * (uint64_t)prompt_len + (uint64_t)t);
	return (int)(h % (uint64_t)c->vocab);
}

uint64_t llm_tensor_numel(const struct llm_config *c, int kind)
{
	uint64_t h = (uint64_t)c->hidden;

	switch (kind) {
	case LLM_T_EMBED:
	case LLM_T_LM_HEAD:
		return (uint64_t)c->vocab * h;
	case LLM_T_ATTN_NORM:
	case LLM_T_MLP_NORM:
	case LLM_T_FINAL_NORM:
		return h;
	case LLM_T_WQKV:
		return (uint64_t)llm_qkv_dim(c) * h;
	case LLM_T_BQKV:
		return c->qkv_bias ? (uint64_t)llm_qkv_dim(c) : 0;
	case LLM_T_WO:
		return h * (uint64_t)llm_q_dim(c);
	case LLM_T_WGU:
		return 2 * (uint64_t)c->intermediate * h;
	case LLM_T_WDOWN:
		return (uint64_t)c->intermediate * h;
	}
	return 0;
}

uint64_t llm_param_count(const struct llm_config *c)
{
	uint64_t per_layer = 0, n;

	for (int k = LLM_T_ATTN_NORM; k <= LLM_T_WDOWN; k++)
		per_layer += llm_tensor_numel(c, k);
	n = per_layer * (uint64_t)c->layers + llm_tensor_numel(c, LLM_T_EMBED) +
	    llm_tensor_numel(c, LLM_T_FINAL_NORM);
	if (!c->tie_embeddings)
		n += llm_tensor_numel(c, LLM_T_LM_HEAD);
	return n;
}

int llm_config_check(const struct llm_config *c, char *err, size_t errlen)
{
	const char *why = NULL;

	if (c->hidden < 1 || c->intermediate < 1 || c->layers < 1 || c->heads < 1 ||
	    c->kv_heads < 1 || c->head_dim < 2 || c->vocab < 1 || c->max_pos < 1)
		why = "every dimension must be >= 1 (head_dim >= 2)";
	else if (c->head_dim % 2)
		why = "head_dim must be even (RoPE rotates pairs)";
	else if (c->heads % c->kv_heads)
		why = "heads must be a multiple of kv_heads (grouped-query attention)";
	else if (!(c->rope_theta > 0) || !(c->rms_eps > 0))
		why = "rope_theta and rms_eps must be > 0";
	if (why) {
		snprintf(err, errlen, "model '%s': %s", c->name, why);
		return -1;
	}
	return 0;
}

const char *llm_dtype_name(enum llm_dtype d)
{
	return d == LLM_BF16 ? "bf16" : d == LLM_FP16 ? "fp16" : "fp32";
}

int llm_dtype_bytes(enum llm_dtype d)
{
	return d == LLM_FP32 ? 4 : 2;
}

void llm_rope_table(float *cos_t, float *sin_t, int n_pos, int head_dim, double theta)
{
	int half = head_dim / 2;

	for (int i = 0; i < half; i++) {
		double inv = pow(theta, -2.0 * i / head_dim);
		for (int p = 0; p < n_pos; p++) {
			cos_t[(size_t)p * half + i] = (float)cos(p * inv);
			sin_t[(size_t)p * half + i] = (float)sin(p * inv);
		}
	}
}

float llm_round_bf16(float x)
{
	uint32_t u;

	memcpy(&u, &x, 4);
	if ((u & 0x7f800000u) == 0x7f800000u) /* inf/nan: truncate */
		u &= 0xffff0000u;
	else
		u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
	memcpy(&x, &u, 4);
	return x;
}

float llm_round_fp16(float x)
{
	/* Round to 11 significant bits; subnormals and overflow of fp16 are
	 * out of range for this model's activations. */
	int e;
	double m = frexp((double)x, &e);

	return (float)ldexp(nearbyint(ldexp(m, 11)), e - 11);
}
