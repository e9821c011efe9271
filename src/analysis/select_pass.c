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

int select_plan_pass(const struct launch *l, size_t n, const struct selection *sel,
		     enum select_name_base base, size_t max_count, struct select_pass *p,
		     struct strbuf *err)
{
	struct strbuf t = STRBUF_INIT, re = STRBUF_INIT;
	struct pass_keys ks = {0};
	char **names = NULL;
	size_t nnames = 0, s = SIZE_MAX, count = 1, ealloc = 0, ualloc = 0;
	size_t *ord;
	struct select_expect *e;

	memset(p, 0, sizeof(*p));
	if (!sel->nr || !max_count)
		return error_set(err, "nothing selected for the ncu pass");
	for (size_t i = 0; i < n; i++)
		if (l[i].in_stage) {
			s = i;
			break;
		}
	for (size_t i = 0; i < sel->nr; i++)
		if (sel->k[i].launch_index >= n || sel->k[i].launch_index < s)
			return error_set(err, "selected kernel %zu lies outside the stage", i + 1);
	/* at least the launches per kernel the user asked for */
	if (sel->k[0].launch_count > count)
		count = sel->k[0].launch_count;
	pass_names(l, sel, base, &names, &nnames);
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
		ALLOC_GROW(p->expect, p->nexpect + 1, ealloc);
		e = &p->expect[p->nexpect++];
		e->launch_index = i;
		e->name = xstrdup(nm);
		strbuf_reset(&t);
		if (l[i].short_name)
			strbuf_addstr(&t, l[i].short_name);
		else
			kname_base(&t, l[i].name);
		e->display = strbuf_detach(&t, NULL);
		memcpy(e->grid, l[i].grid, sizeof(e->grid));
		memcpy(e->block, l[i].block, sizeof(e->block));
	}
	strbuf_addstr(&re, "regex:^(");
	for (size_t i = 0; i < nnames; i++) {
		if (i)
			strbuf_addch(&re, '|');
		select_regex_escape(&re, names[i]);
	}
	strbuf_addstr(&re, ")$");
	p->kernel_name = strbuf_detach(&re, NULL);
	p->skip_before = s;
	p->count = count;
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(ord);
	keys_release(&ks);
	strbuf_release(&t);
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
