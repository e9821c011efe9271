// tiny_launch: N empty-kernel launches (default 100000) and one sync; prints
// the wall time of the loop, to measure the per-launch cost of a tracer.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void empty_kernel(void) {}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	for (int i = 0; i < 100; i++) /* warm-up: module load, instrumentation */
		empty_kernel<<<1, 1>>>();
	cudaDeviceSynchronize();
	double t0 = now();
	for (int i = 0; i < n; i++)
		empty_kernel<<<1, 1>>>();
	cudaDeviceSynchronize();
	double t1 = now();
	cudaError_t e = cudaGetLastError();
	printf("tiny_launch launches %d wall_s %.6f us_per_launch %.3f err %d\n", n, t1 - t0,
	       (t1 - t0) * 1e6 / n, (int)e);
	return e != cudaSuccess;
}
