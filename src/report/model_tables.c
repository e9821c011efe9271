/* model_tables.c: the model's sections as report tables, built once and
 * rendered as Markdown or HTML (the generic writer is model/table.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "report/model_tables.h"
#include "core/md.h"
#include "trace/kname.h"
#include "core/banned.h"

static void kv(struct table *t, const char *key, const char *val)
{
	if (!val || !*val)
		return;
	table_add_str(t, key);
	table_add_str(t, val);
}

static void kv_int(struct table *t, const char *key, long long v)
{
	if (v <= 0)
		return;
	table_add_str(t, key);
	table_addf(t, "%lld", v);
}

void report_identity_text(const struct report_identity *id, struct strbuf *sb)
{
	const char *l =
	    id->launcher && *id->launcher && strcmp(id->launcher, "none") ? id->launcher : NULL;

	strbuf_addf(sb, "%d", id->rank);
	if (id->world_size > 0)
		strbuf_addf(sb, " of %d", id->world_size);
	if (l || id->local_rank >= 0) {
		strbuf_addf(sb, " (%s", l ? l : "");
		if (id->local_rank >= 0)
			strbuf_addf(sb, "%slocal rank %d", l ? ", " : "", id->local_rank);
		strbuf_addch(sb, ')');
	}
}

void rtable_environment(const struct report_model *m, struct table *t)
{
	const struct report_env *e = &m->env;
	const struct report_llm *l = &m->llm;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "ll", "Key", "Value", NULL);
	kv(t, "Device", report_device_label(e->device));
	if (e->device != REPORT_DEVICE_CPU_NO_GPU) {
		table_add_str(t, "GPU");
		table_add_str(t, e->gpu_name ? e->gpu_name : "unknown");
	}
	if (m->peaks.device_key)
		kv(t, "Peak table entry", m->peaks.device_key);
	kv_int(t, "SMs", e->sm_count);
	kv(t, "Compute capability", e->compute_capability);
	if (e->gpu_memory_gib.available) {
		fmt_fixed(&sb, e->gpu_memory_gib, 1);
		table_add_str(t, "GPU memory (GiB)");
		table_add_sb(t, &sb);
	}
	if (e->sm_clock_mhz.available) {
		fmt_fixed(&sb, e->sm_clock_mhz, 0);
		table_add_str(t, "Max SM clock (MHz)");
		table_add_sb(t, &sb);
	}
	kv(t, "Driver", e->driver);
	kv(t, "CUDA", e->cuda);
	kv(t, "Host", e->host);
	kv(t, "CPU", e->cpu);
	if (e->ident.from && e->ident.rank >= 0) {
		report_identity_text(&e->ident, &sb);
		table_add_str(t, "Rank");
		table_add_sb(t, &sb);
	}
	for (size_t i = 0; i < e->nr_tools; i++) {
		strbuf_addf(&sb, "Tool: %s", e->tools[i].name);
		table_add_sb(t, &sb);
		table_add_str(t, e->tools[i].version);
	}
	kv(t, "Model", l->name);
	kv(t, "Architecture", l->arch);
	if (l->params.available) {
		fmt_si(&sb, l->params, "");
		strbuf_trim(&sb);
		table_add_str(t, "Parameters");
		table_add_sb(t, &sb);
	}
	if (l->num_layers > 0 && l->hidden_size > 0) {
		strbuf_addf(&sb, "%d layers, hidden %d", l->num_layers, l->hidden_size);
		if (l->num_heads > 0)
			strbuf_addf(&sb, ", %d heads", l->num_heads);
		if (l->num_kv_heads > 0)
			strbuf_addf(&sb, " (%d KV)", l->num_kv_heads);
		if (l->head_dim > 0)
			strbuf_addf(&sb, ", head dim %d", l->head_dim);
		if (l->intermediate_size > 0)
			strbuf_addf(&sb, ", FFN %d", l->intermediate_size);
		if (l->vocab_size > 0)
			strbuf_addf(&sb, ", vocab %d", l->vocab_size);
		table_add_str(t, "Shape");
		table_add_sb(t, &sb);
	}
	kv(t, "Dtype", l->dtype);
	kv_int(t, "Batch size", l->batch_size);
	kv_int(t, "Prompt length", l->prompt_len);
	kv_int(t, "New tokens", l->new_tokens);
	if (l->cuda_graph >= 0)
		kv(t, "CUDA graph", l->cuda_graph ? "yes" : "no");
	strbuf_release(&sb);
}

void rtable_stages(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "llrrrrrrrr", "Stage", "Role", "Instances", "Range wall (ms)",
		   "GPU span (ms)", "GPU busy (ms)", "GPU idle (ms)", "Idle %", "Kernels",
		   "Launches/s", NULL);
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		table_add_str(t, s->name);
		table_add_str(t, report_role_name(s->role));
		table_addf(t, "%llu", (unsigned long long)s->instances);
		fmt_ms(&sb, s->cpu_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->gpu_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->busy_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->idle_ms);
		table_add_sb(t, &sb);
		if (s->idle_ms.available && s->gpu_ms.available && s->gpu_ms.v > 0)
			fmt_fixed(&sb, rnum_of(100 * s->idle_ms.v / s->gpu_ms.v), 1);
		else
			strbuf_addstr(&sb, FMT_NA);
		table_add_sb(t, &sb);
		table_addf(t, "%llu", (unsigned long long)s->kernels);
		fmt_fixed(&sb, s->launches_per_s, 0);
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

/* One row of the CPU-time table: what, ms, share of the stage's CPU time,
 * calls (-1: none). */
static void cpu_time_row(struct table *t, struct strbuf *sb, const struct report_stage *s,
			 const char *what, struct rnum ms, long long calls)
{
	table_add_str(t, what);
	fmt_ms(sb, ms);
	table_add_sb(t, sb);
	if (ms.available && s->cpu_ms.available && s->cpu_ms.v > 0)
		fmt_frac_pct(sb, rnum_of(ms.v / s->cpu_ms.v));
	else
		strbuf_addstr(sb, FMT_NA);
	table_add_sb(t, sb);
	if (calls >= 0)
		table_addf(t, "%lld", calls);
	else
		table_add_str(t, "");
}

void rtable_cpu_time(const struct report_stage *s, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrr", "Where", "CPU (ms)", "Share", "Calls", NULL);
	if (!s->api_ms.available)
		goto out;
	for (size_t i = 0; i < s->nr_api_top; i++)
		cpu_time_row(t, &sb, s, s->api_top[i].name, s->api_top[i].ms,
			     (long long)s->api_top[i].calls);
	if (s->api_rest_calls)
		cpu_time_row(t, &sb, s, "other CUDA API calls", s->api_rest_ms,
			     (long long)s->api_rest_calls);
	cpu_time_row(t, &sb, s, "all CUDA API calls", s->api_ms, (long long)s->api_calls);
	cpu_time_row(t, &sb, s, "outside CUDA (host code)", s->host_ms, -1);
out:
	strbuf_release(&sb);
}

static void sample_share(struct table *t, struct strbuf *sb, uint64_t n, uint64_t total)
{
	fmt_frac_pct(sb, rnum_of(total ? (double)n / (double)total : 0));
	table_add_sb(t, sb);
}

void rtable_cpu_sample_cats(const struct report_stage *s, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrrc", "Category", "Samples", "CPU (ms)", "Share", "Most sampled function",
		   NULL);
	for (size_t i = 0; i < s->nr_sample_cats; i++) {
		const struct report_sample_group *g = &s->sample_cats[i];

		table_add_str(t, g->name);
		table_addf(t, "%llu", (unsigned long long)g->samples);
		fmt_ms(&sb, g->ms);
		table_add_sb(t, &sb);
		sample_share(t, &sb, g->samples, s->cpu_samples);
		table_add_str(t, g->detail);
	}
	strbuf_release(&sb);
}

void rtable_cpu_sample_funcs(const struct report_stage *s, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "clrr", "Function", "Library", "Samples", "Share", NULL);
	for (size_t i = 0; i < s->nr_sample_funcs; i++) {
		const struct report_sample_group *g = &s->sample_funcs[i];

		table_add_str(t, g->name);
		table_add_str(t, g->detail);
		table_addf(t, "%llu", (unsigned long long)g->samples);
		sample_share(t, &sb, g->samples, s->cpu_samples);
	}
	strbuf_release(&sb);
}

void report_cpu_samples_caption(const struct report_stage *s, struct strbuf *sb)
{
	strbuf_addf(sb, "%s: %llu sample%s (", s->name ? s->name : "stage",
		    (unsigned long long)s->cpu_samples, s->cpu_samples == 1 ? "" : "s");
	fmt_ms(sb, s->sampled_ms);
	strbuf_addstr(sb, " ms");
	if (s->cpu_ms.available) {
		strbuf_addstr(sb, " of its ");
		fmt_ms(sb, s->cpu_ms);
		strbuf_addstr(sb, " ms of CPU time");
	}
	strbuf_addch(sb, ')');
	if (s->sampled_outside_ms.available) {
		strbuf_addf(sb, "; %llu outside CUDA API calls (",
			    (unsigned long long)s->cpu_samples_outside);
		fmt_ms(sb, s->sampled_outside_ms);
		strbuf_addstr(sb, " ms)");
	}
}

int report_cpu_sampler_line(const struct report_model *m, struct strbuf *sb)
{
	const struct report_cpu_sampler *c = &m->cpu_sampler;
	double ms = c->handler_ms.v, total = c->sampled_ms.v;

	if (!c->processes || !c->handler_ms.available)
		return 0;
	strbuf_addstr(sb, "Sampler cost: ");
	fmt_ms(sb, c->handler_ms);
	strbuf_addf(sb, " ms in %llu sample%s (", (unsigned long long)c->calls,
		    c->calls == 1 ? "" : "s");
	fmt_fixed(sb, rnum_of(c->calls ? ms * 1e3 / (double)c->calls : 0), 1);
	strbuf_addstr(sb, " us each) = ");
	if (total > 0)
		fmt_frac_pct(sb, rnum_of(ms / total));
	else
		strbuf_addstr(sb, FMT_NA);
	strbuf_addstr(sb, " of the sampled CPU time (");
	fmt_ms(sb, c->sampled_ms);
	strbuf_addstr(sb, " ms), timed inside its signal handler");
	if (c->processes > 1)
		strbuf_addf(sb, ", %llu processes", (unsigned long long)c->processes);
	strbuf_addch(sb, '.');
	return 1;
}

/* " Reference run: ..." when there was one (pipeline.trace.reference_run_max_s). */
static int reference_sentence(const struct report_tracer_cost *c, struct strbuf *sb)
{
	if (!c->ref_traced_s.available || !c->ref_untraced_s.available ||
	    !(c->ref_untraced_s.v > 0))
		return 0;
	strbuf_addf(sb,
		    " Reference run: the program took %.2f s traced and %.2f s untraced, "
		    "traced/untraced %.3f (wall time of one run each, the untraced one second, "
		    "warm caches included).",
		    c->ref_traced_s.v, c->ref_untraced_s.v,
		    c->ref_traced_s.v / c->ref_untraced_s.v);
	return 1;
}

/* The cost part of the PyTorch line: the estimated slowdown and how it was
 * found (docs/pytorch.md, "Auto: judged by the slowdown"). */
static void pytorch_cost(const struct report_pytorch *p, struct strbuf *sb)
{
	struct rnum slow = report_pytorch_slowdown(p);
	uint64_t silent = p->processes > p->costed ? p->processes - p->costed : 0;

	strbuf_addf(sb, "; %llu module calls, ", (unsigned long long)p->calls);
	if (slow.available) {
		strbuf_addstr(sb, "estimated ");
		fmt_frac_pct(sb, slow);
		strbuf_addf(
		    sb,
		    " slower (calls × %.3f us of PyTorch's hooked call path, calibrated at "
		    "start, + %.3f ms in the hooks = %.3f ms of %.3f ms wall time since the "
		    "first module call)",
		    p->calls ? p->path_ms * 1e3 / (double)p->calls : 0.0, p->hook_ms, p->est_ms,
		    p->wall_ms);
	} else {
		strbuf_addf(sb,
			    "%.3f ms in the hooks (an older llmprof's log: no estimate of the "
			    "slowdown)",
			    p->hook_ms);
	}
	strbuf_addf(sb, ", %llu ranges pushed", (unsigned long long)p->ranges);
	if (silent)
		strbuf_addf(sb, "; %llu process%s ended without writing %s cost",
			    (unsigned long long)silent, silent == 1 ? "" : "es",
			    silent == 1 ? "its" : "their");
}

int report_pytorch_line(const struct report_model *m, struct strbuf *sb)
{
	const struct report_pytorch *p = &m->pytorch;

	if (!p->given)
		return 0;
	strbuf_addstr(sb, "PyTorch ranges: ");
	if (!p->processes) {
		strbuf_addstr(sb, p->have_log ? "never on (see the Trust items above)."
					      : "the startup module was given, but no process "
						"imported torch.");
		return 1;
	}
	strbuf_addf(sb, "%s in %llu process%s", report_pytorch_mode(p),
		    (unsigned long long)p->processes, p->processes == 1 ? "" : "es");
	if (p->torch)
		strbuf_addf(sb, " (torch %s)", p->torch);
	if (p->auto_procs)
		strbuf_addf(sb,
			    "; auto kept the module ranges in %llu, turned them off in %llu "
			    "(budget: %g %% slower, estimated)",
			    (unsigned long long)p->auto_kept, (unsigned long long)p->auto_off,
			    p->budget_pct);
	if (p->costed)
		pytorch_cost(p, sb);
	else
		strbuf_addstr(sb, "; no process wrote its cost (each ended without its exit "
				  "handlers)");
	if (p->failed)
		strbuf_addf(sb, "; %llu error%s turned ranges off", (unsigned long long)p->failed,
			    p->failed == 1 ? "" : "s");
	strbuf_addch(sb, '.');
	return 1;
}

int report_tracer_cost_line(const struct report_model *m, struct strbuf *sb)
{
	const struct report_tracer_cost *c = &m->tracer_cost;

	switch (c->basis) {
	case 1:
		break;
	case 2:
		strbuf_addstr(sb,
			      "Tracing cost: not measured (no process of the program wrote the "
			      "tracer's cost record: each ended without its exit handlers, or an "
			      "older llmprof recorded the trace).");
		reference_sentence(c, sb);
		return 1;
	case 3:
		strbuf_addstr(sb, "Tracing cost: not measured (nsys records no cost of its own; "
				  "compare the program's own timing with and without it).");
		reference_sentence(c, sb);
		return 1;
	default: {
		struct strbuf r = STRBUF_INIT;
		int have = reference_sentence(c, &r);

		if (have) {
			strbuf_addstr(sb, "Tracing cost:");
			strbuf_add(sb, r.buf, r.len);
		}
		strbuf_release(&r);
		return have;
	}
	}
	strbuf_addstr(sb, "Tracing cost: ");
	if (c->cpu_ms.v > 0) {
		strbuf_addstr(sb, "about ");
		fmt_frac_pct(sb, rnum_of((c->hooks_ms.v + c->background_ms.v) / c->cpu_ms.v));
		strbuf_addstr(sb, " of the program's CPU time (");
	} else {
		strbuf_addstr(sb, "n/a of the program's CPU time (");
	}
	fmt_ms(sb, c->hooks_ms);
	strbuf_addf(sb, " ms in %llu tracer hooks on its threads: ", (unsigned long long)c->hooks);
	fmt_ms(sb, c->api_ms);
	strbuf_addstr(sb, " ms CUDA API callbacks, ");
	fmt_ms(sb, c->nvtx_ms);
	strbuf_addstr(sb, " ms NVTX; ");
	fmt_ms(sb, c->background_ms);
	strbuf_addstr(sb, " ms on the tracer's own threads, CUPTI buffers and log flushes; of ");
	fmt_ms(sb, c->cpu_ms);
	strbuf_addf(sb,
		    " ms CPU time in %llu process%s), timed by the tracer itself. CUPTI's and "
		    "the driver's own work around the hooks is not in it: a lower bound.",
		    (unsigned long long)c->processes, c->processes == 1 ? "" : "es");
	reference_sentence(c, sb);
	return 1;
}

void rtable_decode_steps(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrrrrr", "Stage", "Steps", "Wall per step (ms)", "GPU span mean (ms)",
		   "GPU span p50 (ms)", "GPU span p90 (ms)", "GPU span max (ms)", NULL);
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		if (!s->steps)
			continue;
		table_add_str(t, s->name);
		table_addf(t, "%llu", (unsigned long long)s->steps);
		fmt_ms(&sb, s->step_wall_ms.available
				? rnum_of(s->step_wall_ms.v / (double)s->steps)
				: RNUM_NONE);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->step_mean_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->step_p50_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->step_p90_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, s->step_max_ms);
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

void rtable_aggregates(const struct report_model *m, struct table *t)
{
	const struct report_aggregates *a = &m->agg;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lr", "Metric", "Value", NULL);
	table_add_str(t, "TTFT (ms)");
	fmt_ms(&sb, a->ttft_ms);
	table_add_sb(t, &sb);
	/* the basis beside the number: wall time over the steps, or the
	 * decode's GPU span when the steps' times are not known */
	table_add_str(t, a->tpot_basis && !strcmp(a->tpot_basis, "gpu_span")
			     ? "TPOT (ms; decode GPU span per step)"
			     : "TPOT (ms; decode wall time per step)");
	fmt_ms(&sb, a->tpot_ms);
	table_add_sb(t, &sb);
	table_add_str(t, a->tpot_basis && !strcmp(a->tpot_basis, "gpu_span")
			     ? "Tokens/s (decode GPU span)"
			     : "Tokens/s (decode wall time)");
	fmt_fixed(&sb, a->tokens_per_s, 1);
	table_add_sb(t, &sb);
	/* the first new token comes from prefill: not "generated tokens",
	 * which read as all of them beside "32 new tokens" */
	table_add_str(t, "Tokens from decode steps");
	fmt_fixed(&sb, a->tokens, 0);
	table_add_sb(t, &sb);
	table_add_str(t, "Profiled region (ms)");
	fmt_ms(&sb, a->e2e_ms);
	table_add_sb(t, &sb);
	table_add_str(t, "GPU span (ms)");
	fmt_ms(&sb, a->gpu_span_ms);
	table_add_sb(t, &sb);
	table_add_str(t, "GPU busy (ms)");
	fmt_ms(&sb, a->gpu_busy_ms);
	table_add_sb(t, &sb);
	table_add_str(t, "GPU idle (ms)");
	fmt_ms(&sb, a->gpu_idle_ms);
	table_add_sb(t, &sb);
	table_add_str(t, "GPU idle share");
	if (a->gpu_idle_ms.available && a->gpu_span_ms.available && a->gpu_span_ms.v > 0)
		fmt_frac_pct(&sb, rnum_of(a->gpu_idle_ms.v / a->gpu_span_ms.v));
	else
		strbuf_addstr(&sb, FMT_NA);
	table_add_sb(t, &sb);
	strbuf_release(&sb);
}

void rtable_utilization(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(
	    t, "llrrrrrrrrrrrrr", "Stage", "Judged by", "Model FLOPs", "Model bytes", "Time (ms)",
	    "TFLOP/s", "GB/s",
	    m->peaks.tflops_estimated ? "MFU (ESTIMATED peak)" : "MFU (datasheet)",
	    "MFU (measured)", m->peaks.gbs_estimated ? "MBU (ESTIMATED peak)" : "MBU (datasheet)",
	    "MBU (measured)", "Counter FLOPs", "Counter coverage",
	    m->peaks.tflops_estimated ? "MFU (counter-based, estimated peak)"
				      : "MFU (counter-based)",
	    m->peaks.gbs_estimated ? "MBU (counter-based, estimated peak)" : "MBU (counter-based)",
	    NULL);
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		table_add_str(t, s->name);
		table_add_str(t, s->role == REPORT_ROLE_PREFILL	 ? "MFU"
				 : s->role == REPORT_ROLE_DECODE ? "MBU"
								 : "-");
		fmt_si(&sb, s->flops, "FLOP");
		table_add_sb(t, &sb);
		fmt_si(&sb, s->bytes, "B");
		table_add_sb(t, &sb);
		fmt_ms(&sb, report_stage_time_ms(s));
		table_add_sb(t, &sb);
		fmt_tflops(&sb, s->achieved_tflops);
		table_add_sb(t, &sb);
		fmt_gbs(&sb, s->achieved_gbs);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mfu_datasheet);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mfu_measured);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mbu_datasheet);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mbu_measured);
		table_add_sb(t, &sb);
		fmt_si(&sb, s->counter_flops, "FLOP");
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->counter_time_share);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mfu_counter);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, s->mbu_counter);
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

/* The utilisation a stage is judged by (prefill MFU, decode MBU) with its
 * basis: the model's FLOPs/bytes when known, else the counters'. */
static void judged_util(struct strbuf *sb, const struct report_model *m,
			const struct report_stage *s)
{
	int pre = s->role == REPORT_ROLE_PREFILL;
	struct rnum model = pre ? s->mfu_datasheet : s->mbu_datasheet;
	struct rnum counter = pre ? s->mfu_counter : s->mbu_counter;

	if (s->role == REPORT_ROLE_OTHER || (!model.available && !counter.available)) {
		strbuf_addstr(sb, "n/a");
		return;
	}
	strbuf_addstr(sb, pre ? "MFU " : "MBU ");
	fmt_frac_pct(sb, model.available ? model : counter);
	strbuf_addstr(sb, model.available ? " (model" : " (counter-based");
	strbuf_addstr(sb, report_peak_estimated(m, pre) ? ", estimated peak)" : ")");
}

void rtable_summary_stages(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrlr", "Stage", "GPU span (ms)", "TTFT / TPOT (ms)", "MFU or MBU (basis)",
		   "GPU busy", NULL);
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		table_add_str(t, s->name);
		fmt_ms(&sb, s->gpu_ms);
		table_add_sb(t, &sb);
		if (s->role == REPORT_ROLE_PREFILL && m->agg.ttft_ms.available) {
			strbuf_addstr(&sb, "TTFT ");
			fmt_ms(&sb, m->agg.ttft_ms);
		} else if (s->role == REPORT_ROLE_DECODE && m->agg.tpot_ms.available) {
			strbuf_addstr(&sb, "TPOT ");
			fmt_ms(&sb, m->agg.tpot_ms);
		} else {
			strbuf_addstr(&sb, "n/a");
		}
		table_add_sb(t, &sb);
		judged_util(&sb, m, s);
		table_add_sb(t, &sb);
		if (s->busy_ms.available && s->gpu_ms.available && s->gpu_ms.v > 0)
			fmt_frac_pct(&sb, rnum_of(s->busy_ms.v / s->gpu_ms.v));
		else
			strbuf_addstr(&sb, "n/a");
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

void rtable_peaks(const struct report_model *m, struct table *t)
{
	const struct report_peaks *p = &m->peaks;
	struct strbuf sb = STRBUF_INIT;

	/* an estimate never sits in a column called "Datasheet" unmarked */
	table_init(t, "lrr", "Ceiling",
		   p->tflops_estimated || p->gbs_estimated ? "Datasheet or ESTIMATE" : "Datasheet",
		   "Measured", NULL);
	strbuf_addf(&sb, "Dense %s tensor (TFLOP/s)", p->precision ? p->precision : "bf16");
	table_add_sb(t, &sb);
	fmt_tflops(&sb, p->datasheet_tflops);
	if (p->tflops_estimated)
		strbuf_addstr(&sb, " (estimate)");
	table_add_sb(t, &sb);
	fmt_tflops(&sb, p->measured_tflops);
	table_add_sb(t, &sb);
	table_add_str(t, "DRAM bandwidth (GB/s)");
	fmt_gbs(&sb, p->datasheet_gbs);
	if (p->gbs_estimated)
		strbuf_addstr(&sb, " (estimate)");
	table_add_sb(t, &sb);
	fmt_gbs(&sb, p->measured_gbs);
	table_add_sb(t, &sb);
	table_add_str(t, "Source");
	table_add_str(t, p->datasheet_source ? p->datasheet_source : "none");
	table_add_str(t, p->measured_source ? p->measured_source : "none");
	strbuf_release(&sb);
}

static void kernel_mean(struct strbuf *sb, const struct report_kernel *k)
{
	if (k->calls)
		fmt_ns_as_ms(sb, (double)k->total_ns / (double)k->calls);
	else
		strbuf_addstr(sb, FMT_NA);
}

/* The operator that launched most of the kernel's time, and how many
 * others launched it too: "attn.qkv (+2)"; "(none)" outside operators. */
static void kernel_operator(struct strbuf *sb, const struct report_kernel *k)
{
	strbuf_reset(sb);
	if (!k->op) {
		strbuf_addstr(sb, "(none)");
		return;
	}
	strbuf_addstr(sb, k->op);
	if (k->nr_ops > 1)
		strbuf_addf(sb, " (+%zu)", k->nr_ops - 1);
}

/* The last row of a bounded kernel table: the kernels from row on,
 * summed, so that Calls, Total and % GPU time still add up. */
static void kernels_rest_row(const struct report_model *m, size_t row, int fused, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t calls = 0, total = 0;
	double pct = 0;
	int have_pct = 0;

	for (size_t i = row; i < m->nr_kernels; i++) {
		calls += m->kernels[i].calls;
		total += m->kernels[i].total_ns;
		if (m->kernels[i].pct_gpu.available) {
			pct += m->kernels[i].pct_gpu.v;
			have_pct = 1;
		}
	}
	table_add_null(t);
	table_addf(t, "(%zu other kernels: %s)", m->nr_kernels - row, bundle_art(BA_KERNELS_TSV));
	if (fused)
		table_add_null(t);
	table_add_null(t);
	table_addf(t, "%llu", (unsigned long long)calls);
	fmt_ns_as_ms(&sb, (double)total);
	table_add_sb(t, &sb);
	if (calls)
		fmt_ns_as_ms(&sb, (double)total / (double)calls);
	else
		strbuf_addstr(&sb, FMT_NA);
	table_add_sb(t, &sb);
	fmt_pct(&sb, have_pct ? rnum_of(pct) : RNUM_NONE);
	table_add_sb(t, &sb);
	for (size_t c = 0; c < 8; c++) /* Stage .. Operator */
		table_add_null(t);
	strbuf_release(&sb);
}

void rtable_kernels_full(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = report_rows_shown(m->table_rows, m->nr_kernels);
	int fused = 0;

	/* torch.compile's kernels: what each fused, in a column of its own */
	for (size_t i = 0; i < n && !fused; i++)
		fused = kname_inductor(&sb, m->kernels[i].short_name);
	strbuf_reset(&sb);
	if (fused)
		table_init(t, "rcllrrrrlrrrrrll", "#", "Kernel", "Fused ops (Inductor)", "Device",
			   "Calls", "Total (ms)", "Mean (ms)", "% GPU time", "Stage",
			   "Compute SOL %", "Memory SOL %", "DRAM SOL %", "Occupancy %",
			   "AI (FLOP/B)", "Bound", "Operator", NULL);
	else
		table_init(t, "rclrrrrlrrrrrll", "#", "Kernel", "Device", "Calls", "Total (ms)",
			   "Mean (ms)", "% GPU time", "Stage", "Compute SOL %", "Memory SOL %",
			   "DRAM SOL %", "Occupancy %", "AI (FLOP/B)", "Bound", "Operator", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct report_kernel *k = &m->kernels[i];

		table_addf(t, "%zu", i + 1);
		table_add_str(t, k->short_name);
		if (fused) {
			kname_inductor(&sb, k->short_name);
			table_add_sb(t, &sb);
		}
		table_add_str(t, k->device ? k->device : FMT_NA);
		table_addf(t, "%llu", (unsigned long long)k->calls);
		fmt_ns_as_ms(&sb, (double)k->total_ns);
		table_add_sb(t, &sb);
		kernel_mean(&sb, k);
		table_add_sb(t, &sb);
		fmt_pct(&sb, k->pct_gpu);
		table_add_sb(t, &sb);
		table_add_str(t, k->stage ? k->stage : "(none)");
		fmt_pct(&sb, k->c->sm_sol_pct);
		table_add_sb(t, &sb);
		fmt_pct(&sb, k->c->mem_sol_pct);
		table_add_sb(t, &sb);
		fmt_pct(&sb, k->c->dram_sol_pct);
		table_add_sb(t, &sb);
		fmt_pct(&sb, k->c->occupancy_pct);
		table_add_sb(t, &sb);
		fmt_fixed(&sb, k->c->ai, 2);
		table_add_sb(t, &sb);
		table_add_str(t, k->c->profiled ? kernel_bound_name(k->c->bound) : FMT_NA);
		kernel_operator(&sb, k);
		table_add_sb(t, &sb);
	}
	if (n < m->nr_kernels)
		kernels_rest_row(m, n, fused, t);
	strbuf_release(&sb);
}

void rtable_kernels_top(const struct report_model *m, struct table *t, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = top && top < m->nr_kernels ? top : m->nr_kernels;

	table_init(t, "crrrrll", "Kernel", "Total (ms)", "Calls", "Mean (ms)", "% GPU time",
		   "Stage", "Bound", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct report_kernel *k = &m->kernels[i];

		fmt_ellipsize(&sb, k->short_name, 60);
		table_add_sb(t, &sb);
		fmt_ns_as_ms(&sb, (double)k->total_ns);
		table_add_sb(t, &sb);
		table_addf(t, "%llu", (unsigned long long)k->calls);
		kernel_mean(&sb, k);
		table_add_sb(t, &sb);
		fmt_pct(&sb, k->pct_gpu);
		table_add_sb(t, &sb);
		table_add_str(t, k->stage ? k->stage : "(none)");
		table_add_str(t, k->c->profiled ? kernel_bound_name(k->c->bound) : FMT_NA);
	}
	strbuf_release(&sb);
}

/* The last row of operators.md's table: the operators from row on, their
 * calls and own GPU and CPU time summed (the inclusive times and shares
 * overlap and are left empty). */
static void operators_rest_row(const struct report_model *m, size_t row, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t calls = 0;
	double gpu = 0, cpu = 0;
	int have_gpu = 0, have_cpu = 0;

	for (size_t i = row; i < m->nr_ops; i++) {
		calls += m->ops[i].calls;
		if (m->ops[i].gpu_ms.available)
			gpu += m->ops[i].gpu_ms.v, have_gpu = 1;
		if (m->ops[i].cpu_ms.available)
			cpu += m->ops[i].cpu_ms.v, have_cpu = 1;
	}
	table_addf(t, "(%zu other operators)", m->nr_ops - row);
	table_add_null(t);
	table_addf(t, "%llu", (unsigned long long)calls);
	fmt_ms(&sb, have_gpu ? rnum_of(gpu) : RNUM_NONE);
	table_add_sb(t, &sb);
	if (have_gpu && calls)
		fmt_ms(&sb, rnum_of(gpu / (double)calls));
	else
		strbuf_addstr(&sb, FMT_NA);
	table_add_sb(t, &sb);
	table_add_null(t);
	fmt_ms(&sb, have_cpu ? rnum_of(cpu) : RNUM_NONE);
	table_add_sb(t, &sb);
	table_add_null(t);
	strbuf_release(&sb);
}

void rtable_operators(const struct report_model *m, struct table *t, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n =
	    top ? (top < m->nr_ops ? top : m->nr_ops) : report_rows_shown(m->table_rows, m->nr_ops);

	table_init(t, "llrrrrrr", "Operator", "Stage", "Calls", "GPU (ms)", "Mean GPU (ms)",
		   "GPU incl. nested (ms)", "CPU (ms)", "Share of stage", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct report_operator *o = &m->ops[i];

		table_add_str(t, o->name);
		table_add_str(t, o->stage ? o->stage : "(none)");
		table_addf(t, "%llu", (unsigned long long)o->calls);
		fmt_ms(&sb, o->gpu_ms);
		table_add_sb(t, &sb);
		if (o->gpu_ms.available && o->calls)
			fmt_ms(&sb, rnum_of(o->gpu_ms.v / (double)o->calls));
		else
			strbuf_addstr(&sb, FMT_NA);
		table_add_sb(t, &sb);
		fmt_ms(&sb, o->gpu_incl_ms);
		table_add_sb(t, &sb);
		fmt_ms(&sb, o->cpu_ms);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, o->share_of_stage);
		table_add_sb(t, &sb);
	}
	if (!top && n < m->nr_ops)
		operators_rest_row(m, n, t);
	strbuf_release(&sb);
}

void rtable_op_classes(const struct report_model *m, struct table *t, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = top && top < m->nr_op_classes ? top : m->nr_op_classes;

	table_init(t, "llrrrrrr", "Class", "Stage", "Modules", "Calls", "GPU (ms)", "Mean GPU (ms)",
		   "GPU incl. nested (ms)", "Share of stage", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct report_op_class *c = &m->op_classes[i];

		table_add_str(t, c->cls);
		table_add_str(t, c->stage ? c->stage : "(none)");
		table_addf(t, "%llu", (unsigned long long)c->operators);
		table_addf(t, "%llu", (unsigned long long)c->calls);
		fmt_ms(&sb, c->gpu_ms);
		table_add_sb(t, &sb);
		if (c->gpu_ms.available && c->calls)
			fmt_ms(&sb, rnum_of(c->gpu_ms.v / (double)c->calls));
		else
			strbuf_addstr(&sb, FMT_NA);
		table_add_sb(t, &sb);
		fmt_ms(&sb, c->gpu_incl_ms);
		table_add_sb(t, &sb);
		fmt_frac_pct(&sb, c->share_of_stage);
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

void rtable_trust(const struct report_model *m, struct table *t)
{
	table_init(t, "lrl", "What", "How many", "Affects", NULL);
	for (size_t i = 0; i < m->trust.nr; i++) {
		const struct report_trust_item *it = &m->trust.v[i];

		table_add_str(t, it->what);
		table_addf(t, "%llu", (unsigned long long)it->count);
		table_add_str(t, it->affects);
	}
}

void rtable_selection(const struct report_model *m, struct table *t)
{
	const struct report_selection *s = &m->sel;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "ll", "Key", "Value", NULL);
	kv(t, "Stage", s->stage);
	table_add_str(t, "Top N");
	table_addf(t, "%llu", (unsigned long long)s->top_n);
	table_add_str(t, "Coverage target");
	fmt_frac_pct(&sb, rnum_of(s->coverage_target));
	table_add_sb(t, &sb);
	table_add_str(t, "Coverage achieved");
	fmt_frac_pct(&sb, s->coverage);
	table_add_sb(t, &sb);
	table_add_str(t, "Kernels selected");
	table_addf(t, "%llu of %llu", (unsigned long long)s->nr_selected,
		   (unsigned long long)s->nr_candidates);
	if (s->nr_same_work) { /* run.same_work_tolerance: docs/ncu.md section 6 */
		table_add_str(t, "Same work");
		table_addf(t, "%llu more classes, measured by a selected kernel's result",
			   (unsigned long long)s->nr_same_work);
	}
	strbuf_release(&sb);
}

void rtable_steps(const struct report_model *m, struct table *t)
{
	table_init(t, "lll", "Step", "Status", "Reason", NULL);
	for (size_t i = 0; i < m->run.nr_steps; i++) {
		table_add_str(t, m->run.steps[i].name);
		table_add_str(t, step_state_name(m->run.steps[i].status));
		table_add_str(t, m->run.steps[i].reason ? m->run.steps[i].reason : "");
	}
}

void rtable_unjoined(const struct report_model *m, struct table *t, size_t top)
{
	const struct report_counter_join *cj = &m->run.cjoin;
	size_t n = top && top < cj->nr_unjoined ? top : cj->nr_unjoined;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "rcll", "ncu ID", "Kernel (as ncu names it)", "Launch (grid x block)",
		   "Why it did not join", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct report_unjoined *u = &cj->unjoined[i];

		table_addf(t, "%lld", u->id);
		fmt_ellipsize(&sb, u->name, 60);
		table_add_sb(t, &sb);
		table_addf(t, "(%d,%d,%d) x (%d,%d,%d)", u->grid[0], u->grid[1], u->grid[2],
			   u->block[0], u->block[1], u->block[2]);
		table_add_str(t, u->reason);
	}
	strbuf_release(&sb);
}

void report_status_line(const struct report_model *m, struct strbuf *out)
{
	const struct report_step *f = report_model_failed_step(m);
	const struct report_step *gap = report_model_gap_step(m);

	if (report_model_finished(m) && gap) {
		strbuf_addf(out,
			    "INCOMPLETE: %s skipped because %s; timings, kernels and the findings "
			    "that need them are missing.",
			    gap->name, gap->reason ? gap->reason : "no reason recorded");
		return;
	}
	if (report_model_finished(m)) {
		const struct report_step *sk = NULL;
		const char *dev = report_device_label(m->env.device);

		for (size_t i = 0; i < m->run.nr_steps && !sk; i++)
			if (m->run.steps[i].status == STEP_SKIPPED)
				sk = &m->run.steps[i];
		if (dev) {
			strbuf_addf(
			    out,
			    "The pipeline finished; the built-in workload ran on the %s on "
			    "purpose, so stage and operator times are CPU times and the GPU "
			    "columns (kernels, counters, MFU, MBU) show n/a.",
			    dev);
			return;
		}
		if (report_model_unjoined(m)) {
			strbuf_addf(out,
				    "The pipeline finished; incomplete: %zu of %zu counter results "
				    "unmatched, so the kernels they measured show n/a for counters "
				    "and Bound (\"Counter results not joined\" in %s says why).",
				    report_model_unjoined(m), m->run.cjoin.results,
				    bundle_art(BA_KERNELS_MD));
			return;
		}
		if (!sk) {
			strbuf_addstr(out,
				      "The pipeline finished; every report below is complete.");
			return;
		}
		/* only counter steps (select, ncu, join) can be skipped here */
		strbuf_addf(out,
			    "The pipeline finished without kernel counters (step '%s' skipped: "
			    "%s); the counter columns show n/a.",
			    sk->name, sk->reason ? sk->reason : "no reason recorded");
		return;
	}
	if (!f && report_model_interrupted_step(m)) {
		const struct report_step *in = report_model_interrupted_step(m);

		strbuf_addf(out,
			    "INCOMPLETE: step '%s' was %s. The reports show what was done before "
			    "the interrupt; what is missing shows n/a.",
			    in->name, in->reason ? in->reason : "interrupted");
		return;
	}
	strbuf_addf(out, "INCOMPLETE: the pipeline did not finish (state: %s)",
		    m->run.state ? m->run.state : "failed");
	if (f)
		strbuf_addf(out, "; step '%s' failed: %s", f->name,
			    f->reason ? f->reason : "no reason recorded");
	strbuf_addstr(out, ". Sections that need later steps say what is missing.");
}
