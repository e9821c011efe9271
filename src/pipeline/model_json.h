/* model_json.h: the model shape (model.* keys) from a transformers
 * config.json that a profiled command names, so MFU/MBU of an external
 * program are model-based without model= keys (docs/workloads.md, "The
 * model shape from config.json").
 *
 * Applies only to workload.kind=command when the user set no model key
 * (model.name is auto and no override names model). An argument of the
 * program (or the VALUE of --opt=VALUE) that is a directory holding
 * config.json, or a path to a file named config.json, is read (a regular
 * file of at most INPUT_CAP_TEXT bytes) and parsed with jansson. An
 * architecture the analytic model does not cover, or a file that cannot be
 * read or parsed, is reported in one line and ignored: the run goes on as
 * without it, never guessing a shape. */
#ifndef LLMPROF_MODEL_JSON_H
#define LLMPROF_MODEL_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

struct run_ctx;

/* The shape a config.json describes (transformers key names in comments). */
struct hf_model {
	char model_type[64]; /* model_type */
	int64_t hidden;	     /* hidden_size */
	int64_t inter;	     /* intermediate_size */
	int64_t layers;	     /* num_hidden_layers */
	int64_t heads;	     /* num_attention_heads */
	int64_t kv_heads;    /* num_key_value_heads (default: heads) */
	int64_t head_dim;    /* head_dim (default: hidden / heads) */
	int64_t vocab;	     /* vocab_size */
	int64_t max_pos;     /* max_position_embeddings (default 2048) */
	double rope_theta;   /* rope_theta (default 10000) */
	double eps;	     /* rms_norm_eps (default 1e-6) */
	int tie;	     /* tie_word_embeddings (default false) */
	int qkv_bias;	     /* attention_bias; qwen2: always */
};

/* Parses config.json text (buf, len; path names it in messages). 0; -1 with
 * err when it is not a usable config.json (not JSON: "path:line:col: ...";
 * a required key missing or not a positive integer); 1 with err when its
 * model_type is one the analytic model does not cover (llama, mistral and
 * qwen2 are: RMSNorm, RoPE, SwiGLU, grouped-query attention). */
int hf_model_parse(struct hf_model *m, const char *buf, size_t len, const char *path,
		   struct strbuf *err);

/* The config.json argv (NULL-terminated, argv[0] the program) names, into
 * path: 1 found, 0 none. */
int hf_model_find(const char *const *argv, struct strbuf *path);

/* The model.* overrides for m (model.name = name), as NULL-terminated owned
 * strings (HF_MODEL_NR_OVERRIDES of them); free with hf_model_overrides_free. */
#define HF_MODEL_NR_OVERRIDES 14
char **hf_model_overrides(const struct hf_model *m, const char *name);
void hf_model_overrides_free(char **ov);

/* For `llmprof profile`: when rc's config (loaded with the n user overrides
 * ov) is a command workload without model keys and its argv names a
 * config.json, the overrides that give its shape (owned; NULL when none)
 * and the one line to tell the user in note ("model shape from ...", or
 * why a config.json was ignored; empty when none was found). *path_out
 * gets the config.json's path (owned) when its overrides are returned. */
char **run_model_json(const struct run_ctx *rc, const char *const *ov, size_t n,
		      struct strbuf *note, char **path_out);

#endif
