/* cpuapi.c: CPU time of NVTX ranges inside CUDA API calls (cpuapi.h), by
 * sorting the calls per thread and sweeping them with each range. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cpuapi.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/apiname.h"
#include "core/banned.h"

/* A call's time on its thread, after the calls before it: [s, e). */
struct seg {
	int64_t gtid, s, e;
	uint32_t call;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->e != y->e) /* the enclosing call first */
		return x->e > y->e ? -1 : 1;
	return x->call < y->call ? -1 : x->call > y->call;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_name(const void *a, const void *b)
{
	const struct cpu_api_name *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cpu_api_complete(const struct trace *t)
{
	int32_t last = -2;

	for (size_t i = 0; i < t->ncalls; i++) {
		int32_t n = trace_csig(t, &t->calls[i])->name;
		const char *s;

		if (n == last)
			continue;
		last = n;
		s = strtab_str(&t->strs, n);
		if (s && !api_name_is_launch(s, 1))
			return 1;
	}
	return 0;
}

size_t cpu_api_name_len(const char *name)
{
	size_t n = strlen(name), i = n;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i < n && i >= 3 && name[i - 1] == 'v' && name[i - 2] == '_')
		return i - 2;
	return n;
}

/* The calls of t as the union of each thread's calls: each segment is the
 * part of an outermost call not covered by the calls before it, sorted by
 * thread and time, so within a thread segments do not overlap. */
static struct seg *outer_segments(const struct trace *t, size_t *nout)
{
	struct seg *v = xmalloc(st_mult(t->ncalls + 1, sizeof(*v)));
	size_t w = 0;
	int64_t cur_end = 0;

	for (size_t i = 0; i < t->ncalls; i++) {
		v[i].gtid = trace_csig(t, &t->calls[i])->gtid;
		v[i].s = t->calls[i].start;
		v[i].e = t->calls[i].end;
		v[i].call = (uint32_t)i;
	}
	qsort(v, t->ncalls, sizeof(*v), cmp_seg);
	for (size_t i = 0; i < t->ncalls; i++) {
		struct seg c = v[i];
		int same = w > 0 && v[w - 1].gtid == c.gtid;

		if (same && c.e <= cur_end)
			continue; /* nested in (or covered by) the calls before it */
		if (same && c.s < cur_end)
			c.s = cur_end;
		if (c.e <= c.s)
			continue;
		cur_end = c.e;
		v[w++] = c;
	}
	*nout = w;
	return v;
}

/* The first segment of thread g that ends after ts (or the first of a later
 * thread). */
static size_t first_seg(const struct seg *v, size_t n, int64_t g, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].gtid < g || (v[mid].gtid == g && v[mid].e <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* out's names from the per-name sums (indexed like ids), merged by the
 * name without its version suffix. */
static void name_list(struct cpu_api_use *out, const struct trace *t, const int32_t *ids,
		      size_t nids, const int64_t *ns, const size_t *calls)
{
	size_t alloc = 0;

	for (size_t k = 0; k < nids; k++) {
		const char *s = strtab_str(&t->strs, ids[k]);
		struct cpu_api_name *nm = NULL;
		size_t len;

		if (!calls[k])
			continue;
		if (!s)
			s = "(unnamed)";
		len = cpu_api_name_len(s);
		for (size_t j = 0; j < out->nnames && !nm; j++)
			if (strlen(out->names[j].name) == len &&
			    !memcmp(out->names[j].name, s, len))
				nm = &out->names[j];
		if (!nm) {
			ALLOC_GROW(out->names, out->nnames + 1, alloc);
			nm = &out->names[out->nnames++];
			nm->name = xstrndup(s, len);
			nm->ns = 0;
			nm->calls = 0;
		}
		nm->ns = i64_sat_add(nm->ns, ns[k]);
		nm->calls += calls[k];
	}
	if (out->nnames > 1)
		qsort(out->names, out->nnames, sizeof(*out->names), cmp_name);
}

void cpu_api_by_mask(struct cpu_api_use *out, size_t nout, const struct trace *t,
		     const uint8_t *mask)
{
	size_t nseg, nids = 0;
	struct seg *v;
	int32_t *ids;
	int64_t *ns;
	size_t *calls;

	if (!t->ncalls || !nout)
		return;
	if (nout > 8)
		nout = 8;
	v = outer_segments(t, &nseg);
	ids = xmalloc(st_mult(nseg + 1, sizeof(*ids)));
	for (size_t i = 0; i < nseg; i++)
		ids[i] = trace_csig(t, &t->calls[v[i].call])->name;
	qsort(ids, nseg, sizeof(*ids), cmp_i32);
	for (size_t i = 0; i < nseg; i++)
		if (!nids || ids[i] != ids[nids - 1])
			ids[nids++] = ids[i];
	ns = xcalloc(st_mult(nout, nids + 1), sizeof(*ns));
	calls = xcalloc(st_mult(nout, nids + 1), sizeof(*calls));
	for (size_t r = 0; r < t->nranges; r++) {
		const struct trace_range *rg = &t->ranges[r];
		unsigned m = mask[r] & ((1u << nout) - 1);
		int64_t rs = rg->start, re = trace_range_end(t, rg);

		if (!m || re <= rs)
			continue;
		for (size_t j = first_seg(v, nseg, rg->gtid, rs);
		     j < nseg && v[j].gtid == rg->gtid && v[j].s < re; j++) {
			int64_t ov = (v[j].e < re ? v[j].e : re) - (v[j].s > rs ? v[j].s : rs);
			int32_t name = trace_csig(t, &t->calls[v[j].call])->name;
			const int32_t *at = bsearch(&name, ids, nids, sizeof(*ids), cmp_i32);
			size_t k = (size_t)(at - ids);

			if (ov <= 0)
				continue;
			for (size_t b = 0; b < nout; b++) {
				if (!(m & (1u << b)))
					continue;
				ns[b * (nids + 1) + k] = i64_sat_add(ns[b * (nids + 1) + k], ov);
				calls[b * (nids + 1) + k]++;
				out[b].ns = i64_sat_add(out[b].ns, ov);
				out[b].calls++;
			}
		}
	}
	for (size_t b = 0; b < nout; b++)
		name_list(&out[b], t, ids, nids, ns + b * (nids + 1), calls + b * (nids + 1));
	free(calls);
	free(ns);
	free(ids);
	free(v);
}

void cpu_api_use_release(struct cpu_api_use *u)
{
	for (size_t i = 0; i < u->nnames; i++)
		free(u->names[i].name);
	free(u->names);
	memset(u, 0, sizeof(*u));
}
