/* pytorch_launch.h: what a launcher needs to give a PyTorch program
 * llmprof's startup module (pytorch/sitecustomize.py; docs/pytorch.md):
 * whether the program is Python, which mode pipeline.trace.pytorch=auto
 * means for it, and the environment that makes its interpreters load the
 * module. Pure, but for pytorch_is_python() reading the first bytes of the
 * program's file. Used by the profile pipeline (pipeline/pytorch.c). */
#ifndef LLMPROF_PYTORCH_LAUNCH_H
#define LLMPROF_PYTORCH_LAUNCH_H

#include <stdint.h>

#include "config/typed.h"
#include "core/strbuf.h"

/* The environment the startup module reads (docs/pytorch.md). */
#define PYTORCH_ENV_MODE "LLMPROF_PYTORCH"	    /* auto | modules | ops */
#define PYTORCH_ENV_DEPTH "LLMPROF_PYTORCH_DEPTH"   /* module ranges nest at most this deep */
#define PYTORCH_ENV_SHAPES "LLMPROF_PYTORCH_SHAPES" /* ops: 1 = input shapes */
#define PYTORCH_ENV_BUDGET "LLMPROF_PYTORCH_BUDGET" /* auto: the hooks' CPU share, % */
#define PYTORCH_ENV_LIB "LLMPROF_PYTORCH_NVTX_LIB"  /* libllmprof_nvtx.so */
#define PYTORCH_ENV_LOG "LLMPROF_PYTORCH_LOG"	    /* the module's log: <run>/logs/pytorch.log */
#define PYTORCH_NVTX_LIB_NAME "libllmprof_nvtx.so"  /* beside sitecustomize.py */
#define PYTORCH_NVTX_DOMAIN "llmprof.pytorch"	    /* the module ranges' NVTX domain */

/* Whether argv runs Python: argv[0]'s file name is python, pythonX or
 * pythonX.Y (a letter or two may follow: python3.13t), or argv[0] (looked
 * up on path_env, PATH's value, when it has no '/') is a script whose "#!"
 * line runs such an interpreter, directly or through env (torchrun,
 * accelerate, deepspeed, vllm and every pip console script), including
 * pip's "#!/bin/sh" + "'''exec' PYTHON" form for long interpreter paths.
 * `env [-i] [NAME=VALUE ...] CMD ...` is judged by CMD. Reads at most the
 * first 512 bytes of one file; never fails (unreadable: not Python). When
 * why is not NULL it gets a few words on what decided ("python3 is a
 * Python interpreter", "torchrun runs /usr/bin/python3"). */
int pytorch_is_python(const char *const *argv, const char *path_env, struct strbuf *why);

/* The mode asked for, with auto resolved as far as llmprof can: AUTO for a
 * Python program (its startup module starts with module ranges and turns
 * them off when their measured cost exceeds the budget), NONE for any
 * other. */
enum trace_pytorch pytorch_resolve(enum trace_pytorch asked, int is_python);

struct pytorch_env_opts {
	enum trace_pytorch mode; /* AUTO, MODULES or OPS (NONE: no variables) */
	const char *dir;	 /* the folder of sitecustomize.py */
	const char *lib;	 /* libllmprof_nvtx.so, or NULL (the module looks beside itself) */
	const char *log;	 /* the module's log file */
	int64_t depth;		 /* pipeline.trace.pytorch_depth */
	int shapes;		 /* pipeline.trace.pytorch_shapes */
	double budget_pct;	 /* auto: pipeline.trace.pytorch_budget_pct */
	const char *user_pythonpath; /* the PYTHONPATH the program would have had, or NULL */
};

#define PYTORCH_ENV_MAX 8

/* Fills env (NULL-terminated, up to PYTORCH_ENV_MAX - 1 owned "NAME=VALUE"
 * strings; free with pytorch_env_free): PYTHONPATH with dir first and the
 * user's after it, then the variables above. */
void pytorch_env_build(char *env[PYTORCH_ENV_MAX], const struct pytorch_env_opts *o);
void pytorch_env_free(char *env[PYTORCH_ENV_MAX]);

#endif
