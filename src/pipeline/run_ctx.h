/* run_ctx.h: the context every step of `llmprof profile` is handed: struct
 * run_ctx (the resolved config, the plan, the bundle, status.json and what
 * each step hands the next), the parameters the plan is built from, a
 * step's result and the warning lines a step reports through the run's
 * progress. Types only: the files that fill or read a context include this,
 * the one that runs the pipeline (run.c, run.h) is not reached from them.
 * Ownership: see run.h. */
#ifndef LLMPROF_PIPELINE_RUN_CTX_H
#define LLMPROF_PIPELINE_RUN_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/status.h"
#include "bundle/write.h"
#include "config/config.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "nsight/gpu.h"
#include "nsight/nsys.h"
#include "pipeline/plan.h"
#include "pipeline/progress.h"
#include "trace/pytorch_launch.h"
#include "trace/tracer_launch.h"

/* What plan_build reads, and the storage behind it (params.c). */
struct run_params {
	struct plan_params pp;
	const char **program_argv; /* borrowed strings, owned array */
	char *workloads_dir;
	struct strbuf trace_reason;
	struct strbuf trace_problem; /* --dry-run: why the backend cannot work */
	struct strbuf ncu_problem;   /* --dry-run: why the ncu step would fail */
	int have_gpu;		     /* the GPU probe found one */
	struct nsys_options nsys;
	const char **nsys_extra;
	char *nsys_path;
	/* builtin trace backend */
	char *tracer_lib;	 /* NULL = no builtin trace */
	struct strbuf trace_dir; /* <run>/trace */
	struct strbuf trace_log; /* <run>/trace/log: the tracer's logs */
	char *tracer_env[TRACER_ENV_MAX];
	enum trace_api_calls tracer_api_calls; /* pipeline.trace.api_calls */
	int64_t tracer_cpu_sample_hz;	       /* pipeline.trace.cpu_sample_hz */
	struct strbuf ncu_what;		       /* the ncu step's --dry-run text */
	/* the PyTorch startup module (pipeline/pytorch.h) */
	enum trace_pytorch pytorch; /* resolved: AUTO (the module decides), MODULES, OPS or NONE */
	char *pytorch_dir;	    /* its folder; NULL = not given to the workload */
	int64_t pytorch_depth;	    /* pipeline.trace.pytorch_depth */
	int pytorch_shapes;	    /* pipeline.trace.pytorch_shapes */
	double pytorch_budget_pct;  /* pipeline.trace.pytorch_budget_pct */
	char *pytorch_env[PYTORCH_ENV_MAX];
};

/* How the run is going: the first failure decides its state and code. */
struct run_outcome {
	enum run_state state;
	int code;
	int failed;	 /* a step failed: later steps run only when after_failure */
	const char *why; /* for the steps never run */
	int goes_on;	 /* interrupted once in a step that keeps its work: the
			    later steps still run (and the next interrupt ends
			    llmprof at once) */
};

/* How a run behaves (from the command line); nothing about printing. */
struct run_opts {
	int dry_run;
	int echo; /* copy the children's output to the terminal */
	/* the bundle is <root>/<bundle_name> (--rank-dir: "ranks/<rank>"),
	 * refused when it exists, instead of <root>/<run_id>; NULL = run id */
	const char *bundle_name;
	/* with bundle_name: the rank's identity, written to rank.json */
	int32_t rank, world_size, local_rank;
	const char *launcher, *rank_source;
};

struct report_analysis;
struct report_build_result;
struct selection;

struct run_ctx {
	struct run_opts opts;
	const struct pipeline_progress *progress; /* borrowed */
	/* the command line, for env.json, and where the config came from */
	int orig_argc;
	const char **orig_argv;
	const char *const *prog_argv; /* "-- PROGRAM ARGS", or NULL */
	int prog_argc, has_program;
	const char *conf_dir;
	size_t n_overrides;
	/* the model shape from a config.json the program names (model_json.h):
	 * its path and the model.* overrides made from it, or NULL */
	char *model_json;
	char **model_json_ov;

	struct config *cfg; /* the one resolved config: every step reads it */
	struct gpu_probe gpus;
	struct run_params params;
	int have_params;
	struct plan plan;
	struct run_bundle bundle;
	struct run_status status;
	int have_status;
	struct run_outcome outcome;
	double timeout_s;     /* run.timeout_s, 0 = none */
	uint64_t deadline_ns; /* monotonic, 0 = none */

	/* handed from step to step */
	uint64_t workload_wall_ns;	  /* the traced program's wall time (the reference step) */
	enum step_state analyze_state;	  /* the analyze step's */
	struct report_analysis *analysis; /* the analyzed trace: select, join, reports */
	struct selection *sel;		  /* the select step's kernels, for ncu */
	struct select_pass *pass;	  /* the one-pass plan of sel, or NULL */
	const char *ncu_base;		  /* --kernel-name-base the selection used */
	struct report_model *model;	  /* the join step's joined model, for reports */
	struct report_build_result *model_res;
};

/* One step of the table: what the plan's step called name does. run
 * fills res; the loop records it in status.json. */
struct step_result {
	enum step_state state;
	int exit_status, signal; /* the child's, for status.json; -1 / 0 = none */
	struct strbuf msg;	 /* status.json's message */
	struct strbuf error;	 /* a failure: the error line to show (else "name: msg") */
	struct strbuf tail_err;	 /* a failed workload: the logs whose tail to show */
	struct strbuf tail_out;
	int code;      /* the exit code a failure gives the run */
	int fails_run; /* the failure decides the run's outcome */
	/* STEP_INTERRUPTED, but what it did is kept (the ncu step: what ncu
	 * measured before): the later steps still run on it (run.c) */
	int keeps_work;
	uint64_t wall_ns; /* a child step's child, fork to reaping; 0 = none */
};

struct pipeline_step {
	const char *name;
	enum step_kind kind;
	void (*run)(struct run_ctx *rc, const struct plan_step *s, size_t i,
		    struct step_result *res);
};

/* A warning or error line of the run, printf-formatted, through its
 * progress (progress.c): what every step and params.c report, reached
 * without calling back into run.c. */
#define run_warning(rc, ...) progress_warning((rc)->progress, __VA_ARGS__)
#define run_error(rc, ...) progress_error((rc)->progress, __VA_ARGS__)

#endif
