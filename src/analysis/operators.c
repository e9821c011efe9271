/* operators.c: the operator table of a timeline (see timeline.h): NVTX
 * ranges inside the stages that match stages.operator_pattern (or, when
 * none does, every range that is not a stage), their calls, the GPU time of
 * the kernels they launched themselves and with nested operators, CPU time
 * and share of the stage, one row per operator name (PyTorch's ATen ranges
 * by op, not by call: trace_range_op()); kernels replayed from CUDA graphs counted under
 * the ranges open where they were captured (graphops.h). An operator's
 * NVTX category, when it has one, is its class (the PyTorch startup module
 * names a module's class so: docs/pytorch.md). */
#include <stdlib.h>
#include <string.h>

#include "analysis/graphops.h"
#include "analysis/nvtxproj.h"
#include "analysis/timeline.h"
#include "analysis/timeline_priv.h"
#include "core/util.h"
#include "trace/pytorch_launch.h"
#include "core/xalloc.h"
#include "core/banned.h"

static int is_operator(const struct trace *t, const struct trace_range *r, const char *pattern)
{
	const char *text = strtab_str(&t->strs, r->text);
	const char *dom = strtab_str(&t->strs, r->domain);

	if (!text)
		return 0;
	if (starts_with(text, "aten::"))
		return 1;
	/* module ranges ("lm_head", "model.layers.3.mlp"): operators whatever
	 * stages.operator_pattern says */
	if (dom && !strcmp(dom, PYTORCH_NVTX_DOMAIN))
		return 1;
	if (dom && !strcmp(dom, "TensorRT"))
		return !strstr(text, "ExecutionContext");
	return pattern && *pattern && strstr(text, pattern) != NULL;
}

struct opinst {
	int32_t text, domain, cls;
	int stage;
	uint32_t range;
};

static int cmp_opinst(const void *a, const void *b)
{
	const struct opinst *x = a, *y = b;

	if (x->text != y->text)
		return x->text < y->text ? -1 : 1;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->stage < y->stage ? -1 : x->stage > y->stage;
}

static int cmp_opstat(const void *a, const void *b)
{
	const struct operator_stat *x = a, *y = b;

	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->text < y->text ? -1 : x->text > y->text;
}

/* The stage an operator range runs in: the nearest enclosing stage range. */
/* The stage a range's own mask names, or -1. */
static int own_stage(const uint8_t *stage_mask, int32_t r)
{
	uint8_t m = stage_mask[r];

	if (m & (1u << STAGE_PREFILL))
		return STAGE_PREFILL;
	if (m & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP)))
		return STAGE_DECODE;
	return -1;
}

/* Every range, parents before their children (by level, a counting sort):
 * what walking up the parents from each range computes, computed once per
 * range, so NVTX nesting thousands deep costs no more than a flat trace.
 * Owned by the caller. */
static uint32_t *parents_first(const struct nvtx_proj *p, size_t nr)
{
	size_t *at = xcalloc(nr + 2, sizeof(*at));
	uint32_t *order = xmalloc(st_mult(nr + 1, sizeof(*order)));

	for (size_t r = 0; r < nr; r++)
		at[(size_t)p->level[r] + 1]++;
	for (size_t l = 1; l <= nr; l++)
		at[l] += at[l - 1];
	for (size_t r = 0; r < nr; r++)
		order[at[p->level[r]]++] = (uint32_t)r;
	free(at);
	return order;
}

/* incl[r] for each operator r: its own time (own[r]) plus its children's,
 * children first; the ranges between operators pass their sums up without
 * keeping them (incl 0). */
static void inclusive_sums(const struct nvtx_proj *p, const uint8_t *is_op, const uint32_t *order,
			   size_t nr, const int64_t *own, int64_t *incl)
{
	for (size_t r = 0; r < nr; r++)
		incl[r] = own[r];
	for (size_t i = nr; i > 0; i--) {
		int32_t r = (int32_t)order[i - 1], up = p->parent[r];

		if (up >= 0)
			incl[up] = i64_sat_add(incl[up], incl[r]);
	}
	for (size_t r = 0; r < nr; r++)
		if (!is_op[r])
			incl[r] = 0;
}

/* Per range: the operator it is or is inside (nearest_op, -1 none), and
 * the stage of the nearest range above it that is a stage (stage, -1). */
static void walk_up(const struct nvtx_proj *p, const uint8_t *stage_mask, const uint8_t *is_op,
		    const uint32_t *order, size_t nr, int32_t *nearest_op, int8_t *stage)
{
	for (size_t i = 0; i < nr; i++) {
		int32_t r = (int32_t)order[i], up = p->parent[r];
		int s = up >= 0 ? own_stage(stage_mask, up) : -1;

		nearest_op[r] = is_op[r] ? r : up >= 0 ? nearest_op[up] : -1;
		stage[r] = (int8_t)(s >= 0 ? s : up >= 0 ? stage[up] : -1);
	}
}

/* The stage slot of kernel k for graph-replay operators: 0 prefill,
 * 1 decode, 2 none (the stage it ran in, not where it was captured). */
static int kernel_slot(const struct timeline *tl, size_t k)
{
	unsigned m = tl->kernel_stages ? tl->kernel_stages[k] : 0;

	if (m & (1u << STAGE_PREFILL))
		return 0;
	if (m & ((1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP)))
		return 1;
	return 2;
}

/* Adds the replayed graph kernels of capture range r, slot s, to the
 * operator of the same name, domain and stage (a new one when none). */
static void add_graph_op(struct timeline *tl, const struct trace *t, size_t *alloc, int32_t r,
			 int slot, int64_t ns, int64_t incl_ns, size_t nk, size_t replays,
			 int outer)
{
	static const int stage_of[3] = {STAGE_PREFILL, STAGE_DECODE, -1};
	const struct trace_range *rg = &t->ranges[r];
	struct operator_stat *o = NULL;

	int32_t text = trace_range_op(t, (size_t)r);

	for (size_t i = 0; i < tl->nops && !o; i++)
		if (tl->ops[i].text == text && tl->ops[i].domain == rg->domain &&
		    tl->ops[i].cls == rg->category && tl->ops[i].stage == stage_of[slot])
			o = &tl->ops[i];
	if (!o) {
		ALLOC_GROW(tl->ops, tl->nops + 1, *alloc);
		o = &tl->ops[tl->nops++];
		memset(o, 0, sizeof(*o));
		o->text = text;
		o->domain = rg->domain;
		o->cls = rg->category;
		o->stage = stage_of[slot];
	}
	/* the replays that ran it (their ranges ran once, at capture) */
	o->calls += replays;
	o->replays += replays;
	o->gpu_ns = i64_sat_add(o->gpu_ns, ns);
	o->gpu_incl_ns = i64_sat_add(o->gpu_incl_ns, incl_ns);
	if (outer)
		o->gpu_incl_outer_ns = i64_sat_add(o->gpu_incl_outer_ns, incl_ns);
	o->kernels += nk;
}

/* 1 for an operator range with a class inside no operator of that class
 * (a module inside another of its class: its kernels already count in the
 * outer one's class time). One depth-first walk of the range tree with,
 * per class, how many operators of it are open on the way down: exact at
 * any depth and linear in the ranges (a climb up the parents from each
 * range would cost depth x ranges on a deep tree of one class). */
static uint8_t *outer_of_class(const struct trace *t, const struct nvtx_proj *p,
			       const uint8_t *is_op)
{
	size_t nr = t->nranges, ncls = 0, sp = 0;
	uint8_t *outer = xcalloc(nr + 1, 1);
	/* children of range r: kids[first[r] .. first[r + 1]), next[r] the
	 * next one the walk goes down to */
	size_t *first = xcalloc(nr + 2, sizeof(*first));
	size_t *next = xmalloc(st_mult(nr + 1, sizeof(*next)));
	uint32_t *kids = xmalloc(st_mult(nr + 1, sizeof(*kids)));
	uint32_t *stack = xmalloc(st_mult(nr + 1, sizeof(*stack)));
	size_t *open;

	for (size_t r = 0; r < nr; r++) {
		int32_t cls = t->ranges[r].category;

		if (is_op[r] && cls >= 0 && (size_t)cls >= ncls)
			ncls = (size_t)cls + 1;
		if (p->parent[r] >= 0)
			first[(size_t)p->parent[r] + 1]++;
	}
	for (size_t r = 1; r <= nr; r++)
		first[r] += first[r - 1];
	memcpy(next, first, st_mult(nr, sizeof(*next)));
	for (size_t r = 0; r < nr; r++)
		if (p->parent[r] >= 0)
			kids[next[p->parent[r]]++] = (uint32_t)r;
	memcpy(next, first, st_mult(nr, sizeof(*next)));
	open = xcalloc(ncls + 1, sizeof(*open));
	for (size_t root = 0; root < nr; root++) {
		if (p->parent[root] >= 0)
			continue;
		stack[sp++] = (uint32_t)root;
		while (sp) {
			uint32_t r = stack[sp - 1];
			int32_t cls = is_op[r] ? t->ranges[r].category : -1;

			if (next[r] == first[r] && cls >= 0) /* going down into r */
				outer[r] = !open[cls]++;
			if (next[r] < first[r + 1]) {
				stack[sp++] = kids[next[r]++];
				continue;
			}
			if (cls >= 0) /* coming back up out of r */
				open[cls]--;
			sp--;
		}
	}
	free(first);
	free(next);
	free(kids);
	free(stack);
	free(open);
	return outer;
}

void timeline_build_operators(struct timeline *tl, const struct trace *t, const struct nvtx_proj *p,
			      const uint8_t *stage_mask, const struct stage_config *cfg)
{
	uint8_t *is_op = xcalloc(t->nranges + 1, 1);
	int64_t *op_ns = xcalloc(t->nranges + 1, sizeof(*op_ns));
	int64_t *incl_ns = xcalloc(t->nranges + 1, sizeof(*incl_ns));
	size_t *op_k = xcalloc(t->nranges + 1, sizeof(*op_k));
	struct opinst *inst = xmalloc(st_mult(t->nranges + 1, sizeof(*inst)));
	/* graph replays, per capture range and stage slot (kernel_slot) */
	int32_t *cap = graphops_capture_ranges(p, t);
	int64_t *g_ns = cap ? xcalloc(st_mult(t->nranges + 1, 3), sizeof(*g_ns)) : NULL;
	int64_t *g_incl = cap ? xcalloc(st_mult(t->nranges + 1, 3), sizeof(*g_incl)) : NULL;
	size_t *g_k = cap ? xcalloc(st_mult(t->nranges + 1, 3), sizeof(*g_k)) : NULL;
	/* replays per bucket: a new correlation id is one more replay */
	size_t *g_calls = cap ? xcalloc(st_mult(t->nranges + 1, 3), sizeof(*g_calls)) : NULL;
	int64_t *g_corr = cap ? xmalloc(st_mult(t->nranges + 1, 3 * sizeof(*g_corr))) : NULL;
	size_t ninst = 0, alloc = 0;
	uint8_t any_op = 0, *outer;
	int32_t *nearest_op = xmalloc(st_mult(t->nranges + 1, sizeof(*nearest_op)));
	int8_t *stage = xmalloc(t->nranges + 1);
	uint32_t *order;

	tl->have_graph_nodes = t->ngraph_nodes > 0;
	for (size_t r = 0; r < t->nranges; r++)
		any_op |= is_op[r] =
		    p->candidate[r] && is_operator(t, &t->ranges[r], cfg->operator_pattern);
	/* No range matches stages.operator_pattern (a program naming its
	 * ranges "attn", "mlp", "layer3"): every range that is not a stage is
	 * an operator, and a kernel belongs to the innermost one. */
	for (size_t r = 0; !any_op && r < t->nranges; r++)
		is_op[r] = p->candidate[r] && !stage_mask[r];
	order = parents_first(p, t->nranges);
	outer = outer_of_class(t, p, is_op);
	walk_up(p, stage_mask, is_op, order, t->nranges, nearest_op, stage);
	tl->kernel_op = xmalloc(st_mult(t->nkernels + 1, sizeof(*tl->kernel_op)));
	for (size_t k = 0; k < t->nkernels; k++) {
		int graph = cap && cap[k] >= 0;
		int32_t r = graph ? cap[k] : p->kernel_inner[k];
		int64_t d = i64_sat_sub(t->kernels[k].end, t->kernels[k].start);

		r = r >= 0 ? nearest_op[r] : -1;
		if (r < 0 && graph) { /* no operator at capture: the launch's, if any */
			graph = 0;
			r = p->kernel_inner[k] >= 0 ? nearest_op[p->kernel_inner[k]] : -1;
		}
		tl->kernel_op[k] = r >= 0 ? trace_range_op(t, (size_t)r) : -1;
		if (trace_ksig(t, &t->kernels[k])->graph_node >= 0) {
			tl->graph_kernels++;
			tl->graph_kernels_op += graph;
		}
		if (r < 0)
			continue;
		if (graph) {
			int slot = kernel_slot(tl, k);
			size_t at = (size_t)r * 3 + (size_t)slot;

			g_ns[at] = i64_sat_add(g_ns[at], d);
			g_k[at]++;
			/* the operator and the ones around it at capture (a
			 * layer around attn) ran once more per replay, as
			 * their eager ranges would have */
			for (int32_t a = r; a >= 0; a = p->parent[a]) {
				at = (size_t)a * 3 + (size_t)slot;
				if (!is_op[a])
					continue;
				g_incl[at] = i64_sat_add(g_incl[at], d);
				if (!g_calls[at] ||
				    g_corr[at] != trace_kernel_corr(t, &t->kernels[k]))
					g_calls[at]++;
				g_corr[at] = trace_kernel_corr(t, &t->kernels[k]);
			}
			continue;
		}
		op_ns[r] = i64_sat_add(op_ns[r], d);
		op_k[r]++;
	}
	inclusive_sums(p, is_op, order, t->nranges, op_ns, incl_ns);
	for (size_t r = 0; r < t->nranges; r++) {
		if (!is_op[r])
			continue;
		/* a range seen only at capture stands for its replays below */
		if (g_calls && !incl_ns[r] &&
		    (g_calls[r * 3] || g_calls[r * 3 + 1] || g_calls[r * 3 + 2]))
			continue;
		inst[ninst].text = trace_range_op(t, r);
		inst[ninst].domain = t->ranges[r].domain;
		inst[ninst].cls = t->ranges[r].category;
		inst[ninst].stage = stage[r];
		inst[ninst].range = (uint32_t)r;
		ninst++;
	}
	qsort(inst, ninst, sizeof(*inst), cmp_opinst);
	for (size_t lo = 0, hi; lo < ninst; lo = hi) {
		struct operator_stat *o;

		for (hi = lo; hi < ninst && !cmp_opinst(&inst[hi], &inst[lo]); hi++)
			;
		ALLOC_GROW(tl->ops, tl->nops + 1, alloc);
		o = &tl->ops[tl->nops++];
		memset(o, 0, sizeof(*o));
		o->text = inst[lo].text;
		o->domain = inst[lo].domain;
		o->cls = inst[lo].cls;
		o->stage = inst[lo].stage;
		o->calls = hi - lo;
		for (size_t i = lo; i < hi; i++) {
			const struct trace_range *rg = &t->ranges[inst[i].range];

			o->gpu_ns = i64_sat_add(o->gpu_ns, op_ns[inst[i].range]);
			o->gpu_incl_ns = i64_sat_add(o->gpu_incl_ns, incl_ns[inst[i].range]);
			if (outer[inst[i].range])
				o->gpu_incl_outer_ns =
				    i64_sat_add(o->gpu_incl_outer_ns, incl_ns[inst[i].range]);
			o->kernels += op_k[inst[i].range];
			o->cpu_ns =
			    i64_sat_add(o->cpu_ns, i64_sat_sub(trace_range_end(t, rg), rg->start));
		}
	}
	for (size_t r = 0; g_calls && r < t->nranges; r++)
		for (size_t slot = 0; slot < 3; slot++) {
			size_t at = r * 3 + slot;

			if (g_calls[at])
				add_graph_op(tl, t, &alloc, (int32_t)r, (int)slot, g_ns[at],
					     g_incl[at], g_k[at], g_calls[at], outer[r]);
		}
	for (size_t i = 0; i < tl->nops; i++) {
		struct operator_stat *o = &tl->ops[i];

		if (o->stage >= 0 && tl->stages[o->stage].kernel_ns)
			o->stage_share = (double)o->gpu_ns / (double)tl->stages[o->stage].kernel_ns;
	}
	if (tl->nops)
		qsort(tl->ops, tl->nops, sizeof(*tl->ops), cmp_opstat);
	free(is_op);
	free(outer);
	free(op_ns);
	free(incl_ns);
	free(op_k);
	free(inst);
	free(cap);
	free(g_ns);
	free(g_incl);
	free(g_k);
	free(g_calls);
	free(g_corr);
	free(order);
	free(nearest_op);
	free(stage);
}
