// ncu_filter_probe.cu: a tiny program whose launch pattern settles how
// Nsight Compute's filters count, for llmprof's one-pass ncu plan
// (scripts/gpu/probe-ncu-filters.sh runs it; docs/validation/ says what came
// out). Every "step" NVTX range (inside "decode") launches, in order:
//   kA(n=small) kB kA(n=large) kC<grid 4> kC<grid 8> kB
// kA and kB share one launch configuration (grid 4, block 128) and differ
// in name; the two kA launches share name and configuration and differ in
// work (the o-proj / down-proj GEMV case); kC runs two configurations.
#include <cstdio>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void kA(float *x, int n)
{
	float acc = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		acc += x[i % 4096] * 1.0001f;
	if (acc == 12345.f)
		x[0] = acc;
}
__global__ void kB(float *x, int n)
{
	if (threadIdx.x < n)
		x[blockIdx.x * blockDim.x + threadIdx.x] += 1.f;
}
__global__ void kC(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 0.5f;
}

static void step(float *x)
{
	nvtxRangePushA("step");
	kA<<<4, 128>>>(x, 1 << 10);
	kB<<<4, 128>>>(x, 128);
	kA<<<4, 128>>>(x, 1 << 20);
	kC<<<4, 128>>>(x, 4096);
	kC<<<8, 128>>>(x, 4096);
	kB<<<4, 128>>>(x, 128);
	nvtxRangePop();
}

int main(void)
{
	float *x;
	if (cudaMalloc(&x, 1 << 20) != cudaSuccess)
		return 1;
	cudaMemset(x, 0, 1 << 20);
	step(x); /* warm-up, outside "decode": 6 launches */
	nvtxRangePushA("decode");
	for (int s = 0; s < 3; s++)
		step(x);
	nvtxRangePop();
	cudaDeviceSynchronize();
	printf("probe: %s\n", cudaGetErrorString(cudaGetLastError()));
	return 0;
}
