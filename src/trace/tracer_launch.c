/* tracer_launch.c: the environment that runs a program under the tracer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/xalloc.h"
#include "trace/tracer_env.h"
#include "trace/tracer_launch.h"
#include "core/banned.h"

static char *kv(const char *k, const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s=%s", k, v);
	return strbuf_detach(&sb, NULL);
}

void tracer_env_build(char *env[TRACER_ENV_MAX], const char *lib, const char *log_dir,
		      enum tracer_what what, const char *api_calls)
{
	int i = 0;

	env[i++] = kv(TRACER_ENV_NVTX_INJECTION, lib);
	env[i++] = kv(TRACER_ENV_OUT, log_dir);
	if (what == TRACER_FULL) {
		env[i++] = kv(TRACER_ENV_CUDA_INJECTION, lib);
		env[i++] = kv(TRACER_ENV_CUDA, "1");
		if (api_calls)
			env[i++] = kv(TRACER_ENV_API_CALLS, api_calls);
	} else {
		env[i++] = kv(TRACER_ENV_CUDA, "0");
	}
	while (i < TRACER_ENV_MAX)
		env[i++] = NULL;
}

void tracer_env_cpu_sample(char *env[TRACER_ENV_MAX], int64_t hz)
{
	char v[32];
	int i = 0;

	if (hz <= 0)
		return;
	while (i < TRACER_ENV_MAX - 1 && env[i])
		i++;
	if (i >= TRACER_ENV_MAX - 1)
		return;
	snprintf(v, sizeof(v), "%lld", (long long)hz);
	env[i] = kv(TRACER_ENV_CPU_SAMPLE_HZ, v);
}

void tracer_env_free(char *env[TRACER_ENV_MAX])
{
	for (int i = 0; i < TRACER_ENV_MAX; i++)
		FREE_AND_NULL(env[i]);
}

int tracer_logs_present(const char *log_dir)
{
	DIR *d = opendir(log_dir);
	struct dirent *e;
	size_t pl = strlen(TRACER_LOG_PREFIX), sl = strlen(TRACER_LOG_SUFFIX);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		found = n > pl + sl && !strncmp(e->d_name, TRACER_LOG_PREFIX, pl) &&
			!strcmp(e->d_name + n - sl, TRACER_LOG_SUFFIX);
	}
	closedir(d);
	return found;
}
