/* tools.h: the one place llmprof finds what it runs or loads but does not
 * contain: nsys, ncu, the builtin tracer library, the built-in workload
 * binaries, llmprof-calibrate, and the CUDA toolkit with CUPTI. `doctor`,
 * `profile` (its plan, --dry-run and its steps), env.json and `calibrate`
 * all ask here, so they agree on what is where.
 *
 * Each thing has one search order (docs/configuration.md, "Where llmprof
 * finds its tools"):
 *   1. the explicit setting: its config key (pipeline.nsys.path,
 *      pipeline.ncu.path), else its environment variable; when set, it is
 *      the only candidate (a wrong setting is an error naming it);
 *   2. next to the llmprof binary (the build tree, then an installed tree);
 *   3. PATH (nsys, ncu, llmprof-calibrate);
 *   4. known install locations (/opt/nvidia/..., /usr/local/cuda/...), the
 *      newest version directory first; $LLMPROF_SYSROOT, when set, is put
 *      in front of each (tests use it to stand in for /).
 * The first candidate that passes every check is used; the ones passed
 * over are listed with why. */
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

/* For env.json: nsys and ncu as tool_find finds them (note: why the one
 * found is not usable); any other name: configured if non-NULL, else PATH,
 * and `<path> --version` with a 20 s timeout. Never fails; see
 * info->note. */
void tool_probe(struct tool_info *info, const char *name, const char *configured);
void tool_info_release(struct tool_info *info);

/* The oldest nsys and ncu llmprof supports: nsys 2023.1 (`nsys stats` got
 * the report names llmprof reads, cuda_gpu_kern_sum and co, in 2023), ncu
 * 2023.1 (llmprof reads its raw page and NVTX filters as tested with 2024.1
 * and 2025.3). */
#define TOOL_NSYS_MIN_MAJOR 2023
#define TOOL_NSYS_MIN_MINOR 1
#define TOOL_NCU_MIN_MAJOR 2023
#define TOOL_NCU_MIN_MINOR 1

/* One line for a tool older than the oldest supported, or NULL when it is
 * not (or its version is unknown): "ncu 2019.1.0 (build 1234) is older than
 * 2023.1, the oldest llmprof supports". Owned. */
char *tool_too_old(const char *name, const char *version);

/* ---- finding a tool ---------------------------------------------------- */

enum tool_id {
	TOOL_NSYS,	/* nsys: runs, 2023.1 or newer, its QdstrmImporter starts */
	TOOL_NCU,	/* ncu: runs, 2023.1 or newer */
	TOOL_TRACER,	/* libllmprof_tracer.so: a readable file */
	TOOL_LLM,	/* llmprof-llm: an executable file */
	TOOL_DUMMY,	/* llmprof-dummy: an executable file */
	TOOL_CALIBRATE, /* llmprof-calibrate: an executable file */
	TOOL_PYTORCH,	/* the PyTorch startup module: a readable sitecustomize.py */
};

/* Why the chosen candidate cannot be used, from the first check it failed. */
enum tool_problem {
	TOOL_OK = 0,
	TOOL_NOT_FOUND,	      /* no candidate exists */
	TOOL_NOT_RUNNABLE,    /* a directory, not executable/readable, --version fails */
	TOOL_TOO_OLD,	      /* older than TOOL_*_MIN_* */
	TOOL_NO_IMPORTER,     /* nsys: no QdstrmImporter where nsys looks for it */
	TOOL_IMPORTER_BROKEN, /* nsys: its QdstrmImporter does not start */
};

struct tool_found {
	enum tool_id id;
	const char *name;	   /* static: "nsys", "libllmprof_tracer.so", ... */
	char *path;		   /* owned: the usable candidate, else the first that
				      exists; NULL = none exists */
	const char *source;	   /* static: where path came from: the config key,
				      the variable, "next to llmprof", "PATH",
				      "known location" */
	enum tool_problem problem; /* TOOL_OK: path is usable */
	char *version;		   /* owned: nsys, ncu: from --version; NULL = unknown */
	char *importer;		   /* owned: nsys: its QdstrmImporter, NULL = none */
	struct strbuf why;	   /* !TOOL_OK: one line: what is wrong (not found:
				      where it looked) */
	struct strbuf fix;	   /* !TOOL_OK: one line: what to do */
	struct strbuf note;	   /* TOOL_OK: a remark (ncu's version unreadable) */
	struct strbuf passed_over; /* the other candidates that exist, each
				      "PATH (why)", joined with "; " */
	struct strbuf deprecated;  /* a deprecated variable was read: the warning */
};

/* Finds id. configured is the value of its config key (pipeline.nsys.path,
 * pipeline.ncu.path) or NULL; the others read their variable. Runs the
 * candidates' --version (and nsys's importer) with a 20 s limit each.
 * Never fails: see f->problem. Release with tool_found_release. */
void tool_find(enum tool_id id, const char *configured, struct tool_found *f);
void tool_found_release(struct tool_found *f);

/* "PATH (VERSION)" or "PATH", then ": not usable: WHY" when it is not, then
 * "; passed over P (why); ..." when other candidates were passed over; for
 * a tool not found: f->why. `doctor` and `profile --dry-run` print it. */
void tool_found_describe(const struct tool_found *f, struct strbuf *out);

/* The directory holding the built-in workloads: the one of llmprof-llm
 * (else llmprof-dummy) as tool_find finds it; when neither is found,
 * $LLMPROF_WORKLOADS_DIR or <dir of llmprof>/workloads. Owned. */
char *tool_workloads_dir(void);

/* The prefix of the known install locations: $LLMPROF_SYSROOT or "". */
const char *tool_sysroot(void);

struct cuda_toolkit {
	char *root;    /* owned: CUDA_HOME, CUDA_PATH or $LLMPROF_SYSROOT/usr/local/cuda,
			  NULL = none */
	char *version; /* owned, e.g. "13.0.88"; NULL = unknown */
	const char *version_source; /* static: "version.json", "nvcc", "cuda_runtime_api.h" */
	char *cupti;		    /* owned path of libcupti.so*, NULL = not found */
	struct strbuf note;
};
void cuda_toolkit_probe(struct cuda_toolkit *tk);
void cuda_toolkit_release(struct cuda_toolkit *tk);

/* The folder of the PyTorch startup module (docs/pytorch.md), as
 * tool_find(TOOL_PYTORCH) finds its sitecustomize.py: $LLMPROF_PYTORCH_DIR,
 * else <dir of llmprof>/pytorch/ (the build tree), else
 * <dir of llmprof>/../lib/llmprof/pytorch/. Owned; NULL with err saying
 * where it looked and what to do. */
char *tool_pytorch_dir(struct strbuf *err);

/* The tracer library, as tool_find(TOOL_TRACER) finds it:
 * $LLMPROF_TRACER_LIB, else <dir of llmprof>/tracer/ (the build tree), else
 * <dir of llmprof>/../lib/llmprof/. Owned; NULL with err saying where it
 * looked and what to do when none is a readable file. */
char *tool_tracer_library(struct strbuf *err);

#endif
