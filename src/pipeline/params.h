/* params.h: struct run_params (run.h) from the resolved config and what
 * the machine has: the workload, the model, the timeline backend (nsys or
 * the builtin tracer, chosen here) and the ncu step's --dry-run text; then
 * the plan built from them. Internal to the pipeline layer. */
#ifndef LLMPROF_PIPELINE_PARAMS_H
#define LLMPROF_PIPELINE_PARAMS_H

#include "pipeline/run_ctx.h"

/* Fills p from rc->cfg, the command line and the GPU probe in rc; the
 * bundle is run_dir. Release with run_params_release(). */
void run_params_init(struct run_params *p, const struct run_ctx *rc, const char *run_dir);
void run_params_release(struct run_params *p);

/* Chooses the timeline backend (pipeline.trace.*): nsys when asked for or
 * when backend=auto and nsys can finish a report, else the builtin tracer;
 * both found by tool_find (nsight/tools.h). Records why in trace_reason.
 * Returns 0, or -1 with err and *code when the choice cannot work
 * (backend=nsys with an unusable nsys, bad nsys options). With --dry-run
 * such a problem goes to trace_problem instead, the plan is built with
 * the backend asked for, and 0 is returned. */
int run_choose_backend(struct run_ctx *rc, struct strbuf *err, int *code);

/* Points the workload at the builtin tracer, its logs under run_dir. */
void run_tracer_setup(struct run_params *p, const char *run_dir);

/* Builds rc->plan, the ncu step described with its argv template. With
 * --dry-run, ncu is looked up so the step can be marked when it would
 * fail. 0, or -1 with err (EXIT_CONFIG). */
int run_build_plan(struct run_ctx *rc, struct strbuf *err);

#endif
