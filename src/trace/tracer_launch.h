/* tracer_launch.h: what a launcher needs to run a program under the builtin
 * tracer: the environment (tracer_env.h documents every variable), given the
 * library's path (tool_tracer_library() in nsight/tools.h finds it). Used by
 * `llmprof nvtx` and by the profile pipeline's builtin trace backend. */
#ifndef LLMPROF_TRACER_LAUNCH_H
#define LLMPROF_TRACER_LAUNCH_H

#include "core/strbuf.h"

enum tracer_what {
	TRACER_NVTX_ONLY = 0, /* NVTX injection only: no CUDA injection, no CUPTI */
	TRACER_FULL = 1,      /* NVTX + CUDA injection (GPU activity) */
};

#define TRACER_ENV_MAX 7

/* Fills env (NULL-terminated array of up to TRACER_ENV_MAX - 1 owned
 * "NAME=VALUE" strings, free with tracer_env_free) for a program whose logs
 * go to log_dir. api_calls (TRACER_FULL only; NULL = the tracer's default)
 * is LLMPROF_TRACE_API_CALLS's value: "launches" or "all". */
void tracer_env_build(char *env[TRACER_ENV_MAX], const char *lib, const char *log_dir,
		      enum tracer_what what, const char *api_calls);
/* Adds LLMPROF_TRACE_CPU_SAMPLE_HZ=hz to env built above, when hz > 0. */
void tracer_env_cpu_sample(char *env[TRACER_ENV_MAX], int64_t hz);
void tracer_env_free(char *env[TRACER_ENV_MAX]);

/* Whether log_dir holds any tracer log (trace-*.bin). */
int tracer_logs_present(const char *log_dir);

#endif
