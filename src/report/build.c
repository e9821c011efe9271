/* build.c: see build.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analytic.h"
#include "analysis/findings.h"
#include "analysis/peaks.h"
#include "analysis/select.h"
#include "analysis/timeline.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "report/build.h"
#include "report/report.h"
#include "trace/trace.h"
#include "trace/ncu_csv.h"
#include "analysis/ncu_kernel.h"
#include "core/banned.h"

void report_build_result_init(struct report_build_result *r)
{
	memset(r, 0, sizeof(*r));
	r->analyze_state = r->join_state = "skipped";
	strbuf_init(&r->analyze_msg, 0);
	strbuf_init(&r->join_msg, 0);
	strbuf_init(&r->loud, 0);
}

void report_build_result_release(struct report_build_result *r)
{
	strbuf_release(&r->analyze_msg);
	strbuf_release(&r->join_msg);
	strbuf_release(&r->loud);
}

const char *report_bundle_trace(const char *run_dir, struct strbuf *sb)
{
	static const char *const rel[] = {"trace/trace.sqlite", "nsys/run.sqlite",
					  "nsys/summary_cuda_gpu_kern_sum.csv"};
	size_t at = sb->len;

	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		strbuf_setlen(sb, at);
		path_join(sb, run_dir, rel[i]);
		if (path_exists(sb->buf))
			return sb->buf;
	}
	strbuf_setlen(sb, at);
	return NULL;
}

/* Everything the analysis holds; the model copies what it uses. */
struct report_analysis {
	char *path;	   /* the trace analyzed; NULL = none */
	const char *state; /* "ok", "failed", "skipped" (static) */
	struct strbuf msg;
	int have_trace, have_tl, have_csv, have_gpu;
	struct trace trace;
	struct trace_gpu gpu; /* TARGET_INFO_GPU, when have_gpu */
	struct timeline tl;
	struct strtab csv_strs;
	struct kernel_summary csv_kernels;
	struct stage_config stages;
	const char **names[STAGE_NROLES]; /* owned arrays, borrowed strings */
};

/* stages.* from the config; the defaults when cfg is NULL or a list is empty. */
static void stages_from_config(struct report_analysis *a, const struct config *cfg)
{
	static const char *const keys[STAGE_NROLES] = {"stages.prefill", "stages.decode",
						       "stages.decode_step"};

	stage_config_default(&a->stages);
	if (!cfg)
		return;
	for (int r = 0; r < STAGE_NROLES; r++) {
		size_t n = config_list_len(cfg, keys[r]);

		if (!n)
			continue;
		a->names[r] = xcalloc(n, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			a->names[r][i] = config_list_item(cfg, keys[r], i);
		a->stages.stages[r].names = a->names[r];
		a->stages.stages[r].nnames = n;
	}
	if (config_get_string(cfg, "stages.operator_pattern"))
		a->stages.operator_pattern = config_get_string(cfg, "stages.operator_pattern");
}

static struct rnum ms_of(int64_t ns)
{
	return rnum_of((double)ns / 1e6);
}

static const char *str_or(const struct strtab *st, int32_t id, const char *dflt)
{
	const char *s = strtab_str(st, id);

	return s ? s : dflt;
}

static void fill_stages(struct report_model *m, const struct timeline *tl)
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
		if (st->wall_ns > 0)
			s->done_ms = ms_of(st->wall_ns);
		if (st->cpu_ns > 0)
			s->launches_per_s = rnum_of(st->launches_per_s);
		if (r == STAGE_DECODE && tl->stage_found[STAGE_DECODE_STEP]) {
			const struct stage_timing *ds = &tl->stages[STAGE_DECODE_STEP];

			s->steps = ds->instances;
			if (tl->nstep_kernels) {
				s->step_kernels =
				    xmalloc(st_mult(tl->nstep_kernels, sizeof(*s->step_kernels)));
				for (size_t i = 0; i < tl->nstep_kernels; i++)
					s->step_kernels[i] = tl->step_kernels[i];
				s->nr_step_kernels = tl->nstep_kernels;
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

static void fill_kernels(struct report_model *m, const struct trace *t, const struct timeline *tl)
{
	size_t n = t->strs.nr;
	unsigned *mask = xcalloc(n + 1, sizeof(*mask));
	int32_t *dev = xmalloc((n + 1) * sizeof(*dev));
	uint64_t *pre_calls = xcalloc(n + 1, sizeof(*pre_calls));
	uint64_t *dec_calls = xcalloc(n + 1, sizeof(*dec_calls));
	uint64_t *pre_ns = xcalloc(n + 1, sizeof(*pre_ns));
	uint64_t *dec_ns = xcalloc(n + 1, sizeof(*dec_ns));
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;

	for (size_t i = 0; i <= n; i++)
		dev[i] = -1;
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];

		if (k->start < t0)
			t0 = k->start;
		if (k->end > t1)
			t1 = k->end;
		if (k->name < 0 || (size_t)k->name >= n)
			continue;
		if (tl->kernel_stages)
			mask[k->name] |= tl->kernel_stages[i];
		if (tl->kernel_stages) {
			unsigned ks = tl->kernel_stages[i];
			int64_t d = k->end > k->start ? k->end - k->start : 0;

			if (ks & (1u << STAGE_PREFILL)) {
				pre_calls[k->name]++;
				pre_ns[k->name] += (uint64_t)d;
			}
			if (ks & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP))) {
				dec_calls[k->name]++;
				dec_ns[k->name] += (uint64_t)d;
			}
		}
		if (dev[k->name] < 0)
			dev[k->name] = k->device;
	}
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
		}
		if (ok && dev[ks->name] >= 0) {
			char b[32];
			snprintf(b, sizeof(b), "GPU %d", dev[ks->name]);
			report_set_str(&k->device, b);
		}
	}
	free(mask);
	free(dev);
	free(pre_calls);
	free(dec_calls);
	free(pre_ns);
	free(dec_ns);
}

static void fill_operators(struct report_model *m, const struct trace *t, const struct timeline *tl)
{
	for (size_t i = 0; i < tl->nops; i++) {
		const struct operator_stat *o = &tl->ops[i];
		struct report_operator *r =
		    report_model_add_operator(m, str_or(&t->strs, o->text, ""),
					      o->stage >= 0 ? stage_role_name(o->stage) : NULL);

		r->calls = o->calls;
		r->cpu_ms = ms_of(o->cpu_ns);
		/* no kernels: its GPU time is unknown, not 0 */
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
		size_t j;

		for (j = 0; j < nkeys; j++)
			if (keys[j].dev == k->device && keys[j].stream == k->stream)
				break;
		if (j == nkeys) {
			ALLOC_GROW(keys, nkeys + 1, akeys);
			keys[nkeys].dev = k->device;
			keys[nkeys].stream = k->stream;
			nkeys++;
		}
	}
	for (size_t j = 0; j < nkeys; j++) {
		char name[64];

		snprintf(name, sizeof(name), "GPU %d stream %d", keys[j].dev, keys[j].stream);
		lane = report_model_add_lane(m, name, LANE_GPU);
		for (size_t i = 0; i < t->nkernels; i++) {
			const struct trace_kernel *k = &t->kernels[i];

			if (k->device == keys[j].dev && k->stream == keys[j].stream)
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
static double fill_env_from_trace(struct report_model *m, const struct report_analysis *a)
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
	report_model_add_note(m, "GPU from the trace's TARGET_INFO_GPU (no env.json names one)%s",
			      g->ngpus > 1 ? ": the one its kernels ran on" : "");
	return g->mem_bw_bps > 0 ? (double)g->mem_bw_bps / 1e9 : 0;
}

/* Fills the model from a finished analysis. */
static void fill_from_analysis(struct report_model *m, const struct report_analysis *a)
{
	if (a->have_csv)
		fill_csv_kernels(m, a);
	if (!a->have_tl)
		return;
	fill_stages(m, &a->tl);
	fill_kernels(m, &a->trace, &a->tl);
	fill_operators(m, &a->trace, &a->tl);
	fill_timeline(m, &a->trace, &a->stages);
}

struct report_analysis *report_analysis_new(void)
{
	struct report_analysis *a = xcalloc(1, sizeof(*a));

	a->state = "skipped";
	strbuf_init(&a->msg, 0);
	return a;
}

void report_analysis_free(struct report_analysis *a)
{
	if (!a)
		return;
	if (a->have_tl)
		timeline_release(&a->tl);
	if (a->have_trace)
		trace_close(&a->trace);
	trace_gpu_release(&a->gpu);
	kernel_summary_release(&a->csv_kernels);
	strtab_release(&a->csv_strs);
	for (int r = 0; r < STAGE_NROLES; r++)
		free(a->names[r]);
	strbuf_release(&a->msg);
	free(a->path);
	free(a);
}

const char *report_analysis_state(const struct report_analysis *a, const char **msg)
{
	if (msg)
		*msg = a->msg.buf;
	return a->state;
}

void report_analysis_run(struct report_analysis *a, const char *path, const struct config *cfg)
{
	struct strbuf err = STRBUF_INIT, buf = STRBUF_INIT;
	int ret = -1;

	stages_from_config(a, cfg);
	if (!path) {
		strbuf_addstr(&a->msg,
			      "no trace in the bundle (trace/trace.sqlite or nsys/run.sqlite)");
		return;
	}
	a->path = xstrdup(path);
	if (ends_with(path, ".csv")) {
		if (strbuf_read_file(&buf, path)) {
			error_errno(&err, "cannot read '%s'", path);
			goto out;
		}
		if (kernel_summary_read_csv(&a->csv_kernels, &a->csv_strs, buf.buf, buf.len, path,
					    &err))
			goto out;
		a->have_csv = 1;
		strbuf_addf(&a->msg, "kernel summary CSV only: %zu kernels, no stages or operators",
			    a->csv_kernels.nrows);
		ret = 0;
		goto out;
	}
	if (trace_open(&a->trace, path, &err)) {
		trace_close(&a->trace);
		goto out;
	}
	a->have_trace = 1;
	if (timeline_build(&a->tl, &a->trace, &a->stages, &err))
		goto out;
	a->have_tl = 1;
	/* the device, for a report without env.json; a damaged table only
	 * costs the peaks */
	strbuf_reset(&err);
	a->have_gpu = trace_gpu_info(&a->trace, &a->gpu, &err) > 0 && a->gpu.name;
	strbuf_reset(&err);
	strbuf_addf(&a->msg, "%zu kernels, %zu memory operations, %zu operators", a->tl.nkernels,
		    a->tl.nmemops, a->tl.nops);
	ret = 0;
out:
	if (ret)
		strbuf_add(&a->msg, err.buf, err.len);
	a->state = ret ? "failed" : "ok";
	strbuf_release(&err);
	strbuf_release(&buf);
}

/* Duration-weighted mean of a percentage over the launches that have it. */
struct wmean {
	double sum, w;
};
static void wmean_add(struct wmean *a, double v, double w)
{
	if (!ncu_have(v))
		return;
	a->sum += v * w;
	a->w += w;
}
static struct rnum wmean_get(const struct wmean *a)
{
	return a->w > 0 ? rnum_of(a->sum / a->w) : RNUM_NONE;
}

/* A sum of per-launch values divided by the launches that have it. */
struct lsum {
	double sum;
	uint64_t n;
};
static void lsum_add(struct lsum *a, double v)
{
	if (!ncu_have(v))
		return;
	a->sum += v;
	a->n++;
}
static struct rnum lsum_mean(const struct lsum *a)
{
	return a->n ? rnum_of(a->sum / (double)a->n) : RNUM_NONE;
}

/* a + b over the available ones; NAN when neither is. */
static double sum_have(double a, double b)
{
	if (!ncu_have(a))
		return b;
	return ncu_have(b) ? a + b : a;
}

/* A kernel name up to its parameter list, without spaces:
 * "void k_gemv<__nv_bfloat16, float>(T2 *, const T1 *)" -> "voidk_gemv<__nv_bfloat16,float>".
 * Demanglers differ in the parameter list (ncu writes template parameters
 * as T1, T2 and "const T1 *"; the tracer "__nv_bfloat16 const*"), but both
 * spell the template arguments out. */
void report_join_key(const char *s, struct strbuf *out)
{
	int depth = 0;

	strbuf_reset(out);
	for (; *s; s++) {
		if (*s == '<')
			depth++;
		else if (*s == '>' && depth > 0)
			depth--;
		else if (*s == '(' && !depth && out->len)
			break;
		if (*s != ' ')
			strbuf_addch(out, *s);
	}
}

/* The join step: ncu's per-launch records matched to the trace's kernels by
 * demangled name, or, where the two demanglers disagree, by the name up to
 * its parameter list (template arguments included, so two instantiations
 * stay apart); each kernel gets the duration-weighted means of the
 * launches ncu measured. */
static const char *jstr(json_t *o, const char *key);
static int load_json(const char *path, json_t **out, struct strbuf *err);

/* A class of launches that one ncu result describes: the kernel (trace name
 * id), its grid and block, and the innermost operator range it ran in. */
struct launch_class {
	int32_t name, op;
	int32_t grid[3], block[3];
	double flops; /* ncu's, per launch */
	unsigned n;   /* results averaged */
};

static int same_class(const struct launch_class *c, const struct trace_kernel *k, int32_t op)
{
	return c->name == k->name && c->op == op && !memcmp(c->grid, k->grid, sizeof(c->grid)) &&
	       !memcmp(c->block, k->block, sizeof(c->block));
}

/* Stage counter FLOPs from the launches ncu measured. One kernel can run
 * several shapes under one launch configuration (a GEMV for the q/k/v,
 * output and down projections), so a per-name mean would stand for shapes
 * never measured. ncu/selection.json names the launch each ncu run
 * measured (launch_index, the trace's kernel order); its result counts for
 * the launches of the same class in the profiled stage(s), and launches of
 * unmeasured classes are left out (counter_time_share says how much).
 * Returns 0 with the stages set, or -1 (no selection, nothing matched): the
 * per-name estimate of report_model_derive() then applies. */
static int class_counter_flops(struct report_model *m, const struct report_analysis *a,
			       const struct ncu_kernel_table *t, json_t *sel, const char *taken)
{
	const struct trace *tr = &a->trace;
	const struct timeline *tl = &a->tl;
	struct launch_class *cls = NULL;
	size_t ncls = 0, acls = 0, i;
	struct strbuf k1 = STRBUF_INIT, k2 = STRBUF_INIT;
	json_t *ks, *e;
	/* by role: REPORT_ROLE_PREFILL, REPORT_ROLE_DECODE */
	double flops[2] = {0, 0}, cov_ns[2] = {0, 0}, all_ns[2] = {0, 0};
	int any[2] = {0, 0}, ret = -1;
	unsigned want;

	if (!sel || !tl->kernel_op || !tl->kernel_stages)
		goto out;
	ks = json_object_get(sel, "kernels");
	for (size_t j = 0; j < t->nr; j++) {
		const struct ncu_kernel *r = &t->k[j];
		struct launch_class *c = NULL;
		size_t li = SIZE_MAX;

		if (!r->name || !ncu_have(r->flops_total))
			continue;
		report_join_key(r->name, &k1);
		json_array_foreach(ks, i, e)
		{
			json_t *g = json_object_get(e, "grid"), *b = json_object_get(e, "block");
			int match =
			    jstr(e, "name") && json_is_integer(json_object_get(e, "launch_index"));

			for (int d = 0; match && d < 3; d++)
				match =
				    json_integer_value(json_array_get(g, (size_t)d)) ==
					r->grid[d] &&
				    json_integer_value(json_array_get(b, (size_t)d)) == r->block[d];
			if (!match)
				continue;
			report_join_key(jstr(e, "name"), &k2);
			if (strcmp(k1.buf, k2.buf))
				continue;
			li = (size_t)json_integer_value(json_object_get(e, "launch_index"));
			break;
		}
		if (li >= tr->nkernels)
			continue;
		for (i = 0; i < ncls && !c; i++)
			if (same_class(&cls[i], &tr->kernels[li], tl->kernel_op[li]))
				c = &cls[i];
		if (!c) {
			ALLOC_GROW(cls, ncls + 1, acls);
			c = &cls[ncls++];
			memset(c, 0, sizeof(*c));
			c->name = tr->kernels[li].name;
			c->op = tl->kernel_op[li];
			memcpy(c->grid, tr->kernels[li].grid, sizeof(c->grid));
			memcpy(c->block, tr->kernels[li].block, sizeof(c->block));
		}
		c->flops += (r->flops_total - c->flops) / (double)++c->n;
	}
	if (!ncls)
		goto out;
	want = report_counter_roles(taken);
	for (size_t k = 0; k < tr->nkernels; k++) {
		const struct trace_kernel *kk = &tr->kernels[k];
		unsigned st = tl->kernel_stages[k];
		int role = st & (1u << STAGE_PREFILL)				     ? 0
			   : st & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP)) ? 1
										     : -1;
		double d = kk->end > kk->start ? (double)(kk->end - kk->start) : 0;

		if (role < 0 || !(want & (1u << role)))
			continue;
		all_ns[role] += d;
		for (i = 0; i < ncls; i++)
			if (same_class(&cls[i], kk, tl->kernel_op[k])) {
				flops[role] += cls[i].flops;
				cov_ns[role] += d;
				any[role] = 1;
				break;
			}
	}
	for (i = 0; i < m->nr_stages; i++) {
		struct report_stage *s = &m->stages[i];
		int role = s->role == REPORT_ROLE_OTHER ? -1 : (int)s->role;

		if (role < 0 || !any[role])
			continue;
		s->counter_flops = rnum_of(flops[role]);
		if (all_ns[role] > 0)
			s->counter_time_share = rnum_of(cov_ns[role] / all_ns[role]);
	}
	m->run.counters_by_class = 1;
	ret = 0;
out:
	free(cls);
	strbuf_release(&k1);
	strbuf_release(&k2);
	return ret;
}

static void join_counters(struct report_model *m, const char *path, const char *shown,
			  const struct report_analysis *a, json_t *sel, const char *taken,
			  struct report_build_result *res)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT, key = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	size_t joined_rows = 0, joined_kernels = 0;
	char **rkeys = NULL;

	if (strbuf_read_file(&buf, path)) {
		error_errno(&err, "cannot read '%s'", shown);
		goto fail;
	}
	if (ncu_raw_parse(buf.buf, buf.len, shown, &raw, &err) ||
	    ncu_kernels_from_raw(&raw, &t, &err))
		goto fail;
	if (t.nr)
		rkeys = xcalloc(t.nr, sizeof(*rkeys));
	for (size_t j = 0; j < t.nr; j++) {
		report_join_key(t.k[j].name ? t.k[j].name : "", &key);
		rkeys[j] = strbuf_detach(&key, NULL);
	}
	for (size_t i = 0; i < m->nr_kernels; i++) {
		struct report_kernel *k = &m->kernels[i];
		struct wmean sm = {0, 0}, mem = {0, 0}, dram = {0, 0}, occ = {0, 0};
		struct lsum dur = {0, 0}, fl = {0, 0}, hp = {0, 0}, sp = {0, 0}, dp = {0, 0},
			    tc = {0, 0}, bytes = {0, 0};
		uint64_t n = 0;

		for (size_t j = 0; j < t.nr; j++) {
			const struct ncu_kernel *r = &t.k[j];
			double w;

			if (!r->name)
				continue;
			if (strcmp(r->name, k->short_name)) {
				report_join_key(k->short_name, &key);
				if (strcmp(rkeys[j], key.buf))
					continue;
			}
			n++;
			w = ncu_have(r->duration_ns) && r->duration_ns > 0 ? r->duration_ns : 1.0;
			lsum_add(&dur, r->duration_ns);
			wmean_add(&sm, r->sm_sol_pct, w);
			wmean_add(&mem, r->mem_sol_pct, w);
			wmean_add(&dram, r->dram_pct, w);
			wmean_add(&occ, r->achieved_occ_pct, w);
			lsum_add(&fl, r->flops_total);
			lsum_add(&hp, sum_have(r->flops[NCU_PREC_FP16], r->flops[NCU_PREC_BF16]));
			lsum_add(&sp, r->flops[NCU_PREC_FP32]);
			lsum_add(&dp, r->flops[NCU_PREC_FP64]);
			lsum_add(&tc, r->tensor_flops);
			lsum_add(&bytes, r->dram_bytes);
		}
		if (!n)
			continue;
		joined_rows += n;
		joined_kernels++;
		k->c.profiled = n;
		k->c.duration_ns = lsum_mean(&dur);
		k->c.sm_sol_pct = wmean_get(&sm);
		k->c.mem_sol_pct = wmean_get(&mem);
		k->c.dram_sol_pct = wmean_get(&dram);
		k->c.occupancy_pct = wmean_get(&occ);
		k->c.flops = lsum_mean(&fl);
		k->c.flops_hp = lsum_mean(&hp);
		k->c.flops_sp = lsum_mean(&sp);
		k->c.flops_dp = lsum_mean(&dp);
		k->c.flops_tensor = lsum_mean(&tc);
		k->c.dram_bytes = lsum_mean(&bytes);
	}
	if (class_counter_flops(m, a, &t, sel, taken) && t.nr)
		report_model_add_note(m, "counter FLOPs per stage are estimates: each kernel's "
					 "mean FLOPs per measured launch times its launches (no "
					 "ncu/selection.json to tell which launch each result "
					 "measured)");
	res->join_state = "ok";
	strbuf_addf(&res->join_msg, "%s: %zu of %zu ncu results joined to %zu of %zu kernels",
		    shown, joined_rows, t.nr, joined_kernels, m->nr_kernels);
	if (t.nr > joined_rows)
		strbuf_addf(&res->join_msg, "; %zu results name no kernel of the trace",
			    t.nr - joined_rows);
	goto out;
fail:
	res->join_state = "failed";
	strbuf_add(&res->join_msg, err.buf, err.len);
out:
	for (size_t j = 0; rkeys && j < t.nr; j++)
		free(rkeys[j]);
	free(rkeys);
	strbuf_release(&key);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&err);
}

int report_analysis_launches(const struct report_analysis *a, const char *stage,
			     struct launch **out, size_t *n, struct strbuf *err)
{
	unsigned mask;
	struct launch *l;

	*out = NULL;
	*n = 0;
	if (!a->have_tl)
		return error_set(err, "no analyzed trace to select kernels from");
	if (!stage || !strcmp(stage, "decode"))
		mask = (1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP);
	else if (!strcmp(stage, "prefill"))
		mask = 1u << STAGE_PREFILL;
	else if (!strcmp(stage, "decode_step"))
		mask = 1u << STAGE_DECODE_STEP;
	else if (!strcmp(stage, "all"))
		mask = 0;
	else
		return error_set(err,
				 "run.stage=%s: kernels can be attributed to prefill, decode, "
				 "decode_step or all; name other ranges in stages.* instead",
				 stage);
	l = xcalloc(a->trace.nkernels + 1, sizeof(*l));
	for (size_t i = 0; i < a->trace.nkernels; i++) {
		const struct trace_kernel *k = &a->trace.kernels[i];

		l[i].name = str_or(&a->trace.strs, k->name, "(unnamed)");
		l[i].short_name = strtab_str(&a->trace.strs, k->short_name);
		l[i].mangled = strtab_str(&a->trace.strs, k->mangled);
		memcpy(l[i].grid, k->grid, sizeof(l[i].grid));
		memcpy(l[i].block, k->block, sizeof(l[i].block));
		l[i].start = k->start;
		l[i].end = k->end;
		l[i].device = k->device;
		l[i].in_stage = !mask || (a->tl.kernel_stages && (a->tl.kernel_stages[i] & mask));
	}
	*out = l;
	*n = a->trace.nkernels;
	return 0;
}

static const char *jstr(json_t *o, const char *key);
static int load_json(const char *path, json_t **out, struct strbuf *err);

/* The ncu step's ncu/measured.json: how many of the selected kernels ncu
 * measured, and the ncu time they cost. */
static void measured_reason(struct report_model *m, const char *run_dir)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	json_t *j = NULL, *runs, *v;

	path_join(&p, run_dir, "ncu/measured.json");
	if (path_exists(p.buf) && !load_json(p.buf, &j, &err) && j &&
	    json_is_array(runs = json_object_get(j, "runs")) &&
	    json_is_integer(v = json_object_get(j, "measured")))
		report_model_add_reason(
		    m, "ncu measured %lld of %zu %s in %.1f s of ncu (ncu/measured.json)",
		    (long long)json_integer_value(v), json_array_size(runs),
		    json_is_true(json_object_get(j, "explicit_filters")) ? "configured runs"
									 : "selected kernels",
		    json_number_value(json_object_get(j, "ncu_wall_s")));
	json_decref(j);
	strbuf_release(&p);
	strbuf_release(&err);
}

/* The select step's ncu/selection.json into m->sel, selected kernels
 * marked. Returns the parsed file for the counter join (the caller's to
 * free), or NULL when there is none or it does not parse (a note says so). */
static json_t *fill_selection(struct report_model *m, const char *run_dir, const struct config *cfg)
{
	json_t *j = NULL, *v, *ks;
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	size_t i;

	path_join(&path, run_dir, "ncu/selection.json");
	if (!path_exists(path.buf))
		goto out;
	if (load_json(path.buf, &j, &err) || !j) {
		report_model_add_note(m, "kernel selection not shown: %s", err.buf);
		json_decref(j);
		j = NULL;
		goto out;
	}
	m->sel.available = 1;
	report_set_str(&m->sel.stage, cfg ? config_get_string(cfg, "run.stage") : NULL);
	if (json_is_integer(v = json_object_get(j, "top_n")))
		m->sel.top_n = (uint64_t)json_integer_value(v);
	if (json_is_number(v = json_object_get(j, "target_coverage")))
		m->sel.coverage_target = json_number_value(v);
	if (json_is_number(v = json_object_get(j, "coverage")))
		m->sel.coverage = rnum_of(json_number_value(v));
	if (json_is_integer(v = json_object_get(j, "selected")))
		m->sel.nr_selected = (uint64_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "distinct_kernels")))
		m->sel.nr_candidates = (uint64_t)json_integer_value(v);
	if (jstr(j, "stop_reason") && *jstr(j, "stop_reason"))
		report_model_add_reason(m, "stopped: %s", jstr(j, "stop_reason"));
	if (json_is_integer(v = json_object_get(j, "nccl_kernels_not_replayed")) &&
	    json_integer_value(v))
		report_model_add_reason(m, "%lld NCCL kernels left out (never kernel-replayed)",
					(long long)json_integer_value(v));
	if (json_is_integer(v = json_object_get(j, "excluded_kernels")) && json_integer_value(v))
		report_model_add_reason(
		    m, "%lld kernels excluded by pipeline.ncu.ncu_cli.kernel_exclude",
		    (long long)json_integer_value(v));
	measured_reason(m, run_dir);
	ks = json_object_get(j, "kernels");
	json_array_foreach(ks, i, v)
	{
		const char *name = jstr(v, "name");

		for (size_t k = 0; name && k < m->nr_kernels; k++)
			if (!strcmp(m->kernels[k].short_name, name))
				m->kernels[k].selected = 1;
	}
out:
	strbuf_release(&path);
	strbuf_release(&err);
	return j;
}

/* Findings only the timeline knows, added after findings_run(). */
static void timeline_findings(struct report_model *m, const struct report_analysis *a)
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
	if (!any) {
		struct strbuf names = STRBUF_INIT;

		for (int s = 0; s < STAGE_NROLES; s++)
			for (size_t i = 0; i < a->stages.stages[s].nnames; i++)
				strbuf_addf(&names, "%s`%s`", names.len ? ", " : "",
					    a->stages.stages[s].names[i]);
		report_model_add_finding(m, FINDING_WARNING, "no-stage-ranges",
					 "`llmprof nvtx` lists the ranges a program emits; name "
					 "them in stages.prefill / stages.decode.",
					 "No NVTX range matched a stage (looked for %s): stage "
					 "timings are empty.",
					 names.buf);
		strbuf_release(&names);
	}
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

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int load_json(const char *path, json_t **out, struct strbuf *err)
{
	json_error_t je;

	*out = NULL;
	if (!path_exists(path))
		return 0;
	*out = json_load_file(path, 0, &je);
	if (!*out)
		return error_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	return 0;
}

/* Recorded steps, with analyze and join replaced by what happened here and
 * the reports step left out (a report cannot describe its own writing, and
 * leaving it out keeps regeneration byte-identical). */
static void fill_steps(struct report_model *m, json_t *status,
		       const struct report_build_result *res)
{
	json_t *steps = status ? json_object_get(status, "steps") : NULL;
	size_t i;
	json_t *s;
	int did_analyze = 0, did_join = 0;

	json_array_foreach(steps, i, s)
	{
		const char *name = jstr(s, "name"), *state = jstr(s, "state");
		const char *msg = jstr(s, "message");
		struct strbuf why = STRBUF_INIT;

		if (!name || !state || !strcmp(name, "reports"))
			continue;
		if (!strcmp(name, "analyze")) {
			/* skipped both times: the recorded reason says why there is
			 * no trace (no backend, pipeline.trace.enable=false) */
			const char *reason = !strcmp(res->analyze_state, "skipped") &&
						     !strcmp(state, "skipped") && msg
						 ? msg
						 : res->analyze_msg.buf;

			report_model_add_step(m, "analyze", res->analyze_state,
					      strcmp(res->analyze_state, "ok") ? reason : NULL);
			did_analyze = 1;
			continue;
		}
		if (!strcmp(name, "join")) {
			report_model_add_step(m, "join", res->join_state,
					      strcmp(res->join_state, "ok") ? res->join_msg.buf
									    : NULL);
			did_join = 1;
			continue;
		}
		if (!strcmp(state, "ok")) {
			report_model_add_step(m, name, "ok", NULL);
		} else if (!strcmp(state, "skipped")) {
			report_model_add_step(m, name, "skipped", msg);
		} else if (!strcmp(state, "pending") || !strcmp(state, "running")) {
			strbuf_addf(&why, "never finished (%s when status.json was last written)",
				    state);
			report_model_add_step(m, name, "failed", why.buf);
		} else {
			if (strcmp(state, "failed"))
				strbuf_addf(&why, "%s: ", state);
			strbuf_addstr(&why, msg ? msg : "no reason recorded");
			report_model_add_step(m, name, "failed", why.buf);
		}
		strbuf_release(&why);
	}
	if (!did_analyze)
		report_model_add_step(m, "analyze", res->analyze_state,
				      strcmp(res->analyze_state, "ok") ? res->analyze_msg.buf
								       : NULL);
	if (!did_join)
		report_model_add_step(m, "join", res->join_state,
				      strcmp(res->join_state, "ok") ? res->join_msg.buf : NULL);
}

static void fill_env(struct report_model *m, json_t *env)
{
	json_t *gpus, *g, *tools, *v;

	if (!env)
		return;
	gpus = json_object_get(env, "gpus");
	g = json_array_get(gpus, 0);
	if (g) {
		report_set_str(&m->env.gpu_name, jstr(g, "name"));
		report_set_str(&m->env.compute_capability, jstr(g, "compute_capability"));
		if (json_is_integer(v = json_object_get(g, "sm_count")))
			m->env.sm_count = (int)json_integer_value(v);
		if (json_is_integer(v = json_object_get(g, "memory_total_bytes")))
			m->env.gpu_memory_gib =
			    rnum_of((double)json_integer_value(v) / (1024.0 * 1024 * 1024));
		if (json_is_integer(v = json_object_get(g, "max_sm_clock_mhz")))
			m->env.sm_clock_mhz = rnum_of((double)json_integer_value(v));
	}
	report_set_str(&m->env.driver, jstr(env, "driver_version"));
	report_set_str(&m->env.cuda, jstr(env, "cuda_driver_version"));
	report_set_str(&m->env.host, jstr(json_object_get(env, "host"), "hostname"));
	report_set_str(&m->env.cpu, jstr(json_object_get(env, "cpu"), "model"));
	if ((v = json_object_get(env, "llmprof")))
		report_model_add_tool(m, "llmprof", jstr(v, "version"));
	tools = json_object_get(env, "tools");
	if (jstr(json_object_get(tools, "nsys"), "version"))
		report_model_add_tool(m, "nsys", jstr(json_object_get(tools, "nsys"), "version"));
	if (jstr(json_object_get(tools, "ncu"), "version"))
		report_model_add_tool(m, "ncu", jstr(json_object_get(tools, "ncu"), "version"));
}

/* The CPU path of the built-in workloads: device=cpu in config.yaml, "no GPU
 * found" when env.json's probe listed none (profile then chose it). */
static enum report_device run_device(const struct config *cfg, json_t *env)
{
	const char *kind = cfg ? config_get_string(cfg, "workload.kind") : NULL;
	const char *dev = cfg ? config_get_string(cfg, "device") : NULL;
	json_t *gpus = env ? json_object_get(env, "gpus") : NULL;

	if (!kind || (strcmp(kind, "llm") && strcmp(kind, "dummy")) || !dev || strcmp(dev, "cpu"))
		return REPORT_DEVICE_GPU;
	return json_is_array(gpus) && !json_array_size(gpus) ? REPORT_DEVICE_CPU_NO_GPU
							     : REPORT_DEVICE_CPU;
}

/* The built-in llm's shape from config model.* / infer.*. */
static void fill_llm(struct report_model *m, const struct config *cfg)
{
	struct report_llm *l = &m->llm;
	const char *kind = config_get_string(cfg, "workload.kind");

	if (!kind || strcmp(kind, "llm"))
		return; /* a user's program: config model.* does not describe it */
	report_set_str(&l->name, config_get_string(cfg, "model.name"));
	report_set_str(&l->arch, config_get_string(cfg, "model.arch"));
	l->hidden_size = (int)config_get_int(cfg, "model.hidden_size", 0);
	l->intermediate_size = (int)config_get_int(cfg, "model.intermediate_size", 0);
	l->num_layers = (int)config_get_int(cfg, "model.num_layers", 0);
	l->num_heads = (int)config_get_int(cfg, "model.num_heads", 0);
	l->num_kv_heads = (int)config_get_int(cfg, "model.num_kv_heads", 0);
	l->head_dim = (int)config_get_int(cfg, "model.head_dim", 0);
	l->vocab_size = (int)config_get_int(cfg, "model.vocab_size", 0);
	report_set_str(&l->dtype, config_get_string(cfg, "infer.dtype"));
	l->batch_size = (int)config_get_int(cfg, "infer.batch_size", 0);
	l->prompt_len = (int)config_get_int(cfg, "infer.prompt_len", 0);
	l->new_tokens = (int)config_get_int(cfg, "infer.max_new_tokens", 0);
	l->cuda_graph = config_get_bool(cfg, "infer.cuda_graph", -1);
}

/* A path inside the bundle as the reports show it: relative, so a moved
 * bundle regenerates the same bytes. */
static const char *shown_path(const char *run_dir, const char *path)
{
	size_t n = run_dir ? strlen(run_dir) : 0;

	if (n && !strncmp(path, run_dir, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

int report_build_model(const struct report_build_opts *o, struct report_model *m,
		       struct report_build_result *res, struct strbuf *err)
{
	struct report_analysis *own = NULL;
	const struct report_analysis *a = o->analysis;
	struct strbuf trace = STRBUF_INIT, p = STRBUF_INIT, e = STRBUF_INIT;
	json_t *status = NULL, *env = NULL, *sel = NULL;
	const char *trace_path = o->trace_path;
	const char *ncu = o->ncu_csv;
	int ret = -1;

	if (o->run_dir) {
		path_join(&p, o->run_dir, "status.json");
		if (load_json(p.buf, &status, err))
			goto out;
		strbuf_reset(&p);
		path_join(&p, o->run_dir, "env.json");
		if (load_json(p.buf, &env, err))
			goto out;
		if (!trace_path)
			trace_path = report_bundle_trace(o->run_dir, &trace);
		strbuf_reset(&p);
		path_join(&p, o->run_dir, "ncu/raw.csv");
		if (!ncu && path_exists(p.buf))
			ncu = p.buf;
		report_set_str(&m->run.run_id, jstr(status, "run_id"));
		report_set_str(&m->run.started_at, jstr(status, "started"));
	}
	if (o->cfg)
		report_set_str(&m->run.mode, config_get_string(o->cfg, "run.mode"));
	if (!a) {
		own = report_analysis_new();
		report_analysis_run(own, trace_path, o->cfg);
		a = own;
	}
	if (a->path)
		report_set_str(&m->run.trace_path, shown_path(o->run_dir, a->path));
	res->analyze_state = a->state;
	strbuf_add(&res->analyze_msg, a->msg.buf, a->msg.len);
	fill_from_analysis(m, a);
	if (o->run_dir)
		sel = fill_selection(m, o->run_dir, o->cfg);
	if (ncu) {
		report_set_str(&m->run.ncu_path, shown_path(o->run_dir, ncu));
		if (strcmp(a->state, "ok"))
			strbuf_addstr(&res->join_msg, "no analyzed trace to join the counters to");
		else {
			/* the ncu step profiles run.stage only (NVTX include filters) */
			report_set_str(&m->run.counters_stage,
				       o->cfg ? config_get_string(o->cfg, "run.stage") : NULL);
			join_counters(m, ncu, shown_path(o->run_dir, ncu), a, sel,
				      m->run.counters_stage, res);
		}
	} else {
		strbuf_addstr(&res->join_msg, "no ncu/raw.csv: no counters to join");
	}
	if (o->run_dir)
		fill_steps(m, status, res);
	else {
		report_model_add_step(m, "analyze", res->analyze_state,
				      strcmp(res->analyze_state, "ok") ? res->analyze_msg.buf
								       : NULL);
		report_model_add_step(m, "join", res->join_state,
				      strcmp(res->join_state, "ok") ? res->join_msg.buf : NULL);
	}
	fill_env(m, env);
	m->env.device = run_device(o->cfg, env);
	if (o->cfg)
		fill_llm(m, o->cfg);
	strbuf_reset(&p);
	if (o->analytic_path)
		strbuf_addstr(&p, o->analytic_path);
	else if (o->run_dir)
		path_join(&p, o->run_dir, "workload/analytic.json");
	if (p.len && path_exists(p.buf) && analytic_load_file(m, p.buf, &e)) {
		report_model_add_note(m, "analytic FLOPs/bytes not used: %s", e.buf);
		strbuf_reset(&e);
	}
	if (m->env.device == REPORT_DEVICE_GPU)
		peaks_load(m, o->cfg, fill_env_from_trace(m, a));
	else
		report_model_add_note(m,
				      "the built-in workload ran on the %s, so GPU peaks, MFU "
				      "and MBU do not apply",
				      report_device_label(m->env.device));
	report_model_derive(m);
	findings_run(m);
	timeline_findings(m, a);
	for (size_t i = 0; i < m->nr_findings; i++) {
		const char *t = m->findings[i].text;

		if (m->findings[i].severity == FINDING_INFO || !t)
			continue;
		/* the text is Markdown: drop its backslash escapes for a terminal */
		for (; *t; t++) {
			if (*t == '\\' && t[1] && strchr("\\`*_{}[]()#+-.!|<>~", t[1]))
				t++;
			strbuf_addch(&res->loud, *t);
		}
		strbuf_addch(&res->loud, '\n');
	}
	ret = 0;
out:
	report_analysis_free(own);
	json_decref(sel);
	json_decref(status);
	json_decref(env);
	strbuf_release(&trace);
	strbuf_release(&p);
	strbuf_release(&e);
	return ret;
}

int report_build(const struct report_build_opts *o, struct report_build_result *res,
		 struct strbuf *err)
{
	struct report_model m;
	int ret;

	report_model_init(&m);
	ret = report_build_model(o, &m, res, err);
	if (!ret)
		ret = report_write_all(&m, o->out_dir, err);
	report_model_release(&m);
	return ret;
}
