/* nvtxproj.c: NVTX GPU projection by sorting and sweeping (no R-tree). */
#include <stdlib.h>
#include <string.h>

#include "analysis/nvtxproj.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* The GPU ops sorted by (process, correlationId, op) are 4-byte op indices
 * (op < nkernels: a kernel; else a memop), read through the trace; a group
 * of them (one (process, correlationId)) is ops[glo[g]..glo[g + 1]). */
static const struct trace *key_trace;

static void op_key(const struct trace *t, uint32_t op, int64_t *gpid, int64_t *corr)
{
	if (op < t->nkernels) {
		*gpid = trace_ksig(t, &t->kernels[op])->gpid & TRACE_GPID_MASK;
		*corr = trace_kernel_corr(t, &t->kernels[op]);
	} else {
		*gpid = t->memops[op - t->nkernels].gpid & TRACE_GPID_MASK;
		*corr = t->memops[op - t->nkernels].corr;
	}
}

/* One launch call with the group of GPU ops it launched: 8 bytes. */
struct launch {
	uint32_t call;
	uint32_t group : 31; /* distinct (process, correlationId) */
	uint32_t solo : 1;   /* the only launch call of its group */
};

/* A launch's group, as the sweep reads it. */
struct launch_ops {
	int64_t op_start, op_end;
	int64_t kern_ns;
	uint32_t lo, hi; /* ops[lo..hi) */
};

static void op_times(const struct trace *t, uint32_t op, int64_t *s, int64_t *e)
{
	if (op < t->nkernels) {
		*s = t->kernels[op].start;
		*e = t->kernels[op].end;
	} else {
		*s = t->memops[op - t->nkernels].start;
		*e = t->memops[op - t->nkernels].end;
	}
}

static void group_ops(const struct trace *t, const uint32_t *ops, uint32_t lo, uint32_t hi,
		      struct launch_ops *g)
{
	g->lo = lo;
	g->hi = hi;
	g->kern_ns = 0;
	op_times(t, ops[lo], &g->op_start, &g->op_end);
	for (uint32_t i = lo; i < hi; i++) {
		int64_t os, oe;

		op_times(t, ops[i], &os, &oe);
		if (os < g->op_start)
			g->op_start = os;
		if (oe > g->op_end)
			g->op_end = oe;
		if (ops[i] < t->nkernels)
			g->kern_ns = i64_sat_add(g->kern_ns, i64_sat_sub(oe, os));
	}
}

static int cmp_op(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t xg, xc, yg, yc;

	op_key(key_trace, x, &xg, &xc);
	op_key(key_trace, y, &yg, &yc);
	if (xg != yg)
		return xg < yg ? -1 : 1;
	if (xc != yc)
		return xc < yc ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void call_key(const struct trace *t, uint32_t c, int64_t *gpid, int64_t *corr)
{
	*gpid = trace_csig(t, &t->calls[c])->gtid & TRACE_GPID_MASK;
	*corr = trace_call_corr(t, &t->calls[c]);
}

static int cmp_call(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t xg, xc, yg, yc;

	call_key(key_trace, x, &xg, &xc);
	call_key(key_trace, y, &yg, &yc);
	if (xg != yg)
		return xg < yg ? -1 : 1;
	if (xc != yc)
		return xc < yc ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Sorts idx[0..n) (the identity: 0, 1, ...) with cmp, by (process,
 * correlationId, index) as key() gives the first two, unless it is sorted
 * already (exports list rows mostly in correlationId order): each key read
 * once for that check, not twice per comparison. */
static void sort_idx(const struct trace *t, uint32_t *idx, size_t n,
		     void (*key)(const struct trace *, uint32_t, int64_t *, int64_t *),
		     int (*cmp)(const void *, const void *))
{
	int64_t pg = 0, pc = 0, g, c;
	size_t i = 0;

	for (; i < n; i++, pg = g, pc = c) {
		key(t, idx[i], &g, &c);
		if (i && (g < pg || (g == pg && c < pc)))
			break; /* equal keys: the indices, ascending, keep them in order */
	}
	if (i < n)
		sort_inplace(idx, n, sizeof(*idx), cmp);
}

static const struct trace_call *launch_call(const struct trace *t, const struct launch *l)
{
	return &t->calls[l->call];
}

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	const struct trace_call *cx = launch_call(key_trace, x), *cy = launch_call(key_trace, y);
	int64_t gx = trace_csig(key_trace, cx)->gtid, gy = trace_csig(key_trace, cy)->gtid;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (cx->start != cy->start)
		return cx->start < cy->start ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

/* The launches in cmp_launch()'s order, a thread at a time: a thread's
 * launches come in order already where its calls' correlationIds grow
 * with their start times (every export), so each bucket is only checked. */
static const uint32_t *thread_of_csig; /* csig id -> rank of its gtid */

static size_t launch_thread(const void *a)
{
	const struct launch *l = a;

	return thread_of_csig[key_trace->calls[l->call].sig];
}

static int cmp_gtid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void sort_launches(const struct trace *t, struct launch *launches, size_t nl)
{
	size_t n = t->csigs.nr, nt = 0;
	int64_t *gtids = xmalloc(st_mult(n + 1, sizeof(*gtids)));
	uint32_t *rank = xmalloc(st_mult(n + 1, sizeof(*rank)));

	for (size_t i = 0; i < n; i++)
		gtids[i] = ((const struct trace_csig *)rectab_get(&t->csigs, (uint32_t)i))->gtid;
	qsort(gtids, n, sizeof(*gtids), cmp_gtid);
	for (size_t i = 0; i < n; i++)
		if (!nt || gtids[nt - 1] != gtids[i])
			gtids[nt++] = gtids[i];
	for (size_t i = 0; i < n; i++) {
		int64_t g = ((const struct trace_csig *)rectab_get(&t->csigs, (uint32_t)i))->gtid;
		const int64_t *at = bsearch(&g, gtids, nt, sizeof(*gtids), cmp_gtid);

		rank[i] = (uint32_t)(at - gtids);
	}
	key_trace = t;
	thread_of_csig = rank;
	sort_stable(launches, nl, sizeof(*launches), cmp_launch, nt, launch_thread);
	thread_of_csig = NULL;
	key_trace = NULL;
	free(rank);
	free(gtids);
}

static const struct trace *sort_trace;

/* Ranges by thread, start, longest first, then rowid: a parent always comes
 * before its children. */
static int cmp_range(const void *a, const void *b)
{
	const struct trace_range *x = &sort_trace->ranges[*(const uint32_t *)a];
	const struct trace_range *y = &sort_trace->ranges[*(const uint32_t *)b];
	int64_t xe = trace_range_end(sort_trace, x), ye = trace_range_end(sort_trace, y);

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (xe != ye)
		return xe > ye ? -1 : 1;
	return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static void add_pair(struct nvtx_proj *p, uint32_t op, int32_t range, int32_t call)
{
	if (p->pair_ranges && (range < 0 || !p->pair_ranges[range]))
		return;
	if (p->pair_fn) {
		p->pair_fn(p->pair_ctx, op, range, call);
		return;
	}
	ALLOC_GROW(p->pairs, p->npairs + 1, p->pairs_alloc);
	p->pairs[p->npairs].op = op;
	p->pairs[p->npairs].range = range;
	p->pairs[p->npairs].call = call;
	p->npairs++;
}

/* The ranges of one thread open at a time, in start order, kept as two
 * lists: chain, ranges each inside the one before (proper nesting: the
 * usual case, a stack), and before it pre, the ranges that overlap others
 * only in part. Pushing a range that the chain's top does not contain moves
 * the chain into pre (each range at most once). Work per range or launch is
 * then O(log depth) plus the size of pre: linear in the nesting depth,
 * where scanning every open range was quadratic in it. */
struct open_ranges {
	uint32_t *pre, *chain;
	uint32_t *same; /* chain position -> how many positions back its run of
			 * identical [start, end] begins (ties go to the first) */
	/* chain position -> the deepest position at or below it whose range
	 * pairs are wanted for (nvtx_proj.pair_ranges), -1 when none: a
	 * launch lists its pairs by hopping from one such range to the next,
	 * not through every range of the chain */
	long *wanted;
	size_t npre, nchain, apre, achain, asame, awanted;
};

/* What launches of one group each (solo) add to a chain range and to every
 * range below it; added in when the range leaves the chain (flush). last:
 * the sequence number of the latest of them. */
struct pending {
	int64_t op_start, op_end, nops, kern_ns;
	size_t last;
};

/* Per range, what decides whether a launch of a group with several launch
 * calls counts again (it does unless the range's previous launch was of the
 * same group): the group and sequence number of its last launch counted one
 * at a time, and of the last solo launch handed to it. */
struct hit_state {
	uint32_t *stamp;
	size_t *stamp_seq, *solo_seq;
};

static int range_contains(const struct trace *t, uint32_t a, uint32_t b)
{
	const struct trace_range *x = &t->ranges[a], *y = &t->ranges[b];

	return x->start <= y->start && trace_range_end(t, x) >= trace_range_end(t, y);
}

static void pending_merge(struct pending *to, const struct pending *from)
{
	if (!from->nops)
		return;
	if (!to->nops || from->op_start < to->op_start)
		to->op_start = from->op_start;
	if (!to->nops || from->op_end > to->op_end)
		to->op_end = from->op_end;
	to->nops += from->nops;
	to->kern_ns = i64_sat_add(to->kern_ns, from->kern_ns);
	if (from->last > to->last)
		to->last = from->last;
}

/* Chain position j's pending goes into its results and to the range below
 * it (when it leaves the chain, or at any time). */
static void chain_flush(struct nvtx_proj *p, struct open_ranges *o, struct pending *pend,
			struct hit_state *h, size_t j)
{
	uint32_t r = o->chain[j];
	struct pending *x;

	if (!pend || !(x = &pend[r])->nops)
		return;
	if (!p->nops[r] || x->op_start < p->proj_start[r])
		p->proj_start[r] = x->op_start;
	if (!p->nops[r] || x->op_end > p->proj_end[r])
		p->proj_end[r] = x->op_end;
	p->nops[r] += x->nops;
	p->kern_ns[r] = i64_sat_add(p->kern_ns[r], x->kern_ns);
	if (x->last > h->solo_seq[r])
		h->solo_seq[r] = x->last;
	if (j)
		pending_merge(&pend[o->chain[j - 1]], x);
	memset(x, 0, sizeof(*x));
}

static void open_clear(struct nvtx_proj *p, struct open_ranges *o, struct pending *pend,
		       struct hit_state *h)
{
	while (o->nchain)
		chain_flush(p, o, pend, h, --o->nchain);
	o->npre = 0;
}

/* Drops ranges that ended before ts; keeps order. */
static void open_prune(struct nvtx_proj *p, const struct trace *t, struct open_ranges *o,
		       struct pending *pend, struct hit_state *h, int64_t ts)
{
	size_t w = 0;

	for (size_t i = 0; i < o->npre; i++)
		if (trace_range_end(t, &t->ranges[o->pre[i]]) >= ts)
			o->pre[w++] = o->pre[i];
	o->npre = w;
	/* ends do not grow along the chain: those ended are on top */
	while (o->nchain && trace_range_end(t, &t->ranges[o->chain[o->nchain - 1]]) < ts)
		chain_flush(p, o, pend, h, --o->nchain);
}

static void open_push(struct nvtx_proj *p, const struct trace *t, struct open_ranges *o,
		      struct pending *pend, struct hit_state *h, uint32_t r)
{
	size_t n = o->nchain;

	if (n && !range_contains(t, o->chain[n - 1], r)) {
		ALLOC_GROW(o->pre, o->npre + n, o->apre);
		for (size_t j = n; j > 0; j--)
			chain_flush(p, o, pend, h, j - 1);
		memcpy(o->pre + o->npre, o->chain, n * sizeof(*o->chain));
		o->npre += n;
		o->nchain = n = 0;
	}
	ALLOC_GROW(o->chain, n + 1, o->achain);
	ALLOC_GROW(o->same, n + 1, o->asame);
	o->chain[n] = r;
	o->same[n] = n && range_contains(t, r, o->chain[n - 1]) ? o->same[n - 1] + 1 : 0;
	if (p->pair_ranges) {
		ALLOC_GROW(o->wanted, n + 1, o->awanted);
		o->wanted[n] = p->pair_ranges[r] ? (long)n : n ? o->wanted[n - 1] : -1;
	}
	o->nchain++;
}

/* The deepest chain position whose range ends at or after end, or -1 (ends
 * do not grow along the chain). */
static long chain_deepest(const struct trace *t, const struct open_ranges *o, int64_t end)
{
	size_t lo = 0, hi = o->nchain; /* answer + 1 in [lo, hi] */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (trace_range_end(t, &t->ranges[o->chain[mid]]) >= end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static void open_release(struct open_ranges *o)
{
	free(o->pre);
	free(o->chain);
	free(o->same);
	free(o->wanted);
}

/* The parent of each range: the open range of its thread that contains it
 * with the least slack (start and end), the first of equals. */
static void compute_parents(struct nvtx_proj *p, const struct trace *t, const uint32_t *order,
			    size_t n)
{
	struct open_ranges o = {0};
	int64_t cur_tid = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t r = order[i];
		const struct trace_range *cr = &t->ranges[r];
		int64_t cend = trace_range_end(t, cr), best_tight = 0;
		int32_t best = -1;
		long j;

		if (i == 0 || cr->gtid != cur_tid) {
			open_clear(p, &o, NULL, NULL);
			cur_tid = cr->gtid;
		}
		open_prune(p, t, &o, NULL, NULL, cr->start);
		for (size_t a = 0; a < o.npre; a++) {
			const struct trace_range *pr = &t->ranges[o.pre[a]];
			int64_t pend = trace_range_end(t, pr), tight;

			if (pend < cend)
				continue;
			tight =
			    i64_sat_add(i64_sat_sub(cr->start, pr->start), i64_sat_sub(pend, cend));
			if (best < 0 || tight < best_tight) {
				best = (int32_t)o.pre[a];
				best_tight = tight;
			}
		}
		/* along the chain the slack only shrinks: the deepest that
		 * contains cr is the tightest there */
		if ((j = chain_deepest(t, &o, cend)) >= 0) {
			uint32_t c = o.chain[j - (long)o.same[j]];
			const struct trace_range *pr = &t->ranges[c];
			int64_t tight = i64_sat_add(i64_sat_sub(cr->start, pr->start),
						    i64_sat_sub(trace_range_end(t, pr), cend));

			if (best < 0 || tight < best_tight)
				best = (int32_t)c;
		}
		p->parent[r] = best;
		p->level[r] = best >= 0 ? p->level[best] + 1 : 0;
		open_push(p, t, &o, NULL, NULL, r);
	}
	open_release(&o);
}

/* The result arrays, sized for t, with "none" (-1) where that is the start. */
static void proj_alloc(struct nvtx_proj *p, const struct trace *t)
{
	size_t nk = t->nkernels, nr = t->nranges;

	memset(p, 0, sizeof(*p));
	p->nranges = nr;
	p->nkernels = nk;
	p->proj_start = xcalloc(nr + 1, sizeof(*p->proj_start));
	p->proj_end = xcalloc(nr + 1, sizeof(*p->proj_end));
	p->nops = xcalloc(nr + 1, sizeof(*p->nops));
	p->kern_ns = xcalloc(nr + 1, sizeof(*p->kern_ns));
	p->parent = xmalloc(st_mult(nr + 1, sizeof(*p->parent)));
	p->level = xcalloc(nr + 1, sizeof(*p->level));
	p->nchild_ops = xcalloc(nr + 1, sizeof(*p->nchild_ops));
	p->candidate = xcalloc(nr + 1, 1);
	p->kernel_inner = xmalloc(st_mult(nk + 1, sizeof(*p->kernel_inner)));
	memset(p->kernel_inner, 0xff, (nk + 1) * sizeof(*p->kernel_inner));
	memset(p->parent, 0xff, (nr + 1) * sizeof(*p->parent));
	p->nops_total = nk + t->nmemops;
}

/* The GPU ops of one group that found no launch call. */
static void no_call(struct nvtx_proj *p, const struct trace *t, unsigned flags, const uint32_t *ops,
		    size_t lo, size_t hi)
{
	p->nops_no_call += hi - lo;
	for (size_t o = lo; o < hi; o++)
		p->nkernels_no_call += ops[o] < t->nkernels;
	if (flags & NVTX_PROJ_PAIRS)
		for (size_t o = lo; o < hi; o++)
			add_pair(p, ops[o], -1, -1);
}

/* Step 1: GPU ops (sorted into ops) joined with their launch calls on
 * (process, correlationId); one struct launch per (op group, call), group
 * numbered per (process, correlationId), its ops ops[glo[g]..glo[g + 1]).
 * Returns the launches (*nl_out) and the groups' starts (*glo_out). */
static struct launch *join_launches(struct nvtx_proj *p, const struct trace *t, unsigned flags,
				    uint32_t *ops, size_t *nl_out, uint32_t **glo_out)
{
	size_t nops = t->nkernels + t->nmemops, nl = 0, ngroups = 0, ci = 0, alloc = 0;
	uint32_t *calls = xmalloc(st_mult(t->ncalls + 1, sizeof(*calls)));
	struct launch *launches = NULL;
	uint32_t *glo = xmalloc(st_mult(nops + 1, sizeof(*glo)));

	for (size_t i = 0; i < nops; i++)
		ops[i] = (uint32_t)i;
	for (size_t i = 0; i < t->ncalls; i++)
		calls[i] = (uint32_t)i;
	key_trace = t;
	sort_idx(t, ops, nops, op_key, cmp_op);
	sort_idx(t, calls, t->ncalls, call_key, cmp_call);
	for (size_t lo = 0, hi; lo < nops; lo = hi) {
		int64_t g, c, cg = 0, cc = 0;
		size_t first = nl;

		op_key(t, ops[lo], &g, &c);
		for (hi = lo + 1; hi < nops; hi++) {
			int64_t hg, hc;

			op_key(t, ops[hi], &hg, &hc);
			if (hg != g || hc != c)
				break;
		}
		glo[ngroups] = (uint32_t)lo;
		for (; ci < t->ncalls; ci++) {
			call_key(t, calls[ci], &cg, &cc);
			if (cg > g || (cg == g && cc >= c))
				break;
		}
		for (size_t c0 = ci; c0 < t->ncalls && c >= 0; c0++) {
			call_key(t, calls[c0], &cg, &cc);
			if (cg != g || cc != c)
				break;
			ALLOC_GROW(launches, nl + 1, alloc);
			launches[nl].call = calls[c0];
			launches[nl].group = (uint32_t)ngroups;
			launches[nl++].solo = 0;
		}
		if (nl == first + 1)
			launches[first].solo = 1;
		ngroups++;
		if (nl == first)
			no_call(p, t, flags, ops, lo, hi);
	}
	glo[ngroups] = (uint32_t)nops;
	key_trace = NULL;
	free(calls);
	*nl_out = nl;
	*glo_out = glo;
	return launches;
}

/* Launch number seq (l, of ops g) counts in open range r, one range at a
 * time. */
static void launch_hits(struct nvtx_proj *p, unsigned flags, const uint32_t *ops,
			const struct launch *l, const struct launch_ops *g, size_t seq,
			struct hit_state *h, uint32_t r)
{
	if (h->stamp[r] != l->group || h->solo_seq[r] > h->stamp_seq[r]) {
		if (!p->nops[r] || g->op_start < p->proj_start[r])
			p->proj_start[r] = g->op_start;
		if (!p->nops[r] || g->op_end > p->proj_end[r])
			p->proj_end[r] = g->op_end;
		p->nops[r]++;
		p->kern_ns[r] = i64_sat_add(p->kern_ns[r], g->kern_ns);
	}
	h->stamp[r] = l->group;
	h->stamp_seq[r] = seq;
	if (flags & NVTX_PROJ_PAIRS)
		for (uint32_t o = g->lo; o < g->hi; o++)
			add_pair(p, ops[o], (int32_t)r, (int32_t)l->call);
}

/* The pairs of a solo launch (l, its ops g) with the wanted ranges of
 * chain positions 0..j (their projection is pending), in chain order as
 * launch_hits() lists them: one hop per wanted range, so a chain thousands
 * deep with a few stage ranges in it costs a few steps a launch. */
static void wanted_pairs(struct nvtx_proj *p, struct open_ranges *o, const uint32_t *ops,
			 const struct launch *l, const struct launch_ops *g, long j)
{
	size_t n = 0;

	for (long c = o->wanted[j]; c >= 0; c = c ? o->wanted[c - 1] : -1) {
		ALLOC_GROW(p->hops, n + 1, p->hops_alloc);
		p->hops[n++] = o->chain[c];
	}
	while (n--)
		for (uint32_t op = g->lo; op < g->hi; op++)
			add_pair(p, ops[op], (int32_t)p->hops[n], (int32_t)l->call);
}

/* Opens the candidate ranges of thread gtid (order[*ri..]) that start by
 * ts, after dropping those ended before each. */
static void open_until(struct nvtx_proj *p, const struct trace *t, struct open_ranges *o,
		       struct pending *pend, struct hit_state *h, const uint32_t *order,
		       size_t ncand, size_t *ri, int64_t gtid, int64_t ts)
{
	while (*ri < ncand && t->ranges[order[*ri]].gtid == gtid &&
	       t->ranges[order[*ri]].start <= ts) {
		open_prune(p, t, o, pend, h, t->ranges[order[*ri]].start);
		open_push(p, t, o, pend, h, order[(*ri)++]);
	}
	open_prune(p, t, o, pend, h, ts);
}

/* Step 3: launches and candidate ranges (order, parents first) of each
 * thread swept in time order: each range's projection, each kernel's
 * innermost range. A launch counts in every open range that contains its
 * call; for the chain (struct open_ranges) that is the ranges below the
 * deepest one that does, so a launch of its own group is noted there once
 * (struct pending) and handed down when that range leaves the chain. */
static void sweep_launches(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			   const uint32_t *ops, const uint32_t *glo, struct launch *launches,
			   size_t nl, const uint32_t *order, size_t ncand)
{
	size_t nk = t->nkernels, nr = t->nranges;
	struct pending *pend = xcalloc(nr + 1, sizeof(*pend));
	struct open_ranges o = {0};
	struct hit_state hs, *h = &hs;
	int64_t gtid = 0;

	hs.stamp = xmalloc(st_mult(nr + 1, sizeof(*hs.stamp)));
	hs.stamp_seq = xcalloc(nr + 1, sizeof(*hs.stamp_seq));
	hs.solo_seq = xcalloc(nr + 1, sizeof(*hs.solo_seq));
	memset(hs.stamp, 0xff, (nr + 1) * sizeof(*hs.stamp));
	sort_launches(t, launches, nl);
	for (size_t li = 0, ri = 0; li < nl; li++) {
		const struct launch *l = &launches[li];
		const struct trace_call *lc = launch_call(t, l);
		struct launch_ops g;
		int32_t inner = -1;
		long j;

		if (li == 0 || trace_csig(t, lc)->gtid != gtid) {
			gtid = trace_csig(t, lc)->gtid;
			open_clear(p, &o, pend, h);
			while (ri < ncand && t->ranges[order[ri]].gtid < gtid)
				ri++;
		}
		open_until(p, t, &o, pend, h, order, ncand, &ri, gtid, lc->start);
		group_ops(t, ops, glo[l->group], glo[l->group + 1], &g);
		/* a launch that is not its group's only one counts in a range
		 * unless the range's previous launch was of its group: hand
		 * every pending down first, so that solo_seq says which was */
		if (!l->solo)
			for (size_t c = o.nchain; c > 0; c--)
				chain_flush(p, &o, pend, h, c - 1);
		/* pre, then the chain: the open ranges in start order, as the
		 * pairs list them; the last that contains the call is the
		 * innermost */
		for (size_t a = 0; a < o.npre; a++) {
			uint32_t r = o.pre[a];

			if (trace_range_end(t, &t->ranges[r]) < lc->end)
				continue;
			launch_hits(p, flags, ops, l, &g, li + 1, h, r);
			inner = (int32_t)r;
		}
		if ((j = chain_deepest(t, &o, lc->end)) >= 0) {
			inner = (int32_t)o.chain[j];
			if (l->solo &&
			    (!(flags & NVTX_PROJ_PAIRS) || p->pair_ranges || p->chain_fn)) {
				struct pending x = {g.op_start, g.op_end, 1, g.kern_ns, li + 1};

				pending_merge(&pend[o.chain[j]], &x);
				for (uint32_t op = g.lo; p->chain_fn && op < g.hi; op++)
					p->chain_fn(p->pair_ctx, ops[op], (int32_t)l->call, o.chain,
						    o.nchain, (size_t)j + 1);
				if ((flags & NVTX_PROJ_PAIRS) && p->pair_ranges)
					wanted_pairs(p, &o, ops, l, &g, j);
			} else {
				for (long c = 0; c <= j; c++)
					launch_hits(p, flags, ops, l, &g, li + 1, h, o.chain[c]);
			}
		}
		for (uint32_t op = g.lo; op < g.hi; op++)
			if (ops[op] < nk && p->kernel_inner[ops[op]] < 0)
				p->kernel_inner[ops[op]] = inner;
		if (inner < 0 && (flags & NVTX_PROJ_PAIRS))
			for (uint32_t op = g.lo; op < g.hi; op++)
				add_pair(p, ops[op], -1, (int32_t)l->call);
	}
	open_clear(p, &o, pend, h);
	open_release(&o);
	free(pend);
	free(hs.stamp);
	free(hs.stamp_seq);
	free(hs.solo_seq);
}

static void proj_compute(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			 const uint8_t *want, nvtx_pair_fn fn, nvtx_chain_fn cfn, void *ctx);

void nvtx_proj_compute(struct nvtx_proj *p, const struct trace *t, unsigned flags)
{
	proj_compute(p, t, flags, NULL, NULL, NULL, NULL);
}

void nvtx_proj_compute_for(struct nvtx_proj *p, const struct trace *t, const uint8_t *want)
{
	proj_compute(p, t, NVTX_PROJ_PAIRS, want, NULL, NULL, NULL);
}

void nvtx_proj_compute_each(struct nvtx_proj *p, const struct trace *t, nvtx_pair_fn fn, void *ctx)
{
	proj_compute(p, t, NVTX_PROJ_PAIRS, NULL, fn, NULL, ctx);
}

void nvtx_proj_compute_chain(struct nvtx_proj *p, const struct trace *t, nvtx_pair_fn fn,
			     nvtx_chain_fn cfn, void *ctx)
{
	proj_compute(p, t, NVTX_PROJ_PAIRS, NULL, fn, cfn, ctx);
}

static void proj_compute(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			 const uint8_t *want, nvtx_pair_fn fn, nvtx_chain_fn cfn, void *ctx)
{
	size_t nops = t->nkernels + t->nmemops, nl = 0, nr = t->nranges, ncand = 0;
	uint32_t *ops = xmalloc(st_mult(nops + 1, sizeof(*ops)));
	uint32_t *order = xmalloc(st_mult(nr + 1, sizeof(*order)));
	uint32_t *glo;
	struct launch *launches;

	proj_alloc(p, t);
	p->pair_ranges = want;
	p->pair_fn = fn;
	p->chain_fn = cfn;
	p->pair_ctx = ctx;
	launches = join_launches(p, t, flags, ops, &nl, &glo);

	/* 2. Candidate ranges per thread, parents first. */
	for (size_t i = 0; i < nr; i++)
		if (!t->ranges[i].cross_thread) {
			p->candidate[i] = 1;
			order[ncand++] = (uint32_t)i;
		}
	sort_trace = t;
	qsort(order, ncand, sizeof(*order), cmp_range);
	sort_trace = NULL;
	compute_parents(p, t, order, ncand);

	sweep_launches(p, t, flags, ops, glo, launches, nl, order, ncand);
	for (size_t r = 0; r < nr; r++)
		if (p->nops[r] && p->parent[r] >= 0)
			p->nchild_ops[p->parent[r]]++;
	p->pair_fn = NULL;
	p->chain_fn = NULL;
	p->pair_ctx = NULL;
	free(ops);
	free(glo);
	free(launches);
	free(order);
}

void nvtx_proj_release(struct nvtx_proj *p)
{
	free(p->proj_start);
	free(p->proj_end);
	free(p->nops);
	free(p->kern_ns);
	free(p->parent);
	free(p->level);
	free(p->nchild_ops);
	free(p->candidate);
	free(p->kernel_inner);
	free(p->pairs);
	free(p->hops);
	memset(p, 0, sizeof(*p));
}
