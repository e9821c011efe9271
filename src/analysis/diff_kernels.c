/* diff_kernels.c: the kernel, operator, waterfall and rank parts of `llmprof
 * diff` (see diff.h).
 *
 * Kernels: each side's kernels are merged by demangled name over its runs
 * (numbers per run), then matched in passes over what is still unmatched:
 * the same mangled name, the same demangled name, the same family
 * (diff_family()), the same operator; each pass groups every unmatched
 * kernel of one key on each side into one row. What is left is new (B
 * only) or gone (A only), one row each. Rows are ranked by the change of
 * their exposed time inside the stages (report_kernel.stage_exposed_ns):
 * a kernel that only waited less for its predecessor (programmatic
 * dependent launch) or overlapped another stream's kernels differently
 * does not move, and launches outside every stage (warm-up, CUDA-graph
 * capture) are kept apart. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/diff_priv.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/kname.h"
#include "core/banned.h"

/* ----------------------------------------------------------- family */

static int is_arch(const char *p, size_t n)
{
	static const char *const arch[] = {"ampere", "hopper",	  "volta",   "turing",
					   "ada",    "blackwell", "maxwell", "pascal"};

	if (n > 2 && p[0] == 's' && p[1] == 'm' && isdigit((unsigned char)p[2]))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(arch); i++)
		if (strlen(arch[i]) == n && !strncmp(p, arch[i], n))
			return 1;
	return 0;
}

/* Length of a trailing tile shape (64x8, 128x128x32) or number of the
 * token [p, p + n): digits with at least one 'x' between, or digits alone. */
static size_t shape_tail(const char *p, size_t n)
{
	size_t i = n, start = n;

	while (i > 0) {
		size_t j = i;

		while (j > 0 && isdigit((unsigned char)p[j - 1]))
			j--;
		if (j == i)
			break;
		start = j;
		if (j > 0 && p[j - 1] == 'x' && j > 1 && isdigit((unsigned char)p[j - 2]))
			i = j - 1;
		else
			break;
	}
	if (start == n)
		return 0;
	/* a dtype such as bf16, f32, int8 keeps its digits: only a shape (with
	 * an 'x') or a whole-number token goes */
	if (start > 0 && !memchr(p + start, 'x', n - start))
		return 0;
	return n - start;
}

void diff_family(const char *name, struct strbuf *out)
{
	struct strbuf base = STRBUF_INIT;
	const char *p;

	/* the qualified name: namespaces count, the anonymous one (spelled
	 * differently by nsys and the tracer) does not */
	kname_display(&base, name ? name : "", KNAME_SCOPE, SIZE_MAX);
	p = base.buf;
	while (*p) {
		size_t n = 0, tail;

		if (!isalnum((unsigned char)*p)) {
			strbuf_addch(out, *p++);
			continue;
		}
		while (isalnum((unsigned char)p[n]))
			n++;
		if (is_arch(p, n)) {
			strbuf_addch(out, '*');
		} else if ((tail = shape_tail(p, n))) {
			strbuf_add(out, p, n - tail);
			strbuf_addch(out, '*');
		} else {
			strbuf_add(out, p, n);
		}
		p += n;
	}
	strbuf_release(&base);
}

/* ---------------------------------------------------------- kernels */

struct kent {
	const char *name, *mangled, *op;
	char *family;
	double calls, ns;
	double stage_calls[REPORT_ROLE_OTHER], stage_ns[REPORT_ROLE_OTHER];
	double exp_ns[REPORT_ROLE_OTHER];
	const struct report_counters *c;
	int used;
};

static int cmp_kent_name(const void *x, const void *y)
{
	return strcmp(((const struct kent *)x)->name, ((const struct kent *)y)->name);
}

/* A side's kernels, merged by name over its runs, per run. */
static struct kent *side_kernels(const struct diff_input *in, size_t *n)
{
	size_t total = 0, k = 0;
	struct kent *v;

	for (size_t r = 0; r < in->nr; r++)
		total += in->runs[r]->nr_kernels;
	v = xcalloc(total + 1, sizeof(*v));
	for (size_t r = 0; r < in->nr; r++)
		for (size_t i = 0; i < in->runs[r]->nr_kernels; i++) {
			const struct report_kernel *rk = &in->runs[r]->kernels[i];

			v[k].name = rk->short_name ? rk->short_name : "(unnamed)";
			v[k].mangled = rk->mangled;
			v[k].op = rk->op;
			v[k].calls = (double)rk->calls;
			v[k].ns = (double)rk->total_ns;
			for (int s = 0; s < REPORT_ROLE_OTHER; s++) {
				v[k].stage_calls[s] = (double)rk->stage_calls[s];
				v[k].stage_ns[s] = (double)rk->stage_ns[s];
				v[k].exp_ns[s] = (double)rk->stage_exposed_ns[s];
			}
			v[k].c = rk->c->profiled ? rk->c : NULL;
			k++;
		}
	qsort(v, k, sizeof(*v), cmp_kent_name);
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		struct kent *o = *n ? &v[*n - 1] : NULL;

		if (o && !strcmp(o->name, v[i].name)) {
			o->calls += v[i].calls;
			o->ns += v[i].ns;
			for (int s = 0; s < REPORT_ROLE_OTHER; s++) {
				o->stage_calls[s] += v[i].stage_calls[s];
				o->stage_ns[s] += v[i].stage_ns[s];
				o->exp_ns[s] += v[i].exp_ns[s];
			}
			if (!o->c)
				o->c = v[i].c;
			if (!o->mangled)
				o->mangled = v[i].mangled;
			if (!o->op)
				o->op = v[i].op;
		} else {
			v[(*n)++] = v[i];
		}
	}
	for (size_t i = 0; i < *n; i++) {
		struct strbuf f = STRBUF_INIT;

		v[i].calls /= (double)in->nr;
		v[i].ns /= (double)in->nr;
		for (int s = 0; s < REPORT_ROLE_OTHER; s++) {
			v[i].stage_calls[s] /= (double)in->nr;
			v[i].stage_ns[s] /= (double)in->nr;
			v[i].exp_ns[s] /= (double)in->nr;
		}
		diff_family(v[i].name, &f);
		v[i].family = strbuf_detach(&f, NULL);
	}
	return v;
}

enum pass_key { KEY_MANGLED, KEY_NAME, KEY_FAMILY, KEY_OP };

static const char *key_of(const struct kent *e, enum pass_key k)
{
	switch (k) {
	case KEY_MANGLED:
		return e->mangled;
	case KEY_NAME:
		return e->name;
	case KEY_FAMILY:
		return e->family;
	case KEY_OP:
		return e->op;
	}
	return NULL;
}

struct kref {
	struct kent *e;
	const char *key;
};

static int cmp_kref(const void *x, const void *y)
{
	return strcmp(((const struct kref *)x)->key, ((const struct kref *)y)->key);
}

/* The unused entries that have a key, sorted by it. */
static struct kref *keyed(struct kent *v, size_t n, enum pass_key k, size_t *nr)
{
	struct kref *r = xmalloc(st_mult(n + 1, sizeof(*r)));

	*nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!v[i].used && key_of(&v[i], k)) {
			r[*nr].e = &v[i];
			r[(*nr)++].key = key_of(&v[i], k);
		}
	qsort(r, *nr, sizeof(*r), cmp_kref);
	return r;
}

struct rows {
	struct diff_kernel *v;
	size_t nr, alloc;
};

static double sum_roles(const double *v)
{
	double t = 0;

	for (int s = 0; s < REPORT_ROLE_OTHER; s++)
		t += v[s];
	return t;
}

/* Whether x has more time than the best so far: inside the stages, then
 * over the whole run. */
static int more_time(const struct kent *x, const struct kent *best)
{
	double ex = sum_roles(x->stage_ns), eb;

	if (!best)
		return 1;
	eb = sum_roles(best->stage_ns);
	return ex != eb ? ex > eb : x->ns > best->ns;
}

/* Sums entries [e, e + n) into one side of a row; the kernel with the most
 * time. */
static const struct kent *sum_side(struct kent *const *e, size_t n, double *calls, double *ns,
				   double *stage_calls, double *stage_ns, double *exp_ns,
				   double *out_calls, double *out_ns)
{
	const struct kent *best = NULL;

	for (size_t i = 0; i < n; i++) {
		e[i]->used = 1;
		*calls += e[i]->calls;
		*ns += e[i]->ns;
		for (int s = 0; s < REPORT_ROLE_OTHER; s++) {
			stage_calls[s] += e[i]->stage_calls[s];
			stage_ns[s] += e[i]->stage_ns[s];
			exp_ns[s] += e[i]->exp_ns[s];
		}
		if (more_time(e[i], best))
			best = e[i];
	}
	/* a launch inside two stages (nested ranges) counts in both: never
	 * below 0 outside */
	*out_calls = *calls - sum_roles(stage_calls);
	*out_ns = *ns - sum_roles(stage_ns);
	if (*out_calls < 0)
		*out_calls = 0;
	if (*out_ns < 0)
		*out_ns = 0;
	return best;
}

/* Adds entries [a, a + na) and [b, b + nb) as one row. */
static void add_row(struct rows *rs, enum diff_match match, struct kent *const *a, size_t na,
		    struct kent *const *b, size_t nb)
{
	struct diff_kernel *r;
	const struct kent *ba, *bb;

	ALLOC_GROW(rs->v, rs->nr + 1, rs->alloc);
	r = &rs->v[rs->nr++];
	memset(r, 0, sizeof(*r));
	r->match = match;
	ba = sum_side(a, na, &r->calls_a, &r->ns_a, r->stage_calls_a, r->stage_ns_a, r->exp_ns_a,
		      &r->out_calls_a, &r->out_ns_a);
	bb = sum_side(b, nb, &r->calls_b, &r->ns_b, r->stage_calls_b, r->stage_ns_b, r->exp_ns_b,
		      &r->out_calls_b, &r->out_ns_b);
	r->kernels_a = na;
	r->kernels_b = nb;
	r->delta_ns = sum_roles(r->exp_ns_b) - sum_roles(r->exp_ns_a);
	r->name_a = ba ? xstrdup(ba->name) : NULL;
	r->name_b = bb ? xstrdup(bb->name) : NULL;
	r->family = xstrdup(ba ? ba->family : bb->family);
	r->op = (ba && ba->op) ? xstrdup(ba->op) : (bb && bb->op) ? xstrdup(bb->op) : NULL;
	if (ba && ba->c)
		r->ca = *ba->c;
	if (bb && bb->c)
		r->cb = *bb->c;
}

/* One matching pass: every key both sides have becomes one row. */
static void match_pass(struct rows *rs, struct kent *va, size_t na, struct kent *vb, size_t nb,
		       enum pass_key k, enum diff_match match)
{
	size_t nra, nrb, i = 0, j = 0;
	struct kref *ra = keyed(va, na, k, &nra), *rb = keyed(vb, nb, k, &nrb);
	struct kent **ga = xmalloc(st_mult(nra + 1, sizeof(*ga)));
	struct kent **gb = xmalloc(st_mult(nrb + 1, sizeof(*gb)));

	while (i < nra && j < nrb) {
		int c = strcmp(ra[i].key, rb[j].key);
		size_t ia = 0, ib = 0;
		const char *key;

		if (c) {
			c < 0 ? i++ : j++;
			continue;
		}
		key = ra[i].key;
		while (i < nra && !strcmp(ra[i].key, key))
			ga[ia++] = ra[i++].e;
		while (j < nrb && !strcmp(rb[j].key, key))
			gb[ib++] = rb[j++].e;
		add_row(rs, match, ga, ia, gb, ib);
	}
	free(ga);
	free(gb);
	free(ra);
	free(rb);
}

static int cmp_row(const void *x, const void *y)
{
	const struct diff_kernel *a = x, *b = y;
	double da = fabs(a->delta_ns), db = fabs(b->delta_ns);

	if (da != db)
		return da < db ? 1 : -1;
	/* no change inside the stages: by the change outside them */
	da = fabs(a->out_ns_b - a->out_ns_a);
	db = fabs(b->out_ns_b - b->out_ns_a);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name_a ? a->name_a : a->name_b, b->name_a ? b->name_a : b->name_b);
}

static void compute_kernels(const struct diff_input *a, const struct diff_input *b, struct diff *d)
{
	size_t na, nb;
	struct kent *va = side_kernels(a, &na), *vb = side_kernels(b, &nb);
	struct rows rs = {NULL, 0, 0};

	match_pass(&rs, va, na, vb, nb, KEY_MANGLED, DIFF_MATCH_MANGLED);
	match_pass(&rs, va, na, vb, nb, KEY_NAME, DIFF_MATCH_NAME);
	match_pass(&rs, va, na, vb, nb, KEY_FAMILY, DIFF_MATCH_FAMILY);
	match_pass(&rs, va, na, vb, nb, KEY_OP, DIFF_MATCH_OPERATOR);
	for (size_t i = 0; i < na; i++)
		if (!va[i].used) {
			struct kent *e = &va[i];

			add_row(&rs, DIFF_MATCH_GONE, &e, 1, NULL, 0);
			d->nr_gone++;
		}
	for (size_t i = 0; i < nb; i++)
		if (!vb[i].used) {
			struct kent *e = &vb[i];

			add_row(&rs, DIFF_MATCH_NEW, NULL, 0, &e, 1);
			d->nr_new++;
		}
	for (size_t i = 0; i < rs.nr; i++) {
		d->nr_changed +=
		    rs.v[i].match == DIFF_MATCH_FAMILY || rs.v[i].match == DIFF_MATCH_OPERATOR;
		d->out_calls_a += rs.v[i].out_calls_a;
		d->out_calls_b += rs.v[i].out_calls_b;
		d->out_ns_a += rs.v[i].out_ns_a;
		d->out_ns_b += rs.v[i].out_ns_b;
	}
	qsort(rs.v, rs.nr, sizeof(*rs.v), cmp_row);
	d->kernels = rs.v;
	d->nr_kernels = rs.nr;
	for (size_t i = 0; i < na; i++)
		free(va[i].family);
	for (size_t i = 0; i < nb; i++)
		free(vb[i].family);
	free(va);
	free(vb);
}

/* ---------------------------------------------------------- waterfall */

static double ns_of(struct rnum ms)
{
	return (double)llround(ms.v * 1e6);
}

/* A side's mean stage GPU time and idle (ns per run); 0 when a run lacks
 * them. */
static int side_stage(const struct diff_input *in, enum report_role role, double *gpu, double *idle)
{
	*gpu = *idle = 0;
	for (size_t r = 0; r < in->nr; r++) {
		const struct report_stage *s = report_model_stage_by_role(in->runs[r], role);

		if (!s || !s->gpu_ms.available || !s->idle_ms.available)
			return 0;
		*gpu += ns_of(s->gpu_ms);
		*idle += ns_of(s->idle_ms);
	}
	*gpu /= (double)in->nr;
	*idle /= (double)in->nr;
	return 1;
}

struct contrib {
	const struct diff_kernel *k;
	double d;
};

static int cmp_contrib(const void *x, const void *y)
{
	const struct contrib *a = x, *b = y;

	if (fabs(a->d) != fabs(b->d))
		return fabs(a->d) < fabs(b->d) ? 1 : -1;
	return strcmp(a->k->name_a ? a->k->name_a : a->k->name_b,
		      b->k->name_a ? b->k->name_a : b->k->name_b);
}

static void fall_add(struct diff_waterfall *w, const char *label, double d)
{
	w->rows = xrealloc(w->rows, st_mult(w->nr + 1, sizeof(*w->rows)));
	w->rows[w->nr].label = xstrdup(label);
	w->rows[w->nr++].delta_ns = d;
}

/* Stage delta = sum of the kernel rows' exposed-time deltas inside the
 * stage + the other GPU work (busy minus exposed kernel time: copies and
 * memsets no kernel covers) + idle. Exposed times do not overlap (each is
 * what a kernel adds to the device's busy time), so a kernel that started
 * early and waited (PDL) or ran beside another stream's is not counted
 * twice. Every term is a difference of per-side values, so they sum to the
 * stage's delta (exactly, in ns, with one run a side). */
static void compute_fall(const struct diff_input *a, const struct diff_input *b, size_t top,
			 enum report_role role, struct diff *d)
{
	struct diff_waterfall *w = &d->falls[role];
	double ga, ia, gb, ib, ka = 0, kb = 0, rest = 0;
	struct contrib *c;
	size_t n = 0, nrest = 0;

	w->role = role;
	if (!side_stage(a, role, &ga, &ia) || !side_stage(b, role, &gb, &ib))
		return;
	w->available = 1;
	w->a_ns = ga;
	w->b_ns = gb;
	w->delta_ns = gb - ga;
	c = xmalloc(st_mult(d->nr_kernels + 1, sizeof(*c)));
	for (size_t i = 0; i < d->nr_kernels; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		ka += k->exp_ns_a[role];
		kb += k->exp_ns_b[role];
		if (k->exp_ns_a[role] != 0 || k->exp_ns_b[role] != 0) {
			c[n].k = k;
			c[n++].d = k->exp_ns_b[role] - k->exp_ns_a[role];
		}
	}
	qsort(c, n, sizeof(*c), cmp_contrib);
	for (size_t i = 0; i < n; i++) {
		if (i < top) {
			fall_add(w, c[i].k->name_b ? c[i].k->name_b : c[i].k->name_a, c[i].d);
		} else {
			rest += c[i].d;
			nrest++;
		}
	}
	if (nrest) {
		struct strbuf l = STRBUF_INIT;

		strbuf_addf(&l, "other kernels (%zu)", nrest);
		fall_add(w, l.buf, rest);
		strbuf_release(&l);
	}
	fall_add(w, DIFF_OTHER_WORK, (gb - ib - kb) - (ga - ia - ka));
	fall_add(w, "GPU idle", ib - ia);
	free(c);
}

void diff_compute_kernels(const struct diff_input *a, const struct diff_input *b, size_t top,
			  struct diff *d)
{
	compute_kernels(a, b, d);
	for (int r = 0; r < REPORT_ROLE_OTHER; r++)
		compute_fall(a, b, top, (enum report_role)r, d);
	diff_compute_parts(a, b, d);
}
