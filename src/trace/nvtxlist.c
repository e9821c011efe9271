/* nvtxlist.c: NVTX range inventory with nsys/ncu filters (see nvtxlist.h). */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "core/error.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "trace/nsysdb.h"
#include "trace/nvtxdomain.h"
#include "trace/nvtxlist.h"
#include "core/banned.h"

void nvtx_filter_nsys(struct strbuf *out, const char *domain, const char *name)
{
	const char *p;

	for (p = name; *p; p++) {
		if (*p == '@')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p);
	}
	if (domain && *domain) {
		strbuf_addch(out, '@');
		strbuf_addstr(out, domain);
	}
}

static void ncu_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\@,[]/*+", *s))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
}

void nvtx_filter_ncu(struct strbuf *out, const char *domain, const char *name,
		     enum nvtx_style style)
{
	if (domain && *domain) {
		ncu_escape(out, domain);
		strbuf_addch(out, '@');
	}
	ncu_escape(out, name);
	if (style == NVTX_STYLE_PUSHPOP)
		strbuf_addch(out, '/');
}

void nvtx_list_init(struct nvtx_list *l)
{
	memset(l, 0, sizeof(*l));
}

void nvtx_list_release(struct nvtx_list *l)
{
	size_t i;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].domain);
		free(l->v[i].name);
		free(l->v[i].parent);
		free(l->v[i].nsys);
		free(l->v[i].ncu);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static struct nvtx_range_info *find_or_add(struct nvtx_list *l, const char *dom, const char *name,
					   enum nvtx_style st, int64_t start)
{
	size_t i;
	struct nvtx_range_info *r;
	struct strbuf sb = STRBUF_INIT;

	/* Linear: a program has tens to hundreds of distinct ranges. */
	for (i = 0; i < l->n; i++)
		if (l->v[i].style == st && !strcmp(l->v[i].domain, dom) &&
		    !strcmp(l->v[i].name, name))
			return &l->v[i];
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	r = &l->v[l->n++];
	memset(r, 0, sizeof(*r));
	r->domain = xstrdup(dom);
	r->name = xstrdup(name);
	r->style = st;
	r->min_depth = -1;
	r->first_start = start;
	nvtx_filter_nsys(&sb, dom, name);
	r->nsys = strbuf_detach(&sb, NULL);
	nvtx_filter_ncu(&sb, dom, name, st);
	r->ncu = strbuf_detach(&sb, NULL);
	return r;
}

static int cmp_first(const void *a, const void *b)
{
	const struct nvtx_range_info *x = a, *y = b;
	return (x->first_start > y->first_start) - (x->first_start < y->first_start);
}

struct open_r {
	int64_t end;
	int64_t domain;
	size_t idx; /* into list */
};

int nvtx_list_load(struct nvtx_list *l, const char *path, struct strbuf *err)
{
	struct nsysdb x = {0};
	sqlite3_stmt *s = NULL;
	struct nvtx_domains doms = NVTX_DOMAINS_INIT;
	struct strtab dom_names = STRTAB_INIT;
	struct open_r *stack = NULL;
	size_t nstack = 0, astack = 0;
	int64_t cur_tid = INT64_MIN;
	int ret = -1, rc;

	if (nsysdb_open(&x, path, err))
		goto out;
	rc = nsysdb_prepare(&x, NSYSDB_NVTX_BY_THREAD, &s, err);
	if (rc <= 0) {
		ret = rc; /* 0: no NVTX at all */
		goto out;
	}
	if (nvtx_domains_read(&doms, &x, &dom_names, err))
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(s, 0);
		int has_end = sqlite3_column_type(s, 1) != SQLITE_NULL;
		int64_t end = has_end ? sqlite3_column_int64(s, 1) : INT64_MAX;
		int type = sqlite3_column_int(s, 2);
		const char *name = (const char *)sqlite3_column_text(s, 3);
		int64_t tid = sqlite3_column_int64(s, 4);
		/* push/pop stacks are per domain; NULL is the default one */
		int64_t dom = nsysdb_col_i64(s, 5, 0);
		const struct nvtx_domain *d =
		    nvtx_domains_find(&doms, nsysdb_col_i64(s, 5, -1), tid);
		const char *domain = d ? strtab_str(&dom_names, d->name) : NULL;
		enum nvtx_style st =
		    (type == 59 || type == 70) ? NVTX_STYLE_PUSHPOP : NVTX_STYLE_STARTEND;
		struct nvtx_range_info *r;
		size_t idx, k;
		int depth = 0;
		int parent = -1;

		if (type == 34) {
			l->marks++;
			continue;
		}
		if (tid != cur_tid) {
			nstack = 0;
			cur_tid = tid;
		}
		r = find_or_add(l, domain ? domain : "", name ? name : "", st, start);
		idx = (size_t)(r - l->v);
		r->count++;
		if (st == NVTX_STYLE_PUSHPOP) {
			/* Close ranges that ended before this one starts. */
			while (nstack && stack[nstack - 1].end <= start)
				nstack--;
			/* Push/pop stacks are per domain. */
			for (k = 0; k < nstack; k++)
				if (stack[k].domain == dom) {
					depth++;
					parent = (int)stack[k].idx;
				}
			ALLOC_GROW(stack, nstack + 1, astack);
			stack[nstack].end = end;
			stack[nstack].domain = dom;
			stack[nstack].idx = idx;
			nstack++;
		}
		r = &l->v[idx];
		if (r->min_depth < 0 || depth < r->min_depth)
			r->min_depth = depth;
		if (depth > r->max_depth)
			r->max_depth = depth;
		if (!r->parent)
			r->parent = xstrdup(parent >= 0 ? l->v[parent].name : "");
	}
	if (nsysdb_step_done(&x, rc, "NVTX_EVENTS", err))
		goto out;
	/* In order of first appearance in time, whatever the thread. */
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_first);
	ret = 0;
out:
	sqlite3_finalize(s);
	nsysdb_close(&x);
	free(stack);
	nvtx_domains_release(&doms);
	strtab_release(&dom_names);
	return ret;
}

/* Display width of UTF-8 text: code points, not bytes. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void add_padded(struct strbuf *out, const char *s, size_t width)
{
	size_t w = text_width(s);
	strbuf_addstr(out, s);
	while (w++ < width)
		strbuf_addch(out, ' ');
	strbuf_addstr(out, "  ");
}

void nvtx_list_format(const struct nvtx_list *l, struct strbuf *out)
{
	static const char *const hdr[] = {"DOMAIN",
					  "RANGE",
					  "STYLE",
					  "COUNT",
					  "DEPTH",
					  "PARENT",
					  "NSYS --nvtx-capture",
					  "NCU --nvtx-include"};
	size_t w[8], i, k;
	struct strbuf cell = STRBUF_INIT, shown = STRBUF_INIT;

	for (k = 0; k < 8; k++)
		w[k] = strlen(hdr[k]);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (k = 0; k < 8; k++)
				if (k < 7)
					add_padded(out, hdr[k], w[k]);
				else
					strbuf_addf(out, "%s\n", hdr[k]);
		}
		for (i = 0; i < l->n; i++) {
			const struct nvtx_range_info *r = &l->v[i];
			for (k = 0; k < 8; k++) {
				strbuf_reset(&cell);
				switch (k) {
				case 0:
					strbuf_addstr(&cell, *r->domain ? r->domain : "(default)");
					break;
				case 1:
					strbuf_addstr(&cell, r->name);
					break;
				case 2:
					strbuf_addstr(&cell, r->style ? "StartEnd" : "PushPop");
					break;
				case 3:
					strbuf_addf(&cell, "%llu", (unsigned long long)r->count);
					break;
				case 4:
					if (r->style)
						strbuf_addch(&cell, '-');
					else if (r->min_depth == r->max_depth)
						strbuf_addf(&cell, "%d", r->max_depth);
					else
						strbuf_addf(&cell, "%d-%d", r->min_depth,
							    r->max_depth);
					break;
				case 5:
					strbuf_addstr(&cell,
						      r->parent && *r->parent ? r->parent : "-");
					break;
				case 6:
					strbuf_addstr(&cell, r->nsys);
					break;
				case 7:
					strbuf_addstr(&cell, r->ncu);
					break;
				}
				/* names from the program: a control byte (a
				 * terminal escape, a newline) shown as \xHH */
				strbuf_reset(&shown);
				utf8_printable(&shown, cell.buf, cell.len, NULL);
				strbuf_reset(&cell);
				strbuf_add(&cell, shown.buf, shown.len);
				if (pass == 0) {
					if (text_width(cell.buf) > w[k])
						w[k] = text_width(cell.buf);
				} else {
					if (k < 7)
						add_padded(out, cell.buf, w[k]);
					else
						strbuf_addf(out, "%s\n", cell.buf);
				}
			}
		}
	}
	if (l->marks)
		strbuf_addf(out, "(%llu NVTX marks, not selectable by range filters)\n",
			    (unsigned long long)l->marks);
	strbuf_release(&cell);
	strbuf_release(&shown);
}
