/* params.c: struct run_params from the resolved config and the machine,
 * the timeline backend choice, and the plan built from them (params.h).
 * Owned by the pipeline layer; prints nothing: warnings go through
 * struct pipeline_progress. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_config.h"
#include "nsight/nsys_config.h"
#include "nsight/tools.h"
#include "pipeline/ncu.h"
#include "pipeline/params.h"
#include "pipeline/pytorch.h"
#include "trace/tracer_launch.h"
#include "core/banned.h"

void run_params_release(struct run_params *p)
{
	free(p->program_argv);
	free(p->workloads_dir);
	strbuf_release(&p->trace_reason);
	strbuf_release(&p->trace_problem);
	strbuf_release(&p->ncu_problem);
	free(p->nsys_extra);
	free(p->nsys_path);
	free(p->tracer_lib);
	strbuf_release(&p->trace_dir);
	strbuf_release(&p->trace_log);
	tracer_env_free(p->tracer_env);
	strbuf_release(&p->ncu_what);
	free(p->pytorch_dir);
	pytorch_env_free(p->pytorch_env);
}

void run_tracer_setup(struct run_params *p, const char *run_dir)
{
	tracer_env_free(p->tracer_env);
	memset(p->tracer_env, 0, sizeof(p->tracer_env));
	p->pp.workload_env = NULL;
	run_pytorch_env(p, run_dir);
	if (p->pp.trace != PLAN_TRACE_BUILTIN || !p->tracer_lib)
		return;
	strbuf_reset(&p->trace_dir);
	strbuf_reset(&p->trace_log);
	path_join(&p->trace_dir, run_dir, "trace");
	path_join(&p->trace_log, p->trace_dir.buf, "log");
	tracer_env_build(p->tracer_env, p->tracer_lib, p->trace_log.buf, TRACER_FULL,
			 trace_api_calls_names[p->tracer_api_calls]);
	tracer_env_cpu_sample(p->tracer_env, p->tracer_cpu_sample_hz);
	p->pp.workload_env = (const char *const *)p->tracer_env;
}

int run_choose_backend(struct run_ctx *rc, struct strbuf *err, int *code)
{
	struct run_params *p = &rc->params;
	const struct config *cfg = rc->cfg;
	const struct config_pipeline *c = &config_typed(cfg)->pipeline;
	const char *backend = trace_backend_names[c->trace.backend];
	struct tool_found nsys, tracer;
	int ret = -1, have_nsys = 0, have_tracer = 0;

	if (c->trace.cpu_sample_hz > 0 && c->trace.cpu_sample_hz < 10) {
		strbuf_addf(err,
			    "config key 'pipeline.trace.cpu_sample_hz': %lld is not 0 (off) or "
			    "10..1000",
			    (long long)c->trace.cpu_sample_hz);
		*code = EXIT_CONFIG;
		return -1;
	}
	if (!c->trace.enable) {
		p->pp.trace = PLAN_TRACE_OFF;
		strbuf_addstr(&p->trace_reason, "pipeline.trace.enable=false");
		return 0;
	}
	if (c->trace.backend != TRACE_BACKEND_BUILTIN) {
		tool_find(TOOL_NSYS, c->nsys.path, &nsys);
		have_nsys = 1;
		if (!nsys.problem) {
			p->pp.trace = PLAN_TRACE_NSYS;
			p->nsys_path = xstrdup(nsys.path);
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=%s: nsys %s at %s can "
				    "finish a report",
				    backend, nsys.version, nsys.path);
		} else if (c->trace.backend == TRACE_BACKEND_NSYS) {
			*code = EXIT_TOOL_MISSING;
			error_set(err, "pipeline.trace.backend=nsys: %s; %s", nsys.why.buf,
				  nsys.fix.buf);
			if (!p->pp.dry_run)
				goto out;
			p->pp.trace = PLAN_TRACE_NSYS;
			p->nsys_path = xstrdup(nsys.path ? nsys.path : "nsys");
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=nsys, but nsys is not "
				    "usable: %s",
				    nsys.why.buf);
			strbuf_addstr(&p->trace_problem, err->buf);
			p->pp.trace_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(err);
		} else {
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=auto: nsys is not "
				    "usable (%s)",
				    nsys.why.buf);
		}
	}
	if (p->pp.trace != PLAN_TRACE_NSYS) {
		tool_find(TOOL_TRACER, NULL, &tracer);
		have_tracer = 1;
		if (tracer.deprecated.len && !p->pp.dry_run) /* the dry run's tool lines say it */
			run_warning(rc, "%s", tracer.deprecated.buf);
		if (!tracer.problem) {
			p->tracer_lib = xstrdup(tracer.path);
			p->pp.trace = PLAN_TRACE_BUILTIN;
			p->pp.tracer_lib = p->tracer_lib;
			if (p->trace_reason.len)
				strbuf_addf(&p->trace_reason, "; using the builtin tracer %s",
					    p->tracer_lib);
			else
				strbuf_addf(&p->trace_reason,
					    "pipeline.trace.backend=builtin: tracer %s",
					    p->tracer_lib);
		} else if (c->trace.backend == TRACE_BACKEND_BUILTIN) {
			*code = EXIT_TOOL_MISSING;
			error_set(err, "pipeline.trace.backend=builtin: %s (%s)", tracer.why.buf,
				  tracer.fix.buf);
			if (!p->pp.dry_run)
				goto out;
			p->tracer_lib = xstrdup(tracer.path ? tracer.path : tracer.name);
			p->pp.trace = PLAN_TRACE_BUILTIN;
			p->pp.tracer_lib = p->tracer_lib;
			strbuf_addf(&p->trace_reason, "pipeline.trace.backend=builtin, but %s",
				    tracer.why.buf);
			strbuf_addstr(&p->trace_problem, err->buf);
			p->pp.trace_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(err);
		} else {
			/* auto with neither backend: the workload runs untraced */
			p->pp.trace = PLAN_TRACE_OFF;
			run_warning(rc, "no timeline trace: %s; %s", tracer.why.buf,
				    p->trace_reason.buf);
			strbuf_addf(&p->trace_reason, "; %s", tracer.why.buf);
		}
	}
	if (p->pp.trace == PLAN_TRACE_NSYS) {
		if (nsys_options_from_config(cfg, &p->nsys, &p->nsys_extra, err)) {
			*code = EXIT_CONFIG;
			if (!p->pp.dry_run)
				goto out;
			if (!p->trace_problem.len) {
				strbuf_addstr(&p->trace_problem, err->buf);
				p->pp.trace_problem_code = EXIT_CONFIG;
			}
			strbuf_reset(err);
		}
		p->nsys.nsys = p->nsys_path;
		/* asked once, here: the export step's argv is fixed in the plan */
		p->nsys.export_blobs = p->nsys_path && nsys_export_blobs(p->nsys_path);
		p->pp.nsys = &p->nsys;
	}
	ret = 0;
out:
	p->pp.trace_reason = p->trace_reason.buf;
	p->pp.trace_problem = p->trace_problem.len ? p->trace_problem.buf : NULL;
	if (have_nsys)
		tool_found_release(&nsys);
	if (have_tracer)
		tool_found_release(&tracer);
	return ret;
}

void run_params_init(struct run_params *p, const struct run_ctx *rc, const char *run_dir)
{
	const struct llmprof_config *c = config_typed(rc->cfg);
	const struct gpu_probe *gpus = &rc->gpus;
	struct plan_params *pp = &p->pp;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->trace_reason, 0);
	strbuf_init(&p->trace_problem, 0);
	strbuf_init(&p->ncu_problem, 0);
	strbuf_init(&p->trace_dir, 0);
	strbuf_init(&p->trace_log, 0);
	strbuf_init(&p->ncu_what, 0);
	pp->run_dir = run_dir;
	p->tracer_api_calls = c->pipeline.trace.api_calls;
	p->tracer_cpu_sample_hz = c->pipeline.trace.cpu_sample_hz;
	p->have_gpu = gpus->nr > 0;
	/* "-- PROGRAM ARGS" always wins over the configured workload */
	pp->workload_kind = rc->has_program ? WORKLOAD_KIND_COMMAND : c->workload.kind;
	if (rc->has_program) {
		p->program_argv = xcalloc((size_t)rc->prog_argc + 1, sizeof(char *));
		for (int i = 0; i < rc->prog_argc; i++)
			p->program_argv[i] = rc->prog_argv[i];
	} else if (c->workload.kind == WORKLOAD_KIND_COMMAND) {
		size_t n = c->workload.args.nr;
		const char *prog = c->workload.program;

		p->program_argv = xcalloc(n + 2, sizeof(char *));
		if (prog) {
			p->program_argv[0] = prog;
			for (size_t i = 0; i < n; i++)
				p->program_argv[i + 1] = c->workload.args.v[i];
		}
	}
	pp->program_argv = p->program_argv;
	p->workloads_dir = tool_workloads_dir();
	pp->workloads_dir = p->workloads_dir;
	pp->device = c->device;
	/* the resolved values as they are: every key is required or has a
	 * schema default, so there is no fallback to restate */
	pp->model = c->model;
	pp->infer = c->infer;
	pp->warmup = c->workload.warmup;
	/* model=auto is decided here, at run time: the real model where a GPU
	 * can run it, the tiny one otherwise */
	if (!strcmp(pp->model.name, "auto"))
		pp->model.name = gpus->nr ? "llama-3.2-1b" : "tiny";
	pp->mode = c->run.mode;
	pp->ncu_enable = c->pipeline.ncu.enable;
	pp->reference_max_s = c->pipeline.trace.reference_run_max_s;
}

int run_build_plan(struct run_ctx *rc, struct strbuf *err)
{
	struct plan *plan = &rc->plan;
	struct run_params *pp = &rc->params;
	const struct config *cfg = rc->cfg;
	struct ncu_options o = NCU_OPTIONS_INIT;
	struct strbuf e = STRBUF_INIT, note = STRBUF_INIT;
	char *ncu = NULL;
	size_t n = 0;

	pp->pp.ncu_what = NULL;
	pp->pp.ncu_problem = NULL;
	if (plan_build(plan, &pp->pp, err))
		return -1;
	if (!pp->pp.ncu_enable || pp->pp.trace == PLAN_TRACE_OFF)
		return 0;
	ncu_options_from_config(&config_typed(cfg)->pipeline.ncu.ncu_cli, &o);
	strbuf_reset(&pp->ncu_problem);
	strbuf_reset(&note);
	if (pp->pp.dry_run && !(ncu = ncu_find(cfg, &note))) {
		/* without a GPU no kernel is selected, so only a run with its
		 * own filters starts ncu */
		if (pp->have_gpu || ncu_options_explicit(&o)) {
			strbuf_addstr(&pp->ncu_problem, note.buf);
			pp->pp.ncu_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(&note);
		}
	}
	o.ncu = ncu ? ncu : "ncu";
	while (plan->program && plan->program[n])
		n++;
	o.program = (const char *const *)plan->program;
	o.nr_program = n;
	strbuf_reset(&pp->ncu_what);
	if (ncu_plan_describe(&o, pp->pp.mode, pp->pp.run_dir, &pp->ncu_what, &e)) {
		strbuf_reset(&pp->ncu_what);
		strbuf_addf(&pp->ncu_what, "ncu: %s", e.buf);
		if (!pp->ncu_problem.len) {
			strbuf_addf(&pp->ncu_problem, "ncu: %s", e.buf);
			pp->pp.ncu_problem_code = EXIT_CONFIG;
		}
	} else if (note.len) {
		strbuf_addf(&pp->ncu_what,
			    "\n    (no usable ncu: %s; no GPU was found, so no kernel is selected "
			    "and the step is skipped)",
			    note.buf);
	}
	/* the text needs the workload argv the plan decided: set after */
	plan_describe_ncu(plan, pp->ncu_what.buf, pp->pp.dry_run,
			  pp->ncu_problem.len ? pp->ncu_problem.buf : NULL,
			  pp->pp.ncu_problem_code);
	free(ncu);
	strbuf_release(&e);
	strbuf_release(&note);
	return 0;
}
