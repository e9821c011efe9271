/* llm_main.c: llmprof-llm, the built-in LLM workload (docs/workloads.md).
 * Parses flags, picks the device, runs warm-ups and the measured run and
 * prints one parseable summary line last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "nvtx_shim.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/banned.h"

#define PROG "llmprof-llm"

static const char usage[] =
    "usage: " PROG " [--device auto|cpu|cuda[:N]] [--model-name NAME] [--hidden N]\n"
    "  [--intermediate N] [--layers N] [--heads N] [--kv-heads N] [--head-dim N] [--vocab N]\n"
    "  [--max-pos N] [--rope-theta F] [--rms-eps F] [--qkv-bias 0|1] [--tie-embeddings 0|1]\n"
    "  [--weights FILE.safetensors] [--seed N] [--dtype bf16|fp16|fp32] [--batch N]\n"
    "  [--prompt-len N] [--new-tokens N] [--cuda-graph 0|1] [--warmup N]\n"
    "  [--analytic-out FILE.json] [--dump-logits FILE] [--threads N]\n"
    "  [--decode-gemm cublaslt|gemv] [--pdl 0|1] [--check-ops]\n";

struct args {
	struct llm_config c;
	struct llm_run_opts o;
	const char *device, *analytic, *dump, *dtype;
	int check_ops;
};

static int int_flag(const char *v, int64_t lo, int64_t hi, int *out, struct strbuf *err)
{
	int64_t x;

	if (parse_i64(v, lo, hi, &x, err))
		return -1;
	*out = (int)x;
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a, struct strbuf *err)
{
	struct llm_config *c = &a->c;
	struct llm_run_opts *o = &a->o;

	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v;
		double d;
		int rc = 0;

		if (!strcmp(f, "--check-ops")) {
			a->check_ops = 1;
			continue;
		}
		if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			fputs(usage, stdout);
			exit(0);
		}
		if (strncmp(f, "--", 2))
			return error_set(err, "unexpected argument '%s'", f);
		if (i + 1 >= argc)
			return error_set(err, "option '%s' needs a value", f);
		v = argv[++i];
		f += 2;
		if (!strcmp(f, "device"))
			a->device = v;
		else if (!strcmp(f, "model-name"))
			snprintf(c->name, sizeof(c->name), "%s", v);
		else if (!strcmp(f, "hidden"))
			rc = int_flag(v, 1, LLM_MAX_HIDDEN, &c->hidden, err);
		else if (!strcmp(f, "intermediate"))
			rc = int_flag(v, 1, LLM_MAX_INTERMEDIATE, &c->intermediate, err);
		else if (!strcmp(f, "layers"))
			rc = int_flag(v, 1, LLM_MAX_LAYERS, &c->layers, err);
		else if (!strcmp(f, "heads"))
			rc = int_flag(v, 1, LLM_MAX_HEADS, &c->heads, err);
		else if (!strcmp(f, "kv-heads"))
			rc = int_flag(v, 1, LLM_MAX_HEADS, &c->kv_heads, err);
		else if (!strcmp(f, "head-dim"))
			rc = int_flag(v, LLM_MIN_HEAD_DIM, LLM_MAX_HEAD_DIM, &c->head_dim, err);
		else if (!strcmp(f, "vocab"))
			rc = int_flag(v, 1, LLM_MAX_VOCAB, &c->vocab, err);
		else if (!strcmp(f, "max-pos"))
			rc = int_flag(v, 1, LLM_MAX_POSITION, &c->max_pos, err);
		else if (!strcmp(f, "rope-theta") || !strcmp(f, "rms-eps")) {
			if (parse_double(v, &d, err))
				return error_set(err, " (--%s)", f);
			if (!(d > 0))
				return error_set(err, "--%s must be > 0", f);
			*(f[1] == 'o' ? &c->rope_theta : &c->rms_eps) = d;
		} else if (!strcmp(f, "qkv-bias"))
			rc = int_flag(v, 0, 1, &c->qkv_bias, err);
		else if (!strcmp(f, "tie-embeddings"))
			rc = int_flag(v, 0, 1, &c->tie_embeddings, err);
		else if (!strcmp(f, "weights"))
			o->weights = v;
		else if (!strcmp(f, "seed")) {
			uint64_t s;
			if (parse_u64(v, 0, UINT64_MAX, &s, err))
				return error_set(err, " (--seed)");
			c->seed = s;
		} else if (!strcmp(f, "dtype"))
			a->dtype = v;
		else if (!strcmp(f, "batch"))
			rc = int_flag(v, 1, 4096, &o->batch, err);
		else if (!strcmp(f, "prompt-len"))
			rc = int_flag(v, 1, 1 << 20, &o->prompt_len, err);
		else if (!strcmp(f, "new-tokens"))
			rc = int_flag(v, 0, 1 << 20, &o->new_tokens, err);
		else if (!strcmp(f, "cuda-graph"))
			rc = int_flag(v, 0, 1, &o->cuda_graph, err);
		else if (!strcmp(f, "warmup"))
			rc = int_flag(v, 0, 1000, &o->warmup, err);
		else if (!strcmp(f, "pdl"))
			rc = int_flag(v, 0, 1, &o->pdl, err);
		else if (!strcmp(f, "threads"))
			rc = int_flag(v, 0, 4096, &o->threads, err);
		else if (!strcmp(f, "analytic-out"))
			a->analytic = v;
		else if (!strcmp(f, "dump-logits"))
			a->dump = v;
		else if (!strcmp(f, "decode-gemm")) {
			if (strcmp(v, "cublaslt") && strcmp(v, "gemv"))
				return error_set(err, "--decode-gemm: '%s' is not cublaslt or gemv",
						 v);
			o->own_gemv = v[0] == 'g';
		} else
			return error_set(err, "unknown option '--%s' (see --help)", f);
		if (rc)
			return error_set(err, " (--%s)", f);
	}
	if (a->dtype) {
		if (!strcmp(a->dtype, "bf16"))
			o->dtype = LLM_BF16;
		else if (!strcmp(a->dtype, "fp16"))
			o->dtype = LLM_FP16;
		else if (!strcmp(a->dtype, "fp32"))
			o->dtype = LLM_FP32;
		else
			return error_set(err, "--dtype: '%s' is not bf16, fp16 or fp32", a->dtype);
	}
	return 0;
}

/* device: "auto", "cpu", "cuda" or "cuda:N" -> *dev = -1 (cpu) or N. */
static int pick_device(const char *s, int *dev, struct strbuf *err)
{
	int n = llm_cuda_device_count();
	int64_t idx = 0;

	if (!strcmp(s, "cpu")) {
		*dev = -1;
		return 0;
	}
	if (!strcmp(s, "auto")) {
		*dev = n > 0 ? 0 : -1;
		return 0;
	}
	if (strncmp(s, "cuda", 4) || (s[4] && s[4] != ':'))
		return error_set(err, "--device: '%s' is not auto, cpu, cuda or cuda:N", s);
	if (s[4] == ':' && parse_i64(s + 5, 0, 1023, &idx, err))
		return error_set(err, " (--device)");
	if (n <= 0)
		return error_set(
		    err, "--device %s: no usable CUDA device (%s); use --device cpu or auto", s,
		    n < 0 ? "built without CUDA" : "no driver or no GPU");
	if (idx >= n)
		return error_set(err, "--device %s: only %d CUDA device(s)", s, n);
	*dev = (int)idx;
	return 0;
}

static void summary(const struct args *a, int dev, const struct llm_result *r)
{
	int B = a->o.batch, N = a->o.new_tokens, steps = N > 1 ? N - 1 : 0;
	double tps = r->decode_ms > 0 ? (double)B * steps / (r->decode_ms / 1e3) : 0;
	struct strbuf sb = STRBUF_INIT;

	char devname[32];

	if (dev < 0)
		snprintf(devname, sizeof(devname), "cpu");
	else
		snprintf(devname, sizeof(devname), "cuda:%d", dev);
	strbuf_addf(&sb,
		    PROG
		    ": model=%s device=%s dtype=%s batch=%d prompt=%d new=%d graph=%d "
		    "prefill_ms=%.3f decode_ms=%.3f decode_steps=%d tokens_per_s=%.2f tokens=[",
		    a->c.name, devname, llm_dtype_name(a->o.dtype), B, a->o.prompt_len, N,
		    a->o.cuda_graph, r->prefill_ms, r->decode_ms, steps, tps);
	for (int b = 0; b < B; b++) {
		for (int s = 0; s < N; s++)
			strbuf_addf(&sb, "%s%d", s ? "," : (b ? ";" : ""),
				    r->tokens[(size_t)b * N + s]);
	}
	strbuf_addstr(&sb, "]\n");
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	struct args a;
	struct strbuf err = STRBUF_INIT;
	struct llm_result res = {0};
	char e[512];
	int dev = -1, rc = EXIT_OK;
	size_t n_logits;

	memset(&a, 0, sizeof(a));
	/* Defaults: the tiny model (conf/model/tiny.yaml). */
	snprintf(a.c.name, sizeof(a.c.name), "tiny");
	a.c.hidden = 128;
	a.c.intermediate = 352;
	a.c.layers = 4;
	a.c.heads = 4;
	a.c.kv_heads = 2;
	a.c.head_dim = 32;
	a.c.vocab = 1024;
	a.c.max_pos = 2048;
	a.c.rope_theta = 10000.0;
	a.c.rms_eps = 1e-5;
	a.c.seed = 1234;
	a.o.batch = 1;
	a.o.prompt_len = 16;
	a.o.new_tokens = 8;
	a.o.warmup = 1;
	a.o.own_gemv = 1; /* measured faster than cuBLASLt at batch 1 (docs/workloads.md) */
	a.o.pdl = 1;	  /* programmatic dependent launch where the GPU has it (sm_90+) */
	a.o.dtype = (enum llm_dtype) - 1;
	a.device = "auto";

	if (parse_args(argc, argv, &a, &err) || pick_device(a.device, &dev, &err)) {
		fprintf(stderr, PROG ": error: %s\n", err.buf);
		rc = EXIT_USAGE + (strstr(err.buf, "no usable CUDA") ? 2 : 0);
		goto out;
	}
	if (a.check_ops) {
		int fails;
		if (dev < 0) {
			fprintf(stderr, PROG ": error: --check-ops needs a CUDA device\n");
			rc = EXIT_TOOL_MISSING;
			goto out;
		}
		fails = llm_cuda_check_ops(dev, (int)a.o.dtype < 0 ? LLM_BF16 : a.o.dtype);
		printf(PROG ": check-ops failures=%d\n", fails);
		rc = fails ? EXIT_WORKLOAD_FAILED : EXIT_OK;
		goto out;
	}
	if ((int)a.o.dtype < 0)
		a.o.dtype = dev < 0 ? LLM_FP32 : LLM_BF16;
	if (llm_config_check(&a.c, e, sizeof(e))) {
		fprintf(stderr, PROG ": error: %s\n", e);
		rc = EXIT_USAGE;
		goto out;
	}
	if ((int64_t)a.o.prompt_len + a.o.new_tokens > a.c.max_pos) {
		fprintf(stderr, PROG ": error: prompt-len + new-tokens = %lld exceeds max-pos %d\n",
			(long long)a.o.prompt_len + a.o.new_tokens, a.c.max_pos);
		rc = EXIT_USAGE;
		goto out;
	}
	if (a.analytic && llm_analytic_write(a.analytic, &a.c, &a.o, e, sizeof(e))) {
		fprintf(stderr, PROG ": error: %s\n", e);
		rc = EXIT_IO;
		goto out;
	}
	res.tokens = calloc((size_t)a.o.batch * (a.o.new_tokens + 1), sizeof(int));
	n_logits = (size_t)a.o.new_tokens * a.o.batch * a.c.vocab;
	if (a.dump && n_logits)
		res.logits = calloc(n_logits, sizeof(float));
	if (!res.tokens || (a.dump && n_logits && !res.logits)) {
		fprintf(stderr, PROG ": error: out of memory\n");
		rc = EXIT_INTERNAL;
		goto out;
	}
	nvtx_domain("LLM");
	printf(PROG ": %s params=%llu layers=%d hidden=%d heads=%d/%d vocab=%d on %s\n", a.c.name,
	       (unsigned long long)llm_param_count(&a.c), a.c.layers, a.c.hidden, a.c.heads,
	       a.c.kv_heads, a.c.vocab, dev < 0 ? "cpu" : "cuda");
	fflush(stdout);
	if (dev < 0) {
		struct llm_cpu *m;
		int round = a.o.dtype == LLM_BF16 ? 1 : a.o.dtype == LLM_FP16 ? 2 : 0;
		if (!(m = llm_cpu_new(&a.c, &a.o, round, e, sizeof(e)))) {
			fprintf(stderr, PROG ": error: %s\n", e);
			rc = a.o.weights ? EXIT_BAD_INPUT : EXIT_INTERNAL;
			goto out;
		}
		for (int w = 0; w < a.o.warmup && !rc; w++)
			rc = llm_cpu_generate(m, 0, &res) ? EXIT_INTERNAL : 0;
		if (!rc)
			rc = llm_cpu_generate(m, 1, &res) ? EXIT_INTERNAL : 0;
		llm_cpu_free(m);
		if (rc) {
			fprintf(stderr, PROG ": error: out of memory\n");
			goto out;
		}
	} else if (llm_cuda_run(&a.c, &a.o, dev, &res, e, sizeof(e))) {
		fprintf(stderr, PROG ": error: %s\n", e);
		rc = EXIT_WORKLOAD_FAILED;
		goto out;
	}
	if (a.dump && n_logits) {
		FILE *fp = fopen(a.dump, "wb");
		if (!fp || fwrite(res.logits, sizeof(float), n_logits, fp) != n_logits) {
			fprintf(stderr, PROG ": error: cannot write '%s'\n", a.dump);
			if (fp)
				fclose(fp);
			rc = EXIT_IO;
			goto out;
		}
		if (fclose(fp)) {
			fprintf(stderr, PROG ": error: cannot write '%s'\n", a.dump);
			rc = EXIT_IO;
			goto out;
		}
	}
	summary(&a, dev, &res);
out:
	free(res.tokens);
	free(res.logits);
	strbuf_release(&err);
	return rc;
}
