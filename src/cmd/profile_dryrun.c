/* profile_dryrun.c: `llmprof profile --dry-run`: the tools found, the
 * trace backend and why, and the whole plan (plan_format()) on stdout;
 * see cmd/profile.h. */
#include <stdio.h>

#include "analysis/analytic_cfg.h"
#include "cmd/profile.h"
#include "config/config.h"
#include "core/error.h"
#include "nsight/nsys.h"
#include "nsight/tools.h"
#include "core/banned.h"

/* "nsys: ..." as tool_find finds it: the same text `doctor` shows. */
static void print_tool(enum tool_id id, const char *label, const char *configured)
{
	struct tool_found f;
	struct strbuf sb = STRBUF_INIT;

	tool_find(id, configured, &f);
	if (f.deprecated.len)
		warning_print("%s", f.deprecated.buf);
	tool_found_describe(&f, &sb);
	printf("%s: %s\n", label, sb.buf);
	strbuf_release(&sb);
	tool_found_release(&f);
}

static void print_dry_run(const struct run_ctx *rc, const char *root)
{
	const struct plan *plan = &rc->plan;
	const struct run_params *pp = &rc->params;
	const struct config *cfg = rc->cfg;
	const char *conf_dir = rc->conf_dir;
	struct strbuf sb = STRBUF_INIT;

	printf("dry run: nothing is run and no bundle is created\n");
	printf("conf: %s\n", conf_dir);
	printf("bundle: %s/<run_id>\n", root);
	print_tool(TOOL_NSYS, "nsys", config_typed(cfg)->pipeline.nsys.path);
	print_tool(TOOL_NCU, "ncu", config_typed(cfg)->pipeline.ncu.path);
	print_tool(TOOL_TRACER, "builtin tracer", NULL);
	printf("trace backend: %s (%s)\n",
	       pp->pp.trace == PLAN_TRACE_NSYS	    ? "nsys"
	       : pp->pp.trace == PLAN_TRACE_BUILTIN ? "builtin"
						    : "none",
	       pp->trace_reason.buf);
	if (pp->pp.trace == PLAN_TRACE_NSYS)
		printf("nsys gating: capture-range=%s\n", nsys_effective_capture_range(&pp->nsys));
	if (analytic_cfg_applies(cfg)) {
		const struct config_model *m = &config_typed(cfg)->model;

		printf(
		    "model: %s (%s, %lld layers, hidden %lld, intermediate %lld, heads %lld/%lld "
		    "kv, head_dim %lld, vocab %lld, tied embeddings %s)%s%s: MFU/MBU from its "
		    "analytic FLOPs and bytes\n",
		    m->name, model_arch_names[m->arch], (long long)m->num_layers,
		    (long long)m->hidden_size, (long long)m->intermediate_size,
		    (long long)m->num_heads, (long long)m->num_kv_heads, (long long)m->head_dim,
		    (long long)m->vocab_size, m->tie_word_embeddings ? "yes" : "no",
		    rc->model_json ? " from " : "", rc->model_json ? rc->model_json : "");
	}
	plan_format(plan, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

/* --dry-run: the whole plan, always; a step that would fail is marked,
 * and the exit code is the one the run would end with. */
int profile_dry_run(struct run_ctx *rc, const char *root)
{
	const struct plan_step *bad;
	size_t n = plan_mark_programs(&rc->plan);

	print_dry_run(rc, root);
	if (!(bad = plan_first_failure(&rc->plan)))
		return EXIT_OK;
	error_print("dry run: step '%s' would fail: %s%s", bad->name, bad->would_fail,
		    n > 1 ? " (and more: see the plan)" : "");
	return bad->fail_code;
}
