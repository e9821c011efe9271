/* ncu_interrupt_probe.cu: launches kA forever (one every 50 ms), printing
 * every tenth launch: a target for scripts/gpu/probe-ncu-interrupt.sh,
 * which interrupts it under ncu. */
#include <cstdio>
#include <unistd.h>
__global__ void kA(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1.0f; }
int main() {
	float *d; cudaMalloc(&d, 1 << 22);
	for (int i = 0; ; i++) { kA<<<1024, 256>>>(d, 1 << 18); cudaDeviceSynchronize(); if (i % 10 == 0) { printf("launch %d\n", i); fflush(stdout); } usleep(50000); }
}
