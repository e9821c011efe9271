/* join.c: the join step; see join.h. */
#include <stdlib.h>
#include <string.h>

#include "analysis/join.h"
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
			int match = session_jstr(e, "name") &&
				    json_is_integer(json_object_get(e, "launch_index"));

			for (int d = 0; match && d < 3; d++)
				match =
				    json_integer_value(json_array_get(g, (size_t)d)) ==
					r->grid[d] &&
				    json_integer_value(json_array_get(b, (size_t)d)) == r->block[d];
			if (!match)
				continue;
			report_join_key(session_jstr(e, "name"), &k2);
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

int join_read_ncu(const char *path, const char *shown, struct ncu_kernel_table *t,
		  struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	int ret = -1;

	if (!read_regular_file(path, INPUT_CAP_DATA, &buf, err) &&
	    !ncu_raw_parse(buf.buf, buf.len, shown, &raw, err) &&
	    !ncu_kernels_from_raw(&raw, t, err))
		ret = 0;
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	return ret;
}

/* The join step: ncu's per-launch records matched to the trace's kernels by
 * demangled name, or, where the two demanglers disagree, by the name up to
 * its parameter list (template arguments included, so two instantiations
 * stay apart); each kernel gets the duration-weighted means of the
 * launches ncu measured. */
void join_counters(struct report_model *m, const struct ncu_kernel_table *tab, const char *shown,
		   const struct report_analysis *a, json_t *sel, const char *taken,
		   struct report_build_result *res)
{
	const struct ncu_kernel_table t = *tab;
	struct strbuf key = STRBUF_INIT;
	size_t joined_rows = 0, joined_kernels = 0;
	char **rkeys = NULL;

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
	if (class_counter_flops(m, a, tab, sel, taken) && t.nr)
		report_model_add_note(m, "counter FLOPs per stage are estimates: each kernel's "
					 "mean FLOPs per measured launch times its launches (no "
					 "ncu/selection.json to tell which launch each result "
					 "measured)");
	res->join_state = STEP_OK;
	strbuf_addf(&res->join_msg, "%s: %zu of %zu ncu results joined to %zu of %zu kernels",
		    shown, joined_rows, t.nr, joined_kernels, m->nr_kernels);
	if (t.nr > joined_rows)
		strbuf_addf(&res->join_msg, "; %zu results name no kernel of the trace",
			    t.nr - joined_rows);
	for (size_t j = 0; rkeys && j < t.nr; j++)
		free(rkeys[j]);
	free(rkeys);
	strbuf_release(&key);
}
