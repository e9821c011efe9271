/* nvtxkern.c: nvtx_kern_sum's groups, summarised one thread at a time. */
#include <stdlib.h>
#include <string.h>

#include "analysis/nvtxkern.h"
#include "analysis/nvtxproj.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* A pair of the thread being swept, or several at once: op's pairs with w
 * ranges of its group (w = 1: one pair with range; range NO_RANGE: w
 * pairs with the nested ranges, counted apart). A record with op NO_OP only
 * says that range holds a kernel of group gid (NVTX Inst). 16 bytes. */
struct kpair {
	uint32_t gid;
	int32_t range;
	uint32_t op;
	uint32_t w;
};
#define NO_OP UINT32_MAX
#define NO_RANGE (-2)

/* The nested open ranges of the thread (nvtx_chain_fn's chain), followed
 * by their top: per position the range, the order it came in and its
 * name's index in names; per name (range name, style) the positions that
 * hold it, bottom first, and a list of the names held. */
struct kname_stack {
	int64_t name, style;
	uint32_t *pos;
	size_t npos, apos;
	size_t held_at; /* its place in kchain.held while npos > 0 */
};

struct kchain {
	uint32_t *range, *name;
	uint64_t *seq;
	size_t n, alloc, anames, aseq;
	uint64_t next_seq;
	struct kname_stack *names;
	size_t nnames, names_alloc;
	uint32_t *slots; /* (name, style) -> names index, open addressing */
	size_t nslots;
	uint32_t *held; /* the names with a range in the chain */
	size_t nheld, aheld;
};

struct kacc {
	const struct trace *t;
	const int32_t *names;
	int flush; /* summarise per thread (else all at the end) */
	int clash; /* a thread's pairs came after its groups were summarised */
	struct kpair *pairs;
	size_t npairs, pairs_alloc;
	struct nvtxkern_group *g;
	uint8_t *done; /* per group: summarised */
	size_t ng, g_alloc, done_alloc;
	uint32_t *slots; /* key -> gid, open addressing, UINT32_MAX empty */
	size_t nslots;
	int64_t pid, tid; /* of the pairs held */
	int64_t *vals;
	uint64_t *weights;
	size_t vals_alloc, weights_alloc;
	struct kchain ch;
	uint64_t *marked; /* per group: order of the deepest nested range
			   * counted in its NVTX Inst, 0 none */
	size_t nmarked, marked_alloc;
};

static uint64_t key_hash(const int64_t k[5])
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < 5; i++)
		h = (h ^ (uint64_t)k[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static size_t key_slot(const struct kacc *a, const int64_t k[5])
{
	size_t mask = a->nslots - 1, i;

	for (i = key_hash(k) & mask;; i = (i + 1) & mask)
		if (a->slots[i] == UINT32_MAX || !memcmp(a->g[a->slots[i]].key, k, 5 * sizeof(*k)))
			return i;
}

static uint32_t group_id(struct kacc *a, const int64_t k[5])
{
	size_t slot;

	if ((a->ng + 1) * 2 > a->nslots) {
		size_t n = a->nslots ? a->nslots * 2 : 1024;

		free(a->slots);
		a->nslots = n;
		a->slots = xmalloc(st_mult(n, sizeof(*a->slots)));
		memset(a->slots, 0xff, n * sizeof(*a->slots));
		for (size_t i = 0; i < a->ng; i++)
			a->slots[key_slot(a, a->g[i].key)] = (uint32_t)i;
	}
	slot = key_slot(a, k);
	if (a->slots[slot] != UINT32_MAX)
		return a->slots[slot];
	ALLOC_GROW(a->g, a->ng + 1, a->g_alloc);
	ALLOC_GROW(a->done, a->ng + 1, a->done_alloc);
	memset(&a->g[a->ng], 0, sizeof(a->g[a->ng]));
	memcpy(a->g[a->ng].key, k, 5 * sizeof(*k));
	a->done[a->ng] = 0;
	a->slots[slot] = (uint32_t)a->ng;
	return (uint32_t)a->ng++;
}

static int cmp_by_range(const void *x, const void *y)
{
	const struct kpair *a = x, *b = y;

	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	if (a->range != b->range)
		return a->range < b->range ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_by_op(const void *x, const void *y)
{
	const struct kpair *a = x, *b = y;

	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return a->range < b->range ? -1 : a->range > b->range;
}

/* Sorts vals[0..n) ascending, their weights with them (an index sort:
 * the pairs of one group are few beside the trace). */
static const int64_t *sort_vals;

static int cmp_idx(const void *x, const void *y)
{
	int64_t a = sort_vals[*(const uint32_t *)x], b = sort_vals[*(const uint32_t *)y];

	return a < b ? -1 : a > b;
}

static void sort_weighted(struct kacc *a, size_t n)
{
	uint32_t *idx;
	int64_t *v;
	uint64_t *w;

	if (n < 2)
		return;
	idx = xmalloc(st_mult(n, sizeof(*idx)));
	v = xmalloc(st_mult(n, sizeof(*v)));
	w = xmalloc(st_mult(n, sizeof(*w)));
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	sort_vals = a->vals;
	qsort(idx, n, sizeof(*idx), cmp_idx);
	sort_vals = NULL;
	for (size_t i = 0; i < n; i++) {
		v[i] = a->vals[idx[i]];
		w[i] = a->weights[idx[i]];
	}
	memcpy(a->vals, v, n * sizeof(*v));
	memcpy(a->weights, w, n * sizeof(*w));
	free(idx);
	free(v);
	free(w);
}

/* Summarises the groups of the pairs held. */
static void summarise(struct kacc *a)
{
	struct kpair *p = a->pairs;
	size_t n = a->npairs;

	sort_inplace(p, n, sizeof(*p), cmp_by_range);
	for (size_t i = 0; i < n; i++)
		if (p[i].range >= 0 &&
		    (i == 0 || p[i].gid != p[i - 1].gid || p[i].range != p[i - 1].range))
			a->g[p[i].gid].ranges++;
	sort_inplace(p, n, sizeof(*p), cmp_by_op);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		struct nvtxkern_group *g = &a->g[p[lo].gid];
		size_t nv = 0;

		for (hi = lo; hi < n && p[hi].gid == p[lo].gid; hi++) {
			const struct trace_kernel *k;

			if (p[hi].op == NO_OP)
				continue;
			k = &a->t->kernels[p[hi].op];
			if (hi == lo || p[hi].op != p[hi - 1].op)
				g->kernels++;
			ALLOC_GROW(a->vals, nv + 1, a->vals_alloc);
			ALLOC_GROW(a->weights, nv + 1, a->weights_alloc);
			a->vals[nv] = k->end - k->start;
			a->weights[nv++] = p[hi].w;
		}
		sort_weighted(a, nv);
		nsys_summarize_weighted(a->vals, a->weights, nv, &g->s);
		a->done[p[lo].gid] = 1;
	}
	a->npairs = 0;
}

/* The group of kernel op launched by call with a range named name, style
 * style (-1: none), the pairs of the thread before summarised when the
 * thread changes. */
static uint32_t pair_group(struct kacc *a, uint32_t op, int32_t call, int64_t name, int64_t style)
{
	const struct trace *t = a->t;
	int64_t k[5], gtid = call >= 0 ? trace_csig(t, &t->calls[call])->gtid : 0;
	uint32_t gid;

	/* GROUP BY pid, tid, name, style, kernel name; NULL sorts first */
	k[0] = call >= 0 ? trace_pid(gtid) : -1;
	k[1] = call >= 0 ? trace_tid(gtid) : -1;
	k[2] = name;
	k[3] = style;
	k[4] = trace_ksig(t, &t->kernels[op])->name;
	k[4] = k[4] >= 0 ? t->strs.rank[k[4]] : -1;
	if (a->flush && a->npairs && (k[0] != a->pid || k[1] != a->tid))
		summarise(a);
	a->pid = k[0];
	a->tid = k[1];
	gid = group_id(a, k);
	if (a->done[gid])
		a->clash = 1;
	ALLOC_GROW(a->marked, a->ng, a->marked_alloc);
	while (a->nmarked < a->ng)
		a->marked[a->nmarked++] = 0;
	return gid;
}

static void add_kpair(struct kacc *a, uint32_t gid, int32_t range, uint32_t op, uint32_t w)
{
	ALLOC_GROW(a->pairs, a->npairs + 1, a->pairs_alloc);
	a->pairs[a->npairs].gid = gid;
	a->pairs[a->npairs].range = range;
	a->pairs[a->npairs].op = op;
	a->pairs[a->npairs++].w = w;
}

static int64_t range_name(const struct kacc *a, int32_t range)
{
	return range >= 0 && a->names[range] >= 0 ? a->t->strs.rank[a->names[range]] : -1;
}

static void on_pair(void *ctx, uint32_t op, int32_t range, int32_t call)
{
	struct kacc *a = ctx;
	uint32_t gid;

	if (op >= a->t->nkernels)
		return; /* memcpy/memset: not in this report */
	gid = pair_group(a, op, call, range_name(a, range),
			 range >= 0 ? a->t->ranges[range].style : -1);
	add_kpair(a, gid, range, op, 1);
}

static int cmp_key(const void *x, const void *y)
{
	const struct nvtxkern_group *a = x, *b = y;

	for (int i = 0; i < 5; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	return 0;
}

static size_t name_slot(const struct kchain *c, int64_t name, int64_t style)
{
	int64_t k[5] = {name, style, 0, 0, 0};
	size_t mask = c->nslots - 1, i;

	for (i = key_hash(k) & mask;; i = (i + 1) & mask)
		if (c->slots[i] == UINT32_MAX ||
		    (c->names[c->slots[i]].name == name && c->names[c->slots[i]].style == style))
			return i;
}

/* The index of (name, style) in c->names, made when new. */
static uint32_t chain_name(struct kchain *c, int64_t name, int64_t style)
{
	size_t slot;

	if ((c->nnames + 1) * 2 > c->nslots) {
		size_t n = c->nslots ? c->nslots * 2 : 64;

		free(c->slots);
		c->nslots = n;
		c->slots = xmalloc(st_mult(n, sizeof(*c->slots)));
		memset(c->slots, 0xff, n * sizeof(*c->slots));
		for (size_t i = 0; i < c->nnames; i++)
			c->slots[name_slot(c, c->names[i].name, c->names[i].style)] = (uint32_t)i;
	}
	slot = name_slot(c, name, style);
	if (c->slots[slot] != UINT32_MAX)
		return c->slots[slot];
	ALLOC_GROW(c->names, c->nnames + 1, c->names_alloc);
	memset(&c->names[c->nnames], 0, sizeof(c->names[0]));
	c->names[c->nnames].name = name;
	c->names[c->nnames].style = style;
	c->slots[slot] = (uint32_t)c->nnames;
	return (uint32_t)c->nnames++;
}

/* Follows chain[0..n): pops what left it (a range's position is stable
 * while it stays, so the first equal position from the top is the common
 * part), pushes what came. Each range is pushed and popped once. */
static void chain_follow(struct kacc *a, const uint32_t *chain, size_t n)
{
	struct kchain *c = &a->ch;

	while (c->n && (c->n > n || c->range[c->n - 1] != chain[c->n - 1])) {
		struct kname_stack *ns = &c->names[c->name[--c->n]];

		if (--ns->npos)
			continue;
		/* no range of this name left: out of the list, the last in
		 * its place */
		c->held[ns->held_at] = c->held[--c->nheld];
		c->names[c->held[ns->held_at]].held_at = ns->held_at;
	}
	for (; c->n < n; c->n++) {
		int32_t r = (int32_t)chain[c->n];
		uint32_t ni = chain_name(c, range_name(a, r), a->t->ranges[r].style);
		struct kname_stack *ns = &c->names[ni];

		ALLOC_GROW(c->range, c->n + 1, c->alloc);
		ALLOC_GROW(c->name, c->n + 1, c->anames);
		ALLOC_GROW(c->seq, c->n + 1, c->aseq);
		c->range[c->n] = (uint32_t)r;
		c->name[c->n] = ni;
		c->seq[c->n] = ++c->next_seq;
		if (!ns->npos) {
			ALLOC_GROW(c->held, c->nheld + 1, c->aheld);
			ns->held_at = c->nheld;
			c->held[c->nheld++] = ni;
		}
		ALLOC_GROW(ns->pos, ns->npos + 1, ns->apos);
		ns->pos[ns->npos++] = (uint32_t)c->n;
	}
}

/* How many of pos[0..n) satisfy below(pos) (a prefix: pos ascends). */
static size_t prefix_below(const uint32_t *pos, size_t n, const struct kchain *c, size_t lim,
			   uint64_t seq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lim ? pos[mid] < lim : c->seq[pos[mid]] <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* op's pairs with the nested ranges chain[0..n): per name among them, one
 * record weighing as many pairs as it has ranges there, and one record per
 * range that holds a kernel of that group for the first time. */
static void on_chain(void *ctx, uint32_t op, int32_t call, const uint32_t *chain, size_t nchain,
		     size_t n)
{
	struct kacc *a = ctx;
	struct kchain *c = &a->ch;

	if (op >= a->t->nkernels)
		return;
	chain_follow(a, chain, nchain);
	for (size_t h = 0; h < c->nheld; h++) {
		struct kname_stack *ns = &c->names[c->held[h]];
		size_t cnt = prefix_below(ns->pos, ns->npos, c, n, 0), m;
		uint32_t gid;

		if (!cnt)
			continue;
		gid = pair_group(a, op, call, ns->name, ns->style);
		add_kpair(a, gid, NO_RANGE, op, (uint32_t)cnt);
		/* counted before: the ranges up to the deepest counted (a
		 * prefix: each count takes all below) still open */
		m = a->marked[gid] ? prefix_below(ns->pos, cnt, c, 0, a->marked[gid]) : 0;
		for (size_t i = m; i < cnt; i++)
			add_kpair(a, gid, (int32_t)c->range[ns->pos[i]], NO_OP, 0);
		if (m < cnt)
			a->marked[gid] = c->seq[ns->pos[cnt - 1]];
	}
}

static void kacc_run(struct kacc *a)
{
	struct nvtx_proj p;

	nvtx_proj_compute_chain(&p, a->t, on_pair, on_chain, a);
	nvtx_proj_release(&p);
	summarise(a);
	free(a->pairs);
	free(a->done);
	free(a->slots);
	free(a->vals);
	free(a->weights);
	free(a->marked);
	for (size_t i = 0; i < a->ch.nnames; i++)
		free(a->ch.names[i].pos);
	free(a->ch.names);
	free(a->ch.range);
	free(a->ch.name);
	free(a->ch.seq);
	free(a->ch.held);
	free(a->ch.slots);
}

struct nvtxkern_group *nvtxkern_groups(const struct trace *t, const int32_t *names, size_t *n)
{
	struct kacc a = {0};

	a.t = t;
	a.names = names;
	a.flush = 1;
	kacc_run(&a);
	if (a.clash) {
		/* two threads of one (PID, TID) on different hosts, swept
		 * apart: summarise every pair at the end instead */
		free(a.g);
		memset(&a, 0, sizeof(a));
		a.t = t;
		a.names = names;
		kacc_run(&a);
	}
	if (a.ng)
		qsort(a.g, a.ng, sizeof(*a.g), cmp_key);
	for (size_t i = 0; i < a.ng; i++)
		a.g[i].order = i;
	*n = a.ng;
	return a.g;
}
