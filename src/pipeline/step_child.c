/* step_child.c: the steps that run a child (the workload, nsys export and
 * stats): its argv and environment recorded under logs/, its output to
 * logs/<name>.{out,err}, the run's deadline as its timeout, and what its
 * end means for the run. Prints nothing (progress.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "pipeline/nsys_check.h"
#include "pipeline/steps.h"
#include "core/banned.h"

static int write_step_logs(const struct run_bundle *b, const struct plan_step *s,
			   struct strbuf *err)
{
	struct strbuf rel = STRBUF_INIT;
	int ret;

	bundle_art_fill(&rel, BA_LOG_ARGV, s->name);
	ret = proc_write_argv(&b->bd, rel.buf, (const char *const *)s->argv, err);
	if (!ret) {
		strbuf_reset(&rel);
		bundle_art_fill(&rel, BA_LOG_ENV, s->name);
		ret = proc_write_argv(&b->bd, rel.buf, (const char *const *)s->env_add, err);
	}
	strbuf_release(&rel);
	return ret;
}

static enum step_state child_state(const struct proc_result *res)
{
	switch (res->outcome) {
	case PROC_EXITED:
		return res->exit_status ? STEP_FAILED : STEP_OK;
	case PROC_TIMEOUT:
		return STEP_TIMEOUT;
	case PROC_INTERRUPTED:
		return STEP_INTERRUPTED;
	default:
		return STEP_FAILED;
	}
}

/* How a failed child decides the run: the error line, the log tail of a
 * failed workload, and the exit code. */
static void child_failed(struct run_ctx *rc, const struct plan_step *s,
			 const struct proc_result *pres, int tool_fault, struct step_result *res)
{

	strbuf_addf(&res->error, "%s: %s (logs: %s/logs/%s.{out,err})", s->name, res->msg.buf,
		    rc->bundle.dir, s->name);
	if (s->kind == STEP_KIND_WORKLOAD && !rc->opts.echo && res->state != STEP_INTERRUPTED &&
	    pres->outcome != PROC_EXEC_FAILED) {
		bundle_path(&rc->bundle, s->err_log, &res->tail_err);
		bundle_path(&rc->bundle, s->out_log, &res->tail_out);
	}
	if (!s->optional || res->state == STEP_TIMEOUT || res->state == STEP_INTERRUPTED) {
		res->fails_run = 1;
		res->code = s->kind == STEP_KIND_WORKLOAD && !tool_fault ? EXIT_WORKLOAD_FAILED
									 : EXIT_STEP_FAILED;
	}
}

/* Runs the child of step s; what it checks after depends on the step. */
enum child_check { CHECK_NONE, CHECK_NSYS_PROFILE, CHECK_NSYS_EXPORT, CHECK_NSYS_STATS };

static void run_child(struct run_ctx *rc, const struct plan_step *s, enum child_check check,
		      double cap_s, struct step_result *res)
{
	const struct pipeline_progress *pr = rc->progress;
	const struct run_bundle *b = &rc->bundle;
	struct strbuf out = STRBUF_INIT, errp = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_spec spec = {.argv = (const char *const *)s->argv,
				 .env_add = (const char *const *)s->env_add};
	struct proc_result pres;
	char *tool = NULL;
	int tool_fault = 0;

	if (write_step_logs(b, s, &err))
		goto io_error;
	bundle_path(b, s->out_log, &out);
	bundle_path(b, s->err_log, &errp);
	spec.out.path = s->out_log;
	spec.err.path = s->err_log;
	spec.out.dir = spec.err.dir = &b->bd;
	spec.out.echo = spec.err.echo = rc->opts.echo;
	/* the child runs in its own process group: reading a terminal would
	 * stop it with SIGTTIN, so it only inherits a stdin that is not one */
	spec.stdin_null = isatty(0);
	/* the program's orphans are ended with it; under nsys also nsys's agent
	 * (a daemon in a session of its own), not counted as the program's */
	spec.subreaper = s->kind == STEP_KIND_WORKLOAD;
	if (check == CHECK_NSYS_PROFILE && (tool = realpath(s->argv[0], NULL))) {
		*strrchr(tool, '/') = '\0';
		spec.helpers_dir = tool;
	}
	if (rc->deadline_ns) {
		uint64_t now = clock_mono_ns();
		spec.timeout_s =
		    now < rc->deadline_ns ? (double)(rc->deadline_ns - now) / 1e9 : 1e-3;
	}
	if (cap_s > 0 && (!spec.timeout_s || cap_s < spec.timeout_s))
		spec.timeout_s = cap_s;
	pr->child_begin(pr->arg, s->name, &spec, out.buf, errp.buf,
			s->kind == STEP_KIND_WORKLOAD && rc->params.pp.trace == PLAN_TRACE_BUILTIN
			    ? rc->params.trace_log.buf
			    : NULL,
			NULL);
	if (proc_run(&spec, &pres, &err)) {
		pr->child_end(pr->arg);
		goto io_error;
	}
	pr->child_end(pr->arg);
	if (pres.outcome == PROC_TIMEOUT && !(cap_s > 0 && spec.timeout_s == cap_s))
		spec.timeout_s = rc->timeout_s; /* describe the configured limit */
	proc_result_describe(&pres, &spec, &res->msg);
	if (pres.leftovers)
		strbuf_addf(&res->msg, "; %d process%s it left running ended by %s", pres.leftovers,
			    pres.leftovers == 1 ? "" : "es",
			    proc_signal_name(pres.leftovers_signal));
	if (pres.log_errno) {
		strbuf_addf(&res->msg, "; its log is incomplete: %s", strerror(pres.log_errno));
		if (rc->outcome.code == EXIT_OK)
			rc->outcome.code = EXIT_IO; /* a bundle file could not be written */
	}
	res->state = child_state(&pres);
	res->wall_ns = pres.wall_ns;
	if (check == CHECK_NSYS_PROFILE && res->state != STEP_INTERRUPTED)
		nsys_check_profile(b, s, &pres, &res->state, &tool_fault, &res->msg);
	else if (check != CHECK_NONE && res->state != STEP_INTERRUPTED)
		nsys_check_step(b, s, res->state, check == CHECK_NSYS_STATS, &res->msg);
	/* an exec failure's 127 is our own child's, not the program's */
	res->exit_status = pres.outcome == PROC_EXEC_FAILED ? -1 : pres.exit_status;
	res->signal = pres.signal;
	if (res->state != STEP_OK)
		child_failed(rc, s, &pres, tool_fault, res);
	goto out;
io_error:
	strbuf_addstr(&res->error, err.buf);
	strbuf_addstr(&res->msg, err.buf);
	res->state = STEP_FAILED;
	res->fails_run = 1;
	res->code = EXIT_IO;
out:
	free(tool);
	strbuf_release(&out);
	strbuf_release(&errp);
	strbuf_release(&err);
}

void step_workload(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	(void)i;
	run_child(rc, s, rc->params.pp.trace == PLAN_TRACE_NSYS ? CHECK_NSYS_PROFILE : CHECK_NONE,
		  0, res);
	rc->workload_wall_ns = res->state == STEP_OK ? res->wall_ns : 0;
}

/* reference.json: both wall times and their ratio. */
static int write_reference(struct run_ctx *rc, double traced_s, double untraced_s,
			   struct strbuf *err)
{
	json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:s}", "traced_wall_s", traced_s,
			      "untraced_wall_s", untraced_s, "ratio", traced_s / untraced_s,
			      "max_s", rc->params.pp.reference_max_s, "timed",
			      "each run's wall time, from fork to reaping, by llmprof");
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	int ret;

	if (!text)
		BUG("cannot build %s", bundle_art(BA_REFERENCE));
	ret = bundle_write(&rc->bundle, bundle_art(BA_REFERENCE), text, strlen(text), err);
	free(text);
	json_decref(j);
	return ret;
}

/* The program again, untraced, after a traced run of at most
 * pipeline.trace.reference_run_max_s (docs/tracer.md "What tracing
 * costs"). Its limit is three times the traced run and 30 s more, within
 * the run's own; a failure, or a run past that limit, costs the run only
 * the ratio (a warning). */
void step_reference(struct run_ctx *rc, const struct plan_step *s, size_t i,
		    struct step_result *res)
{
	double max_s = rc->params.pp.reference_max_s, traced = (double)rc->workload_wall_ns / 1e9;
	struct strbuf err = STRBUF_INIT;

	(void)i;
	if (!rc->workload_wall_ns || traced > max_s) {
		res->state = STEP_SKIPPED;
		if (!rc->workload_wall_ns)
			strbuf_addstr(&res->msg, "the traced run's wall time is unknown: no ratio");
		else
			strbuf_addf(&res->msg,
				    "the traced run took %.1f s, more than "
				    "pipeline.trace.reference_run_max_s = %g s",
				    traced, max_s);
		return;
	}
	run_child(rc, s, CHECK_NONE, 3 * traced + 30, res);
	if (res->state == STEP_INTERRUPTED)
		return;
	if (res->state != STEP_OK || !res->wall_ns) {
		run_warning(
		    rc, "no tracing-cost ratio: the untraced run: %s (logs: %s/logs/%s.{out,err})",
		    res->msg.buf, rc->bundle.dir, s->name);
		strbuf_reset(&res->error);
		res->fails_run = 0;
		return;
	}
	if (write_reference(rc, traced, (double)res->wall_ns / 1e9, &err)) {
		res->state = STEP_FAILED;
		strbuf_reset(&res->msg);
		strbuf_addstr(&res->msg, err.buf);
		strbuf_addstr(&res->error, err.buf);
		res->fails_run = 1;
		res->code = EXIT_IO;
	} else {
		strbuf_reset(&res->msg);
		strbuf_addf(&res->msg, "untraced %.3f s, traced %.3f s: traced/untraced %.3f",
			    (double)res->wall_ns / 1e9, traced,
			    traced / ((double)res->wall_ns / 1e9));
	}
	strbuf_release(&err);
}

/* nsys export/stats read what the step before wrote: without it they are
 * skipped, saying why. */
static int nsys_input_missing(struct run_ctx *rc, enum bundle_art input, const char *why,
			      struct step_result *res)
{
	struct strbuf path = STRBUF_INIT;
	int missing;

	bundle_path(&rc->bundle, bundle_art(input), &path);
	missing = !path_exists(path.buf);
	if (missing) {
		res->state = STEP_SKIPPED;
		strbuf_addf(&res->msg, "no %s: %s", bundle_art(input), why);
	}
	strbuf_release(&path);
	return missing;
}

void step_nsys_export(struct run_ctx *rc, const struct plan_step *s, size_t i,
		      struct step_result *res)
{
	(void)i;
	if (!nsys_input_missing(rc, BA_NSYS_REP, "nsys profile wrote none", res))
		run_child(rc, s, CHECK_NSYS_EXPORT, 0, res);
}

void step_nsys_stats(struct run_ctx *rc, const struct plan_step *s, size_t i,
		     struct step_result *res)
{
	(void)i;
	if (!nsys_input_missing(rc, BA_NSYS_SQLITE, "the export did not run", res))
		run_child(rc, s, CHECK_NSYS_STATS, 0, res);
}
