/* nvtxkern.c: nvtx_kern_sum's groups, summarised one thread at a time. */
#include <stdlib.h>
#include <string.h>

#include "analysis/nvtxkern.h"
#include "analysis/nvtxproj.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* A pair of the thread being swept: 12 bytes. */
struct kpair {
	uint32_t gid;
	int32_t range;
	uint32_t op;
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
	size_t vals_alloc;
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

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
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

		for (hi = lo; hi < n && p[hi].gid == p[lo].gid; hi++) {
			const struct trace_kernel *k = &a->t->kernels[p[hi].op];

			if (hi == lo || p[hi].op != p[hi - 1].op)
				g->kernels++;
			ALLOC_GROW(a->vals, hi - lo + 1, a->vals_alloc);
			a->vals[hi - lo] = k->end - k->start;
		}
		sort_inplace(a->vals, hi - lo, sizeof(*a->vals), cmp_i64);
		nsys_summarize(a->vals, hi - lo, &g->s);
		a->done[p[lo].gid] = 1;
	}
	a->npairs = 0;
}

static void on_pair(void *ctx, uint32_t op, int32_t range, int32_t call)
{
	struct kacc *a = ctx;
	const struct trace *t = a->t;
	int64_t k[5], gtid;
	uint32_t gid;

	if (op >= t->nkernels)
		return; /* memcpy/memset: not in this report */
	gtid = call >= 0 ? trace_csig(t, &t->calls[call])->gtid : 0;
	/* GROUP BY pid, tid, name, style, kernel name; NULL sorts first */
	k[0] = call >= 0 ? trace_pid(gtid) : -1;
	k[1] = call >= 0 ? trace_tid(gtid) : -1;
	k[2] = range >= 0 && a->names[range] >= 0 ? t->strs.rank[a->names[range]] : -1;
	k[3] = range >= 0 ? t->ranges[range].style : -1;
	k[4] = trace_ksig(t, &t->kernels[op])->name;
	k[4] = k[4] >= 0 ? t->strs.rank[k[4]] : -1;
	if (a->flush && a->npairs && (k[0] != a->pid || k[1] != a->tid))
		summarise(a);
	a->pid = k[0];
	a->tid = k[1];
	gid = group_id(a, k);
	if (a->done[gid])
		a->clash = 1;
	ALLOC_GROW(a->pairs, a->npairs + 1, a->pairs_alloc);
	a->pairs[a->npairs].gid = gid;
	a->pairs[a->npairs].range = range;
	a->pairs[a->npairs++].op = op;
}

static int cmp_key(const void *x, const void *y)
{
	const struct nvtxkern_group *a = x, *b = y;

	for (int i = 0; i < 5; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	return 0;
}

static void kacc_run(struct kacc *a)
{
	struct nvtx_proj p;

	nvtx_proj_compute_each(&p, a->t, on_pair, a);
	nvtx_proj_release(&p);
	summarise(a);
	free(a->pairs);
	free(a->done);
	free(a->slots);
	free(a->vals);
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
