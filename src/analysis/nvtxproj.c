/* nvtxproj.c: NVTX GPU projection by sorting and sweeping (no R-tree). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nvtxproj.h"
#include "analysis/nvtxproj_join.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

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

static const struct trace_call *launch_call(const struct trace *t, const struct launch *l)
{
	return &t->calls[l->call];
}

/* A candidate range's order: by thread, start, longest first, then rowid
 * (then index, as a stable sort of the candidates would keep them): a
 * parent always comes before its children. */
struct range_key {
	int64_t gtid, start, end, rowid;
	uint32_t i;
};

static inline int range_key_less(const struct range_key *x, const struct range_key *y)
{
	if (x->gtid != y->gtid)
		return x->gtid < y->gtid;
	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end > y->end;
	if (x->rowid != y->rowid)
		return x->rowid < y->rowid;
	return x->i < y->i;
}

SORT_DEFINE(range_key_sort, struct range_key, range_key_less)

/* The candidate ranges (not ended on another thread), marked in
 * p->candidate, into order[] in range_key order; returns their number. */
static size_t order_candidates(struct nvtx_proj *p, const struct trace *t, uint32_t *order)
{
	struct range_key *k = xmalloc(st_mult(t->nranges + 1, sizeof(*k)));
	size_t n = 0;
	int sorted = 1;

	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (r->cross_thread)
			continue;
		p->candidate[i] = 1;
		k[n] = (struct range_key){r->gtid, r->start, trace_range_end(t, r), r->rowid,
					  (uint32_t)i};
		if (n && sorted && range_key_less(&k[n], &k[n - 1]))
			sorted = 0;
		n++;
	}
	if (!sorted)
		range_key_sort(k, n);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].i;
	free(k);
	return n;
}

void nvtx_proj_add_pair(struct nvtx_proj *p, uint32_t op, int32_t range, int32_t call)
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
	int64_t pre_min_end; /* the earliest end in pre, when npre: a launch
			      * before it prunes nothing there */
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
	if (o->npre && o->pre_min_end < ts) {
		size_t w = 0;
		int64_t min_end = INT64_MAX;

		for (size_t i = 0; i < o->npre; i++) {
			int64_t e = trace_range_end(t, &t->ranges[o->pre[i]]);

			if (e < ts)
				continue;
			o->pre[w++] = o->pre[i];
			if (e < min_end)
				min_end = e;
		}
		o->npre = w;
		o->pre_min_end = min_end;
	}
	/* ends do not grow along the chain: those ended are on top */
	while (o->nchain && trace_range_end(t, &t->ranges[o->chain[o->nchain - 1]]) < ts)
		chain_flush(p, o, pend, h, --o->nchain);
}

static void open_push(struct nvtx_proj *p, const struct trace *t, struct open_ranges *o,
		      struct pending *pend, struct hit_state *h, uint32_t r)
{
	size_t n = o->nchain;

	if (n && !range_contains(t, o->chain[n - 1], r)) {
		/* ends do not grow along the chain: its top's is the earliest */
		int64_t top_end = trace_range_end(t, &t->ranges[o->chain[n - 1]]);

		if (!o->npre || top_end < o->pre_min_end)
			o->pre_min_end = top_end;
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
static void proj_alloc(struct nvtx_proj *p, const struct trace *t, unsigned flags)
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
	if (!(flags & NVTX_PROJ_NO_INNER)) {
		p->kernel_inner = xmalloc(st_mult(nk + 1, sizeof(*p->kernel_inner)));
		memset(p->kernel_inner, 0xff, (nk + 1) * sizeof(*p->kernel_inner));
	}
	memset(p->parent, 0xff, (nr + 1) * sizeof(*p->parent));
	p->nops_total = nk + t->nmemops;
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
			nvtx_proj_add_pair(p, ops[o], (int32_t)r, (int32_t)l->call);
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
			nvtx_proj_add_pair(p, ops[op], (int32_t)p->hops[n], (int32_t)l->call);
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

/* A sweep of launches[lo..hi), all of the threads they come from: two
 * sweeps of different threads share pend, h and p's per-range results,
 * each writing only its threads' ranges' entries, and each its own
 * inner_of (kernel -> innermost range). */
struct sweep {
	struct nvtx_proj *p;
	const struct trace *t;
	unsigned flags;
	const uint32_t *ops, *glo, *order;
	const struct launch *launches;
	size_t lo, hi, ncand;
	struct pending *pend;
	struct hit_state *h;
	int32_t *inner_of;
};

/* Step 3: launches and candidate ranges (order, parents first) of each
 * thread swept in time order: each range's projection, each kernel's
 * innermost range. A launch counts in every open range that contains its
 * call; for the chain (struct open_ranges) that is the ranges below the
 * deepest one that does, so a launch of its own group is noted there once
 * (struct pending) and handed down when that range leaves the chain. */
static void sweep_part(const struct sweep *s)
{
	struct nvtx_proj *p = s->p;
	const struct trace *t = s->t;
	const uint32_t *ops = s->ops, *order = s->order;
	unsigned flags = s->flags;
	size_t nk = t->nkernels, ncand = s->ncand;
	struct pending *pend = s->pend;
	struct hit_state *h = s->h;
	struct open_ranges o = {0};
	int64_t gtid = 0;

	for (size_t li = s->lo, ri = 0; li < s->hi; li++) {
		const struct launch *l = &s->launches[li];
		const struct trace_call *lc = launch_call(t, l);
		struct launch_ops g;
		int32_t inner = -1;
		long j;

		if (li == s->lo || trace_csig(t, lc)->gtid != gtid) {
			gtid = trace_csig(t, lc)->gtid;
			open_clear(p, &o, pend, h);
			while (ri < ncand && t->ranges[order[ri]].gtid < gtid)
				ri++;
		}
		open_until(p, t, &o, pend, h, order, ncand, &ri, gtid, lc->start);
		group_ops(t, ops, s->glo[l->group], s->glo[l->group + 1], &g);
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
		for (uint32_t op = g.lo; s->inner_of && op < g.hi; op++)
			if (ops[op] < nk && s->inner_of[ops[op]] < 0)
				s->inner_of[ops[op]] = inner;
		if (inner < 0 && (flags & NVTX_PROJ_PAIRS))
			for (uint32_t op = g.lo; op < g.hi; op++)
				nvtx_proj_add_pair(p, ops[op], -1, (int32_t)l->call);
	}
	open_clear(p, &o, pend, h);
	open_release(&o);
}

static void *sweep_main(void *arg)
{
	sweep_part(arg);
	return NULL;
}

/* Runs fn(arg) on a thread of its own, signals (Ctrl-C) left to the
 * caller's thread: 0, or -1 when none could start. */
static int thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc ? -1 : 0;
}

/* Where the launches (by thread; end[b]: thread b's end) split into two
 * sweeps of their own: the thread boundary nearest the middle, or 0 when
 * a thread is not worth it (either side under an eighth: one thread
 * launching nearly everything, as in most programs) or the pairs must
 * come out in sweep order. */
static size_t sweep_split(const struct nvtx_proj *p, unsigned flags, const size_t *end, size_t nt,
			  size_t nl)
{
	size_t best = 0;

	if ((flags & NVTX_PROJ_PAIRS) || p->chain_fn || nl < 4096)
		return 0;
	for (size_t b = 0; b + 1 < nt; b++) {
		size_t d = end[b] > nl / 2 ? end[b] - nl / 2 : nl / 2 - end[b];
		size_t bd = best > nl / 2 ? best - nl / 2 : nl / 2 - best;

		if (!best || d < bd)
			best = end[b];
	}
	return best >= nl / 8 && best <= nl - nl / 8 ? best : 0;
}

/* The sweep of launches sorted by sort_launches() (end, nt: its threads'
 * ends), split in two where that is worth it. */
static void sweep_launches(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			   const uint32_t *ops, const uint32_t *glo, const struct launch *launches,
			   size_t nl, const size_t *end, size_t nt, const uint32_t *order,
			   size_t ncand)
{
	size_t nk = t->nkernels, nr = t->nranges, mid = sweep_split(p, flags, end, nt, nl);
	struct hit_state hs;
	struct sweep s = {p, t,	 flags, ops,  glo, order,	   launches,
			  0, nl, ncand, NULL, &hs, p->kernel_inner};
	struct sweep s2;
	pthread_t th;

	s.pend = xcalloc(nr + 1, sizeof(*s.pend));
	hs.stamp = xmalloc(st_mult(nr + 1, sizeof(*hs.stamp)));
	hs.stamp_seq = xcalloc(nr + 1, sizeof(*hs.stamp_seq));
	hs.solo_seq = xcalloc(nr + 1, sizeof(*hs.solo_seq));
	memset(hs.stamp, 0xff, (nr + 1) * sizeof(*hs.stamp));
	if (!mid) {
		sweep_part(&s);
	} else {
		/* the later threads beside: the same results, a kernel's
		 * innermost range the first sweep's where it found one */
		s2 = s;
		s2.lo = s.hi = mid;
		if (s.inner_of) {
			s2.inner_of = xmalloc(st_mult(nk + 1, sizeof(*s2.inner_of)));
			memset(s2.inner_of, 0xff, (nk + 1) * sizeof(*s2.inner_of));
		}
		if (thread_start(&th, sweep_main, &s2)) {
			sweep_part(&s2);
			sweep_part(&s);
		} else {
			sweep_part(&s);
			pthread_join(th, NULL);
		}
		for (size_t k = 0; s.inner_of && k < nk; k++)
			if (p->kernel_inner[k] < 0)
				p->kernel_inner[k] = s2.inner_of[k];
		free(s2.inner_of);
	}
	free(s.pend);
	free(hs.stamp);
	free(hs.stamp_seq);
	free(hs.solo_seq);
}

static void proj_compute(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			 const uint8_t *want, nvtx_pair_fn fn, nvtx_chain_fn cfn, void *ctx);

/* The candidate ranges in order and their parents (p->candidate,
 * p->parent, p->level, order[0..ncand)), and the calls' join keys (ck):
 * each on a thread of its own beside the ops' keys and the join, which
 * read and write none of what they do. */
struct parents_job {
	struct nvtx_proj *p;
	const struct trace *t;
	uint32_t *order;
	size_t ncand;
	struct join_key *ck;
};

static void *parents_main(void *arg)
{
	struct parents_job *j = arg;

	j->ncand = order_candidates(j->p, j->t, j->order);
	compute_parents(j->p, j->t, j->order, j->ncand);
	return NULL;
}

/* The calls' keys, NULL when in order (join_keys()). */
static void *call_keys_main(void *arg)
{
	struct parents_job *j = arg;

	j->ck = join_keys(j->t, j->t->ncalls, nvtx_call_key);
	return NULL;
}

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
	struct parents_job pj = {p, t, order, 0, NULL};
	struct join_key *ok;
	size_t *end, nt;
	pthread_t th[2];
	int threaded[2], big;

	proj_alloc(p, t, flags);
	p->pair_ranges = want;
	p->pair_fn = fn;
	p->chain_fn = cfn;
	p->pair_ctx = ctx;
	/* 2. Candidate ranges per thread, parents first; beside the join */
	big = nops + nr >= 4096;
	threaded[0] = big && !thread_start(&th[0], parents_main, &pj);
	threaded[1] = big && !thread_start(&th[1], call_keys_main, &pj);
	ok = join_keys(t, nops, nvtx_op_key);
	if (threaded[1])
		pthread_join(th[1], NULL);
	else
		call_keys_main(&pj);
	launches = join_launches(p, t, flags, ok, pj.ck, ops, &nl, &glo);
	end = sort_launches(t, &launches, nl, &nt);
	if (threaded[0])
		pthread_join(th[0], NULL);
	else
		parents_main(&pj);
	ncand = pj.ncand;

	sweep_launches(p, t, flags, ops, glo, launches, nl, end, nt, order, ncand);
	for (size_t r = 0; r < nr; r++)
		if (p->nops[r] && p->parent[r] >= 0)
			p->nchild_ops[p->parent[r]]++;
	p->pair_fn = NULL;
	p->chain_fn = NULL;
	p->pair_ctx = NULL;
	free(ops);
	free(glo);
	free(launches);
	free(end);
	free(order);
}

static void *ahead_main(void *arg)
{
	struct nvtx_proj_ahead *a = arg;

	nvtx_proj_compute(&a->p, a->t, a->flags);
	return NULL;
}

int nvtx_proj_start(struct nvtx_proj_ahead *a, const struct trace *t, unsigned flags)
{
	a->t = t;
	a->flags = flags & ~(unsigned)NVTX_PROJ_PAIRS;
	a->running = !thread_start(&a->thread, ahead_main, a);
	return a->running ? 0 : -1;
}

void nvtx_proj_wait(struct nvtx_proj_ahead *a)
{
	if (a->running)
		pthread_join(a->thread, NULL);
	a->running = 0;
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
