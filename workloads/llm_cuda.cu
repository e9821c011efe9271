/* llm_cuda.cu: the GPU path of the built-in Llama decoder.
 *
 * Weights and activations in bf16 (fp16, fp32 selectable) with fp32
 * accumulation. Linear layers: cuBLASLt (bias and residual fused in the
 * epilogue), or for decode our GEMV (--decode-gemm gemv). Our kernels: RMSNorm,
 * RoPE + KV-cache write, split-K decode attention, causal softmax for the
 * prefill attention (whose two GEMMs are strided-batched cuBLAS calls over
 * the KV-head groups), SwiGLU and greedy argmax. A decode step reads its
 * position and input tokens from device memory, so it can be captured once
 * as a CUDA graph and replayed. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <type_traits>

#include "llm.h"
#include "nvtx_shim.h"

static char g_err[512];

static int fail_cuda(cudaError_t e, const char *what, int line)
{
	snprintf(g_err, sizeof(g_err), "CUDA error at llm_cuda.cu:%d (%s): %s", line, what,
		 cudaGetErrorString(e));
	return -1;
}
static int fail_blas(int st, const char *what, int line)
{
	snprintf(g_err, sizeof(g_err), "cuBLAS error %d at llm_cuda.cu:%d (%s)", st, line, what);
	return -1;
}
#define CK(x)                                                                                  \
	do {                                                                                   \
		cudaError_t e_ = (x);                                                          \
		if (e_ != cudaSuccess)                                                         \
			return fail_cuda(e_, #x, __LINE__);                                    \
	} while (0)
#define CKL() CK(cudaGetLastError())
#define CKB(x)                                                                                 \
	do {                                                                                   \
		int s_ = (int)(x);                                                             \
		if (s_ != 0)                                                                   \
			return fail_blas(s_, #x, __LINE__);                                    \
	} while (0)

/* ---------------------------------------------------------------------- */
/* Element types                                                          */

__device__ __forceinline__ float tof(float x)
{
	return x;
}
__device__ __forceinline__ float tof(__nv_bfloat16 x)
{
	return __bfloat162float(x);
}
__device__ __forceinline__ float tof(__half x)
{
	return __half2float(x);
}
template <typename T> __device__ __forceinline__ T fromf(float x);
template <> __device__ __forceinline__ float fromf<float>(float x)
{
	return x;
}
template <> __device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float x)
{
	return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half fromf<__half>(float x)
{
	return __float2half_rn(x);
}
template <typename T> static cudaDataType_t cuda_type();
template <> cudaDataType_t cuda_type<float>()
{
	return CUDA_R_32F;
}
template <> cudaDataType_t cuda_type<__nv_bfloat16>()
{
	return CUDA_R_16BF;
}
template <> cudaDataType_t cuda_type<__half>()
{
	return CUDA_R_16F;
}

/* 16-byte vector of T: 8 halves or 4 floats. */
template <typename T> struct vec16 {
	enum { N = 16 / sizeof(T) };
};
template <typename T>
__device__ __forceinline__ void load16(const T *p, float *out)
{
	uint4 u = *reinterpret_cast<const uint4 *>(p);
	const T *t = reinterpret_cast<const T *>(&u);
#pragma unroll
	for (int i = 0; i < vec16<T>::N; i++)
		out[i] = tof(t[i]);
}

/* Programmatic dependent launch (sm_90): a kernel launched with the PDL
 * attribute may start while the previous kernel in the stream finishes.
 * Every kernel here calls pdl_sync() before it touches anything an earlier
 * kernel wrote (or reads); only constant weights may be read before it.
 * pdl_sync() then lets the next kernel launch. Without the attribute both
 * instructions are no-ops. */
__device__ __forceinline__ void pdl_sync(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;" ::: "memory");
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* cp.async, ldmatrix and mma.sync wrappers for the prefill attention. */
__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool pred)
{
	unsigned s = (unsigned)__cvta_generic_to_shared(dst);
	int n = pred ? 16 : 0; /* 0: the 16 bytes are zero-filled */
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_async_commit(void)
{
	asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cp_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldsm_x4(uint32_t *r, const void *p)
{
	unsigned s = (unsigned)__cvta_generic_to_shared(p);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(s));
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t *r, const void *p)
{
	unsigned s = (unsigned)__cvta_generic_to_shared(p);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(s));
}
/* c (16x8 fp32) += a (16x16, row) * b (16x8, col) */
template <typename T>
__device__ __forceinline__ void mma16816(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
{
	if constexpr (sizeof(T) == 2 && std::is_same<T, __half>::value)
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
			     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
			     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
	else
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
			     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
			     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
/* two floats -> one register of two 16-bit values, lo in the low half */
template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi)
{
	uint32_t r;
	if constexpr (std::is_same<T, __half>::value) {
		__half2 v = __floats2half2_rn(lo, hi);
		memcpy(&r, &v, 4);
	} else {
		__nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
		memcpy(&r, &v, 4);
	}
	return r;
}

/* ---------------------------------------------------------------------- */
/* Kernels                                                                */

template <typename T>
__global__ void k_init(T *dst, uint64_t n, uint64_t seed, uint32_t tensor, float scale,
		       float offset)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		dst[i] = fromf<T>(llm_init_value(seed, tensor, i, scale, offset));
}

template <typename T> __global__ void k_convert(T *dst, const float *src, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		dst[i] = fromf<T>(src[i]);
}

/* Row b of x = E[tok[b]]. A decode step passes dpos: block 0 advances the
 * position first, so the step needs no kernel of its own for it (every
 * later kernel of the step reads *dpos after this one ends). */
template <typename T>
__global__ void k_embed(T *x, const T *E, const int *tok, int H, int *dpos)
{
	pdl_sync();
	if (dpos && blockIdx.x == 0 && threadIdx.x == 0)
		*dpos += 1;
	const T *src = E + (size_t)tok[blockIdx.x] * H;
	T *dst = x + (size_t)blockIdx.x * H;
	for (int i = threadIdx.x; i < H; i += blockDim.x)
		dst[i] = src[i];
}

__device__ __forceinline__ float block_sum(float v, float *sh)
{
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
	for (int o = 16; o; o >>= 1)
		v += __shfl_xor_sync(0xffffffff, v, o);
	if (lane == 0)
		sh[w] = v;
	__syncthreads();
	v = 0;
	for (int i = 0; i < nw; i++)
		v += sh[i];
	__syncthreads();
	return v;
}

/* One block per output row; input row = r * in_stride + in_offset. */
template <typename T>
__global__ void k_rmsnorm(T *out, const T *x, const T *w, int H, float eps, int in_stride,
			  int in_offset)
{
	pdl_sync();
	__shared__ float sh[32];
	const T *xr = x + ((size_t)blockIdx.x * in_stride + in_offset) * H;
	T *o = out + (size_t)blockIdx.x * H;
	float ss = 0;
	for (int i = threadIdx.x; i < H; i += blockDim.x) {
		float v = tof(xr[i]);
		ss += v * v;
	}
	ss = block_sum(ss, sh);
	float r = rsqrtf(ss / H + eps);
	for (int i = threadIdx.x; i < H; i += blockDim.x)
		o[i] = fromf<T>(tof(xr[i]) * r * tof(w[i]));
}

/* RoPE on q and k of rows (row = b * n + t, position pos0 + t (+ *dpos)),
 * k and v into the cache [B][kv][max_seq][hd]; q rotated in place and, when
 * qT is set, also written as qT[b][head][t][hd] for the prefill GEMMs. */
template <typename T>
__global__ void k_rope_kv(T *qkv, int rows, int n, int pos0, const int *dpos, const float *cos_t,
			  const float *sin_t, T *kc, T *vc, T *qT, int heads, int kvh, int hd,
			  int max_seq)
{
	pdl_sync();
	int half = hd / 2, slots = heads + 2 * kvh;
	size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (idx >= (size_t)rows * slots * half)
		return;
	int i = idx % half, slot = (idx / half) % slots, r = idx / ((size_t)half * slots);
	int b = r / n, t = r % n, p = pos0 + t + (dpos ? *dpos : 0);
	T *v = qkv + (size_t)r * slots * hd + (size_t)slot * hd;
	float a = tof(v[i]), c = tof(v[i + half]);
	if (slot >= heads + kvh) { /* value: copy */
		T *dst = vc + (((size_t)b * kvh + slot - heads - kvh) * max_seq + p) * hd;
		dst[i] = v[i];
		dst[i + half] = v[i + half];
		return;
	}
	float co = cos_t[(size_t)p * half + i], si = sin_t[(size_t)p * half + i];
	T x0 = fromf<T>(a * co - c * si), x1 = fromf<T>(c * co + a * si);
	if (slot < heads) {
		v[i] = x0;
		v[i + half] = x1;
		if (qT) {
			T *dst = qT + (((size_t)b * heads + slot) * n + t) * hd;
			dst[i] = x0;
			dst[i + half] = x1;
		}
	} else {
		T *dst = kc + (((size_t)b * kvh + slot - heads) * max_seq + p) * hd;
		dst[i] = x0;
		dst[i + half] = x1;
	}
}

/* Causal softmax of prefill scores: row j*T + t of group g (one block per
 * row) sees keys 0..pos0+t. Writes probabilities P in T, zeros past t. */
template <typename T>
__global__ void k_softmax_causal(T *P, const float *S, int T_len, int n_keys, int pos0)
{
	pdl_sync();
	__shared__ float sh[32];
	size_t row = blockIdx.x;
	int t = row % T_len, valid = pos0 + t + 1;
	const float *s = S + row * n_keys;
	T *p = P + row * n_keys;
	float mx = -FLT_MAX;
	for (int k = threadIdx.x; k < valid; k += blockDim.x)
		mx = fmaxf(mx, s[k]);
	for (int o = 16; o; o >>= 1)
		mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, o));
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = mx;
	__syncthreads();
	mx = sh[0];
	for (int i = 1; i < (int)(blockDim.x >> 5); i++)
		mx = fmaxf(mx, sh[i]);
	__syncthreads();
	float sum = 0;
	for (int k = threadIdx.x; k < valid; k += blockDim.x)
		sum += __expf(s[k] - mx);
	sum = block_sum(sum, sh);
	float inv = 1.0f / sum;
	for (int k = threadIdx.x; k < n_keys; k += blockDim.x)
		p[k] = fromf<T>(k < valid ? __expf(s[k] - mx) * inv : 0.0f);
}

/* oT[b][h][t][d] -> att[b*T + t][h*hd + d]; grid.y = b */
template <typename T>
__global__ void k_untranspose(T *att, const T *oT, int heads, int T_len, int hd)
{
	pdl_sync();
	size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t per_b = (size_t)heads * T_len * hd;
	int b = blockIdx.y;
	if (idx >= per_b)
		return;
	int h = idx / ((size_t)T_len * hd), t = (idx / hd) % T_len, d = idx % hd;
	att[((size_t)b * T_len + t) * heads * hd + (size_t)h * hd + d] = oT[b * per_b + idx];
}

/* Causal flash attention for prefill, FlashAttention-2 style: block = 64
 * queries of one head, 4 warps of 16 query rows each. Key/value tiles of 64
 * rows stream through shared memory with cp.async, double-buffered, up to
 * the diagonal. Scores and the output accumulator stay in registers as
 * mma.sync m16n8k16 fragments (fp32); the online softmax works in base 2 on
 * rows held by quads of lanes; P goes from the score fragments straight
 * into A fragments for P*V. Q is read from the rotated qkv rows, K/V from the
 * cache; the result goes to att[b*T + t][h*hd + d]. */
template <typename T, int HD>
__global__ void __launch_bounds__(128)
	k_flash_prefill(T *att, const T *qkv, const T *kc, const T *vc, int T_len, int heads,
			int kvh, int max_seq, float scale)
{
	constexpr int BM = 64, BN = 64, LD = HD + 8; /* +16 B: ldmatrix rows hit all banks */
	constexpr int CPR = HD / 8;		      /* 16-byte chunks per row */
	extern __shared__ __align__(128) unsigned char smem[];
	T *sQ = (T *)smem, *sK = sQ + BM * LD, *sV = sK + 2 * BN * LD;
	const int qt = gridDim.x - 1 - blockIdx.x, h = blockIdx.y, b = blockIdx.z;
	const int q0 = qt * BM, g = h / (heads / kvh), warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	const int gr = lane >> 2, tq = lane & 3;
	const int row0 = q0 + warp * 16 + gr, row1 = row0 + 8;
	const size_t qkv_stride = (size_t)(heads + 2 * kvh) * HD;
	const T *K = kc + ((size_t)b * kvh + g) * max_seq * HD;
	const T *V = vc + ((size_t)b * kvh + g) * max_seq * HD;
	const float sl2 = scale * 1.4426950408889634f; /* scores in log2 units */
	const int kend = min(T_len, q0 + BM), ntiles = (kend + BN - 1) / BN;

	pdl_sync();
	for (int i = threadIdx.x; i < BM * CPR; i += blockDim.x) {
		int r = i / CPR, c = i % CPR, t = q0 + r;
		const T *src = qkv + ((size_t)b * T_len + min(t, T_len - 1)) * qkv_stride +
			       (size_t)h * HD + c * 8;
		cp_async16(sQ + r * LD + c * 8, src, t < T_len);
	}
	auto load_kv = [&](int tile, int buf) {
		for (int i = threadIdx.x; i < BN * CPR; i += blockDim.x) {
			int r = i / CPR, c = i % CPR, key = tile * BN + r;
			size_t off = (size_t)min(key, T_len - 1) * HD + c * 8;
			cp_async16(sK + (buf * BN + r) * LD + c * 8, K + off, key < T_len);
			cp_async16(sV + (buf * BN + r) * LD + c * 8, V + off, key < T_len);
		}
	};
	load_kv(0, 0);
	cp_async_commit();

	uint32_t qf[HD / 16][4];
	float o[HD / 8][4];
#pragma unroll
	for (int i = 0; i < HD / 8; i++)
		o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
	float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;

	for (int j = 0; j < ntiles; j++) {
		const int buf = j & 1, k0 = j * BN;
		if (j + 1 < ntiles) {
			load_kv(j + 1, buf ^ 1);
			cp_async_commit();
			cp_async_wait<1>();
		} else {
			cp_async_wait<0>();
		}
		__syncthreads();
		if (j == 0) {
#pragma unroll
			for (int kk = 0; kk < HD / 16; kk++)
				ldsm_x4(qf[kk], sQ + (warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD +
							kk * 16 + (lane >> 4) * 8);
		}
		/* S = Q K^T: 16 x 64 per warp */
		float sc[BN / 8][4];
#pragma unroll
		for (int i = 0; i < BN / 8; i++)
			sc[i][0] = sc[i][1] = sc[i][2] = sc[i][3] = 0.0f;
		const T *kb = sK + buf * BN * LD, *vb = sV + buf * BN * LD;
#pragma unroll
		for (int kk = 0; kk < HD / 16; kk++) {
#pragma unroll
			for (int nb = 0; nb < BN / 16; nb++) {
				uint32_t r[4];
				ldsm_x4(r, kb + (nb * 16 + (lane & 7) + (lane >> 4) * 8) * LD + kk * 16 +
						   ((lane >> 3) & 1) * 8);
				mma16816<T>(sc[2 * nb], qf[kk], r[0], r[1]);
				mma16816<T>(sc[2 * nb + 1], qf[kk], r[2], r[3]);
			}
		}
		/* mask (causal, past the end), row maxima over the quad */
		float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
		for (int nb = 0; nb < BN / 8; nb++)
#pragma unroll
			for (int e = 0; e < 2; e++) {
				int key = k0 + nb * 8 + tq * 2 + e;
				float v0 = sc[nb][e] * sl2, v1 = sc[nb][2 + e] * sl2;
				if (key > row0 || key >= T_len)
					v0 = -INFINITY;
				if (key > row1 || key >= T_len)
					v1 = -INFINITY;
				sc[nb][e] = v0;
				sc[nb][2 + e] = v1;
				mx0 = fmaxf(mx0, v0);
				mx1 = fmaxf(mx1, v1);
			}
#pragma unroll
		for (int off = 1; off < 4; off <<= 1) {
			mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffff, mx0, off));
			mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffff, mx1, off));
		}
		const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
		const float base0 = mn0 == -INFINITY ? 0.0f : mn0, base1 = mn1 == -INFINITY ? 0.0f : mn1;
		const float a0 = exp2f(m0 - base0), a1 = exp2f(m1 - base1);
		m0 = mn0;
		m1 = mn1;
		l0 *= a0;
		l1 *= a1;
#pragma unroll
		for (int i = 0; i < HD / 8; i++) {
			o[i][0] *= a0;
			o[i][1] *= a0;
			o[i][2] *= a1;
			o[i][3] *= a1;
		}
		/* P as A fragments: n-block 2kk -> regs 0/1, 2kk+1 -> regs 2/3 */
		uint32_t pf[BN / 16][4];
#pragma unroll
		for (int nb = 0; nb < BN / 8; nb++) {
			float p0 = exp2f(sc[nb][0] - base0), p1 = exp2f(sc[nb][1] - base0);
			float p2 = exp2f(sc[nb][2] - base1), p3 = exp2f(sc[nb][3] - base1);
			l0 += p0 + p1;
			l1 += p2 + p3;
			pf[nb >> 1][(nb & 1) * 2] = pack2<T>(p0, p1);
			pf[nb >> 1][(nb & 1) * 2 + 1] = pack2<T>(p2, p3);
		}
		/* O += P V (V^T fragments through ldmatrix.trans) */
#pragma unroll
		for (int kk = 0; kk < BN / 16; kk++) {
#pragma unroll
			for (int nd = 0; nd < HD / 16; nd++) {
				uint32_t r[4];
				ldsm_x4_trans(r, vb + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD +
							 nd * 16 + (lane >> 4) * 8);
				mma16816<T>(o[2 * nd], pf[kk], r[0], r[1]);
				mma16816<T>(o[2 * nd + 1], pf[kk], r[2], r[3]);
			}
		}
		__syncthreads(); /* the next iteration loads into this buffer */
	}
#pragma unroll
	for (int off = 1; off < 4; off <<= 1) {
		l0 += __shfl_xor_sync(0xffffffff, l0, off);
		l1 += __shfl_xor_sync(0xffffffff, l1, off);
	}
	const float inv0 = l0 > 0 ? 1.0f / l0 : 0.0f, inv1 = l1 > 0 ? 1.0f / l1 : 0.0f;
	const size_t ostride = (size_t)heads * HD;
#pragma unroll
	for (int nd = 0; nd < HD / 8; nd++) {
		int d = nd * 8 + tq * 2;
		if (row0 < T_len)
			*(uint32_t *)(att + ((size_t)b * T_len + row0) * ostride + (size_t)h * HD + d) =
				pack2<T>(o[nd][0] * inv0, o[nd][1] * inv0);
		if (row1 < T_len)
			*(uint32_t *)(att + ((size_t)b * T_len + row1) * ostride + (size_t)h * HD + d) =
				pack2<T>(o[nd][2] * inv1, o[nd][3] * inv1);
	}
}

template <typename T, int HD> static size_t flash_smem(void)
{
	return (size_t)(64 + 4 * 64) * (HD + 8) * sizeof(T); /* Q, 2 x (K, V) */
}

/* 1 = prefill attention through the cuBLAS GEMM path even where the flash
 * kernel applies (--check-ops tests both). */
static int g_prefill_gemm;

#define MAXG 8
/* RoPE of element i of a head-dim vector v at one position (co, si: the
 * position's row of the tables), rounded to T as a stored value would be. */
template <typename T>
__device__ __forceinline__ float rope_at(const T *v, int i, int half, const float *co,
					 const float *si)
{
	int j = i < half ? i : i - half;
	float a = tof(v[j]), c = tof(v[j + half]);
	float x = i < half ? a * co[j] - c * si[j] : c * co[j] + a * si[j];
	return tof(fromf<T>(x));
}

/* Split-K decode attention (flash-decoding) with RoPE and the KV-cache write
 * fused in: block (split, kv head, b) rotates the group's query heads as it
 * loads them; the block whose chunk holds the new position *dpos rotates the
 * new key, writes it and the new value into the cache, then scores keys
 * [split*chunk, +chunk) for all the group's heads with one warp per key
 * (lane l holds head-dim elements l*E..l*E+E-1, KB keys in flight per
 * warp), and writes unnormalised partial outputs with their max and sum. */
template <typename T, int E>
__global__ void __launch_bounds__(128)
	k_attn_decode(const T *qkv, int qkv_stride, T *kc, T *vc, int kvh, int group, int max_seq,
		      const int *dpos, const float *cos_t, const float *sin_t, int chunk,
		      float scale, float *part_o, float *part_ml, int splits)
{
	constexpr int KB = 4;
	extern __shared__ float sc[]; /* group * chunk */
	pdl_sync();
	const int hd = 32 * E, half = hd / 2, split = blockIdx.x, g = blockIdx.y, b = blockIdx.z;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
	const int p = *dpos, S = p + 1, s0 = split * chunk, s1 = min(S, s0 + chunk);
	const int heads = kvh * group;
	const float *co = cos_t + (size_t)p * half, *si = sin_t + (size_t)p * half;
	const T *row = qkv + (size_t)b * qkv_stride;
	T *K = kc + ((size_t)b * kvh + g) * max_seq * hd;
	T *V = vc + ((size_t)b * kvh + g) * max_seq * hd;
	if (p >= s0 && p < s1) { /* uniform over the block */
		const T *kn = row + (size_t)(heads + g) * hd, *vn = row + (size_t)(heads + kvh + g) * hd;
		for (int i = threadIdx.x; i < hd; i += blockDim.x) {
			K[(size_t)p * hd + i] = fromf<T>(rope_at(kn, i, half, co, si));
			V[(size_t)p * hd + i] = vn[i];
		}
		__syncthreads(); /* the block reads them back below */
	}
	float q[MAXG][E];
#pragma unroll
	for (int j = 0; j < MAXG; j++)
#pragma unroll
		for (int e = 0; e < E; e++)
			q[j][e] = j < group ? rope_at(row + (size_t)(g * group + j) * hd, lane * E + e,
						      half, co, si) *
						      scale
					    : 0.0f;
	for (int k0 = s0 + warp * KB; k0 < s1; k0 += nw * KB) {
		float kv[KB][E];
#pragma unroll
		for (int u = 0; u < KB; u++)
#pragma unroll
			for (int e = 0; e < E; e++)
				kv[u][e] = k0 + u < s1 ? tof(K[(size_t)(k0 + u) * hd + lane * E + e]) : 0.0f;
#pragma unroll
		for (int u = 0; u < KB; u++) {
			if (k0 + u >= s1)
				break;
#pragma unroll
			for (int j = 0; j < MAXG; j++) {
				if (j >= group)
					break;
				float d = 0;
#pragma unroll
				for (int e = 0; e < E; e++)
					d += q[j][e] * kv[u][e];
				for (int o = 16; o; o >>= 1)
					d += __shfl_xor_sync(0xffffffff, d, o);
				if (lane == 0)
					sc[j * chunk + k0 + u - s0] = d;
			}
		}
	}
	__syncthreads();
	for (int j = warp; j < group; j += nw) {
		float mx = -FLT_MAX, sum = 0;
		for (int k = lane; k < s1 - s0; k += 32)
			mx = fmaxf(mx, sc[j * chunk + k]);
		for (int o = 16; o; o >>= 1)
			mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, o));
		for (int k = lane; k < s1 - s0; k += 32) {
			float e = __expf(sc[j * chunk + k] - mx);
			sc[j * chunk + k] = e;
			sum += e;
		}
		for (int o = 16; o; o >>= 1)
			sum += __shfl_xor_sync(0xffffffff, sum, o);
		if (lane == 0) {
			size_t ml = (((size_t)b * heads + g * group + j) * splits + split) * 2;
			part_ml[ml] = s1 > s0 ? mx : -FLT_MAX;
			part_ml[ml + 1] = s1 > s0 ? sum : 0.0f;
		}
	}
	__syncthreads();
	for (int d = threadIdx.x; d < hd; d += blockDim.x) {
		float acc[MAXG];
#pragma unroll
		for (int j = 0; j < MAXG; j++)
			acc[j] = 0;
		int k = s0;
		for (; k + 8 <= s1; k += 8) { /* eight values in flight */
			float v[8];
#pragma unroll
			for (int u = 0; u < 8; u++)
				v[u] = tof(V[(size_t)(k + u) * hd + d]);
#pragma unroll
			for (int j = 0; j < MAXG; j++) {
				if (j >= group)
					break;
				const float *pr = sc + j * chunk + k - s0;
#pragma unroll
				for (int u = 0; u < 8; u++)
					acc[j] += pr[u] * v[u];
			}
		}
		for (; k < s1; k++) {
			float v = tof(V[(size_t)k * hd + d]);
#pragma unroll
			for (int j = 0; j < MAXG; j++)
				if (j < group)
					acc[j] += sc[j * chunk + k - s0] * v;
		}
#pragma unroll
		for (int j = 0; j < MAXG; j++)
			if (j < group)
				part_o[(((size_t)b * heads + g * group + j) * splits + split) * hd + d] =
					acc[j];
	}
}

/* Merges the splits of head (b, h): block per (b, h), thread per dim. */
template <typename T>
__global__ void k_attn_combine(T *att, const float *part_o, const float *part_ml, int heads,
			       int hd, int splits)
{
	pdl_sync();
	size_t bh = blockIdx.x;
	const float *ml = part_ml + bh * splits * 2;
	float M = -FLT_MAX, L = 0;
	for (int s = 0; s < splits; s++)
		M = fmaxf(M, ml[2 * s]);
	for (int s = 0; s < splits; s++)
		L += ml[2 * s + 1] * __expf(ml[2 * s] - M);
	for (int d = threadIdx.x; d < hd; d += blockDim.x) {
		float o = 0;
		for (int s = 0; s < splits; s++)
			o += part_o[(bh * splits + s) * hd + d] * __expf(ml[2 * s] - M);
		att[bh * hd + d] = fromf<T>(o / L);
	}
}

template <typename T> __global__ void k_swiglu(T *act, const T *gu, int I, size_t n)
{
	pdl_sync();
	for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < n;
	     idx += (size_t)gridDim.x * blockDim.x) {
		size_t r = idx / I, i = idx % I;
		float g = tof(gu[r * 2 * I + i]), u = tof(gu[r * 2 * I + I + i]);
		act[idx] = fromf<T>(g / (1.0f + __expf(-g)) * u);
	}
}

/* Greedy sampling: block per sequence; first maximum wins. Writes the next
 * input token and out[b * n_out + step], step = step0 (+ *dpos - pos_base),
 * and copies the logits to dump[step] when dump is set. */
__global__ void k_argmax(const float *logits, int V, int *next, int *out, int n_out, int step0,
			 const int *dpos, int pos_base, float *dump, int B)
{
	pdl_sync();
	__shared__ float sv[32];
	__shared__ int si[32];
	const float *l = logits + (size_t)blockIdx.x * V;
	int step = step0 + (dpos ? *dpos - pos_base : 0);
	float bv = -FLT_MAX;
	int bi = 0x7fffffff;
	for (int i = threadIdx.x; i < V; i += blockDim.x) {
		float v = l[i];
		if (v > bv) {
			bv = v;
			bi = i;
		}
		if (dump)
			dump[((size_t)step * B + blockIdx.x) * V + i] = v;
	}
	for (int o = 16; o; o >>= 1) {
		float ov = __shfl_xor_sync(0xffffffff, bv, o);
		int oi = __shfl_xor_sync(0xffffffff, bi, o);
		if (ov > bv || (ov == bv && oi < bi)) {
			bv = ov;
			bi = oi;
		}
	}
	if ((threadIdx.x & 31) == 0) {
		sv[threadIdx.x >> 5] = bv;
		si[threadIdx.x >> 5] = bi;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		bv = sv[0];
		bi = si[0];
		for (int w = 1; w < (int)(blockDim.x >> 5); w++)
			if (sv[w] > bv || (sv[w] == bv && si[w] < bi)) {
				bv = sv[w];
				bi = si[w];
			}
		next[blockIdx.x] = bi;
		if (step < n_out)
			out[(size_t)blockIdx.x * n_out + step] = bi;
	}
}

__global__ void k_set_pos(int *dpos, int v)
{
	pdl_sync();
	*dpos = v;
}

/* Greedy sampling fused into the LM-head GEMV (k_gemv with SAMPLE): the
 * same outputs as k_argmax, without a second pass over the logits. */
struct sample_args {
	unsigned long long *best; /* [rows]: max of (ordered logit << 32 | ~index); 0 between launches */
	unsigned *done;		  /* blocks finished; 0 between launches */
	int *next, *out;	  /* as k_argmax */
	int n_out, step0, pos_base;
	const int *dpos;
	float *dump;
};

/* A float's bits as an unsigned integer with the same order. */
__device__ __forceinline__ unsigned ordered_bits(float v)
{
	unsigned u = __float_as_uint(v);
	return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__shared__ unsigned long long g_sample_key[8][8]; /* [warp][row] of the block */

/* Lane 0 of a warp: row r's logit v at output o. */
__device__ __forceinline__ void gemv_sample_row(const struct sample_args *sa, int r, int rows,
						int o, int out, float v, bool valid)
{
	g_sample_key[threadIdx.x >> 5][r] =
		(unsigned long long)ordered_bits(v) << 32 | (0xffffffffu - (unsigned)o);
	if (sa->dump && valid) {
		int step = sa->step0 + (sa->dpos ? *sa->dpos - sa->pos_base : 0);
		sa->dump[((size_t)step * rows + r) * out + o] = v;
	}
}

__device__ __forceinline__ void gemv_sample_finish(const struct sample_args *sa, int rows)
{
	__shared__ int last;
	int t = threadIdx.x;

	__syncthreads();
	if (t < rows) {
		unsigned long long k = g_sample_key[0][t];
		for (int w = 1; w < (int)(blockDim.x >> 5); w++)
			k = g_sample_key[w][t] > k ? g_sample_key[w][t] : k;
		atomicMax(&sa->best[t], k);
	}
	__threadfence();
	__syncthreads();
	if (t == 0)
		last = atomicAdd(sa->done, 1u) == gridDim.x - 1;
	__syncthreads();
	if (!last)
		return;
	__threadfence();
	if (t < rows) {
		int step = sa->step0 + (sa->dpos ? *sa->dpos - sa->pos_base : 0);
		int tok = (int)(0xffffffffu - (unsigned)atomicExch(&sa->best[t], 0ull));
		sa->next[t] = tok;
		if (step < sa->n_out)
			sa->out[(size_t)t * sa->n_out + step] = tok;
	}
	if (t == 0)
		*sa->done = 0;
}

/* y[r][o] (+)= sum_i x[r][i] W[o][i] (+ bias[o]) for rows <= 8: a warp per
 * output row, 16-byte loads of W, four in flight per lane. NR = 2 fuses
 * SwiGLU: the warp also takes weight row o + row2 (the up projection) and
 * writes silu(gate) * up. The first weights are loaded before pdl_sync(),
 * so under PDL they stream while the previous kernel finishes.
 * SAMPLE (the LM head) also does k_argmax's work: each block folds its
 * rows' maxima into sa.best with one atomicMax per row (the low word holds
 * ~index, so the first maximum wins ties), and the last block to finish
 * writes the tokens and resets sa.best and sa.done for the next launch. */
template <typename T, typename TO, int NR, bool SAMPLE>
__global__ void __launch_bounds__(256)
	k_gemv(TO *y, const T *x, const T *W, const T *bias, int rows, int in, int out, int acc,
	       int row2, struct sample_args sa)
{
	constexpr int NV = vec16<T>::N, U = 4 / NR;
	int o = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
	const bool valid = o < out;
	if (!valid) {
		if (!SAMPLE)
			return;
		o = out - 1; /* a copy of the last row keeps the block whole */
	}
	const T *w[NR];
#pragma unroll
	for (int q = 0; q < NR; q++)
		w[q] = W + (size_t)(o + q * row2) * in;
	float s[NR][8];
#pragma unroll
	for (int q = 0; q < NR; q++)
#pragma unroll
		for (int r = 0; r < 8; r++)
			s[q][r] = 0.0f;
	int i = lane * NV;
	float wv[NR][U][NV];
	bool more = i + (U - 1) * 32 * NV < in;
	if (more)
#pragma unroll
		for (int q = 0; q < NR; q++)
#pragma unroll
			for (int u = 0; u < U; u++)
				load16(w[q] + i + u * 32 * NV, wv[q][u]);
	pdl_sync();
	while (more) {
#pragma unroll
		for (int r = 0; r < 8; r++) {
			if (r >= rows)
				break;
#pragma unroll
			for (int u = 0; u < U; u++) {
				float xv[NV];
				load16(x + (size_t)r * in + i + u * 32 * NV, xv);
#pragma unroll
				for (int q = 0; q < NR; q++)
#pragma unroll
					for (int e = 0; e < NV; e++)
						s[q][r] += wv[q][u][e] * xv[e];
			}
		}
		i += U * 32 * NV;
		more = i + (U - 1) * 32 * NV < in;
		if (more)
#pragma unroll
			for (int q = 0; q < NR; q++)
#pragma unroll
				for (int u = 0; u < U; u++)
					load16(w[q] + i + u * 32 * NV, wv[q][u]);
	}
	for (; i < in; i += 32 * NV) {
		float wt[NR][NV];
#pragma unroll
		for (int q = 0; q < NR; q++)
			load16(w[q] + i, wt[q]);
#pragma unroll
		for (int r = 0; r < 8; r++) {
			if (r >= rows)
				break;
			float xv[NV];
			load16(x + (size_t)r * in + i, xv);
#pragma unroll
			for (int q = 0; q < NR; q++)
#pragma unroll
				for (int e = 0; e < NV; e++)
					s[q][r] += wt[q][e] * xv[e];
		}
	}
#pragma unroll
	for (int r = 0; r < 8; r++) {
		if (r >= rows)
			break;
		float v[NR];
#pragma unroll
		for (int q = 0; q < NR; q++) {
			v[q] = s[q][r];
			for (int off = 16; off; off >>= 1)
				v[q] += __shfl_xor_sync(0xffffffff, v[q], off);
		}
		if (lane == 0) {
			TO *dst = y + (size_t)r * out + o;
			float res;
			if (NR == 2) {
				res = v[0] / (1.0f + __expf(-v[0])) * v[NR - 1];
			} else {
				res = v[0];
				if (bias)
					res += tof(bias[o]);
				if (acc)
					res += tof(*dst);
			}
			if (valid)
				*dst = fromf<TO>(res);
			if constexpr (SAMPLE)
				gemv_sample_row(&sa, r, rows, o, out, tof(fromf<TO>(res)), valid);
		}
	}
	if constexpr (SAMPLE)
		gemv_sample_finish(&sa, rows);
}

/* ---------------------------------------------------------------------- */
/* cuBLASLt linear layers                                                 */

struct lt_plan {
	int rows, in, out, bias, acc, f32out;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, b, c, d;
	cublasLtMatmulAlgo_t algo;
};

struct gpu {
	cudaStream_t st;
	cublasLtHandle_t lt;
	cublasHandle_t blas;
	void *ws;
	size_t ws_size;
	struct lt_plan plans[64];
	int n_plans;
	int own_gemv;
	int pdl; /* launch our kernels with programmatic dependent launch */
};

/* Launches one of our kernels on g->st, with the PDL attribute when on. */
template <typename K, typename... A>
static cudaError_t launch(const struct gpu *g, K kernel, dim3 grid, dim3 block, size_t smem,
			  A &&...args)
{
	cudaLaunchAttribute at = {};
	cudaLaunchConfig_t cfg = {};

	cfg.gridDim = grid;
	cfg.blockDim = block;
	cfg.dynamicSmemBytes = smem;
	cfg.stream = g->st;
	if (g->pdl) {
		at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
		at.val.programmaticStreamSerializationAllowed = 1;
		cfg.attrs = &at;
		cfg.numAttrs = 1;
	}
	return cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
}

template <typename T>
static int lt_plan_get(struct gpu *g, struct lt_plan **out, int rows, int in, int out_dim,
		       int bias, int acc, int f32out)
{
	struct lt_plan *p;
	cudaDataType_t ty = cuda_type<T>(), cty = f32out ? CUDA_R_32F : ty;
	cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t res;
	int found = 0;
	cublasLtEpilogue_t epi = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;

	for (int i = 0; i < g->n_plans; i++) {
		p = &g->plans[i];
		if (p->rows == rows && p->in == in && p->out == out_dim && p->bias == bias &&
		    p->acc == acc && p->f32out == f32out) {
			*out = p;
			return 0;
		}
	}
	if (g->n_plans == 64) {
		snprintf(g_err, sizeof(g_err), "too many GEMM shapes");
		return -1;
	}
	p = &g->plans[g->n_plans];
	memset(p, 0, sizeof(*p));
	p->rows = rows, p->in = in, p->out = out_dim, p->bias = bias, p->acc = acc;
	p->f32out = f32out;
	CKB(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof(tA)));
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof(tB)));
	CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
					   sizeof(epi)));
	if (bias) {
		cudaDataType_t bt = ty;
		CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
						   &bt, sizeof(bt)));
	}
	CKB(cublasLtMatrixLayoutCreate(&p->a, ty, in, out_dim, in));
	CKB(cublasLtMatrixLayoutCreate(&p->b, ty, in, rows, in));
	CKB(cublasLtMatrixLayoutCreate(&p->c, cty, out_dim, rows, out_dim));
	CKB(cublasLtMatrixLayoutCreate(&p->d, cty, out_dim, rows, out_dim));
	CKB(cublasLtMatmulPreferenceCreate(&pref));
	CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						 &g->ws_size, sizeof(g->ws_size)));
	CKB(cublasLtMatmulAlgoGetHeuristic(g->lt, p->desc, p->a, p->b, p->c, p->d, pref, 1, &res,
					   &found));
	cublasLtMatmulPreferenceDestroy(pref);
	if (!found) {
		snprintf(g_err, sizeof(g_err), "cuBLASLt has no algorithm for %dx%dx%d", rows, in,
			 out_dim);
		return -1;
	}
	p->algo = res.algo;
	g->n_plans++;
	*out = p;
	return 0;
}

/* Whether a linear of rows x in runs our GEMV rather than cuBLASLt. */
template <typename T> static int gemv_applies(const struct gpu *g, int rows, int in)
{
	return g->own_gemv && rows <= 8 && in % vec16<T>::N == 0;
}

/* y = x W^T (+ bias) (+ y): W is [out][in], x [rows][in], y [rows][out]. */
template <typename T>
static int linear(struct gpu *g, void *y, const T *x, const T *W, const T *bias, int rows, int in,
		  int out, int acc, int f32out)
{
	struct lt_plan *p;
	float alpha = 1.0f, beta = acc ? 1.0f : 0.0f;

	if (gemv_applies<T>(g, rows, in)) {
		dim3 grid((out + 7) / 8), block(256); /* 8 warps, one output row each */
		if (f32out)
			CK(launch(g, k_gemv<T, float, 1, false>, grid, block, 0, (float *)y, x, W, bias,
				  rows, in, out, acc, 0, sample_args{}));
		else
			CK(launch(g, k_gemv<T, T, 1, false>, grid, block, 0, (T *)y, x, W, bias, rows, in,
				  out, acc, 0, sample_args{}));
		return 0;
	}
	if (lt_plan_get<T>(g, &p, rows, in, out, bias != NULL, acc, f32out))
		return -1;
	if (bias)
		CKB(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
						   &bias, sizeof(bias)));
	CKB(cublasLtMatmul(g->lt, p->desc, &alpha, W, p->a, x, p->b, &beta, y, p->c, y, p->d,
			   &p->algo, g->ws, g->ws_size, g->st));
	return 0;
}

/* act = silu(x Wg^T) * (x Wu^T) with Wgu = [Wg; Wu] ([2I][in]): up/gate
 * projection and SwiGLU in one GEMV kernel. Returns 1 where our GEMV does
 * not apply (the caller then runs linear() and k_swiglu). */
template <typename T>
static int linear_swiglu(struct gpu *g, T *act, const T *x, const T *Wgu, int rows, int in, int I)
{
	if (!gemv_applies<T>(g, rows, in))
		return 1;
	CK(launch(g, k_gemv<T, T, 2, false>, dim3((I + 7) / 8), dim3(256), 0, act, x, Wgu,
		  (const T *)nullptr, rows, in, I, 0, I, sample_args{}));
	return 0;
}

/* logits = x W^T in fp32 and greedy sampling in one GEMV kernel. Returns 1
 * where our GEMV does not apply (the caller then runs linear() and
 * k_argmax). */
template <typename T>
static int lm_head_sample(struct gpu *g, float *logits, const T *x, const T *W, int rows, int in,
			  int vocab, const struct sample_args *sa)
{
	if (!gemv_applies<T>(g, rows, in))
		return 1;
	CK(launch(g, k_gemv<T, float, 1, true>, dim3((vocab + 7) / 8), dim3(256), 0, logits, x, W,
		  (const T *)nullptr, rows, in, vocab, 0, 0, *sa));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Model                                                                  */

template <typename T> struct layer_w {
	T *attn_norm, *wqkv, *bqkv, *wo, *mlp_norm, *wgu, *wdown;
};

template <typename T> struct model {
	struct llm_config c;
	struct llm_run_opts o;
	struct gpu g;
	int max_seq, chunk, splits;
	T *embed, *final_norm, *lm_head;
	layer_w<T> *l;
	T *kc, *vc; /* [layers][B][kv][max_seq][hd] */
	float *cos_t, *sin_t;
	T *x, *xn, *qkv, *att, *gu, *act, *qT, *oT, *P;
	float *S, *logits, *part_o, *part_ml, *dump;
	int *prompt, *next, *out_tok, *dpos;
	unsigned long long *best; /* sample_args */
	unsigned *done;
	cudaGraphExec_t graph;
};

template <typename T> static int init_tensor(model<T> *m, T *dst, int kind, int layer, float *host)
{
	uint64_t n = llm_tensor_numel(&m->c, kind);
	float scale, offset;

	if (host) { /* safetensors: host fp32 staging */
		static float *dev_tmp;
		static uint64_t dev_cap;
		if (n > dev_cap) {
			cudaFree(dev_tmp);
			CK(cudaMalloc(&dev_tmp, n * sizeof(float)));
			dev_cap = n;
		}
		CK(cudaMemcpy(dev_tmp, host, n * sizeof(float), cudaMemcpyHostToDevice));
		k_convert<T><<<1024, 256, 0, m->g.st>>>(dst, dev_tmp, n);
		CKL();
		CK(cudaStreamSynchronize(m->g.st));
		return 0;
	}
	llm_init_params(&m->c, kind, &scale, &offset);
	k_init<T><<<2048, 256, 0, m->g.st>>>(dst, n, m->c.seed, llm_tensor_id(kind, layer), scale,
					     offset);
	CKL();
	return 0;
}

template <typename T> static int load_tensor(model<T> *m, struct st_file *st, T *dst, int kind,
					     int layer, float **host, uint64_t *host_cap)
{
	char e[256];
	uint64_t n = llm_tensor_numel(&m->c, kind);

	if (!st)
		return init_tensor(m, dst, kind, layer, NULL);
	if (n > *host_cap) {
		free(*host);
		*host = (float *)malloc(n * sizeof(float));
		*host_cap = *host ? n : 0;
		if (!*host) {
			snprintf(g_err, sizeof(g_err), "out of host memory");
			return -1;
		}
	}
	if (llm_load_hf_tensor(st, &m->c, kind, layer, *host, e, sizeof(e))) {
		snprintf(g_err, sizeof(g_err), "%s", e);
		return -1;
	}
	return init_tensor(m, dst, kind, layer, *host);
}

template <typename T> static int dalloc(T **p, size_t n)
{
	CK(cudaMalloc((void **)p, (n ? n : 1) * sizeof(T)));
	return 0;
}

template <typename T> static int model_build(model<T> *m)
{
	const struct llm_config *c = &m->c;
	int B = m->o.batch, P = m->o.prompt_len, H = c->hidden, sms;
	size_t rows = (size_t)B * P, kv;
	struct st_file *st = NULL;
	float *host = NULL, *ct, *stb;
	uint64_t cap = 0;
	char e[256];
	int rc = -1;

	m->max_seq = P + m->o.new_tokens;
	kv = (size_t)c->layers * B * llm_kv_dim(c) * m->max_seq;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	{
		int group = c->heads / c->kv_heads, want = (2 * sms) / (c->kv_heads * B);
		if (want < 1)
			want = 1;
		m->chunk = (m->max_seq + want - 1) / want;
		m->chunk = (m->chunk + 31) / 32 * 32;
		if (m->chunk * group > 12288)
			m->chunk = 12288 / group / 32 * 32;
		m->splits = (m->max_seq + m->chunk - 1) / m->chunk;
	}
	m->l = (layer_w<T> *)calloc(c->layers, sizeof(layer_w<T>));
	if (!m->l)
		return -1;
	if (dalloc(&m->embed, llm_tensor_numel(c, LLM_T_EMBED)) || dalloc(&m->final_norm, H))
		return -1;
	if (c->tie_embeddings)
		m->lm_head = m->embed;
	else if (dalloc(&m->lm_head, llm_tensor_numel(c, LLM_T_LM_HEAD)))
		return -1;
	for (int i = 0; i < c->layers; i++) {
		layer_w<T> *L = &m->l[i];
		if (dalloc(&L->attn_norm, H) || dalloc(&L->wqkv, llm_tensor_numel(c, LLM_T_WQKV)) ||
		    dalloc(&L->bqkv, llm_tensor_numel(c, LLM_T_BQKV)) ||
		    dalloc(&L->wo, llm_tensor_numel(c, LLM_T_WO)) || dalloc(&L->mlp_norm, H) ||
		    dalloc(&L->wgu, llm_tensor_numel(c, LLM_T_WGU)) ||
		    dalloc(&L->wdown, llm_tensor_numel(c, LLM_T_WDOWN)))
			return -1;
	}
	if (dalloc(&m->kc, kv) || dalloc(&m->vc, kv) ||
	    dalloc(&m->cos_t, (size_t)m->max_seq * c->head_dim / 2) ||
	    dalloc(&m->sin_t, (size_t)m->max_seq * c->head_dim / 2) || dalloc(&m->x, rows * H) ||
	    dalloc(&m->xn, rows * H) || dalloc(&m->qkv, rows * llm_qkv_dim(c)) ||
	    dalloc(&m->att, rows * llm_q_dim(c)) || dalloc(&m->gu, rows * 2 * c->intermediate) ||
	    dalloc(&m->act, rows * c->intermediate) ||
	    dalloc(&m->logits, (size_t)B * c->vocab) ||
	    dalloc(&m->part_o, (size_t)B * c->heads * m->splits * c->head_dim) ||
	    dalloc(&m->part_ml, (size_t)B * c->heads * m->splits * 2) ||
	    dalloc(&m->prompt, rows) || dalloc(&m->next, B) ||
	    dalloc(&m->out_tok, (size_t)B * (m->o.new_tokens + 1)) || dalloc(&m->dpos, 1) ||
	    dalloc(&m->best, B) || dalloc(&m->done, 1))
		return -1;
	CK(cudaMemset(m->best, 0, (size_t)B * sizeof(*m->best)));
	CK(cudaMemset(m->done, 0, sizeof(*m->done)));
	/* The GEMM prefill path needs Q transposed and heads x P x P scores
	 * (per sequence); the flash kernel needs neither. */
	if (!llm_prefill_flash(c, (int)sizeof(T)) &&
	    (dalloc(&m->qT, rows * llm_q_dim(c)) || dalloc(&m->oT, rows * llm_q_dim(c)) ||
	     dalloc(&m->S, (size_t)c->heads * P * P) || dalloc(&m->P, (size_t)c->heads * P * P)))
		return -1;
	m->dump = NULL;
	if (m->o.weights) {
		if (!(st = st_open(m->o.weights, e, sizeof(e)))) {
			snprintf(g_err, sizeof(g_err), "%s", e);
			return -1;
		}
	}
	if (load_tensor(m, st, m->embed, LLM_T_EMBED, -1, &host, &cap) ||
	    load_tensor(m, st, m->final_norm, LLM_T_FINAL_NORM, -1, &host, &cap) ||
	    (!c->tie_embeddings && load_tensor(m, st, m->lm_head, LLM_T_LM_HEAD, -1, &host, &cap)))
		goto out;
	for (int i = 0; i < c->layers; i++) {
		layer_w<T> *L = &m->l[i];
		if (load_tensor(m, st, L->attn_norm, LLM_T_ATTN_NORM, i, &host, &cap) ||
		    load_tensor(m, st, L->wqkv, LLM_T_WQKV, i, &host, &cap) ||
		    (c->qkv_bias && load_tensor(m, st, L->bqkv, LLM_T_BQKV, i, &host, &cap)) ||
		    load_tensor(m, st, L->wo, LLM_T_WO, i, &host, &cap) ||
		    load_tensor(m, st, L->mlp_norm, LLM_T_MLP_NORM, i, &host, &cap) ||
		    load_tensor(m, st, L->wgu, LLM_T_WGU, i, &host, &cap) ||
		    load_tensor(m, st, L->wdown, LLM_T_WDOWN, i, &host, &cap))
			goto out;
	}
	ct = (float *)malloc((size_t)m->max_seq * c->head_dim / 2 * sizeof(float));
	stb = (float *)malloc((size_t)m->max_seq * c->head_dim / 2 * sizeof(float));
	{
		int *pt = (int *)malloc(rows * sizeof(int));
		if (!ct || !stb || !pt) {
			free(ct);
			free(stb);
			free(pt);
			snprintf(g_err, sizeof(g_err), "out of host memory");
			goto out;
		}
		llm_rope_table(ct, stb, m->max_seq, c->head_dim, c->rope_theta);
		for (int b = 0; b < B; b++)
			for (int t = 0; t < P; t++)
				pt[b * P + t] = llm_prompt_token(c, b, t, P);
		cudaMemcpy(m->cos_t, ct, (size_t)m->max_seq * c->head_dim / 2 * sizeof(float),
			   cudaMemcpyHostToDevice);
		cudaMemcpy(m->sin_t, stb, (size_t)m->max_seq * c->head_dim / 2 * sizeof(float),
			   cudaMemcpyHostToDevice);
		CK(cudaMemcpy(m->prompt, pt, rows * sizeof(int), cudaMemcpyHostToDevice));
		free(ct);
		free(stb);
		free(pt);
	}
	CK(cudaStreamSynchronize(m->g.st));
	rc = 0;
out:
	free(host);
	if (st)
		st_close(st);
	return rc;
}

#define RANGE(name, stmt)                                                                      \
	do {                                                                                   \
		nvtx_push(name);                                                               \
		if (stmt)                                                                      \
			return -1;                                                             \
		nvtx_pop();                                                                    \
	} while (0)

template <typename T> static int attn_prefill(model<T> *m, int l)
{
	const struct llm_config *c = &m->c;
	int n = m->o.prompt_len, hd = c->head_dim, kvh = c->kv_heads, grp = c->heads / kvh;
	size_t kv_b = (size_t)kvh * m->max_seq * hd;
	size_t kv_l = (size_t)m->o.batch * kv_b;
	float alpha = 1.0f / sqrtf((float)hd), zero = 0.0f, one = 1.0f;
	cudaDataType_t ty = cuda_type<T>();

	if constexpr (sizeof(T) == 2) {
		/* llm_prefill_flash() is the same test; the analytic file uses it */
		if (!g_prefill_gemm && (hd == 64 || hd == 128)) {
			dim3 grid((n + 63) / 64, c->heads, m->o.batch);
			size_t smem = hd == 64 ? flash_smem<T, 64>() : flash_smem<T, 128>();
			static int attr_set[2];
			if (!attr_set[hd == 128]) {
				if (hd == 64)
					CK(cudaFuncSetAttribute(k_flash_prefill<T, 64>,
								cudaFuncAttributeMaxDynamicSharedMemorySize,
								(int)smem));
				else
					CK(cudaFuncSetAttribute(k_flash_prefill<T, 128>,
								cudaFuncAttributeMaxDynamicSharedMemorySize,
								(int)smem));
				attr_set[hd == 128] = 1;
			}
			const T *kc = m->kc + l * kv_l, *vc = m->vc + l * kv_l;
			if (hd == 64)
				CK(launch(&m->g, k_flash_prefill<T, 64>, grid, dim3(128), smem, m->att,
					  (const T *)m->qkv, kc, vc, n, c->heads, kvh, m->max_seq, alpha));
			else
				CK(launch(&m->g, k_flash_prefill<T, 128>, grid, dim3(128), smem, m->att,
					  (const T *)m->qkv, kc, vc, n, c->heads, kvh, m->max_seq, alpha));
			return 0;
		}
	}
	for (int b = 0; b < m->o.batch; b++) {
		const T *K = m->kc + l * kv_l + b * kv_b, *V = m->vc + l * kv_l + b * kv_b;
		const T *Q = m->qT + (size_t)b * c->heads * n * hd;
		CKB(cublasGemmStridedBatchedEx(m->g.blas, CUBLAS_OP_T, CUBLAS_OP_N, n, grp * n, hd,
					       &alpha, K, ty, hd, (long long)m->max_seq * hd, Q, ty,
					       hd, (long long)grp * n * hd, &zero, m->S, CUDA_R_32F,
					       n, (long long)grp * n * n, kvh, CUBLAS_COMPUTE_32F,
					       CUBLAS_GEMM_DEFAULT));
		k_softmax_causal<T><<<c->heads * n, 128, 0, m->g.st>>>(m->P, m->S, n, n, 0);
		CKL();
		CKB(cublasGemmStridedBatchedEx(m->g.blas, CUBLAS_OP_N, CUBLAS_OP_N, hd, grp * n, n,
					       &one, V, ty, hd, (long long)m->max_seq * hd, m->P, ty,
					       n, (long long)grp * n * n, &zero,
					       m->oT + (size_t)b * c->heads * n * hd, ty, hd,
					       (long long)grp * n * hd, kvh, CUBLAS_COMPUTE_32F,
					       CUBLAS_GEMM_DEFAULT));
	}
	size_t tot = (size_t)c->heads * n * hd;
	dim3 grid((unsigned)((tot + 255) / 256), m->o.batch);
	k_untranspose<T><<<grid, 256, 0, m->g.st>>>(m->att, m->oT, c->heads, n, hd);
	CKL();
	return 0;
}

template <typename T> static int attn_decode(model<T> *m, int l)
{
	const struct llm_config *c = &m->c;
	int hd = c->head_dim, kvh = c->kv_heads, grp = c->heads / kvh;
	size_t kv_l = (size_t)m->o.batch * kvh * m->max_seq * hd;
	dim3 grid(m->splits, kvh, m->o.batch);
	size_t smem = (size_t)grp * m->chunk * sizeof(float);
	float scale = 1.0f / sqrtf((float)hd);
	T *K = m->kc + l * kv_l, *V = m->vc + l * kv_l;

#define DEC(E)                                                                                 \
	CK(launch(&m->g, k_attn_decode<T, E>, grid, dim3(128), smem, (const T *)m->qkv,            \
		  llm_qkv_dim(c), K, V, kvh, grp, m->max_seq, (const int *)m->dpos,               \
		  (const float *)m->cos_t, (const float *)m->sin_t, m->chunk, scale, m->part_o,    \
		  m->part_ml, m->splits))
	switch (hd / 32) {
	case 1:
		DEC(1);
		break;
	case 2:
		DEC(2);
		break;
	case 4:
		DEC(4);
		break;
	case 8:
		DEC(8);
		break;
	}
#undef DEC
	CK(launch(&m->g, k_attn_combine<T>, dim3(m->o.batch * c->heads), dim3(hd < 1024 ? hd : 1024),
		  0, m->att, (const float *)m->part_o, (const float *)m->part_ml, c->heads, hd,
		  m->splits));
	return 0;
}

/* One forward of n tokens per sequence; prefill (n = prompt) at position
 * 0, or a decode step (n = 1) at position *dpos. */
template <typename T> static int forward(model<T> *m, int prefill)
{
	const struct llm_config *c = &m->c;
	struct gpu *g = &m->g;
	int B = m->o.batch, n = prefill ? m->o.prompt_len : 1, rows = B * n;
	int H = c->hidden, I = c->intermediate, QKV = llm_qkv_dim(c), QD = llm_q_dim(c);
	int nt = H >= 1024 ? 1024 : (H + 31) / 32 * 32;
	size_t kv_l = (size_t)B * llm_kv_dim(c) * m->max_seq;
	float eps = (float)c->rms_eps;

	nvtx_push("embed");
	CK(launch(g, k_embed<T>, dim3(rows), dim3(256), 0, m->x, (const T *)m->embed,
		  (const int *)(prefill ? m->prompt : m->next), H, prefill ? (int *)NULL : m->dpos));
	nvtx_pop();
	for (int l = 0; l < c->layers; l++) {
		layer_w<T> *L = &m->l[l];
		nvtx_push("norm.attn");
		CK(launch(g, k_rmsnorm<T>, dim3(rows), dim3(nt), 0, m->xn, (const T *)m->x,
			  (const T *)L->attn_norm, H, eps, 1, 0));
		nvtx_pop();
		RANGE("attn.qkv", linear<T>(g, m->qkv, m->xn, L->wqkv,
					    c->qkv_bias ? L->bqkv : NULL, rows, H, QKV, 0, 0));
		/* decode: RoPE and the cache write run inside the attention kernel */
		if (prefill) {
			nvtx_push("attn.rope");
			size_t work = (size_t)rows * (c->heads + 2 * c->kv_heads) * (c->head_dim / 2);
			CK(launch(g, k_rope_kv<T>, dim3((unsigned)((work + 255) / 256)), dim3(256), 0,
				  m->qkv, rows, n, 0, (const int *)(prefill ? NULL : m->dpos),
				  (const float *)m->cos_t, (const float *)m->sin_t, m->kc + l * kv_l,
				  m->vc + l * kv_l, (T *)(prefill ? m->qT : NULL), c->heads, c->kv_heads,
				  c->head_dim, m->max_seq));
			nvtx_pop();
		}
		RANGE("attn.sdpa", prefill ? attn_prefill(m, l) : attn_decode(m, l));
		RANGE("attn.o", linear<T>(g, m->x, m->att, L->wo, NULL, rows, QD, H, 1, 0));
		nvtx_push("norm.mlp");
		CK(launch(g, k_rmsnorm<T>, dim3(rows), dim3(nt), 0, m->xn, (const T *)m->x,
			  (const T *)L->mlp_norm, H, eps, 1, 0));
		nvtx_pop();
		/* decode through our GEMV: SwiGLU fused into the up/gate kernel,
		 * so mlp.up_gate holds the activation and mlp.act is absent */
		nvtx_push("mlp.up_gate");
		int separate = linear_swiglu<T>(g, m->act, m->xn, L->wgu, rows, H, I);
		if (separate < 0 ||
		    (separate && linear<T>(g, m->gu, m->xn, L->wgu, NULL, rows, H, 2 * I, 0, 0)))
			return -1;
		nvtx_pop();
		if (separate) {
			size_t work = (size_t)rows * I;
			unsigned blocks = (unsigned)((work + 255) / 256);
			nvtx_push("mlp.act");
			CK(launch(g, k_swiglu<T>, dim3(blocks < 65535 ? blocks : 65535), dim3(256), 0,
				  m->act, (const T *)m->gu, I, work));
			nvtx_pop();
		}
		RANGE("mlp.down", linear<T>(g, m->x, m->act, L->wdown, NULL, rows, I, H, 1, 0));
	}
	if (prefill && m->o.new_tokens == 0)
		return 0; /* prefill only: no LM head (as the analytic counts) */
	nvtx_push("norm.final");
	CK(launch(g, k_rmsnorm<T>, dim3(B), dim3(nt), 0, m->xn, (const T *)m->x,
		  (const T *)m->final_norm, H, eps, n, n - 1));
	nvtx_pop();
	/* with our GEMV the LM head samples too: no sample range or kernel */
	struct sample_args sa = { m->best, m->done, m->next, m->out_tok, m->o.new_tokens,
				  prefill ? 0 : 1, m->o.prompt_len,
				  (const int *)(prefill ? NULL : m->dpos), m->dump };
	nvtx_push("lm_head");
	int separate = lm_head_sample<T>(g, m->logits, m->xn, m->lm_head, B, H, c->vocab, &sa);
	if (separate < 0 ||
	    (separate && linear<T>(g, m->logits, m->xn, m->lm_head, NULL, B, H, c->vocab, 0, 1)))
		return -1;
	nvtx_pop();
	if (separate) {
		nvtx_push("sample");
		CK(launch(g, k_argmax, dim3(B), dim3(1024), 0, (const float *)m->logits, c->vocab,
			  m->next, m->out_tok, m->o.new_tokens, prefill ? 0 : 1,
			  (const int *)(prefill ? NULL : m->dpos), m->o.prompt_len, m->dump, B));
		nvtx_pop();
	}
	return 0;
}

template <typename T> static int generate(model<T> *m, int ranged, struct llm_result *res)
{
	int N = m->o.new_tokens, B = m->o.batch;
	cudaEvent_t e0, e1, e2;
	float ms;

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaEventCreate(&e2));
	nvtx_enable(ranged);
	CK(cudaEventRecord(e0, m->g.st));
	nvtx_push("prefill");
	if (forward(m, 1))
		return -1;
	nvtx_pop();
	CK(cudaEventRecord(e1, m->g.st));
	/* each decode step's embed kernel advances it first */
	k_set_pos<<<1, 1, 0, m->g.st>>>(m->dpos, m->o.prompt_len - 1);
	CKL();
	if (N > 0)
		nvtx_push("decode_all");
	for (int s = 1; s < N; s++) {
		nvtx_push("decode_step");
		if (m->graph) {
			CK(cudaGraphLaunch(m->graph, m->g.st));
		} else if (forward(m, 0)) {
			return -1;
		}
		nvtx_pop();
	}
	/* wait for the GPU before decode_all ends: the CPU runs several steps
	 * ahead, and a capture gated on the range (nsys --capture-range=nvtx)
	 * stops when it ends, losing the steps still queued */
	CK(cudaEventRecord(e2, m->g.st));
	CK(cudaEventSynchronize(e2));
	if (N > 0)
		nvtx_pop();
	nvtx_enable(1);
	CK(cudaEventElapsedTime(&ms, e0, e1));
	res->prefill_ms = ms;
	CK(cudaEventElapsedTime(&ms, e1, e2));
	res->decode_ms = ms;
	if (N > 0)
		CK(cudaMemcpy(res->tokens, m->out_tok, (size_t)B * N * sizeof(int),
			      cudaMemcpyDeviceToHost));
	if (res->logits && N > 0)
		CK(cudaMemcpy(res->logits, m->dump, (size_t)N * B * m->c.vocab * sizeof(float),
			      cudaMemcpyDeviceToHost));
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaEventDestroy(e2);
	return 0;
}

template <typename T> static int capture_decode(model<T> *m)
{
	cudaGraph_t graph;

	/* The step is captured once, with its operator ranges: they run only
	 * here, and llmprof's tracer links each captured node to them, so the
	 * replays get their operators (docs/tracer.md, "CUDA graphs"). */
	CK(cudaStreamBeginCapture(m->g.st, cudaStreamCaptureModeThreadLocal));
	int rc = forward(m, 0);
	cudaError_t e = cudaStreamEndCapture(m->g.st, &graph);
	if (rc)
		return -1;
	CK(e);
	CK(cudaGraphInstantiate(&m->graph, graph, 0));
	CK(cudaGraphDestroy(graph));
	return 0;
}

static int gpu_init(struct gpu *g, int own_gemv)
{
	memset(g, 0, sizeof(*g));
	g->own_gemv = own_gemv;
	g->ws_size = 32u << 20;
	CK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
	CKB(cublasLtCreate(&g->lt));
	CKB(cublasCreate(&g->blas));
	CKB(cublasSetStream(g->blas, g->st));
	CK(cudaMalloc(&g->ws, g->ws_size));
	CKB(cublasSetWorkspace(g->blas, g->ws, g->ws_size));
	return 0;
}

template <typename T>
static int run_typed(const struct llm_config *c, const struct llm_run_opts *o,
		     struct llm_result *res)
{
	model<T> *m = (model<T> *)calloc(1, sizeof(model<T>));
	struct llm_result scratch = *res;
	int rc = -1;

	if (!m) {
		snprintf(g_err, sizeof(g_err), "out of host memory");
		return -1;
	}
	m->c = *c;
	m->o = *o;
	if (gpu_init(&m->g, o->own_gemv) || model_build(m))
		goto out;
	if (o->pdl) {
		int dev = 0, major = 0;
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
		m->g.pdl = major >= 9;
	}
	if (res->logits && o->new_tokens > 0 &&
	    dalloc(&m->dump, (size_t)o->new_tokens * o->batch * c->vocab))
		goto out;
	/* Warm-ups fill cuBLASLt's plan cache and the caches before capture. */
	scratch.logits = NULL;
	for (int w = 0; w < o->warmup; w++)
		if (generate(m, 0, &scratch))
			goto out;
	if (o->cuda_graph && o->new_tokens > 1) {
		if (capture_decode(m))
			goto out;
		if (o->warmup && generate(m, 0, &scratch)) /* warm the graph */
			goto out;
	}
	if (generate(m, 1, res) || cudaDeviceSynchronize() != cudaSuccess)
		goto out;
	rc = 0;
out:
	/* Device memory goes with the process, which exits next. */
	free(m->l);
	free(m);
	return rc;
}

extern "C" int llm_cuda_device_count(void)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

extern "C" int llm_cuda_run(const struct llm_config *c, const struct llm_run_opts *o, int dev,
			    struct llm_result *res, char *err, size_t errlen)
{
	int rc, grp = c->heads / c->kv_heads;

	if (c->head_dim % 32 || c->head_dim > 256 || grp > MAXG) {
		snprintf(err, errlen,
			 "GPU path needs head_dim a multiple of 32 up to 256 and heads/kv_heads <= %d "
			 "(got %d and %d); use --device cpu",
			 MAXG, c->head_dim, grp);
		return -1;
	}
	if (cudaSetDevice(dev) != cudaSuccess) {
		snprintf(err, errlen, "cannot use CUDA device %d", dev);
		return -1;
	}
	g_err[0] = 0;
	switch (o->dtype) {
	case LLM_BF16:
		rc = run_typed<__nv_bfloat16>(c, o, res);
		break;
	case LLM_FP16:
		rc = run_typed<__half>(c, o, res);
		break;
	default:
		rc = run_typed<float>(c, o, res);
		break;
	}
	if (rc)
		snprintf(err, errlen, "%s", g_err[0] ? g_err : "GPU run failed");
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Operator checks against the CPU reference (--check-ops)                */

struct checker {
	enum llm_dtype dt;
	uint64_t seed;
	int fails;
	double tol;
};

static float round_dt(enum llm_dtype dt, float x)
{
	return dt == LLM_BF16 ? llm_round_bf16(x) : dt == LLM_FP16 ? llm_round_fp16(x) : x;
}

/* n values of uniform(-scale, scale) (+ offset), already representable in dt. */
static float *rand_host(struct checker *ck, size_t n, float scale, float offset)
{
	float *h = (float *)malloc(n * sizeof(float));
	uint32_t id = (uint32_t)(ck->seed++ & 0xffffffu);
	for (size_t i = 0; h && i < n; i++)
		h[i] = round_dt(ck->dt, llm_init_value(ck->seed, id, i, scale, offset));
	return h;
}

template <typename T> static T *to_dev(const float *h, size_t n)
{
	T *d = NULL;
	float *tmp = NULL;
	if (cudaMalloc((void **)&d, n * sizeof(T)) || cudaMalloc((void **)&tmp, n * sizeof(float)))
		return NULL;
	cudaMemcpy(tmp, h, n * sizeof(float), cudaMemcpyHostToDevice);
	k_convert<T><<<64, 256>>>(d, tmp, n);
	cudaDeviceSynchronize();
	cudaFree(tmp);
	return d;
}

template <typename T> __global__ void k_to_f32(float *dst, const T *src, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		dst[i] = tof(src[i]);
}

template <typename T> static float *to_host(const T *d, size_t n)
{
	float *tmp = NULL, *h = (float *)malloc(n * sizeof(float));
	if (!h || cudaMalloc((void **)&tmp, n * sizeof(float)))
		return h;
	k_to_f32<T><<<64, 256>>>(tmp, d, n);
	cudaMemcpy(h, tmp, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(tmp);
	return h;
}

static void report(struct checker *ck, const char *op, const float *got, const float *ref, size_t n)
{
	double num = 0, den = 0;
	int nan = 0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)got[i] - ref[i];
		if (got[i] != got[i])
			nan = 1;
		num += d * d;
		den += (double)ref[i] * ref[i];
	}
	double rel = den > 0 ? sqrt(num / den) : sqrt(num);
	int ok = !nan && rel <= ck->tol && cudaGetLastError() == cudaSuccess;
	printf("check-ops: %-22s dtype=%s n=%zu rel_l2=%.3e tol=%.0e %s\n", op, llm_dtype_name(ck->dt),
	       n, rel, ck->tol, ok ? "ok" : "FAIL");
	ck->fails += !ok;
}

template <typename T> static int check_typed(struct checker *ck)
{
	struct gpu g;
	if (gpu_init(&g, 0))
		return -1;
	{ /* rmsnorm */
		int rows = 3, H = 200;
		float *x = rand_host(ck, rows * H, 2, 0), *w = rand_host(ck, H, 0.1f, 1);
		float *ref = (float *)malloc(rows * H * sizeof(float));
		T *dx = to_dev<T>(x, rows * H), *dw = to_dev<T>(w, H), *dy = to_dev<T>(x, rows * H);
		for (int r = 0; r < rows; r++)
			llm_op_rmsnorm(ref + r * H, x + r * H, w, H, 1e-5f);
		k_rmsnorm<T><<<rows, 224, 0, g.st>>>(dy, dx, dw, H, 1e-5f, 1, 0);
		cudaDeviceSynchronize();
		float *got = to_host(dy, rows * H);
		report(ck, "norm (rmsnorm)", got, ref, rows * H);
		free(x), free(w), free(ref), free(got), cudaFree(dx), cudaFree(dw), cudaFree(dy);
	}
	for (int gemv = 0; gemv < 2; gemv++) { /* linear: bias, then residual accumulate */
		int rows = gemv ? 3 : 37, in = 96, out = 72;
		float *x = rand_host(ck, rows * in, 1, 0), *W = rand_host(ck, out * in, 0.1f, 0);
		float *bias = rand_host(ck, out, 0.1f, 0), *y0 = rand_host(ck, rows * out, 1, 0);
		float *ref = (float *)malloc(rows * out * sizeof(float));
		T *dx = to_dev<T>(x, rows * in), *dW = to_dev<T>(W, out * in);
		T *db = to_dev<T>(bias, out), *dy = to_dev<T>(y0, rows * out);
		g.own_gemv = gemv;
		memcpy(ref, y0, rows * out * sizeof(float));
		llm_op_matmul(ref, x, W, bias, rows, in, out, 1);
		if (linear<T>(&g, dy, dx, dW, db, rows, in, out, 1, 0))
			return -1;
		cudaDeviceSynchronize();
		float *got = to_host(dy, rows * out);
		report(ck, gemv ? "linear (own gemv)" : "linear (cublaslt)", got, ref, rows * out);
		free(x), free(W), free(bias), free(y0), free(ref), free(got);
		cudaFree(dx), cudaFree(dW), cudaFree(db), cudaFree(dy);
		g.own_gemv = 0;
	}
	{ /* lm_head: fp32 logits out */
		int rows = 2, in = 64, out = 300;
		float *x = rand_host(ck, rows * in, 1, 0), *W = rand_host(ck, out * in, 0.1f, 0);
		float *ref = (float *)malloc(rows * out * sizeof(float)), *dy, *got;
		T *dx = to_dev<T>(x, rows * in), *dW = to_dev<T>(W, out * in);
		cudaMalloc((void **)&dy, rows * out * sizeof(float));
		llm_op_matmul(ref, x, W, NULL, rows, in, out, 0);
		if (linear<T>(&g, dy, dx, dW, (const T *)NULL, rows, in, out, 0, 1))
			return -1;
		got = (float *)malloc(rows * out * sizeof(float));
		cudaMemcpy(got, dy, rows * out * sizeof(float), cudaMemcpyDeviceToHost);
		report(ck, "lm_head (fp32 out)", got, ref, rows * out);
		free(x), free(W), free(ref), free(got), cudaFree(dx), cudaFree(dW), cudaFree(dy);
	}
	{ /* swiglu */
		int rows = 3, I = 100;
		float *gu = rand_host(ck, rows * 2 * I, 3, 0), *ref = (float *)malloc(rows * I * 4);
		T *dgu = to_dev<T>(gu, rows * 2 * I), *da = to_dev<T>(gu, rows * I);
		for (int r = 0; r < rows; r++)
			llm_op_swiglu(ref + r * I, gu + r * 2 * I, gu + r * 2 * I + I, I);
		k_swiglu<T><<<4, 256, 0, g.st>>>(da, dgu, I, (size_t)rows * I);
		cudaDeviceSynchronize();
		float *got = to_host(da, rows * I);
		report(ck, "mlp.act (swiglu)", got, ref, rows * I);
		free(gu), free(ref), free(got), cudaFree(dgu), cudaFree(da);
	}
	for (int pdl = 0; pdl < 2; pdl++) { /* up/gate GEMV with SwiGLU fused (decode path) */
		int rows = 3, in = 96, I = 40;
		float *x = rand_host(ck, rows * in, 1, 0), *W = rand_host(ck, 2 * I * in, 0.1f, 0);
		float *gu = (float *)malloc(rows * 2 * I * sizeof(float));
		float *ref = (float *)malloc(rows * I * sizeof(float));
		T *dx = to_dev<T>(x, rows * in), *dW = to_dev<T>(W, 2 * I * in);
		T *da = to_dev<T>(ref, rows * I);
		llm_op_matmul(gu, x, W, NULL, rows, in, 2 * I, 0);
		for (int r = 0; r < rows; r++)
			llm_op_swiglu(ref + r * I, gu + r * 2 * I, gu + r * 2 * I + I, I);
		g.own_gemv = 1;
		g.pdl = pdl;
		if (linear_swiglu<T>(&g, da, dx, dW, rows, in, I))
			return -1;
		cudaDeviceSynchronize();
		float *got = to_host(da, rows * I);
		report(ck, pdl ? "mlp.up_gate+act (pdl)" : "mlp.up_gate+act (gemv)", got, ref,
		       rows * I);
		free(x), free(W), free(gu), free(ref), free(got);
		cudaFree(dx), cudaFree(dW), cudaFree(da);
		g.own_gemv = 0;
		g.pdl = 0;
	}
	{ /* argmax, with a planted tie: the first maximum must win */
		int B = 3, V = 5000, next[3], out[3], want[3];
		float *l = rand_host(ck, B * V, 1, 0), *dl;
		int *dn, *dout;
		l[1 * V + 17] = 5, l[1 * V + 4000] = 5;
		cudaMalloc((void **)&dl, B * V * 4), cudaMalloc((void **)&dn, 12);
		cudaMalloc((void **)&dout, 12);
		cudaMemcpy(dl, l, B * V * 4, cudaMemcpyHostToDevice);
		k_argmax<<<B, 1024, 0, g.st>>>(dl, V, dn, dout, 1, 0, NULL, 0, NULL, B);
		cudaMemcpy(next, dn, 12, cudaMemcpyDeviceToHost);
		cudaMemcpy(out, dout, 12, cudaMemcpyDeviceToHost);
		float got[3], ref[3];
		for (int b = 0; b < B; b++) {
			want[b] = llm_op_argmax(l + b * V, V);
			got[b] = (float)(next[b] == want[b] && out[b] == want[b]);
			ref[b] = 1;
		}
		report(ck, "sample (argmax)", got, ref, 3);
		free(l), cudaFree(dl), cudaFree(dn), cudaFree(dout);
	}
	{ /* LM head with sampling fused (decode path): vocab not a multiple of the
	   block's 8 rows, a planted tie across blocks (rows 17 and 4000 equal:
	   the first wins), three launches (the state must reset), PDL on */
		int rows = 3, in = 64, V = 5003, n_out = 4, step;
		float *x = rand_host(ck, rows * in, 1, 0), *W = rand_host(ck, V * in, 0.1f, 0);
		float *logits = (float *)malloc((size_t)rows * V * 4), *dl, *dump;
		int next[3], out[3 * 4], ok_tok = 1, ok_dump = 1;
		unsigned long long *best;
		unsigned *done;
		int *dn, *dout, *dpos;
		for (int i = 0; i < in; i++) /* rows 17 and 4000: sequence 1's maximum */
			W[17 * in + i] = W[4000 * in + i] = x[1 * in + i];
		T *dx = to_dev<T>(x, rows * in), *dW = to_dev<T>(W, (size_t)V * in);
		cudaMalloc((void **)&dl, (size_t)rows * V * 4);
		cudaMalloc((void **)&dump, (size_t)n_out * rows * V * 4);
		cudaMalloc((void **)&best, rows * 8), cudaMalloc((void **)&done, 4);
		cudaMalloc((void **)&dn, 12), cudaMalloc((void **)&dout, sizeof(out));
		cudaMalloc((void **)&dpos, 4);
		cudaMemset(best, 0, rows * 8), cudaMemset(done, 0, 4), cudaMemset(dout, 0xff, sizeof(out));
		g.own_gemv = 1;
		g.pdl = 1;
		for (step = 1; step < n_out; step++) {
			struct sample_args sa = { best, done, dn, dout, n_out, 1, 100, dpos, dump };
			k_set_pos<<<1, 1, 0, g.st>>>(dpos, 100 + step - 1);
			if (lm_head_sample<T>(&g, dl, dx, dW, rows, in, V, &sa))
				return -1;
		}
		cudaDeviceSynchronize();
		cudaMemcpy(logits, dl, (size_t)rows * V * 4, cudaMemcpyDeviceToHost);
		cudaMemcpy(next, dn, 12, cudaMemcpyDeviceToHost);
		cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost);
		float *dumped = (float *)malloc((size_t)n_out * rows * V * 4);
		cudaMemcpy(dumped, dump, (size_t)n_out * rows * V * 4, cudaMemcpyDeviceToHost);
		for (int b = 0; b < rows; b++) {
			int want = llm_op_argmax(logits + (size_t)b * V, V); /* over the GPU's logits */
			ok_tok &= next[b] == want && (b != 1 || want == 17);
			for (step = 1; step < n_out; step++) {
				ok_tok &= out[b * n_out + step] == want;
				ok_dump &= !memcmp(dumped + ((size_t)step * rows + b) * V,
						   logits + (size_t)b * V, (size_t)V * 4);
			}
		}
		float *ref = (float *)malloc((size_t)rows * V * 4), got1[2] = { (float)ok_tok, (float)ok_dump },
		      one[2] = { 1, 1 };
		llm_op_matmul(ref, x, W, NULL, rows, in, V, 0);
		report(ck, "lm_head+sample (logits)", logits, ref, (size_t)rows * V);
		report(ck, "lm_head+sample (tokens)", got1, one, 2);
		g.own_gemv = 0;
		g.pdl = 0;
		free(x), free(W), free(logits), free(dumped), free(ref);
		cudaFree(dx), cudaFree(dW), cudaFree(dl), cudaFree(dump), cudaFree(best);
		cudaFree(done), cudaFree(dn), cudaFree(dout), cudaFree(dpos);
	}
	/* RoPE + KV write, decode attention and prefill attention through a
	 * model<T> holding just the buffers these kernels touch. */
	for (int hd = 64; hd <= 128; hd *= 2) {
		model<T> m;
		memset(&m, 0, sizeof(m));
		struct llm_config *c = &m.c;
		int B = 2, n = 150, pos = 256, heads = 8, kvh = 2, max_seq = 300, QKV, QD;
		c->heads = heads, c->kv_heads = kvh, c->head_dim = hd, c->rope_theta = 10000;
		m.o.batch = B, m.o.prompt_len = n, m.max_seq = max_seq, m.g = g;
		QKV = llm_qkv_dim(c), QD = llm_q_dim(c);
		size_t kvn = (size_t)B * kvh * max_seq * hd;
		float *cache_k = rand_host(ck, kvn, 1, 0), *cache_v = rand_host(ck, kvn, 1, 0);
		float *qkv = rand_host(ck, (size_t)B * n * QKV, 1, 0);
		float *ct = (float *)malloc(max_seq * hd / 2 * 4), *stt = (float *)malloc(max_seq * hd / 2 * 4);
		llm_rope_table(ct, stt, max_seq, hd, 10000.0);
		m.kc = to_dev<T>(cache_k, kvn), m.vc = to_dev<T>(cache_v, kvn);
		m.cos_t = (float *)to_dev<float>(ct, max_seq * hd / 2);
		m.sin_t = (float *)to_dev<float>(stt, max_seq * hd / 2);
		/* decode: one token per sequence at position pos */
		m.qkv = to_dev<T>(qkv, (size_t)B * QKV);
		m.att = to_dev<T>(qkv, (size_t)B * n * QD);
		m.chunk = 64, m.splits = (max_seq + 63) / 64;
		cudaMalloc((void **)&m.part_o, (size_t)B * heads * m.splits * hd * 4);
		cudaMalloc((void **)&m.part_ml, (size_t)B * heads * m.splits * 2 * 4);
		cudaMalloc((void **)&m.dpos, 4);
		k_set_pos<<<1, 1, 0, g.st>>>(m.dpos, pos);
		/* the decode kernel rotates q and k and writes the cache itself */
		if (attn_decode(&m, 0))
			return -1;
		cudaDeviceSynchronize();
		/* CPU: same rope, cache write and attention */
		float *rq = (float *)malloc((size_t)B * QKV * 4), *ref = (float *)malloc((size_t)B * n * QD * 4);
		float *scr = (float *)malloc(max_seq * 4);
		memcpy(rq, qkv, (size_t)B * QKV * 4);
		for (int b = 0; b < B; b++) {
			float *q = rq + (size_t)b * QKV;
			llm_op_rope(q, heads + kvh, hd, ct + pos * hd / 2, stt + pos * hd / 2);
			for (int i = 0; i < QD + 2 * kvh * hd; i++)
				q[i] = round_dt(ck->dt, q[i]);
			for (int gi = 0; gi < kvh; gi++) {
				size_t off = (((size_t)b * kvh + gi) * max_seq + pos) * hd;
				memcpy(cache_k + off, q + QD + gi * hd, hd * 4);
				memcpy(cache_v + off, q + QD + (kvh + gi) * hd, hd * 4);
			}
			llm_op_attention(ref + (size_t)b * QD, q, cache_k + (size_t)b * kvh * max_seq * hd,
					 cache_v + (size_t)b * kvh * max_seq * hd, heads, kvh, hd, pos + 1,
					 max_seq, scr);
		}
		float *gk = to_host(m.kc, kvn), *got = to_host(m.att, (size_t)B * QD);
		report(ck, hd == 64 ? "attn.rope (k cache)" : "attn.rope (k cache hd128)", gk, cache_k, kvn);
		report(ck, hd == 64 ? "attn.sdpa decode hd64" : "attn.sdpa decode hd128", got, ref,
		       (size_t)B * QD);
		free(gk), free(got);
		/* prefill: n tokens from position 0 over a fresh cache */
		cudaFree(m.qkv);
		m.qkv = to_dev<T>(qkv, (size_t)B * n * QKV);
		cudaMalloc((void **)&m.qT, (size_t)B * n * QD * sizeof(T));
		cudaMalloc((void **)&m.oT, (size_t)B * n * QD * sizeof(T));
		cudaMalloc((void **)&m.S, (size_t)heads * n * n * 4);
		cudaMalloc((void **)&m.P, (size_t)heads * n * n * sizeof(T));
		size_t work = (size_t)B * n * (heads + 2 * kvh) * (hd / 2);
		k_rope_kv<T><<<(unsigned)((work + 255) / 256), 256, 0, g.st>>>(
			m.qkv, B * n, n, 0, NULL, m.cos_t, m.sin_t, m.kc, m.vc, m.qT, heads, kvh, hd,
			max_seq);
		/* 16-bit types: the flash kernel first, then the GEMM path. */
		g_prefill_gemm = sizeof(T) == 4;
		if (attn_prefill(&m, 0))
			return -1;
		cudaDeviceSynchronize();
		float *flash = sizeof(T) == 2 ? to_host(m.att, (size_t)B * n * QD) : NULL;
		g_prefill_gemm = 1;
		if (attn_prefill(&m, 0))
			return -1;
		cudaDeviceSynchronize();
		g_prefill_gemm = 0;
		float *rq2 = (float *)malloc((size_t)B * n * QKV * 4);
		memcpy(rq2, qkv, (size_t)B * n * QKV * 4);
		for (int r = 0; r < B * n; r++) {
			int b = r / n, t = r % n;
			float *q = rq2 + (size_t)r * QKV;
			llm_op_rope(q, heads + kvh, hd, ct + t * hd / 2, stt + t * hd / 2);
			for (int i = 0; i < QD + 2 * kvh * hd; i++)
				q[i] = round_dt(ck->dt, q[i]);
			for (int gi = 0; gi < kvh; gi++) {
				size_t off = (((size_t)b * kvh + gi) * max_seq + t) * hd;
				memcpy(cache_k + off, q + QD + gi * hd, hd * 4);
				memcpy(cache_v + off, q + QD + (kvh + gi) * hd, hd * 4);
			}
		}
		for (int r = 0; r < B * n; r++) {
			int b = r / n, t = r % n;
			llm_op_attention(ref + (size_t)r * QD, rq2 + (size_t)r * QKV,
					 cache_k + (size_t)b * kvh * max_seq * hd,
					 cache_v + (size_t)b * kvh * max_seq * hd, heads, kvh, hd, t + 1,
					 max_seq, scr);
		}
		got = to_host(m.att, (size_t)B * n * QD);
		report(ck, hd == 64 ? "attn.sdpa prefill gemm hd64" : "attn.sdpa prefill gemm hd128",
		       got, ref, (size_t)B * n * QD);
		if (flash)
			report(ck, hd == 64 ? "attn.sdpa prefill flash hd64" : "attn.sdpa prefill flash hd128",
			       flash, ref, (size_t)B * n * QD);
		free(flash);
		free(got), free(rq), free(rq2), free(ref), free(scr), free(ct), free(stt);
		free(cache_k), free(cache_v), free(qkv);
		cudaFree(m.kc), cudaFree(m.vc), cudaFree(m.cos_t), cudaFree(m.sin_t), cudaFree(m.qkv);
		cudaFree(m.att), cudaFree(m.part_o), cudaFree(m.part_ml), cudaFree(m.dpos);
		cudaFree(m.qT), cudaFree(m.oT), cudaFree(m.S), cudaFree(m.P);
	}
	return 0;
}

extern "C" int llm_cuda_check_ops(int dev, enum llm_dtype dt)
{
	struct checker ck;
	int rc;

	if (cudaSetDevice(dev) != cudaSuccess)
		return -1;
	ck.dt = dt;
	ck.seed = (uint64_t)time(NULL); /* fresh inputs every run */
	ck.fails = 0;
	/* Outputs are stored in dt: allow its rounding (fp32: accumulation order). */
	ck.tol = dt == LLM_FP32 ? 1e-5 : dt == LLM_FP16 ? 4e-3 : 2e-2;
	printf("check-ops: seed=%llu\n", (unsigned long long)ck.seed);
	switch (dt) {
	case LLM_BF16:
		rc = check_typed<__nv_bfloat16>(&ck);
		break;
	case LLM_FP16:
		rc = check_typed<__half>(&ck);
		break;
	default:
		rc = check_typed<float>(&ck);
		break;
	}
	if (rc) {
		printf("check-ops: error: %s\n", g_err);
		return -1;
	}
	return ck.fails;
}
