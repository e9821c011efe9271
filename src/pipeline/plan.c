/* plan.c: see plan.h. */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/plan.h"
#include "core/proc.h"
#include "core/banned.h"

struct strv {
	char **v;
	size_t nr, alloc;
};

static void strv_push(struct strv *s, char *owned)
{
	ALLOC_GROW(s->v, s->nr + 2, s->alloc);
	s->v[s->nr++] = owned;
	s->v[s->nr] = NULL;
}

static void strv_pushf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void strv_pushf(struct strv *s, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strv_push(s, strbuf_detach(&sb, NULL));
}

static char **strv_finish(struct strv *s)
{
	if (!s->v)
		strv_push(s, NULL); /* an empty, NULL-terminated vector */
	return s->v;
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

static struct plan_step *plan_add(struct plan *p, const char *name, enum step_kind kind)
{
	struct plan_step *s;
	struct strbuf sb = STRBUF_INIT;

	ALLOC_GROW(p->steps, p->nr + 1, p->alloc);
	s = &p->steps[p->nr++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->kind = kind;
	bundle_art_fill(&sb, BA_LOG_OUT, name);
	s->out_log = strbuf_detach(&sb, NULL);
	bundle_art_fill(&sb, BA_LOG_ERR, name);
	s->err_log = strbuf_detach(&sb, NULL);
	return s;
}

/* An in-process step: no argv, no logs of its own. */
static struct plan_step *plan_add_internal(struct plan *p, const char *name, const char *what,
					   const char *skip_reason)
{
	struct plan_step *s = plan_add(p, name, STEP_KIND_INTERNAL);
	struct strv none = {NULL, 0, 0}, none2 = {NULL, 0, 0};

	s->argv = strv_finish(&none);
	s->env_add = strv_finish(&none2);
	s->what = xstrdup(what);
	s->skip_reason = skip_reason ? xstrdup(skip_reason) : NULL;
	return s;
}

static void strv_from_nsys(struct strv *v, struct nsys_args *a)
{
	for (size_t i = 0; i < a->nr; i++)
		strv_push(v, xstrdup(a->v[i]));
	nsys_args_release(a);
}

/* Built-in workload flags: the contract with workloads/ (docs/workloads.md:
 * "--flag value" pairs); keep both sides in step. */
static void builtin_argv(struct strv *a, const char *bin, int llm, const struct plan_params *pp)
{
	const struct config_model *m = &pp->model;
	const struct config_infer *in = &pp->infer;

	strv_push(a, xstrdup(bin));
	if (pp->device) {
		strv_push(a, xstrdup("--device"));
		strv_push(a, xstrdup(pp->device));
	}
	if (!llm) {
		strv_pushf(a, "--batch");
		strv_pushf(a, "%lld", (long long)in->batch_size);
		strv_pushf(a, "--warmup");
		strv_pushf(a, "%lld", (long long)pp->warmup);
		strv_pushf(a, "--seed");
		strv_pushf(a, "%lld", (long long)m->seed);
		return;
	}
	if (m->name) {
		strv_push(a, xstrdup("--model-name"));
		strv_push(a, xstrdup(m->name));
	}
#define SHAPE(flag, v)                                                                             \
	do {                                                                                       \
		if ((v) > 0) {                                                                     \
			strv_push(a, xstrdup(flag));                                               \
			strv_pushf(a, "%lld", (long long)(v));                                     \
		}                                                                                  \
	} while (0)
	SHAPE("--hidden", m->hidden_size);
	SHAPE("--intermediate", m->intermediate_size);
	SHAPE("--layers", m->num_layers);
	SHAPE("--heads", m->num_heads);
	SHAPE("--kv-heads", m->num_kv_heads);
	SHAPE("--head-dim", m->head_dim);
	SHAPE("--vocab", m->vocab_size);
	SHAPE("--max-pos", m->max_position);
#undef SHAPE
	if (m->rope_theta > 0) {
		strv_push(a, xstrdup("--rope-theta"));
		strv_pushf(a, "%.9g", m->rope_theta);
	}
	if (m->rms_norm_eps > 0) {
		strv_push(a, xstrdup("--rms-eps"));
		strv_pushf(a, "%.9g", m->rms_norm_eps);
	}
	if (m->hidden_size > 0) {
		strv_push(a, xstrdup("--qkv-bias"));
		strv_pushf(a, "%d", m->qkv_bias > 0);
		strv_push(a, xstrdup("--tie-embeddings"));
		strv_pushf(a, "%d", m->tie_word_embeddings > 0);
	}
	if (m->weights) {
		strv_push(a, xstrdup("--weights"));
		strv_push(a, xstrdup(m->weights));
	}
	strv_push(a, xstrdup("--seed"));
	strv_pushf(a, "%lld", (long long)m->seed);
	strv_push(a, xstrdup("--dtype"));
	strv_push(a, xstrdup(infer_dtype_names[in->dtype]));
	strv_push(a, xstrdup("--batch"));
	strv_pushf(a, "%lld", (long long)in->batch_size);
	strv_push(a, xstrdup("--prompt-len"));
	strv_pushf(a, "%lld", (long long)in->prompt_len);
	strv_push(a, xstrdup("--new-tokens"));
	strv_pushf(a, "%lld", (long long)in->max_new_tokens);
	strv_push(a, xstrdup("--cuda-graph"));
	strv_pushf(a, "%d", in->cuda_graph > 0);
	strv_push(a, xstrdup("--warmup"));
	strv_pushf(a, "%lld", (long long)pp->warmup);
	strv_push(a, xstrdup("--analytic-out"));
	strv_pushf(a, "%s/%s", pp->run_dir, PLAN_ANALYTIC_FILE);
}

const char *plan_workload_ignores(enum workload_kind kind, const char *override)
{
	/* keys builtin_argv() passes to llmprof-llm but not to llmprof-dummy */
	static const char *const dummy_ignores[] = {
	    "infer.prompt_len", "infer.max_new_tokens", "infer.dtype", "infer.cuda_graph", "model",
	};
	const char *key = override, *end;
	size_t len;

	if (kind != WORKLOAD_KIND_DUMMY || !override)
		return NULL;
	while (*key == '+' || *key == '~')
		key++;
	end = key + strcspn(key, "=@");
	len = (size_t)(end - key);
	if (len == 10 && !strncmp(key, "model.seed", len))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(dummy_ignores); i++) {
		size_t n = strlen(dummy_ignores[i]);

		if (len >= n && !strncmp(key, dummy_ignores[i], n) && (len == n || key[n] == '.'))
			return dummy_ignores[i];
	}
	return NULL;
}

/* The workload step: the program, wrapped by the backend. */
static int plan_workload(struct plan *p, const struct plan_params *pp, struct strbuf *err)
{
	struct strv argv = {NULL, 0, 0}, env = {NULL, 0, 0};
	struct plan_step *s;
	char *fail = NULL;
	int fail_code = 0;

	if (pp->workload_kind == WORKLOAD_KIND_COMMAND) {
		static const char no_program[] = "workload.kind=command needs a program: give "
						 "'-- PROGRAM ARGS' or set workload.program";

		if (!pp->program_argv || !pp->program_argv[0] || !*pp->program_argv[0]) {
			if (!pp->dry_run)
				return error_set(err, "%s", no_program);
			strv_push(&argv, xstrdup("<no program>"));
			fail = xstrdup(no_program);
			fail_code = EXIT_CONFIG;
		}
		for (const char *const *a = pp->program_argv; !fail && *a; a++)
			strv_push(&argv, xstrdup(*a));
	} else if (pp->workload_kind == WORKLOAD_KIND_LLM ||
		   pp->workload_kind == WORKLOAD_KIND_DUMMY) {
		int llm = pp->workload_kind == WORKLOAD_KIND_LLM;
		struct strbuf bin = STRBUF_INIT;

		path_join(&bin, pp->workloads_dir ? pp->workloads_dir : ".",
			  llm ? "llmprof-llm" : "llmprof-dummy");
		builtin_argv(&argv, bin.buf, llm, pp);
		strbuf_release(&bin);
	} else {
		BUG("workload kind %d is not in workload_kind_names", (int)pp->workload_kind);
	}
	{
		struct strv prog = {NULL, 0, 0};

		for (size_t i = 0; i < argv.nr; i++)
			strv_push(&prog, xstrdup(argv.v[i]));
		p->program = strv_finish(&prog);
	}
	if (pp->trace == PLAN_TRACE_NSYS) {
		struct nsys_options o;
		struct nsys_args na = NSYS_ARGS_INIT;
		struct strbuf base = STRBUF_INIT, stem = STRBUF_INIT, e = STRBUF_INIT;
		int ret;

		if (!pp->nsys || !pp->nsys->nsys)
			return error_set(err, "trace backend nsys: no nsys executable");
		o = *pp->nsys;
		bundle_art_stem(&stem, BA_NSYS_REP); /* nsys adds the extension */
		path_join(&base, pp->run_dir, stem.buf);
		strbuf_release(&stem);
		o.output_base = base.buf;
		o.target_argv = (const char *const *)argv.v;
		o.target_argc = argv.nr;
		ret = nsys_build_profile(&o, &na, &e);
		strbuf_release(&base);
		if (ret && !pp->dry_run) {
			error_set(err, "%s", e.buf);
			strbuf_release(&e);
			strv_free(argv.v);
			nsys_args_release(&na);
			return -1;
		}
		if (ret) {
			/* the dry run goes on: the program under a bare `nsys
			 * profile`, marked with what is wrong */
			struct strv w = {NULL, 0, 0};

			strv_push(&w, xstrdup(pp->nsys->nsys));
			strv_push(&w, xstrdup("profile"));
			for (size_t i = 0; i < argv.nr; i++)
				strv_push(&w, xstrdup(argv.v[i]));
			strv_free(argv.v);
			argv = w;
			if (pp->trace_problem) { /* what stops the run first */
				struct strbuf both = STRBUF_INIT;

				strbuf_addf(&both, "%s; also %s", pp->trace_problem, e.buf);
				fail = strbuf_detach(&both, NULL);
				fail_code = pp->trace_problem_code;
			} else {
				fail = strbuf_detach(&e, NULL);
				fail_code = EXIT_CONFIG;
			}
		} else {
			strv_free(argv.v);
			memset(&argv, 0, sizeof(argv));
			strv_from_nsys(&argv, &na);
		}
		nsys_args_release(&na);
		strbuf_release(&e);
	}
	/* the run directory, for programs that want to drop extra files there */
	strv_pushf(&env, "LLMPROF_RUN_DIR=%s", pp->run_dir);
	if (pp->trace == PLAN_TRACE_BUILTIN)
		for (const char *const *e = pp->workload_env; e && *e; e++)
			strv_push(&env, xstrdup(*e));
	for (const char *const *e = pp->pytorch_env; e && *e; e++)
		strv_push(&env, xstrdup(*e));
	s = plan_add(p, "workload", STEP_KIND_WORKLOAD);
	s->argv = strv_finish(&argv);
	s->env_add = strv_finish(&env);
	s->would_fail = fail;
	s->fail_code = fail_code;
	return 0;
}

/* The reference step: the program's own argv and no variable llmprof
 * adds, neither the tracer's, the PyTorch module's nor LLMPROF_RUN_DIR
 * (the rerun must leave the bundle as the traced run made it). Optional:
 * its failure costs the run nothing but the ratio. */
static void plan_reference(struct plan *p, const struct plan_params *pp)
{
	struct strv argv = {NULL, 0, 0}, env = {NULL, 0, 0};
	struct plan_step *s;

	for (char **a = p->program; a && *a; a++)
		strv_push(&argv, xstrdup(*a));
	s = plan_add(p, "reference", STEP_KIND_TOOL);
	s->argv = strv_finish(&argv);
	s->env_add = strv_finish(&env);
	s->optional = 1;
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb,
			    "the program again, untraced, when the traced run took at most %g s "
			    "(pipeline.trace.reference_run_max_s): traced/untraced wall time",
			    pp->reference_max_s);
		s->what = strbuf_detach(&sb, NULL);
	}
}

/* --dry-run: marks step (unless already marked) as one that would fail. */
static void mark(struct plan_step *s, const char *why, int code)
{
	if (!s || s->would_fail || !why)
		return;
	s->would_fail = xstrdup(why);
	s->fail_code = code;
}

void plan_describe_ncu(struct plan *p, const char *what, int dry_run, const char *problem, int code)
{
	struct plan_step *s = (struct plan_step *)plan_find(p, "ncu");

	if (!s)
		return;
	free(s->what);
	s->what = xstrdup(what);
	if (dry_run && !s->skip_reason)
		mark(s, problem, code);
}

/* nsys stats -o BASE writes BASE_<report>.csv: BASE is the summary's
 * path up to its report's name (nsys/summary_cuda_gpu_kern_sum.csv ->
 * <run_dir>/nsys/summary). */
static void nsys_stats_base(struct strbuf *base, const char *run_dir)
{
	struct strbuf stem = STRBUF_INIT;
	const char *art = bundle_art(BA_NSYS_SUMMARY);
	const char *us = strchr(bundle_art_base(BA_NSYS_SUMMARY), '_');

	strbuf_add(&stem, art, us ? (size_t)(us - art) : strlen(art));
	path_join(base, run_dir, stem.buf);
	strbuf_release(&stem);
}

static void plan_nsys_steps(struct plan *p, const struct plan_params *pp)
{
	struct strbuf rep = STRBUF_INIT, db = STRBUF_INIT, base = STRBUF_INIT;
	struct nsys_args na = NSYS_ARGS_INIT;
	struct strv v = {NULL, 0, 0}, e = {NULL, 0, 0};
	struct plan_step *s;

	path_join(&rep, pp->run_dir, bundle_art(BA_NSYS_REP));
	path_join(&db, pp->run_dir, bundle_art(BA_NSYS_SQLITE));
	nsys_stats_base(&base, pp->run_dir);
	nsys_build_export(pp->nsys->nsys, rep.buf, db.buf, pp->nsys->export_blobs, &na);
	strv_from_nsys(&v, &na);
	s = plan_add(p, "nsys-export", STEP_KIND_TOOL);
	s->argv = strv_finish(&v);
	s->env_add = strv_finish(&e);
	s->after_failure = 1;

	memset(&v, 0, sizeof(v));
	memset(&e, 0, sizeof(e));
	nsys_build_stats(pp->nsys->nsys, db.buf, base.buf, &na);
	strv_from_nsys(&v, &na);
	s = plan_add(p, "nsys-stats", STEP_KIND_TOOL);
	s->argv = strv_finish(&v);
	s->env_add = strv_finish(&e);
	s->after_failure = 1;
	strbuf_release(&rep);
	strbuf_release(&db);
	strbuf_release(&base);
}

int plan_build(struct plan *p, const struct plan_params *pp, struct strbuf *err)
{
	struct plan_step *s;
	const char *ncu_skip;
	struct strbuf sb = STRBUF_INIT;

	memset(p, 0, sizeof(*p));
	strbuf_addf(&sb, "resolve conf/ + overrides -> %s", bundle_art(BA_CONFIG));
	plan_add_internal(p, "config", sb.buf, NULL);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "host, GPUs, driver, tools, argv -> %s, %s", bundle_art(BA_ENV),
		    bundle_art(BA_INPUTS));
	plan_add_internal(p, "provenance", sb.buf, NULL);
	strbuf_reset(&sb);
	if (plan_workload(p, pp, err)) {
		plan_release(p);
		strbuf_release(&sb);
		return -1;
	}
	/* builtin only: under nsys the traced run's wall time is also nsys's
	 * start-up and report writing, no cost to the program itself */
	if (pp->trace == PLAN_TRACE_BUILTIN && pp->reference_max_s > 0)
		plan_reference(p, pp);
	switch (pp->trace) {
	case PLAN_TRACE_BUILTIN:
		strbuf_addf(&sb, "builtin tracer logs -> %s, %s (%s)", bundle_art(BA_TRACE_SQLITE),
			    bundle_art(BA_TRACE_JSON),
			    pp->trace_reason ? pp->trace_reason : "pipeline.trace.backend=builtin");
		s = plan_add_internal(p, "trace", sb.buf, NULL);
		s->after_failure = 1;
		break;
	case PLAN_TRACE_NSYS:
		plan_nsys_steps(p, pp);
		break;
	case PLAN_TRACE_OFF:
		break;
	}
	strbuf_reset(&sb);
	if (pp->trace == PLAN_TRACE_OFF)
		strbuf_addf(&sb, "no timeline trace: %s",
			    pp->trace_reason ? pp->trace_reason : "pipeline.trace.enable=false");
	s = plan_add_internal(p, "analyze",
			      "stage timings, operators, kernel summary from the trace (stages.*)",
			      sb.len ? sb.buf : NULL);
	s->after_failure = 1;
	/* light: the reduced counter set on the top few kernels; deep: the
	 * configured sections on the kernels covering run.coverage */
	ncu_skip = !pp->ncu_enable		 ? "pipeline.ncu.enable=false"
		   : pp->trace == PLAN_TRACE_OFF ? "no timeline trace to select kernels from"
						 : NULL;
	strbuf_reset(&sb);
	strbuf_addf(&sb, "run.mode=%s: %s -> %s", run_mode_names[pp->mode],
		    pp->mode == RUN_MODE_LIGHT
			? "the top kernels of run.stage by GPU time, for a reduced counter set"
			: "the kernels of run.stage covering run.coverage of its GPU time "
			  "(at most run.top_n_kernels)",
		    bundle_art(BA_NCU_SELECTION));
	plan_add_internal(p, "select", sb.buf, ncu_skip);
	strbuf_reset(&sb);
	if (pp->ncu_what)
		strbuf_addstr(&sb, pp->ncu_what);
	else
		strbuf_addf(&sb, "one ncu run per selected kernel -> %s, %s",
			    bundle_art(BA_NCU_CAPTURE), bundle_art(BA_NCU_RAW));
	plan_add_internal(p, "ncu", sb.buf, ncu_skip);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "trace kernels x %s -> kernel counters", bundle_art(BA_NCU_RAW));
	plan_add_internal(p, "join", sb.buf, ncu_skip);
	if (pp->dry_run) {
		if (pp->trace_problem)
			for (size_t i = 0; i < p->nr; i++)
				if (!strcmp(p->steps[i].name, "workload") ||
				    !strcmp(p->steps[i].name, "trace") ||
				    !strncmp(p->steps[i].name, "nsys-", 5))
					mark(&p->steps[i], pp->trace_problem,
					     pp->trace_problem_code);
		if (!ncu_skip)
			mark((struct plan_step *)plan_find(p, "ncu"), pp->ncu_problem,
			     pp->ncu_problem_code);
	}
	strbuf_reset(&sb);
	bundle_reports_list(&sb);
	strbuf_addstr(&sb, " from the bundle");
	s = plan_add_internal(p, "reports", sb.buf, NULL);
	s->after_failure = 1;
	strbuf_release(&sb);

	p->inputs.kind = pp->workload_kind;
	p->inputs.argv = (const char *const *)p->program;
	p->inputs.prompt_len = p->inputs.max_new_tokens = p->inputs.batch_size = -1;
	p->inputs.warmup = p->inputs.seed = -1;
	p->inputs.cuda_graph = -1;
	if (pp->workload_kind != WORKLOAD_KIND_COMMAND) {
		p->inputs.device = pp->device;
		p->inputs.model_name = pp->model.name;
		p->inputs.prompt_len = pp->infer.prompt_len;
		p->inputs.max_new_tokens = pp->infer.max_new_tokens;
		p->inputs.batch_size = pp->infer.batch_size;
		p->inputs.warmup = pp->warmup;
		p->inputs.seed = pp->model.seed;
		p->inputs.dtype = pp->infer.dtype;
		p->inputs.cuda_graph = pp->infer.cuda_graph;
	}
	return 0;
}

const struct plan_step *plan_find(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->steps[i].name, name))
			return &p->steps[i];
	return NULL;
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct plan_step *s = &p->steps[i];
		free(s->name);
		strv_free(s->argv);
		strv_free(s->env_add);
		free(s->out_log);
		free(s->err_log);
		free(s->skip_reason);
		free(s->what);
		free(s->would_fail);
	}
	free(p->steps);
	strv_free(p->program);
	memset(p, 0, sizeof(*p));
}

/* Why step s's program is missing (owned), or NULL when it is there, not
 * checked here, or the step does not run. */
static char *program_missing(const struct plan *p, const struct plan_step *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *found;

	if (s->kind == STEP_KIND_INTERNAL || s->skip_reason)
		return NULL;
	/* a user's own program is checked by running it: exec errors
	 * land in status.json like any other workload failure */
	if (s->kind == STEP_KIND_WORKLOAD && p->inputs.kind == WORKLOAD_KIND_COMMAND)
		return NULL;
	found = find_in_path(s->argv[0]);
	if (found) {
		free(found);
		return NULL;
	}
	if (s->kind == STEP_KIND_WORKLOAD)
		strbuf_addf(&sb,
			    "built-in workload '%s' not found: build it with "
			    "'make' (needs workloads/), set LLMPROF_WORKLOADS_DIR, "
			    "or run your own program with '-- PROGRAM ARGS'",
			    s->argv[0]);
	else
		strbuf_addf(&sb, "step '%s': '%s' not found", s->name, s->argv[0]);
	return strbuf_detach(&sb, NULL);
}

int plan_check_programs(const struct plan *p, struct strbuf *err)
{
	for (size_t i = 0; i < p->nr; i++) {
		char *why = program_missing(p, &p->steps[i]);

		if (why) {
			error_set(err, "%s", why);
			free(why);
			return -1;
		}
	}
	return 0;
}

size_t plan_mark_programs(struct plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr; i++) {
		struct plan_step *s = &p->steps[i];

		if (!s->would_fail && (s->would_fail = program_missing(p, s)))
			s->fail_code = EXIT_TOOL_MISSING;
		n += s->would_fail != NULL;
	}
	return n;
}

const struct plan_step *plan_first_failure(const struct plan *p)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->steps[i].would_fail)
			return &p->steps[i];
	return NULL;
}

void plan_format(const struct plan *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct plan_step *s = &p->steps[i];

		strbuf_addf(out, "step %zu: %s%s", i + 1, s->name,
			    s->optional ? " (optional)" : "");
		if (s->kind == STEP_KIND_INTERNAL) {
			strbuf_addf(out, " (in llmprof)\n  does: %s\n", s->what ? s->what : "");
			if (s->skip_reason)
				strbuf_addf(out, "  skipped: %s\n", s->skip_reason);
			if (s->would_fail)
				strbuf_addf(out, "  would fail: %s\n", s->would_fail);
			continue;
		}
		strbuf_addch(out, '\n');
		if (s->what)
			strbuf_addf(out, "  does: %s\n", s->what);
		strbuf_addstr(out, "  argv:");
		for (char **a = s->argv; *a; a++) {
			strbuf_addch(out, ' ');
			proc_quote_shell(out, *a);
		}
		strbuf_addch(out, '\n');
		for (char **e = s->env_add; *e; e++) {
			const char *eq = strchr(*e, '=');
			strbuf_addstr(out, "  env: ");
			strbuf_add(out, *e, (size_t)(eq - *e + 1));
			proc_quote_shell(out, eq + 1);
			strbuf_addch(out, '\n');
		}
		strbuf_addf(out, "  logs: %s %s\n", s->out_log, s->err_log);
		if (s->skip_reason)
			strbuf_addf(out, "  skipped: %s\n", s->skip_reason);
		if (s->would_fail)
			strbuf_addf(out, "  would fail: %s\n", s->would_fail);
	}
}
