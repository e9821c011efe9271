/* nvtxdomain.c: the NVTX domain-name rule (nvtxdomain.h), kept sorted by
 * (domainId, process, start, order read) so that a lookup is a binary
 * search and its first hit the create event that wins. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/xalloc.h"
#include "trace/nsysdb.h"
#include "trace/nvtxdomain.h"
#include "trace/trace.h"
#include "core/banned.h"

static int cmp3(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_domain(const void *pa, const void *pb)
{
	const struct nvtx_domain *a = pa, *b = pb;
	int c = cmp3(a->id, b->id);

	if (!c)
		c = cmp3(a->proc, b->proc);
	if (!c)
		c = cmp3(a->start, b->start);
	if (!c)
		c = (a->seq > b->seq) - (a->seq < b->seq);
	return c;
}

void nvtx_domains_add(struct nvtx_domains *ds, int64_t id, int64_t gtid, int64_t start,
		      int32_t name, int32_t regname)
{
	struct nvtx_domain *d;

	ALLOC_GROW(ds->v, ds->n + 1, ds->alloc);
	d = &ds->v[ds->n];
	d->id = id;
	d->proc = gtid & TRACE_PID_BITS;
	d->start = start > TRACE_TIME_MAX    ? TRACE_TIME_MAX
		   : start < -TRACE_TIME_MAX ? -TRACE_TIME_MAX
					     : start;
	d->seq = ds->n++;
	d->name = name;
	d->regname = regname;
	ds->sorted = ds->n < 2;
}

const struct nvtx_domain *nvtx_domains_find(struct nvtx_domains *ds, int64_t id, int64_t gtid)
{
	int64_t proc = gtid & TRACE_PID_BITS;
	size_t lo = 0, hi = ds->n;

	if (!ds->sorted) {
		qsort(ds->v, ds->n, sizeof(*ds->v), cmp_domain);
		ds->sorted = 1;
	}
	while (lo < hi) { /* the first entry not below (id, proc) */
		size_t mid = lo + (hi - lo) / 2;
		const struct nvtx_domain *d = &ds->v[mid];

		if (d->id < id || (d->id == id && d->proc < proc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ds->n && ds->v[lo].id == id && ds->v[lo].proc == proc)
		return &ds->v[lo];
	return NULL;
}

int nvtx_domains_read(struct nvtx_domains *ds, struct nsysdb *x, struct strtab *names,
		      struct strbuf *err)
{
	sqlite3_stmt *s = NULL;
	int rc = nsysdb_prepare(x, NSYSDB_NVTX_DOMAINS, &s, err);

	if (rc <= 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(s, 3);
		int32_t name =
		    text ? strtab_intern(names, text, (size_t)sqlite3_column_bytes(s, 3)) : -1;

		nvtx_domains_add(ds, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
				 sqlite3_column_int64(s, 2), name, name);
	}
	sqlite3_finalize(s);
	return nsysdb_step_done(x, rc, "NVTX_EVENTS", err);
}

void nvtx_domains_release(struct nvtx_domains *ds)
{
	free(ds->v);
	memset(ds, 0, sizeof(*ds));
	ds->sorted = 1;
}
