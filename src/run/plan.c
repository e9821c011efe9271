/* plan.c: see plan.h. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "run/plan.h"
#include "run/proc.h"
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
	strbuf_addf(&sb, "logs/%s.out", name);
	s->out_log = strbuf_detach(&sb, NULL);
	strbuf_addf(&sb, "logs/%s.err", name);
	s->err_log = strbuf_detach(&sb, NULL);
	return s;
}

/* Built-in workload flags: the contract with workloads/ (docs/run-bundle.md
 * lists them); keep both sides in step. */
static void builtin_argv(struct strv *a, const char *bin, const struct plan_params *pp)
{
	strv_push(a, xstrdup(bin));
	if (pp->device)
		strv_pushf(a, "--device=%s", pp->device);
	if (pp->model_name)
		strv_pushf(a, "--model=%s", pp->model_name);
	strv_pushf(a, "--prompt-len=%lld", (long long)pp->prompt_len);
	strv_pushf(a, "--max-new-tokens=%lld", (long long)pp->max_new_tokens);
	strv_pushf(a, "--batch-size=%lld", (long long)pp->batch_size);
	if (pp->dtype)
		strv_pushf(a, "--dtype=%s", pp->dtype);
	strv_pushf(a, "--warmup=%lld", (long long)pp->warmup);
	strv_pushf(a, "--seed=%lld", (long long)pp->seed);
	if (pp->cuda_graph > 0)
		strv_push(a, xstrdup("--cuda-graph"));
}

int plan_build(struct plan *p, const struct plan_params *pp, struct strbuf *err)
{
	struct strv argv = {NULL, 0, 0}, env = {NULL, 0, 0};
	struct plan_step *s;
	const char *kind = pp->workload_kind ? pp->workload_kind : "llm";

	memset(p, 0, sizeof(*p));
	if (!strcmp(kind, "command")) {
		if (!pp->program_argv || !pp->program_argv[0] || !*pp->program_argv[0])
			return error_set(err, "workload.kind=command needs a program: give "
					      "'-- PROGRAM ARGS' or set workload.program");
		for (const char *const *a = pp->program_argv; *a; a++)
			strv_push(&argv, xstrdup(*a));
	} else if (!strcmp(kind, "llm") || !strcmp(kind, "dummy")) {
		struct strbuf bin = STRBUF_INIT;
		path_join(&bin, pp->workloads_dir ? pp->workloads_dir : ".",
			  !strcmp(kind, "llm") ? "llmprof-llm" : "llmprof-dummy");
		builtin_argv(&argv, bin.buf, pp);
		strbuf_release(&bin);
	} else {
		return error_set(err, "unknown workload kind '%s' (expected llm, dummy or command)",
				 kind);
	}
	/* the run directory, for programs that want to drop extra files there */
	strv_pushf(&env, "LLMPROF_RUN_DIR=%s", pp->run_dir);
	for (const char *const *e = pp->workload_env; e && *e; e++)
		strv_push(&env, xstrdup(*e));
	s = plan_add(p, "workload", STEP_KIND_WORKLOAD);
	s->argv = strv_finish(&argv);
	s->env_add = strv_finish(&env);

	p->inputs.kind = !strcmp(kind, "command") ? "command"
			 : !strcmp(kind, "llm")	  ? "llm"
						  : "dummy";
	p->inputs.argv = (const char *const *)s->argv;
	p->inputs.prompt_len = p->inputs.max_new_tokens = p->inputs.batch_size = -1;
	p->inputs.warmup = p->inputs.seed = -1;
	p->inputs.cuda_graph = -1;
	if (strcmp(kind, "command")) {
		p->inputs.device = pp->device;
		p->inputs.model_name = pp->model_name;
		p->inputs.prompt_len = pp->prompt_len;
		p->inputs.max_new_tokens = pp->max_new_tokens;
		p->inputs.batch_size = pp->batch_size;
		p->inputs.warmup = pp->warmup;
		p->inputs.seed = pp->seed;
		p->inputs.dtype = pp->dtype;
		p->inputs.cuda_graph = pp->cuda_graph;
	}
	return 0;
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
	}
	free(p->steps);
	memset(p, 0, sizeof(*p));
}

int plan_check_programs(const struct plan *p, struct strbuf *err)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct plan_step *s = &p->steps[i];
		char *found;

		/* a user's own program is checked by running it: exec errors
		 * land in status.json like any other workload failure */
		if (s->kind == STEP_KIND_WORKLOAD && p->inputs.kind &&
		    !strcmp(p->inputs.kind, "command"))
			continue;
		found = find_in_path(s->argv[0]);
		if (found) {
			free(found);
			continue;
		}
		if (s->kind == STEP_KIND_WORKLOAD)
			return error_set(err,
					 "built-in workload '%s' not found: build it with "
					 "'make' (needs workloads/), set LLMPROF_WORKLOADS_DIR, "
					 "or run your own program with '-- PROGRAM ARGS'",
					 s->argv[0]);
		return error_set(err, "step '%s': '%s' not found", s->name, s->argv[0]);
	}
	return 0;
}

void plan_format(const struct plan *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->nr; i++) {
		const struct plan_step *s = &p->steps[i];

		strbuf_addf(out, "step %zu: %s%s\n  argv:", i + 1, s->name,
			    s->optional ? " (optional)" : "");
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
	}
}

char *plan_workloads_dir(void)
{
	const char *env = getenv("LLMPROF_WORKLOADS_DIR");
	struct strbuf sb = STRBUF_INIT;
	char *dir;

	if (env && *env)
		return xstrdup(env);
	dir = exe_dir();
	path_join(&sb, dir, "workloads");
	if (!path_is_dir(sb.buf)) {
		strbuf_reset(&sb);
		path_join(&sb, dir, "../libexec/llmprof");
		if (!path_is_dir(sb.buf)) {
			strbuf_reset(&sb);
			path_join(&sb, dir, "workloads");
		}
	}
	free(dir);
	return strbuf_detach(&sb, NULL);
}
