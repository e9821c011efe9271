/* join.c: the join step; see join.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/join.h"
#include "analysis/ncu_export.h"
#include "analysis/ncu_match.h"
#include "analysis/select.h"
#include "analysis/session.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/ncu_csv.h"
#include "core/banned.h"

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

/* A class of launches that one ncu result describes: the kernel (trace name
 * id), its grid and block, and the innermost operator range it ran in. */
struct launch_class {
	int32_t name, op;
	int32_t grid[3], block[3];
	json_t *entry; /* its ncu/selection.json kernel (borrowed), or NULL */
	double flops;  /* ncu's, per launch */
	double bytes;  /* ncu's DRAM bytes per launch; NAN when a result has none */
	unsigned n;    /* results averaged */
};

/* Whether operator range op (-1: none) is one the selection entry e
 * measures for: its "operator" or one of its "same_work" classes'
 * (select.h), a repeated layer's index aside. */
static int entry_has_op(const struct trace *tr, json_t *e, int32_t op)
{
	const char *o = op >= 0 ? strtab_str(&tr->strs, op) : NULL;
	json_t *w;
	size_t i;

	if (!e)
		return 0;
	if (select_same_op(json_string_value(json_object_get(e, "operator")), o))
		return 1;
	json_array_foreach(json_object_get(e, "same_work"), i, w)
	{
		if (select_same_op(json_string_value(json_object_get(w, "operator")), o))
			return 1;
	}
	return 0;
}

/* The selection's class (select.h): name, grid, block and operator, a
 * repeated layer's index aside (select_same_op), or one of the classes its
 * selection entry measures for. */
static int same_class(const struct trace *tr, const struct launch_class *c,
		      const struct trace_ksig *k, int32_t op)
{
	if (c->name != k->name || memcmp(c->grid, k->grid, sizeof(c->grid)) ||
	    memcmp(c->block, k->block, sizeof(c->block)))
		return 0;
	if (c->op == op)
		return 1;
	if (c->op >= 0 && op >= 0 &&
	    select_same_op(strtab_str(&tr->strs, c->op), strtab_str(&tr->strs, op)))
		return 1;
	return entry_has_op(tr, c->entry, op);
}

/* The trace launch selection entry e measured ("launch_index"), or
 * SIZE_MAX when it names none of tr's. */
static size_t entry_launch(const struct trace *tr, json_t *e)
{
	json_t *v = json_object_get(e, "launch_index");

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (size_t)json_integer_value(v) >= tr->nkernels)
		return SIZE_MAX;
	return (size_t)json_integer_value(v);
}

/* Whether entry e measured a launch of launch k's kernel and configuration. */
static int entry_is_kernel(const struct trace *tr, json_t *e, const struct trace_ksig *k)
{
	size_t li = entry_launch(tr, e);
	const struct trace_ksig *s;

	if (li == SIZE_MAX)
		return 0;
	s = trace_ksig(tr, &tr->kernels[li]);
	return s->name == k->name && !memcmp(s->grid, k->grid, sizeof(k->grid)) &&
	       !memcmp(s->block, k->block, sizeof(k->block));
}

/* The selection entry whose result stands for launch li: the same kernel
 * and configuration as its measured launch, li's operator its own or one of
 * its same_work classes; NULL when none (an older selection.json, or a
 * result nobody selected). */
static json_t *entry_of(const struct trace *tr, const struct timeline *tl, json_t *sel, size_t li)
{
	const struct trace_ksig *k = trace_ksig(tr, &tr->kernels[li]);
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(sel, "kernels"), i, e)
	{
		if (entry_is_kernel(tr, e, k) && entry_has_op(tr, e, tl->kernel_op[li]))
			return e;
	}
	return NULL;
}

/* The launch a result stands for in the stage counter FLOPs: the one
 * measured.json names, else the launch the selection chose for the joined
 * kernel's class (name, grid, block); SIZE_MAX when neither says. */
static size_t measured_launch(const struct trace *tr, const struct ncu_match *mt, json_t *sel)
{
	const struct trace_ksig *k;
	json_t *e;
	size_t i;

	if (mt->how == NCU_MATCH_LAUNCH || mt->launch >= tr->nkernels)
		return mt->launch;
	k = trace_ksig(tr, &tr->kernels[mt->launch]);
	json_array_foreach(json_object_get(sel, "kernels"), i, e)
	{
		if (entry_is_kernel(tr, e, k))
			return entry_launch(tr, e);
	}
	return SIZE_MAX;
}

/* Stage counter FLOPs from the launches ncu measured. One kernel can run
 * several shapes under one launch configuration (a GEMV for the q/k/v,
 * output and down projections), so a per-name mean would stand for shapes
 * never measured. The launch each result measured (measured_launch())
 * counts for the launches of the same class (kernel, grid, block,
 * operator) in the profiled stage(s), and for those of the classes its
 * selection entry measures for ("same_work"), and launches of unmeasured classes
 * are left out (counter_time_share says how much). Returns 0 with the
 * stages set, or -1 (no launch known, nothing matched): the per-name
 * estimate of report_model_derive() then applies. */
static int class_counter_flops(struct report_model *m, const struct report_analysis *a,
			       const struct ncu_kernel_table *t, const struct ncu_match *mt,
			       json_t *sel, const char *taken)
{
	const struct trace *tr = &a->trace;
	const struct timeline *tl = &a->tl;
	struct launch_class *cls = NULL;
	size_t ncls = 0, acls = 0, i;
	/* by role: REPORT_ROLE_PREFILL, REPORT_ROLE_DECODE */
	double flops[2] = {0, 0}, bytes[2] = {0, 0}, cov_ns[2] = {0, 0}, all_ns[2] = {0, 0};
	int any[2] = {0, 0}, ret = -1;
	unsigned want;

	if (!a->have_tl || !tl->kernel_op || !tl->kernel_stages)
		goto out;
	for (size_t j = 0; j < t->nr; j++) {
		const struct ncu_kernel *r = &t->k[j];
		struct launch_class *c = NULL;
		size_t li;

		if (!ncu_have(r->flops_total) || mt[j].launch == SIZE_MAX)
			continue;
		li = measured_launch(tr, &mt[j], sel);
		if (li >= tr->nkernels)
			continue;
		for (i = 0; i < ncls && !c; i++)
			if (same_class(tr, &cls[i], trace_ksig(tr, &tr->kernels[li]),
				       tl->kernel_op[li]))
				c = &cls[i];
		if (!c) {
			ALLOC_GROW(cls, ncls + 1, acls);
			c = &cls[ncls++];
			memset(c, 0, sizeof(*c));
			c->name = trace_ksig(tr, &tr->kernels[li])->name;
			c->op = tl->kernel_op[li];
			c->entry = entry_of(tr, tl, sel, li);
			memcpy(c->grid, trace_ksig(tr, &tr->kernels[li])->grid, sizeof(c->grid));
			memcpy(c->block, trace_ksig(tr, &tr->kernels[li])->block, sizeof(c->block));
		}
		c->flops += (r->flops_total - c->flops) / (double)++c->n;
		c->bytes +=
		    ((ncu_have(r->dram_bytes) ? r->dram_bytes : NAN) - c->bytes) / (double)c->n;
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
			if (same_class(tr, &cls[i], trace_ksig(tr, kk), tl->kernel_op[k])) {
				flops[role] += cls[i].flops;
				bytes[role] += cls[i].bytes;
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
		if (!isnan(bytes[role]))
			s->counter_bytes = rnum_of(bytes[role]);
		if (all_ns[role] > 0)
			s->counter_time_share = rnum_of(cov_ns[role] / all_ns[role]);
	}
	m->run.counters_by_class = 1;
	ret = 0;
out:
	free(cls);
	return ret;
}

/* ncu's CSV with mangled names beside the raw page (bundle/layout.h).
 * Empty when path does not end in raw.csv. */
static void mangled_path(const char *path, struct strbuf *out)
{
	strbuf_reset(out);
	bundle_mangled_beside(path, out);
}

int join_read_ncu(const char *path, const char *shown, struct ncu_kernel_table *t,
		  struct strbuf *note, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT, mp = STRBUF_INIT, e = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	size_t got = 0;
	int ret = -1;

	if (ncu_export_check_size(path, err) ||
	    read_regular_file(path, INPUT_CAP_DATA, &buf, err) ||
	    ncu_raw_parse(buf.buf, buf.len, shown, &raw, err) || ncu_kernels_from_raw(&raw, t, err))
		goto out;
	ret = 0;
	mangled_path(path, &mp);
	if (!mp.len || !path_exists(mp.buf))
		goto out;
	strbuf_reset(&buf);
	if (read_regular_file(mp.buf, INPUT_CAP_DATA, &buf, &e) ||
	    ncu_attach_mangled(t, buf.buf, buf.len, mp.buf, &got, &e)) {
		if (note)
			strbuf_addf(note, "mangled names not used: %s", e.buf);
	} else if (note && got < t->nr) {
		strbuf_addf(note, "%s gave the mangled names of %zu of %zu results", mp.buf, got,
			    t->nr);
	}
out:
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&mp);
	strbuf_release(&e);
	return ret;
}

/* The trace's launches for the matcher (a's kernels in launch order, in the
 * stage the counters were taken in); from an `nsys stats` kernel summary,
 * which has no launches, one per kernel of m without a configuration. *n
 * of them, owned by the caller. */
static struct launch *join_launches(const struct report_model *m, const struct report_analysis *a,
				    const char *taken, size_t *n)
{
	struct strbuf err = STRBUF_INIT;
	struct launch *l = NULL;

	*n = 0;
	if (a->have_tl) {
		if (report_analysis_launches(a, taken ? taken : "all", &l, n, &err))
			report_analysis_launches(a, "all", &l, n, &err);
	} else {
		l = xcalloc(m->nr_kernels + 1, sizeof(*l));
		for (size_t i = 0; i < m->nr_kernels; i++) {
			l[i].name = m->kernels[i].short_name;
			l[i].in_stage = 1;
		}
		*n = m->nr_kernels;
	}
	strbuf_release(&err);
	return l;
}

/* Counters of the results joined to kernel k (a trace kernel name). */
static void kernel_counters(struct report_kernel *k, const struct ncu_kernel_table *t,
			    const size_t *kidx, size_t ki)
{
	struct wmean sm = {0, 0}, mem = {0, 0}, dram = {0, 0}, occ = {0, 0};
	struct lsum dur = {0, 0}, fl = {0, 0}, hp = {0, 0}, sp = {0, 0}, dp = {0, 0}, tc = {0, 0},
		    bytes = {0, 0};
	uint64_t n = 0;

	for (size_t j = 0; j < t->nr; j++) {
		const struct ncu_kernel *r = &t->k[j];
		double w;

		if (kidx[j] != ki)
			continue;
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
		return;
	report_kernel_counters(k)->profiled = n;
	report_kernel_counters(k)->duration_ns = lsum_mean(&dur);
	report_kernel_counters(k)->sm_sol_pct = wmean_get(&sm);
	report_kernel_counters(k)->mem_sol_pct = wmean_get(&mem);
	report_kernel_counters(k)->dram_sol_pct = wmean_get(&dram);
	report_kernel_counters(k)->occupancy_pct = wmean_get(&occ);
	report_kernel_counters(k)->flops = lsum_mean(&fl);
	report_kernel_counters(k)->flops_hp = lsum_mean(&hp);
	report_kernel_counters(k)->flops_sp = lsum_mean(&sp);
	report_kernel_counters(k)->flops_dp = lsum_mean(&dp);
	report_kernel_counters(k)->flops_tensor = lsum_mean(&tc);
	report_kernel_counters(k)->dram_bytes = lsum_mean(&bytes);
}

/* The matches into m->run.cjoin; kidx[j] = the model kernel of result j
 * (SIZE_MAX when not joined). */
static void record_matches(struct report_model *m, const struct ncu_kernel_table *t,
			   const struct ncu_match *mt, const struct launch *l, size_t *kidx)
{
	struct report_counter_join *cj = &m->run.cjoin;

	cj->ran = 1;
	for (size_t j = 0; j < t->nr; j++) {
		const struct ncu_kernel *r = &t->k[j];
		struct report_unjoined *u;

		kidx[j] = SIZE_MAX;
		if (mt[j].how == NCU_MATCH_RANGE) {
			cj->ranges++;
			continue;
		}
		cj->results++;
		if (mt[j].how != NCU_MATCH_NONE) {
			for (size_t i = 0; i < m->nr_kernels && kidx[j] == SIZE_MAX; i++)
				if (!strcmp(m->kernels[i].short_name, l[mt[j].launch].name))
					kidx[j] = i;
		}
		if (kidx[j] != SIZE_MAX) {
			cj->joined++;
			cj->by_launch += mt[j].how == NCU_MATCH_LAUNCH;
			cj->by_mangled += mt[j].how == NCU_MATCH_MANGLED;
			cj->by_name += mt[j].how == NCU_MATCH_NAME;
			cj->by_normalised += mt[j].how == NCU_MATCH_NORMALISED;
			continue;
		}
		ALLOC_GROW(cj->unjoined, cj->nr_unjoined + 1, cj->alloc_unjoined);
		u = &cj->unjoined[cj->nr_unjoined++];
		u->id = r->id;
		u->pid = r->pid;
		u->name = xstrdup(r->name ? r->name : "");
		memcpy(u->grid, r->grid, sizeof(u->grid));
		memcpy(u->block, r->block, sizeof(u->block));
		u->reason = xstrdup(mt[j].reason ? mt[j].reason
						 : "its trace kernel is not in the "
						   "report's kernel list");
	}
}

/* The join's one line: what joined, by which rule, and the first miss. */
static void join_message(const struct report_model *m, const char *shown, size_t kernels,
			 struct strbuf *out)
{
	const struct report_counter_join *cj = &m->run.cjoin;

	if (cj->nr_unjoined)
		strbuf_addf(out, "incomplete: %zu of %zu counter results unmatched; ",
			    cj->nr_unjoined, cj->results);
	strbuf_addf(out, "%s: %zu of %zu ncu results joined to %zu of %zu kernels", shown,
		    cj->joined, cj->results, kernels, m->nr_kernels);
	if (cj->joined)
		strbuf_addf(out,
			    " (%zu by launch index, %zu by mangled name, %zu by name, %zu by "
			    "normalised name)",
			    cj->by_launch, cj->by_mangled, cj->by_name, cj->by_normalised);
	if (cj->ranges)
		strbuf_addf(out, "; %zu range results (NVTX regions, not kernels)", cj->ranges);
	if (cj->nr_unjoined)
		strbuf_addf(out, "; first unmatched: ID %lld: %s", cj->unjoined[0].id,
			    cj->unjoined[0].reason);
}

/* The join step: each ncu result matched to a trace launch
 * (ncu_match_results(): launch index, mangled name, demangled or
 * normalised name, each with grid and block), each kernel given the
 * duration-weighted means of the results joined to it; every result that
 * does not join is recorded with its reason. */
void join_counters(struct report_model *m, const struct ncu_kernel_table *tab, const char *shown,
		   const struct report_analysis *a, json_t *sel, json_t *measured,
		   const char *taken, struct report_build_result *res)
{
	struct ncu_launch_hint *hints = NULL;
	size_t nh = ncu_hints_from_json(measured, &hints), nl = 0, kernels = 0;
	struct launch *l = join_launches(m, a, taken, &nl);
	struct ncu_match *mt = xcalloc(tab->nr + 1, sizeof(*mt));
	size_t *kidx = xcalloc(tab->nr + 1, sizeof(*kidx));

	ncu_match_results(tab, l, nl, hints, nh, mt);
	record_matches(m, tab, mt, l, kidx);
	for (size_t i = 0; i < m->nr_kernels; i++) {
		kernel_counters(&m->kernels[i], tab, kidx, i);
		kernels += m->kernels[i].c->profiled > 0;
	}
	if (class_counter_flops(m, a, tab, mt, sel, taken) && m->run.cjoin.joined)
		report_model_add_note(m,
				      "counter FLOPs per stage are estimates: each kernel's "
				      "mean FLOPs per measured launch times its launches (no "
				      "%s to tell which launch each result measured)",
				      bundle_art(BA_NCU_SELECTION));
	res->join_state = STEP_OK;
	join_message(m, shown, kernels, &res->join_msg);
	ncu_matches_release(mt, tab->nr);
	free(mt);
	free(kidx);
	free(l);
	free(hints);
}
