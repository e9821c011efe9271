/* collectives_match.c: the cross-rank half of collectives.h: sequences
 * matched by order, host clocks aligned on collective end times, then wait,
 * transfer and stragglers in the aligned clock. Every array here is per
 * rank, per instance or per (instance, rank): nothing grows with pairs of
 * ranks. coll_analyze() is here too: the whole analysis, from the ranks
 * (collectives.c adds each) to the result. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/collectives_priv.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* Moves the k-th smallest of v[0..n) to v[k], smaller ones before it
 * (Hoare's selection: linear on average, where a sort per collective
 * instance would add a log factor in ranks). */
static void select_kth(int64_t *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* v[lo..j] <= pivot <= v[i..hi]; between them, the pivot */
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return;
	}
}

int64_t coll_median(int64_t *v, size_t n)
{
	int64_t below;

	if (!n)
		return 0;
	select_kth(v, n, n / 2);
	if (n % 2)
		return v[n / 2];
	below = v[0]; /* the largest of v[0..n/2) is the other middle value */
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > below)
			below = v[i];
	return below + (v[n / 2] - below) / 2;
}

/* Per (stream ordinal, type) key: how many calls each rank has, where its
 * block starts in each rank's sorted records, and where its instances start. */
struct keys {
	size_t nkeys;	  /* nords * COLL_NTYPES */
	size_t *count;	  /* [rank * nkeys + key] */
	size_t *offset;	  /* [rank * nkeys + key]: first record of the key */
	size_t *base;	  /* [key]: first instance, when matched */
	uint8_t *matched; /* [key] */
};

static int cmp_brank(const void *a, const void *b)
{
	const struct coll_brank *x = a, *y = b;

	return (x->info.rank > y->info.rank) - (x->info.rank < y->info.rank);
}

static void keys_count(struct keys *k, const struct coll_builder *b)
{
	size_t nords = 0;

	for (size_t r = 0; r < b->nranks; r++)
		for (size_t i = 0; i < b->ranks[r].nrecs; i++)
			if ((size_t)b->ranks[r].recs[i].ord + 1 > nords)
				nords = (size_t)b->ranks[r].recs[i].ord + 1;
	k->nkeys = nords * COLL_NTYPES;
	k->count = xcalloc(b->nranks * k->nkeys + 1, sizeof(*k->count));
	k->offset = xcalloc(b->nranks * k->nkeys + 1, sizeof(*k->offset));
	k->base = xcalloc(k->nkeys + 1, sizeof(*k->base));
	k->matched = xcalloc(k->nkeys + 1, 1);
	for (size_t r = 0; r < b->nranks; r++) {
		size_t *c = k->count + r * k->nkeys, *o = k->offset + r * k->nkeys, at = 0;

		for (size_t i = 0; i < b->ranks[r].nrecs; i++)
			c[(size_t)b->ranks[r].recs[i].ord * COLL_NTYPES +
			  b->ranks[r].recs[i].type]++;
		for (size_t key = 0; key < k->nkeys; key++) { /* records are sorted by key */
			o[key] = at;
			at += c[key];
		}
	}
}

/* Decides which keys match (same count on every rank) and reports the
 * others; returns the number of instances. */
static size_t keys_decide(struct keys *k, const struct coll_builder *b, struct coll_result *out)
{
	size_t ninst = 0, alloc = 0;

	for (size_t key = 0; key < k->nkeys; key++) {
		struct coll_mismatch mm = {0};
		int first = 1;

		for (size_t r = 0; r < b->nranks; r++) {
			size_t c = k->count[r * k->nkeys + key];

			if (first || c < mm.min_calls) {
				mm.min_calls = c;
				mm.min_rank = b->ranks[r].info.rank;
			}
			if (first || c > mm.max_calls) {
				mm.max_calls = c;
				mm.max_rank = b->ranks[r].info.rank;
			}
			first = 0;
		}
		if (!mm.max_calls)
			continue;
		if (mm.min_calls == mm.max_calls) {
			k->matched[key] = 1;
			k->base[key] = ninst;
			ninst += mm.max_calls;
			continue;
		}
		mm.type = (enum coll_type)(key % COLL_NTYPES);
		mm.stream_ord = key / COLL_NTYPES;
		for (size_t r = 0; r < b->nranks; r++)
			mm.ranks_short += k->count[r * k->nkeys + key] < mm.max_calls;
		ALLOC_GROW(out->mismatches, out->nmismatches + 1, alloc);
		out->mismatches[out->nmismatches++] = mm;
	}
	return ninst;
}

/* Fills the instances and the (instance, rank) calls in each rank's own
 * clock, and frees each rank's records once read. */
static void fill_calls(struct keys *k, struct coll_builder *b, struct coll_result *out)
{
	size_t nr = b->nranks;

	for (size_t key = 0; key < k->nkeys; key++) {
		size_t c = k->count[key]; /* rank 0's; the same on every rank */
		const struct coll_rec *r0 = b->ranks[0].recs + k->offset[key];

		if (!k->matched[key])
			continue;
		for (size_t s = 0; s < c; s++) {
			struct coll_instance *in = &out->instances[k->base[key] + s];

			in->type = (enum coll_type)r0[s].type;
			in->op = coll_field_op(r0[s].op);
			in->dtype = coll_field_dtype(r0[s].dtype);
			in->algo = coll_field_algo(r0[s].algo);
			in->proto = coll_field_proto(r0[s].proto);
			in->stream_ord = key / COLL_NTYPES;
			in->seq = s;
			in->row = k->base[key] + s;
		}
	}
	for (size_t r = 0; r < nr; r++) {
		struct coll_brank *br = &b->ranks[r];

		for (size_t key = 0; key < k->nkeys; key++) {
			const struct coll_rec *rec = br->recs + k->offset[r * k->nkeys + key];
			size_t c = k->count[r * k->nkeys + key];

			if (!k->matched[key])
				continue;
			for (size_t s = 0; s < c; s++) {
				struct coll_call *call = &out->calls[(k->base[key] + s) * nr + r];

				call->start = rec[s].start;
				call->end = rec[s].end;
			}
			br->info.by_type[key % COLL_NTYPES].matched += c;
		}
		FREE_AND_NULL(br->recs);
		br->nrecs = 0;
	}
}

/* Clock domain of each rank as an index into out->clocks (sorted ids). */
static size_t *rank_clocks(struct coll_result *out)
{
	size_t *cidx = xmalloc((out->nranks + 1) * sizeof(*cidx));

	out->clocks = xcalloc(out->nranks + 1, sizeof(*out->clocks));
	for (size_t r = 0; r < out->nranks; r++) {
		size_t h = 0;

		while (h < out->nclocks && out->clocks[h].clock < out->ranks[r].clock)
			h++;
		if (h == out->nclocks || out->clocks[h].clock != out->ranks[r].clock) {
			memmove(out->clocks + h + 1, out->clocks + h,
				(out->nclocks - h) * sizeof(*out->clocks));
			memset(&out->clocks[h], 0, sizeof(out->clocks[h]));
			out->clocks[h].clock = out->ranks[r].clock;
			out->clocks[h].host = out->ranks[r].host;
			out->nclocks++;
		}
		out->clocks[h].ranks++;
	}
	for (size_t r = 0; r < out->nranks; r++)
		for (size_t h = 0; h < out->nclocks; h++)
			if (out->clocks[h].clock == out->ranks[r].clock)
				cidx[r] = h;
	return cidx;
}

/* Per instance, the median end of each domain's ranks: [inst * ndom + d].
 * The ranks are visited grouped by domain (order[] with domain d's ranks
 * at first[d]..first[d + 1]), so an instance costs O(ranks), not O(ranks x
 * domains). */
static int64_t *clock_ends(const struct coll_result *out, const size_t *cidx)
{
	size_t nh = out->nclocks, nr = out->nranks;
	int64_t *med = xmalloc((out->ninstances * nh + 1) * sizeof(*med));
	int64_t *tmp = xmalloc((nr + 1) * sizeof(*tmp));
	size_t *first = xcalloc(nh + 1, sizeof(*first)),
	       *order = xmalloc((nr + 1) * sizeof(*order));
	size_t *at = xcalloc(nh + 1, sizeof(*at));

	for (size_t r = 0; r < nr; r++)
		first[cidx[r] + 1]++;
	for (size_t h = 0; h < nh; h++)
		at[h + 1] = first[h + 1] += first[h];
	for (size_t r = 0; r < nr; r++)
		order[at[cidx[r]]++] = r;
	free(at);
	for (size_t i = 0; i < out->ninstances; i++) {
		const struct coll_call *calls = out->calls + i * nr;

		for (size_t h = 0; h < nh; h++) {
			size_t n = 0;

			for (size_t j = first[h]; j < first[h + 1]; j++)
				tmp[n++] = calls[order[j]].end;
			med[i * nh + h] = coll_median(tmp, n);
		}
	}
	free(order);
	free(first);
	free(tmp);
	return med;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The median of sorted s[0..n) with one element of value v left out
 * (n >= 2), as coll_median would give for the n - 1 others. */
static int64_t median_without(const int64_t *s, size_t n, int64_t v)
{
	size_t lo = 0, hi = n, m = n - 1, k;
	int64_t a, b;

	while (lo < hi) { /* the first position of v */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the j-th of the others: s[j] before v's position, s[j + 1] after */
	k = m / 2;
	b = s[k < lo ? k : k + 1];
	if (m % 2)
		return b;
	a = s[k - 1 < lo ? k - 1 : k];
	return a + (b - a) / 2;
}

/* The residual of every (instance, rank), in the aligned clock: the rank's
 * end - the median end of the other ranks, into res[r * ni + i] (absolute
 * values). Measured for every rank, also those said to share a clock. */
static void measure_residuals(struct coll_result *out, const size_t *cidx)
{
	size_t nr = out->nranks, ni = out->ninstances, nh = out->nclocks;
	int64_t *res, *srt, *tmp;

	if (nr < 2 || !ni)
		return;
	res = xmalloc(st_mult(nr, ni) * sizeof(*res));
	srt = xmalloc((nr + 1) * sizeof(*srt));
	for (size_t i = 0; i < ni; i++) {
		const struct coll_call *calls = out->calls + i * nr;

		for (size_t r = 0; r < nr; r++)
			srt[r] = calls[r].end;
		qsort(srt, nr, sizeof(*srt), cmp_i64);
		for (size_t r = 0; r < nr; r++) {
			int64_t d = calls[r].end - median_without(srt, nr, calls[r].end);

			d = d < 0 ? -d : d;
			res[r * ni + i] = d;
			if (d > out->residual_max_ns)
				out->residual_max_ns = d;
			if (d > out->clocks[cidx[r]].residual_max_ns)
				out->clocks[cidx[r]].residual_max_ns = d;
		}
	}
	tmp = xmalloc(st_mult(nr, ni) * sizeof(*tmp));
	for (size_t h = 0; h < nh; h++) {
		size_t n = 0;

		for (size_t r = 0; r < nr; r++)
			if (cidx[r] == h) {
				memcpy(tmp + n, res + r * ni, ni * sizeof(*tmp));
				n += ni;
			}
		out->clocks[h].samples = n;
		out->clocks[h].residual_ns = coll_median(tmp, n);
	}
	for (size_t r = 0; r < nr; r++)
		out->ranks[r].residual_ns = coll_median(res + r * ni, ni);
	out->residual_samples = nr * ni;
	out->residual_median_ns = coll_median(res, nr * ni);
	free(tmp);
	free(srt);
	free(res);
}

/* Estimates each domain's offset to clocks[0] from matched END times,
 * moves every call to the reference clock, then measures the residuals. */
static void align_clocks(struct coll_result *out)
{
	size_t nh, nr = out->nranks, ni = out->ninstances;
	size_t *cidx = rank_clocks(out);
	int64_t *med, *diff;

	nh = out->nclocks;
	med = clock_ends(out, cidx);
	diff = xmalloc((ni + 1) * sizeof(*diff));
	out->clocks[0].aligned = 1;
	for (size_t h = 1; h < nh && ni; h++) {
		for (size_t i = 0; i < ni; i++)
			diff[i] = med[i * nh + h] - med[i * nh];
		out->clocks[h].offset_ns = coll_median(diff, ni);
		out->clocks[h].aligned = 1;
	}
	for (size_t r = 0; r < nr; r++) {
		int64_t off = out->clocks[cidx[r]].offset_ns;

		out->ranks[r].clock_offset_ns = off;
		for (size_t i = 0; i < ni && off; i++) {
			out->calls[i * nr + r].start -= off;
			out->calls[i * nr + r].end -= off;
		}
	}
	measure_residuals(out, cidx);
	free(diff);
	free(med);
	free(cidx);
}

/* Arrival order, wait and transfer of one instance. tmp has nranks slots. */
static void measure_instance(struct coll_result *out, struct coll_instance *in, int64_t *tmp)
{
	size_t nr = out->nranks, n = 0;
	struct coll_call *calls = out->calls + in->row * nr;

	in->first_arrival = in->last_arrival = calls[0].start;
	in->last_end = calls[0].end;
	in->last_rank = 0;
	for (size_t r = 1; r < nr; r++) {
		if (calls[r].start > in->last_arrival) {
			in->last_arrival = calls[r].start;
			in->last_rank = r;
		}
		if (calls[r].start < in->first_arrival)
			in->first_arrival = calls[r].start;
		if (calls[r].end > in->last_end)
			in->last_end = calls[r].end;
	}
	for (size_t r = 0; r < nr; r++)
		if (r != in->last_rank)
			tmp[n++] = calls[r].start;
	in->late_ns = n ? in->last_arrival - coll_median(tmp, n) : 0;
	for (size_t r = 0; r < nr; r++) {
		struct coll_call *c = &calls[r];
		struct coll_rank *rk = &out->ranks[r];
		struct coll_type_stat *ts = &rk->by_type[in->type];
		int64_t dur = c->end - c->start;

		/* a residual clock error can put the last arrival after a
		 * rank's end: the call was then all wait */
		c->wait_ns = in->last_arrival - c->start < dur ? in->last_arrival - c->start : dur;
		c->transfer_ns = dur - c->wait_ns;
		ts->wait_ns = i64_sat_add(ts->wait_ns, c->wait_ns);
		ts->transfer_ns = i64_sat_add(ts->transfer_ns, c->transfer_ns);
		rk->wait_ns = i64_sat_add(rk->wait_ns, c->wait_ns);
		rk->transfer_ns = i64_sat_add(rk->transfer_ns, c->transfer_ns);
	}
	if (nr < 2 || in->last_arrival == in->first_arrival)
		return; /* nobody waited: no straggler to count */
	out->ranks[in->last_rank].last_count++;
	out->ranks[in->last_rank].last_late_ns =
	    i64_sat_add(out->ranks[in->last_rank].last_late_ns, in->late_ns);
}

static int cmp_instance(const void *a, const void *b)
{
	const struct coll_instance *x = a, *y = b;

	if (x->last_arrival != y->last_arrival)
		return x->last_arrival < y->last_arrival ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static int cmp_straggler(const void *a, const void *b)
{
	const struct coll_straggler *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->late_ns != y->late_ns)
		return x->late_ns > y->late_ns ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void find_stragglers(struct coll_result *out)
{
	out->stragglers = xcalloc(out->nranks + 1, sizeof(*out->stragglers));
	for (size_t r = 0; r < out->nranks; r++) {
		const struct coll_rank *rk = &out->ranks[r];
		struct coll_straggler *s;

		if (!rk->last_count)
			continue;
		s = &out->stragglers[out->nstragglers++];
		s->rank_index = r;
		s->rank = rk->rank;
		s->count = rk->last_count;
		s->late_ns = rk->last_late_ns;
		s->mean_late_ns = (double)rk->last_late_ns / (double)rk->last_count;
		s->share = (double)rk->last_count / (double)out->ninstances;
	}
	qsort(out->stragglers, out->nstragglers, sizeof(*out->stragglers), cmp_straggler);
}

int coll_builder_finish(struct coll_builder *b, struct coll_result *out, struct strbuf *err)
{
	struct keys k = {0};
	int64_t *tmp;

	memset(out, 0, sizeof(*out));
	if (!b->nranks)
		return error_set(err, "no rank to analyse collectives of");
	qsort(b->ranks, b->nranks, sizeof(*b->ranks), cmp_brank);
	keys_count(&k, b);
	out->nranks = b->nranks;
	out->ninstances = keys_decide(&k, b, out);
	out->instances = xcalloc(out->ninstances + 1, sizeof(*out->instances));
	out->calls = xcalloc(st_mult(out->ninstances, out->nranks) + 1, sizeof(*out->calls));
	fill_calls(&k, b, out);
	out->ranks = xcalloc(b->nranks, sizeof(*out->ranks));
	for (size_t r = 0; r < b->nranks; r++) { /* the stage arrays move to out */
		out->ranks[r] = b->ranks[r].info;
		memset(&b->ranks[r].info, 0, sizeof(b->ranks[r].info));
	}
	b->nranks = 0;
	align_clocks(out);
	tmp = xmalloc((out->nranks + 1) * sizeof(*tmp));
	for (size_t i = 0; i < out->ninstances; i++)
		measure_instance(out, &out->instances[i], tmp);
	free(tmp);
	for (size_t r = 0; r < out->nranks; r++) {
		size_t m = 0;

		for (int t = 0; t < COLL_NTYPES; t++)
			m += out->ranks[r].by_type[t].matched;
		out->ranks[r].unmatched = out->ranks[r].calls - m;
	}
	qsort(out->instances, out->ninstances, sizeof(*out->instances), cmp_instance);
	find_stragglers(out);
	free(k.count);
	free(k.offset);
	free(k.base);
	free(k.matched);
	return 0;
}

int coll_analyze(const struct coll_rank_input *ranks, size_t nranks, struct coll_result *out,
		 struct strbuf *err)
{
	struct coll_builder *b = coll_builder_new();
	int ret = -1;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nranks; i++)
		if (coll_builder_add_rank(b, &ranks[i], err))
			goto out;
	ret = coll_builder_finish(b, out, err);
out:
	coll_builder_free(b);
	return ret;
}
