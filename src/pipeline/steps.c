/* steps.c: the step table (run.h), in the order the plan lists the steps
 * (pipeline/plan.h), and the small in-process steps: config, provenance,
 * analyze. */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "analysis/model_build.h"
#include "analysis/rank_summary.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "pipeline/provenance.h"
#include "pipeline/steps.h"
#include "core/banned.h"

const struct pipeline_step pipeline_steps[] = {
    {"config", STEP_KIND_INTERNAL, step_config},
    {"provenance", STEP_KIND_INTERNAL, step_provenance},
    {"workload", STEP_KIND_WORKLOAD, step_workload},
    {"reference", STEP_KIND_TOOL, step_reference},
    {"trace", STEP_KIND_INTERNAL, step_trace},
    {"nsys-export", STEP_KIND_TOOL, step_nsys_export},
    {"nsys-stats", STEP_KIND_TOOL, step_nsys_stats},
    {"analyze", STEP_KIND_INTERNAL, step_analyze},
    {"select", STEP_KIND_INTERNAL, step_select},
    {"ncu", STEP_KIND_INTERNAL, step_ncu},
    {"join", STEP_KIND_INTERNAL, step_join},
    {"reports", STEP_KIND_INTERNAL, step_reports},
};
const size_t pipeline_nr_steps = ARRAY_SIZE(pipeline_steps);

const struct pipeline_step *pipeline_step_find(const char *name)
{
	for (size_t i = 0; i < pipeline_nr_steps; i++)
		if (!strcmp(pipeline_steps[i].name, name))
			return &pipeline_steps[i];
	return NULL;
}

void step_config(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	(void)s;
	(void)i;
	res->state = STEP_OK;
	strbuf_addf(&res->msg, "%s with %zu override%s -> %s; trace backend: %s", rc->conf_dir,
		    rc->n_overrides, rc->n_overrides == 1 ? "" : "s", bundle_art(BA_CONFIG),
		    rc->params.trace_reason.buf);
}

/* Writes config.yaml, env.json, inputs.yaml. */
static int write_provenance(const struct run_ctx *rc, struct strbuf *err)
{
	const struct run_bundle *b = &rc->bundle;
	const struct config *cfg = rc->cfg;
	const struct config_pipeline *c = &config_typed(cfg)->pipeline;
	const struct plan *plan = &rc->plan;
	struct provenance_opts po = {rc->orig_argc, rc->orig_argv, c->nsys.path, c->ncu.path,
				     &rc->gpus};
	struct strbuf sb = STRBUF_INIT;
	json_t *env = NULL;
	struct run_inputs inputs;
	char *found = NULL;
	int ret = -1;

	config_to_yaml(cfg, &sb);
	if (bundle_write(b, bundle_art(BA_CONFIG), sb.buf, sb.len, err))
		goto out;
	env = provenance_env_json(&po);
	if (json_write_file_atomic(&b->bd, bundle_art(BA_ENV), env, err))
		goto out;
	strbuf_reset(&sb);
	inputs = plan->inputs;
	inputs.model_json = rc->model_json;
	if (inputs.argv && inputs.argv[0] && (found = find_in_path(inputs.argv[0])) &&
	    strcmp(found, inputs.argv[0]))
		inputs.program_path = found;
	provenance_inputs_yaml(&inputs, &sb);
	if (bundle_write(b, bundle_art(BA_INPUTS), sb.buf, sb.len, err))
		goto out;
	ret = 0;
out:
	json_decref(env);
	free(found);
	strbuf_release(&sb);
	return ret;
}

void step_provenance(struct run_ctx *rc, const struct plan_step *s, size_t i,
		     struct step_result *res)
{
	(void)s;
	(void)i;
	if (write_provenance(rc, &res->msg)) {
		res->state = STEP_FAILED;
		res->code = EXIT_IO;
	} else {
		res->state = STEP_OK;
		strbuf_addf(&res->msg, "%s, %s", bundle_art(BA_ENV), bundle_art(BA_INPUTS));
	}
}

/* collectives.tsv when the trace ran NCCL kernels: what `llmprof merge`
 * reads of this rank, written where the trace is. Failing to write it
 * costs the merge, not this run: a warning. */
static void write_rank_summary(struct run_ctx *rc)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	if (rank_summary_format(rc->analysis, host, &sb) &&
	    bundle_write(&rc->bundle, bundle_art(BA_COLLECTIVES), sb.buf, sb.len, &err))
		run_warning(rc, "no %s for 'llmprof merge': %s", bundle_art(BA_COLLECTIVES),
			    err.buf);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* The timeline analysis of the bundle's trace, kept in rc for select,
 * join and reports. */
void step_analyze(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	struct strbuf tp = STRBUF_INIT;
	const char *m;

	(void)s;
	(void)i;
	report_analysis_free(rc->analysis);
	rc->analysis = report_analysis_new();
	report_analysis_run(rc->analysis, bundle_trace(rc->bundle.dir, &tp, NULL), rc->cfg);
	rc->analyze_state = report_analysis_state(rc->analysis, &m);
	res->state = rc->analyze_state;
	strbuf_addstr(&res->msg, m);
	if (rc->analyze_state == STEP_OK)
		write_rank_summary(rc);
	strbuf_release(&tp);
}
