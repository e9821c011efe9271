/* plan.h: the steps `llmprof profile` runs (DESIGN.md section 2), built by a
 * pure function from plain parameters (params.c fills them from the
 * config and from what it found on the machine), so tests can check every
 * argv, every skip reason and the --dry-run text without a config or a GPU.
 *
 * Steps, in order (docs/user-guide.md "The pipeline"):
 *   config, provenance      in llmprof: recorded so status.json tells the story
 *   workload                the program, under the timeline backend: with the
 *                           builtin tracer's environment, or wrapped in
 *                           `nsys profile`
 *   reference               (builtin backend, pipeline.trace.reference_run_max_s
 *                           > 0) the same program again, untraced, when the
 *                           traced run was that short: the wall-time ratio
 *   trace                   builtin: tracer logs -> trace/trace.sqlite + .json
 *   nsys-export, nsys-stats nsys: run.nsys-rep -> run.sqlite, kernel summary CSV
 *   analyze                 in llmprof: timeline analysis of the trace
 *   select, ncu, join       kernel selection, counters, trace x counters
 *   reports                 in llmprof: every report from the bundle's files
 * A step may be planned as skipped (skip_reason), e.g. ncu with
 * pipeline.ncu.enable=false; it then shows in status.json as skipped with
 * that reason. The ncu step is in-process: it runs one ncu per selected
 * kernel (step_ncu_run.c), so its argv is only known after select.
 *
 * For --dry-run (plan_params.dry_run) the plan is built whole even when a
 * step cannot work (an unusable nsys, a missing tracer or workload binary,
 * bad nsys options): that step is marked (plan_step.would_fail) with why
 * and the exit code the run would end with, instead of plan_build failing. */
#ifndef LLMPROF_PLAN_H
#define LLMPROF_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/typed.h"
#include "core/strbuf.h"
#include "pipeline/provenance.h"
#include "nsight/nsys.h"

enum step_kind {
	STEP_KIND_WORKLOAD, /* the profiled program itself; failure = EXIT_WORKLOAD_FAILED */
	STEP_KIND_TOOL,	    /* a profiler/export step; failure = EXIT_STEP_FAILED */
	STEP_KIND_INTERNAL, /* done inside llmprof (argv empty); failure = EXIT_STEP_FAILED */
};

/* The timeline backend that records the workload. */
enum plan_trace {
	PLAN_TRACE_OFF = 0, /* pipeline.trace.enable=false, or auto found no backend */
	PLAN_TRACE_BUILTIN, /* libllmprof_tracer.so (or its absence: see tracer_lib) */
	PLAN_TRACE_NSYS,    /* nsys profile + export + stats */
};

struct plan_step {
	char *name; /* owned: "workload"; also the log base name */
	enum step_kind kind;
	char **argv;		 /* owned, NULL-terminated */
	char **env_add;		 /* owned "NAME=VALUE", NULL-terminated (maybe empty) */
	char *out_log, *err_log; /* owned, relative to the run dir: logs/<name>.out/.err */
	int optional;
	char *skip_reason; /* owned: planned as skipped, and why; NULL = runs */
	char *what;	   /* owned: one line for --dry-run (internal steps), or NULL */
	/* runs even after an earlier step failed, to keep what that step left
	 * (a failed workload's partial trace, the reports saying what is missing) */
	int after_failure;
	char *would_fail; /* owned: --dry-run: why this step would fail; NULL = it would run */
	int fail_code;	  /* with would_fail: the exit code the run would end with */
};

/* Everything plan_build reads. Strings borrowed. The workload's settings
 * are the typed config's own values (config/typed.h), enums as enums:
 * params.c resolves only model=auto and "-- PROGRAM ARGS". */
struct plan_params {
	const char *run_dir;		  /* the bundle, or a placeholder for --dry-run */
	enum workload_kind workload_kind; /* command when "-- PROGRAM ARGS" was given */
	const char *const *program_argv;  /* kind=command: program and its args */
	const char *workloads_dir;	  /* where llmprof-llm and llmprof-dummy live */
	const char *device;
	/* built-in workloads: model.* (the name never "auto"), infer.* and
	 * workload.warmup. A shape value or float of 0 and a NULL weights are
	 * not passed; qkv_bias and tie_word_embeddings go with the shape
	 * (hidden_size > 0) */
	struct config_model model;
	struct config_infer infer;
	int64_t warmup;

	/* the timeline backend, already chosen (params.c: backend=auto
	 * probes nsys); trace_reason says why, for status.json and --dry-run */
	enum plan_trace trace;
	const char *trace_reason;
	const char *tracer_lib; /* builtin: the tracer library; NULL = not built */
	/* extra "NAME=VALUE" for the workload under the builtin tracer
	 * (src/trace/tracer_env.h), NULL-terminated, or NULL */
	const char *const *workload_env;
	/* "NAME=VALUE" for the workload under any backend (the PyTorch startup
	 * module, pipeline/pytorch.h), NULL-terminated, or NULL */
	const char *const *pytorch_env;
	/* nsys: its options with nsys set to the resolved executable;
	 * output_base and the target are filled by plan_build */
	const struct nsys_options *nsys;
	/* pipeline.trace.reference_run_max_s: > 0 plans the reference step
	 * (the program again, untraced, after a traced run that short) */
	double reference_max_s;
	/* run.mode (0, the zeroed default, is deep) and pipeline.ncu.enable */
	enum run_mode mode;
	int ncu_enable;
	/* the ncu step's --dry-run text: how it runs ncu, with the argv
	 * template; NULL = a generic line (params.c sets it after the plan is
	 * built: plan_describe_ncu) */
	const char *ncu_what;

	/* --dry-run: build every step, marking the ones that would fail */
	int dry_run;
	/* why the timeline backend cannot work (backend=nsys with an unusable
	 * nsys, backend=builtin without the tracer, bad pipeline.nsys.*) and
	 * the exit code; marks the workload and the backend's own steps.
	 * NULL = it can. Read only with dry_run. */
	const char *trace_problem;
	int trace_problem_code;
	/* why the ncu step would fail (ncu unusable, bad ncu options) and the
	 * exit code; NULL = it would not. Read only with dry_run. */
	const char *ncu_problem;
	int ncu_problem_code;
};

struct plan {
	struct plan_step *steps;
	size_t nr, alloc;
	struct run_inputs inputs; /* borrows from program and params */
	char **program;		  /* owned: the workload's own argv, before any wrapper
				     (nsys profile); what inputs.yaml records */
};
#define PLAN_INIT                                                                                  \
	{                                                                                          \
		NULL, 0, 0,                                                                        \
		{                                                                                  \
			WORKLOAD_KIND_LLM                                                          \
		}                                                                                  \
	}

/* Builds the plan. 0, or -1 with err (no program, bad nsys options, no
 * nsys executable; with dry_run the first two mark the step instead). */
int plan_build(struct plan *p, const struct plan_params *pp, struct strbuf *err);
void plan_release(struct plan *p);

/* Whether the built-in workload `kind` ignores the config key set by
 * `override` (KEY=VALUE, +KEY=VALUE, ~KEY or GROUP=OPTION): it has no flag
 * for it (docs/workloads.md). The dummy workload takes device,
 * infer.batch_size, workload.warmup and model.seed only, so infer.prompt_len,
 * infer.max_new_tokens, infer.dtype, infer.cuda_graph and the model shape
 * (model=NAME, model.*) are ignored. Returns the key (a pointer into a static
 * table) or NULL when the key is honoured. Pure. */
const char *plan_workload_ignores(enum workload_kind kind, const char *override);

/* Checks that each step's program exists (built-in workloads are built
 * separately). 0, or -1 with err saying what is missing and how to get it. */
int plan_check_programs(const struct plan *p, struct strbuf *err);

/* Marks (would_fail, EXIT_TOOL_MISSING) each step whose program is missing,
 * as plan_check_programs would report it; keeps marks already there.
 * Returns how many steps are marked in all. */
size_t plan_mark_programs(struct plan *p);

/* The first step marked would_fail, or NULL. */
const struct plan_step *plan_first_failure(const struct plan *p);

/* Human-readable plan for --dry-run: each step, its shell-quoted argv (for
 * display only), its environment additions and logs; internal steps say
 * what they do, skipped ones why, and a step that would fail says
 * "  would fail: WHY". Pure. */
void plan_format(const struct plan *p, struct strbuf *out);

/* The step called name, or NULL. */
const struct plan_step *plan_find(const struct plan *p, const char *name);

/* Sets the ncu step's --dry-run text to what (its argv template needs the
 * workload argv plan_build decides) and, with dry_run, marks the step with
 * problem and code when it runs and is not marked yet. Nothing when the
 * plan has no ncu step. */
void plan_describe_ncu(struct plan *p, const char *what, int dry_run, const char *problem,
		       int code);

/* Where the built-in llm writes its analytic FLOPs/bytes (--analytic-out),
 * relative to the run dir; the reports read it from there. */
#define PLAN_ANALYTIC_FILE "workload/analytic.json"

#endif
