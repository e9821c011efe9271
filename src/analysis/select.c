/* select.c: kernel selection for deep mode; see select.h. */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/select.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "trace/kname.h"
#include "core/banned.h"

void select_regex_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (strchr(".[]()*+?{}|^$\\/", *s))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
}

static int is_nccl(const char *name)
{
	for (const char *p = name; *p; p++)
		if (tolower((unsigned char)p[0]) == 'n' && tolower((unsigned char)p[1]) == 'c' &&
		    tolower((unsigned char)p[2]) == 'c' && tolower((unsigned char)p[3]) == 'l')
			return 1;
	return 0;
}

struct cand {
	size_t first; /* first in-stage launch */
	size_t calls;
	double total;
	int excluded; /* 1 pattern, 2 nccl */
	int taken;    /* selected, or the same work of a selected kernel */
};

/* A component of an operator path made of digits only, from p to its dot
 * or end: its length, else 0. */
static size_t index_component(const char *p)
{
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n && (p[n] == '.' || p[n] == '\0' || p[n] == ' ') ? n : 0;
}

int select_same_op(const char *a, const char *b)
{
	if (a == b)
		return 1;
	if (!a || !b)
		return 0;
	/* model.layers.3.mlp and model.layers.11.mlp are one operator: a
	 * repeated layer's index is where it sits, not what it does, and
	 * counting each layer as a class of its own would split every kernel
	 * of a PyTorch program's layers into as many classes as it has
	 * layers (the selection's top_n then stops far short of its
	 * coverage). A component starts the string or follows a dot. */
	for (int start = 1;;) {
		size_t na = start ? index_component(a) : 0, nb = start ? index_component(b) : 0;

		if (na && nb) {
			a += na;
			b += nb;
			start = 0;
			continue;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		start = *a == '.';
		a++;
		b++;
	}
}

int select_same_class(const struct launch *a, const struct launch *b)
{
	return !strcmp(a->name, b->name) && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block)) && a->device == b->device &&
	       select_same_op(a->op, b->op);
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int compile_all(const char *const *pats, size_t n, regex_t **out, struct strbuf *err)
{
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++) {
		int rc = regcomp(&(*out)[i], pats[i], REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &(*out)[i], msg, sizeof(msg));
			for (size_t j = 0; j < i; j++)
				regfree(&(*out)[j]);
			FREE_AND_NULL(*out);
			return error_set(err, "kernel pattern '%s': %s", pats[i], msg);
		}
	}
	return 0;
}

static int any_match(regex_t *re, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!regexec(&re[i], s, 0, NULL, 0))
			return 1;
	return 0;
}

const char *select_launch_name(const struct launch *l, enum select_name_base base,
			       struct strbuf *tmp)
{
	if (base == SELECT_BASE_DEMANGLED)
		return l->name;
	if (base == SELECT_BASE_MANGLED && l->mangled)
		return l->mangled;
	if (l->short_name)
		return l->short_name;
	strbuf_reset(tmp);
	kname_base(tmp, l->name);
	return tmp->buf;
}

enum select_name_base select_best_base(const struct launch *l, size_t n,
				       enum select_name_base fallback)
{
	if (!n)
		return fallback;
	for (size_t i = 0; i < n; i++)
		if (!l[i].mangled || !*l[i].mangled)
			return fallback;
	return SELECT_BASE_MANGLED;
}

const char *select_base_name(enum select_name_base base)
{
	return base == SELECT_BASE_FUNCTION  ? "function"
	       : base == SELECT_BASE_MANGLED ? "mangled"
					     : "demangled";
}

/* Whether s is launch f's kernel, launch configuration and device. The
 * configuration first: it rules out most without a strcmp. */
static int selected_is_kernel(const struct selected_kernel *s, const struct launch *f)
{
	return !memcmp(s->grid, f->grid, sizeof(s->grid)) &&
	       !memcmp(s->block, f->block, sizeof(s->block)) && s->device == f->device &&
	       !strcmp(s->name, f->name);
}

/* The selected kernel whose class is the same work as candidate c: the
 * same kernel, configuration and device, with a mean launch duration
 * within tol of its own (the closest such); NULL when none or tol is 0. */
static struct selected_kernel *same_work_of(struct selection *sel, const struct launch *l,
					    const struct cand *c, double tol)
{
	const struct launch *f = &l[c->first];
	struct selected_kernel *best = NULL;
	double mean = c->calls ? c->total / (double)c->calls : 0, best_d = 0;

	if (!(tol > 0))
		return NULL;
	for (size_t k = 0; k < sel->nr; k++) {
		struct selected_kernel *s = &sel->k[k];
		double m = s->calls ? s->total_ns / (double)s->calls : 0, d = fabs(mean - m);

		if (!selected_is_kernel(s, f))
			continue;
		if (d <= tol * m && (!best || d < best_d)) {
			best = s;
			best_d = d;
		}
	}
	return best;
}

/* The launch s measures: the earliest in the stage of its own class and
 * the classes it stands for (a pass counting launches per configuration
 * reaches it first), and ncu's filters for it. ncu counts launches that
 * pass all its filters: the name filter matches any launch configuration
 * of this name, and an NVTX include hides launches outside the range. */
static void set_measured_launch(struct selected_kernel *s, const struct launch *l,
				const struct select_opts *o, struct strbuf *tmp,
				struct strbuf *tmp2)
{
	struct strbuf re = STRBUF_INIT;
	const char *bn;
	size_t skip = 0;

	for (size_t w = 0; w < s->nr_same; w++)
		if (s->same[w].first < s->launch_index)
			s->launch_index = s->same[w].first;
	bn = select_launch_name(&l[s->launch_index], o->base, tmp);
	for (size_t i = 0; i < s->launch_index; i++) {
		if (o->nvtx_gated && !l[i].in_stage)
			continue;
		if (!strcmp(select_launch_name(&l[i], o->base, tmp2), bn))
			skip++;
	}
	s->launch_skip = skip;
	strbuf_addstr(&re, "regex:^");
	select_regex_escape(&re, bn);
	strbuf_addch(&re, '$');
	s->kernel_name = strbuf_detach(&re, NULL);
	strbuf_addstr(&re, "::regex:^");
	select_regex_escape(&re, bn);
	strbuf_addf(&re, "$:%zu", skip + 1);
	s->kernel_id = strbuf_detach(&re, NULL);
}

int select_kernel_covers(const struct selected_kernel *k, const struct launch *l)
{
	if (!selected_is_kernel(k, l))
		return 0;
	if (select_same_op(k->op, l->op))
		return 1;
	for (size_t w = 0; w < k->nr_same; w++)
		if (select_same_op(k->same[w].op, l->op))
			return 1;
	return 0;
}

static int same_kernel_config(const struct launch *a, const struct launch *b)
{
	return !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block)) && a->device == b->device &&
	       !strcmp(a->name, b->name);
}

/* Records candidate c as the same work of selected kernel s. */
static void add_same_work(struct selection *sel, struct selected_kernel *s, const struct launch *l,
			  struct cand *c)
{
	struct select_same_work *w;

	ALLOC_GROW(s->same, s->nr_same + 1, s->alloc_same);
	w = &s->same[s->nr_same++];
	w->op = l[c->first].op ? xstrdup(l[c->first].op) : NULL;
	w->calls = c->calls;
	w->total_ns = c->total;
	w->first = c->first;
	sel->merged++;
	sel->merged_ns += c->total;
	sel->covered_ns += c->total;
	c->taken = 1;
}

/* Takes candidate c: the same work of a selected kernel, or selected; -1
 * when it would be selected past o->top_n. Its launch and filters are set
 * once every class is taken (set_measured_launch). */
static int take_cand(struct selection *sel, const struct launch *l, struct cand *c,
		     const struct select_opts *o)
{
	const struct launch *f = &l[c->first];
	struct selected_kernel *s;
	struct strbuf sn = STRBUF_INIT;

	if ((s = same_work_of(sel, l, c, o->merge_tolerance))) {
		add_same_work(sel, s, l, c);
		return 0;
	}
	if (sel->nr >= o->top_n)
		return -1;
	ALLOC_GROW(sel->k, sel->nr + 1, sel->alloc);
	s = &sel->k[sel->nr++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(f->name);
	s->op = f->op ? xstrdup(f->op) : NULL;
	if (f->short_name)
		strbuf_addstr(&sn, f->short_name);
	else
		kname_base(&sn, f->name);
	s->short_name = strbuf_detach(&sn, NULL);
	memcpy(s->grid, f->grid, sizeof(s->grid));
	memcpy(s->block, f->block, sizeof(s->block));
	s->device = f->device;
	s->calls = c->calls;
	s->total_ns = c->total;
	s->share = sel->stage_ns > 0 ? c->total / sel->stage_ns : 0;
	s->launch_index = c->first;
	s->launch_count = o->launch_count;
	sel->covered_ns += c->total;
	c->taken = 1;
	return 0;
}

/* A class without an operator whose kernel and configuration ran under two
 * or more operators too, its mean duration between theirs (widened by the
 * tolerance), is their launches from where the ranges were off: auto turns
 * PyTorch's module ranges off part of the way through a stage, and the
 * mixture's mean then sits between the shapes it mixes. Its launches lie
 * where the operator classes' do not, so a result of its own would make the
 * one pass span the switch (53 results for 27 classes on an H200,
 * bench/results/ncu-deep-time-h200-run5.md). Such a class takes its
 * operator classes (in rank order; with may_select 0, only when every one is
 * taken already) and becomes the same work of the selected kernel nearest
 * its mean. 0 (c[k].taken says whether it was), or -1 when a part would be
 * selected past o->top_n. */
static int take_mixture(struct selection *sel, const struct launch *l, struct cand *c, size_t nc,
			size_t k, const struct select_opts *o, int may_select)
{
	const struct launch *f = &l[c[k].first];
	double mean = c[k].total / (double)c[k].calls, lo = INFINITY, hi = 0, best_d = INFINITY;
	double tol = o->merge_tolerance;
	struct selected_kernel *best = NULL;
	size_t parts = 0;

	if (f->op || !(tol > 0))
		return 0;
	for (size_t j = 0; j < nc; j++) {
		double m = c[j].total / (double)c[j].calls;

		if (j == k || c[j].excluded || !l[c[j].first].op ||
		    !same_kernel_config(f, &l[c[j].first]))
			continue;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
		parts++;
	}
	if (parts < 2 || mean < lo * (1 - tol) || mean > hi * (1 + tol))
		return 0;
	for (size_t j = 0; j < nc && !may_select; j++)
		if (j != k && !c[j].taken && !c[j].excluded && l[c[j].first].op &&
		    same_kernel_config(f, &l[c[j].first]))
			return 0;
	for (size_t j = 0; j < nc; j++)
		if (j != k && !c[j].taken && !c[j].excluded && l[c[j].first].op &&
		    same_kernel_config(f, &l[c[j].first]) && take_cand(sel, l, &c[j], o))
			return -1;
	for (size_t s = 0; s < sel->nr; s++) {
		double d = fabs(mean - sel->k[s].total_ns / (double)sel->k[s].calls);

		if (selected_is_kernel(&sel->k[s], f) && d < best_d) {
			best = &sel->k[s];
			best_d = d;
		}
	}
	if (best)
		add_same_work(sel, best, l, &c[k]);
	return 0;
}

int select_kernels(const struct launch *l, size_t n, const struct select_opts *o,
		   struct selection *sel, struct strbuf *err)
{
	struct cand *c = NULL;
	size_t nc = 0, alloc = 0;
	regex_t *inc = NULL, *exc = NULL;
	struct strbuf tmp = STRBUF_INIT, tmp2 = STRBUF_INIT;
	int ret = -1;

	memset(sel, 0, sizeof(*sel));
	if (!(o->coverage > 0 && o->coverage <= 1)) {
		error_set(err, "run.coverage %g is outside (0, 1]", o->coverage);
		goto out;
	}
	if (!o->top_n || !o->launch_count) {
		error_set(err, "run.top_n_kernels and the launch count must be at least 1");
		goto out;
	}
	if (o->merge_tolerance < 0 || isnan(o->merge_tolerance)) {
		error_set(err, "run.same_work_tolerance %g is negative", o->merge_tolerance);
		goto out;
	}
	if (compile_all(o->include, o->nr_include, &inc, err) ||
	    compile_all(o->exclude, o->nr_exclude, &exc, err))
		goto out;
	sel->target_coverage = o->coverage;
	sel->top_n = o->top_n;

	/* Distinct kernels of the stage, with their time. */
	for (size_t i = 0; i < n; i++) {
		double d = (double)(l[i].end - l[i].start);
		size_t j;

		if (!l[i].in_stage)
			continue;
		if (d < 0)
			d = 0;
		sel->stage_launches++;
		sel->stage_ns += d;
		for (j = nc; j > 0; j--)
			if (select_same_class(&l[c[j - 1].first], &l[i]))
				break;
		if (!j) {
			ALLOC_GROW(c, nc + 1, alloc);
			memset(&c[nc], 0, sizeof(c[nc]));
			c[nc].first = i;
			if (is_nccl(l[i].name))
				c[nc].excluded = 2;
			else if ((o->nr_include && !any_match(inc, o->nr_include, l[i].name)) ||
				 any_match(exc, o->nr_exclude, l[i].name))
				c[nc].excluded = 1; /* exclude wins over include */
			j = ++nc;
		}
		c[j - 1].calls++;
		c[j - 1].total += d;
	}
	sel->distinct = nc;
	if (nc)
		qsort(c, nc, sizeof(*c), cand_cmp);

	for (size_t k = 0; k < nc; k++) {
		if (c[k].taken)
			continue;
		if (c[k].excluded == 2) {
			sel->nccl_kernels++;
			sel->nccl_ns += c[k].total;
			continue;
		}
		if (c[k].excluded) {
			sel->excluded_kernels++;
			sel->excluded_ns += c[k].total;
			continue;
		}
		if (sel->stage_ns > 0 && sel->covered_ns >= o->coverage * sel->stage_ns) {
			sel->stop_reason = xstrdup("coverage reached");
			break;
		}
		if (take_mixture(sel, l, c, nc, k, o, 1) ||
		    (!c[k].taken && take_cand(sel, l, &c[k], o))) {
			sel->stop_reason = xstrdup("top_n reached");
			break;
		}
	}
	/* Past the stop, classes a selected kernel's result stands for anyway
	 * (its same work, or a mixture of taken classes) cost no result: they
	 * are covered too, and their launches can be measured earlier (the
	 * group's first), which keeps the one pass from spanning the point
	 * where the ranges went off. */
	for (size_t k = 0; k < nc; k++) {
		struct selected_kernel *s;

		if (c[k].taken || c[k].excluded)
			continue;
		if ((s = same_work_of(sel, l, &c[k], o->merge_tolerance)))
			add_same_work(sel, s, l, &c[k]);
		else
			take_mixture(sel, l, c, nc, k, o, 0);
	}
	for (size_t k = 0; k < sel->nr; k++)
		set_measured_launch(&sel->k[k], l, o, &tmp, &tmp2);
	if (!sel->stop_reason)
		sel->stop_reason =
		    xstrdup(sel->stage_ns > 0 && sel->covered_ns >= o->coverage * sel->stage_ns
				? "coverage reached"
				: "no more kernels");
	sel->coverage = sel->stage_ns > 0 ? sel->covered_ns / sel->stage_ns : 0;
	ret = 0;
out:
	for (size_t i = 0; inc && i < o->nr_include; i++)
		regfree(&inc[i]);
	for (size_t i = 0; exc && i < o->nr_exclude; i++)
		regfree(&exc[i]);
	free(inc);
	free(exc);
	free(c);
	strbuf_release(&tmp);
	strbuf_release(&tmp2);
	if (ret)
		selection_release(sel);
	return ret;
}

void selection_release(struct selection *sel)
{
	for (size_t i = 0; i < sel->nr; i++) {
		free(sel->k[i].name);
		free(sel->k[i].short_name);
		free(sel->k[i].op);
		free(sel->k[i].kernel_name);
		free(sel->k[i].kernel_id);
		for (size_t w = 0; w < sel->k[i].nr_same; w++)
			free(sel->k[i].same[w].op);
		free(sel->k[i].same);
	}
	free(sel->k);
	free(sel->stop_reason);
	memset(sel, 0, sizeof(*sel));
}
