/* collectives_cause.c: see collectives_cause.h. coll_gaps_compute() reads
 * one rank's kernels at a time: its NCCL kernels' ends sorted, and the
 * union of its other kernels with prefix sums, so that each gap costs a few
 * binary searches (about 40 bytes per kernel of that rank). The causes then
 * hold every rank's gaps at once (40 bytes per NCCL kernel), since every
 * collective reads every rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives_cause.h"
#include "core/xalloc.h"
#include "core/banned.h"

const char *coll_cause_name(enum coll_cause c)
{
	switch (c) {
	case COLL_CAUSE_HOST:
		return "host";
	case COLL_CAUSE_GPU:
		return "GPU";
	case COLL_CAUSE_UNKNOWN:
		return "unknown";
	case COLL_CAUSE_OTHER:
		break;
	}
	return "other";
}

struct iv {
	int64_t s, e;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_iv(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return (x->s > y->s) - (x->s < y->s);
}

/* Elements of v[0..n) that are <= x. */
static size_t upto(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One rank's kernels, as the gaps read them. */
struct ktab {
	int64_t *ends; /* NCCL ends, sorted */
	size_t nn;
	int64_t *bs, *be, *pre; /* busy union of the other kernels; pre[i] = busy before i */
	size_t nb;
	int64_t *kstart; /* the other kernels' starts, sorted */
	size_t nk;
};

/* The union of o[0..no) (sorted here) into t's busy intervals. */
static void ktab_union(struct ktab *t, struct iv *o, size_t no)
{
	qsort(o, no, sizeof(*o), cmp_iv);
	t->bs = xmalloc(st_mult(no + 1, sizeof(*t->bs)));
	t->be = xmalloc(st_mult(no + 1, sizeof(*t->be)));
	t->pre = xmalloc(st_mult(no + 2, sizeof(*t->pre)));
	for (size_t i = 0; i < no; i++) {
		if (t->nb && o[i].s <= t->be[t->nb - 1]) {
			if (o[i].e > t->be[t->nb - 1])
				t->be[t->nb - 1] = o[i].e;
			continue;
		}
		t->bs[t->nb] = o[i].s;
		t->be[t->nb++] = o[i].e;
	}
	t->pre[0] = 0;
	for (size_t i = 0; i < t->nb; i++)
		t->pre[i + 1] = t->pre[i] + (t->be[i] - t->bs[i]);
}

/* Busy time of the union in [a, b). */
static int64_t busy(const struct ktab *t, int64_t a, int64_t b)
{
	size_t i, j;
	int64_t v;

	if (b <= a || !t->nb)
		return 0;
	i = upto(t->be, t->nb, a);     /* first interval ending after a */
	j = upto(t->bs, t->nb, b - 1); /* intervals starting before b */
	if (i >= j)
		return 0;
	v = t->pre[j] - t->pre[i];
	if (t->bs[i] < a)
		v -= a - t->bs[i];
	if (t->be[j - 1] > b)
		v -= t->be[j - 1] - b;
	return v > 0 ? v : 0;
}

void coll_gaps_compute(const struct coll_kernel *k, size_t nk, const int64_t *launch,
		       struct coll_gap *out)
{
	struct iv *o = xmalloc(st_mult(nk + 1, sizeof(*o)));
	char *nccl = xcalloc(nk + 1, 1);
	struct ktab t;
	struct coll_name cn;
	size_t no = 0;

	memset(&t, 0, sizeof(t));
	t.ends = xmalloc(st_mult(nk + 1, sizeof(*t.ends)));
	t.kstart = xmalloc(st_mult(nk + 1, sizeof(*t.kstart)));
	for (size_t i = 0; i < nk; i++) {
		if (k[i].end < k[i].start)
			continue;
		if (k[i].name && coll_parse_name(k[i].name, &cn)) {
			nccl[i] = 1;
			t.ends[t.nn++] = k[i].end;
		} else {
			o[no++] = (struct iv){k[i].start, k[i].end};
			t.kstart[t.nk++] = k[i].start;
		}
	}
	qsort(t.ends, t.nn, sizeof(*t.ends), cmp_i64);
	qsort(t.kstart, t.nk, sizeof(*t.kstart), cmp_i64);
	ktab_union(&t, o, no);
	for (size_t i = 0; i < nk; i++) {
		int64_t s = k[i].start;
		size_t p = nccl[i] ? upto(t.ends, t.nn, s) : 0;
		struct coll_gap *g = &out[i];

		*g = (struct coll_gap){s, COLL_GAP_NONE, 0, 0,
				       launch && launch[i] >= 0 ? launch[i] : -1};
		if (!p)
			continue;
		g->prev_end = t.ends[p - 1];
		g->busy_ns = busy(&t, g->prev_end, s);
		g->kernels =
		    (int64_t)(upto(t.kstart, t.nk, s - 1) - upto(t.kstart, t.nk, g->prev_end - 1));
	}
	free(o);
	free(nccl);
	free(t.ends);
	free(t.kstart);
	free(t.bs);
	free(t.be);
	free(t.pre);
}

/* One rank as the causes read it: its gaps by start, its steps. */
struct rtab {
	struct coll_gap *gaps; /* those with a previous NCCL kernel, by start then launch */
	size_t ng;
	int64_t *sstart, *send; /* steps' starts and ends, each sorted */
	size_t ns;
};

static int cmp_gap(const void *a, const void *b)
{
	const struct coll_gap *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->launch > y->launch) - (x->launch < y->launch);
}

static void rtab_build(struct rtab *t, const struct coll_cause_rank *in)
{
	memset(t, 0, sizeof(*t));
	t->gaps = xmalloc(st_mult(in->ngaps + 1, sizeof(*t->gaps)));
	for (size_t i = 0; in->gaps && i < in->ngaps; i++)
		if (in->gaps[i].prev_end != COLL_GAP_NONE)
			t->gaps[t->ng++] = in->gaps[i];
	qsort(t->gaps, t->ng, sizeof(*t->gaps), cmp_gap);
	t->sstart = xmalloc(st_mult(in->nsteps + 1, sizeof(*t->sstart)));
	t->send = xmalloc(st_mult(in->nsteps + 1, sizeof(*t->send)));
	for (size_t i = 0; i < in->nsteps; i++) {
		t->send[t->ns] = in->steps[i].end;
		t->sstart[t->ns++] = in->steps[i].start;
	}
	qsort(t->sstart, t->ns, sizeof(*t->sstart), cmp_i64);
	qsort(t->send, t->ns, sizeof(*t->send), cmp_i64);
}

static void rtab_free(struct rtab *t)
{
	free(t->gaps);
	free(t->sstart);
	free(t->send);
}

/* What a rank's gap before its collective starting at s (own clock) holds;
 * 0 when it has no previous NCCL kernel (or no gaps are known). */
struct gap {
	int64_t len, busy, kernels, lag; /* lag: start - its launch; INT64_MIN unknown */
};

static int gap_of(const struct rtab *t, int64_t s, struct gap *g)
{
	size_t lo = 0, hi = t->ng;
	const struct coll_gap *x;

	while (lo < hi) { /* the first gap of an NCCL kernel starting at s */
		size_t mid = lo + (hi - lo) / 2;

		if (t->gaps[mid].start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= t->ng || t->gaps[lo].start != s)
		return 0;
	x = &t->gaps[lo];
	g->len = s - x->prev_end;
	g->busy = x->busy_ns;
	g->kernels = x->kernels;
	g->lag = x->launch >= 0 ? s - x->launch : INT64_MIN;
	return 1;
}

/* The stage label of own-clock time x on a rank (NULL: in none), and
 * whether it falls in the rank's first COLL_EARLY_STEPS steps of that
 * window (-1: the window holds no step). */
static const char *stage_at(const struct coll_cause_rank *in, const struct rtab *t, int64_t x,
			    int *early)
{
	*early = -1;
	for (size_t w = 0; w < in->nwindows; w++) {
		const struct coll_window *cw = &in->windows[w];
		size_t first, at;

		if (x < cw->start || x >= cw->end)
			continue;
		/* steps over before the window opened do not count; steps do not
		 * overlap, so their ends sort as their starts */
		first = upto(t->send, t->ns, cw->start);
		at = upto(t->sstart, t->ns, x);
		if (at > first)
			*early = at - first <= COLL_EARLY_STEPS;
		return cw->stage;
	}
	return NULL;
}

/* Per matched instance: its stage, early flag, and the last rank's deltas. */
struct irow {
	const char *stage;
	int early; /* -1: by order */
	int explained;
	double dbusy, didle, dk;
	double lag, lag_med; /* NAN unknown */
	double busy_med;
};

/* Median of v[0..n) (sorts v; n is ranks - 1, small); the lower middle
 * value when n is even, so that two ranks compare with the other one. */
static int64_t med_of(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[(n - 1) / 2];
}

static int same_stage(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void measure(const struct coll_result *r, const struct coll_cause_rank *in,
		    const struct rtab *t, size_t i, struct irow *row, int64_t *tmp)
{
	const struct coll_instance *x = &r->instances[i];
	const struct coll_call *c = coll_instance_calls(r, i);
	size_t L = x->last_rank, n = 0, nl = 0;
	struct gap gl, g;
	int64_t *b = tmp, *idle = tmp + r->nranks, *k = tmp + 2 * r->nranks,
		*l = tmp + 3 * r->nranks;
	int lknown;

	row->stage = stage_at(&in[0], &t[0], c[0].start + r->ranks[0].clock_offset_ns, &row->early);
	row->explained = 0;
	row->lag = row->lag_med = NAN;
	if (!gap_of(&t[L], c[L].start + r->ranks[L].clock_offset_ns, &gl))
		return;
	lknown = gl.lag != INT64_MIN;
	for (size_t j = 0; j < r->nranks; j++) {
		if (j == L)
			continue;
		if (!gap_of(&t[j], c[j].start + r->ranks[j].clock_offset_ns, &g))
			return;
		b[n] = g.busy;
		idle[n] = g.len - g.busy;
		k[n++] = g.kernels;
		if (g.lag != INT64_MIN)
			l[nl++] = g.lag;
	}
	row->explained = 1;
	row->busy_med = (double)med_of(b, n);
	row->dbusy = (double)gl.busy - row->busy_med;
	row->didle = (double)(gl.len - gl.busy) - (double)med_of(idle, n);
	row->dk = (double)gl.kernels - (double)med_of(k, n);
	if (lknown && nl == n) {
		row->lag = (double)gl.lag;
		row->lag_med = (double)med_of(l, nl);
	}
}

static int64_t quant(const int64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)n);

	return n ? v[i < n ? i : n - 1] : 0;
}

static void dist_of(struct coll_late_dist *d, int64_t *v, size_t n)
{
	double s = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		s += (double)v[i];
	d->n = n;
	d->mean_ns = s / (double)n;
	d->p50_ns = quant(v, n, 0.5);
	d->p90_ns = quant(v, n, 0.9);
	d->max_ns = v[n - 1];
}

static enum coll_cause decide(const struct coll_straggle *s)
{
	double half = s->late.mean_ns / 2;

	if (!s->explained)
		return COLL_CAUSE_UNKNOWN;
	if (s->busy_ns >= half && s->busy_ns >= s->idle_ns)
		return COLL_CAUSE_GPU;
	if (s->idle_ns >= half && s->idle_ns > s->busy_ns)
		return COLL_CAUSE_HOST;
	return COLL_CAUSE_OTHER;
}

/* Fills s (rank_index, stage and instances set) from the rows. */
static void summarise(struct coll_straggle *s, const struct coll_result *r, const struct irow *rows,
		      int64_t *v)
{
	size_t n = 0, ne = 0, ns = 0, j = 0, nl = 0;
	int64_t *ve = v + r->ninstances, *vs = v + 2 * r->ninstances;
	size_t early_n = (s->instances + 9) / 10;
	double lag = 0, lag_med = 0;

	s->early_by_steps = 1;
	for (size_t i = 0; i < r->ninstances; i++)
		if (same_stage(rows[i].stage, s->stage) && rows[i].early < 0)
			s->early_by_steps = 0;
	for (size_t i = 0; i < r->ninstances; i++) {
		const struct irow *w = &rows[i];
		int early;

		if (!same_stage(w->stage, s->stage))
			continue;
		early = s->early_by_steps ? w->early == 1 : j < early_n;
		j++;
		s->early_instances += early != 0;
		if (r->instances[i].last_rank != s->rank_index)
			continue;
		v[n++] = r->instances[i].late_ns;
		if (early)
			ve[ne++] = r->instances[i].late_ns;
		else
			vs[ns++] = r->instances[i].late_ns;
		if (!w->explained)
			continue;
		s->explained++;
		s->busy_ns += w->dbusy;
		s->idle_ns += w->didle;
		s->kernels += w->dk;
		s->busy_med_ns += w->busy_med;
		if (w->dk >= 1) { /* it ran at least one kernel more than the others */
			s->extra_n++;
			s->extra_busy_ns += w->dbusy;
			s->extra_kernels += w->dk;
		}
		if (!isnan(w->lag)) {
			lag += w->lag;
			lag_med += w->lag_med;
			nl++;
		}
	}
	s->count = n;
	dist_of(&s->late, v, n);
	dist_of(&s->early, ve, ne);
	dist_of(&s->steady, vs, ns);
	if (s->explained) {
		s->busy_ns /= (double)s->explained;
		s->idle_ns /= (double)s->explained;
		s->kernels /= (double)s->explained;
		s->busy_med_ns /= (double)s->explained;
	}
	if (s->extra_n) {
		s->extra_busy_ns /= (double)s->extra_n;
		s->extra_kernels /= (double)s->extra_n;
	}
	s->lag_ns = nl && nl == s->explained ? lag / (double)nl : NAN;
	s->others_lag_ns = nl && nl == s->explained ? lag_med / (double)nl : NAN;
	s->cause = decide(s);
}

static int cmp_straggle(const void *a, const void *b)
{
	const struct coll_straggle *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->rank_index > y->rank_index) - (x->rank_index < y->rank_index);
}

/* The stragglers of one stage into out. */
static void stage_straggles(struct coll_causes *out, size_t *alloc, const struct coll_result *r,
			    const struct irow *rows, const char *stage, int64_t *v)
{
	size_t *cnt = xcalloc(r->nranks + 1, sizeof(*cnt)), total = 0, first = out->n;

	for (size_t i = 0; i < r->ninstances; i++)
		if (same_stage(rows[i].stage, stage)) {
			total++;
			cnt[r->instances[i].last_rank]++;
		}
	for (size_t k = 0; k < r->nranks; k++) {
		struct coll_straggle *s;

		if (!cnt[k] || (double)cnt[k] < COLL_CAUSE_MIN_SHARE * (double)total)
			continue;
		ALLOC_GROW(out->v, out->n + 1, *alloc);
		s = &out->v[out->n++];
		memset(s, 0, sizeof(*s));
		s->rank_index = k;
		s->stage = stage; /* NULL while rows are read */
		s->instances = total;
		summarise(s, r, rows, v);
		s->stage = stage ? stage : COLL_NO_STAGE;
	}
	qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_straggle);
	if (out->n - first > COLL_CAUSE_MAX_PER_STAGE)
		out->n = first + COLL_CAUSE_MAX_PER_STAGE;
	free(cnt);
}

void coll_causes_compute(const struct coll_result *r, const struct coll_cause_rank *in,
			 struct coll_causes *out)
{
	struct rtab *t;
	struct irow *rows;
	int64_t *tmp, *v;
	const char **stages;
	size_t nst = 0, alloc = 0;

	memset(out, 0, sizeof(*out));
	if (r->nranks < 2 || !r->ninstances)
		return;
	t = xcalloc(r->nranks, sizeof(*t));
	for (size_t k = 0; k < r->nranks; k++)
		rtab_build(&t[k], &in[k]);
	rows = xcalloc(r->ninstances, sizeof(*rows));
	tmp = xmalloc(st_mult(4 * r->nranks, sizeof(*tmp)));
	stages = xcalloc(r->ninstances + 1, sizeof(*stages));
	for (size_t i = 0; i < r->ninstances; i++) {
		size_t s = 0;

		measure(r, in, t, i, &rows[i], tmp);
		while (s < nst && !same_stage(stages[s], rows[i].stage))
			s++;
		if (s == nst)
			stages[nst++] = rows[i].stage;
	}
	v = xmalloc(st_mult(3 * r->ninstances, sizeof(*v)));
	for (size_t s = 0; s < nst; s++) /* stages first seen first; outside them last */
		if (stages[s])
			stage_straggles(out, &alloc, r, rows, stages[s], v);
	for (size_t s = 0; s < nst; s++)
		if (!stages[s])
			stage_straggles(out, &alloc, r, rows, NULL, v);
	free(v);
	free(stages);
	free(tmp);
	free(rows);
	for (size_t k = 0; k < r->nranks; k++)
		rtab_free(&t[k]);
	free(t);
}

void coll_causes_release(struct coll_causes *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
