/* tlogsynth.h: writes a synthetic builtin-tracer log with known GPU content,
 * for tests and benchmarks of the converter on machines without a GPU
 * (CUPTI's activity API cannot run there). */
#ifndef LLMPROF_TLOGSYNTH_H
#define LLMPROF_TLOGSYNTH_H

#include <stdint.h>

#include "core/strbuf.h"

/* Writes <dir>/trace-<pid>.bin: one process (pid), main thread tid = pid,
 * `steps` NVTX push/pop ranges "step" in domain "LLM" inside a range
 * "decode_all"; each step launches `kernels_per_step` kernels alternating
 * between two names (cudaLaunchKernel, runtime corr ids, the driver call of
 * every second launch aliased), plus per step one 4096-byte HtoD memcpy and
 * one memset. Kernel i of a step runs [t, t+1000+i*10) ns on stream 7.
 * Timing: all start from base_ns. Launch calls are written as the callback
 * source does (TLOG_API + TLOG_CORR_ALIAS on the thread), or with
 * api_activity as the activity source does (TLOG_API_ACT in the GPU chunk,
 * the aliased driver calls as nested driver records); both convert to the
 * same database. Returns 0 or -1 with err set. */
#define TLOGSYNTH_API_ALL 2
/* api_activity TLOGSYNTH_API_ALL: the activity source as with
 * LLMPROF_TRACE_API_CALLS=all: also a 100 us cuModuleLoadData driver call
 * first in "decode_all", and at the start of each step a 5 us
 * cudaStreamSynchronize runtime call with its cuStreamSynchronize driver
 * call nested inside (folded into it by the converter). */
int tlogsynth_write(const char *dir, uint32_t pid, uint64_t base_ns, uint32_t steps,
		    uint32_t kernels_per_step, int api_activity, struct strbuf *err);

/* Writes <dir>/trace-<pid>.bin of n NVTX pushes "open" in domain "LLM",
 * nested, none popped (a program that crashed n ranges deep): the
 * converter keeps each until the log ends. Written as it grows, as every
 * log above: a few MiB of memory whatever n. 0, or -1 with err set. */
int tlogsynth_write_open(const char *dir, uint32_t pid, uint64_t base, uint32_t n,
			 struct strbuf *err);

/* One rank of a synthetic multi-process job: the log above, plus a
 * TLOG_RANK record (rank, local_rank, world_size, launcher, host) after the
 * process record, the LLM stage names the default stages.* match (a
 * "prefill" range with one step's work, then "decode_all" holding
 * `steps` "decode_step" ranges), and slow_ns added to every kernel's
 * duration (a rank made slower on purpose). Per step: kernel i lasts
 * 1000 + 10 i + slow_ns ns, then a 500 ns memcpy and a 200 ns memset, each
 * op starting 104 ns after the previous one ended.
 *
 * With nccl, prefill and every decode step end with one NCCL AllReduce
 * (ncclDevKernel_AllReduce_Sum_bf16_RING_LL, stream 13) launched after the
 * step's work, as a tensor-parallel job does. A collective moves data only
 * once every rank has arrived, so every rank's AllReduce ends at the same
 * moment: TLOGSYNTH_NCCL_TRANSFER_NS after the slowest rank's (the one with
 * world_slow_ns) arrival. A rank with slow_ns s therefore waits
 * kernels_per_step * (world_slow_ns - s) ns in each AllReduce, and every
 * rank starts its next step at the same time.
 * NCCL's NVTX ranges come with it, as the tracer records them: domain
 * "NCCL" with NCCL's AllReduce and init payload schemas, an
 * "ncclCommInitRankConfig" range whose payload gives the communicator's
 * world_size ranks, and an "ncclAllReduce" range around each AllReduce's
 * launch call with a message size of TLOGSYNTH_NCCL_BYTES. */
#define TLOGSYNTH_NCCL_TRANSFER_NS 2000
#define TLOGSYNTH_NCCL_BYTES (1u << 20)
#define TLOGSYNTH_NCCL_COMM 0xC0FFEEull
#define TLOGSYNTH_SID_INIT ((1u << 24) + 2) /* NCCL's static schema ids */
#define TLOGSYNTH_SID_ALLREDUCE ((1u << 24) + 5)
struct tlogsynth_rank {
	int32_t rank, local_rank, world_size; /* -1 = not set */
	uint32_t launcher;		      /* enum rank_launcher (trace/rankid.h) */
	const char *host;
	uint64_t slow_ns;
	int nccl;		/* one AllReduce per step, see above */
	uint64_t world_slow_ns; /* the largest slow_ns of any rank (with nccl) */
	/* 1: the rank's kernels last as long as the others', and its host
	 * instead sleeps kernels_per_step * slow_ns at the start of each step
	 * before it launches anything (its GPU idle: a host that is late) */
	int slow_on_host;
};
int tlogsynth_write_rank(const char *dir, uint32_t pid, uint64_t base_ns, uint32_t steps,
			 uint32_t kernels_per_step, const struct tlogsynth_rank *rank,
			 struct strbuf *err);

/* Writes <dir>/trace-<pid>.bin of a decode loop of `steps` steps ("step"
 * in "decode_all", domain LLM), each running gemv_bf16 (1000 ns) in NVTX
 * range "attn" and rmsnorm (3000 ns) in "mlp", both inside "layer0". With
 * graph, the step is a CUDA graph: the ranges and two launches run once at
 * capture (graph nodes 11, 12 made under "attn" and "mlp"), instantiation
 * clones them (21, 22), and each step is one cudaGraphLaunch whose kernels
 * carry the clones' ids; without, each step pushes the ranges and launches
 * the kernels itself. Both give the same operators. graph 2: eager, and
 * each step launches gemv_bf16 a second time, in range "out" (one kernel
 * and configuration serving two operators). 0, or -1 with err. */
int tlogsynth_write_graph(const char *dir, uint32_t pid, uint64_t base_ns, uint32_t steps,
			  int graph, struct strbuf *err);

/* Writes <dir>/trace-<pid>.bin of a first-call setup (every CUDA API call
 * recorded, activity source): "prefill" spends 60 ms in one
 * cuModuleLoadData call, then 40 ms of host code, then launches 2 kernels;
 * "decode_all" holds 4 "decode_step"s of 4 kernels each. With samples, the
 * CPU sampler at 1 ms (objects /nonexistent/libcuda.so.1,
 * libpython3.11.so.1.0, libtorch_cpu.so, libc.so.6, unreadable, so
 * functions read LIB+0xOFFSET): 60 samples in libcuda during the call, 24
 * in Python, 10 in PyTorch (+0x1000) and 6 in libc (+0x2000) after it (4
 * called from PyTorch's +0x1000, 2 from libc), one between the stages and
 * one in PyTorch (+0x1800) per decode step; the sampler's totals at exit
 * say 105 samples, 2.1 ms in its handler (samples = 2: in the record as it
 * was before it carried the handler's time). Last, the tracer's cost
 * record: 5 ms in 40 hooks on the program's thread (3 ms CUDA API
 * callbacks, 1.5 ms NVTX), 1 ms on its own threads, of 200 ms CPU time in
 * 250 ms. 0, or -1 with err. */
int tlogsynth_write_setup(const char *dir, uint32_t pid, uint64_t base_ns, int samples,
			  struct strbuf *err);

#endif
