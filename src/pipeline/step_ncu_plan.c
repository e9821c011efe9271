/* step_ncu_plan.c: the ncu step's plan (ncu.h): the ncu to run and the
 * options it runs with, checked before the first capture, because a
 * section, metric or NVTX range this run cannot have fails only after the
 * program ran under ncu. Prints nothing (progress.h). */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "analysis/model_build.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_nvtx.h"
#include "nsight/tools.h"
#include "pipeline/ncu.h"
#include "trace/nvtxlist.h"
#include "core/banned.h"

/* A configured run's --nvtx-include values, checked against the ranges
 * the bundle's trace saw and put in ncu's syntax (nsight/ncu_nvtx.h).
 * 0 with *exprs set (owned), or -1 with msg. */
static int ncu_check_includes(const struct run_bundle *b, const struct ncu_options *o,
			      char ***exprs, struct strbuf *msg)
{
	struct strbuf tp = STRBUF_INIT, err = STRBUF_INIT;
	struct nvtx_list l;
	struct ncu_seen_range *seen = NULL;
	const char *trace = bundle_trace(b->dir, &tp, NULL);
	int ret = -1;

	nvtx_list_init(&l);
	if (!trace || !path_exists(trace)) {
		strbuf_addstr(msg,
			      "pipeline.ncu.ncu_cli.nvtx.include cannot be checked: the bundle "
			      "has no trace; refusing an NVTX-filtered ncu run that may match "
			      "nothing");
		goto out;
	}
	if (nvtx_list_load(&l, trace, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	seen = xcalloc(l.n + 1, sizeof(*seen));
	for (size_t i = 0; i < l.n; i++) {
		seen[i].domain = l.v[i].domain;
		seen[i].name = l.v[i].name;
		seen[i].startend = l.v[i].style == NVTX_STYLE_STARTEND;
	}
	if (ncu_nvtx_check(o->nvtx_include, o->nr_nvtx_include, seen, l.n, exprs, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	ret = 0;
out:
	free(seen);
	nvtx_list_release(&l);
	strbuf_release(&tp);
	strbuf_release(&err);
	return ret;
}

/* Runs a listing child (ncu --list-sections / --query-metrics) into the
 * bundle file rel and parses it with parse. 0 with the names (owned), or
 * -1 after a warning: ncu could not say, and the capture will. */
static int ncu_listing(struct ncu_job *j, const char *name, struct ncu_cmd *cmd, const char *rel,
		       void (*parse)(const char *, size_t, char ***, size_t *), char ***names,
		       size_t *n)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_result res;
	int ret = -1;

	*names = NULL;
	*n = 0;
	bundle_path(&j->rc->bundle, rel, &path);
	if (ncu_child(j, name, cmd, NULL, rel, 0, &res, &text, &err) ||
	    res.outcome != PROC_EXITED || res.exit_status ||
	    strbuf_read_file(&text, path.buf) < 0) {
		struct strbuf log = STRBUF_INIT;

		bundle_art_fill(&log, BA_LOG_ERR, name);
		run_warning(j->rc, "%s %s failed (%s): %s not checked before the capture",
			    cmd->argv[0], cmd->argv[1], log.buf, rel);
		strbuf_release(&log);
		goto out;
	}
	parse(text.buf, text.len, names, n);
	if (!*n) {
		run_warning(j->rc, "%s %s listed nothing (%s): not checked before the capture",
			    cmd->argv[0], cmd->argv[1], rel);
		goto out;
	}
	ret = 0;
out:
	ncu_cmd_release(cmd);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

char *ncu_find(const struct config *cfg, struct strbuf *msg)
{
	struct tool_found f;
	char *ncu = NULL;

	tool_find(TOOL_NCU, config_typed(cfg)->pipeline.ncu.path, &f);
	if (f.problem)
		strbuf_addf(msg, "%s; %s", f.why.buf, f.fix.buf);
	else
		ncu = xstrdup(f.path);
	tool_found_release(&f);
	return ncu;
}

/* Whether this ncu can run the one pass (--filter-mode per-launch-config,
 * from `ncu --help`, logs/ncu-help.out). 0 when it cannot or cannot say. */
static int ncu_has_one_pass(struct ncu_job *j)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_result res;
	int yes = 0;

	ncu_help_argv(j->ncu, &cmd);
	if (!ncu_child(j, "ncu-help", &cmd, NULL, NULL, 0, &res, &text, &err) &&
	    res.outcome == PROC_EXITED && !res.exit_status)
		yes = ncu_help_has_per_launch_config(text.buf, text.len);
	ncu_cmd_release(&cmd);
	strbuf_release(&text);
	strbuf_release(&err);
	return yes;
}

/* What this ncu can collect (ncu/sections.txt, and ncu/metrics.txt when
 * metrics are requested) against what the run asks for. A tensor-pipe
 * metric this GPU names otherwise is dropped with a warning (o->metrics
 * then points to *kept, the caller's to free). 0 to go on (also when ncu
 * could not list them), or -1 with msg naming every one missing. */
static int ncu_check_offered(struct ncu_job *j, struct strbuf *msg)
{
	struct ncu_options *o = &j->base;
	const char ***kept = &j->kept_metrics;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf err = STRBUF_INIT, dropped = STRBUF_INIT;
	char **ids = NULL, **names = NULL;
	size_t nids = 0, nnames = 0;
	int ret = 0;

	ncu_list_sections_argv(o->ncu, &cmd);
	ncu_listing(j, "ncu-list-sections", &cmd, bundle_art(BA_NCU_SECTIONS), ncu_sections_parse,
		    &ids, &nids);
	if (o->nr_metrics) {
		ncu_query_metrics_argv(o->ncu, &cmd);
		ncu_listing(j, "ncu-query-metrics", &cmd, bundle_art(BA_NCU_METRICS),
			    ncu_metrics_parse, &names, &nnames);
	}
	if (nnames) {
		*kept = xcalloc(o->nr_metrics + 1, sizeof(**kept));
		memcpy(*kept, o->metrics, o->nr_metrics * sizeof(**kept));
		o->nr_metrics =
		    ncu_drop_unoffered_optional(*kept, o->nr_metrics, names, nnames, &dropped);
		o->metrics = *kept;
		if (dropped.len)
			run_warning(j->rc,
				    "this GPU/ncu does not offer %s (%s): measured "
				    "without, so counter FLOPs leave out that tensor path",
				    dropped.buf, bundle_art(BA_NCU_METRICS));
	}
	if (ncu_check_requested(o, nids ? ids : NULL, nids, nnames ? names : NULL, nnames, &err)) {
		strbuf_addstr(msg, err.buf);
		ret = -1;
	}
	ncu_names_free(ids, nids);
	ncu_names_free(names, nnames);
	strbuf_release(&err);
	strbuf_release(&dropped);
	return ret;
}

int ncu_make_dir(const struct run_bundle *b, struct strbuf *err)
{
	return bundle_dir_mkdir(&b->bd, bundle_art(BA_NCU_DIR), err);
}

void ncu_job_init(struct ncu_job *j, struct run_ctx *rc)
{
	memset(j, 0, sizeof(*j));
	j->rc = rc;
	j->mode = config_typed(rc->cfg)->run.mode;
	j->timeout_s = config_typed(rc->cfg)->run.timeout_s;
	j->stop_after_last = config_typed(rc->cfg)->pipeline.ncu.stop_after_last;
	j->base = (struct ncu_options)NCU_OPTIONS_INIT;
	j->merge = (struct ncu_raw_merge)NCU_RAW_MERGE_INIT;
	j->names = (struct ncu_raw_merge)NCU_RAW_MERGE_INIT;
	j->results = json_array();
	j->result_times = json_array();
	strbuf_init(&j->cmdtxt, 0);
	strbuf_init(&j->sreport, 0);
	strbuf_init(&j->first_fail, 0);
	j->runs = json_array();
	ncu_progress_init(&j->progress[0]);
	ncu_progress_init(&j->progress[1]);
	j->start_ns = clock_mono_ns();
	ncu_options_from_config(&config_typed(rc->cfg)->pipeline.ncu.ncu_cli, &j->base);
	j->explicit_run = ncu_options_explicit(&j->base);
}

void ncu_job_release(struct ncu_job *j)
{
	json_decref(j->runs);
	json_decref(j->results);
	json_decref(j->result_times);
	ncu_raw_merge_release(&j->names);
	ncu_progress_release(&j->progress[0]);
	ncu_progress_release(&j->progress[1]);
	ncu_raw_merge_release(&j->merge);
	ncu_nvtx_exprs_free(j->includes, j->base.nr_nvtx_include);
	free(j->kept_metrics);
	free(j->ncu);
	strbuf_release(&j->cmdtxt);
	strbuf_release(&j->sreport);
	strbuf_release(&j->first_fail);
}

enum step_state ncu_job_plan(struct ncu_job *j, struct strbuf *msg, int *code)
{
	struct run_ctx *rc = j->rc;
	struct ncu_options *base = &j->base;
	struct strbuf err = STRBUF_INIT;
	enum step_state state = STEP_FAILED;
	size_t program_n = 0;

	if (!j->explicit_run && (!rc->sel || !rc->sel->nr)) {
		strbuf_addstr(msg, "no kernels selected: nothing to measure (see the select step)");
		return STEP_SKIPPED;
	}
	/* an ncu older than the oldest supported would fail in ways that name
	 * no cause (unknown flags, raw pages llmprof cannot read): refused */
	if (!(j->ncu = ncu_find(rc->cfg, msg))) {
		*code = EXIT_TOOL_MISSING;
		return STEP_FAILED;
	}
	if (ncu_options_range(base) && !base->nr_nvtx_include) {
		*code = EXIT_CONFIG;
		strbuf_addf(msg,
			    "pipeline.ncu.ncu_cli.replay_mode=%s needs "
			    "pipeline.ncu.ncu_cli.nvtx.include (the ranges to replay, e.g. "
			    "[LLM@decode_all/]); `llmprof nvtx` lists the ones the program emits",
			    base->replay_mode);
		return STEP_FAILED;
	}
	if (j->explicit_run && base->nr_nvtx_include) {
		if (ncu_check_includes(&rc->bundle, base, &j->includes, msg)) {
			*code = EXIT_CONFIG;
			return STEP_FAILED;
		}
		base->nvtx_include = (const char *const *)j->includes;
	}
	if (j->mode == RUN_MODE_LIGHT)
		ncu_options_light(base);
	while (rc->plan.program && rc->plan.program[program_n])
		program_n++;
	base->ncu = j->ncu;
	base->program = (const char *const *)rc->plan.program;
	base->nr_program = program_n;
	base->force_overwrite = 1;
	if (ncu_make_dir(&rc->bundle, &err)) {
		*code = EXIT_IO;
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	/* a section or metric this GPU lacks fails the first capture only
	 * after the program ran under it: refuse it now */
	if (ncu_check_offered(j, msg)) {
		*code = EXIT_CONFIG;
		goto out;
	}
	/* one ncu run for the whole selection where ncu can (the workload
	 * starts once: a transformers program takes ~30 s to start), else one
	 * per kernel, each profiling its kernel's launch_count launches; the
	 * window form needs only -k, --launch-skip and --launch-count, which
	 * every ncu has */
	if (!j->explicit_run && rc->pass && (rc->pass->window || ncu_has_one_pass(j))) {
		j->pass = rc->pass;
		j->nruns = 1 + rc->pass->nunreached;
		j->expected = rc->pass->nexpect;
		for (size_t i = 0; i < rc->pass->nunreached; i++)
			j->expected += rc->sel->k[rc->pass->unreached[i]].launch_count;
	} else {
		if (!j->explicit_run && rc->pass) {
			struct strbuf log = STRBUF_INIT;

			bundle_art_fill(&log, BA_LOG_OUT, "ncu-help");
			run_warning(rc,
				    "this ncu has no --filter-mode per-launch-config (%s): one ncu "
				    "run per selected kernel",
				    log.buf);
			strbuf_release(&log);
		}
		j->nruns = j->explicit_run ? 1 : rc->sel->nr;
		for (size_t i = 0; !j->explicit_run && i < j->nruns; i++)
			j->expected += rc->sel->k[i].launch_count;
	}
	state = STEP_RUNNING;
out:
	strbuf_release(&err);
	return state;
}
