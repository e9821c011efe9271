/* nvtxproj_join.c: the join of the NVTX projection (nvtxproj.c): the GPU
 * ops to the API calls that launched them, on (process, correlationId),
 * and the launches in each thread's time order. */
#include <stdlib.h>
#include <string.h>

#include "analysis/nvtxproj_join.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

void nvtx_op_key(const struct trace *t, uint32_t op, int64_t *gpid, int64_t *corr)
{
	if (op < t->nkernels) {
		*gpid = trace_ksig(t, &t->kernels[op])->gpid & TRACE_GPID_MASK;
		*corr = trace_kernel_corr(t, &t->kernels[op]);
	} else {
		*gpid = t->memops[op - t->nkernels].gpid & TRACE_GPID_MASK;
		*corr = t->memops[op - t->nkernels].corr;
	}
}

void nvtx_call_key(const struct trace *t, uint32_t c, int64_t *gpid, int64_t *corr)
{
	*gpid = trace_csig(t, &t->calls[c])->gtid & TRACE_GPID_MASK;
	*corr = trace_call_corr(t, &t->calls[c]);
}

/* The join sorts and merges struct join_keys, where reading the keys
 * through the trace at each comparison cost several times as much. */
static inline int join_key_less(const struct join_key *x, const struct join_key *y)
{
	if (x->g != y->g)
		return x->g < y->g;
	if (x->c != y->c)
		return x->c < y->c;
	return x->i < y->i;
}

SORT_DEFINE(join_key_sort, struct join_key, join_key_less)

struct join_key *join_keys(const struct trace *t, size_t n, join_key_fn key)
{
	struct join_key *k;
	int64_t pg = 0, pc = 0, g, c;
	size_t i = 0;

	for (; i < n; i++, pg = g, pc = c) {
		key(t, (uint32_t)i, &g, &c);
		if (i && (g < pg || (g == pg && c < pc)))
			break; /* equal keys: the indices, ascending, keep them in order */
	}
	if (i == n)
		return NULL;
	k = xmalloc(st_mult(n + 1, sizeof(*k)));
	for (i = 0; i < n; i++) {
		key(t, (uint32_t)i, &k[i].g, &k[i].c);
		k[i].i = (uint32_t)i;
	}
	join_key_sort(k, n);
	return k;
}

/* The i-th key in join order: from the sorted keys, or from the trace. */
struct key_src {
	const struct trace *t;
	const struct join_key *k;
	join_key_fn fn;
};

static inline struct join_key key_at(const struct key_src *s, size_t i)
{
	struct join_key k;

	if (s->k)
		return s->k[i];
	s->fn(s->t, (uint32_t)i, &k.g, &k.c);
	k.i = (uint32_t)i;
	return k;
}

/* A launch with its call's start, as a thread's launches are ordered. */
struct launch_key {
	int64_t start;
	struct launch l;
};

static inline int launch_key_less(const struct launch_key *x, const struct launch_key *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->l.group != y->l.group)
		return x->l.group < y->l.group;
	return x->l.call < y->l.call;
}

SORT_DEFINE(launch_key_sort, struct launch_key, launch_key_less)

static int cmp_gtid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* csig id -> the rank of its thread among the trace's (gtid order);
 * *nthreads their number. */
static uint32_t *thread_ranks(const struct trace *t, size_t *nthreads)
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
	free(gtids);
	*nthreads = nt;
	return rank;
}

/* Sorts a thread's launches (out of order: rare) by their keys. */
static void sort_thread_launches(const struct trace *t, struct launch *l, size_t n)
{
	struct launch_key *k = xmalloc(st_mult(n + 1, sizeof(*k)));

	for (size_t i = 0; i < n; i++) {
		k[i].start = t->calls[l[i].call].start;
		k[i].l = l[i];
	}
	launch_key_sort(k, n);
	for (size_t i = 0; i < n; i++)
		l[i] = k[i].l;
	free(k);
}

size_t *sort_launches(const struct trace *t, struct launch **launches, size_t nl, size_t *nthreads)
{
	size_t nt;
	uint32_t *rank = thread_ranks(t, &nt);
	size_t *end = xcalloc(nt + 1, sizeof(*end));
	const struct launch *in = *launches;
	struct launch *out = xmalloc(st_mult(nl + 1, sizeof(*out)));

	for (size_t i = 0; i < nl; i++)
		end[rank[t->calls[in[i].call].sig] + 1]++;
	for (size_t b = 1; b <= nt; b++)
		end[b] += end[b - 1];
	for (size_t i = 0; i < nl; i++) /* end[b]: thread b's next free slot */
		out[end[rank[t->calls[in[i].call].sig]]++] = in[i];
	for (size_t b = 0, lo = 0; b < nt; lo = end[b++]) {
		struct launch_key x, y;
		size_t i = lo + 1;

		for (; i < end[b]; i++) {
			x = (struct launch_key){t->calls[out[i - 1].call].start, out[i - 1]};
			y = (struct launch_key){t->calls[out[i].call].start, out[i]};
			if (!launch_key_less(&x, &y))
				break;
		}
		if (i < end[b])
			sort_thread_launches(t, out + lo, end[b] - lo);
	}
	free(*launches);
	*launches = out;
	free(rank);
	*nthreads = nt;
	return end;
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
			nvtx_proj_add_pair(p, ops[o], -1, -1);
}

/* Step 1 of the projection (nvtxproj_join.h). */
struct launch *join_launches(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			     struct join_key *ok, struct join_key *ck, uint32_t *ops,
			     size_t *nl_out, uint32_t **glo_out)
{
	size_t nops = t->nkernels + t->nmemops, nc = t->ncalls, nl = 0, ngroups = 0, ci = 0;
	struct key_src os = {t, ok, nvtx_op_key}, cs = {t, ck, nvtx_call_key};
	/* a call joins one group at most: nc launches at most */
	struct launch *launches = xmalloc(st_mult(nc + 1, sizeof(*launches)));
	uint32_t *glo = xmalloc(st_mult(nops + 1, sizeof(*glo)));
	struct join_key o = {0}, next = {0}, k = {0};

	if (nops)
		next = key_at(&os, 0);
	if (nc)
		k = key_at(&cs, 0); /* the key of call ci, while ci < nc */
	for (size_t lo = 0, hi; lo < nops; lo = hi) {
		size_t first = nl;

		o = next;
		ops[lo] = o.i;
		for (hi = lo + 1; hi < nops; hi++) {
			next = key_at(&os, hi);
			if (next.g != o.g || next.c != o.c)
				break;
			ops[hi] = next.i;
		}
		glo[ngroups] = (uint32_t)lo;
		while (ci < nc && (k.g < o.g || (k.g == o.g && k.c < o.c)))
			if (++ci < nc)
				k = key_at(&cs, ci);
		for (size_t c0 = ci; c0 < nc && o.c >= 0; c0++) {
			struct join_key x = c0 == ci ? k : key_at(&cs, c0);

			if (x.g != o.g || x.c != o.c)
				break;
			launches[nl].call = x.i;
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
	free(ok);
	free(ck);
	*nl_out = nl;
	*glo_out = glo;
	return launches;
}
