/* analytic_cfg.c: see analytic_cfg.h. */
#include <stdio.h>
#include <string.h>

#include "analysis/analytic_cfg.h"
#include "core/error.h"
#include "workloads/llm_shape.h"
#include "core/banned.h"

int analytic_cfg_applies(const struct config *cfg)
{
	const struct llmprof_config *c = config_typed(cfg);

	return c->workload.kind == WORKLOAD_KIND_COMMAND && strcmp(c->model.name, "auto");
}

/* The built-in LLM's dtype for infer.dtype. */
static const enum llm_dtype dtypes[INFER_DTYPE_NR] = {
    [INFER_DTYPE_BF16] = LLM_BF16,
    [INFER_DTYPE_FP16] = LLM_FP16,
    [INFER_DTYPE_FP32] = LLM_FP32,
};

int analytic_cfg_json(const struct config *cfg, struct strbuf *out, struct strbuf *err)
{
	const struct config_model *m = &config_typed(cfg)->model;
	const struct config_infer *in = &config_typed(cfg)->infer;
	struct llm_config c;
	struct llm_run_opts o;
	char e[256] = "";

	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	snprintf(c.name, sizeof(c.name), "%s", m->name);
	c.hidden = (int)m->hidden_size;
	c.intermediate = (int)m->intermediate_size;
	c.layers = (int)m->num_layers;
	c.heads = (int)m->num_heads;
	c.kv_heads = (int)m->num_kv_heads;
	c.head_dim = (int)m->head_dim;
	c.vocab = (int)m->vocab_size;
	c.max_pos = (int)m->max_position;
	c.rope_theta = m->rope_theta;
	c.rms_eps = m->rms_norm_eps;
	c.qkv_bias = m->qkv_bias;
	c.tie_embeddings = m->tie_word_embeddings;
	o.batch = (int)in->batch_size;
	o.prompt_len = (int)in->prompt_len;
	o.new_tokens = (int)in->max_new_tokens;
	o.dtype = dtypes[in->dtype];
	if (llm_config_check(&c, e, sizeof(e)))
		return error_set(err, "%s", e);
	llm_analytic_json(out, &c, &o);
	return 0;
}
