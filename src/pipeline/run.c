/* run.c: struct run_ctx from the config to the finished status.json, and
 * the one loop that runs the plan's steps through the step table
 * (steps.c). Owned by the pipeline layer; prints nothing (progress.h). */
#include <jansson.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/analytic_cfg.h"
#include "analysis/model_build.h"
#include "analysis/select_pass.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/model_json.h"
#include "pipeline/params.h"
#include "pipeline/pytorch.h"
#include "pipeline/run.h"
#include "pipeline/steps.h"
#include "version.h"
#include "core/banned.h"

void run_ctx_init(struct run_ctx *rc, const struct run_opts *opts,
		  const struct pipeline_progress *progress)
{
	memset(rc, 0, sizeof(*rc));
	rc->opts = *opts;
	rc->progress = progress;
	strbuf_init(&rc->gpus.note, 0);
	rc->plan = (struct plan)PLAN_INIT;
	rc->bundle = (struct run_bundle)RUN_BUNDLE_INIT;
	rc->outcome = (struct run_outcome){RUN_OK, EXIT_OK, 0, NULL, 0};
	rc->analyze_state = STEP_SKIPPED;
}

void run_ctx_release(struct run_ctx *rc)
{
	if (rc->have_status)
		run_status_release(&rc->status);
	if (rc->have_params)
		run_params_release(&rc->params);
	report_analysis_free(rc->analysis);
	if (rc->pass) {
		select_pass_release(rc->pass);
		free(rc->pass);
	}
	if (rc->sel) {
		selection_release(rc->sel);
		free(rc->sel);
	}
	if (rc->model) {
		report_model_release(rc->model);
		free(rc->model);
	}
	if (rc->model_res) {
		report_build_result_release(rc->model_res);
		free(rc->model_res);
	}
	plan_release(&rc->plan);
	free(rc->model_json);
	hf_model_overrides_free(rc->model_json_ov);
	gpu_probe_release(&rc->gpus);
	bundle_release(&rc->bundle);
	if (rc->cfg)
		config_free(rc->cfg);
	memset(rc, 0, sizeof(*rc));
}

int run_config_load(struct run_ctx *rc, const char *conf_dir, size_t n, const char *const *ov,
		    struct strbuf *err)
{
	if (rc->cfg)
		config_free(rc->cfg);
	rc->cfg = NULL;
	rc->conf_dir = conf_dir;
	rc->n_overrides = n;
	if (config_load(&rc->cfg, conf_dir, n, ov, err))
		return -1;
	rc->timeout_s = config_typed(rc->cfg)->run.timeout_s;
	return 0;
}

size_t run_config_auto(struct run_ctx *rc, const char **ov, size_t *n)
{
	const struct llmprof_config *c = config_typed(rc->cfg);
	size_t before = *n;

	gpu_probe_release(&rc->gpus);
	gpu_probe_run(&rc->gpus);
	if (c->workload.kind != WORKLOAD_KIND_LLM && c->workload.kind != WORKLOAD_KIND_DUMMY)
		return 0;
	if (!strcmp(c->model.name, "auto"))
		ov[(*n)++] = rc->gpus.nr ? "model.name=llama-3.2-1b" : "model=tiny";
	if (!rc->gpus.nr && strcmp(c->device, "cpu"))
		ov[(*n)++] = "device=cpu";
	return *n - before;
}

/* The tracer's environment and the plan, for the bundle's folder. */
static int plan_for_bundle(struct run_ctx *rc, struct strbuf *err)
{
	rc->params.pp.run_dir = rc->bundle.dir;
	run_tracer_setup(&rc->params, rc->bundle.dir);
	return run_build_plan(rc, err);
}

int run_plan(struct run_ctx *rc, const char *root, struct strbuf *err, int *code)
{
	if (rc->opts.bundle_name)
		bundle_fix(&rc->bundle, root, rc->opts.bundle_name);
	else if (rc->opts.dry_run)
		bundle_stand_in(&rc->bundle, root);
	else
		bundle_choose(&rc->bundle, root);
	run_params_init(&rc->params, rc, rc->bundle.dir);
	rc->have_params = 1;
	rc->params.pp.dry_run = rc->opts.dry_run;
	if (run_choose_backend(rc, err, code))
		return -1;
	run_pytorch_choose(rc);
	if (plan_for_bundle(rc, err)) {
		*code = EXIT_CONFIG;
		return -1;
	}
	return 0;
}

/* status.json, unless the run directory was replaced by a symlink (then
 * writing would land outside it). */
static int status_write_checked(struct run_ctx *rc, struct strbuf *err)
{
	if (bundle_check_dirs(&rc->bundle, err) == -2)
		return -1;
	strbuf_reset(err);
	return run_status_write(&rc->status, &rc->bundle.bd, err);
}

void run_write_status(struct run_ctx *rc)
{
	struct strbuf err = STRBUF_INIT;

	if (status_write_checked(rc, &err))
		rc->progress->error(rc->progress->arg, err.buf);
	strbuf_release(&err);
}

/* run_write_status, saying whether it worked. */
static int write_status(struct run_ctx *rc)
{
	struct strbuf err = STRBUF_INIT;
	int ret = status_write_checked(rc, &err);

	if (ret)
		rc->progress->error(rc->progress->arg, err.buf);
	strbuf_release(&err);
	return ret;
}

int run_open_bundle(struct run_ctx *rc, struct strbuf *err, int *code)
{
	size_t at = err->len;
	int ret;

	while ((ret = bundle_make(&rc->bundle, err)) > 0) {
		/* another run took the drawn id after run_plan(): a new id, and
		 * the plan made again for its folder (the argv name it) */
		char *root = xstrdup(rc->bundle.root);

		strbuf_setlen(err, at);
		bundle_choose(&rc->bundle, root);
		free(root);
		plan_release(&rc->plan);
		if (plan_for_bundle(rc, err))
			BUG("plan changed between checks: %s", err->buf);
	}
	if (ret) {
		/* a fixed folder taken by another process is the caller's
		 * mistake (the same rank twice), not a disk's */
		*code = rc->bundle.fixed && path_exists(rc->bundle.dir) ? EXIT_USAGE : EXIT_IO;
		return -1;
	}
	run_status_init(&rc->status, rc->bundle.run_id, LLMPROF_VERSION " (" LLMPROF_GIT_COMMIT ")",
			bundle_art(BA_STATUS));
	rc->have_status = 1;
	for (size_t i = 0; i < rc->plan.nr; i++)
		run_status_add(&rc->status, rc->plan.steps[i].name);
	if (write_status(rc)) {
		*code = EXIT_IO;
		return 1;
	}
	return 0;
}

void run_outcome_fail(struct run_outcome *oc, enum step_state state, int code)
{
	if (oc->failed)
		return;
	oc->failed = 1;
	if (state == STEP_TIMEOUT) {
		oc->state = RUN_TIMEOUT;
		oc->code = EXIT_TIMEOUT;
		oc->why = "not run: run.timeout_s exceeded";
	} else if (state == STEP_INTERRUPTED) {
		oc->state = RUN_INTERRUPTED;
		oc->code = EXIT_INTERRUPTED;
		oc->why = "not run: llmprof was interrupted";
	} else {
		oc->state = RUN_FAILED;
		oc->code = code;
		oc->why = "not run: an earlier step failed";
	}
}

static int make_dirs(const struct run_bundle *b, const struct plan *plan, struct strbuf *err)
{
	if (plan_find(plan, "nsys-export") &&
	    bundle_dir_mkdir(&b->bd, bundle_art(BA_NSYS_DIR), err))
		return -1;
	if (bundle_dir_mkdir(&b->bd, bundle_art(BA_WORKLOAD_DIR), err))
		return -1;
	if (plan_find(plan, "trace") &&
	    (bundle_dir_mkdir(&b->bd, bundle_art(BA_TRACE_DIR), err) ||
	     bundle_dir_mkdir(&b->bd, bundle_art(BA_TRACE_LOG_DIR), err)))
		return -1;
	return 0;
}

/* nsys/cmd.txt: every nsys command of the run, shell-quoted, one a line. */
static int write_nsys_cmd(const struct run_bundle *b, const struct plan *plan, struct strbuf *err)
{
	static const char *const names[] = {"workload", "nsys-export", "nsys-stats"};
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct plan_step *s = plan_find(plan, names[i]);

		for (char **a = s ? s->argv : NULL; a && *a; a++) {
			if (a != s->argv)
				strbuf_addch(&sb, ' ');
			proc_quote_shell(&sb, *a);
		}
		strbuf_addch(&sb, '\n');
	}
	ret = bundle_write(b, bundle_art(BA_NSYS_CMD), sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}

/* rank.json of a --rank-dir bundle: who this rank is, for llmprof merge
 * (the world size tells it which ranks are missing). */
static int write_rank_json(struct run_ctx *rc, struct strbuf *err)
{
	const struct run_opts *o = &rc->opts;
	char host[256] = "";
	json_t *j;
	char *text;
	int ret;

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	j = json_pack("{s:i, s:i, s:i, s:s, s:s, s:s}", "rank", (int)o->rank, "world_size",
		      (int)o->world_size, "local_rank", (int)o->local_rank, "launcher",
		      o->launcher ? o->launcher : "none", "source",
		      o->rank_source ? o->rank_source : "pid", "host", host);
	text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	if (!text)
		BUG("cannot build %s", bundle_art(BA_RANK));
	ret = bundle_write(&rc->bundle, bundle_art(BA_RANK), text, strlen(text), err);
	free(text);
	json_decref(j);
	return ret;
}

/* Before the steps: <root>/latest, the bundle's folders, and for an
 * external program profiled with a model preset the analytic FLOPs/bytes
 * from the preset and infer.* (analysis/analytic_cfg.h). 0, or -1 when
 * the bundle cannot be written. */
static int prepare_bundle(struct run_ctx *rc)
{
	struct strbuf err = STRBUF_INIT, ap = STRBUF_INIT;
	int ret = 0;

	if (bundle_update_latest(&rc->bundle, &err)) {
		run_warning(rc, "%s", err.buf); /* the bundle is fine without it */
		strbuf_reset(&err);
	}
	if (make_dirs(&rc->bundle, &rc->plan, &err) ||
	    (rc->opts.bundle_name && write_rank_json(rc, &err)) ||
	    (plan_find(&rc->plan, "nsys-export") && write_nsys_cmd(&rc->bundle, &rc->plan, &err))) {
		run_error(rc, "%s", err.buf);
		run_outcome_fail(&rc->outcome, STEP_FAILED, EXIT_IO);
		rc->outcome.why = "not run: cannot write the bundle";
		ret = -1;
	} else if (analytic_cfg_applies(rc->cfg)) {
		if (analytic_cfg_json(rc->cfg, &ap, &err) ||
		    bundle_write(&rc->bundle, bundle_art(BA_ANALYTIC), ap.buf, ap.len, &err))
			run_warning(rc, "no analytic FLOPs/bytes for MFU/MBU: %s", err.buf);
	}
	strbuf_release(&err);
	strbuf_release(&ap);
	return ret;
}

/* A step that does not run: after a failure only the steps that keep what
 * exists run, and past the deadline only the quick in-process ones; the
 * others are marked skipped now, so the reports see the final states.
 * Also a step the plan skips. 1 when step i was skipped. */
static int skip_step(struct run_ctx *rc, const struct plan_step *s, size_t i)
{
	const struct run_outcome *oc = &rc->outcome;

	if (oc->failed && !oc->goes_on &&
	    (!s->after_failure || (oc->state == RUN_TIMEOUT && s->kind != STEP_KIND_INTERNAL))) {
		run_status_end(&rc->status, i, STEP_SKIPPED, -1, 0, oc->why);
		run_write_status(rc);
		return 1;
	}
	if (s->skip_reason) {
		run_status_start(&rc->status, i);
		run_status_end(&rc->status, i, STEP_SKIPPED, -1, 0, s->skip_reason);
		run_write_status(rc);
		return 1;
	}
	return 0;
}

/* The program (or what it left running) may have replaced a folder of the
 * bundle by a symlink: checked before every step, so nothing is written
 * through one: step i fails. -1 when a folder was replaced (step i failed),
 * -2 when the run directory itself was (then nothing more is written). */
static int bundle_still_ours(struct run_ctx *rc, size_t i)
{
	struct strbuf err = STRBUF_INIT;
	int ret = bundle_check_dirs(&rc->bundle, &err);

	if (ret)
		rc->progress->error(rc->progress->arg, err.buf);
	if (ret == -1) {
		run_status_start(&rc->status, i);
		run_status_end(&rc->status, i, STEP_FAILED, -1, 0, err.buf);
		run_write_status(rc);
	}
	if (ret)
		run_outcome_fail(&rc->outcome, STEP_FAILED, EXIT_IO);
	strbuf_release(&err);
	return ret;
}

/* A step interrupted once that kept what it had done (the ncu step: ncu
 * wrote the launches it finished) lets the later steps, join and reports,
 * make reports of it: the run is interrupted (exit 130, and status.json
 * says so from the next write on), but goes on, and the next interrupt
 * ends llmprof at once, leaving every file whole (proc.h). */
static void go_on_interrupted(struct run_ctx *rc)
{
	run_outcome_fail(&rc->outcome, STEP_INTERRUPTED, EXIT_INTERRUPTED);
	rc->outcome.goes_on = 1;
	rc->status.state = RUN_INTERRUPTED;
	rc->status.exit_code = EXIT_INTERRUPTED;
	proc_exit_on_interrupt(EXIT_INTERRUPTED);
}

/* Whether the steps go on after an interrupt: only after one that kept
 * its work, and never after a second interrupt. */
static int going_on(const struct run_outcome *oc)
{
	return oc->goes_on && proc_interrupt_count() < 2;
}

static void run_step(struct run_ctx *rc, const struct plan_step *s, size_t i)
{
	const struct pipeline_step *t = pipeline_step_find(s->name);
	const struct pipeline_progress *pr = rc->progress;
	struct step_result res = {STEP_FAILED, -1,	    0, STRBUF_INIT, STRBUF_INIT,
				  STRBUF_INIT, STRBUF_INIT, 0, 0,	    0};

	if (!t)
		BUG("no step called '%s' in the step table", s->name);
	res.code = EXIT_STEP_FAILED;
	run_status_start(&rc->status, i);
	run_write_status(rc);
	t->run(rc, s, i, &res);
	run_status_end(&rc->status, i, res.state, res.exit_status, res.signal, res.msg.buf);
	run_write_status(rc);
	if (t->kind == STEP_KIND_INTERNAL && res.state == STEP_FAILED) {
		strbuf_addf(&res.error, "%s: %s", s->name, res.msg.buf);
		res.fails_run = 1;
	}
	if (res.error.len)
		pr->error(pr->arg, res.error.buf);
	if (res.tail_err.len)
		pr->log_tail(pr->arg, res.tail_err.buf, res.tail_out.buf);
	if (res.fails_run)
		run_outcome_fail(&rc->outcome, res.state, res.code);
	else if (res.state == STEP_INTERRUPTED && res.keeps_work && proc_interrupt_count() == 1)
		go_on_interrupted(rc);
	strbuf_release(&res.msg);
	strbuf_release(&res.error);
	strbuf_release(&res.tail_err);
	strbuf_release(&res.tail_out);
}

/* Removes the temporary files ("NAME.tmp.XXXXXX") under the folder dirfd
 * (any descriptor of it): those of the writes the step that ran out of memory left
 * half done. Symlinks are never followed. */
static void remove_temps_at(int dirfd, int depth)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR && depth < 8) {
			int sub =
			    openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0) {
				remove_temps_at(sub, depth + 1);
				close(sub);
			}
		} else if (e->d_type == DT_REG && strstr(e->d_name, ".tmp.")) {
			unlinkat(fd, e->d_name, 0);
		}
	}
	closedir(d);
}

/* Out of memory (xalloc.h): status.json says the run failed, in which step
 * and why, before llmprof exits 70; it would say "running" for ever. */
static void on_oom(void *arg, size_t size)
{
	struct run_ctx *rc = arg;
	char why[96];
	int root = bundle_dir_open_dir(&rc->bundle.bd, "", NULL);

	snprintf(why, sizeof(why), "out of memory (allocating %zu bytes)", size);
	for (size_t i = 0; i < rc->status.nr; i++)
		if (rc->status.steps[i].state == STEP_RUNNING)
			run_status_end(&rc->status, i, STEP_FAILED, -1, 0, why);
	run_status_finish(&rc->status, RUN_FAILED, EXIT_INTERNAL, why);
	if (root >= 0) {
		remove_temps_at(root, 0);
		close(root);
	}
	write_status(rc);
}

static int run_steps(struct run_ctx *rc);

int pipeline_run(struct run_ctx *rc)
{
	int code;

	xalloc_set_oom_hook(on_oom, rc);
	code = run_steps(rc);
	xalloc_set_oom_hook(NULL, NULL);
	return code;
}

static int run_steps(struct run_ctx *rc)
{
	const struct pipeline_progress *pr = rc->progress;
	struct run_outcome *oc = &rc->outcome;

	if (prepare_bundle(rc))
		goto finish;
	if (rc->timeout_s > 0)
		rc->deadline_ns = clock_mono_ns() + (uint64_t)(rc->timeout_s * 1e9);
	for (size_t i = 0; i < rc->plan.nr; pr->step_end(pr->arg, &rc->status, i++)) {
		const struct plan_step *s = &rc->plan.steps[i];

		if (proc_pending_interrupt() && !going_on(oc)) {
			run_outcome_fail(oc, STEP_INTERRUPTED, EXIT_INTERRUPTED);
			break;
		}
		pr->step_begin(pr->arg, i, rc->plan.nr, s->name);
		if (oc->state == RUN_INTERRUPTED && !going_on(oc))
			break;
		if (!skip_step(rc, s, i)) {
			int lost = bundle_still_ours(rc, i);

			if (lost == -2)
				return oc->code;
			if (!lost)
				run_step(rc, s, i);
		}
	}
	if (oc->state == RUN_OK && proc_pending_interrupt())
		run_outcome_fail(oc, STEP_INTERRUPTED, EXIT_INTERRUPTED);
finish:
	run_status_finish(&rc->status, oc->state, oc->code, oc->why);
	/* a stale status.json ("running") must not come with exit 0 */
	if (write_status(rc) && oc->code == EXIT_OK)
		oc->code = EXIT_IO;
	return oc->code;
}

void pipeline_end_code(struct run_ctx *rc, int code)
{
	if (code == rc->status.exit_code || rc->status.exit_code < 0)
		return;
	rc->status.exit_code = code;
	run_write_status(rc);
}
