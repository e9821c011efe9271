/* tools.h: finding NVIDIA's command-line tools and the CUDA toolkit, for
 * env.json and `doctor`. */
#ifndef LLMPROF_TOOLS_H
#define LLMPROF_TOOLS_H

#include "core/strbuf.h"

struct tool_info {
	char *path;	    /* owned absolute-or-given path, NULL = not found */
	char *version;	    /* owned, e.g. "2024.1.1.0 (build 33998838) (public-release)" */
	struct strbuf note; /* why not found / why the version is unknown */
};
#define TOOL_INFO_INIT                                                                             \
	{                                                                                          \
		NULL, NULL, STRBUF_INIT                                                            \
	}

/* Finds name (configured path if non-NULL, else PATH) and runs
 * `<path> --version` with a 15 s timeout. Never fails; see info->note. */
void tool_probe(struct tool_info *info, const char *name, const char *configured);
void tool_info_release(struct tool_info *info);

/* The version text in `--version` output: the last line containing
 * "version" (any case), with text before "version " dropped. Pure;
 * returns an owned string or NULL. */
char *tool_parse_version(const char *out, size_t len);

/* The oldest nsys and ncu llmprof supports: nsys 2023.1 (`nsys stats` got
 * the report names llmprof reads, cuda_gpu_kern_sum and co, in 2023), ncu
 * 2023.1 (llmprof reads its raw page and NVTX filters as tested with 2024.1
 * and 2025.3). */
#define TOOL_NSYS_MIN_MAJOR 2023
#define TOOL_NSYS_MIN_MINOR 1
#define TOOL_NCU_MIN_MAJOR 2023
#define TOOL_NCU_MIN_MINOR 1

/* Is version ("2022.4.2.1-..." or "2019.1.0 (build 1234)": YYYY.M first)
 * older than major.minor? 1 older, 0 not, -1 when it does not start with
 * YYYY.M. Pure. */
int tool_version_older(const char *version, int major, int minor);

/* One line for a tool older than the oldest supported, or NULL when it is
 * not (or its version is unknown): "ncu 2019.1.0 (build 1234) is older than
 * 2023.1, the oldest llmprof supports". Owned. */
char *tool_too_old(const char *name, const char *version);

struct cuda_toolkit {
	char *root;    /* owned: CUDA_HOME, CUDA_PATH or /usr/local/cuda, NULL = none */
	char *version; /* owned, e.g. "13.0.88"; NULL = unknown */
	const char *version_source; /* static: "version.json", "nvcc", "cuda_runtime_api.h" */
	char *cupti;		    /* owned path of libcupti.so*, NULL = not found */
	struct strbuf note;
};
void cuda_toolkit_probe(struct cuda_toolkit *tk);
void cuda_toolkit_release(struct cuda_toolkit *tk);

#endif
