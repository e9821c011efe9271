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
int tlogsynth_write(const char *dir, uint32_t pid, uint64_t base_ns, uint32_t steps,
		    uint32_t kernels_per_step, int api_activity, struct strbuf *err);

#endif
