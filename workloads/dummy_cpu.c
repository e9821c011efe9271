/* dummy_cpu.c: the dummy model's init, ranged forward driver (shared by
 * both backends) and CPU backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dummy.h"
#include "nvtx_shim.h"
#include "core/util.h"
#include "core/banned.h"

float dummy_value(uint64_t seed, uint32_t tensor, uint64_t i, float scale)
{
	uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tensor << 40) ^ i;

	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (2.0f * ((float)(z >> 40) * (1.0f / 16777216.0f)) - 1.0f) * scale;
}

size_t dummy_numel(const struct dummy_shape *s, int which)
{
	size_t px = (size_t)s->batch * s->size * s->size, C = (size_t)s->channels;

	if (which == DUMMY_INPUT)
		return px * DUMMY_IN_CH;
	if (which == DUMMY_ACT)
		return px * C;
	if (which == DUMMY_LOGITS)
		return (size_t)s->batch * DUMMY_CLASSES;
	if (which == DUMMY_STEM_W)
		return C * DUMMY_IN_CH * 9;
	if (which == DUMMY_FC_W)
		return DUMMY_CLASSES * C;
	if (which == DUMMY_FC_B)
		return DUMMY_CLASSES;
	if (which >= DUMMY_CONV_W0 && which < DUMMY_CONV_B0)
		return C * C * 9;
	return C; /* stem and conv biases */
}

void dummy_fill(const struct dummy_shape *s, int which, float *dst)
{
	size_t n = dummy_numel(s, which);
	float scale = 1.0f;

	if (which == DUMMY_STEM_W)
		scale = 1.0f / sqrtf(DUMMY_IN_CH * 9.0f);
	else if (which >= DUMMY_CONV_W0 && which < DUMMY_CONV_B0)
		scale = 1.0f / sqrtf(s->channels * 9.0f);
	else if (which == DUMMY_FC_W)
		scale = 1.0f / sqrtf((float)s->channels);
	else if (which != DUMMY_INPUT)
		scale = 0.1f;
	for (size_t i = 0; i < n; i++)
		dst[i] = dummy_value(s->seed, (uint32_t)which, i, scale);
}

static void push(const char *name, int ranged)
{
	if (ranged)
		nvtx_push(name);
}

/* Synchronise before the pop: range replay needs the region's work done. */
static void pop(const struct dummy_backend *be, int ranged)
{
	be->sync(be->ctx);
	if (ranged)
		nvtx_pop();
}

void dummy_forward(const struct dummy_backend *be, const struct dummy_shape *s,
		   struct dummy_bufs *b, int ranged)
{
	int N = s->batch, S = s->size, C = s->channels;
	size_t n = dummy_numel(s, DUMMY_ACT);

	push("stem", ranged);
	be->conv3x3(be->ctx, b->x, b->input, b->stem_w, b->stem_b, N, S, DUMMY_IN_CH, C, 1);
	pop(be, ranged);
	push("residual", ranged);
	for (int k = 0; k < DUMMY_BLOCKS; k++) {
		push("block.conv1", ranged);
		be->conv3x3(be->ctx, b->t, b->x, b->conv_w[2 * k], b->conv_b[2 * k], N, S, C, C, 1);
		pop(be, ranged);
		push("block.conv2", ranged);
		be->conv3x3(be->ctx, b->y, b->t, b->conv_w[2 * k + 1], b->conv_b[2 * k + 1], N, S,
			    C, C, 0);
		be->add_relu(be->ctx, b->x, b->y, n);
		pop(be, ranged);
	}
	pop(be, ranged);
	push("head", ranged);
	be->head(be->ctx, b->logits, b->x, b->fc_w, b->fc_b, N, S, C);
	pop(be, ranged);
	/* The regions of the original manual NVTX test: A > A::A1, then B. */
	push("A", ranged);
	be->scale(be->ctx, b->y, 0.5f, n);
	push("A::A1", ranged);
	be->scale(be->ctx, b->t, 2.0f, n);
	pop(be, ranged);
	pop(be, ranged);
	push("B", ranged);
	be->scale(be->ctx, b->y, 2.0f, n);
	pop(be, ranged);
}

/* ---- CPU backend ---- */

void dummy_cpu_conv3x3(void *ctx, float *out, const float *in, const float *w, const float *bias,
		       int batch, int size, int cin, int cout, int relu)
{
	(void)ctx;
	for (int b = 0; b < batch; b++)
		for (int h = 0; h < size; h++)
			for (int x = 0; x < size; x++) {
				float *o = out + (((size_t)b * size + h) * size + x) * cout;
				for (int co = 0; co < cout; co++) {
					float acc = bias[co];
					for (int ci = 0; ci < cin; ci++)
						for (int kh = 0; kh < 3; kh++)
							for (int kw = 0; kw < 3; kw++) {
								int ih = h + kh - 1,
								    iw = x + kw - 1;
								if (ih < 0 || iw < 0 ||
								    ih >= size || iw >= size)
									continue;
								acc +=
								    w[((size_t)co * cin + ci) * 9 +
								      kh * 3 + kw] *
								    in[(((size_t)b * size + ih) *
									    size +
									iw) *
									   cin +
								       ci];
							}
					o[co] = relu && acc < 0 ? 0 : acc;
				}
			}
}

static void cpu_add_relu(void *ctx, float *x, const float *y, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		float v = x[i] + y[i];
		x[i] = v < 0 ? 0 : v;
	}
}

static void cpu_head(void *ctx, float *logits, const float *x, const float *fc_w, const float *fc_b,
		     int batch, int size, int ch)
{
	size_t px = (size_t)size * size;

	(void)ctx;
	for (int b = 0; b < batch; b++)
		for (int k = 0; k < DUMMY_CLASSES; k++) {
			float acc = fc_b[k];
			for (int c = 0; c < ch; c++) {
				float m = 0;
				for (size_t p = 0; p < px; p++)
					m += x[((size_t)b * px + p) * ch + c];
				acc += m / (float)px * fc_w[k * ch + c];
			}
			logits[b * DUMMY_CLASSES + k] = acc;
		}
}

static void cpu_scale(void *ctx, float *x, float s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		x[i] *= s;
}

static void cpu_sync(void *ctx)
{
	(void)ctx;
}

const struct dummy_backend dummy_cpu_backend = {
    NULL, dummy_cpu_conv3x3, cpu_add_relu, cpu_head, cpu_scale, cpu_sync,
};

int dummy_cpu_run(const struct dummy_shape *s, int warmup, float *logits, double *ms)
{
	struct dummy_bufs b;
	float *all[DUMMY_N_TENSORS] = {0};
	float *x = NULL, *y = NULL, *t = NULL;
	int rc = -1;
	uint64_t t0;

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < DUMMY_N_TENSORS; i++) {
		if (i == DUMMY_ACT || i == DUMMY_LOGITS)
			continue;
		if (!(all[i] = malloc(dummy_numel(s, i) * sizeof(float))))
			goto out;
		dummy_fill(s, i, all[i]);
	}
	x = malloc(dummy_numel(s, DUMMY_ACT) * sizeof(float));
	y = malloc(dummy_numel(s, DUMMY_ACT) * sizeof(float));
	t = malloc(dummy_numel(s, DUMMY_ACT) * sizeof(float));
	if (!x || !y || !t)
		goto out;
	b.input = all[DUMMY_INPUT];
	b.x = x;
	b.y = y;
	b.t = t;
	b.logits = logits;
	b.stem_w = all[DUMMY_STEM_W];
	b.stem_b = all[DUMMY_STEM_B];
	b.fc_w = all[DUMMY_FC_W];
	b.fc_b = all[DUMMY_FC_B];
	for (int k = 0; k < 2 * DUMMY_BLOCKS; k++) {
		b.conv_w[k] = all[DUMMY_CONV_W0 + k];
		b.conv_b[k] = all[DUMMY_CONV_B0 + k];
	}
	for (int w = 0; w < warmup; w++)
		dummy_forward(&dummy_cpu_backend, s, &b, 0);
	t0 = clock_mono_ns();
	dummy_forward(&dummy_cpu_backend, s, &b, 1);
	*ms = (double)(clock_mono_ns() - t0) / 1e6;
	rc = 0;
out:
	for (int i = 0; i < DUMMY_N_TENSORS; i++)
		free(all[i]);
	free(x);
	free(y);
	free(t);
	return rc;
}
