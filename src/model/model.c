/* model.c: lifetime of the report model and the derivations every writer
 * shares (so Markdown, JSON and HTML can never disagree on a number). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/model.h"
#include "core/banned.h"

/* A kernel is compute- or memory-bound when its higher SOL % reaches this;
 * below it neither unit is busy and launch/latency effects dominate
 * (Nsight Compute's own guidance treats < 60 % of peak as latency-limited). */
#define BOUND_SOL_MIN_PCT 60.0

void report_model_init(struct report_model *m)
{
	memset(m, 0, sizeof(*m));
	m->llm.cuda_graph = -1;
	m->ranks.slowest = -1;
	m->env.ident.rank = m->env.ident.local_rank = m->env.ident.world_size = -1;
}

void report_set_str(char **field, const char *s)
{
	free(*field);
	*field = s ? xstrdup(s) : NULL;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void coll_release(struct report_collectives *c)
{
	for (size_t i = 0; i < c->nr_api; i++) {
		free(c->api[i].label);
		free(c->api[i].type);
		free(c->api[i].op);
	}
	free(c->api);
	free(c->bytes_why);
	free(c->stragglers);
	for (size_t i = 0; i < c->nr_straggles; i++) {
		free(c->straggles[i].stage);
		free(c->straggles[i].cause);
	}
	free(c->straggles);
	for (size_t i = 0; i < c->nr_hosts; i++)
		free(c->hosts[i].name);
	free(c->hosts);
	for (size_t i = 0; i < c->nr_mismatches; i++)
		free(c->mismatches[i].type);
	free(c->mismatches);
	for (size_t i = 0; i < c->nr_findings; i++) {
		free(c->findings[i].code);
		free(c->findings[i].text);
		free(c->findings[i].recommendation);
	}
	free(c->findings);
}

static void ranks_release(struct report_ranks *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct report_rank *k = &r->v[i];

		free(k->label);
		free(k->host);
		free(k->launcher);
		free(k->rank_source);
		free(k->gpu);
		for (size_t j = 0; j < k->nr_kern; j++)
			free(k->kern[j].name);
		free(k->kern);
		for (size_t j = 0; j < k->nr_ops; j++) {
			free(k->ops[j].name);
			free(k->ops[j].stage);
		}
		free(k->ops);
		for (size_t j = 0; j < k->coll.nr_types; j++)
			free(k->coll.types[j].type);
		free(k->coll.types);
		for (size_t j = 0; j < k->coll.nr_stages; j++)
			free(k->coll.stages[j].stage);
		free(k->coll.stages);
	}
	free(r->v);
	free(r->slowest_by);
	free(r->util_basis);
	coll_release(&r->coll);
}

static void report_sample_groups_free(struct report_sample_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		free(g[i].detail);
	}
	free(g);
}

void report_model_release_timeline(struct report_model *m)
{
	for (size_t i = 0; i < m->timeline.nr_lanes; i++) {
		free(m->timeline.lanes[i].name);
		free(m->timeline.lanes[i].iv);
	}
	free(m->timeline.lanes);
	free_strv(m->timeline.labels, m->timeline.nr_labels);
	memset(&m->timeline, 0, sizeof(m->timeline));
}

void report_model_release(struct report_model *m)
{
	size_t i;

	ranks_release(&m->ranks);
	for (i = 0; i < m->trust.nr; i++)
		free(m->trust.v[i].what);
	free(m->trust.v);
	free(m->ncu.source);
	free(m->run.run_id);
	free(m->run.state);
	free(m->run.mode);
	free(m->run.started_at);
	free(m->run.trace_path);
	free(m->run.ncu_path);
	free(m->run.counters_stage);
	for (i = 0; i < m->run.cjoin.nr_unjoined; i++) {
		free(m->run.cjoin.unjoined[i].name);
		free(m->run.cjoin.unjoined[i].reason);
	}
	free(m->run.cjoin.unjoined);
	for (i = 0; i < m->run.nr_steps; i++) {
		free(m->run.steps[i].name);
		free(m->run.steps[i].reason);
	}
	free(m->run.steps);

	free(m->env.gpu_name);
	free(m->env.compute_capability);
	free(m->env.driver);
	free(m->env.cuda);
	free(m->env.host);
	free(m->env.cpu);
	free(m->env.ident.launcher);
	free(m->env.ident.source);
	free(m->env.ident.from);
	free(m->env.ident.host);
	for (i = 0; i < m->env.nr_tools; i++) {
		free(m->env.tools[i].name);
		free(m->env.tools[i].version);
	}
	free(m->env.tools);

	free(m->llm.name);
	free(m->llm.arch);
	free(m->llm.dtype);

	for (i = 0; i < m->nr_stages; i++) {
		free(m->stages[i].name);
		free(m->stages[i].step_kernels);
		free(m->stages[i].sample_ns);
		free(m->stages[i].step_period_ns);
		for (size_t j = 0; j < m->stages[i].nr_api_top; j++)
			free(m->stages[i].api_top[j].name);
		free(m->stages[i].api_top);
		report_sample_groups_free(m->stages[i].sample_cats, m->stages[i].nr_sample_cats);
		report_sample_groups_free(m->stages[i].sample_funcs, m->stages[i].nr_sample_funcs);
		report_sample_groups_free(m->stages[i].sample_outside_cats,
					  m->stages[i].nr_sample_outside_cats);
	}
	free(m->stages);
	for (i = 0; i < m->nr_kernels; i++) {
		if (m->kernels[i].c != &report_no_counters)
			free((void *)m->kernels[i].c);
		if (m->kernels[i].full_name != m->kernels[i].short_name)
			free(m->kernels[i].full_name);
		free(m->kernels[i].short_name);
		free(m->kernels[i].device);
		free(m->kernels[i].mangled);
		free(m->kernels[i].op);
		free(m->kernels[i].stage);
	}
	free(m->kernels);
	for (i = 0; i < m->nr_ops; i++) {
		free(m->ops[i].name);
		free(m->ops[i].cls);
		free(m->ops[i].stage);
	}
	free(m->ops);
	for (i = 0; i < m->nr_op_classes; i++) {
		free(m->op_classes[i].cls);
		free(m->op_classes[i].stage);
	}
	free(m->op_classes);

	free(m->sel.stage);
	free_strv(m->sel.reasons, m->sel.nr_reasons);

	free(m->peaks.precision);
	free(m->peaks.device_key);
	free(m->peaks.datasheet_source);
	free(m->peaks.measured_source);
	free_strv(m->peaks.notes, m->peaks.nr_notes);

	report_model_release_timeline(m);

	free(m->pytorch.log_err);
	free(m->pytorch.torch);
	free(m->pytorch.failure);

	for (i = 0; i < m->nr_findings; i++) {
		free(m->findings[i].code);
		free(m->findings[i].text);
		free(m->findings[i].recommendation);
	}
	free(m->findings);
	report_model_init(m);
}

struct report_step *report_model_add_step(struct report_model *m, const char *name,
					  enum step_state status, const char *reason)
{
	struct report_step *s;

	ALLOC_GROW(m->run.steps, m->run.nr_steps + 1, m->run.alloc_steps);
	s = &m->run.steps[m->run.nr_steps++];
	memset(s, 0, sizeof(*s));
	report_set_str(&s->name, name);
	s->status = status;
	report_set_str(&s->reason, reason);
	return s;
}

struct report_stage *report_model_add_stage(struct report_model *m, const char *name,
					    enum report_role role)
{
	struct report_stage *s;

	ALLOC_GROW(m->stages, m->nr_stages + 1, m->alloc_stages);
	s = &m->stages[m->nr_stages++];
	memset(s, 0, sizeof(*s));
	report_set_str(&s->name, name);
	s->role = role;
	return s;
}

const struct report_counters report_no_counters;

struct report_counters *report_kernel_counters(struct report_kernel *k)
{
	if (k->c == &report_no_counters)
		k->c = xcalloc(1, sizeof(*k->c));
	return (struct report_counters *)k->c;
}

struct report_kernel *report_model_add_kernel(struct report_model *m, const char *short_name,
					      const char *full_name)
{
	struct report_kernel *k;

	ALLOC_GROW(m->kernels, m->nr_kernels + 1, m->alloc_kernels);
	k = &m->kernels[m->nr_kernels++];
	memset(k, 0, sizeof(*k));
	k->c = &report_no_counters;
	report_set_str(&k->short_name, short_name);
	/* most traces name a kernel once: the two names are then one string
	 * (a million distinct names would otherwise hold each twice) */
	if (!full_name || (short_name && !strcmp(full_name, short_name)))
		k->full_name = k->short_name;
	else
		report_set_str(&k->full_name, full_name);
	return k;
}

struct report_operator *report_model_add_operator(struct report_model *m, const char *name,
						  const char *stage)
{
	struct report_operator *o;

	ALLOC_GROW(m->ops, m->nr_ops + 1, m->alloc_ops);
	o = &m->ops[m->nr_ops++];
	memset(o, 0, sizeof(*o));
	report_set_str(&o->name, name);
	report_set_str(&o->stage, stage);
	return o;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

struct report_op_class *report_model_op_class(struct report_model *m, const char *cls,
					      const char *stage)
{
	struct report_op_class *c;

	for (size_t i = 0; i < m->nr_op_classes; i++)
		if (same_str(m->op_classes[i].cls, cls) && same_str(m->op_classes[i].stage, stage))
			return &m->op_classes[i];
	ALLOC_GROW(m->op_classes, m->nr_op_classes + 1, m->alloc_op_classes);
	c = &m->op_classes[m->nr_op_classes++];
	memset(c, 0, sizeof(*c));
	report_set_str(&c->cls, cls);
	report_set_str(&c->stage, stage);
	return c;
}

struct report_lane *report_model_add_lane(struct report_model *m, const char *name,
					  enum lane_kind kind)
{
	struct report_lane *l;

	ALLOC_GROW(m->timeline.lanes, m->timeline.nr_lanes + 1, m->timeline.alloc_lanes);
	l = &m->timeline.lanes[m->timeline.nr_lanes++];
	memset(l, 0, sizeof(*l));
	report_set_str(&l->name, name);
	l->kind = kind;
	return l;
}

void report_lane_add(struct report_lane *lane, int64_t start_ns, int64_t end_ns, const char *label)
{
	struct report_interval *iv;

	ALLOC_GROW(lane->iv, lane->nr + 1, lane->alloc);
	iv = &lane->iv[lane->nr++];
	iv->start_ns = start_ns;
	iv->end_ns = end_ns < start_ns ? start_ns : end_ns;
	iv->label = label;
}

void report_model_add_tool(struct report_model *m, const char *name, const char *version)
{
	struct report_tool *t;

	ALLOC_GROW(m->env.tools, m->env.nr_tools + 1, m->env.alloc_tools);
	t = &m->env.tools[m->env.nr_tools++];
	t->name = xstrdup(name);
	t->version = xstrdup(version ? version : "");
}

static char *vformat(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb, NULL);
}

void report_model_add_note(struct report_model *m, const char *fmt, ...)
{
	va_list ap;

	ALLOC_GROW(m->peaks.notes, m->peaks.nr_notes + 1, m->peaks.alloc_notes);
	va_start(ap, fmt);
	m->peaks.notes[m->peaks.nr_notes++] = vformat(fmt, ap);
	va_end(ap);
}

void report_model_add_reason(struct report_model *m, const char *fmt, ...)
{
	va_list ap;

	ALLOC_GROW(m->sel.reasons, m->sel.nr_reasons + 1, m->sel.alloc_reasons);
	va_start(ap, fmt);
	m->sel.reasons[m->sel.nr_reasons++] = vformat(fmt, ap);
	va_end(ap);
}

void report_model_add_finding(struct report_model *m, enum finding_severity sev, const char *code,
			      const char *recommendation, const char *fmt, ...)
{
	struct report_finding *f;
	va_list ap;

	ALLOC_GROW(m->findings, m->nr_findings + 1, m->alloc_findings);
	f = &m->findings[m->nr_findings++];
	f->severity = sev;
	f->saving_ms = f->saving_run_ms = RNUM_NONE;
	f->saving_unit = NULL;
	f->code = xstrdup(code);
	f->recommendation = recommendation ? xstrdup(recommendation) : NULL;
	va_start(ap, fmt);
	f->text = vformat(fmt, ap);
	va_end(ap);
}

struct report_trust_item *report_model_add_trust(struct report_model *m, const char *code,
						 uint64_t count, uint64_t threshold,
						 const char *affects, const char *fmt, ...)
{
	struct report_trust_item *it;
	va_list ap;

	ALLOC_GROW(m->trust.v, m->trust.nr + 1, m->trust.alloc);
	it = &m->trust.v[m->trust.nr++];
	it->code = code;
	it->count = count;
	it->threshold = threshold;
	it->affects = affects;
	va_start(ap, fmt);
	it->what = vformat(fmt, ap);
	va_end(ap);
	return it;
}

const struct report_stage *report_model_stage_by_role(const struct report_model *m,
						      enum report_role role)
{
	for (size_t i = 0; i < m->nr_stages; i++)
		if (m->stages[i].role == role)
			return &m->stages[i];
	return NULL;
}

const struct report_stage *report_model_stage_by_name(const struct report_model *m,
						      const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < m->nr_stages; i++)
		if (m->stages[i].name && !strcmp(m->stages[i].name, name))
			return &m->stages[i];
	return NULL;
}

const struct report_step *report_model_failed_step(const struct report_model *m)
{
	for (size_t i = 0; i < m->run.nr_steps; i++)
		if (m->run.steps[i].status == STEP_FAILED)
			return &m->run.steps[i];
	return NULL;
}

const struct report_step *report_model_interrupted_step(const struct report_model *m)
{
	for (size_t i = 0; i < m->run.nr_steps; i++)
		if (m->run.steps[i].status == STEP_INTERRUPTED)
			return &m->run.steps[i];
	return NULL;
}

int report_model_finished(const struct report_model *m)
{
	if (m->run.state)
		return !strcmp(m->run.state, "complete");
	return !report_model_failed_step(m) && !report_model_interrupted_step(m);
}

const struct report_step *report_model_gap_step(const struct report_model *m)
{
	for (size_t i = 0; i < m->run.nr_steps; i++) {
		const struct report_step *s = &m->run.steps[i];

		if (s->status == STEP_SKIPPED && strcmp(s->name, "select") &&
		    strcmp(s->name, "ncu") && strcmp(s->name, "join"))
			return s;
	}
	return NULL;
}

size_t report_model_unjoined(const struct report_model *m)
{
	return m->run.cjoin.nr_unjoined;
}

int report_model_complete(const struct report_model *m)
{
	return report_model_finished(m) && !report_model_gap_step(m) && !report_model_unjoined(m);
}

const char *report_model_state(const struct report_model *m)
{
	if (m->run.state)
		return m->run.state;
	if (!report_model_finished(m))
		return report_model_failed_step(m) ? "failed" : "interrupted";
	return report_model_gap_step(m) || report_model_unjoined(m) ? "incomplete" : "complete";
}

const char *report_device_label(enum report_device d)
{
	switch (d) {
	case REPORT_DEVICE_CPU_NO_GPU:
		return "CPU (no GPU found)";
	case REPORT_DEVICE_CPU:
		return "CPU (device=cpu)";
	case REPORT_DEVICE_GPU:
		break;
	}
	return NULL;
}

int report_peak_estimated(const struct report_model *m, int compute)
{
	return compute ? m->peaks.tflops_estimated : m->peaks.gbs_estimated;
}

const char *report_role_name(enum report_role role)
{
	switch (role) {
	case REPORT_ROLE_PREFILL:
		return "prefill";
	case REPORT_ROLE_DECODE:
		return "decode";
	case REPORT_ROLE_OTHER:
		break;
	}
	return "other";
}

const char *kernel_bound_name(enum kernel_bound b)
{
	switch (b) {
	case BOUND_COMPUTE:
		return "compute";
	case BOUND_MEMORY:
		return "memory";
	case BOUND_LATENCY:
		return "latency";
	case BOUND_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *finding_severity_name(enum finding_severity s)
{
	switch (s) {
	case FINDING_CRITICAL:
		return "critical";
	case FINDING_WARNING:
		return "warning";
	case FINDING_INFO:
		break;
	}
	return "info";
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct report_kernel *x = a, *y = b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	c = strcmp(x->short_name ? x->short_name : "", y->short_name ? y->short_name : "");
	if (c)
		return c;
	c = strcmp(x->full_name ? x->full_name : "", y->full_name ? y->full_name : "");
	if (c)
		return c;
	return strcmp(x->device ? x->device : "", y->device ? y->device : "");
}

static int cmp_operator(const void *a, const void *b)
{
	const struct report_operator *x = a, *y = b;
	double gx = x->gpu_ms.available ? x->gpu_ms.v : -1,
	       gy = y->gpu_ms.available ? y->gpu_ms.v : -1;
	int c;

	if (gx != gy)
		return gx > gy ? -1 : 1;
	/* no GPU time (the CPU path): the CPU time orders them instead */
	gx = x->cpu_ms.available ? x->cpu_ms.v : -1;
	gy = y->cpu_ms.available ? y->cpu_ms.v : -1;
	if (gx != gy)
		return gx > gy ? -1 : 1;
	c = strcmp(x->stage ? x->stage : "", y->stage ? y->stage : "");
	if (c)
		return c;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static void derive_counters(struct report_counters *c)
{
	if (!c->profiled)
		return;
	if (!c->flops.available) {
		double sum = 0;
		int any = 0;
		const struct rnum *parts[] = {&c->flops_hp, &c->flops_sp, &c->flops_dp,
					      &c->flops_tensor};
		for (size_t i = 0; i < 4; i++)
			if (parts[i]->available) {
				sum += parts[i]->v;
				any = 1;
			}
		if (any)
			c->flops = rnum_of(sum);
	}
	if (!c->ai.available && c->flops.available && c->dram_bytes.available &&
	    c->dram_bytes.v > 0)
		c->ai = rnum_of(c->flops.v / c->dram_bytes.v);
	if (!c->achieved_tflops.available && c->flops.available && c->duration_ns.available &&
	    c->duration_ns.v > 0)
		c->achieved_tflops = rnum_of(c->flops.v / c->duration_ns.v / 1e3);
	if (c->bound == BOUND_UNKNOWN && c->sm_sol_pct.available &&
	    (c->mem_sol_pct.available || c->dram_sol_pct.available)) {
		double mem = c->mem_sol_pct.available ? c->mem_sol_pct.v : c->dram_sol_pct.v;
		double hi = mem > c->sm_sol_pct.v ? mem : c->sm_sol_pct.v;

		if (hi < BOUND_SOL_MIN_PCT)
			c->bound = BOUND_LATENCY;
		else
			c->bound = c->sm_sol_pct.v >= mem ? BOUND_COMPUTE : BOUND_MEMORY;
	}
}

struct rnum report_stage_time_ms(const struct report_stage *s)
{
	if (s->gpu_ms.available && s->gpu_ms.v > 0)
		return s->gpu_ms;
	if (s->cpu_ms.available && s->cpu_ms.v > 0)
		return s->cpu_ms;
	return RNUM_NONE;
}

static struct rnum ratio(struct rnum num, double scale, struct rnum den)
{
	if (!num.available || !den.available || den.v <= 0)
		return RNUM_NONE;
	return rnum_of(num.v / scale / den.v);
}

void report_stage_derive(struct report_stage *s, const struct report_peaks *p)
{
	struct rnum t = report_stage_time_ms(s);

	if (!s->idle_ms.available && s->gpu_ms.available && s->busy_ms.available)
		s->idle_ms = rnum_of(s->gpu_ms.v > s->busy_ms.v ? s->gpu_ms.v - s->busy_ms.v : 0);
	if (!s->launches_per_s.available && s->kernels && s->cpu_ms.available && s->cpu_ms.v > 0)
		s->launches_per_s = rnum_of((double)s->kernels / (s->cpu_ms.v / 1e3));
	if (!t.available)
		return;
	/* FLOP per ms / 1e9 = TFLOP/s; byte per ms / 1e6 = GB/s */
	if (!s->achieved_tflops.available)
		s->achieved_tflops = ratio(s->flops, 1e9, t);
	if (!s->achieved_gbs.available)
		s->achieved_gbs = ratio(s->bytes, 1e6, t);
	if (!s->mfu_datasheet.available)
		s->mfu_datasheet = ratio(s->achieved_tflops, 1, p->datasheet_tflops);
	if (!s->mfu_measured.available)
		s->mfu_measured = ratio(s->achieved_tflops, 1, p->measured_tflops);
	if (!s->mbu_datasheet.available)
		s->mbu_datasheet = ratio(s->achieved_gbs, 1, p->datasheet_gbs);
	if (!s->mbu_measured.available)
		s->mbu_measured = ratio(s->achieved_gbs, 1, p->measured_gbs);
	if (!s->counter_mfu_datasheet.available)
		s->counter_mfu_datasheet =
		    ratio(ratio(s->counter_flops, 1e9, t), 1, p->datasheet_tflops);
	/* the measured part scaled by its coverage: the rest of the stage's
	 * kernel time is assumed to run at the same rates */
	if (s->counter_time_share.available && s->counter_time_share.v > 0) {
		if (!s->mfu_counter.available)
			s->mfu_counter =
			    ratio(ratio(ratio(s->counter_flops, 1e9, t), 1, s->counter_time_share),
				  1, p->datasheet_tflops);
		if (!s->mbu_counter.available)
			s->mbu_counter =
			    ratio(ratio(ratio(s->counter_bytes, 1e6, t), 1, s->counter_time_share),
				  1, p->datasheet_gbs);
	}
}

static void derive_aggregates(struct report_model *m)
{
	const struct report_stage *pre = report_model_stage_by_role(m, REPORT_ROLE_PREFILL);
	const struct report_stage *dec = report_model_stage_by_role(m, REPORT_ROLE_DECODE);
	struct report_aggregates *a = &m->agg;

	/* A prefill range may be popped before its kernels finish (nothing
	 * syncs): the first token exists when the GPU work launched inside the
	 * range has ended too, so from the range's start to the later of the
	 * two ends (without that, the later of CPU time and GPU span). */
	if (!a->ttft_ms.available && pre && pre->instances) {
		double t = pre->done_ms.available ? pre->done_ms.v : -1;

		if (t < 0 && pre->cpu_ms.available) {
			t = pre->cpu_ms.v;
			if (pre->gpu_ms.available && pre->gpu_ms.v > t)
				t = pre->gpu_ms.v;
		}
		if (t >= 0)
			a->ttft_ms = rnum_of(t / (double)pre->instances);
	}
	/* TPOT and tokens/s over one decode time, so that tokens/s = batch /
	 * TPOT: the steps' wall time, first step's start to last step's end,
	 * host gaps included (what the user waits for each token) */
	if (dec && dec->steps && dec->step_wall_ms.available && dec->step_wall_ms.v > 0) {
		if (!a->tpot_ms.available) {
			a->tpot_ms = rnum_of(dec->step_wall_ms.v / (double)dec->steps);
			a->tpot_basis = "wall";
		}
		if (!a->tokens_per_s.available && m->llm.batch_size > 0)
			a->tokens_per_s = rnum_of((double)dec->steps * m->llm.batch_size /
						  (dec->step_wall_ms.v / 1e3));
	}
	/* without step ranges' times (a model built elsewhere), and when the
	 * trace lost some steps' kernels: per recorded step of GPU time */
	if (dec && dec->steps_recorded > 0 && dec->gpu_ms.available) {
		if (!a->tpot_ms.available) {
			a->tpot_ms = rnum_of(dec->gpu_ms.v / dec->steps_recorded);
			a->tpot_basis = "gpu_span";
		}
		if (!a->tokens_per_s.available && m->llm.batch_size > 0 && dec->gpu_ms.v > 0)
			a->tokens_per_s = rnum_of(dec->steps_recorded * m->llm.batch_size /
						  (dec->gpu_ms.v / 1e3));
	}
	if (!a->tpot_ms.available && dec && dec->step_mean_ms.available) {
		a->tpot_ms = dec->step_mean_ms;
		a->tpot_basis = "gpu_span";
	}
	if (!a->tokens.available && dec && dec->steps && m->llm.batch_size > 0)
		a->tokens = rnum_of((double)dec->steps * m->llm.batch_size);
	/* over the decode's GPU span, first to last decode kernel: the CPU range
	 * can end before the GPU has decoded (nothing syncs) or open while the
	 * GPU still runs the prefill (the CPU ran ahead); CPU time without GPU
	 * work */
	if (!a->tokens_per_s.available && a->tokens.available && dec) {
		double t = dec->gpu_ms.available && dec->gpu_ms.v > 0 ? dec->gpu_ms.v
			   : dec->cpu_ms.available		      ? dec->cpu_ms.v
								      : 0;
		if (t > 0)
			a->tokens_per_s = rnum_of(a->tokens.v / (t / 1e3));
	}
	if (!a->gpu_idle_ms.available && a->gpu_span_ms.available && a->gpu_busy_ms.available)
		a->gpu_idle_ms = rnum_of(
		    a->gpu_span_ms.v > a->gpu_busy_ms.v ? a->gpu_span_ms.v - a->gpu_busy_ms.v : 0);
}

/* Does a per-launch counter taken in run.stage `taken` describe this stage's
 * launches? A kernel name can run with other shapes in another stage (a GEMM
 * in prefill is a GEMV in decode), so counters apply only where they were
 * taken; for "all" (or unknown), only to kernels that ran in one stage. */
unsigned report_counter_roles(const char *taken)
{
	if (!taken || !strcmp(taken, "all"))
		return (1u << REPORT_ROLE_PREFILL) | (1u << REPORT_ROLE_DECODE);
	if (!strcmp(taken, "prefill"))
		return 1u << REPORT_ROLE_PREFILL;
	if (!strcmp(taken, "decode") || !strcmp(taken, "decode_step"))
		return 1u << REPORT_ROLE_DECODE;
	return 0;
}

static int counters_apply(const char *taken, const struct report_stage *st,
			  const struct report_kernel *k)
{
	if (!(report_counter_roles(taken) & (1u << st->role)))
		return 0;
	if (!taken || !strcmp(taken, "all"))
		return k->stage && st->name && !strcmp(k->stage, st->name);
	return 1;
}

/* ncu FLOPs per launch x the kernel's launches inside the stage (never its
 * warm-up or other-stage launches), over the kernels with counters. */
static void stage_counter_flops(struct report_model *m, struct report_stage *st)
{
	double sum = 0, bytes = 0, counted_ns = 0, all_ns = 0;
	int any = 0, all_bytes = 1;

	if (st->role != REPORT_ROLE_PREFILL && st->role != REPORT_ROLE_DECODE)
		return;
	for (size_t j = 0; j < m->nr_kernels; j++) {
		const struct report_kernel *k = &m->kernels[j];

		all_ns += (double)k->stage_ns[st->role];
		if (!k->c->flops.available || !k->stage_calls[st->role] ||
		    !counters_apply(m->run.counters_stage, st, k))
			continue;
		sum += k->c->flops.v * (double)k->stage_calls[st->role];
		if (k->c->dram_bytes.available)
			bytes += k->c->dram_bytes.v * (double)k->stage_calls[st->role];
		else
			all_bytes = 0;
		counted_ns += (double)k->stage_ns[st->role];
		any = 1;
	}
	if (!any)
		return;
	st->counter_flops = rnum_of(sum);
	if (all_bytes)
		st->counter_bytes = rnum_of(bytes);
	if (all_ns > 0)
		st->counter_time_share = rnum_of(counted_ns / all_ns);
}

void report_model_derive(struct report_model *m)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < m->nr_kernels; i++)
		total += m->kernels[i].total_ns;
	for (i = 0; i < m->nr_kernels; i++) {
		struct report_kernel *k = &m->kernels[i];

		if (!k->pct_gpu.available && total)
			k->pct_gpu = rnum_of(100.0 * (double)k->total_ns / (double)total);
		if (k->c != &report_no_counters)
			derive_counters(report_kernel_counters(k));
	}
	if (m->nr_kernels > 1)
		qsort(m->kernels, m->nr_kernels, sizeof(*m->kernels), cmp_kernel);

	for (i = 0; i < m->nr_stages; i++) {
		struct report_stage *st = &m->stages[i];

		if (!st->counter_flops.available && !m->run.counters_by_class)
			stage_counter_flops(m, st);
		report_stage_derive(st, &m->peaks);
	}
	for (i = 0; i < m->nr_ops; i++) {
		struct report_operator *o = &m->ops[i];
		const struct report_stage *s = report_model_stage_by_name(m, o->stage);

		if (!o->share_of_stage.available && o->gpu_ms.available && s &&
		    s->gpu_ms.available && s->gpu_ms.v > 0)
			o->share_of_stage = rnum_of(o->gpu_ms.v / s->gpu_ms.v);
	}
	if (m->nr_ops > 1)
		qsort(m->ops, m->nr_ops, sizeof(*m->ops), cmp_operator);
	derive_aggregates(m);
}
