/* step_ncu_import.c: the ncu step's import (ncu.h): each capture's report
 * as ncu's raw page, merged into ncu/raw.csv; ncu's own section tables
 * (ncu/sections_report.txt); ncu/regions/ for range replay; and
 * ncu/cmd.txt and ncu/measured.json as the step ended. Prints nothing
 * (progress.h). */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "pipeline/ncu.h"
#include "report/ncu_regions.h"
#include "trace/ncu_csv.h"
#include "core/banned.h"

/* What ncu's seconds went to, for the step's message and measured.json
 * (step_ncu_run.c fills struct ncu_time from ncu's progress lines). */
void ncu_time_say(const struct ncu_time *t, struct strbuf *out)
{
	strbuf_addf(out, "%lld result%s", t->results, t->results == 1 ? "" : "s");
	if (t->results && t->passes_min == t->passes_max)
		strbuf_addf(out, " x %d replay pass%s", t->passes_max,
			    t->passes_max == 1 ? "" : "es");
	else if (t->results)
		strbuf_addf(out, " x %d-%d replay passes", t->passes_min, t->passes_max);
	if (t->results)
		strbuf_addf(out, " (%lld in all)", t->passes);
	if (!t->timed)
		return;
	strbuf_addf(out, ": %.1f s before the first, %.1f s profiling", t->before_s,
		    t->profiling_s);
	if (t->results)
		strbuf_addf(out, " (%.2f s a result)", t->profiling_s / (double)t->results);
	strbuf_addf(out, ", %.1f s after the last", t->after_s);
	if (t->ended)
		strbuf_addstr(out, " (the program ended there)");
}

json_t *ncu_time_json(const struct ncu_time *t)
{
	json_t *o = json_object();

	json_object_set_new(o, "results", json_integer((json_int_t)t->results));
	json_object_set_new(o, "replay_passes", json_integer((json_int_t)t->passes));
	json_object_set_new(o, "passes_min", json_integer(t->passes_min));
	json_object_set_new(o, "passes_max", json_integer(t->passes_max));
	json_object_set_new(o, "wall_s", json_real(t->wall_s));
	json_object_set_new(o, "programs_ended_after_last", json_integer(t->ended));
	if (t->timed) {
		json_object_set_new(o, "before_first_result_s", json_real(t->before_s));
		json_object_set_new(o, "profiling_s", json_real(t->profiling_s));
		json_object_set_new(o, "after_last_result_s", json_real(t->after_s));
	}
	return o;
}

/* ncu/regions/{report.md,report.json,<region>/metrics.json} from the merged
 * raw page. A failure here is a warning: raw.csv holds the data, and
 * `llmprof report --ncu-csv` can redo it. */
static void write_regions(struct ncu_job *j, const struct strbuf *text)
{
	struct ncu_raw raw = NCU_RAW_INIT;
	struct regions rg = REGIONS_INIT;
	struct strbuf err = STRBUF_INIT;

	int ret = ncu_raw_parse(text->buf, text->len, bundle_art(BA_NCU_RAW), &raw, &err) ||
		  regions_build(&raw, &rg, &err);

	if (!ret) {
		rg.max_results = (size_t)config_typed(j->rc->cfg)->run.report_rows;
		ret = regions_write(&rg, &raw, &j->rc->bundle.bd, bundle_art(BA_NCU_REGIONS_DIR),
				    &err);
	}
	if (ret)
		run_warning(j->rc, "%s/ not written: %s", bundle_art(BA_NCU_REGIONS_DIR), err.buf);
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_release(&err);
}

/* Appends ncu's own human-readable section tables of one measured report
 * (`ncu --import REP --page details --section S...`, ncu's units) under a
 * "==== <report> (<what>) ====" line, for ncu/sections_report.txt. A
 * failure is a warning: ncu/raw.csv holds the numbers. */
static void sections_report_add(struct ncu_job *j, const struct ncu_options *o, const char *rep,
				size_t i, const char *what)
{
	const struct run_bundle *b = &j->rc->bundle;
	struct strbuf *report = &j->sreport;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf name = STRBUF_INIT, out = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT, rel = STRBUF_INIT, errlog = STRBUF_INIT;
	struct proc_result res;

	strbuf_addf(&name, "ncu-sections-k%zu", i);
	bundle_art_fill(&rel, BA_LOG_OUT, name.buf);
	bundle_path(b, rel.buf, &out);
	ncu_sections_report_argv(o->ncu, rep, o->sections, o->nr_sections, &cmd);
	if (ncu_child(j, name.buf, &cmd, NULL, rel.buf, 0, &res, &text, &err) ||
	    res.outcome != PROC_EXITED || res.exit_status) {
		bundle_art_fill(&errlog, BA_LOG_ERR, name.buf);
		run_warning(j->rc, "%s lacks %s: ncu --import --page details failed (%s)%s%s",
			    bundle_art(BA_NCU_SECTIONS_REPORT), rep + strlen(b->dir) + 1,
			    errlog.buf, err.len ? ": " : "", err.buf);
		goto out;
	}
	strbuf_reset(&text);
	if (strbuf_read_file(&text, out.buf) < 0) {
		run_warning(j->rc, "%s lacks %s: cannot read %s",
			    bundle_art(BA_NCU_SECTIONS_REPORT), rep + strlen(b->dir) + 1, out.buf);
		goto out;
	}
	strbuf_addf(report, "%s==== %s (%s) ====\n", report->len ? "\n" : "",
		    rep + strlen(b->dir) + 1, what);
	strbuf_add(report, text.buf, text.len);
	if (text.len && text.buf[text.len - 1] != '\n')
		strbuf_addch(report, '\n');
out:
	ncu_cmd_release(&cmd);
	strbuf_release(&name);
	strbuf_release(&out);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&rel);
	strbuf_release(&errlog);
}

int ncu_import_capture(struct ncu_job *j, struct ncu_capture *c, struct strbuf *msg, int *code)
{
	const struct run_bundle *b = &j->rc->bundle;
	struct ncu_cmd imp = NCU_CMD_INIT;
	struct strbuf rawp = STRBUF_INIT, iname = STRBUF_INIT, itext = STRBUF_INIT;
	struct strbuf csv = STRBUF_INIT, err = STRBUF_INIT;
	size_t first_id = j->merge.nrows;
	int ret = 0;

	strbuf_addf(&iname, "%zu", c->i); /* the capture's number, then its step name */
	strbuf_reset(&c->rel);
	bundle_art_fill(&c->rel, BA_NCU_CAPTURE_RAW, iname.buf);
	strbuf_reset(&iname);
	bundle_path(b, c->rel.buf, &rawp);
	strbuf_addf(&iname, "ncu-import-k%zu", c->i);
	ncu_import_argv(j->ncu, c->rep.buf, "raw", &imp);
	ncu_cmd_format(&imp, &j->cmdtxt);
	strbuf_addch(&j->cmdtxt, '\n');
	if (ncu_child(j, iname.buf, &imp, NULL, c->rel.buf, 0, &c->res, &itext, &err) ||
	    c->res.outcome != PROC_EXITED || c->res.exit_status) {
		strbuf_addf(&c->why, "ncu --import failed%s%s", err.len ? ": " : "", err.buf);
	} else if (strbuf_read_file(&csv, rawp.buf) < 0 ||
		   (c->rows = ncu_raw_merge_add(&j->merge, csv.buf, csv.len, c->rel.buf, &err)) <
		       0) {
		/* columns that cannot be merged: nothing after is valid */
		*code = EXIT_STEP_FAILED;
		strbuf_addstr(msg, err.buf);
		ret = -1;
	} else if (!c->rows) {
		strbuf_addstr(&c->why, "the report holds no result");
	} else {
		c->ok = 1;
		ncu_names_capture(j, c, first_id);
	}
	if (c->ok && (c->o.nr_sections || c->o.set)) {
		struct strbuf what = STRBUF_INIT;

		if (c->pass)
			strbuf_addf(&what, "one pass over the %zu selected kernels",
				    j->rc->sel->nr);
		else if (c->k)
			strbuf_addf(&what, "kernel %zu of %zu: %s", c->i + 1, j->nruns,
				    c->k->short_name ? c->k->short_name : c->k->name);
		else
			strbuf_addstr(&what, "the configured filters");
		sections_report_add(j, &c->o, c->rep.buf, c->i, what.buf);
		strbuf_release(&what);
	}
	ncu_cmd_release(&imp);
	strbuf_release(&rawp);
	strbuf_release(&iname);
	strbuf_release(&itext);
	strbuf_release(&csv);
	strbuf_release(&err);
	return ret;
}

int ncu_job_finish(struct ncu_job *j, struct strbuf *msg, int *code, enum step_state *state)
{
	const struct run_bundle *b = &j->rc->bundle;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1;

	if (j->measured) {
		ncu_raw_merge_write(&j->merge, &text);
		if (bundle_write(b, bundle_art(BA_NCU_RAW), text.buf, text.len, &err)) {
			*code = EXIT_IO;
			strbuf_addstr(msg, err.buf);
			goto out;
		}
		if (j->names.nrows && !j->names_broken) {
			struct strbuf names = STRBUF_INIT;

			ncu_raw_merge_write(&j->names, &names);
			if (bundle_write(b, bundle_art(BA_NCU_MANGLED), names.buf, names.len,
					 &err)) {
				run_warning(j->rc, "%s", err.buf);
				strbuf_reset(&err);
			}
			strbuf_release(&names);
		}
		if (j->sreport.len && bundle_write(b, bundle_art(BA_NCU_SECTIONS_REPORT),
						   j->sreport.buf, j->sreport.len, &err)) {
			run_warning(j->rc, "%s", err.buf);
			strbuf_reset(&err);
		}
		/* range replay, or a configured NVTX-gated run: one result per
		 * region -> ncu/regions/ (analysis/regions.h) */
		if (ncu_options_range(&j->base) || (j->explicit_run && j->base.nr_nvtx_include))
			write_regions(j, &text);
	}
	if (j->pass) {
		/* what the filters asked for beyond one result per class */
		strbuf_addf(msg, "%zu ncu result%s for %zu selected kernels in one pass%s (%s",
			    j->merge.nrows, j->merge.nrows == 1 ? "" : "s", j->rc->sel->nr,
			    j->nruns > 1 ? " and runs of their own" : "",
			    j->pass->window ? "a window of their launches"
					    : "per launch configuration");
		if (j->pass->repeats)
			strbuf_addf(msg, ", %zu planned repeat%s", j->pass->repeats,
				    j->pass->repeats == 1 ? "" : "s");
		if (j->pass->other_classes)
			strbuf_addf(msg, ", %zu unselected class%s", j->pass->other_classes,
				    j->pass->other_classes == 1 ? "" : "es");
		strbuf_addf(msg, "; %.1f s of ncu) -> %s", j->ncu_s, bundle_art(BA_NCU_RAW));
	} else
		strbuf_addf(msg, "%zu of %zu %s measured, %zu ncu result%s in %.1f s of ncu -> %s",
			    j->measured, j->nruns,
			    j->explicit_run ? "configured run" : "selected kernels", j->merge.nrows,
			    j->merge.nrows == 1 ? "" : "s", j->ncu_s, bundle_art(BA_NCU_RAW));
	if (j->time.wall_s > 0) { /* what the seconds of ncu went to */
		strbuf_addstr(msg, "; ncu: ");
		ncu_time_say(&j->time, msg);
	}
	if (j->slowest_s > 0)
		strbuf_addf(msg, "; slowest result %.2f s (%s)", j->slowest_s, j->slowest_name);
	if (j->unexpected)
		strbuf_addf(msg, "; %zu result%s the plan did not expect (joined by name)",
			    j->unexpected, j->unexpected == 1 ? "" : "s");
	if (j->measured < j->nruns)
		strbuf_addf(msg, "; not measured: %s", j->first_fail.buf);
	*state = j->measured ? STEP_OK : STEP_FAILED;
	ret = 0;
out:
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

void ncu_job_write_measured(struct ncu_job *j, enum step_state state)
{
	const struct run_bundle *b = &j->rc->bundle;
	json_t *o = json_object();
	struct strbuf jp = STRBUF_INIT, jerr = STRBUF_INIT;

	json_object_set_new(o, "ncu", json_string_lossy(j->ncu ? j->ncu : ""));
	json_object_set_new(o, "mode", json_string_lossy(run_mode_names[j->mode]));
	json_object_set_new(o, "explicit_filters", json_boolean(j->explicit_run));
	json_object_set_new(o, "measured", json_integer((json_int_t)j->measured));
	json_object_set_new(o, "ncu_wall_s", json_real(j->ncu_s));
	json_object_set_new(o, "ncu_time", ncu_time_json(&j->time));
	json_object_set_new(o, "one_pass", json_boolean(j->pass != NULL));
	json_object_set_new(o, "runs", j->runs);
	j->runs = NULL;
	json_object_set_new(o, "results", j->results);
	j->results = NULL;
	json_object_set_new(o, "result_times", j->result_times);
	j->result_times = NULL;
	if (j->cmdtxt.len &&
	    bundle_write(b, bundle_art(BA_NCU_CMD), j->cmdtxt.buf, j->cmdtxt.len, &jerr))
		run_warning(j->rc, "%s", jerr.buf);
	strbuf_reset(&jerr);
	bundle_path(b, bundle_art(BA_NCU_DIR), &jp);
	/* refused before the first capture (no ncu/ yet): nothing measured */
	if (state != STEP_SKIPPED && j->ncu && path_exists(jp.buf)) {
		strbuf_reset(&jp);
		if (json_write_file_atomic(&b->bd, bundle_art(BA_NCU_MEASURED), o, &jerr))
			run_warning(j->rc, "%s", jerr.buf);
	}
	json_decref(o);
	strbuf_release(&jp);
	strbuf_release(&jerr);
}
