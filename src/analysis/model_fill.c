/* model_fill.c: the analyze step's result copied into the report model:
 * stages, kernels (with their per-stage split), operators, the timeline's
 * lanes, the GPU from the trace, and the findings only the timeline knows;
 * see session.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/stage_suggest.h"
#include "analysis/exposed.h"
#include "analysis/findings.h"
#include "analysis/trust.h"
#include "analysis/session.h"
#include "core/md.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

static struct rnum ms_of(int64_t ns)
{
	return rnum_of((double)ns / 1e6);
}

static const char *str_or(const struct strtab *st, int32_t id, const char *dflt)
{
	const char *s = strtab_str(st, id);

	return s ? s : dflt;
}

/* A copy of a stage role's per-instance GPU times into s. */
static void copy_samples(struct report_stage *s, const struct stage_timing *st)
{
	if (!st->ninst)
		return;
	s->sample_ns = xmalloc(st_mult(st->ninst, sizeof(*s->sample_ns)));
	memcpy(s->sample_ns, st->inst_ns, st->ninst * sizeof(*s->sample_ns));
	s->nr_samples = st->ninst;
}

/* Where the stage's CPU time went, when the trace records every CUDA API
 * call: API time, host time, the longest calls by name. */
static void fill_cpu_api(struct report_stage *s, const struct stage_timing *st)
{
	const struct cpu_api_use *u = &st->api;
	int64_t rest = 0;
	uint64_t rest_calls = 0;

	s->api_ms = ms_of(u->ns);
	s->api_calls = u->calls;
	s->host_ms = ms_of(st->cpu_ns > u->ns ? st->cpu_ns - u->ns : 0);
	s->nr_api_top = u->nnames < REPORT_API_TOP ? u->nnames : REPORT_API_TOP;
	s->api_top = xcalloc(s->nr_api_top + 1, sizeof(*s->api_top));
	for (size_t i = 0; i < u->nnames; i++) {
		if (i < s->nr_api_top) {
			s->api_top[i].name = xstrdup(u->names[i].name);
			s->api_top[i].ms = ms_of(u->names[i].ns);
			s->api_top[i].calls = u->names[i].calls;
		} else {
			rest = i64_sat_add(rest, u->names[i].ns);
			rest_calls += u->names[i].calls;
		}
	}
	s->api_rest_ms = ms_of(rest);
	s->api_rest_calls = rest_calls;
}

/* n groups of set g (names from t) as the model's, owned. */
static struct report_sample_group *sample_groups(const struct cpu_sample_group *g, size_t n,
						 const struct trace *t, size_t *nout)
{
	struct report_sample_group *v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		v[i].name = xstrdup(str_or(&t->strs, g[i].name, "(unknown)"));
		v[i].detail = xstrdup(str_or(&t->strs, g[i].detail, "(unknown)"));
		v[i].samples = g[i].samples;
		v[i].ms = ms_of(g[i].ns);
	}
	*nout = n;
	return v;
}

/* The stage's CPU samples, when the trace has any. */
static void fill_cpu_samples(struct report_stage *s, const struct stage_timing *st,
			     const struct trace *t, int api_complete)
{
	const struct cpu_sample_use *u = &st->samples;

	s->cpu_samples = u->all.samples;
	s->sampled_ms = ms_of(u->all.ns);
	s->sample_cats = sample_groups(u->all.cats, u->all.ncats, t, &s->nr_sample_cats);
	s->sample_funcs = sample_groups(
	    u->all.funcs, u->all.nfuncs < REPORT_SAMPLE_TOP ? u->all.nfuncs : REPORT_SAMPLE_TOP, t,
	    &s->nr_sample_funcs);
	if (!api_complete)
		return;
	s->cpu_samples_outside = u->outside.samples;
	s->sampled_outside_ms = ms_of(u->outside.ns);
	s->sample_outside_cats =
	    sample_groups(u->outside.cats, u->outside.ncats, t, &s->nr_sample_outside_cats);
}

static void fill_stages(struct report_model *m, const struct timeline *tl, const struct trace *t)
{
	static const enum report_role roles[2] = {REPORT_ROLE_PREFILL, REPORT_ROLE_DECODE};

	for (int r = STAGE_PREFILL; r <= STAGE_DECODE; r++) {
		const struct stage_timing *st = &tl->stages[r];
		struct report_stage *s;

		if (!tl->stage_found[r])
			continue;
		s = report_model_add_stage(m, stage_role_name(r), roles[r]);
		s->instances = st->instances;
		s->cpu_ms = ms_of(st->cpu_ns);
		/* no GPU work in the stage: its GPU span is unknown, not 0 */
		if (st->proj_ns > 0 || st->kernels) {
			s->gpu_ms = ms_of(st->proj_ns);
			s->busy_ms = ms_of(st->busy_ns);
			s->idle_ms = ms_of(st->idle_ns);
		}
		s->kernels = st->kernels;
		for (size_t k = 0; tl->kernel_stages && k < t->nkernels; k++)
			s->graph_kernels += (tl->kernel_stages[k] & (1u << r)) &&
					    trace_ksig(t, &t->kernels[k])->graph_node >= 0;
		s->copies = st->copies;
		if (st->copies) {
			s->copy_ms = ms_of(st->copy_ns);
			s->copy_bytes = rnum_of((double)st->copy_bytes);
		}
		if (st->wall_ns > 0)
			s->done_ms = ms_of(st->wall_ns);
		if (st->cpu_ns > 0)
			s->launches_per_s = rnum_of(st->launches_per_s);
		if (tl->api_complete)
			fill_cpu_api(s, st);
		if (tl->cpu_samples)
			fill_cpu_samples(s, st, t, tl->api_complete);
		if (r != STAGE_DECODE || !tl->stage_found[STAGE_DECODE_STEP])
			copy_samples(s, st);
		if (r == STAGE_DECODE && tl->stage_found[STAGE_DECODE_STEP]) {
			copy_samples(s, &tl->stages[STAGE_DECODE_STEP]);
			const struct stage_timing *ds = &tl->stages[STAGE_DECODE_STEP];

			s->steps = ds->instances;
			if (tl->nstep_kernels) {
				s->step_kernels =
				    xmalloc(st_mult(tl->nstep_kernels, sizeof(*s->step_kernels)));
				for (size_t i = 0; i < tl->nstep_kernels; i++)
					s->step_kernels[i] = tl->step_kernels[i];
				s->nr_step_kernels = tl->nstep_kernels;
			}
			if (tl->nstep_periods && tl->step_wall_ns > 0) {
				s->step_wall_ms = ms_of(tl->step_wall_ns);
				s->step_period_ns =
				    xmalloc(st_mult(tl->nstep_periods, sizeof(*s->step_period_ns)));
				memcpy(s->step_period_ns, tl->step_period_ns,
				       tl->nstep_periods * sizeof(*s->step_period_ns));
				s->nr_step_periods = tl->nstep_periods;
			}
			if (!ds->proj_ns && !ds->kernels)
				continue; /* per-step GPU times: none without GPU work */
			s->step_mean_ms = rnum_of(ds->mean_ns / 1e6);
			s->step_p50_ms = rnum_of(ds->p50_ns / 1e6);
			s->step_p90_ms = rnum_of(ds->p90_ns / 1e6);
			s->step_max_ms = ms_of(ds->max_ns);
		}
	}
}

static const char *stage_of_mask(unsigned mask)
{
	unsigned pre = mask & (1u << STAGE_PREFILL);
	unsigned dec = mask & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP));

	if (pre && dec)
		return "mixed";
	if (pre)
		return "prefill";
	if (dec)
		return "decode";
	return NULL;
}

struct span {
	int64_t s, e;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->s > y->s) - (x->s < y->s);
}

/* GPU span, busy and idle of the profiled region: from the first to the
 * last kernel that ran inside a stage (warm-up and setup before it are not
 * the region's), busy = union of every kernel and copy interval clipped to
 * it. Without stages: the whole trace [t0, t1]. */
static void fill_gpu_aggregates(struct report_model *m, const struct trace *t,
				const struct timeline *tl, int64_t t0, int64_t t1)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, busy = 0, cur_s = 0, cur_e = INT64_MIN;
	size_t n = 0;
	struct span *sp;

	for (size_t i = 0; tl->kernel_stages && i < t->nkernels; i++)
		if (tl->kernel_stages[i]) {
			if (t->kernels[i].start < lo)
				lo = t->kernels[i].start;
			if (t->kernels[i].end > hi)
				hi = t->kernels[i].end;
		}
	if (hi <= lo) {
		lo = t0;
		hi = t1;
	}
	if (hi <= lo)
		return;
	sp = xmalloc(st_mult(t->nkernels + t->nmemops + 1, sizeof(*sp)));
	for (size_t i = 0; i < t->nkernels + t->nmemops; i++) {
		int64_t s =
		    i < t->nkernels ? t->kernels[i].start : t->memops[i - t->nkernels].start;
		int64_t e = i < t->nkernels ? t->kernels[i].end : t->memops[i - t->nkernels].end;

		if (s < lo)
			s = lo;
		if (e > hi)
			e = hi;
		if (e > s) {
			sp[n].s = s;
			sp[n++].e = e;
		}
	}
	qsort(sp, n, sizeof(*sp), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (sp[i].s > cur_e) {
			if (cur_e > cur_s)
				busy += cur_e - cur_s;
			cur_s = sp[i].s;
			cur_e = sp[i].e;
		} else if (sp[i].e > cur_e) {
			cur_e = sp[i].e;
		}
	}
	if (n && cur_e > cur_s)
		busy += cur_e - cur_s;
	free(sp);
	m->agg.gpu_span_ms = ms_of(hi - lo);
	m->agg.gpu_busy_ms = ms_of(busy);
}

struct kop {
	int32_t name, op;
	int64_t ns;
};

static int cmp_kop(const void *a, const void *b)
{
	const struct kop *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Per kernel name (strs id): the operator that launched most of its GPU
 * time (op[], -1 none) and how many operators launched it (nops[]). A GEMM
 * kernel serves attn.qkv and mlp.down alike; its first launch may be a
 * warm-up's. */
static void kernel_main_ops(const struct trace *t, const struct timeline *tl, int32_t *op,
			    size_t *nops)
{
	struct kop *v;
	size_t nv = 0;

	if (!tl->kernel_op)
		return;
	v = xmalloc(st_mult(t->nkernels + 1, sizeof(*v)));
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_ksig *sig = trace_ksig(t, k);

		if (sig->name < 0 || (size_t)sig->name >= t->strs.nr || tl->kernel_op[i] < 0)
			continue;
		v[nv].name = sig->name;
		v[nv].op = tl->kernel_op[i];
		v[nv++].ns = k->end > k->start ? k->end - k->start : 0;
	}
	qsort(v, nv, sizeof(*v), cmp_kop);
	for (size_t lo = 0, hi; lo < nv; lo = hi) {
		int64_t best = -1, sum = 0;

		for (hi = lo; hi < nv && v[hi].name == v[lo].name; hi++) {
			sum = i64_sat_add(sum, v[hi].ns);
			if (hi + 1 == nv || v[hi + 1].name != v[hi].name ||
			    v[hi + 1].op != v[hi].op) {
				nops[v[hi].name]++;
				if (sum > best) {
					best = sum;
					op[v[hi].name] = v[hi].op;
				}
				sum = 0;
			}
		}
	}
	free(v);
}

static void fill_kernels(struct report_model *m, const struct trace *t, const struct timeline *tl)
{
	size_t n = t->strs.nr;
	unsigned *mask = xcalloc(n + 1, sizeof(*mask));
	int32_t *dev = xmalloc((n + 1) * sizeof(*dev));
	uint64_t *pre_calls = xcalloc(n + 1, sizeof(*pre_calls));
	uint64_t *dec_calls = xcalloc(n + 1, sizeof(*dec_calls));
	uint64_t *pre_ns = xcalloc(n + 1, sizeof(*pre_ns));
	uint64_t *dec_ns = xcalloc(n + 1, sizeof(*dec_ns));
	uint64_t *all_exp = xcalloc(n + 1, sizeof(*all_exp));
	uint64_t *pre_exp = xcalloc(n + 1, sizeof(*pre_exp));
	uint64_t *dec_exp = xcalloc(n + 1, sizeof(*dec_exp));
	int64_t *exposed = xmalloc(st_mult(t->nkernels + 1, sizeof(*exposed)));
	int32_t *mangled = xmalloc((n + 1) * sizeof(*mangled));
	int32_t *op = xmalloc((n + 1) * sizeof(*op));
	size_t *nops = xcalloc(n + 1, sizeof(*nops));
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;

	for (size_t i = 0; i <= n; i++)
		dev[i] = mangled[i] = op[i] = -1;
	kernel_exposed_times(t, exposed);
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_ksig *sig = trace_ksig(t, k);

		if (k->start < t0)
			t0 = k->start;
		if (k->end > t1)
			t1 = k->end;
		if (sig->name < 0 || (size_t)sig->name >= n)
			continue;
		all_exp[sig->name] += (uint64_t)exposed[i];
		if (tl->kernel_stages)
			mask[sig->name] |= tl->kernel_stages[i];
		if (tl->kernel_stages) {
			unsigned ks = tl->kernel_stages[i];
			int64_t d = k->end > k->start ? k->end - k->start : 0;

			if (ks & (1u << STAGE_PREFILL)) {
				pre_calls[sig->name]++;
				pre_ns[sig->name] += (uint64_t)d;
				pre_exp[sig->name] += (uint64_t)exposed[i];
			}
			if (ks & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP))) {
				dec_calls[sig->name]++;
				dec_ns[sig->name] += (uint64_t)d;
				dec_exp[sig->name] += (uint64_t)exposed[i];
			}
		}
		if (dev[sig->name] < 0)
			dev[sig->name] = sig->device;
		if (mangled[sig->name] < 0)
			mangled[sig->name] = sig->mangled;
	}
	kernel_main_ops(t, tl, op, nops);
	for (size_t i = 0; i < t->nmemops; i++) {
		if (t->memops[i].start < t0)
			t0 = t->memops[i].start;
		if (t->memops[i].end > t1)
			t1 = t->memops[i].end;
	}
	fill_gpu_aggregates(m, t, tl, t0, t1);
	for (size_t i = 0; i < tl->by_name.nrows; i++) {
		const struct kernel_stat *ks = &tl->by_name.rows[i];
		struct report_kernel *k =
		    report_model_add_kernel(m, str_or(&t->strs, ks->name, "(unnamed)"), NULL);
		int ok = ks->name >= 0 && (size_t)ks->name < n;

		k->calls = ks->calls;
		k->total_ns = ks->total_ns > 0 ? (uint64_t)ks->total_ns : 0;
		report_set_str(&k->stage, ok ? stage_of_mask(mask[ks->name]) : NULL);
		if (ok) {
			k->stage_calls[REPORT_ROLE_PREFILL] = pre_calls[ks->name];
			k->stage_calls[REPORT_ROLE_DECODE] = dec_calls[ks->name];
			k->stage_ns[REPORT_ROLE_PREFILL] = pre_ns[ks->name];
			k->stage_ns[REPORT_ROLE_DECODE] = dec_ns[ks->name];
			k->exposed_ns = all_exp[ks->name];
			k->stage_exposed_ns[REPORT_ROLE_PREFILL] = pre_exp[ks->name];
			k->stage_exposed_ns[REPORT_ROLE_DECODE] = dec_exp[ks->name];
			report_set_str(&k->mangled, strtab_str(&t->strs, mangled[ks->name]));
			report_set_str(&k->op, strtab_str(&t->strs, op[ks->name]));
			k->nr_ops = nops[ks->name];
		}
		if (ok && dev[ks->name] >= 0) {
			char b[32];
			snprintf(b, sizeof(b), "GPU %d", dev[ks->name]);
			report_set_str(&k->device, b);
		}
	}
	free(mask);
	free(dev);
	free(nops);
	free(pre_calls);
	free(dec_calls);
	free(pre_ns);
	free(dec_ns);
	free(all_exp);
	free(pre_exp);
	free(dec_exp);
	free(exposed);
	free(mangled);
	free(op);
}

static struct rnum rnum_plus(struct rnum a, double v)
{
	return rnum_of(a.v + v);
}

static int cmp_op_class(const void *a, const void *b)
{
	const struct report_op_class *x = a, *y = b;

	if (x->gpu_ms.v != y->gpu_ms.v)
		return x->gpu_ms.v > y->gpu_ms.v ? -1 : 1;
	return strcmp(x->cls, y->cls);
}

/* The class table: operators with a class (NVTX category) summed per class
 * and stage; GPU incl. nested counts each kernel once (operator_stat's
 * gpu_incl_outer_ns). */
static void fill_op_classes(struct report_model *m, const struct trace *t,
			    const struct timeline *tl)
{
	for (size_t i = 0; i < tl->nops; i++) {
		const struct operator_stat *o = &tl->ops[i];
		struct report_op_class *c;

		if (o->cls < 0)
			continue;
		c = report_model_op_class(m, str_or(&t->strs, o->cls, ""),
					  o->stage >= 0 ? stage_role_name(o->stage) : NULL);
		c->operators++;
		c->calls += o->calls;
		if (o->kernels) {
			c->gpu_ms = rnum_plus(c->gpu_ms, (double)o->gpu_ns / 1e6);
			if (o->stage >= 0)
				c->share_of_stage = rnum_plus(c->share_of_stage, o->stage_share);
		}
		if (o->kernels || o->gpu_incl_ns > 0)
			c->gpu_incl_ms =
			    rnum_plus(c->gpu_incl_ms, (double)o->gpu_incl_outer_ns / 1e6);
	}
	if (m->nr_op_classes > 1)
		qsort(m->op_classes, m->nr_op_classes, sizeof(*m->op_classes), cmp_op_class);
}

static void fill_tracer_cost(struct report_model *m, const struct timeline *tl)
{
	struct report_tracer_cost *r = &m->tracer_cost;
	struct trace_cost c = tl->cost;

	memset(r, 0, sizeof(*r));
	r->basis = (int)c.basis;
	if (c.basis != TRACE_COST_MEASURED)
		return;
	r->processes = c.processes;
	r->hooks = c.hooks;
	r->background = c.background;
	r->hooks_ms = ms_of(c.hooks_ns);
	r->background_ms = ms_of(c.background_ns);
	r->cpu_ms = ms_of(c.cpu_ns);
	r->wall_ms = ms_of(c.wall_ns);
	r->api_ms = ms_of(c.api_ns);
	r->nvtx_ms = ms_of(c.nvtx_ns);
}

static void fill_operators(struct report_model *m, const struct trace *t, const struct timeline *tl)
{
	for (size_t i = 0; i < tl->nops; i++) {
		const struct operator_stat *o = &tl->ops[i];
		struct report_operator *r =
		    report_model_add_operator(m, str_or(&t->strs, o->text, ""),
					      o->stage >= 0 ? stage_role_name(o->stage) : NULL);

		if (o->cls >= 0)
			r->cls = xstrdup(str_or(&t->strs, o->cls, ""));
		r->calls = o->calls;
		/* replays push no range: CPU time unknown when all calls were */
		if (o->replays < o->calls)
			r->cpu_ms = ms_of(o->cpu_ns);
		/* no kernels: its GPU time is unknown, not 0 */
		if (o->kernels || o->gpu_incl_ns > 0)
			r->gpu_incl_ms = ms_of(o->gpu_incl_ns);
		if (o->kernels) {
			r->gpu_ms = ms_of(o->gpu_ns);
			if (o->stage >= 0)
				r->share_of_stage = rnum_of(o->stage_share);
		}
	}
}

/* Lanes for the timeline chart: the stage ranges (CPU time), then one lane
 * per (device, stream) with its kernels and copies. */
static void fill_timeline(struct report_model *m, const struct trace *t,
			  const struct stage_config *sc)
{
	struct report_lane *lane = NULL;
	struct {
		int32_t dev, stream;
	} *keys = NULL;
	size_t nkeys = 0, akeys = 0;
	int64_t r0 = INT64_MAX, r1 = INT64_MIN;

	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *text = strtab_str(&t->strs, r->text);

		if (!text)
			continue;
		for (int s = STAGE_PREFILL; s <= STAGE_DECODE; s++) {
			int hit = 0;

			for (size_t j = 0; j < sc->stages[s].nnames && !hit; j++)
				hit = stage_name_matches(sc->stages[s].names[j], text,
							 strtab_str(&t->strs, r->domain));
			if (!hit)
				continue;
			if (!lane)
				lane = report_model_add_lane(m, "stages (NVTX)", LANE_RANGE);
			report_lane_add(lane, r->start, trace_range_end(t, r), stage_role_name(s));
			if (r->start < r0)
				r0 = r->start;
			if (trace_range_end(t, r) > r1)
				r1 = trace_range_end(t, r);
			break;
		}
	}
	if (r1 > r0)
		m->agg.e2e_ms = ms_of(r1 - r0);
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_ksig *sig = trace_ksig(t, k);
		size_t j;

		for (j = 0; j < nkeys; j++)
			if (keys[j].dev == sig->device && keys[j].stream == sig->stream)
				break;
		if (j == nkeys) {
			ALLOC_GROW(keys, nkeys + 1, akeys);
			keys[nkeys].dev = sig->device;
			keys[nkeys].stream = sig->stream;
			nkeys++;
		}
	}
	for (size_t j = 0; j < nkeys; j++) {
		char name[64];

		snprintf(name, sizeof(name), "GPU %d stream %d", keys[j].dev, keys[j].stream);
		lane = report_model_add_lane(m, name, LANE_GPU);
		for (size_t i = 0; i < t->nkernels; i++) {
			const struct trace_kernel *k = &t->kernels[i];
			const struct trace_ksig *sig = trace_ksig(t, k);

			if (sig->device == keys[j].dev && sig->stream == keys[j].stream)
				report_lane_add(lane, k->start, k->end, NULL);
		}
	}
	free(keys);
}

static void fill_csv_kernels(struct report_model *m, const struct report_analysis *a)
{
	for (size_t i = 0; i < a->csv_kernels.nrows; i++) {
		const struct kernel_stat *ks = &a->csv_kernels.rows[i];
		struct report_kernel *k =
		    report_model_add_kernel(m, str_or(&a->csv_strs, ks->name, "(unnamed)"), NULL);

		k->calls = ks->calls;
		k->total_ns = ks->total_ns > 0 ? (uint64_t)ks->total_ns : 0;
	}
}

/* The GPU from the trace's TARGET_INFO_GPU, when nothing (no env.json, or
 * one without a GPU) named it: name, SMs, compute capability, max SM clock
 * and memory, so that peaks, MFU and the roofline work on a bare export.
 * Returns the bandwidth it records in GB/s (0 = none): peaks use it for a
 * GPU the datasheet table does not know. */
double model_fill_env_from_trace(struct report_model *m, const struct report_analysis *a)
{
	const struct trace_gpu *g = &a->gpu;
	char cc[32];

	if (!a->have_gpu || m->env.gpu_name)
		return 0;
	report_set_str(&m->env.gpu_name, g->name);
	m->env.sm_count = g->sm_count > 0 ? g->sm_count : 0;
	if (g->cc_major >= 0 && g->cc_minor >= 0) {
		snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
		report_set_str(&m->env.compute_capability, cc);
	}
	if (g->clock_hz > 0)
		m->env.sm_clock_mhz = rnum_of((double)g->clock_hz / 1e6);
	if (g->total_memory > 0)
		m->env.gpu_memory_gib = rnum_of((double)g->total_memory / (1024.0 * 1024 * 1024));
	report_model_add_note(m, "GPU from the trace's TARGET_INFO_GPU (no %s names one)%s",
			      bundle_art(BA_ENV),
			      g->ngpus > 1 ? ": the one its kernels ran on" : "");
	return g->mem_bw_bps > 0 ? (double)g->mem_bw_bps / 1e9 : 0;
}

/* Fills the model from a finished analysis. */
void model_fill_from_analysis(struct report_model *m, const struct report_analysis *a)
{
	if (a->have_csv)
		fill_csv_kernels(m, a);
	if (!a->have_tl)
		return;
	fill_stages(m, &a->tl, &a->trace);
	if (a->tl.cpu_samples && a->tl.sampler.processes) {
		m->cpu_sampler.processes = a->tl.sampler.processes;
		m->cpu_sampler.calls = a->tl.sampler.calls;
		m->cpu_sampler.handler_ms = ms_of(a->tl.sampler.handler_ns);
		m->cpu_sampler.sampled_ms = ms_of(a->tl.sampler.sampled_ns);
	}
	fill_tracer_cost(m, &a->tl);
	fill_kernels(m, &a->trace, &a->tl);
	fill_operators(m, &a->trace, &a->tl);
	fill_op_classes(m, &a->trace, &a->tl);
	fill_timeline(m, &a->trace, &a->stages);
}

/* No range matched a stage: what was looked for, what the trace has
 * instead and the overrides that would name it (stage_suggest.h). */
static void no_stage_finding(struct report_model *m, const struct report_analysis *a)
{
	struct strbuf names = STRBUF_INIT, list = STRBUF_INIT, ov = STRBUF_INIT;
	struct strbuf note = STRBUF_INIT, rec = STRBUF_INIT;
	size_t at;

	for (int s = 0; s < STAGE_NROLES; s++)
		for (size_t i = 0; i < a->stages.stages[s].nnames; i++) {
			strbuf_addstr(&names, names.len ? ", " : "");
			md_code_plain(&names, a->stages.stages[s].names[i]);
		}
	strbuf_addstr(&list, " The trace's top-level NVTX ranges: ");
	at = list.len;
	stage_suggest(&a->trace, &list, &ov, &note);
	if (list.len == at) {
		strbuf_reset(&list);
		strbuf_addstr(&list, " The trace has no NVTX range that could be a stage");
	}
	if (ov.len)
		strbuf_addf(&list, "; these overrides would name them: `%s`", ov.buf);
	if (note.len)
		strbuf_addf(&list, "; %s", note.buf);
	strbuf_addstr(&rec, ov.len
				? "Check the guess, then give the overrides to "
				  "`llmprof report --trace FILE -o DIR` or `llmprof profile`."
				: "Name the ranges of prefill, decode and each decode step: "
				  "`'stages.decode=[generate]' 'stages.decode_step=[step]'` after "
				  "`llmprof report --trace FILE -o DIR` or `llmprof profile`.");
	report_model_add_finding(m, FINDING_WARNING, "no-stage-ranges", rec.buf,
				 "No NVTX range matched a stage (looked for %s): stage timings "
				 "are empty.%s.",
				 names.buf, list.buf);
	strbuf_release(&names);
	strbuf_release(&list);
	strbuf_release(&ov);
	strbuf_release(&note);
	strbuf_release(&rec);
}

void model_timeline_findings(struct report_model *m, const struct report_analysis *a)
{
	const struct timeline *tl = &a->tl;
	int any = 0;

	if (a->have_csv)
		report_model_add_finding(
		    m, FINDING_INFO, "kernel-summary-only", NULL,
		    "The input is an `nsys stats` kernel summary (CSV), not a trace: no stage "
		    "timings, operators or GPU idle time can be derived from it.");
	if (!a->have_tl)
		return;
	for (int s = 0; s < STAGE_NROLES; s++)
		any |= tl->stage_found[s];
	if (!any)
		no_stage_finding(m, a);
	if (any && tl->nkernels && tl->kernels_outside) {
		int said = 0;

		for (size_t i = 0; i < m->nr_findings; i++)
			said |= !strcmp(m->findings[i].code, "kernels-outside-stages");
		double share =
		    tl->kernel_ns ? (double)tl->kernel_ns_outside / (double)tl->kernel_ns : 0;

		if (!said)
			report_model_add_finding(
			    m, share >= FINDINGS_OUTSIDE_SHARE ? FINDING_WARNING : FINDING_INFO,
			    "kernels-outside-stages",
			    "Mark warm-up and setup with NVTX ranges of their own, or widen "
			    "stages.* to cover the work.",
			    "%zu of %zu kernels ran outside every stage (%.3f ms, %.1f%% of kernel "
			    "time): warm-up, setup or unmarked work.",
			    tl->kernels_outside, tl->nkernels, (double)tl->kernel_ns_outside / 1e6,
			    100.0 * share);
	}
	/* an unreadable graph-node table has its own finding (trust.c) */
	if (tl->graph_kernels && !tl->have_graph_nodes && tl->nops &&
	    !trace_unreadable(&a->trace, "LLMPROF_GRAPH_NODES"))
		report_model_add_finding(
		    m, FINDING_INFO, "graph-kernels-no-operator",
		    "Trace with pipeline.trace.backend=builtin: llmprof's tracer records where "
		    "each graph node was captured (docs/tracer.md, \"CUDA graphs\").",
		    "%zu kernels were replayed from CUDA graphs and have no operator: this trace "
		    "does not link the NVTX ranges pushed during capture to graph nodes (nsys "
		    "exports do not), and replays push none.",
		    tl->graph_kernels);
	else if (tl->graph_kernels && tl->have_graph_nodes &&
		 tl->graph_kernels_op < tl->graph_kernels && tl->nops)
		report_model_add_finding(
		    m, FINDING_INFO, "graph-kernels-no-operator", NULL,
		    "%zu of %zu kernels replayed from CUDA graphs have no operator: no NVTX "
		    "operator range was open where their graph nodes were captured.",
		    tl->graph_kernels - tl->graph_kernels_op, tl->graph_kernels);
	if (tl->stage_cross_thread)
		report_model_add_finding(
		    m, FINDING_WARNING, "stage-cross-thread",
		    "Use push/pop or same-thread start/end ranges for stages.",
		    "%zu stage range%s ended on another thread than the one that started it: its "
		    "GPU work is not projected (nsys leaves such ranges out too).",
		    tl->stage_cross_thread, tl->stage_cross_thread == 1 ? "" : "s");
	if (tl->kernels_no_launch)
		report_model_add_finding(
		    m, FINDING_WARNING, "kernels-without-launch",
		    "Trace the CUDA API (nsys --trace=cuda).",
		    "%zu kernel%s no launch call in the trace (CUDA API trace off or cut short): "
		    "they belong to no NVTX range.",
		    tl->kernels_no_launch, tl->kernels_no_launch == 1 ? " has" : "s have");
}

void model_trust(struct report_model *m, const struct report_analysis *a)
{
	struct trust_counts c = {0};
	const struct trace *t = &a->trace;

	if (!a->have_trace)
		return;
	c.dropped_cupti = t->dropped_cupti;
	c.dropped_tracer = t->dropped_tracer;
	c.log_problems = t->log_problems;
	c.unflushed = t->unflushed;
	c.bad_times = t->kernels_bad_time;
	c.clamped = t->clamped;
	c.graph_nodes_problem = trace_unreadable(t, "LLMPROF_GRAPH_NODES");
	c.cpu_samples_problem = trace_unreadable(t, "LLMPROF_CPU_SAMPLES");
	for (size_t i = 0; i < t->nranges; i++)
		c.open_ranges += t->ranges[i].open;
	if (a->have_tl) {
		c.no_launch = a->tl.kernels_no_launch;
		for (int r = 0; r < STAGE_NROLES; r++)
			if (a->tl.stage_found[r])
				c.outside =
				    a->tl.kernels_outside; /* else no-stage-ranges says it */
		c.cross_thread = a->tl.stage_cross_thread;
	}
	trust_build(m, &c);
}
