/* step_ncu_run.c: the ncu step (ncu.h): its entry in the step table, and
 * the captures, one ncu run per selected kernel (or one with the user's
 * own filters), each run as an ncu child (step_ncu_child.c, which reports
 * ncu's console as the step's progress) and imported as it ends
 * (step_ncu_import.c); nothing is printed here (progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/ncu.h"
#include "pipeline/steps.h"
#include "core/banned.h"

/* Before a capture: results before it count as done (deep mode: one
 * result per capture), and the last pass count carries over (same
 * sections). */
static void progress_restart(struct ncu_job *j, long long done)
{
	for (size_t s = 0; s < 2; s++) {
		int passes = j->progress[s].passes;

		ncu_progress_release(&j->progress[s]);
		ncu_progress_init(&j->progress[s]);
		j->progress[s].done = done;
		j->progress[s].passes = passes;
	}
}

static void capture_init(struct ncu_capture *c, struct ncu_job *j, size_t i)
{
	struct strbuf idx = STRBUF_INIT;

	memset(c, 0, sizeof(*c));
	c->i = i;
	if (j->pass) {
		/* capture 0 is the one pass; then the classes it cannot reach */
		c->pass = i == 0;
		c->k = i ? &j->rc->sel->k[j->pass->unreached[i - 1]] : NULL;
	} else {
		c->k = j->explicit_run ? NULL : &j->rc->sel->k[i];
	}
	c->o = j->base;
	strbuf_init(&c->name, 0);
	strbuf_init(&c->out_base, 0);
	strbuf_init(&c->rel, 0);
	strbuf_init(&c->rep, 0);
	strbuf_init(&c->text, 0);
	strbuf_init(&c->why, 0);
	strbuf_addf(&c->name, "ncu-k%zu", i);
	strbuf_addf(&idx, "%zu", i);
	bundle_art_fill(&c->rel, BA_NCU_CAPTURE, idx.buf);
	bundle_path_stem(&c->rel); /* ncu -o takes the path without .ncu-rep */
	strbuf_release(&idx);
	bundle_path(&j->rc->bundle, c->rel.buf, &c->out_base);
}

static void capture_release(struct ncu_capture *c)
{
	strbuf_release(&c->name);
	strbuf_release(&c->out_base);
	strbuf_release(&c->rel);
	strbuf_release(&c->rep);
	strbuf_release(&c->text);
	strbuf_release(&c->why);
}

/* Why ncu measured nothing, with the filters that found nothing. */
static void capture_explain(struct ncu_job *j, struct ncu_capture *c, const struct strbuf *d)
{
	const struct selected_kernel *k = c->k;
	const struct ncu_options *o = &c->o;

	c->v = ncu_output_diagnose(c->text.buf, c->text.len, &c->why);
	if (c->v == NCU_RUN_NO_KERNELS && c->pass && j->pass->window)
		strbuf_addf(&c->why,
			    " (-k %s --kernel-name-base %s --launch-skip %zu --launch-count %zu)",
			    j->pass->kernel_name, j->rc->ncu_base, j->pass->skip, j->pass->count);
	else if (c->v == NCU_RUN_NO_KERNELS && c->pass)
		strbuf_addf(&c->why,
			    " (--filter-mode per-launch-config -k %s --kernel-name-base %s "
			    "--launch-skip-before-match %zu --launch-count %zu)",
			    j->pass->kernel_name, j->rc->ncu_base, j->pass->skip_before,
			    j->pass->count);
	else if (c->v == NCU_RUN_NO_KERNELS && k)
		strbuf_addf(&c->why,
			    " (-k %s --kernel-name-base %s --launch-skip %zu "
			    "--launch-count %zu)",
			    k->kernel_name, j->rc->ncu_base, k->launch_skip, k->launch_count);
	if ((c->v == NCU_RUN_NO_KERNELS || c->v == NCU_RUN_NO_RANGES) && !k && !c->pass) {
		strbuf_addstr(&c->why, " (configured filters:");
		if (o->kernel_name)
			strbuf_addf(&c->why, " --kernel-name %s", o->kernel_name);
		if (o->kernel_id)
			strbuf_addf(&c->why, " --kernel-id %s", o->kernel_id);
		if (o->launch_skip >= 0)
			strbuf_addf(&c->why, " --launch-skip %lld", o->launch_skip);
		for (size_t x = 0; x < o->nr_nvtx_include; x++)
			strbuf_addf(&c->why, " --nvtx-include %s", o->nvtx_include[x]);
		strbuf_addstr(&c->why, "; `llmprof nvtx` lists the ranges the program emits)");
	}
	/* ncu exits with the status of a program it saw end by a signal
	 * ("The application returned an error code (15)"): the end llmprof
	 * asked for is no failure */
	if (c->v == NCU_RUN_OK &&
	    (c->res.outcome != PROC_EXITED || (c->res.exit_status && !c->ended)))
		strbuf_addf(&c->why, "ncu %s", d->buf);
	if (c->v == NCU_RUN_OK && !c->why.len && !path_exists(c->rep.buf))
		strbuf_addstr(&c->why, "ncu wrote no report");
}

static void time_add(struct ncu_time *to, const struct ncu_time *t)
{
	to->results += t->results;
	to->passes += t->passes;
	if (t->passes_min && (!to->passes_min || t->passes_min < to->passes_min))
		to->passes_min = t->passes_min;
	if (t->passes_max > to->passes_max)
		to->passes_max = t->passes_max;
	to->timed += t->timed;
	to->before_s += t->before_s;
	to->profiling_s += t->profiling_s;
	to->after_s += t->after_s;
	to->wall_s += t->wall_s;
	to->ended += t->ended;
}

/* Capture c's share of ncu's time: the results and passes its console
 * printed, and, when it was followed live (j->first_ns), where the time
 * between t0 and t1 went. */
static void capture_time(struct ncu_job *j, struct ncu_capture *c, uint64_t t0, uint64_t t1)
{
	struct ncu_time *t = &c->time;
	struct ncu_progress p;

	ncu_progress_init(&p);
	ncu_progress_feed(&p, c->text.buf, c->text.len);
	ncu_progress_feed(&p, "\n", 1);
	t->results = p.done;
	t->passes = p.passes_total;
	t->passes_min = p.passes_min;
	t->passes_max = p.passes_max;
	ncu_progress_release(&p);
	t->wall_s = c->secs;
	t->ended = c->ended;
	if (j->first_ns >= t0 && j->first_ns <= t1) {
		uint64_t last = j->last_ns >= j->first_ns && j->last_ns <= t1 ? j->last_ns : t1;

		t->timed = 1;
		t->before_s = (double)(j->first_ns - t0) / 1e9;
		t->profiling_s = (double)(last - j->first_ns) / 1e9;
		t->after_s = (double)(t1 - last) / 1e9;
	}
	time_add(&j->time, t);
}

/* Runs capture c's ncu. 0 (c->why says when it measured nothing), or -1
 * with msg and *code when the step stops. */
static int capture_run(struct ncu_job *j, struct ncu_capture *c, size_t *results_before,
		       struct strbuf *msg, int *code)
{
	struct run_ctx *rc = j->rc;
	const struct pipeline_progress *pr = rc->progress;
	const struct plan_step *wl = plan_find(&rc->plan, "workload");
	const struct selected_kernel *k = c->k;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf err = STRBUF_INIT, d = STRBUF_INIT;
	struct proc_spec dspec;
	uint64_t t0;
	int ret = -1;

	if (c->pass && j->pass->window) /* ncu's global filter mode */
		ncu_options_for_kernel(&c->o, j->pass->kernel_name, rc->ncu_base,
				       (long long)j->pass->skip, (long long)j->pass->count);
	else if (c->pass)
		ncu_options_for_pass(&c->o, j->pass->kernel_name, rc->ncu_base,
				     (long long)j->pass->skip_before, (long long)j->pass->count);
	else if (k)
		ncu_options_for_kernel(&c->o, k->kernel_name, rc->ncu_base,
				       (long long)k->launch_skip, (long long)k->launch_count);
	c->o.output = c->out_base.buf;
	if (ncu_capture_argv(&c->o, &cmd, &err)) {
		*code = EXIT_CONFIG;
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	ncu_cmd_format(&cmd, &j->cmdtxt);
	strbuf_addch(&j->cmdtxt, '\n');
	/* written before each run, so a stuck ncu's argv is on disk */
	if (bundle_write(&rc->bundle, bundle_art(BA_NCU_CMD), j->cmdtxt.buf, j->cmdtxt.len, &err))
		strbuf_reset(&err);
	pr->ncu_capture_begin(pr->arg, c->i, j->nruns,
			      c->pass ? "every selected kernel, one pass"
			      : k     ? (k->short_name ? k->short_name : k->name)
				      : NULL,
			      (long long)*results_before);
	progress_restart(j, (long long)*results_before);
	*results_before += c->pass ? j->pass->nexpect : k ? k->launch_count : 0;
	/* the plan's own captures know how many results they give; the
	 * user's own filters do not */
	j->stop_at = j->stop_after_last && (c->pass || k) ? *results_before : 0;
	j->end_program = 0;
	j->first_ns = j->last_ns = 0;
	t0 = clock_mono_ns();
	if (ncu_child(j, c->name.buf, &cmd, wl ? wl->env_add : NULL, NULL, 1, &c->res, &c->text,
		      &err)) {
		*code = EXIT_IO;
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	c->ended = c->res.descendants_ended > 0;
	j->stop_at = 0;
	c->secs = (double)c->res.wall_ns / 1e9;
	j->ncu_s += c->secs;
	capture_time(j, c, t0, clock_mono_ns());
	memset(&dspec, 0, sizeof(dspec));
	dspec.timeout_s = j->timeout_s;
	proc_result_describe(&c->res, &dspec, &d);
	strbuf_addf(&c->rep, "%s.ncu-rep", c->out_base.buf);
	capture_explain(j, c, &d);
	ret = 0;
out:
	ncu_cmd_release(&cmd);
	strbuf_release(&err);
	strbuf_release(&d);
	return ret;
}

/* ncu/measured.json's record of capture c. */
static void capture_record(struct ncu_job *j, const struct ncu_capture *c)
{
	const struct selected_kernel *k = c->k;
	json_t *rec = json_object();

	if (c->pass) {
		json_object_set_new(rec, "pass", json_true());
		json_object_set_new(rec, "filter_mode",
				    json_string(j->pass->window ? "global" : "per-launch-config"));
		json_object_set_new(rec, "kernel_name", json_string_lossy(j->pass->kernel_name));
		if (j->pass->window)
			json_object_set_new(rec, "launch_skip",
					    json_integer((json_int_t)j->pass->skip));
		else
			json_object_set_new(rec, "launch_skip_before_match",
					    json_integer((json_int_t)j->pass->skip_before));
		json_object_set_new(rec, "launch_count", json_integer((json_int_t)j->pass->count));
		json_object_set_new(rec, "expected", json_integer((json_int_t)j->pass->nexpect));
	} else if (k) {
		json_object_set_new(rec, "rank", json_integer((json_int_t)(k - j->rc->sel->k) + 1));
		json_object_set_new(rec, "name", json_string_lossy(k->name));
		json_object_set_new(rec, "kernel_name", json_string_lossy(k->kernel_name));
		json_object_set_new(rec, "launch_skip", json_integer((json_int_t)k->launch_skip));
		json_object_set_new(rec, "share", json_real(k->share));
	}
	json_object_set_new(rec, "measured", json_boolean(c->ok));
	json_object_set_new(rec, "program_ended_after_last", json_boolean(c->ended));
	json_object_set_new(rec, "results", json_integer(c->rows > 0 ? c->rows : 0));
	json_object_set_new(rec, "ncu_wall_s", json_real(c->secs));
	json_object_set_new(rec, "ncu_time", ncu_time_json(&c->time));
	json_object_set_new(rec, "report",
			    json_string_lossy(c->rep.buf + strlen(j->rc->bundle.dir) + 1));
	if (!c->ok) {
		json_object_set_new(rec, "why", json_string_lossy(c->why.buf));
		if (!j->first_fail.len)
			strbuf_addstr(&j->first_fail, c->why.buf);
	}
	json_array_append_new(j->runs, rec);
}

/* After capture c, whether an interrupt stops the captures: 0 when none
 * came, 1 when one did (no capture starts after it), -1 with msg and *code
 * when nothing after can be valid. The first interrupt went to the
 * profiled program, so ncu may have written the launches it finished:
 * a report that exists is imported, also when the interrupt ended its
 * import. A second interrupt keeps nothing more: the run is aborted. */
static int capture_interrupted(struct ncu_job *j, struct ncu_capture *c, struct strbuf *msg,
			       int *code)
{
	if (!proc_pending_interrupt())
		return 0;
	if (!c->ok && proc_interrupt_count() == 1 && path_exists(c->rep.buf)) {
		strbuf_reset(&c->why);
		if (ncu_import_capture(j, c, msg, code))
			return -1;
	}
	if (!c->ok && !c->why.len)
		strbuf_addf(&c->why, "interrupted by %s",
			    proc_signal_name(proc_pending_interrupt()));
	return 1;
}

int ncu_job_run(struct ncu_job *j, struct strbuf *msg, int *code)
{
	const struct pipeline_progress *pr = j->rc->progress;
	size_t results_before = 0;

	for (size_t i = 0; i < j->nruns; i++) {
		struct ncu_capture c;
		int stop = 0, intr = 0;

		if (proc_pending_interrupt()) /* came between captures: none starts */
			return proc_interrupt_count() > 1 ? -1 : 1;
		capture_init(&c, j, i);
		if (capture_run(j, &c, &results_before, msg, code) ||
		    (!c.why.len && ncu_import_capture(j, &c, msg, code)) ||
		    (intr = capture_interrupted(j, &c, msg, code)) < 0) {
			capture_release(&c);
			return -1;
		}
		j->measured += c.ok;
		pr->ncu_capture_end(pr->arg, i, j->nruns, c.ok, c.secs, c.ok ? NULL : c.why.buf,
				    j->explicit_run);
		capture_record(j, &c);
		if (c.v == NCU_RUN_PERM) {
			/* every later run would fail the same way */
			strbuf_addstr(msg, c.why.buf);
			stop = -1;
		} else if (intr) {
			stop = proc_interrupt_count() > 1 ? -1 : 1;
			if (stop < 0)
				strbuf_addf(msg, "interrupted by %s twice: stopped at once",
					    proc_signal_name(proc_pending_interrupt()));
		}
		capture_release(&c);
		if (stop)
			return stop;
	}
	return 0;
}

/* The message of a step an interrupt stopped: how many of the captures
 * measured, and what ncu/raw.csv holds. */
/* With the one pass, the selected kernels (classes) whose own launch a
 * result measured: one ncu run holds them all, so runs do not count them. */
static size_t classes_measured(const struct ncu_job *j)
{
	size_t n = 0, i;
	json_t *r;

	for (size_t k = 0; k < j->rc->sel->nr; k++)
		json_array_foreach(j->results, i, r)
		{
			json_t *li = json_object_get(r, "launch_index");

			if (json_is_integer(li) &&
			    (size_t)json_integer_value(li) == j->rc->sel->k[k].launch_index) {
				n++;
				break;
			}
		}
	return n;
}

static void interrupted_msg(struct ncu_job *j, struct strbuf *msg)
{
	size_t done = j->pass ? classes_measured(j) : j->measured;
	size_t of = j->pass ? j->rc->sel->nr : j->nruns;

	strbuf_reset(msg);
	strbuf_addf(msg, "interrupted by %s after %zu of %zu %s measured",
		    proc_signal_name(proc_pending_interrupt()), done, of,
		    j->explicit_run ? "configured runs" : "selected kernels");
	if (j->measured)
		strbuf_addf(msg, " (%zu ncu result%s, %.1f s of ncu)", j->merge.nrows,
			    j->merge.nrows == 1 ? "" : "s", j->ncu_s);
}

/* The ncu step: plan, captures (each imported), then ncu/raw.csv and
 * ncu/measured.json. */
void step_ncu(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	struct ncu_job j;
	enum step_state state;

	(void)s;
	(void)i;
	ncu_job_init(&j, rc);
	state = ncu_job_plan(&j, &res->msg, &res->code);
	if (state == STEP_RUNNING) {
		int ran = ncu_job_run(&j, &res->msg, &res->code);

		state = STEP_FAILED;
		if (ran >= 0 && !ncu_job_finish(&j, &res->msg, &res->code, &state) && ran) {
			/* what it measured is in ncu/raw.csv: join and reports
			 * still run on it (run.c) */
			state = STEP_INTERRUPTED;
			res->keeps_work = 1;
			interrupted_msg(&j, &res->msg);
			strbuf_addf(&res->error,
				    "ncu: %s; join and reports still run on what was measured "
				    "(interrupt again to stop at once)",
				    res->msg.buf);
		}
		if (ran < 0 && proc_pending_interrupt())
			state = STEP_INTERRUPTED;
	}
	ncu_job_write_measured(&j, state);
	ncu_job_release(&j);
	res->state = state;
}
