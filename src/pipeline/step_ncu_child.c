/* step_ncu_child.c: one ncu child of the ncu step (ncu.h: ncu_child), for
 * every part of it that runs ncu (the probes of step_ncu_plan.c, the
 * captures of step_ncu_run.c, the imports of step_ncu_import.c and
 * step_ncu_names.c): its environment (the workload's, without the builtin
 * tracer: CUPTI takes one subscriber), its logs under logs/, and, for a
 * capture, ncu's console parsed as the step's progress
 * (nsight/ncu_progress.h) with each result's seconds (j->result_times)
 * and, once it holds every result the capture is to give, the profiled
 * program ended (j->stop_at). Calls nothing else of the step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/ncu.h"
#include "core/banned.h"

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* The one pass filters on mangled names, and ncu prints what it filters on
 * (cut to "..." when long): show the kernel's short name instead. */
static void progress_name(const struct ncu_job *j, struct ncu_progress *p)
{
	size_t n = strlen(p->name);

	if (!j->pass || !n)
		return;
	if (n > 3 && !strcmp(p->name + n - 3, "..."))
		n -= 3;
	for (size_t e = 0; e < j->pass->nexpect; e++) {
		const struct select_expect *x = &j->pass->expect[e];

		if (x->display && !strncmp(x->name, p->name, n) && (x->name[n] == '\0' || n > 40)) {
			snprintf(p->name, sizeof(p->name), "%s", x->display);
			return;
		}
	}
}

/* Every result the capture is to give is in, and ncu profiles one
 * process: what the program does next is not measured, so it can end now
 * (ncu then writes its report at once). Never with two or more processes:
 * ending one rank would leave the others waiting in a collective. ncu
 * cannot tell a rank from a helper process (torch.compile's compile
 * worker connects too: docs/validation/ncu-graphs-h200.md), so any second
 * process keeps the program running to its end. */
static void stop_due(struct ncu_job *j)
{
	const struct ncu_progress *o = &j->progress[0], *e = &j->progress[1];
	long long done = o->done > e->done ? o->done : e->done; /* ncu's lines: one stream */

	if (j->stop_at && !j->end_program && o->connected + e->connected == 1 && done >= 0 &&
	    (size_t)done >= j->stop_at)
		j->end_program = 1;
}

/* n results finished at now: what each took since the one before (the
 * capture's first: since its line appeared), named as the display has it;
 * when one chunk finished several, the time is theirs together, on the last. */
static void result_times(struct ncu_job *j, const struct ncu_progress *p, long long n, uint64_t now)
{
	uint64_t from = j->last_ns ? j->last_ns : j->first_ns;
	double s = now > from ? (double)(now - from) / 1e9 : 0;

	for (long long i = 0; i < n; i++) {
		json_t *r = json_object();
		int last = i == n - 1;

		json_object_set_new(r, "name", json_string_lossy(last ? p->name : ""));
		json_object_set_new(r, "s", json_real(last ? s : 0));
		json_object_set_new(r, "passes", json_integer(p->passes));
		json_array_append_new(j->result_times, r);
	}
	if (s > j->slowest_s) {
		j->slowest_s = s;
		snprintf(j->slowest_name, sizeof(j->slowest_name), "%s", p->name);
	}
}

static void progress_feed(struct ncu_job *j, size_t stream, const char *buf, size_t len)
{
	const struct pipeline_progress *pr = j->rc->progress;
	long long done = j->progress[stream].done;

	if (ncu_progress_feed(&j->progress[stream], buf, len)) {
		uint64_t now = clock_mono_ns();

		progress_name(j, &j->progress[stream]);
		/* ncu prints a result's line as it starts profiling it */
		if (!j->first_ns &&
		    (j->progress[stream].in_progress || j->progress[stream].done > done))
			j->first_ns = now;
		if (j->progress[stream].done > done) {
			result_times(j, &j->progress[stream], j->progress[stream].done - done, now);
			j->last_ns = now;
		}
		pr->ncu_capture_progress(pr->arg, &j->progress[stream], j->expected, j->start_ns);
		stop_due(j);
	}
}

static void progress_out(void *arg, const char *buf, size_t len)
{
	progress_feed(arg, 0, buf, len);
}

static void progress_err(void *arg, const char *buf, size_t len)
{
	progress_feed(arg, 1, buf, len);
}

int ncu_child(struct ncu_job *j, const char *name, const struct ncu_cmd *cmd, char *const *wl_env,
	      const char *out_rel, int live, struct proc_result *res, struct strbuf *text,
	      struct strbuf *err)
{
	static const char *const unset[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
					    "LLMPROF_TRACE_OUT", NULL};
	const struct run_bundle *b = &j->rc->bundle;
	const struct pipeline_progress *pr = j->rc->progress;
	int echo = j->rc->opts.echo;
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT, orel = STRBUF_INIT, erel = STRBUF_INIT;
	struct proc_spec spec;
	const char **env = NULL;
	size_t nenv = 0;
	int ret;

	memset(&spec, 0, sizeof(spec));
	/* ncu's own additions, then the workload's minus the tracer's */
	env = xcalloc(cmd->nenv + (wl_env ? strv_len(wl_env) : 0) + 1, sizeof(*env));
	for (size_t i = 0; i < cmd->nenv; i++)
		env[nenv++] = cmd->env[i];
	for (char *const *w = wl_env; w && *w; w++)
		if (!starts_with(*w, "CUDA_INJECTION64_PATH=") &&
		    !starts_with(*w, "NVTX_INJECTION64_PATH=") &&
		    !starts_with(*w, "LLMPROF_TRACE_"))
			env[nenv++] = *w;
	bundle_art_fill(&orel, BA_LOG_ARGV, name);
	ret = proc_write_argv(&b->bd, orel.buf, (const char *const *)cmd->argv, err);
	if (ret)
		goto out;
	strbuf_reset(&orel);
	if (out_rel)
		strbuf_addstr(&orel, out_rel);
	else
		bundle_art_fill(&orel, BA_LOG_OUT, name);
	bundle_path(b, orel.buf, &o);
	bundle_art_fill(&erel, BA_LOG_ERR, name);
	bundle_path(b, erel.buf, &e);
	spec.argv = (const char *const *)cmd->argv;
	spec.env_add = env;
	/* CUPTI takes one subscriber: the builtin tracer must not ride along */
	spec.env_remove = unset;
	spec.out.path = orel.buf;
	spec.err.path = erel.buf;
	spec.out.dir = spec.err.dir = &b->bd;
	spec.out.echo = spec.err.echo = echo && !out_rel;
	if (live && !echo) {
		spec.out.on_data = progress_out;
		spec.err.on_data = progress_err;
		spec.out.on_data_arg = spec.err.on_data_arg = j;
		spec.end_descendants = &j->end_program;
	}
	spec.stdin_null = 1;
	spec.timeout_s = j->timeout_s;
	/* Ctrl-C ends the profiled program first: ncu then writes what it
	 * measured (an import or a probe has no descendants: at once) */
	spec.interrupt_descendants_s = NCU_INTERRUPT_WAIT_S;
	/* ncu's own progress (live) is the detail when there is one */
	pr->child_begin(pr->arg, name, &spec, NULL, NULL, NULL, echo || live ? NULL : name);
	ret = proc_run(&spec, res, err);
	pr->child_end(pr->arg);
	if (!ret) {
		if (!out_rel)
			strbuf_read_file(text, o.buf);
		strbuf_read_file(text, e.buf);
	}
out:
	strbuf_release(&o);
	strbuf_release(&e);
	strbuf_release(&orel);
	strbuf_release(&erel);
	free(env);
	return ret;
}
