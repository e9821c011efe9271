/* plan.h: the steps `llmprof profile` runs, built by a pure function from
 * plain parameters (filled from the config by plan_params_from_config), so
 * tests can check every argv without a config or a GPU.
 *
 * Today the plan has one step, "workload". The trace, export, ncu and
 * report steps of the pipeline (DESIGN.md section 2) are appended by
 * plan_build as they are implemented; each step names its own logs and may
 * be optional (its failure is recorded but does not fail the run). */
#ifndef LLMPROF_PLAN_H
#define LLMPROF_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"
#include "run/provenance.h"

enum step_kind {
	STEP_KIND_WORKLOAD, /* the profiled program itself; failure = EXIT_WORKLOAD_FAILED */
	STEP_KIND_TOOL,	    /* a profiler/export step; failure = EXIT_STEP_FAILED */
};

struct plan_step {
	char *name; /* owned: "workload"; also the log base name */
	enum step_kind kind;
	char **argv;		 /* owned, NULL-terminated */
	char **env_add;		 /* owned "NAME=VALUE", NULL-terminated (maybe empty) */
	char *out_log, *err_log; /* owned, relative to the run dir: logs/<name>.out/.err */
	int optional;
};

/* Everything plan_build reads. Strings borrowed. */
struct plan_params {
	const char *run_dir;		 /* the bundle, or a placeholder for --dry-run */
	const char *workload_kind;	 /* "llm", "dummy" or "command" */
	const char *const *program_argv; /* kind=command: program and its args */
	const char *workloads_dir;	 /* where llmprof-llm and llmprof-dummy live */
	const char *device;
	const char *model_name;
	int64_t prompt_len, max_new_tokens, batch_size, warmup, seed;
	const char *dtype;
	int cuda_graph;
	/* extra "NAME=VALUE" for the workload (e.g. the builtin tracer's
	 * variables, src/trace/tracer_env.h), NULL-terminated, or NULL */
	const char *const *workload_env;
};

struct plan {
	struct plan_step *steps;
	size_t nr, alloc;
	struct run_inputs inputs; /* borrows from steps and params */
};
#define PLAN_INIT                                                                                  \
	{                                                                                          \
		NULL, 0, 0,                                                                        \
		{                                                                                  \
			NULL                                                                       \
		}                                                                                  \
	}

/* Builds the plan. 0, or -1 with err (unknown workload kind, no program). */
int plan_build(struct plan *p, const struct plan_params *pp, struct strbuf *err);
void plan_release(struct plan *p);

/* Checks that each step's program exists (built-in workloads are built
 * separately). 0, or -1 with err saying what is missing and how to get it. */
int plan_check_programs(const struct plan *p, struct strbuf *err);

/* Human-readable plan for --dry-run: each step, its shell-quoted argv (for
 * display only), its environment additions and logs. Pure. */
void plan_format(const struct plan *p, struct strbuf *out);

/* The directory of the built-in workload binaries: $LLMPROF_WORKLOADS_DIR,
 * else <dir of llmprof>/workloads (the build tree), else
 * <dir of llmprof>/../libexec/llmprof. Owned. */
char *plan_workloads_dir(void);

#endif
