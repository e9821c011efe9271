/* ncu_match.c: results matched to trace launches; see ncu_match.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ncu_match.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "trace/kname.h"
#include "trace/ncu_csv.h"
#include "core/banned.h"

/* ------------------------------------------------------ mangled names */

/* The launch configuration of row r in column name, all 0 when absent. */
static void row_dim3(const struct ncu_raw *raw, size_t r, const char *name, int v[3])
{
	long c = ncu_raw_col(raw, name);
	struct str s;

	v[0] = v[1] = v[2] = 0;
	if (c < 0)
		return;
	s = ncu_raw_cell(raw, r, (size_t)c);
	if (ncu_parse_dim3(s.p, s.len, v))
		v[0] = v[1] = v[2] = 0;
}

static long long row_int(const struct ncu_raw *raw, size_t r, const char *name)
{
	double v;

	if (ncu_raw_metric(raw, r, name, &v) != NCU_NUM_OK || !(v > -9.2e18 && v < 9.2e18))
		return -1;
	return (long long)v;
}

static int dims_agree(const int a[3], const int b[3])
{
	return !(a[0] || a[1] || a[2]) || !(b[0] || b[1] || b[2]) || !memcmp(a, b, 3 * sizeof(*a));
}

int ncu_attach_mangled(struct ncu_kernel_table *t, const char *buf, size_t len, const char *shown,
		       size_t *attached, struct strbuf *err)
{
	struct ncu_raw raw = NCU_RAW_INIT;
	unsigned char *used = NULL;
	long name_col;
	int ret = -1;

	*attached = 0;
	if (ncu_raw_parse(buf, len, shown, &raw, err))
		goto out;
	if ((name_col = ncu_raw_col(&raw, "Kernel Name")) < 0 || ncu_raw_col(&raw, "ID") < 0) {
		error_set(err, "%s: no 'ID' or 'Kernel Name' column", shown);
		goto out;
	}
	used = xcalloc(raw.nrows + 1, 1);
	/* the k-th result of a (pid, id) takes the k-th unused row of it: a
	 * merged export repeats IDs across ncu runs in the same order */
	for (size_t j = 0; j < t->nr; j++) {
		struct ncu_kernel *k = &t->k[j];

		for (size_t r = 0; r < raw.nrows; r++) {
			int g[3], b[3];
			struct str s;

			if (used[r] || row_int(&raw, r, "ID") != k->id ||
			    row_int(&raw, r, "Process ID") != k->pid)
				continue;
			used[r] = 1;
			row_dim3(&raw, r, "Grid Size", g);
			row_dim3(&raw, r, "Block Size", b);
			s = ncu_raw_cell(&raw, r, (size_t)name_col);
			if (s.len && dims_agree(g, k->grid) && dims_agree(b, k->block)) {
				free(k->mangled);
				k->mangled = xstrndup(s.p, s.len);
				(*attached)++;
			}
			break;
		}
	}
	ret = 0;
out:
	free(used);
	ncu_raw_release(&raw);
	return ret;
}

size_t ncu_hints_from_json(json_t *measured, struct ncu_launch_hint **out)
{
	json_t *rs = json_object_get(measured, "results"), *e;
	size_t i, n = 0, alloc = 0;

	*out = NULL;
	json_array_foreach(rs, i, e)
	{
		json_t *id = json_object_get(e, "id"), *pid = json_object_get(e, "pid");
		json_t *li = json_object_get(e, "launch_index");

		if (!json_is_integer(id) || !json_is_integer(li) || json_integer_value(li) < 0)
			continue;
		ALLOC_GROW(*out, n + 1, alloc);
		(*out)[n].id = (long long)json_integer_value(id);
		(*out)[n].pid = json_is_integer(pid) ? (long long)json_integer_value(pid) : -1;
		(*out)[n].launch_index = (size_t)json_integer_value(li);
		n++;
	}
	return n;
}

/* ---------------------------------------------------------- matching */

/* A distinct kernel of the trace: one (name, mangled name, grid, block),
 * its first launch (in the stage when it has one there). The strings are
 * the launches' own; equal names from one trace are one pointer (its
 * string table), so pointers key it. */
struct kclass {
	const char *name, *mangled;
	const int *grid, *block;
	size_t first;
	int first_in_stage;
	char *key; /* kname_key(name), made when first needed */
};

struct kclasses {
	struct kclass *v;
	size_t nr, alloc;
	size_t *slot; /* open addressing: index + 1, 0 = empty */
	size_t nslot;
	int all_mangled; /* every class has a mangled name */
};

static size_t class_hash(const struct launch *x)
{
	uint64_t h = (uint64_t)(uintptr_t)x->name * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)x->mangled + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
	for (int d = 0; d < 3; d++)
		h = (h ^ (uint64_t)(unsigned)x->grid[d]) * 0x100000001b3ull ^
		    (uint64_t)(unsigned)x->block[d];
	return (size_t)(h ^ (h >> 29));
}

static void classes_build(struct kclasses *c, const struct launch *l, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->all_mangled = 1;
	c->nslot = 64;
	while (c->nslot < 2 * n)
		c->nslot *= 2;
	c->slot = xcalloc(c->nslot, sizeof(*c->slot));
	for (size_t i = 0; i < n; i++) {
		size_t h = class_hash(&l[i]) & (c->nslot - 1);
		struct kclass *k = NULL;

		for (; c->slot[h]; h = (h + 1) & (c->nslot - 1)) {
			struct kclass *e = &c->v[c->slot[h] - 1];

			if (e->name == l[i].name && e->mangled == l[i].mangled &&
			    !memcmp(e->grid, l[i].grid, sizeof(l[i].grid)) &&
			    !memcmp(e->block, l[i].block, sizeof(l[i].block))) {
				k = e;
				break;
			}
		}
		if (!k) {
			ALLOC_GROW(c->v, c->nr + 1, c->alloc);
			k = &c->v[c->nr++];
			memset(k, 0, sizeof(*k));
			k->name = l[i].name ? l[i].name : "";
			k->mangled = l[i].mangled;
			k->grid = l[i].grid;
			k->block = l[i].block;
			k->first = i;
			k->first_in_stage = l[i].in_stage;
			c->slot[h] = c->nr;
			if (!k->mangled)
				c->all_mangled = 0;
		} else if (l[i].in_stage && !k->first_in_stage) {
			k->first = i;
			k->first_in_stage = 1;
		}
	}
}

static void classes_release(struct kclasses *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->v[i].key);
	free(c->v);
	free(c->slot);
}

static const char *class_key(struct kclass *k)
{
	if (!k->key) {
		struct strbuf sb = STRBUF_INIT;

		kname_key(&sb, k->name);
		k->key = strbuf_detach(&sb, NULL);
	}
	return k->key;
}

static int class_dims_ok(const struct kclass *k, const struct ncu_kernel *r)
{
	return dims_agree(r->grid, k->grid) && dims_agree(r->block, k->block);
}

/* A name for a reason: at most 120 characters of it. */
static void add_name(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (n <= 120)
		strbuf_addstr(sb, s);
	else
		strbuf_addf(sb, "%.117s...", s);
}

static void add_dims(struct strbuf *sb, const int g[3], const int b[3])
{
	strbuf_addf(sb, "(%d,%d,%d)x(%d,%d,%d)", g[0], g[1], g[2], b[0], b[1], b[2]);
}

/* "name matches T but grid/block differ: ncu (..)x(..), trace (..)x(..)[, ...]" */
static char *dims_reason(const struct ncu_kernel *r, struct kclass **cand, size_t nc)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "name matches ");
	add_name(&sb, cand[0]->name);
	strbuf_addstr(&sb, " but grid/block differ: ncu ");
	add_dims(&sb, r->grid, r->block);
	strbuf_addstr(&sb, ", trace ");
	for (size_t i = 0; i < nc && i < 3; i++) {
		strbuf_addstr(&sb, i ? ", " : "");
		add_dims(&sb, cand[i]->grid, cand[i]->block);
	}
	if (nc > 3)
		strbuf_addf(&sb, " and %zu more", nc - 3);
	return strbuf_detach(&sb, NULL);
}

/* One trace kernel can have several classes (configurations) that fit a
 * result without a launch configuration: one name, not an ambiguity. */
static int class_listed(struct kclass **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i]->name, name))
			return 1;
	return 0;
}

/* The name rules over the classes without a mangled name when the result
 * has one (skip_mangled), else over all: the exact name, then the
 * normalised one. */
static void match_by_name(struct kclasses *c, const struct ncu_kernel *r, int skip_mangled,
			  struct ncu_match *o)
{
	struct kclass **fit = xcalloc(c->nr + 1, sizeof(*fit));
	struct kclass **near = xcalloc(c->nr + 1, sizeof(*near));
	size_t nfit = 0, nnear = 0;
	struct strbuf key = STRBUF_INIT;

	for (int pass = 0; pass < 2 && !nfit; pass++) {
		if (pass)
			kname_key(&key, r->name);
		nnear = 0;
		for (size_t i = 0; i < c->nr; i++) {
			struct kclass *k = &c->v[i];

			if (skip_mangled && k->mangled)
				continue;
			if (pass ? strcmp(class_key(k), key.buf) : strcmp(k->name, r->name))
				continue;
			if (!class_dims_ok(k, r))
				near[nnear++] = k;
			else if (!class_listed(fit, nfit, k->name))
				fit[nfit++] = k;
		}
		if (nfit == 1) {
			o->how = pass ? NCU_MATCH_NORMALISED : NCU_MATCH_NAME;
			o->launch = fit[0]->first;
		}
	}
	if (nfit > 1) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "normalised name, grid and block fit %zu trace kernels (", nfit);
		for (size_t i = 0; i < nfit && i < 2; i++) {
			strbuf_addstr(&sb, i ? "; " : "");
			add_name(&sb, fit[i]->name);
		}
		strbuf_addstr(&sb, nfit > 2 ? "; ...): ambiguous" : "): ambiguous");
		o->reason = strbuf_detach(&sb, NULL);
	} else if (!nfit && nnear) {
		o->reason = dims_reason(r, near, nnear);
	} else if (!nfit) {
		o->reason = xstrdup("no trace kernel with this normalised name");
	}
	free(fit);
	free(near);
	strbuf_release(&key);
}

static void match_by_mangled(struct kclasses *c, const struct ncu_kernel *r, struct ncu_match *o)
{
	struct kclass **near = xcalloc(c->nr + 1, sizeof(*near));
	size_t nnear = 0;

	for (size_t i = 0; i < c->nr; i++) {
		struct kclass *k = &c->v[i];

		if (!k->mangled || strcmp(k->mangled, r->mangled))
			continue;
		if (class_dims_ok(k, r)) {
			o->how = NCU_MATCH_MANGLED;
			o->launch = k->first;
			goto out;
		}
		near[nnear++] = k;
	}
	if (nnear)
		o->reason = dims_reason(r, near, nnear);
	else if (c->all_mangled)
		o->reason = xstrdup("no trace kernel has this mangled name");
	else /* the trace lacks some mangled names: try theirs by name */
		match_by_name(c, r, 1, o);
out:
	free(near);
}

static const struct ncu_launch_hint *find_hint(const struct ncu_launch_hint *h, size_t nh,
					       const struct ncu_kernel *r)
{
	for (size_t i = 0; i < nh; i++)
		if (h[i].id == r->id && (h[i].pid < 0 || h[i].pid == r->pid))
			return &h[i];
	return NULL;
}

static void match_hint(const struct ncu_launch_hint *hint, const struct ncu_kernel *r,
		       const struct launch *l, size_t n, struct ncu_match *o)
{
	struct strbuf sb = STRBUF_INIT;
	size_t li = hint->launch_index;

	if (li >= n) {
		strbuf_addf(&sb, "launch_index %zu is beyond the trace's %zu kernel launches", li,
			    n);
	} else if (r->mangled && l[li].mangled && strcmp(r->mangled, l[li].mangled)) {
		strbuf_addf(&sb, "launch_index %zu is ", li);
		add_name(&sb, l[li].name ? l[li].name : "(unnamed)");
		strbuf_addstr(&sb, ", another mangled name");
	} else {
		o->how = NCU_MATCH_LAUNCH;
		o->launch = li;
		return;
	}
	o->reason = strbuf_detach(&sb, NULL);
}

/* A range-replay result measures an NVTX range, not a kernel launch. */
static int is_range_result(const struct ncu_kernel *r)
{
	static const int zero[3];

	return r->name && !strcmp(r->name, "range") && !memcmp(r->grid, zero, sizeof(zero)) &&
	       !memcmp(r->block, zero, sizeof(zero));
}

void ncu_match_results(const struct ncu_kernel_table *t, const struct launch *l, size_t n,
		       const struct ncu_launch_hint *h, size_t nh, struct ncu_match *out)
{
	struct kclasses c;

	classes_build(&c, l, n);
	for (size_t j = 0; j < t->nr; j++) {
		const struct ncu_kernel *r = &t->k[j];
		const struct ncu_launch_hint *hint = find_hint(h, nh, r);
		struct ncu_match *o = &out[j];

		memset(o, 0, sizeof(*o));
		o->launch = SIZE_MAX;
		if (!r->name)
			o->reason = xstrdup("the export gives no kernel name");
		else if (is_range_result(r))
			o->how = NCU_MATCH_RANGE;
		else if (hint)
			match_hint(hint, r, l, n, o);
		else if (r->mangled)
			match_by_mangled(&c, r, o);
		else
			match_by_name(&c, r, 0, o);
	}
	classes_release(&c);
}

void ncu_matches_release(struct ncu_match *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free(m[i].reason);
}

const char *ncu_match_how_name(enum ncu_match_how how)
{
	switch (how) {
	case NCU_MATCH_LAUNCH:
		return "launch index";
	case NCU_MATCH_MANGLED:
		return "mangled name";
	case NCU_MATCH_NAME:
		return "name";
	case NCU_MATCH_NORMALISED:
		return "normalised name";
	case NCU_MATCH_RANGE:
		return "range";
	case NCU_MATCH_NONE:
		break;
	}
	return "unmatched";
}
