/* step_select.c: the select step (ncu.h): the kernels of run.stage worth
 * counters, from the analyze step's trace, -> ncu/selection.json
 * (analysis/select.h), handed to the ncu step in run_ctx. */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/model_build.h"
#include "report/selection_json.h"
#include "core/xalloc.h"
#include "pipeline/ncu.h"
#include "pipeline/steps.h"
#include "core/banned.h"

/* run.mode=light: counters on at most this many kernels. */
#define SELECT_LIGHT_TOP 5

void step_select(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf *msg = &res->msg;
	const struct llmprof_config *c = config_typed(rc->cfg);
	const struct config_ncu_cli *cli = &c->pipeline.ncu.ncu_cli;
	struct select_opts so = SELECT_OPTS_INIT;
	struct selection sel = SELECTION_INIT;
	struct launch *l = NULL;
	const char *stage = run_stage_names[c->run.stage];
	enum step_state state = STEP_FAILED;
	size_t n = 0;
	struct select_pass *pass = NULL;
	int64_t lc = cli->launch_count ? *cli->launch_count : 0;

	(void)s;
	(void)i;
	if (!rc->analysis || rc->analyze_state != STEP_OK) {
		strbuf_addstr(msg, "no analyzed trace to select kernels from");
		state = STEP_SKIPPED;
		goto out;
	}
	if (report_analysis_launches(rc->analysis, stage, &l, &n, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	so.coverage = c->run.coverage;
	so.top_n = (size_t)c->run.top_n_kernels;
	so.merge_tolerance = c->run.same_work_tolerance;
	if (c->run.mode == RUN_MODE_LIGHT && so.top_n > SELECT_LIGHT_TOP)
		so.top_n = SELECT_LIGHT_TOP;
	if (cli->kernel_exclude.nr) {
		so.exclude = cli->kernel_exclude.v;
		so.nr_exclude = cli->kernel_exclude.nr;
	}
	so.launch_count = lc > 0 ? (unsigned)lc : 1;
	/* each selected kernel gets its own ncu run, found by name and launch
	 * index over the whole run: no NVTX gate is needed, and none is used
	 * (docs/ncu.md "How profile runs ncu") */
	so.nvtx_gated = 0;
	so.base = cli->kernel_name_base == NCU_NAME_BASE_FUNCTION ? SELECT_BASE_FUNCTION
								  : SELECT_BASE_DEMANGLED;
	/* mangled names are the same text in the trace and in ncu; demangled
	 * ones are not (select.h) */
	so.base = select_best_base(l, n, so.base);
	if (select_kernels(l, n, &so, &sel, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	if (!sel.stage_launches) {
		strbuf_addf(msg, "no kernel launches in run.stage=%s", stage);
		state = STEP_SKIPPED;
		goto out;
	}
	/* the plan of one ncu run for every selected class; whether the ncu
	 * step can use it depends on the ncu it finds */
	pass = xcalloc(1, sizeof(*pass));
	if (select_plan_pass(l, n, &sel, so.base, SELECT_PASS_MAX_COUNT, SELECT_PASS_AUTO, pass,
			     &err)) {
		run_warning(rc, "no one-pass ncu plan (%s): one ncu run per kernel", err.buf);
		strbuf_reset(&err);
		FREE_AND_NULL(pass);
	}
	selection_json(&sel, &so, pass, &text);
	strbuf_reset(&err);
	if (ncu_make_dir(&rc->bundle, &err) ||
	    bundle_write(&rc->bundle, bundle_art(BA_NCU_SELECTION), text.buf, text.len, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	strbuf_addf(msg, "%zu of %zu distinct kernels, %.1f%% of %s GPU time (%s) -> %s", sel.nr,
		    sel.distinct, 100.0 * sel.coverage, stage,
		    sel.stop_reason ? sel.stop_reason : "done", bundle_art(BA_NCU_SELECTION));
	state = STEP_OK;
	rc->sel = xmalloc(sizeof(*rc->sel));
	*rc->sel = sel;
	memset(&sel, 0, sizeof(sel));
	rc->ncu_base = select_base_name(so.base);
	rc->pass = pass;
	pass = NULL;
out:
	if (pass) {
		select_pass_release(pass);
		free(pass);
	}
	selection_release(&sel);
	free(l);
	strbuf_release(&err);
	strbuf_release(&text);
	res->state = state;
}
