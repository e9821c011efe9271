/* llm_analytic.c: exact FLOP and byte counts of the built-in LLM from its
 * config, per stage and per decode step (formulas in docs/workloads.md). */
#include <stdio.h>
#include <string.h>

#include "llm.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/banned.h"

int llm_prefill_flash(const struct llm_config *c, int elem_bytes)
{
	return elem_bytes == 2 && (c->head_dim == 64 || c->head_dim == 128);
}

/* Computed in double: the shapes the schema accepts (batch and prompt up to
 * 2^20 and more) give counts far beyond 2^64; a double is exact below 2^53
 * and off by a relative 1e-16 above, where uint64 arithmetic wrapped. */
void llm_cost_forward(const struct llm_config *c, int batch, int n, int pos, int head,
		      int elem_bytes, struct llm_cost *o)
{
	double B = batch, N = n, P = pos, L = c->layers, H = c->hidden, V = c->vocab;
	double hd = c->head_dim, nh = c->heads, es = elem_bytes, kvd = llm_kv_dim(c);
	double I = c->intermediate, macs_per_tok, layer_params = 0, keys;

	memset(o, 0, sizeof(*o));
	o->tokens = B * N;
	macs_per_tok = H * llm_qkv_dim(c) + llm_q_dim(c) * H + H * 2 * I + I * H;
	o->matmul_flops = 2 * B * N * L * macs_per_tok + (head ? 2 * B * H * V : 0);
	/* Query at position p attends keys 0..p: QK^T and PV, hd MACs each.
	 * sum_{p=pos}^{pos+n-1} (p+1) = n*pos + n(n+1)/2 */
	keys = N * P + N * (N + 1) / 2;
	o->attn_flops = L * B * nh * 4 * hd * keys;
	/* What the GPU prefill executes: the flash kernel (bf16/fp16, head_dim
	 * 64 or 128) runs whole 64x64 tiles up to the diagonal; the GEMM path
	 * scores every query against all pos+n keys, masked. */
	if (n > 1 && llm_prefill_flash(c, elem_bytes)) {
		double nq = (double)((n + 63) / 64), tiles = nq * (nq + 1) / 2;

		o->attn_flops_executed = L * B * nh * 4 * hd * 64 * 64 * tiles;
	} else if (n > 1) {
		o->attn_flops_executed = L * B * nh * 4 * hd * N * (P + N);
	} else {
		o->attn_flops_executed = o->attn_flops;
	}
	o->flops = o->matmul_flops + o->attn_flops;

	for (int k = LLM_T_ATTN_NORM; k <= LLM_T_WDOWN; k++)
		layer_params += (double)llm_tensor_numel(c, k);
	o->weight_bytes = es * (L * layer_params + B * N * H /* embedding rows gathered */);
	if (head)
		o->weight_bytes += es * (H + V * H); /* final norm + LM head */
	o->kv_write_bytes = es * L * B * N * 2 * kvd;
	o->kv_read_bytes = es * L * B * (P + N) * 2 * kvd;
	o->bytes = o->weight_bytes + o->kv_read_bytes + o->kv_write_bytes;
}

static void add_cost(struct llm_cost *a, const struct llm_cost *b)
{
	a->tokens += b->tokens;
	a->matmul_flops += b->matmul_flops;
	a->attn_flops += b->attn_flops;
	a->attn_flops_executed += b->attn_flops_executed;
	a->flops += b->flops;
	a->weight_bytes += b->weight_bytes;
	a->kv_read_bytes += b->kv_read_bytes;
	a->kv_write_bytes += b->kv_write_bytes;
	a->bytes += b->bytes;
}

/* A count: an exact integer below 2^53, else the double in exponent form
 * (a JSON number readers take as a real, not an int64 that overflows). */
static void add_count(struct strbuf *sb, const char *key, double v, const char *sep)
{
	if (v < 9007199254740992.0)
		strbuf_addf(sb, "\"%s\": %.0f%s", key, v, sep);
	else
		strbuf_addf(sb, "\"%s\": %.17e%s", key, v, sep);
}

static void cost_json(struct strbuf *sb, const struct llm_cost *o)
{
	add_count(sb, "tokens", o->tokens, ", ");
	add_count(sb, "flops", o->flops, ", ");
	add_count(sb, "matmul_flops", o->matmul_flops, ", ");
	add_count(sb, "attn_flops", o->attn_flops, ", ");
	add_count(sb, "attn_flops_executed_gpu", o->attn_flops_executed, ", ");
	add_count(sb, "bytes", o->bytes, ", ");
	add_count(sb, "weight_bytes", o->weight_bytes, ", ");
	add_count(sb, "kv_read_bytes", o->kv_read_bytes, ", ");
	add_count(sb, "kv_write_bytes", o->kv_write_bytes, "");
}

static void sub_cost(struct llm_cost *d, const struct llm_cost *a, const struct llm_cost *b)
{
	d->tokens = a->tokens - b->tokens;
	d->matmul_flops = a->matmul_flops - b->matmul_flops;
	d->attn_flops = a->attn_flops - b->attn_flops;
	d->attn_flops_executed = a->attn_flops_executed - b->attn_flops_executed;
	d->flops = a->flops - b->flops;
	d->weight_bytes = a->weight_bytes - b->weight_bytes;
	d->kv_read_bytes = a->kv_read_bytes - b->kv_read_bytes;
	d->kv_write_bytes = a->kv_write_bytes - b->kv_write_bytes;
	d->bytes = a->bytes - b->bytes;
}

void llm_analytic_json(struct strbuf *out, const struct llm_config *c,
		       const struct llm_run_opts *opt)
{
	struct strbuf sb = STRBUF_INIT;
	struct llm_cost pre, step, dec;
	int es = llm_dtype_bytes(opt->dtype), P = opt->prompt_len, N = opt->new_tokens;

	memset(&dec, 0, sizeof(dec));
	strbuf_addstr(&sb,
		      "{\n  \"schema\": \"llmprof-llm-analytic/1\",\n  \"model\": {\"name\": \"");
	utf8_json_escape(&sb, c->name, strlen(c->name));
	strbuf_addf(
	    &sb,
	    "\", \"hidden_size\": %d, \"intermediate_size\": %d, \"num_layers\": %d, "
	    "\"num_heads\": %d, \"num_kv_heads\": %d, \"head_dim\": %d, \"vocab_size\": %d, "
	    "\"qkv_bias\": %s, \"tie_word_embeddings\": %s, \"params\": %llu},\n",
	    c->hidden, c->intermediate, c->layers, c->heads, c->kv_heads, c->head_dim, c->vocab,
	    c->qkv_bias ? "true" : "false", c->tie_embeddings ? "true" : "false",
	    (unsigned long long)llm_param_count(c));
	strbuf_addf(&sb,
		    "  \"run\": {\"batch\": %d, \"prompt_len\": %d, \"new_tokens\": %d, "
		    "\"decode_steps\": %d, \"dtype\": \"%s\", \"elem_bytes\": %d, "
		    "\"gpu_prefill_attention\": \"%s\"},\n",
		    opt->batch, P, N, N > 1 ? N - 1 : 0, llm_dtype_name(opt->dtype), es,
		    llm_prefill_flash(c, es) ? "flash" : "gemm");
	strbuf_addstr(&sb,
		      "  \"counting\": {\"flop_per_mac\": 2, \"elementwise_counted\": false, "
		      "\"attention\": \"causal: the query at position p attends p+1 keys\", "
		      "\"bytes\": \"weights read once per forward (embedding: gathered rows only) "
		      "+ KV cache read once per layer per sequence + KV cache written; "
		      "activations not counted\"},\n");
	llm_cost_forward(c, opt->batch, P, 0, N > 0, es, &pre);
	strbuf_addstr(&sb, "  \"prefill\": {");
	cost_json(&sb, &pre);
	/* A decode step's cost is affine in its position (one more key to
	 * attend, one more KV row to read): past LLM_ANALYTIC_STEPS_LISTED
	 * steps the file gives the first step and the change per step instead
	 * of every step, so its size does not grow with the token count. */
	if (N - 1 > LLM_ANALYTIC_STEPS_LISTED) {
		struct llm_cost first, second, delta;

		llm_cost_forward(c, opt->batch, 1, P, 1, es, &first);
		llm_cost_forward(c, opt->batch, 1, P + 1, 1, es, &second);
		sub_cost(&delta, &second, &first);
		strbuf_addf(&sb,
			    "},\n  \"decode_steps_affine\": {\"steps\": %d, "
			    "\"first\": {\"step\": 1, \"pos\": %d, \"kv_len\": %d, ",
			    N - 1, P, P + 1);
		cost_json(&sb, &first);
		strbuf_addstr(&sb, "},\n    \"per_step\": {");
		cost_json(&sb, &delta);
		strbuf_addstr(&sb, "}},\n  \"decode\": {");
		for (int s = 1; s < N; s++) {
			llm_cost_forward(c, opt->batch, 1, P + s - 1, 1, es, &step);
			add_cost(&dec, &step);
		}
	} else {
		strbuf_addstr(&sb, "},\n  \"decode_steps\": [");
		for (int s = 1; s < N; s++) {
			llm_cost_forward(c, opt->batch, 1, P + s - 1, 1, es, &step);
			add_cost(&dec, &step);
			strbuf_addf(&sb, "%s\n    {\"step\": %d, \"pos\": %d, \"kv_len\": %d, ",
				    s > 1 ? "," : "", s, P + s - 1, P + s);
			cost_json(&sb, &step);
			strbuf_addstr(&sb, "}");
		}
		strbuf_addstr(&sb, "\n  ],\n  \"decode\": {");
	}
	cost_json(&sb, &dec);
	strbuf_addstr(&sb, "}\n}\n");
	strbuf_add(out, sb.buf, sb.len);
	strbuf_release(&sb);
}

int llm_analytic_write(const char *path, const struct llm_config *c, const struct llm_run_opts *opt,
		       char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
	int rc = 0;

	llm_analytic_json(&sb, c, opt);
	if (write_file_atomic(path, sb.buf, sb.len, &e)) {
		snprintf(err, errlen, "%s", e.buf);
		rc = -1;
	}
	strbuf_release(&sb);
	strbuf_release(&e);
	return rc;
}
