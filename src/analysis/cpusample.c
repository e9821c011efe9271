/* cpusample.c: CPU samples of NVTX ranges by category and function
 * (cpusample.h): each stage's ranges and the CUDA API calls become sorted,
 * disjoint spans per thread, and each sample is looked up in them. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpusample.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct span {
	int64_t gtid, s, e;
};

struct key {
	int32_t a, b;
	int64_t ns;
};

static int cmp_span(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	if (p->gtid != q->gtid)
		return p->gtid < q->gtid ? -1 : 1;
	return (p->s > q->s) - (p->s < q->s);
}

/* Sorts v and merges overlapping spans of a thread; returns the new count. */
static size_t merge_spans(struct span *v, size_t n)
{
	size_t w = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (v[i].e <= v[i].s)
			continue;
		if (w && v[w - 1].gtid == v[i].gtid && v[i].s <= v[w - 1].e) {
			if (v[i].e > v[w - 1].e)
				v[w - 1].e = v[i].e;
			continue;
		}
		v[w++] = v[i];
	}
	return w;
}

/* Whether thread g at ts is inside one of the disjoint spans v. */
static int inside(const struct span *v, size_t n, int64_t g, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].gtid < g || (v[mid].gtid == g && v[mid].s <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].gtid == g && ts < v[lo - 1].e;
}

static int cmp_key(const void *x, const void *y)
{
	const struct key *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static const struct trace *g_sort_trace; /* names for the group order */

static int cmp_group(const void *x, const void *y)
{
	const struct cpu_sample_group *p = x, *q = y;
	const char *a, *b;
	int c;

	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	a = strtab_str(&g_sort_trace->strs, p->name);
	b = strtab_str(&g_sort_trace->strs, q->name);
	c = strcmp(a ? a : "", b ? b : "");
	if (c)
		return c;
	a = strtab_str(&g_sort_trace->strs, p->detail);
	b = strtab_str(&g_sort_trace->strs, q->detail);
	return strcmp(a ? a : "", b ? b : "");
}

/* Groups keys k[0..n) by a (pair = 0: detail is the b most often seen with
 * it) or by (a, b) (pair = 1: detail is b). */
static void group(struct cpu_sample_group **out, size_t *nout, struct key *k, size_t n, int pair,
		  const struct trace *t)
{
	size_t alloc = 0;

	*out = NULL;
	*nout = 0;
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < n;) {
		size_t j = i, best = 0;
		struct cpu_sample_group *g;

		ALLOC_GROW(*out, *nout + 1, alloc);
		g = &(*out)[(*nout)++];
		memset(g, 0, sizeof(*g));
		g->name = k[i].a;
		g->detail = k[i].b;
		while (j < n && k[j].a == k[i].a && (!pair || k[j].b == k[i].b)) {
			size_t r = j;
			int64_t ns = 0;

			while (r < n && k[r].a == k[j].a && k[r].b == k[j].b)
				ns = i64_sat_add(ns, k[r++].ns);
			if (r - j > best) { /* ties: the lower id, the first seen */
				best = r - j;
				g->detail = k[j].b;
			}
			g->samples += r - j;
			g->ns = i64_sat_add(g->ns, ns);
			j = r;
		}
		i = j;
	}
	g_sort_trace = t;
	if (*nout > 1)
		qsort(*out, *nout, sizeof(**out), cmp_group);
}

static void fill_set(struct cpu_sample_set *set, const struct trace_cpu_sample *const *v, size_t n,
		     const struct trace *t)
{
	struct key *k = xmalloc(st_mult(n + 1, sizeof(*k)));

	set->samples = n;
	for (size_t i = 0; i < n; i++) {
		set->ns = i64_sat_add(set->ns, v[i]->period_ns);
		k[i].a = v[i]->category;
		k[i].b = v[i]->function;
		k[i].ns = v[i]->period_ns;
	}
	group(&set->cats, &set->ncats, k, n, 0, t);
	for (size_t i = 0; i < n; i++) {
		k[i].a = v[i]->function;
		k[i].b = v[i]->library;
		k[i].ns = v[i]->period_ns;
	}
	group(&set->funcs, &set->nfuncs, k, n, 1, t);
	free(k);
}

/* The API calls of t as disjoint spans per thread. */
static struct span *call_spans(const struct trace *t, size_t *n)
{
	struct span *v = xmalloc(st_mult(t->ncalls + 1, sizeof(*v)));

	for (size_t i = 0; i < t->ncalls; i++) {
		v[i].gtid = trace_csig(t, &t->calls[i])->gtid;
		v[i].s = t->calls[i].start;
		v[i].e = t->calls[i].end;
	}
	*n = merge_spans(v, t->ncalls);
	return v;
}

void cpu_samples_by_mask(struct cpu_sample_use *out, size_t nout, const struct trace *t,
			 const uint8_t *mask, const struct trace_cpu_samples *s, int api_complete)
{
	struct span *rs, *calls = NULL;
	const struct trace_cpu_sample **in, **outside;
	size_t ncalls = 0;

	if (!s->n || !nout)
		return;
	if (nout > 8)
		nout = 8;
	rs = xmalloc(st_mult(t->nranges + 1, sizeof(*rs)));
	in = xmalloc(st_mult(s->n + 1, sizeof(*in)));
	outside = xmalloc(st_mult(s->n + 1, sizeof(*outside)));
	if (api_complete)
		calls = call_spans(t, &ncalls);
	for (size_t b = 0; b < nout; b++) {
		size_t nr = 0, nin = 0, nout_ = 0;

		for (size_t r = 0; r < t->nranges; r++) {
			if (!(mask[r] & (1u << b)))
				continue;
			rs[nr].gtid = t->ranges[r].gtid;
			rs[nr].s = t->ranges[r].start;
			rs[nr++].e = trace_range_end(t, &t->ranges[r]);
		}
		nr = merge_spans(rs, nr);
		for (size_t i = 0; i < s->n && nr; i++) {
			const struct trace_cpu_sample *c = &s->v[i];

			if (!inside(rs, nr, c->gtid, c->ts))
				continue;
			in[nin++] = c;
			if (api_complete && !inside(calls, ncalls, c->gtid, c->ts))
				outside[nout_++] = c;
		}
		fill_set(&out[b].all, in, nin, t);
		if (api_complete)
			fill_set(&out[b].outside, outside, nout_, t);
	}
	free(calls);
	free(outside);
	free(in);
	free(rs);
}

static void set_release(struct cpu_sample_set *s)
{
	free(s->cats);
	free(s->funcs);
	memset(s, 0, sizeof(*s));
}

void cpu_sample_use_release(struct cpu_sample_use *u)
{
	set_release(&u->all);
	set_release(&u->outside);
}
