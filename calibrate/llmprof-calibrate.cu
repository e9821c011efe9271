// llmprof-calibrate: measures the practical ceilings of one GPU and prints
// them as one JSON line on stdout (format: src/analysis/calibration.h).
//
//   gemm: cuBLASLt bf16 x bf16 -> bf16 GEMM, fp32 accumulate, M = N = K =
//         8192 unless --gemm-size says otherwise (dense, random operands: all-zero inputs run faster and would
//         overstate the ceiling); 10 warm-up calls, then `iters` calls timed
//         with CUDA events. TFLOP/s = 2 M N K iters / time.
//   copy: cudaMemcpyAsync device-to-device of 2 GiB; 3 warm-up copies, then
//         `iters` timed copies. GB/s counts every byte twice (read once,
//         written once), the convention of DRAM bandwidth datasheet figures.
//
// Usage: llmprof-calibrate [--device N] [--gemm-iters N] [--copy-iters N] [--gemm-size N]
// (--gemm-size 4096 --gemm-iters 1 gives the GEMM of known FLOPs that the
// ncu FLOP-count validation measures)
// Exit: 0 ok, 1 CUDA/cuBLAS error, 2 usage, 3 no usable CUDA device.
// Built with static cudart and without libcuda (the driver is loaded at run
// time), so the binary starts on a machine without a GPU and says so.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define TOOL_VERSION "llmprof-calibrate 0.1.0"

static int fail_cuda(const char *what, cudaError_t e)
{
	fprintf(stderr, "llmprof-calibrate: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

#define CUDA_TRY_OR_RETURN(call)                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess)                                                             \
			return fail_cuda(#call, e_);                                               \
	} while (0)

#define CUBLAS_TRY_OR_RETURN(call)                                                                 \
	do {                                                                                       \
		cublasStatus_t s_ = (call);                                                        \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
			fprintf(stderr, "llmprof-calibrate: %s: cuBLAS status %d\n", #call,       \
				(int)s_);                                                          \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

// Uniform values in [-1, 1) from a hash of the index: deterministic, no
// curand dependency.
__global__ void fill_random(__nv_bfloat16 *p, size_t n, uint32_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint32_t x = (uint32_t)i * 2654435761u ^ seed;
		x ^= x >> 16;
		x *= 0x7feb352du;
		x ^= x >> 15;
		x *= 0x846ca68bu;
		x ^= x >> 16;
		p[i] = __float2bfloat16((float)(x >> 8) / 8388608.0f - 1.0f);
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int run_gemm(int n, int iters, double *ms_out)
{
	const size_t elems = (size_t)n * n;
	__nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
	void *ws = nullptr;
	const size_t ws_size = 64u << 20;
	cublasLtHandle_t lt = nullptr;
	cublasLtMatmulDesc_t op = nullptr;
	cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
	cublasLtMatmulPreference_t pref = nullptr;
	cublasLtMatmulHeuristicResult_t heur = {};
	int found = 0;
	float alpha = 1.0f, beta = 0.0f, ms = 0;
	cudaEvent_t t0, t1;

	CUDA_TRY_OR_RETURN(cudaMalloc(&a, elems * sizeof(*a)));
	CUDA_TRY_OR_RETURN(cudaMalloc(&b, elems * sizeof(*b)));
	CUDA_TRY_OR_RETURN(cudaMalloc(&c, elems * sizeof(*c)));
	CUDA_TRY_OR_RETURN(cudaMalloc(&ws, ws_size));
	fill_random<<<1024, 256>>>(a, elems, 1);
	fill_random<<<1024, 256>>>(b, elems, 2);
	CUDA_TRY_OR_RETURN(cudaGetLastError());

	CUBLAS_TRY_OR_RETURN(cublasLtCreate(&lt));
	CUBLAS_TRY_OR_RETURN(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	{
		cublasOperation_t tr = CUBLAS_OP_T, nt = CUBLAS_OP_N;
		CUBLAS_TRY_OR_RETURN(cublasLtMatmulDescSetAttribute(
			op, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof(tr)));
		CUBLAS_TRY_OR_RETURN(cublasLtMatmulDescSetAttribute(
			op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof(nt)));
	}
	CUBLAS_TRY_OR_RETURN(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, n, n, n));
	CUBLAS_TRY_OR_RETURN(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, n, n, n));
	CUBLAS_TRY_OR_RETURN(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, n, n));
	CUBLAS_TRY_OR_RETURN(cublasLtMatmulPreferenceCreate(&pref));
	CUBLAS_TRY_OR_RETURN(cublasLtMatmulPreferenceSetAttribute(
		pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_size, sizeof(ws_size)));
	CUBLAS_TRY_OR_RETURN(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur,
							    &found));
	if (!found) {
		fprintf(stderr, "llmprof-calibrate: cuBLASLt has no bf16 GEMM algorithm here\n");
		return 1;
	}
	for (int i = 0; i < 10; i++)
		CUBLAS_TRY_OR_RETURN(cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, c, lc, c, lc,
						    &heur.algo, ws, ws_size, 0));
	CUDA_TRY_OR_RETURN(cudaEventCreate(&t0));
	CUDA_TRY_OR_RETURN(cudaEventCreate(&t1));
	CUDA_TRY_OR_RETURN(cudaEventRecord(t0));
	for (int i = 0; i < iters; i++)
		CUBLAS_TRY_OR_RETURN(cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, c, lc, c, lc,
						    &heur.algo, ws, ws_size, 0));
	CUDA_TRY_OR_RETURN(cudaEventRecord(t1));
	CUDA_TRY_OR_RETURN(cudaEventSynchronize(t1));
	CUDA_TRY_OR_RETURN(cudaEventElapsedTime(&ms, t0, t1));
	*ms_out = ms;
	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(op);
	cublasLtDestroy(lt);
	cudaEventDestroy(t0);
	cudaEventDestroy(t1);
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	cudaFree(ws);
	return 0;
}

static int run_copy(size_t bytes, int iters, double *ms_out)
{
	void *src = nullptr, *dst = nullptr;
	cudaEvent_t t0, t1;
	float ms = 0;

	CUDA_TRY_OR_RETURN(cudaMalloc(&src, bytes));
	CUDA_TRY_OR_RETURN(cudaMalloc(&dst, bytes));
	CUDA_TRY_OR_RETURN(cudaMemset(src, 1, bytes));
	for (int i = 0; i < 3; i++)
		CUDA_TRY_OR_RETURN(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
	CUDA_TRY_OR_RETURN(cudaEventCreate(&t0));
	CUDA_TRY_OR_RETURN(cudaEventCreate(&t1));
	CUDA_TRY_OR_RETURN(cudaEventRecord(t0));
	for (int i = 0; i < iters; i++)
		CUDA_TRY_OR_RETURN(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
	CUDA_TRY_OR_RETURN(cudaEventRecord(t1));
	CUDA_TRY_OR_RETURN(cudaEventSynchronize(t1));
	CUDA_TRY_OR_RETURN(cudaEventElapsedTime(&ms, t0, t1));
	*ms_out = ms;
	cudaEventDestroy(t0);
	cudaEventDestroy(t1);
	cudaFree(src);
	cudaFree(dst);
	return 0;
}

int main(int argc, char **argv)
{
	int device = 0, gemm_iters = 50, copy_iters = 20, count = 0;
	int n = 8192;
	const size_t copy_bytes = (size_t)2 << 30;
	cudaDeviceProp prop;
	cudaError_t e;
	double gemm_ms = 0, copy_ms = 0;

	for (int i = 1; i < argc; i++) {
		int *target = nullptr;
		if (!strcmp(argv[i], "--device"))
			target = &device;
		else if (!strcmp(argv[i], "--gemm-iters"))
			target = &gemm_iters;
		else if (!strcmp(argv[i], "--copy-iters"))
			target = &copy_iters;
		else if (!strcmp(argv[i], "--gemm-size"))
			target = &n;
		if (!target || i + 1 >= argc ||
		    parse_int(argv[++i], target == &device ? 0 : target == &n ? 256 : 1,
			      target == &device ? 1023 : target == &n ? 16384 : 100000, target)) {
			fprintf(stderr, "usage: llmprof-calibrate [--device N] [--gemm-iters N] "
					"[--copy-iters N] [--gemm-size N]\n");
			return 2;
		}
	}
	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		fprintf(stderr, "llmprof-calibrate: no usable CUDA device: %s\n",
			e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
		return 3;
	}
	if (device >= count) {
		fprintf(stderr, "llmprof-calibrate: device %d does not exist (%d devices)\n", device,
			count);
		return 3;
	}
	CUDA_TRY_OR_RETURN(cudaSetDevice(device));
	CUDA_TRY_OR_RETURN(cudaGetDeviceProperties(&prop, device));
	if (prop.totalGlobalMem < copy_bytes * 2 + ((size_t)1 << 30)) {
		fprintf(stderr, "llmprof-calibrate: %s has too little memory for a 2 GiB copy\n",
			prop.name);
		return 1;
	}
	if (run_gemm(n, gemm_iters, &gemm_ms) || run_copy(copy_bytes, copy_iters, &copy_ms))
		return 1;

	printf("{\"gpu\": ");
	json_string(prop.name);
	printf(", \"sm_count\": %d, \"cc\": \"%d.%d\", \"device\": %d, ", prop.multiProcessorCount,
	       prop.major, prop.minor, device);
	printf("\"gemm\": {\"m\": %d, \"n\": %d, \"k\": %d, \"dtype\": \"bf16\", \"accumulate\": "
	       "\"fp32\", \"iters\": %d, \"ms\": %.4f, \"tflops\": %.2f}, ",
	       n, n, n, gemm_iters, gemm_ms, 2.0 * n * n * (double)n * gemm_iters / (gemm_ms / 1e3) / 1e12);
	printf("\"copy\": {\"bytes\": %zu, \"iters\": %d, \"ms\": %.4f, \"gbs\": %.1f, "
	       "\"convention\": \"read+write\"}, ",
	       copy_bytes, copy_iters, copy_ms,
	       2.0 * (double)copy_bytes * copy_iters / (copy_ms / 1e3) / 1e9);
	printf("\"tool\": \"" TOOL_VERSION "\"}\n");
	return fflush(stdout) ? 1 : 0;
}
