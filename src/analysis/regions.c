/* regions.c: NVTX regions from ncu results; see regions.h. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/regions.h"
#include "bundle/layout.h"
#include "core/error.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/strtab.h"
#include "core/banned.h"

/* A process or device id read from a cell; -1 when missing or absurd (a
 * damaged cell must not overflow the conversion). */
static long long cell_id(double v)
{
	return v >= 0 && v < 9.2e18 ? (long long)v : -1;
}

/* Region lookup by path while building: path id (strtab) -> index. */
struct region_index {
	struct strtab paths;
	long *at; /* path id -> index into rg->v */
	size_t alloc;
};

static long find_region(const struct region_index *ix, const char *path)
{
	int32_t id = strtab_find(&ix->paths, path, strlen(path));

	return id >= 0 ? ix->at[id] : -1;
}
static void scope_add(struct region_scope **v, size_t *n, size_t *alloc, long long key, double ns)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].key == key) {
			(*v)[i].total_ns += ns;
			(*v)[i].instances++;
			return;
		}
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].key = key;
	(*v)[*n].total_ns = ns;
	(*v)[*n].instances = 1;
	(*n)++;
}

static void path_of(const struct ncu_nvtx_stack *st, size_t levels, struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = 0; i < levels; i++) {
		if (i)
			strbuf_addch(out, '/');
		if (st->ranges[i].domain)
			strbuf_addf(out, "%s@", st->ranges[i].domain);
		strbuf_addstr(out, st->ranges[i].name);
	}
}

/* The region for the first `levels` levels of st, created when missing. */
static struct region *region_get(struct regions *rg, struct region_index *ix,
				 const struct ncu_nvtx_stack *st, size_t levels, struct strbuf *tmp)
{
	struct region *r;
	int32_t id;

	path_of(st, levels, tmp);
	id = strtab_intern(&ix->paths, tmp->buf, tmp->len);
	if ((size_t)id < rg->nr)
		return &rg->v[ix->at[id]];
	ALLOC_GROW(ix->at, (size_t)id + 1, ix->alloc);
	ix->at[id] = (long)rg->nr;
	ALLOC_GROW(rg->v, rg->nr + 1, rg->alloc);
	r = &rg->v[rg->nr++];
	memset(r, 0, sizeof(*r));
	r->path = xstrdup(tmp->buf);
	r->name = xstrdup(st->ranges[levels - 1].name);
	r->domain = st->ranges[levels - 1].domain ? xstrdup(st->ranges[levels - 1].domain) : NULL;
	r->depth = levels - 1;
	if (levels > 1) {
		path_of(st, levels - 1, tmp);
		r->parent = xstrdup(tmp->buf);
	}
	r->parent_idx = -1;
	return r;
}

static int is_range_result(const struct ncu_raw *raw, size_t row)
{
	long c = ncu_raw_col(raw, "Kernel Name");
	struct str s;

	if (c < 0)
		return 0;
	s = ncu_raw_cell(raw, row, (size_t)c);
	return s.len == 5 && !memcmp(s.p, "range", 5) && ncu_raw_col(raw, "Grid Size") < 0;
}

static double row_metric(const struct ncu_raw *raw, size_t row, const char *name)
{
	double v;

	return ncu_raw_metric(raw, row, name, &v) == NCU_NUM_OK ? v : NAN;
}

static int path_cmp(const void *pa, const void *pb)
{
	const struct region *a = pa, *b = pb;

	return strcmp(a->path, b->path);
}

/* A directory name is at most this long (NAME_MAX is 255 and "-N" may
 * follow): a longer one keeps its first bytes, then '-' and 8 hex digits of
 * the whole path's FNV-1a hash. */
#define REGION_DIR_MAX 100
#define REGION_DIR_HASH 9 /* "-" + 8 hex digits */

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Directory names: [A-Za-z0-9._-] kept, anything else '_', bounded
 * (REGION_DIR_MAX), unique, and never the name of a file beside them
 * (a range called report.md gets report.md-2). */
static void assign_dirs(struct regions *rg)
{
	static const enum bundle_art beside[] = {BA_NCU_REGIONS_MD, BA_NCU_REGIONS_JSON};
	struct strtab taken = STRTAB_INIT;

	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		const char *f = bundle_art_base(beside[i]);

		strtab_intern(&taken, f, strlen(f));
	}

	for (size_t i = 0; i < rg->nr; i++) {
		struct strbuf d = STRBUF_INIT;
		int n = 1;

		for (const char *p = rg->v[i].path; *p; p++)
			strbuf_addch(&d,
				     isalnum((unsigned char)*p) || strchr("._-", *p) ? *p : '_');
		if (!strcmp(d.buf, ".") || !strcmp(d.buf, ".."))
			strbuf_addch(&d, '_');
		if (d.len > REGION_DIR_MAX) {
			strbuf_setlen(&d, REGION_DIR_MAX - REGION_DIR_HASH);
			strbuf_addf(&d, "-%08x", (unsigned)fnv1a(rg->v[i].path));
		}
		for (;;) {
			struct strbuf cand = STRBUF_INIT;
			int clash = 0;

			strbuf_addstr(&cand, d.buf);
			if (n > 1)
				strbuf_addf(&cand, "-%d", n);
			clash = strtab_find(&taken, cand.buf, cand.len) >= 0;
			if (!clash) {
				strtab_intern(&taken, cand.buf, cand.len);
				rg->v[i].dir = strbuf_detach(&cand, NULL);
				break;
			}
			strbuf_release(&cand);
			n++;
		}
		strbuf_release(&d);
	}
	strtab_release(&taken);
}

int regions_build(const struct ncu_raw *raw, struct regions *rg, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	struct region_index ix = {STRTAB_INIT, NULL, 0};
	int ret = -1;

	memset(rg, 0, sizeof(*rg));
	if (ncu_raw_check_durations(raw, err))
		return -1;
	rg->mode = raw->nrows && is_range_result(raw, 0) ? REGIONS_RANGE : REGIONS_KERNEL;
	for (size_t row = 0; row < raw->nrows; row++) {
		struct ncu_nvtx_stack st = {0};
		double d = row_metric(raw, row, "gpu__time_duration.sum");
		double pid = row_metric(raw, row, "Process ID"),
		       dev = row_metric(raw, row, "Device");
		struct region *r;

		if (ncu_raw_nvtx(raw, row, &st, err))
			goto out;
		/* Only push/pop levels nest; start/end ranges are their own
		 * depth-0 regions in range mode. */
		if (!st.nr) {
			if (rg->mode == REGIONS_KERNEL)
				rg->unattributed++;
			ncu_nvtx_stack_release(&st);
			continue;
		}
		if (isnan(d))
			d = 0;
		if (rg->mode == REGIONS_RANGE) {
			r = region_get(rg, &ix, &st, st.nr, &tmp);
			r->instances++;
			r->inclusive_ns += d;
			scope_add(&r->procs, &r->nprocs, &r->aprocs, cell_id(pid), d);
			scope_add(&r->devs, &r->ndevs, &r->adevs, cell_id(dev), d);
			ALLOC_GROW(r->rows, r->nrows + 1, r->arows);
			r->rows[r->nrows++] = row;
		} else {
			/* A kernel counts in its own region and every enclosing one. */
			for (size_t lv = st.nr; lv > 0; lv--) {
				r = region_get(rg, &ix, &st, lv, &tmp);
				r->kernels++;
				r->inclusive_ns += d;
				if (lv == st.nr) {
					r->instances++;
					ALLOC_GROW(r->rows, r->nrows + 1, r->arows);
					r->rows[r->nrows++] = row;
				}
				scope_add(&r->procs, &r->nprocs, &r->aprocs, cell_id(pid), d);
				scope_add(&r->devs, &r->ndevs, &r->adevs, cell_id(dev), d);
			}
		}
		ncu_nvtx_stack_release(&st);
	}
	if (rg->nr)
		qsort(rg->v, rg->nr, sizeof(*rg->v), path_cmp);
	for (size_t i = 0; i < rg->nr; i++)
		ix.at[strtab_find(&ix.paths, rg->v[i].path, strlen(rg->v[i].path))] = (long)i;
	rg->all_reconciled = 1;
	for (size_t i = 0; i < rg->nr; i++) {
		struct region *r = &rg->v[i];

		r->parent_idx = r->parent ? find_region(&ix, r->parent) : -1;
		if (r->parent_idx >= 0)
			rg->v[r->parent_idx].children_ns += r->inclusive_ns;
		if (!r->depth)
			rg->total_ns += r->inclusive_ns;
	}
	for (size_t i = 0; i < rg->nr; i++) {
		struct region *r = &rg->v[i];

		r->self_ns = r->inclusive_ns - r->children_ns;
		r->reconciled = r->children_ns <= r->inclusive_ns * (1 + REGIONS_TOLERANCE) + 1e-9;
		rg->all_reconciled &= r->reconciled;
	}
	assign_dirs(rg);
	ret = 0;
out:
	strbuf_release(&tmp);
	strtab_release(&ix.paths);
	free(ix.at);
	if (ret)
		regions_release(rg);
	return ret;
}

void regions_release(struct regions *rg)
{
	for (size_t i = 0; i < rg->nr; i++) {
		struct region *r = &rg->v[i];

		free(r->path);
		free(r->name);
		free(r->domain);
		free(r->parent);
		free(r->dir);
		free(r->procs);
		free(r->devs);
		free(r->rows);
	}
	free(rg->v);
	memset(rg, 0, sizeof(*rg));
}
