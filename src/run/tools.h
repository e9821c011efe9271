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

/* nsys needs QdstrmImporter to turn its raw capture into a report: next to
 * nsys, or in a sibling host directory. Owned path, or NULL. */
char *tool_find_qdstrm_importer(const char *nsys_path);

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
