/* select_pass.c: the one-pass ncu plan and the map from its results back to
 * the trace's launches; see select_pass.h. Pure functions over the launch list,
 * so the tests feed them the launch patterns measured on the GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ncu_kernel.h"
#include "analysis/select_pass.h"
#include "trace/kname.h"
#include "analysis/select.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* A configuration key in the pass's base: the name ncu filters on plus
 * grid and block (ncu's per-launch-config key also holds the shared memory
 * size; one name and grid/block with two sizes would be two keys to ncu and
 * one here, and the map then says so by unexpected results), with how many
 * of its launches from S were seen so far. Few keys (the selected names'
 * configurations), so a linear table. */
struct pass_key {
	char *name;
	int grid[3], block[3];
	size_t seen;
};

struct pass_keys {
	struct pass_key *v;
	size_t n, alloc;
};

static struct pass_key *key_of(struct pass_keys *ks, const struct launch *x, const char *name,
			       int add)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!memcmp(ks->v[i].grid, x->grid, sizeof(x->grid)) &&
		    !memcmp(ks->v[i].block, x->block, sizeof(x->block)) &&
		    !strcmp(ks->v[i].name, name))
			return &ks->v[i];
	if (!add)
		return NULL;
	ALLOC_GROW(ks->v, ks->n + 1, ks->alloc);
	memset(&ks->v[ks->n], 0, sizeof(ks->v[ks->n]));
	ks->v[ks->n].name = xstrdup(name);
	memcpy(ks->v[ks->n].grid, x->grid, sizeof(x->grid));
	memcpy(ks->v[ks->n].block, x->block, sizeof(x->block));
	return &ks->v[ks->n++];
}

static void keys_release(struct pass_keys *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i].name);
	free(ks->v);
}

static int name_selected(const char *name, char **names, size_t nnames)
{
	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* The selected classes' distinct names in base. */
static void pass_names(const struct launch *l, const struct selection *sel,
		       enum select_name_base base, char ***names, size_t *nnames)
{
	struct strbuf t = STRBUF_INIT;
	size_t alloc = 0;

	*names = NULL;
	*nnames = 0;
	for (size_t i = 0; i < sel->nr; i++) {
		const char *nm = select_launch_name(&l[sel->k[i].launch_index], base, &t);

		if (name_selected(nm, *names, *nnames))
			continue;
		ALLOC_GROW(*names, *nnames + 1, alloc);
		(*names)[(*nnames)++] = xstrdup(nm);
	}
	strbuf_release(&t);
}

/* ord[i]: selected class i's ordinal in its key's sequence from s (one
 * walk over the launches, counting per key). */
static void class_ordinals(const struct launch *l, size_t n, size_t s, const struct selection *sel,
			   enum select_name_base base, char **names, size_t nnames, size_t *ord)
{
	struct pass_keys ks = {0};
	struct strbuf t = STRBUF_INIT;

	for (size_t i = s; i < n; i++) {
		const char *nm = select_launch_name(&l[i], base, &t);
		struct pass_key *k;

		if (!name_selected(nm, names, nnames))
			continue;
		k = key_of(&ks, &l[i], nm, 1);
		for (size_t c = 0; c < sel->nr; c++)
			if (sel->k[c].launch_index == i)
				ord[c] = k->seen;
		k->seen++;
	}
	keys_release(&ks);
	strbuf_release(&t);
}

/* The stage's first launch, *s; -1 with err when a selected launch lies
 * outside the stage. */
static int stage_start(const struct launch *l, size_t n, const struct selection *sel, size_t *s,
		       struct strbuf *err)
{
	*s = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (l[i].in_stage) {
			*s = i;
			break;
		}
	for (size_t i = 0; i < sel->nr; i++)
		if (sel->k[i].launch_index >= n || sel->k[i].launch_index < *s)
			return error_set(err, "selected kernel %zu lies outside the stage", i + 1);
	return 0;
}

static char *names_regex(char **names, size_t nnames)
{
	struct strbuf re = STRBUF_INIT;

	strbuf_addstr(&re, "regex:^(");
	for (size_t i = 0; i < nnames; i++) {
		if (i)
			strbuf_addch(&re, '|');
		select_regex_escape(&re, names[i]);
	}
	strbuf_addstr(&re, ")$");
	return strbuf_detach(&re, NULL);
}

static void names_free(char **names, size_t nnames)
{
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
}

/* Appends launch i to the launches ncu is to measure. */
static void expect_add(struct select_pass *p, size_t *alloc, const struct launch *l, size_t i,
		       const char *nm)
{
	struct select_expect *e;
	struct strbuf t = STRBUF_INIT;

	ALLOC_GROW(p->expect, p->nexpect + 1, *alloc);
	e = &p->expect[p->nexpect++];
	e->launch_index = i;
	e->name = xstrdup(nm);
	if (l[i].short_name)
		strbuf_addstr(&t, l[i].short_name);
	else
		kname_base(&t, l[i].name);
	e->display = strbuf_detach(&t, NULL);
	memcpy(e->grid, l[i].grid, sizeof(e->grid));
	memcpy(e->block, l[i].block, sizeof(e->block));
}

/* The selected kernel launch i is measured by, or -1: a launch inside the
 * stage of its class or of a class it stands for (select_kernel_covers). */
static long class_of(const struct launch *l, size_t i, const struct selection *sel)
{
	if (!l[i].in_stage)
		return -1;
	for (size_t c = 0; c < sel->nr; c++)
		if (select_kernel_covers(&sel->k[c], &l[i]))
			return (long)c;
	return -1;
}

/* p's counts of what expect[] holds (select_pass.h). */
static void count_expect(const struct launch *l, const struct selection *sel, struct select_pass *p)
{
	/* each expected launch's selected kernel, found once */
	long *cls = xcalloc(p->nexpect + 1, sizeof(*cls));

	p->selected_measured = p->repeats = p->other_classes = 0;
	for (size_t e = 0; e < p->nexpect; e++)
		cls[e] = class_of(l, p->expect[e].launch_index, sel);
	for (size_t e = 0; e < p->nexpect; e++) {
		const struct launch *x = &l[p->expect[e].launch_index];
		size_t f;

		for (f = 0; f < e; f++) {
			const struct launch *y = &l[p->expect[f].launch_index];

			if (cls[e] >= 0 ? cls[f] == cls[e]
					: select_same_class(y, x) && y->in_stage == x->in_stage)
				break;
		}
		if (f < e)
			p->repeats++;
		else if (cls[e] >= 0)
			p->selected_measured++;
		else
			p->other_classes++;
	}
	free(cls);
}

/* The window form (select_pass.h): the shortest run of the selected names'
 * launches from the stage's first launch s that holds a launch of every
 * selected class; the earliest of the shortest. */
static void plan_window(const struct launch *l, size_t n, size_t s, const struct selection *sel,
			enum select_name_base base, char **names, size_t nnames,
			struct select_pass *p)
{
	struct strbuf t = STRBUF_INIT;
	size_t *m = NULL, nm = 0, m_alloc = 0, before = 0, *have, covered = 0;
	size_t best_lo = 0, best_len = SIZE_MAX, lo = 0, alloc = 0;
	long *cls;

	for (size_t i = 0; i < n; i++) {
		if (!name_selected(select_launch_name(&l[i], base, &t), names, nnames))
			continue;
		if (i < s) {
			before++;
			continue;
		}
		ALLOC_GROW(m, nm + 1, m_alloc);
		m[nm++] = i;
	}
	cls = xcalloc(nm ? nm : 1, sizeof(*cls));
	have = xcalloc(sel->nr, sizeof(*have));
	for (size_t i = 0; i < nm; i++)
		cls[i] = class_of(l, m[i], sel);
	for (size_t hi = 0; hi < nm; hi++) {
		if (cls[hi] >= 0 && !have[cls[hi]]++)
			covered++;
		if (covered < sel->nr)
			continue;
		/* shrink from the left while every class stays in */
		while (cls[lo] < 0 || have[cls[lo]] > 1) {
			if (cls[lo] >= 0)
				have[cls[lo]]--;
			lo++;
		}
		if (hi - lo + 1 < best_len) {
			best_len = hi - lo + 1;
			best_lo = lo;
		}
	}
	/* every selected class has a launch in the stage: a window exists */
	for (size_t i = 0; best_len != SIZE_MAX && i < best_len; i++) {
		size_t x = m[best_lo + i];

		expect_add(p, &alloc, l, x, select_launch_name(&l[x], base, &t));
	}
	p->window = 1;
	p->skip = before + best_lo;
	p->count = p->nexpect;
	free(m);
	free(cls);
	free(have);
	strbuf_release(&t);
}

/* The per-launch-config form (select_pass.h). */
static void plan_per_config(const struct launch *l, size_t n, size_t s, const struct selection *sel,
			    enum select_name_base base, size_t max_count, char **names,
			    size_t nnames, struct select_pass *p)
{
	struct strbuf t = STRBUF_INIT;
	struct pass_keys ks = {0};
	size_t count = 1, ealloc = 0, ualloc = 0;
	size_t *ord;

	/* at least the launches per kernel the user asked for */
	if (sel->k[0].launch_count > count)
		count = sel->k[0].launch_count;
	ord = xcalloc(sel->nr, sizeof(*ord));
	class_ordinals(l, n, s, sel, base, names, nnames, ord);
	for (size_t i = 0; i < sel->nr; i++) {
		if (ord[i] >= max_count) {
			ALLOC_GROW(p->unreached, p->nunreached + 1, ualloc);
			p->unreached[p->nunreached++] = i;
		} else if (ord[i] + 1 > count) {
			count = ord[i] + 1;
		}
	}
	/* what ncu will measure: the first `count` launches from S of every
	 * configuration of every selected name, in launch order */
	for (size_t i = s; i < n; i++) {
		const char *nm = select_launch_name(&l[i], base, &t);
		struct pass_key *k;

		if (!name_selected(nm, names, nnames))
			continue;
		k = key_of(&ks, &l[i], nm, 1);
		if (k->seen++ >= count)
			continue;
		expect_add(p, &ealloc, l, i, nm);
	}
	p->skip_before = s;
	p->count = count;
	free(ord);
	keys_release(&ks);
	strbuf_release(&t);
}

int select_plan_pass(const struct launch *l, size_t n, const struct selection *sel,
		     enum select_name_base base, size_t max_count, enum select_pass_mode mode,
		     struct select_pass *p, struct strbuf *err)
{
	struct select_pass w = SELECT_PASS_INIT;
	char **names = NULL;
	size_t nnames = 0, s;

	memset(p, 0, sizeof(*p));
	if (!sel->nr || !max_count)
		return error_set(err, "nothing selected for the ncu pass");
	if (stage_start(l, n, sel, &s, err))
		return -1;
	pass_names(l, sel, base, &names, &nnames);
	if (mode != SELECT_PASS_WINDOW)
		plan_per_config(l, n, s, sel, base, max_count, names, nnames, p);
	if (mode == SELECT_PASS_WINDOW ||
	    (mode == SELECT_PASS_AUTO && sel->k[0].launch_count <= 1)) {
		plan_window(l, n, s, sel, base, names, nnames, &w);
		size_t nw = w.nexpect, nc = p->nexpect;

		size_t nc_cost = nc + p->nunreached * SELECT_PASS_RUN_RESULTS;

		if (mode == SELECT_PASS_WINDOW || nw < nc_cost) {
			select_pass_release(p);
			*p = w;
			p->other_form_expect = mode == SELECT_PASS_WINDOW ? 0 : nc;
		} else {
			select_pass_release(&w);
			p->other_form_expect = nw;
		}
	}
	p->kernel_name = names_regex(names, nnames);
	count_expect(l, sel, p);
	names_free(names, nnames);
	return 0;
}

void select_pass_release(struct select_pass *p)
{
	for (size_t i = 0; i < p->nexpect; i++) {
		free(p->expect[i].name);
		free(p->expect[i].display);
	}
	free(p->kernel_name);
	free(p->expect);
	free(p->unreached);
	memset(p, 0, sizeof(*p));
}

size_t select_pass_map(const struct select_pass *p, const struct select_result_key *r, size_t nr,
		       size_t *out)
{
	unsigned char *used = p->nexpect ? xcalloc(p->nexpect, 1) : NULL;
	size_t mapped = 0;

	for (size_t i = 0; i < nr; i++) {
		out[i] = SIZE_MAX;
		if (!r[i].name)
			continue;
		/* ncu measures each key's launches in launch order */
		for (size_t e = 0; e < p->nexpect; e++) {
			const struct select_expect *x = &p->expect[e];

			if (used[e] || memcmp(x->grid, r[i].grid, sizeof(x->grid)) ||
			    memcmp(x->block, r[i].block, sizeof(x->block)) ||
			    strcmp(x->name, r[i].name))
				continue;
			used[e] = 1;
			out[i] = x->launch_index;
			mapped++;
			break;
		}
	}
	free(used);
	return mapped;
}
