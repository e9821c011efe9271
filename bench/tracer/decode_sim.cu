// decode_sim: a decode loop of many small kernels, as a serving engine runs
// it, for pricing a tracer (bench/tracer/tracer-cost.sh). Each step copies a
// token in (4 bytes, host to device), runs K small kernels, copies one value
// out and waits for it, inside an NVTX range "decode_step". Mode "graph"
// replays the K kernels as one CUDA graph captured once (NVTX ranges
// "layerN" open at capture, as in a captured model); mode "eager" launches
// them one by one. The modes alternate rep by rep in one process, so drift
// hits both alike. Per mode it prints the median and minimum of the reps:
// ms of the S-step loop from CUDA events, and the CPU time the loop cost the
// launching thread and the whole process (the difference is what other
// threads, such as a tracer's, spent meanwhile).
//
// With TC_MAIN_CPU=N in the environment the launching thread moves to CPU N
// after the warm-up, and before each rep every other thread of the process
// (CUDA's, CUPTI's, a tracer's, also those made since) is put back on the
// CPUs the process started with: the launching thread has a CPU of its own,
// as on a machine with cores to spare, in every variant alike.
//
//   decode_sim [KERNELS_PER_STEP 300] [STEPS 100] [REPS 5]
//   nvcc -O2 -arch=sm_90 -o decode_sim bench/tracer/decode_sim.cu -ldl
//
// Output (one line per mode, then the totals a trace must hold):
//   decode_sim graph kernels_per_step K steps S reps R ms_median M ms_min M
//       main_cpu_ms T proc_cpu_ms P wall_ms W
//   decode_sim totals kernels N memcpy C graph_launches G
#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define N_ELEMS 8192
#define LAYER_KERNELS 10 // kernels per NVTX "layer" range at capture

// Four kernels of distinct names and a little work each (~2 us on an H100).
template <int V> __global__ void op(float *x, const float *w, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * w[(i + V) & 1023] * 0.5f + (float)V * 1e-3f;
}

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "decode_sim: %s: %s\n", what, cudaGetErrorString(e));
		exit(1);
	}
}

static double clock_ms(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

struct ctx {
	cudaStream_t s;
	float *x, *w, *h_out;
	int *d_tok, *h_tok;
	int k;
	cudaGraphExec_t exec;
	long kernels, memcpys, graph_launches;
};

// The step's kernels on c->s; with nvtx, "layerN" ranges around each group.
static void kernels(struct ctx *c, int nvtx)
{
	const int block = 256, grid = (N_ELEMS + block - 1) / block;
	for (int i = 0; i < c->k; i++) {
		if (nvtx && i % LAYER_KERNELS == 0) {
			char name[32];
			snprintf(name, sizeof(name), "layer%d", i / LAYER_KERNELS);
			nvtxRangePushA(name);
		}
		switch (i & 3) {
		case 0:
			op<0><<<grid, block, 0, c->s>>>(c->x, c->w, N_ELEMS);
			break;
		case 1:
			op<1><<<grid, block, 0, c->s>>>(c->x, c->w, N_ELEMS);
			break;
		case 2:
			op<2><<<grid, block, 0, c->s>>>(c->x, c->w, N_ELEMS);
			break;
		default:
			op<3><<<grid, block, 0, c->s>>>(c->x, c->w, N_ELEMS);
			break;
		}
		if (nvtx && (i % LAYER_KERNELS == LAYER_KERNELS - 1 || i == c->k - 1))
			nvtxRangePop();
	}
}

static void step(struct ctx *c, int graph)
{
	nvtxRangePushA("decode_step");
	(*c->h_tok)++;
	check(cudaMemcpyAsync(c->d_tok, c->h_tok, sizeof(int), cudaMemcpyHostToDevice, c->s),
	      "copy in");
	if (graph) {
		check(cudaGraphLaunch(c->exec, c->s), "cudaGraphLaunch");
		c->graph_launches++;
	} else {
		kernels(c, 0);
	}
	check(cudaMemcpyAsync(c->h_out, c->x, sizeof(float), cudaMemcpyDeviceToHost, c->s),
	      "copy out");
	check(cudaStreamSynchronize(c->s), "sync");
	nvtxRangePop();
	c->kernels += c->k;
	c->memcpys += 2;
}

// TC_MAIN_CPU (above): the CPUs the process started on, the launching
// thread's CPU (-1: no placement) and its id.
static cpu_set_t g_others;
static int g_main_cpu = -1;
static pid_t g_main_tid;

static void place_threads(void)
{
	if (g_main_cpu < 0)
		return;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		pid_t t = (pid_t)atoi(e->d_name);
		if (t > 0 && t != g_main_tid)
			sched_setaffinity(t, sizeof(g_others), &g_others); // gone since: fine
	}
	if (d)
		closedir(d);
}

static void place_init(void)
{
	const char *v = getenv("TC_MAIN_CPU");
	cpu_set_t one;
	if (!v || !*v || sched_getaffinity(0, sizeof(g_others), &g_others) != 0)
		return;
	g_main_cpu = atoi(v);
	g_main_tid = (pid_t)syscall(SYS_gettid);
	CPU_ZERO(&one);
	CPU_SET(g_main_cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		fprintf(stderr, "decode_sim: CPU %d: %s; threads not placed\n", g_main_cpu,
			strerror(errno));
		g_main_cpu = -1;
	}
}

struct rep {
	double ms, main_cpu, proc_cpu, wall;
};

static struct rep run(struct ctx *c, int graph, int steps)
{
	cudaEvent_t e0, e1;
	struct rep r;
	float ms = 0;
	check(cudaEventCreate(&e0), "event");
	check(cudaEventCreate(&e1), "event");
	double w0 = clock_ms(CLOCK_MONOTONIC), t0 = clock_ms(CLOCK_THREAD_CPUTIME_ID),
	       p0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	check(cudaEventRecord(e0, c->s), "record");
	for (int i = 0; i < steps; i++)
		step(c, graph);
	check(cudaEventRecord(e1, c->s), "record");
	check(cudaEventSynchronize(e1), "event sync");
	r.main_cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
	r.proc_cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - p0;
	r.wall = clock_ms(CLOCK_MONOTONIC) - w0;
	check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
	r.ms = ms;
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return r;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(const char *mode, int k, int steps, const std::vector<struct rep> &reps)
{
	std::vector<double> ms, mc, pc, wall;
	for (const struct rep &r : reps) {
		ms.push_back(r.ms);
		mc.push_back(r.main_cpu);
		pc.push_back(r.proc_cpu);
		wall.push_back(r.wall);
	}
	printf("decode_sim %s kernels_per_step %d steps %d reps %zu ms_median %.4f ms_min %.4f "
	       "main_cpu_ms %.4f proc_cpu_ms %.4f wall_ms %.4f\n",
	       mode, k, steps, reps.size(), median(ms), *std::min_element(ms.begin(), ms.end()),
	       median(mc), median(pc), median(wall));
}

int main(int argc, char **argv)
{
	struct ctx c = {};
	int steps = argc > 2 ? atoi(argv[2]) : 100, nreps = argc > 3 ? atoi(argv[3]) : 5;
	c.k = argc > 1 ? atoi(argv[1]) : 300;
	if (c.k < 1 || steps < 1 || nreps < 1) {
		fprintf(stderr, "usage: decode_sim [KERNELS_PER_STEP] [STEPS] [REPS]\n");
		return 2;
	}
	check(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking), "stream");
	check(cudaMalloc(&c.x, N_ELEMS * sizeof(float)), "malloc");
	check(cudaMalloc(&c.w, 1024 * sizeof(float)), "malloc");
	check(cudaMalloc(&c.d_tok, sizeof(int)), "malloc");
	check(cudaMemsetAsync(c.x, 0, N_ELEMS * sizeof(float), c.s), "memset");
	check(cudaMemsetAsync(c.w, 0, 1024 * sizeof(float), c.s), "memset");
	check(cudaMallocHost(&c.h_tok, sizeof(int)), "host alloc");
	check(cudaMallocHost(&c.h_out, sizeof(float)), "host alloc");
	*c.h_tok = 0;

	// the graph: K kernels captured once, NVTX layer ranges open at capture
	cudaGraph_t g;
	check(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeThreadLocal), "begin capture");
	nvtxRangePushA("capture");
	kernels(&c, 1);
	nvtxRangePop();
	check(cudaStreamEndCapture(c.s, &g), "end capture");
	check(cudaGraphInstantiate(&c.exec, g, 0), "instantiate");

	for (int i = 0; i < 10; i++) { // warm-up: module load, instrumentation
		step(&c, 1);
		step(&c, 0);
	}
	place_init();
	std::vector<struct rep> gr, eg;
	for (int r = 0; r < nreps; r++) {
		place_threads();
		gr.push_back(run(&c, 1, steps));
		place_threads();
		eg.push_back(run(&c, 0, steps));
	}
	report("graph", c.k, steps, gr);
	report("eager", c.k, steps, eg);
	printf("decode_sim totals kernels %ld memcpy %ld graph_launches %ld\n", c.kernels,
	       c.memcpys, c.graph_launches);
	check(cudaGetLastError(), "last error");
	cudaGraphExecDestroy(c.exec);
	cudaGraphDestroy(g);
	return 0;
}
