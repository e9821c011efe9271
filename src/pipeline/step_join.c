/* step_join.c: the join and reports steps. The join step builds the
 * report model (trace kernels x ncu/raw.csv, analysis/model_build.h) and hands it
 * to the reports step in run_ctx, which renders it: the model is built
 * once. Built at join time it is the model the reports step would build:
 * every step before join has ended, the model's join and analyze come
 * from this run, and the reports step itself is left out of it. Prints
 * nothing (progress.h). */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "analysis/model_build.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "pipeline/steps.h"
#include "report/report.h"
#include "core/banned.h"

/* Builds the report model from the bundle into rc->model (and its
 * result into rc->model_res), the bundle opened as `llmprof report` opens
 * it, but for config.yaml: rc->cfg is the same config. 0, or -1 with err. */
static int build_model(struct run_ctx *rc, struct strbuf *err)
{
	struct report_build_opts o;
	struct bundle_in b = BUNDLE_IN_INIT;

	if (bundle_open(&b, rc->bundle.dir, BUNDLE_READ_REPORT & ~BUNDLE_READ_CONFIG, err)) {
		bundle_in_release(&b);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.bundle = &b;
	o.out_dir = rc->bundle.dir;
	o.cfg = rc->cfg;
	o.analysis = rc->analysis;
	rc->model = xmalloc(sizeof(*rc->model));
	rc->model_res = xmalloc(sizeof(*rc->model_res));
	report_model_init(rc->model);
	report_build_result_init(rc->model_res);
	report_build_model(&o, rc->model, rc->model_res);
	bundle_in_release(&b);
	return 0;
}

void step_join(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	struct strbuf raw = STRBUF_INIT;

	(void)s;
	(void)i;
	bundle_path(&rc->bundle, bundle_art(BA_NCU_RAW), &raw);
	if (!path_exists(raw.buf)) {
		res->state = STEP_SKIPPED;
		strbuf_addf(&res->msg, "no %s: no counters to join", bundle_art(BA_NCU_RAW));
	} else if (build_model(rc, &res->msg)) {
		res->state = STEP_FAILED;
	} else {
		res->state = rc->model_res->join_state;
		strbuf_addstr(&res->msg, rc->model_res->join_msg.buf);
	}
	strbuf_release(&raw);
}

void step_reports(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	const struct pipeline_progress *pr = rc->progress;

	(void)s;
	(void)i;
	if ((!rc->model && build_model(rc, &res->msg)) ||
	    report_write_all(rc->model, &rc->bundle.bd, &res->msg)) {
		res->state = STEP_FAILED;
		res->code = EXIT_IO;
		return;
	}
	res->state = STEP_OK;
	rc->status.trust = rc->model->trust.checked ? (long)rc->model->trust.nr : -1;
	bundle_reports_list(&res->msg);
	if (rc->model_res->loud.len)
		pr->findings(pr->arg, rc->model_res->loud.buf);
}
