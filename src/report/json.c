/* json.c: metrics.json (schema: docs/metrics-json.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/jsonutil.h"
#include "model/format.h"
#include "report/report.h"
#include "core/banned.h"

#define METRICS_SCHEMA "llmprof.metrics/1"

/* Unknown numbers (and NaN, which jansson refuses) become null. */
static json_t *jnum(struct rnum v)
{
	if (!v.available || !isfinite(v.v))
		return json_null();
	return json_real(v.v);
}

static json_t *jint_or_null(long long v)
{
	return v > 0 ? json_integer(v) : json_null();
}

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v ? v : json_null());
}

/* Trace strings may be in any encoding: bad UTF-8 becomes U+FFFD, not a dropped value. */
static json_t *jstr_checked(const char *s)
{
	return s ? json_string_lossy(s) : json_null();
}

/* The counter join: null when it did not run; else how many results
 * joined by which rule, and every unmatched one with its reason. */
static json_t *counter_join_json(const struct report_counter_join *cj)
{
	json_t *o, *un;

	if (!cj->ran)
		return json_null();
	o = json_object();
	un = json_array();
	set(o, "results", json_integer((json_int_t)cj->results));
	set(o, "joined", json_integer((json_int_t)cj->joined));
	set(o, "by_launch_index", json_integer((json_int_t)cj->by_launch));
	set(o, "by_mangled_name", json_integer((json_int_t)cj->by_mangled));
	set(o, "by_name", json_integer((json_int_t)cj->by_name));
	set(o, "by_normalised_name", json_integer((json_int_t)cj->by_normalised));
	set(o, "range_results", json_integer((json_int_t)cj->ranges));
	for (size_t i = 0; i < cj->nr_unjoined; i++) {
		const struct report_unjoined *u = &cj->unjoined[i];

		json_array_append_new(
		    un, json_pack("{s:I,s:I,s:o,s:[iii],s:[iii],s:o}", "id", (json_int_t)u->id,
				  "pid", (json_int_t)u->pid, "name", jstr_checked(u->name), "grid",
				  u->grid[0], u->grid[1], u->grid[2], "block", u->block[0],
				  u->block[1], u->block[2], "reason", jstr_checked(u->reason)));
	}
	set(o, "unmatched", un);
	return o;
}

static json_t *run_json(const struct report_model *m)
{
	json_t *o = json_object(), *steps = json_array();

	set(o, "run_id", jstr_checked(m->run.run_id));
	set(o, "state", jstr_checked(report_model_state(m)));
	set(o, "finished", json_boolean(report_model_finished(m)));
	set(o, "mode", jstr_checked(m->run.mode));
	set(o, "started_at", jstr_checked(m->run.started_at));
	set(o, "trace", jstr_checked(m->run.trace_path));
	set(o, "ncu_csv", jstr_checked(m->run.ncu_path));
	for (size_t i = 0; i < m->run.nr_steps; i++) {
		json_t *s = json_object();
		set(s, "name", jstr_checked(m->run.steps[i].name));
		set(s, "status", json_string(step_state_name(m->run.steps[i].status)));
		set(s, "reason", jstr_checked(m->run.steps[i].reason));
		json_array_append_new(steps, s);
	}
	set(o, "steps", steps);
	set(o, "counter_join", counter_join_json(&m->run.cjoin));
	return o;
}

/* A rank, local rank or world size: 0 is a value, -1 is not recorded. */
static json_t *jid(int v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* The run's rank identity (one process), null without one. */
static json_t *ident_json(const struct report_identity *id)
{
	json_t *o;

	if (!id->from || id->rank < 0)
		return json_null();
	o = json_object();
	set(o, "rank", jid(id->rank));
	set(o, "local_rank", jid(id->local_rank));
	set(o, "world_size", jid(id->world_size));
	set(o, "launcher", jstr_checked(id->launcher));
	set(o, "source", jstr_checked(id->source));
	set(o, "host", jstr_checked(id->host));
	set(o, "from", jstr_checked(id->from));
	return o;
}

static json_t *env_json(const struct report_model *m)
{
	const struct report_env *e = &m->env;
	json_t *o = json_object(), *tools = json_object();

	set(o, "device", jstr_checked(report_device_label(e->device)));
	set(o, "gpu", jstr_checked(e->gpu_name));
	set(o, "sm_count", jint_or_null(e->sm_count));
	set(o, "compute_capability", jstr_checked(e->compute_capability));
	set(o, "gpu_memory_gib", jnum(e->gpu_memory_gib));
	set(o, "sm_clock_mhz", jnum(e->sm_clock_mhz));
	set(o, "driver", jstr_checked(e->driver));
	set(o, "cuda", jstr_checked(e->cuda));
	set(o, "host", jstr_checked(e->host));
	set(o, "cpu", jstr_checked(e->cpu));
	set(o, "rank", ident_json(&e->ident));
	for (size_t i = 0; i < e->nr_tools; i++)
		set(tools, e->tools[i].name, jstr_checked(e->tools[i].version));
	set(o, "tools", tools);
	return o;
}

static json_t *llm_json(const struct report_model *m)
{
	const struct report_llm *l = &m->llm;
	json_t *o = json_object();

	set(o, "name", jstr_checked(l->name));
	set(o, "arch", jstr_checked(l->arch));
	set(o, "params", jnum(l->params));
	set(o, "hidden_size", jint_or_null(l->hidden_size));
	set(o, "intermediate_size", jint_or_null(l->intermediate_size));
	set(o, "num_layers", jint_or_null(l->num_layers));
	set(o, "num_heads", jint_or_null(l->num_heads));
	set(o, "num_kv_heads", jint_or_null(l->num_kv_heads));
	set(o, "head_dim", jint_or_null(l->head_dim));
	set(o, "vocab_size", jint_or_null(l->vocab_size));
	set(o, "dtype", jstr_checked(l->dtype));
	set(o, "batch_size", jint_or_null(l->batch_size));
	set(o, "prompt_len", jint_or_null(l->prompt_len));
	set(o, "new_tokens", jint_or_null(l->new_tokens));
	set(o, "cuda_graph", l->cuda_graph < 0 ? json_null() : json_boolean(l->cuda_graph));
	return o;
}

/* Groups of CPU samples: name, samples, ms and detail under key dk. */
static json_t *sample_groups_json(const struct report_sample_group *g, size_t n, const char *dk)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *c = json_object();

		set(c, "name", jstr_checked(g[i].name));
		set(c, dk, jstr_checked(g[i].detail));
		set(c, "samples", json_integer((json_int_t)g[i].samples));
		set(c, "ms", jnum(g[i].ms));
		json_array_append_new(a, c);
	}
	return a;
}

/* "tracer_cost": what tracing cost (docs/metrics-json.md); absent without
 * a trace. */
static void tracer_cost_json(json_t *root, const struct report_tracer_cost *c)
{
	static const char *const basis[] = {NULL, "measured", "not_recorded", "nsys"};
	int ref =
	    c->ref_traced_s.available && c->ref_untraced_s.available && c->ref_untraced_s.v > 0;
	json_t *o;

	if ((c->basis <= 0 || c->basis > 3) && !ref)
		return;
	o = json_object();
	set(o, "basis", c->basis > 0 && c->basis <= 3 ? json_string(basis[c->basis]) : json_null());
	if (ref) { /* pipeline.trace.reference_run_max_s */
		json_t *r = json_object();

		set(r, "traced_wall_s", jnum(c->ref_traced_s));
		set(r, "untraced_wall_s", jnum(c->ref_untraced_s));
		set(r, "ratio", json_real(c->ref_traced_s.v / c->ref_untraced_s.v));
		set(o, "reference_run", r);
	}
	if (c->basis == 1) {
		set(o, "processes", json_integer((json_int_t)c->processes));
		set(o, "hooks", json_integer((json_int_t)c->hooks));
		set(o, "hooks_ms", jnum(c->hooks_ms));
		set(o, "api_ms", jnum(c->api_ms));
		set(o, "nvtx_ms", jnum(c->nvtx_ms));
		set(o, "background", json_integer((json_int_t)c->background));
		set(o, "background_ms", jnum(c->background_ms));
		set(o, "cpu_ms", jnum(c->cpu_ms));
		set(o, "wall_ms", jnum(c->wall_ms));
		set(o, "share_of_cpu",
		    c->cpu_ms.v > 0 ? json_real((c->hooks_ms.v + c->background_ms.v) / c->cpu_ms.v)
				    : json_null());
	}
	set(root, "tracer_cost", o);
}

/* "pytorch": what the PyTorch startup module did, from its log
 * (docs/metrics-json.md); absent when the program was not given it. */
static void pytorch_json(json_t *root, const struct report_pytorch *p)
{
	json_t *o;
	int est;

	if (!p->given)
		return;
	o = json_object();
	set(o, "mode", json_string(report_pytorch_mode(p)));
	set(o, "processes", json_integer((json_int_t)p->processes));
	set(o, "torch", p->torch ? json_string(p->torch) : json_null());
	set(o, "errors", json_integer((json_int_t)p->failed));
	set(o, "first_error", p->failure ? json_string(p->failure) : json_null());
	if (p->auto_procs) {
		set(o, "auto_budget_pct", json_real(p->budget_pct));
		set(o, "auto_kept", json_integer((json_int_t)p->auto_kept));
		set(o, "auto_off", json_integer((json_int_t)p->auto_off));
	}
	set(o, "costed_processes", json_integer((json_int_t)p->costed));
	set(o, "module_calls", json_integer((json_int_t)p->calls));
	set(o, "ranges", json_integer((json_int_t)p->ranges));
	set(o, "hooks_ms", p->costed ? json_real(p->hook_ms) : json_null());
	est = report_pytorch_slowdown(p).available;
	set(o, "call_path_ms", est ? json_real(p->path_ms) : json_null());
	set(o, "estimated_ms", est ? json_real(p->est_ms) : json_null());
	set(o, "wall_ms", est ? json_real(p->wall_ms) : json_null());
	set(o, "estimated_slowdown", jnum(report_pytorch_slowdown(p)));
	set(root, "pytorch", o);
}

/* "cpu_sampler": the sampler's own cost, timed inside its handler; absent
 * without the sampler's totals. */
static void cpu_sampler_json(json_t *root, const struct report_cpu_sampler *c)
{
	json_t *o;
	double ms = c->handler_ms.v, total = c->sampled_ms.v;

	if (!c->processes)
		return;
	o = json_object();
	set(o, "processes", json_integer((json_int_t)c->processes));
	set(o, "samples", json_integer((json_int_t)c->calls));
	set(o, "handler_ms", jnum(c->handler_ms));
	set(o, "sampled_ms", jnum(c->sampled_ms));
	set(o, "per_sample_us",
	    c->calls ? jnum(rnum_of(ms * 1e3 / (double)c->calls)) : json_null());
	set(o, "share_of_sampled", total > 0 ? jnum(rnum_of(ms / total)) : json_null());
	set(root, "cpu_sampler", o);
}

/* The stage's CPU samples (docs/report.md "Where the CPU time goes"); the
 * key is absent without samples, the outside_* keys are null when the trace
 * does not record every CUDA API call. */
static json_t *cpu_samples_json(const struct report_stage *s)
{
	json_t *o = json_object();

	set(o, "samples", json_integer((json_int_t)s->cpu_samples));
	set(o, "ms", jnum(s->sampled_ms));
	set(o, "categories", sample_groups_json(s->sample_cats, s->nr_sample_cats, "function"));
	set(o, "functions", sample_groups_json(s->sample_funcs, s->nr_sample_funcs, "library"));
	if (s->sampled_outside_ms.available) {
		set(o, "outside_cuda_samples", json_integer((json_int_t)s->cpu_samples_outside));
		set(o, "outside_cuda_ms", jnum(s->sampled_outside_ms));
		set(o, "outside_cuda_categories",
		    sample_groups_json(s->sample_outside_cats, s->nr_sample_outside_cats,
				       "function"));
	} else {
		set(o, "outside_cuda_samples", NULL);
		set(o, "outside_cuda_ms", NULL);
		set(o, "outside_cuda_categories", NULL);
	}
	return o;
}

/* Where the stage's CPU time went; NULL when the trace does not record
 * every CUDA API call (the key is then absent). */
static json_t *cpu_time_json(const struct report_stage *s)
{
	json_t *o, *calls;

	if (!s->api_ms.available)
		return NULL;
	o = json_object();
	calls = json_array();
	set(o, "cpu_ms", jnum(s->cpu_ms));
	set(o, "api_ms", jnum(s->api_ms));
	set(o, "host_ms", jnum(s->host_ms));
	set(o, "api_calls", json_integer((json_int_t)s->api_calls));
	for (size_t i = 0; i < s->nr_api_top; i++) {
		json_t *c = json_object();

		set(c, "name", jstr_checked(s->api_top[i].name));
		set(c, "ms", jnum(s->api_top[i].ms));
		set(c, "calls", json_integer((json_int_t)s->api_top[i].calls));
		json_array_append_new(calls, c);
	}
	set(o, "top", calls);
	set(o, "other_ms", jnum(s->api_rest_ms));
	set(o, "other_calls", json_integer((json_int_t)s->api_rest_calls));
	return o;
}

static json_t *stage_json(const struct report_stage *s)
{
	json_t *o = json_object(), *steps = json_object(), *u = json_object();

	set(o, "name", jstr_checked(s->name));
	set(o, "role", json_string(report_role_name(s->role)));
	set(o, "instances", json_integer((json_int_t)s->instances));
	set(o, "cpu_ms", jnum(s->cpu_ms));
	set(o, "gpu_ms", jnum(s->gpu_ms));
	set(o, "busy_ms", jnum(s->busy_ms));
	set(o, "idle_ms", jnum(s->idle_ms));
	set(o, "kernels", json_integer((json_int_t)s->kernels));
	set(o, "launches_per_s", jnum(s->launches_per_s));
	set(o, "host_copies", json_integer((json_int_t)s->copies));
	set(o, "host_copy_ms", jnum(s->copy_ms));
	set(o, "host_copy_bytes", jnum(s->copy_bytes));
	set(steps, "count", json_integer((json_int_t)s->steps));
	set(steps, "mean_ms", jnum(s->step_mean_ms));
	set(steps, "p50_ms", jnum(s->step_p50_ms));
	set(steps, "p90_ms", jnum(s->step_p90_ms));
	set(steps, "max_ms", jnum(s->step_max_ms));
	set(steps, "basis", json_string("gpu_span"));
	set(steps, "wall_ms", jnum(s->step_wall_ms));
	set(o, "steps", steps);
	set(u, "time_ms", jnum(report_stage_time_ms(s)));
	set(u, "flops", jnum(s->flops));
	set(u, "bytes", jnum(s->bytes));
	set(u, "counter_flops", jnum(s->counter_flops));
	set(u, "counter_time_share", jnum(s->counter_time_share));
	set(u, "achieved_tflops", jnum(s->achieved_tflops));
	set(u, "achieved_gbs", jnum(s->achieved_gbs));
	set(u, "mfu_datasheet", jnum(s->mfu_datasheet));
	set(u, "mfu_measured", jnum(s->mfu_measured));
	set(u, "mbu_datasheet", jnum(s->mbu_datasheet));
	set(u, "mbu_measured", jnum(s->mbu_measured));
	set(u, "counter_mfu_datasheet", jnum(s->counter_mfu_datasheet));
	set(u, "counter_bytes", jnum(s->counter_bytes));
	set(u, "mfu_counter", jnum(s->mfu_counter));
	set(u, "mbu_counter", jnum(s->mbu_counter));
	set(u, "judged_by",
	    s->role == REPORT_ROLE_PREFILL  ? json_string("mfu")
	    : s->role == REPORT_ROLE_DECODE ? json_string("mbu")
					    : json_null());
	set(o, "utilization", u);
	if (s->api_ms.available)
		set(o, "cpu_time", cpu_time_json(s));
	if (s->cpu_samples)
		set(o, "cpu_samples", cpu_samples_json(s));
	return o;
}

static json_t *kernel_json(const struct report_kernel *k)
{
	json_t *o = json_object(), *c;

	set(o, "name", jstr_checked(k->short_name));
	set(o, "full_name", jstr_checked(k->full_name));
	set(o, "device", jstr_checked(k->device));
	set(o, "stage", jstr_checked(k->stage));
	set(o, "calls", json_integer((json_int_t)k->calls));
	set(o, "prefill_calls", json_integer((json_int_t)k->stage_calls[REPORT_ROLE_PREFILL]));
	set(o, "decode_calls", json_integer((json_int_t)k->stage_calls[REPORT_ROLE_DECODE]));
	set(o, "total_ns", json_integer((json_int_t)k->total_ns));
	set(o, "exposed_ns", json_integer((json_int_t)k->exposed_ns));
	set(o, "prefill_exposed_ns",
	    json_integer((json_int_t)k->stage_exposed_ns[REPORT_ROLE_PREFILL]));
	set(o, "decode_exposed_ns",
	    json_integer((json_int_t)k->stage_exposed_ns[REPORT_ROLE_DECODE]));
	set(o, "mean_ns",
	    k->calls ? json_real((double)k->total_ns / (double)k->calls) : json_null());
	set(o, "pct_gpu_time", jnum(k->pct_gpu));
	set(o, "operator", jstr_checked(k->op));
	set(o, "operators", json_integer((json_int_t)k->nr_ops));
	set(o, "selected", json_boolean(k->selected));
	if (!k->c->profiled) {
		set(o, "counters", json_null());
		return o;
	}
	c = json_object();
	set(c, "profiled_launches", json_integer((json_int_t)k->c->profiled));
	set(c, "duration_ns", jnum(k->c->duration_ns));
	set(c, "compute_sol_pct", jnum(k->c->sm_sol_pct));
	set(c, "memory_sol_pct", jnum(k->c->mem_sol_pct));
	set(c, "dram_sol_pct", jnum(k->c->dram_sol_pct));
	set(c, "achieved_occupancy_pct", jnum(k->c->occupancy_pct));
	set(c, "flops_hp", jnum(k->c->flops_hp));
	set(c, "flops_sp", jnum(k->c->flops_sp));
	set(c, "flops_dp", jnum(k->c->flops_dp));
	set(c, "flops_tensor", jnum(k->c->flops_tensor));
	set(c, "flops", jnum(k->c->flops));
	set(c, "dram_bytes", jnum(k->c->dram_bytes));
	set(c, "arithmetic_intensity", jnum(k->c->ai));
	set(c, "achieved_tflops", jnum(k->c->achieved_tflops));
	set(c, "bound", json_string(kernel_bound_name(k->c->bound)));
	set(o, "counters", c);
	return o;
}

/* "kernels": the top m->table_rows (all when they fit); past them,
 * "kernels_other" sums the rest, so that calls and times still add up
 * (every kernel is in kernels.tsv). */
static void kernels_json(const struct report_model *m, json_t *root)
{
	size_t n = report_rows_shown(m->table_rows, m->nr_kernels);
	uint64_t calls = 0, total = 0, exposed = 0;
	double pct = 0;
	json_t *a = json_array(), *o;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, kernel_json(&m->kernels[i]));
	set(root, "kernels", a);
	if (n == m->nr_kernels)
		return;
	for (size_t i = n; i < m->nr_kernels; i++) {
		calls += m->kernels[i].calls;
		total += m->kernels[i].total_ns;
		exposed += m->kernels[i].exposed_ns;
		pct += m->kernels[i].pct_gpu.available ? m->kernels[i].pct_gpu.v : 0;
	}
	o = json_object();
	set(o, "kernels", json_integer((json_int_t)(m->nr_kernels - n)));
	set(o, "calls", json_integer((json_int_t)calls));
	set(o, "total_ns", json_integer((json_int_t)total));
	set(o, "exposed_ns", json_integer((json_int_t)exposed));
	set(o, "pct_gpu_time", json_real(pct));
	set(o, "listed_in", json_string(bundle_art(BA_KERNELS_TSV)));
	set(root, "kernels_other", o);
}

/* "operators": the top m->table_rows; "operators_other" sums the rest's
 * calls and own GPU and CPU time. */
static void operators_json(const struct report_model *m, json_t *root)
{
	size_t n = report_rows_shown(m->table_rows, m->nr_ops);
	uint64_t calls = 0;
	double gpu = 0, cpu = 0;
	json_t *a = json_array(), *o;

	for (size_t i = 0; i < n; i++) {
		const struct report_operator *op = &m->ops[i];

		o = json_object();
		set(o, "name", jstr_checked(op->name));
		if (op->cls)
			set(o, "class", jstr_checked(op->cls));
		set(o, "stage", jstr_checked(op->stage));
		set(o, "calls", json_integer((json_int_t)op->calls));
		set(o, "gpu_ms", jnum(op->gpu_ms));
		set(o, "gpu_incl_ms", jnum(op->gpu_incl_ms));
		set(o, "cpu_ms", jnum(op->cpu_ms));
		set(o, "share_of_stage", jnum(op->share_of_stage));
		json_array_append_new(a, o);
	}
	set(root, "operators", a);
	if (n == m->nr_ops)
		return;
	for (size_t i = n; i < m->nr_ops; i++) {
		calls += m->ops[i].calls;
		gpu += m->ops[i].gpu_ms.available ? m->ops[i].gpu_ms.v : 0;
		cpu += m->ops[i].cpu_ms.available ? m->ops[i].cpu_ms.v : 0;
	}
	o = json_object();
	set(o, "operators", json_integer((json_int_t)(m->nr_ops - n)));
	set(o, "calls", json_integer((json_int_t)calls));
	set(o, "gpu_ms", json_real(gpu));
	set(o, "cpu_ms", json_real(cpu));
	set(root, "operators_other", o);
}

static json_t *rank_stage_json(const struct report_rank_stage *s)
{
	json_t *o;

	if (!s->found)
		return json_null();
	o = json_object();
	set(o, "instances", json_integer((json_int_t)s->instances));
	set(o, "kernels", json_integer((json_int_t)s->kernels));
	set(o, "steps", json_integer((json_int_t)s->steps));
	set(o, "cpu_ms", jnum(s->cpu_ms));
	set(o, "gpu_ms", jnum(s->gpu_ms));
	set(o, "gpu_busy_ms", jnum(s->busy_ms));
	set(o, "gpu_idle_ms", jnum(s->idle_ms));
	set(o, "step_p50_ms", jnum(s->step_p50_ms));
	set(o, "step_p90_ms", jnum(s->step_p90_ms));
	set(o, "step_max_ms", jnum(s->step_max_ms));
	set(o, "flops", jnum(s->flops));
	set(o, "bytes", jnum(s->bytes));
	set(o, "mfu_datasheet", jnum(s->mfu_datasheet));
	set(o, "mfu_measured", jnum(s->mfu_measured));
	set(o, "mbu_datasheet", jnum(s->mbu_datasheet));
	set(o, "mbu_measured", jnum(s->mbu_measured));
	return o;
}

/* cross_rank.utilization: how the model's work is shared; null without one */
static json_t *rank_util_json(const struct report_ranks *rs)
{
	static const char *const names[] = {NULL, "replicas", "model-parallel", "unknown"};
	json_t *o;

	if (rs->util_split == RANK_SPLIT_NONE)
		return json_null();
	o = json_object();
	set(o, "split", json_string(names[rs->util_split]));
	set(o, "divisor",
	    rs->util_split == RANK_SPLIT_UNKNOWN
		? json_null()
		: json_integer(rs->util_split == RANK_SPLIT_GROUP ? (json_int_t)rs->nr : 1));
	set(o, "basis", jstr_checked(rs->util_basis));
	return o;
}

/* A rank's "top_kernels": at most rows (0 = all), then
 * "top_kernels_other" summing the rest (kernels, calls, total_ms). */
static void rank_top_kernels(size_t rows, const struct report_rank *r, json_t *o)
{
	size_t n = report_rows_shown(rows, r->nr_kern);
	uint64_t calls = 0, ns = 0;
	json_t *a = json_array(), *rest;

	for (size_t i = 0; i < n; i++) {
		json_t *k = json_object();

		set(k, "name", jstr_checked(r->kern[i].name));
		set(k, "calls", json_integer((json_int_t)r->kern[i].calls));
		set(k, "total_ms", json_real((double)r->kern[i].total_ns / 1e6));
		json_array_append_new(a, k);
	}
	set(o, "top_kernels", a);
	if (n == r->nr_kern)
		return;
	for (size_t i = n; i < r->nr_kern; i++) {
		calls += r->kern[i].calls;
		ns += r->kern[i].total_ns;
	}
	rest = json_object();
	set(rest, "kernels", json_integer((json_int_t)(r->nr_kern - n)));
	set(rest, "calls", json_integer((json_int_t)calls));
	set(rest, "total_ms", json_real((double)ns / 1e6));
	set(o, "top_kernels_other", rest);
}
static json_t *rank_json(const struct report_rank *r, size_t rows)
{
	json_t *o = json_object(), *a;

	set(o, "label", jstr_checked(r->label));
	set(o, "pid", json_integer((json_int_t)r->pid));
	set(o, "rank", jid(r->rank));
	set(o, "local_rank", jid(r->local_rank));
	set(o, "world_size", jid(r->world_size));
	set(o, "rank_source", jstr_checked(r->rank_source));
	set(o, "host", jstr_checked(r->host));
	set(o, "launcher", jstr_checked(r->launcher));
	set(o, "gpu", jstr_checked(r->gpu));
	set(o, "slowest", json_boolean(r->slowest));
	set(o, "prefill", rank_stage_json(&r->stages[REPORT_ROLE_PREFILL]));
	set(o, "decode", rank_stage_json(&r->stages[REPORT_ROLE_DECODE]));
	set(o, "ttft_ms", jnum(r->ttft_ms));
	set(o, "tpot_ms", jnum(r->tpot_ms));
	set(o, "gpu_span_ms", jnum(r->gpu_span_ms));
	set(o, "gpu_busy_ms", jnum(r->gpu_busy_ms));
	set(o, "kernels", json_integer((json_int_t)r->kernels));
	set(o, "kernel_ms", json_real((double)r->kernel_ns / 1e6));
	rank_top_kernels(rows, r, o);
	a = json_array();
	for (size_t i = 0; i < r->nr_ops; i++) {
		json_t *k = json_object();

		set(k, "name", jstr_checked(r->ops[i].name));
		set(k, "stage", jstr_checked(r->ops[i].stage));
		set(k, "calls", json_integer((json_int_t)r->ops[i].calls));
		set(k, "gpu_ms", jnum(r->ops[i].gpu_ms));
		json_array_append_new(a, k);
	}
	set(o, "operators", a);
	return o;
}

static json_t *spread_json(const struct report_ranks *rs, const struct report_spread *sp)
{
	json_t *o = json_object();

	set(o, "min_ms", jnum(sp->min));
	set(o, "median_ms", jnum(sp->med));
	set(o, "max_ms", jnum(sp->max));
	set(o, "max_on", sp->max_rank >= 0 ? jstr_checked(rs->v[sp->max_rank].label) : json_null());
	return o;
}

/* "ranks" and "cross_rank": only with several processes, so a one-process
 * metrics.json is unchanged. */
static void ranks_json(json_t *root, const struct report_ranks *rs, size_t rows)
{
	json_t *a, *o;

	if (rs->nr < 2)
		return;
	a = json_array();
	for (size_t i = 0; i < rs->nr; i++)
		json_array_append_new(a, rank_json(&rs->v[i], rows));
	set(root, "ranks", a);
	o = json_object();
	set(o, "processes", json_integer((json_int_t)rs->nr));
	set(o, "identified", json_boolean(rs->identified));
	set(o, "prefill_gpu", spread_json(rs, &rs->stage_gpu[REPORT_ROLE_PREFILL]));
	set(o, "decode_gpu", spread_json(rs, &rs->stage_gpu[REPORT_ROLE_DECODE]));
	set(o, "decode_step_p50", spread_json(rs, &rs->step_p50));
	set(o, "slowest", rs->slowest >= 0 ? jstr_checked(rs->v[rs->slowest].label) : json_null());
	set(o, "slowest_by", jstr_checked(rs->slowest_by));
	set(o, "utilization", rank_util_json(rs));
	set(root, "cross_rank", o);
}

static json_t *ms_json(int64_t ns)
{
	return json_real((double)ns / 1e6);
}

static json_t *coll_rank_json(const struct report_rank *r)
{
	const struct report_rank_coll *c = &r->coll;
	json_t *o = json_object(), *a = json_array();

	set(o, "label", jstr_checked(r->label));
	set(o, "host", jstr_checked(r->host));
	set(o, "calls", json_integer((json_int_t)c->calls));
	set(o, "unmatched", json_integer((json_int_t)c->unmatched));
	set(o, "time_ms", ms_json(c->comm_ns));
	set(o, "exposed_ms", ms_json(c->exposed_ns));
	set(o, "wait_ms", ms_json(c->wait_ns));
	set(o, "transfer_ms", ms_json(c->transfer_ns));
	set(o, "clock_offset_ms", ms_json(c->clock_offset_ns));
	for (size_t i = 0; i < c->nr_types; i++) {
		const struct report_coll_type *t = &c->types[i];
		json_t *x = json_object();

		set(x, "type", jstr_checked(t->type));
		set(x, "calls", json_integer((json_int_t)t->calls));
		set(x, "matched", json_integer((json_int_t)t->matched));
		set(x, "time_ms", ms_json(t->total_ns));
		set(x, "wait_ms", ms_json(t->wait_ns));
		set(x, "transfer_ms", ms_json(t->transfer_ns));
		json_array_append_new(a, x);
	}
	set(o, "by_type", a);
	a = json_array();
	for (size_t i = 0; i < c->nr_stages; i++) {
		const struct report_coll_stage *t = &c->stages[i];
		json_t *x = json_object();

		set(x, "stage", jstr_checked(t->stage));
		set(x, "windows", json_integer((json_int_t)t->windows));
		set(x, "window_ms", ms_json(t->window_ns));
		set(x, "time_ms", ms_json(t->comm_ns));
		set(x, "exposed_ms", ms_json(t->exposed_ns));
		json_array_append_new(a, x);
	}
	set(o, "stages", a);
	return o;
}

static json_t *coll_hosts_json(const struct report_collectives *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->nr_hosts; i++) {
		const struct report_coll_host *h = &c->hosts[i];
		json_t *x = json_object();

		set(x, "host", jstr_checked(h->name));
		set(x, "ranks", json_integer((json_int_t)h->ranks));
		set(x, "aligned", json_boolean(h->aligned));
		set(x, "offset_ms", ms_json(h->offset_ns));
		set(x, "samples", json_integer((json_int_t)h->samples));
		set(x, "residual_ms", ms_json(h->residual_ns));
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *late_json(const struct report_late *l)
{
	json_t *o = json_object();

	set(o, "n", json_integer((json_int_t)l->n));
	set(o, "mean_us", l->n ? json_real(l->mean_ns / 1e3) : json_null());
	set(o, "p50_us", l->n ? json_real(l->p50_ns / 1e3) : json_null());
	set(o, "p90_us", l->n ? json_real(l->p90_ns / 1e3) : json_null());
	set(o, "max_us", l->n ? json_real(l->max_ns / 1e3) : json_null());
	return o;
}

static json_t *us_or_null(double ns)
{
	return isnan(ns) ? json_null() : json_real(ns / 1e3);
}

json_t *report_straggle_json(json_t *rank, const struct report_coll_straggle *s)
{
	json_t *x = json_object(), *d = json_object();

	set(x, "rank", rank);
	set(x, "stage", jstr_checked(s->stage));
	set(x, "collectives", json_integer((json_int_t)s->instances));
	set(x, "last", json_integer((json_int_t)s->count));
	set(x, "late", late_json(&s->late));
	set(x, "early", late_json(&s->early));
	set(x, "steady", late_json(&s->steady));
	set(x, "early_is", json_string(s->early_by_steps ? "first 2 steps" : "first tenth"));
	set(x, "early_collectives", json_integer((json_int_t)s->early_instances));
	set(x, "cause", jstr_checked(s->cause));
	set(d, "collectives", json_integer((json_int_t)s->explained));
	set(d, "gpu_busy_us", us_or_null(s->explained ? s->busy_ns : NAN));
	set(d, "gpu_idle_us", us_or_null(s->explained ? s->idle_ns : NAN));
	set(d, "kernels", s->explained ? json_real(s->kernels) : json_null());
	set(x, "launch_lag_us", us_or_null(s->explained ? s->lag_ns : NAN));
	set(x, "others_launch_lag_us", us_or_null(s->explained ? s->others_lag_ns : NAN));
	set(d, "others_busy_us", us_or_null(s->explained ? s->busy_med_ns : NAN));
	set(x, "more_than_others", d);
	d = json_object();
	set(d, "collectives", json_integer((json_int_t)s->extra_n));
	set(d, "gpu_busy_us", us_or_null(s->extra_n ? s->extra_busy_ns : NAN));
	set(d, "kernels", s->extra_n ? json_real(s->extra_kernels) : json_null());
	set(x, "extra_kernels", d);
	return x;
}

/* Per stage, the ranks late at its collectives, with their cause. */
static json_t *straggles_json(const struct report_ranks *rs)
{
	const struct report_collectives *c = &rs->coll;
	json_t *a = json_array();

	for (size_t i = 0; i < c->nr_straggles; i++)
		json_array_append_new(
		    a, report_straggle_json(jstr_checked(rs->v[c->straggles[i].rank_index].label),
					    &c->straggles[i]));
	return a;
}

/* "collectives": only when several processes ran NCCL kernels. */
static void collectives_json(json_t *root, const struct report_ranks *rs)
{
	const struct report_collectives *c = &rs->coll;
	json_t *o, *a;

	if (rs->nr < 2 || !c->available)
		return;
	o = json_object();
	set(o, "calls", json_integer((json_int_t)c->calls));
	set(o, "matched", json_integer((json_int_t)c->instances));
	a = json_array();
	for (size_t i = 0; i < rs->nr; i++)
		json_array_append_new(a, coll_rank_json(&rs->v[i]));
	set(o, "ranks", a);
	a = json_array();
	for (size_t i = 0; i < c->nr_stragglers; i++) {
		const struct report_coll_straggler *s = &c->stragglers[i];
		json_t *x = json_object();

		set(x, "rank", jstr_checked(rs->v[s->rank_index].label));
		set(x, "last", json_integer((json_int_t)s->count));
		set(x, "share", json_real(s->share));
		set(x, "mean_late_ms", json_real(s->mean_late_ns / 1e6));
		set(x, "late_ms", ms_json(s->late_ns));
		json_array_append_new(a, x);
	}
	set(o, "stragglers", a);
	set(o, "late_by_stage", straggles_json(rs));
	set(o, "hosts", coll_hosts_json(c));
	a = json_object();
	set(a, "median_ms", ms_json(c->residual_median_ns));
	set(a, "max_ms", ms_json(c->residual_max_ns));
	set(a, "samples", json_integer((json_int_t)c->residual_samples));
	set(o, "clock_residual", a);
	a = json_array();
	for (size_t i = 0; i < c->nr_mismatches; i++) {
		const struct report_coll_mismatch *x = &c->mismatches[i];
		json_t *j = json_object();

		set(j, "type", jstr_checked(x->type));
		set(j, "stream", json_integer((json_int_t)x->stream));
		set(j, "min_calls", json_integer((json_int_t)x->min_calls));
		set(j, "min_on",
		    x->min_rank >= 0 ? jstr_checked(rs->v[x->min_rank].label) : json_null());
		set(j, "max_calls", json_integer((json_int_t)x->max_calls));
		set(j, "max_on",
		    x->max_rank >= 0 ? jstr_checked(rs->v[x->max_rank].label) : json_null());
		set(j, "ranks_short", json_integer((json_int_t)x->ranks_short));
		json_array_append_new(a, j);
	}
	set(o, "mismatches", a);
	set(root, "collectives", o);
}

/* "nccl_calls": the NCCL API calls and their bytes, per process and type,
 * only when the trace has NCCL calls, or (with "collectives") NCCL kernels
 * without them. */
static void nccl_calls_json(json_t *root, const struct report_ranks *rs)
{
	const struct report_collectives *c = &rs->coll;
	json_t *o, *a;

	if (!c->nr_api && !(c->bytes_why && rs->nr >= 2 && c->available))
		return;
	o = json_object();
	set(o, "bytes_unknown_why", jstr_checked(c->bytes_why));
	a = json_array();
	for (size_t i = 0; i < c->nr_api; i++) {
		const struct report_nccl_api *r = &c->api[i];
		json_t *x = json_object();

		set(x, "process", jstr_checked(r->label));
		set(x, "type", jstr_checked(r->type));
		set(x, "op", jstr_checked(r->op));
		set(x, "calls", json_integer((json_int_t)r->calls));
		set(x, "sized_calls", json_integer((json_int_t)r->sized));
		set(x, "bytes", r->sized ? json_integer((json_int_t)r->bytes) : json_null());
		set(x, "bytes_per_call",
		    r->sized ? json_real((double)r->bytes / (double)r->sized) : json_null());
		set(x, "launched_calls", json_integer((json_int_t)r->launched));
		set(x, "kernels", json_integer((json_int_t)r->kernels));
		set(x, "kernel_time_ms", ms_json(r->kernel_ns));
		set(x, "ranks", r->nranks > 0 ? json_integer(r->nranks) : json_null());
		set(x, "algbw_gbps", jnum(r->algbw_gbs));
		set(x, "busbw_gbps", jnum(r->busbw_gbs));
		json_array_append_new(a, x);
	}
	set(o, "by_process", a);
	set(root, "nccl_calls", o);
}

/* The trust report: null when no trace was checked, else its items. */
static json_t *trust_json(const struct report_trust *tr)
{
	json_t *a;

	if (!tr->checked)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < tr->nr; i++) {
		const struct report_trust_item *it = &tr->v[i];
		json_t *o = json_object();
		int judged = it->threshold != UINT64_MAX;

		set(o, "code", json_string(it->code));
		set(o, "what", jstr_checked(it->what));
		set(o, "count", json_integer((json_int_t)it->count));
		set(o, "threshold", judged ? json_integer((json_int_t)it->threshold) : json_null());
		set(o, "above_threshold", json_boolean(judged && it->count > it->threshold));
		set(o, "affects", json_string(it->affects));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *strv_json(char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jstr_checked(v[i]));
	return a;
}

int report_render_metrics_json(const struct report_model *m, struct strbuf *out, struct strbuf *err)
{
	json_t *root = json_object(), *a, *o;
	char *text;
	int ret = -1;

	set(root, "schema", json_string(METRICS_SCHEMA));
	set(root, "run", run_json(m));
	set(root, "environment", env_json(m));
	set(root, "model", llm_json(m));

	a = json_array();
	for (size_t i = 0; i < m->nr_stages; i++)
		json_array_append_new(a, stage_json(&m->stages[i]));
	set(root, "stages", a);

	o = json_object();
	set(o, "ttft_ms", jnum(m->agg.ttft_ms));
	set(o, "tpot_ms", jnum(m->agg.tpot_ms));
	set(o, "tpot_basis", m->agg.tpot_basis ? json_string(m->agg.tpot_basis) : json_null());
	set(o, "tokens_per_s", jnum(m->agg.tokens_per_s));
	set(o, "tokens", jnum(m->agg.tokens));
	set(o, "e2e_ms", jnum(m->agg.e2e_ms));
	set(o, "gpu_span_ms", jnum(m->agg.gpu_span_ms));
	set(o, "gpu_busy_ms", jnum(m->agg.gpu_busy_ms));
	set(o, "gpu_idle_ms", jnum(m->agg.gpu_idle_ms));
	set(root, "aggregates", o);

	kernels_json(m, root);
	operators_json(m, root);
	if (m->nr_op_classes) {
		a = json_array();
		for (size_t i = 0; i < m->nr_op_classes; i++) {
			const struct report_op_class *c = &m->op_classes[i];

			o = json_object();
			set(o, "class", jstr_checked(c->cls));
			set(o, "stage", jstr_checked(c->stage));
			set(o, "operators", json_integer((json_int_t)c->operators));
			set(o, "calls", json_integer((json_int_t)c->calls));
			set(o, "gpu_ms", jnum(c->gpu_ms));
			set(o, "gpu_incl_ms", jnum(c->gpu_incl_ms));
			set(o, "share_of_stage", jnum(c->share_of_stage));
			json_array_append_new(a, o);
		}
		set(root, "operator_classes", a);
	}

	if (m->sel.available) {
		o = json_object();
		set(o, "stage", jstr_checked(m->sel.stage));
		set(o, "top_n", json_integer((json_int_t)m->sel.top_n));
		set(o, "coverage_target", json_real(m->sel.coverage_target));
		set(o, "coverage", jnum(m->sel.coverage));
		set(o, "selected", json_integer((json_int_t)m->sel.nr_selected));
		set(o, "candidates", json_integer((json_int_t)m->sel.nr_candidates));
		set(o, "reasons", strv_json(m->sel.reasons, m->sel.nr_reasons));
		set(root, "selection", o);
	} else {
		set(root, "selection", json_null());
	}

	o = json_object();
	set(o, "precision", jstr_checked(m->peaks.precision));
	set(o, "device_key", jstr_checked(m->peaks.device_key));
	set(o, "datasheet_tflops", jnum(m->peaks.datasheet_tflops));
	set(o, "datasheet_gbs", jnum(m->peaks.datasheet_gbs));
	set(o, "datasheet_source", jstr_checked(m->peaks.datasheet_source));
	set(o, "datasheet_tflops_estimated", json_boolean(m->peaks.tflops_estimated));
	set(o, "datasheet_gbs_estimated", json_boolean(m->peaks.gbs_estimated));
	set(o, "measured_tflops", jnum(m->peaks.measured_tflops));
	set(o, "measured_gbs", jnum(m->peaks.measured_gbs));
	set(o, "measured_source", jstr_checked(m->peaks.measured_source));
	set(o, "notes", strv_json(m->peaks.notes, m->peaks.nr_notes));
	set(root, "peaks", o);

	a = json_array();
	for (size_t i = 0; i < m->nr_findings; i++) {
		const struct report_finding *f = &m->findings[i];
		o = json_object();
		set(o, "severity", json_string(finding_severity_name(f->severity)));
		set(o, "code", jstr_checked(f->code));
		set(o, "text", jstr_checked(f->text));
		set(o, "recommendation", jstr_checked(f->recommendation));
		set(o, "saving_ms", jnum(f->saving_ms));
		set(o, "saving_per", f->saving_unit ? json_string(f->saving_unit) : json_null());
		set(o, "saving_run_ms", jnum(f->saving_run_ms));
		json_array_append_new(a, o);
	}
	set(root, "findings", a);
	set(root, "trust", trust_json(&m->trust));
	cpu_sampler_json(root, &m->cpu_sampler);
	tracer_cost_json(root, &m->tracer_cost);
	pytorch_json(root, &m->pytorch);
	ranks_json(root, &m->ranks, m->table_rows);
	collectives_json(root, &m->ranks);
	nccl_calls_json(root, &m->ranks);

	/* 10 significant digits: enough for ns sums over hours, stable across libcs */
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	if (!text) {
		error_set(err, "%s: cannot encode JSON", bundle_art(BA_METRICS_JSON));
		goto out;
	}
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
	ret = 0;
out:
	json_decref(root);
	return ret;
}
