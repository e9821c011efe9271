/* safetensors.c: reads a local safetensors file (8-byte little-endian
 * header length, a JSON header {name: {dtype, shape, data_offsets}}, then
 * the raw data) and maps Hugging Face Llama tensor names onto our fused
 * layout. Sizes and offsets from the file are checked, never trusted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "core/banned.h"

struct st_entry {
	char name[128];
	char dtype[8];
	uint64_t numel, begin, end;
};

struct st_file {
	FILE *fp;
	char path[512];
	uint64_t data_start, data_len;
	struct st_entry *e;
	size_t n, alloc;
};

struct jp {
	const char *s;
	size_t len, i;
};

static void jp_ws(struct jp *p)
{
	while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\n' || p->s[p->i] == '\t' ||
				 p->s[p->i] == '\r'))
		p->i++;
}

static int jp_ch(struct jp *p, char c)
{
	jp_ws(p);
	if (p->i < p->len && p->s[p->i] == c) {
		p->i++;
		return 1;
	}
	return 0;
}

/* A string without escapes other than \" and \\ (tensor names have none). */
static int jp_str(struct jp *p, char *out, size_t cap)
{
	size_t n = 0;

	if (!jp_ch(p, '"'))
		return -1;
	while (p->i < p->len && p->s[p->i] != '"') {
		char c = p->s[p->i++];
		if (c == '\\' && p->i < p->len)
			c = p->s[p->i++];
		if (n + 1 < cap)
			out[n++] = c;
	}
	if (p->i >= p->len)
		return -1;
	p->i++;
	out[n] = 0;
	return 0;
}

static int jp_u64(struct jp *p, uint64_t *v)
{
	int any = 0;

	jp_ws(p);
	*v = 0;
	while (p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
		uint64_t d = (uint64_t)(p->s[p->i++] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return -1;
		*v = *v * 10 + d;
		any = 1;
	}
	return any ? 0 : -1;
}

/* Skips one JSON value of any kind (__metadata__, unknown keys), leaving
 * p at the ',' or '}' after it. */
static int jp_skip(struct jp *p)
{
	int depth = 0;
	char tmp[2];

	jp_ws(p);
	while (p->i < p->len) {
		char c = p->s[p->i];
		if (c == '"') {
			if (jp_str(p, tmp, sizeof(tmp)))
				return -1;
			if (!depth)
				return 0;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return 0; /* end of the enclosing object: a scalar ended */
			if (--depth == 0) {
				p->i++;
				return 0;
			}
		} else if (!depth && c == ',') {
			return 0;
		}
		p->i++;
	}
	return -1;
}

static int parse_entry(struct jp *p, struct st_entry *e)
{
	char key[32];
	uint64_t v;

	e->numel = 1;
	if (!jp_ch(p, '{'))
		return -1;
	do {
		if (jp_str(p, key, sizeof(key)) || !jp_ch(p, ':'))
			return -1;
		if (!strcmp(key, "dtype")) {
			if (jp_str(p, e->dtype, sizeof(e->dtype)))
				return -1;
		} else if (!strcmp(key, "shape") || !strcmp(key, "data_offsets")) {
			int shape = key[0] == 's', k = 0;
			if (!jp_ch(p, '['))
				return -1;
			if (!jp_ch(p, ']')) {
				do {
					if (jp_u64(p, &v))
						return -1;
					if (shape) {
						if (v && e->numel > UINT64_MAX / v)
							return -1;
						e->numel *= v;
					} else if (k == 0) {
						e->begin = v;
					} else {
						e->end = v;
					}
					k++;
				} while (jp_ch(p, ','));
				if (!jp_ch(p, ']'))
					return -1;
			}
		} else if (jp_skip(p)) {
			return -1;
		}
	} while (jp_ch(p, ','));
	return jp_ch(p, '}') ? 0 : -1;
}

/* Parses the JSON header (buf, len) into f's entries; every offset must
 * lie inside the f->data_len bytes that follow the header. */
static int st_parse_header(struct st_file *f, const char *hdr, size_t len, char *err, size_t errlen)
{
	struct jp p = {hdr, len, 0};

	if (!jp_ch(&p, '{'))
		goto bad;
	if (jp_ch(&p, '}'))
		return 0;
	do {
		struct st_entry e;
		memset(&e, 0, sizeof(e));
		if (jp_str(&p, e.name, sizeof(e.name)) || !jp_ch(&p, ':'))
			goto bad;
		if (!strcmp(e.name, "__metadata__")) {
			if (jp_skip(&p))
				goto bad;
			continue;
		}
		if (parse_entry(&p, &e) || e.end < e.begin || e.end > f->data_len)
			goto bad;
		if (f->n == f->alloc) {
			size_t na = f->alloc ? 2 * f->alloc : 64;
			struct st_entry *ne = realloc(f->e, na * sizeof(*ne));
			if (!ne) {
				snprintf(err, errlen, "'%s': out of memory", f->path);
				return -1;
			}
			f->e = ne;
			f->alloc = na;
		}
		f->e[f->n++] = e;
	} while (jp_ch(&p, ','));
	if (jp_ch(&p, '}'))
		return 0;
bad:
	snprintf(err, errlen, "'%s': not a valid safetensors file (bad header at byte %zu)",
		 f->path, (size_t)8 + p.i);
	return -1;
}

struct st_file *st_open(const char *path, char *err, size_t errlen)
{
	struct st_file *f = calloc(1, sizeof(*f));
	unsigned char hl[8];
	uint64_t hlen = 0, fsize;
	char *hdr = NULL;

	if (!f)
		goto oom;
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!(f->fp = fopen(path, "rb"))) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (fseek(f->fp, 0, SEEK_END) || (long)(fsize = (uint64_t)ftell(f->fp)) < 0 ||
	    fseek(f->fp, 0, SEEK_SET) || fread(hl, 1, 8, f->fp) != 8)
		goto bad;
	for (int i = 7; i >= 0; i--)
		hlen = hlen << 8 | hl[i];
	if (hlen == 0 || hlen > 100u << 20 || 8 + hlen > fsize)
		goto bad;
	if (!(hdr = malloc(hlen)))
		goto oom;
	if (fread(hdr, 1, hlen, f->fp) != hlen)
		goto bad;
	f->data_start = 8 + hlen;
	f->data_len = fsize - f->data_start;
	if (st_parse_header(f, hdr, hlen, err, errlen))
		goto fail;
	free(hdr);
	return f;
bad:
	snprintf(err, errlen, "'%s': not a valid safetensors file (bad header length)", path);
	goto fail;
oom:
	snprintf(err, errlen, "out of memory reading '%s'", path);
fail:
	free(hdr);
	st_close(f);
	return NULL;
}

void st_close(struct st_file *f)
{
	if (!f)
		return;
	if (f->fp)
		fclose(f->fp);
	free(f->e);
	free(f);
}

static struct st_entry *st_find(struct st_file *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].name, name))
			return &f->e[i];
	return NULL;
}

int st_has(struct st_file *f, const char *name)
{
	return st_find(f, name) != NULL;
}

static float half_to_f(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, u;
	float out;

	if (e == 0) { /* subnormal or zero */
		float v = (float)m / 16777216.0f;
		return s ? -v : v;
	}
	u = s | (e == 31 ? 0x7f800000u | m << 13 : (e + 112) << 23 | m << 13);
	memcpy(&out, &u, 4);
	return out;
}

int st_read_f32(struct st_file *f, const char *name, float *dst, uint64_t numel, char *err,
		size_t errlen)
{
	struct st_entry *e = st_find(f, name);
	int es;
	unsigned char *raw;

	if (!e) {
		snprintf(err, errlen, "'%s': tensor '%s' not found", f->path, name);
		return -1;
	}
	es = !strcmp(e->dtype, "F32")				       ? 4
	     : (!strcmp(e->dtype, "BF16") || !strcmp(e->dtype, "F16")) ? 2
								       : 0;
	if (!es) {
		snprintf(err, errlen, "'%s': tensor '%s' has dtype %s (want F32, BF16 or F16)",
			 f->path, name, e->dtype);
		return -1;
	}
	if (e->numel != numel || e->end - e->begin != numel * (uint64_t)es) {
		snprintf(err, errlen,
			 "'%s': tensor '%s' has %llu elements, the model config needs %llu",
			 f->path, name, (unsigned long long)e->numel, (unsigned long long)numel);
		return -1;
	}
	raw =
	    (unsigned char *)dst + (es == 2 ? numel * 2 : 0); /* convert in place, back to front */
	if (fseek(f->fp, (long)(f->data_start + e->begin), SEEK_SET) ||
	    fread(raw, es, numel, f->fp) != numel) {
		snprintf(err, errlen, "'%s': short read of tensor '%s'", f->path, name);
		return -1;
	}
	if (es == 2) {
		int bf = e->dtype[0] == 'B';
		for (uint64_t i = 0; i < numel; i++) {
			uint16_t h;
			memcpy(&h, raw + 2 * i, 2);
			if (bf) {
				uint32_t u = (uint32_t)h << 16;
				memcpy(&dst[i], &u, 4);
			} else {
				dst[i] = half_to_f(h);
			}
		}
	}
	return 0;
}

int llm_load_hf_tensor(struct st_file *f, const struct llm_config *c, int kind, int layer,
		       float *dst, char *err, size_t errlen)
{
	char n[160];
	uint64_t H = (uint64_t)c->hidden, I = (uint64_t)c->intermediate;
	uint64_t QD = (uint64_t)llm_q_dim(c), KVD = (uint64_t)llm_kv_dim(c);
	const char *pre = "model.layers";

#define NAME(fmt) snprintf(n, sizeof(n), "%s.%d." fmt, pre, layer)
	switch (kind) {
	case LLM_T_EMBED:
		return st_read_f32(f, "model.embed_tokens.weight", dst, H * c->vocab, err, errlen);
	case LLM_T_FINAL_NORM:
		return st_read_f32(f, "model.norm.weight", dst, H, err, errlen);
	case LLM_T_LM_HEAD:
		return st_read_f32(f, "lm_head.weight", dst, H * c->vocab, err, errlen);
	case LLM_T_ATTN_NORM:
		NAME("input_layernorm.weight");
		return st_read_f32(f, n, dst, H, err, errlen);
	case LLM_T_MLP_NORM:
		NAME("post_attention_layernorm.weight");
		return st_read_f32(f, n, dst, H, err, errlen);
	case LLM_T_WO:
		NAME("self_attn.o_proj.weight");
		return st_read_f32(f, n, dst, H * QD, err, errlen);
	case LLM_T_WDOWN:
		NAME("mlp.down_proj.weight");
		return st_read_f32(f, n, dst, H * I, err, errlen);
	case LLM_T_WQKV:
		NAME("self_attn.q_proj.weight");
		if (st_read_f32(f, n, dst, QD * H, err, errlen))
			return -1;
		NAME("self_attn.k_proj.weight");
		if (st_read_f32(f, n, dst + QD * H, KVD * H, err, errlen))
			return -1;
		NAME("self_attn.v_proj.weight");
		return st_read_f32(f, n, dst + (QD + KVD) * H, KVD * H, err, errlen);
	case LLM_T_BQKV:
		NAME("self_attn.q_proj.bias");
		if (st_read_f32(f, n, dst, QD, err, errlen))
			return -1;
		NAME("self_attn.k_proj.bias");
		if (st_read_f32(f, n, dst + QD, KVD, err, errlen))
			return -1;
		NAME("self_attn.v_proj.bias");
		return st_read_f32(f, n, dst + QD + KVD, KVD, err, errlen);
	case LLM_T_WGU:
		NAME("mlp.gate_proj.weight");
		if (st_read_f32(f, n, dst, I * H, err, errlen))
			return -1;
		NAME("mlp.up_proj.weight");
		return st_read_f32(f, n, dst + I * H, I * H, err, errlen);
	}
#undef NAME
	snprintf(err, errlen, "unknown tensor kind %d", kind);
	return -1;
}
