/* tracer_env.h: every environment variable between llmprof (the launcher)
 * and libllmprof_tracer.so. Only these pass between them; the tracer reads
 * nothing else. Plain C, included by both sides. Defaults apply when a
 * variable is unset, empty or malformed (the tracer never fails on them; a
 * malformed value is reported as a diagnostic in the log).
 *
 * CUDA_INJECTION64_PATH   absolute path of libllmprof_tracer.so: the CUDA
 *                         driver loads it at cuInit and calls
 *                         InitializeInjection(). Enables GPU tracing.
 * NVTX_INJECTION64_PATH   the same path: NVTX loads it at the first NVTX call
 *                         and calls InitializeInjectionNvtx2(). Enables NVTX
 *                         recording, also in programs that never touch CUDA.
 * LLMPROF_TRACE_OUT       directory (must exist) where each traced process
 *                         writes <dir>/trace-<pid>.bin (forked children get
 *                         their own file). Unset: the tracer stays inactive.
 * LLMPROF_TRACE_CUDA      1 (default) record GPU activity when loaded by CUDA;
 *                         0 = NVTX only (what `llmprof nvtx` uses).
 * LLMPROF_TRACE_NVTX      1 (default) record NVTX; 0 = ignore NVTX calls.
 * LLMPROF_TRACE_API       which CPU-side CUDA calls are recorded and how:
 *                         kernel/graph launches and memcpy/memset calls
 *                         (enough to attribute GPU work to NVTX ranges), from
 *                         activity (default): CUPTI's RUNTIME/DRIVER activity
 *                           records for just those calls (buffered by CUPTI);
 *                         callback: CUPTI callbacks on those calls (launch is
 *                           an old name for it);
 *                         none: no CPU-side calls (no NVTX attribution).
 * LLMPROF_TRACE_API_CALLS which CUDA runtime and driver API calls are
 *                         recorded (how: LLMPROF_TRACE_API):
 *                         launches (default): kernel/graph launches, and
 *                           with LLMPROF_TRACE_MEMOPS memcpy/memset calls;
 *                         all: every call (cudaMalloc, cuModuleLoadData,
 *                           cudaStreamSynchronize, ...), so the report can
 *                           say where a stage's CPU time went. A driver call
 *                           made inside a runtime call stays part of that
 *                           call's row. Anything else: launches, and a
 *                           warning diagnostic.
 * LLMPROF_TRACE_MEMOPS    1 (default) record memcpy/memset (GPU activity and
 *                         their API calls); 0 = kernels only.
 * LLMPROF_TRACE_BUFFER_KB per-thread log buffer, KiB (default 512, 16..65536);
 *                         a full buffer costs one write(2).
 * LLMPROF_TRACE_CUPTI_BUFFER_MB   host buffer handed to CUPTI, MiB (default 8).
 * LLMPROF_TRACE_DEVICE_BUFFER_MB  CUPTI device buffer, MiB (default: CUPTI's,
 *                         ~3 MiB); set before CUDA creates a context.
 * LLMPROF_TRACE_DEVICE_BUFFERS  device buffers CUPTI pre-allocates per context
 *                         (default: CUPTI's, 3; 1..64).
 * LLMPROF_TRACE_PER_THREAD_BUFFERS  1/0: CUPTI's per-thread activity buffers
 *                         on/off (default: CUPTI's, on).
 * LLMPROF_TRACE_CUPTI_POOL  host buffers handed to CUPTI come zeroed from a
 *                         pool the tracer recycles (zeroed on CUPTI's worker
 *                         thread, not the launching one); the value is how
 *                         many are touched at start (default 2; 0 = off, each
 *                         buffer malloc'd and zeroed by CUPTI).
 * LLMPROF_TRACE_FLUSH_MS  CUPTI periodic flush period, ms (default 0 = only
 *                         when buffers fill, at context teardown and exit).
 * LLMPROF_TRACE_GRAPH_NODES  1 (default) record each CUDA graph node made
 *                         or cloned (thread, time, ids), so replayed kernels
 *                         get the operator that was open when they were
 *                         captured; 0 = off. Costs nothing at replay.
 * LLMPROF_TRACE_NVTX_PAYLOADS  1 (default) accept NVTX's payload extension:
 *                         registered schemas and up to 64 bytes of each
 *                         range's payloads (NCCL's message sizes); 0 =
 *                         decline it (its calls become NVTX's no-ops).
 * LLMPROF_TRACE_CPU_SAMPLE_HZ  CPU samples per second of CPU time of each
 *                         thread that makes traced calls (NVTX, CUDA
 *                         callbacks, the thread that initialises CUDA);
 *                         0 (default) = no sampling, no timer, no signal
 *                         handler; 10..1000 otherwise (out of range: off
 *                         and a warning diagnostic). Stacks are unwound
 *                         with libunwind when libunwind.so.8 loads, else
 *                         only the interrupted instruction is kept.
 * LLMPROF_TRACE_CPU_UNWIND  how samples are unwound: libunwind (default:
 *                         the stack, up to 32 frames, when libunwind.so.8
 *                         loads) or leaf (the interrupted instruction only:
 *                         cheaper, no callers). Anything else: libunwind
 *                         and a warning diagnostic.
 * LLMPROF_TRACE_LOG_FLUSH_MS  period of the tracer's own flush of all thread
 *                         buffers to the log, ms (default 1000; 0 = off). It
 *                         bounds what is lost when a process ends without
 *                         exit() (crash, _exit as in Python multiprocessing).
 * LLMPROF_TRACE_BENCH     for benchmarks only (bench/tracer/tracer-cost.sh),
 *                         never set by llmprof, may change at any time: a
 *                         comma-separated list of switches that each turn
 *                         one part of the tracer off or swap it, so its cost
 *                         can be measured alone. no-subscribe: no CUPTI
 *                         subscriber (no callbacks: no graph-node records, no
 *                         flush at context teardown); discard: CUPTI's
 *                         records are counted, not converted or written;
 *                         tid-default: CUPTI's own thread ids (pthread_self),
 *                         not gettid(); api-runtime / api-driver: launch
 *                         records of that API domain only; kernel-serial:
 *                         CUPTI's KERNEL activity instead of CONCURRENT_KERNEL;
 *                         graph-level: CUPTI's GRAPH_TRACE activity too (one
 *                         record per graph launch, none per replayed kernel);
 *                         no-device: no DEVICE activity; name-hash: every
 *                         kernel record's name hashed to find its id, as
 *                         before the cache keyed by CUPTI's string;
 *                         pausable: the exported llmprof_bench_trace(0|1)
 *                         switches recording off and on in the running
 *                         process (bench/tracer/inproc_ab.py). A run
 *                         with any of them writes an info diagnostic with
 *                         the switches and the records it counted.
 */
#ifndef LLMPROF_TRACER_ENV_H
#define LLMPROF_TRACER_ENV_H

#define TRACER_ENV_CUDA_INJECTION "CUDA_INJECTION64_PATH"
#define TRACER_ENV_NVTX_INJECTION "NVTX_INJECTION64_PATH"
#define TRACER_ENV_OUT "LLMPROF_TRACE_OUT"
#define TRACER_ENV_CUDA "LLMPROF_TRACE_CUDA"
#define TRACER_ENV_NVTX "LLMPROF_TRACE_NVTX"
#define TRACER_ENV_API "LLMPROF_TRACE_API"
#define TRACER_ENV_API_CALLS "LLMPROF_TRACE_API_CALLS"
#define TRACER_ENV_MEMOPS "LLMPROF_TRACE_MEMOPS"
#define TRACER_ENV_BUFFER_KB "LLMPROF_TRACE_BUFFER_KB"
#define TRACER_ENV_CUPTI_BUFFER_MB "LLMPROF_TRACE_CUPTI_BUFFER_MB"
#define TRACER_ENV_DEVICE_BUFFER_MB "LLMPROF_TRACE_DEVICE_BUFFER_MB"
#define TRACER_ENV_DEVICE_BUFFERS "LLMPROF_TRACE_DEVICE_BUFFERS"
#define TRACER_ENV_PER_THREAD_BUFFERS "LLMPROF_TRACE_PER_THREAD_BUFFERS"
#define TRACER_ENV_CUPTI_POOL "LLMPROF_TRACE_CUPTI_POOL"
#define TRACER_ENV_FLUSH_MS "LLMPROF_TRACE_FLUSH_MS"
#define TRACER_ENV_LOG_FLUSH_MS "LLMPROF_TRACE_LOG_FLUSH_MS"
#define TRACER_ENV_GRAPH_NODES "LLMPROF_TRACE_GRAPH_NODES"
#define TRACER_ENV_NVTX_PAYLOADS "LLMPROF_TRACE_NVTX_PAYLOADS"
#define TRACER_ENV_CPU_SAMPLE_HZ "LLMPROF_TRACE_CPU_SAMPLE_HZ"
#define TRACER_ENV_CPU_UNWIND "LLMPROF_TRACE_CPU_UNWIND"
#define TRACER_ENV_BENCH "LLMPROF_TRACE_BENCH"

/* File name pattern inside LLMPROF_TRACE_OUT. */
#define TRACER_LOG_PREFIX "trace-"
#define TRACER_LOG_SUFFIX ".bin"

#endif
