/* run.h: the `llmprof profile` pipeline: one struct run_ctx holding the
 * resolved config, the plan, the bundle, status.json and what each step
 * hands the next, and a step table (steps.c) run by one loop.
 *
 * The order of a run (cmd/cmd-profile.c wires it):
 *   run_config_load()      the config with the user's overrides
 *   run_config_auto()      model=auto and the device, from the GPU probe,
 *                          appended as overrides (then loaded once more,
 *                          the config every step reads)
 *   run_plan()             the run id, the timeline backend and the plan
 *                          for that bundle (--dry-run: every step, the
 *                          ones that would fail marked)
 *   run_open_bundle()      the bundle made and its status.json
 *   pipeline_run()         every step of the plan, status.json kept true
 *
 * Nothing here prints: what a person should see goes through struct
 * pipeline_progress (progress.h), implemented by cmd/. The context's
 * types are in run_ctx.h, which the steps include instead of this header.
 * Ownership: the run_ctx owns everything it points to except progress;
 * run_ctx_release(). */
#ifndef LLMPROF_PIPELINE_RUN_H
#define LLMPROF_PIPELINE_RUN_H

#include "pipeline/run_ctx.h"

void run_ctx_init(struct run_ctx *rc, const struct run_opts *opts,
		  const struct pipeline_progress *progress);
void run_ctx_release(struct run_ctx *rc);

/* Loads conf_dir with the n overrides into rc->cfg (replacing one loaded
 * before). 0, or -1 with err (EXIT_CONFIG). */
int run_config_load(struct run_ctx *rc, const char *conf_dir, size_t n, const char *const *ov,
		    struct strbuf *err);
/* Probes the GPUs and appends to ov (room for 2 more) the overrides that
 * decide model: auto and the device of the built-in workloads: a GPU ->
 * the configured GPU model; none -> model tiny on device cpu. Returns how
 * many were appended (load the config again when any). */
size_t run_config_auto(struct run_ctx *rc, const char **ov, size_t *n);

/* Draws the bundle's run id under root (bundle/write.h: nothing is
 * created yet; --dry-run: the stand-in <root>/<run_id>), chooses the
 * timeline backend and builds the plan for that folder, once. 0, or -1
 * with err and *code. */
int run_plan(struct run_ctx *rc, const char *root, struct strbuf *err, int *code);

/* Creates the bundle run_plan() chose and writes the first status.json.
 * Should another run have taken its id meanwhile, draws another and
 * plans again for it, so two runs never share a bundle. 0; -1 with err
 * and *code when there is no bundle; 1 when the bundle exists but
 * status.json cannot be written (EXIT_IO, the error already reported). */
int run_open_bundle(struct run_ctx *rc, struct strbuf *err, int *code);

/* Runs every step of the plan, then ends status.json. Returns the exit
 * code of the run. */
int pipeline_run(struct run_ctx *rc);
/* The run ended but llmprof exits with code, not the run's own (7: the
 * `run:` line could not be written to standard output): status.json says
 * so too, its state left as the run's. Nothing when code is the same. */
void pipeline_end_code(struct run_ctx *rc, int code);

/* run.c: status.json as the run stands (an error line when it cannot be
 * written). */
void run_write_status(struct run_ctx *rc);
/* Records the first failure: its state and exit code decide the run's. */
void run_outcome_fail(struct run_outcome *oc, enum step_state state, int code);

#endif
