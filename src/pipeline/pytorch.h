/* pytorch.h: llmprof's PyTorch startup module in `llmprof profile`
 * (docs/pytorch.md): which mode pipeline.trace.pytorch means for this run's
 * program, and the workload environment that loads the module. Internal to
 * the pipeline layer; prints nothing (warnings go through run_warning). */
#ifndef LLMPROF_PIPELINE_PYTORCH_H
#define LLMPROF_PIPELINE_PYTORCH_H

#include "pipeline/run_ctx.h"

/* Decides rc->params.pytorch (and finds the module's folder) after the
 * timeline backend is chosen: only a program run with `-- PROGRAM` or
 * workload.kind=command under a trace backend gets the module; auto means
 * modules for a Python program (trace/pytorch_launch.h). Adds the choice
 * and why to trace_reason, which status.json, the profile's first lines
 * and --dry-run show. A mode asked for whose module cannot be found is a
 * warning, and the run goes on without it. */
void run_pytorch_choose(struct run_ctx *rc);

/* The workload's variables for the bundle run_dir (its log is
 * <run_dir>/logs/pytorch.log), into p->pytorch_env and p->pp.pytorch_env;
 * none when the module is not used. Called again when run_dir changes. */
void run_pytorch_env(struct run_params *p, const char *run_dir);

#endif
