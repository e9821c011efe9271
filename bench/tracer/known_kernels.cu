// known_kernels: CUDA program with known kernels, copies and a CUDA graph,
// each GPU operation timed with CUDA events, for validating the builtin
// tracer (docs/validation/tracer-h100.md). Prints one EXPECT line per kind:
//   EXPECT <shortName> <count> <sum of CUDA-event durations, ns>
// and NVTX ranges so per-range attribution can be checked.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void spin_kernel(long long cycles, int *out)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0)
		out[blockIdx.x] = 1;
}

template <typename T, int N>
__global__ void scale_kernel(T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		T v = x[i];
		for (int k = 0; k < N; k++)
			v = v * a + (T)1;
		x[i] = v;
	}
}

namespace llm {
__global__ void graph_node_kernel(float *x, int n, long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}
}

struct timed {
	cudaEvent_t a, b;
};

int main(void)
{
	const int n_spin = 200, n_scale = 100, n_graph = 10;
	const int n = 4 << 20;
	const size_t bytes = 64u << 20;
	float *x, *big, *host;
	int *flags;
	cudaStream_t s;
	std::vector<timed> ev_spin(n_spin), ev_scale(n_scale);
	nvtxDomainHandle_t dom = nvtxDomainCreateA("bench");
	nvtxEventAttributes_t at = {};

	at.version = NVTX_VERSION;
	at.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	at.messageType = NVTX_MESSAGE_TYPE_ASCII;

	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&big, bytes));
	CK(cudaMalloc(&flags, 1024 * sizeof(int)));
	CK(cudaMallocHost(&host, bytes));
	for (auto &e : ev_spin) { CK(cudaEventCreate(&e.a)); CK(cudaEventCreate(&e.b)); }
	for (auto &e : ev_scale) { CK(cudaEventCreate(&e.a)); CK(cudaEventCreate(&e.b)); }
	CK(cudaMemsetAsync(x, 0, n * sizeof(float), s)); /* memset #1 */
	CK(cudaStreamSynchronize(s));

	at.message.ascii = "spin_phase";
	nvtxDomainRangePushEx(dom, &at);
	for (int i = 0; i < n_spin; i++) {
		CK(cudaEventRecord(ev_spin[i].a, s));
		spin_kernel<<<132, 128, 0, s>>>(400000, flags);
		CK(cudaEventRecord(ev_spin[i].b, s));
	}
	CK(cudaStreamSynchronize(s));
	nvtxDomainRangePop(dom);

	nvtxRangePushA("scale_phase");
	for (int i = 0; i < n_scale; i++) {
		CK(cudaEventRecord(ev_scale[i].a, s));
		scale_kernel<float, 1024><<<(n + 255) / 256, 256, 0, s>>>(x, 0.999f, n);
		CK(cudaEventRecord(ev_scale[i].b, s));
	}
	CK(cudaStreamSynchronize(s));
	nvtxRangePop();

	nvtxRangePushA("copies");
	CK(cudaMemcpyAsync(big, host, bytes, cudaMemcpyHostToDevice, s)); /* HtoD */
	CK(cudaMemsetAsync(big, 1, bytes, s));                              /* memset #2 */
	CK(cudaMemsetAsync(big, 2, bytes, s));                              /* memset #3 */
	CK(cudaMemcpyAsync(host, big, bytes, cudaMemcpyDeviceToHost, s)); /* DtoH */
	CK(cudaStreamSynchronize(s));
	nvtxRangePop();

	/* A graph of 3 kernels, replayed n_graph times inside a start/end range. */
	cudaGraph_t g;
	cudaGraphExec_t ge;
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	for (int k = 0; k < 3; k++)
		llm::graph_node_kernel<<<64, 256, 0, s>>>(x, n, 100000);
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	nvtxRangeId_t gr = nvtxRangeStartA("graph_replays");
	for (int i = 0; i < n_graph; i++)
		CK(cudaGraphLaunch(ge, s));
	CK(cudaStreamSynchronize(s));
	nvtxRangeEnd(gr);

	double spin_ns = 0, scale_ns = 0;
	for (auto &e : ev_spin) { float ms; CK(cudaEventElapsedTime(&ms, e.a, e.b)); spin_ns += ms * 1e6; }
	for (auto &e : ev_scale) { float ms; CK(cudaEventElapsedTime(&ms, e.a, e.b)); scale_ns += ms * 1e6; }
	printf("EXPECT spin_kernel %d %.0f\n", n_spin, spin_ns);
	printf("EXPECT scale_kernel %d %.0f\n", n_scale, scale_ns);
	printf("EXPECT graph_node_kernel %d -1\n", 3 * n_graph);
	printf("EXPECT memcpy 2 -1\nEXPECT memset 3 -1\n");
	CK(cudaDeviceSynchronize());
	return 0;
}
