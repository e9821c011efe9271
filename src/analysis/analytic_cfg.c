/* analytic_cfg.c: see analytic_cfg.h. */
#include <stdio.h>
#include <string.h>

#include "analysis/analytic_cfg.h"
#include "core/error.h"
#include "workloads/llm.h"
#include "core/banned.h"

int analytic_cfg_applies(const struct config *cfg)
{
	const char *kind = config_get_string(cfg, "workload.kind");
	const char *name = config_get_string(cfg, "model.name");

	return kind && !strcmp(kind, "command") && name && strcmp(name, "auto");
}

int analytic_cfg_write(const struct config *cfg, const char *path, struct strbuf *err)
{
	struct llm_config c;
	struct llm_run_opts o;
	const char *name = config_get_string(cfg, "model.name");
	const char *dtype = config_get_string(cfg, "infer.dtype");
	char e[256] = "";

	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	snprintf(c.name, sizeof(c.name), "%s", name ? name : "model");
	c.hidden = (int)config_get_int(cfg, "model.hidden_size", 0);
	c.intermediate = (int)config_get_int(cfg, "model.intermediate_size", 0);
	c.layers = (int)config_get_int(cfg, "model.num_layers", 0);
	c.heads = (int)config_get_int(cfg, "model.num_heads", 0);
	c.kv_heads = (int)config_get_int(cfg, "model.num_kv_heads", 0);
	c.head_dim = (int)config_get_int(cfg, "model.head_dim", 0);
	c.vocab = (int)config_get_int(cfg, "model.vocab_size", 0);
	c.max_pos = (int)config_get_int(cfg, "model.max_position", 0);
	c.rope_theta = config_get_double(cfg, "model.rope_theta", 10000.0);
	c.rms_eps = config_get_double(cfg, "model.rms_norm_eps", 1e-5);
	c.qkv_bias = config_get_bool(cfg, "model.qkv_bias", 0);
	c.tie_embeddings = config_get_bool(cfg, "model.tie_word_embeddings", 0);
	o.batch = (int)config_get_int(cfg, "infer.batch_size", 1);
	o.prompt_len = (int)config_get_int(cfg, "infer.prompt_len", 1);
	o.new_tokens = (int)config_get_int(cfg, "infer.max_new_tokens", 0);
	o.dtype = dtype && !strcmp(dtype, "fp32")   ? LLM_FP32
		  : dtype && !strcmp(dtype, "fp16") ? LLM_FP16
						    : LLM_BF16;
	if (llm_config_check(&c, e, sizeof(e)))
		return error_set(err, "%s", e);
	if (llm_analytic_write(path, &c, &o, e, sizeof(e)))
		return error_set(err, "%s", e);
	return 0;
}
