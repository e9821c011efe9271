/* dummy.h: the NVTX dummy model, a shallow ResNet-like network for region
 * replay tests. NHWC activations; each 3x3 convolution (same padding,
 * stride 1) is im2col + GEMM + bias (+ ReLU). Ranges (default domain):
 *   stem, residual > (block.conv1, block.conv2) x 3, head, A > A::A1, B
 * and the device is synchronised before every pop so Nsight Compute's
 * range replay sees complete regions. */
#ifndef LLMPROF_WORKLOADS_DUMMY_H
#define LLMPROF_WORKLOADS_DUMMY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DUMMY_BLOCKS 3
#define DUMMY_IN_CH 3
#define DUMMY_CLASSES 10

struct dummy_shape {
	int batch, channels, size;
	uint64_t seed;
};

/* Deterministic init shared by both paths (splitmix64, 24-bit uniform). */
float dummy_value(uint64_t seed, uint32_t tensor, uint64_t i, float scale);

/* A backend: buffers are opaque (host or device float arrays). */
struct dummy_backend {
	void *ctx;
	/* out[n][h][w][co] = act(bias[co] + sum W[co][ci][kh][kw] in[..]) */
	void (*conv3x3)(void *ctx, float *out, const float *in, const float *w, const float *bias,
			int batch, int size, int cin, int cout, int relu);
	/* x = relu(x + y), n elements */
	void (*add_relu)(void *ctx, float *x, const float *y, size_t n);
	/* logits[b][k] = fc_b[k] + sum_c mean_hw(x[b][..][c]) * fc_w[k][c] */
	void (*head)(void *ctx, float *logits, const float *x, const float *fc_w, const float *fc_b,
		     int batch, int size, int ch);
	/* x *= s, n elements (the A/B regions' work) */
	void (*scale)(void *ctx, float *x, float s, size_t n);
	void (*sync)(void *ctx);
};

/* Buffers of one model (allocated by the backend's owner). */
struct dummy_bufs {
	float *input, *x, *y, *t, *logits;
	float *stem_w, *stem_b, *conv_w[2 * DUMMY_BLOCKS], *conv_b[2 * DUMMY_BLOCKS];
	float *fc_w, *fc_b;
};

/* Number of floats of each parameter/buffer, and the host-side values. */
size_t dummy_numel(const struct dummy_shape *s, int which);
void dummy_fill(const struct dummy_shape *s, int which, float *dst);
enum {
	DUMMY_INPUT = 0,
	DUMMY_ACT,
	DUMMY_LOGITS,
	DUMMY_STEM_W,
	DUMMY_STEM_B,
	DUMMY_FC_W,
	DUMMY_FC_B,
	DUMMY_CONV_W0 /* + 2*block + k */,
	DUMMY_CONV_B0 = DUMMY_CONV_W0 + 2 * DUMMY_BLOCKS,
	DUMMY_N_TENSORS = DUMMY_CONV_B0 + 2 * DUMMY_BLOCKS
};

/* One forward pass with (ranged) or without NVTX ranges. */
void dummy_forward(const struct dummy_backend *be, const struct dummy_shape *s,
		   struct dummy_bufs *b, int ranged);

/* CPU backend and reference operators. */
extern const struct dummy_backend dummy_cpu_backend;
void dummy_cpu_conv3x3(void *ctx, float *out, const float *in, const float *w, const float *bias,
		       int batch, int size, int cin, int cout, int relu);
/* Runs the whole model on the CPU; logits: batch * DUMMY_CLASSES. */
int dummy_cpu_run(const struct dummy_shape *s, int warmup, float *logits, double *ms);

/* GPU (dummy_cuda.cu; stubs without nvcc). */
int dummy_cuda_device_count(void);
int dummy_cuda_run(const struct dummy_shape *s, int dev, int warmup, float *logits, double *ms,
		   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
