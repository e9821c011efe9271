/* nsysstats.c: nsys stats reports, re-implemented over sorted arrays.
 *
 * Each report mirrors the SQL of NVIDIA's reports/<name>.py (2023.4.4):
 * group, aggregate, order; ties keep SQLite's GROUP BY order (the group key
 * in binary string order, NULL first), which is what nsys prints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nsysstats.h"
#include "analysis/nvtxkern.h"
#include "analysis/nvtxproj.h"
#include "analysis/summary.h"
#include "analysis/timeline.h"
#include "core/error.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/version.h"
#include "core/banned.h"

const char *const nsysstats_reports[] = {
    "cuda_gpu_kern_sum",     "nvtx_sum",     "nvtx_gpu_proj_sum",
    "nvtx_kern_sum",	     "cuda_api_sum", "cuda_gpu_mem_time_sum",
    "cuda_gpu_mem_size_sum", "osrt_sum",     NULL,
};

static const char *const titles[] = {
    "CUDA GPU Kernel Summary",		 "NVTX Range Summary", "NVTX GPU Projection Summary",
    "NVTX Range Kernel Summary",	 "CUDA API Summary",   "CUDA GPU MemOps Summary (by Time)",
    "CUDA GPU MemOps Summary (by Size)", "OS Runtime Summary",
};

const char *nsysstats_title(const char *name)
{
	for (size_t i = 0; nsysstats_reports[i]; i++)
		if (!strcmp(nsysstats_reports[i], name))
			return titles[i];
	return NULL;
}

int nsysstats_spelling(const char *version)
{
	int older = version_older(version, 2024, 1);

	return older < 0 ? -1 : older ? NSYS_SPELL_2023 : NSYS_SPELL_2024;
}

int nsysstats_rounding(const char *version)
{
	int older = version_older(version, 2024, 1);

	return older < 0 ? -1 : older ? NSYS_ROUND_SQLITE_3_42 : NSYS_ROUND_SQLITE_3_43;
}

int nsysstats_known(const char *name)
{
	for (size_t i = 0; nsysstats_reports[i]; i++)
		if (!strcmp(nsysstats_reports[i], name))
			return 1;
	return 0;
}

/* A grouped value: up to 5 integer key parts, then the value. */
struct gval {
	int64_t k[5];
	int64_t v;
	int64_t p; /* payload, not compared */
};

static inline int gval_less(const struct gval *x, const struct gval *y)
{
	for (int i = 0; i < 5; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i];
	return x->v < y->v;
}

SORT_DEFINE(gval_sort, struct gval, gval_less)

/* One output group: its first gval, its summary and extra counters. */
struct group {
	size_t lo, hi;
	struct nsys_summary s;
	int64_t x[6]; /* report-specific */
};

/* Splits gvals sorted by key into groups of equal keys and summarizes
 * each: the values in a group sorted too, or (unsorted) in any order. */
static struct group *make_groups(const struct gval *g, size_t n, int unsorted, size_t *ngroups)
{
	struct group *out = NULL;
	size_t nr = 0, alloc = 0;
	int64_t *vals = xmalloc(st_mult(n + 1, sizeof(*vals)));

	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && !memcmp(g[hi].k, g[lo].k, sizeof(g[lo].k)); hi++)
			vals[hi - lo] = g[hi].v;
		ALLOC_GROW(out, nr + 1, alloc);
		memset(&out[nr], 0, sizeof(out[nr]));
		out[nr].lo = lo;
		out[nr].hi = hi;
		if (unsorted)
			nsys_summarize_unsorted(vals, hi - lo, &out[nr].s);
		else
			nsys_summarize(vals, hi - lo, &out[nr].s);
		nr++;
	}
	free(vals);
	*ngroups = nr;
	return out;
}

/* gv[0..n) in gval_sort()'s order of keys, the values of equal keys in
 * their order in gv, where key 0 is a string's rank or -1 and key 1 a
 * range style, the other keys 0: counted into place, linear where sorting
 * a million ranges costs n log n swaps of 56 bytes. For make_groups()
 * unsorted. */
static void gval_sort_ranked(struct gval *gv, size_t n, const struct trace *t)
{
	size_t nb = (t->strs.nr + 1) * 2, *at = xcalloc(nb + 1, sizeof(*at));
	struct gval *tmp = xmalloc(st_mult(n + 1, sizeof(*tmp)));

#define RANKED_BUCKET(x) ((size_t)((x)->k[0] + 1) * 2 + (size_t)(x)->k[1])
	for (size_t i = 0; i < n; i++)
		at[RANKED_BUCKET(&gv[i]) + 1]++;
	for (size_t b = 1; b <= nb; b++)
		at[b] += at[b - 1];
	for (size_t i = 0; i < n; i++)
		tmp[at[RANKED_BUCKET(&gv[i])]++] = gv[i];
#undef RANKED_BUCKET
	memcpy(gv, tmp, n * sizeof(*gv));
	free(tmp);
	free(at);
}

static int64_t rank_of(const struct trace *t, int32_t id)
{
	return id < 0 ? -1 : t->strs.rank[id];
}

/* "ORDER BY total DESC" keeping group order on ties. */
static int cmp_total_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* nvtx_kern_sum: ORDER BY name, pid, tid, total DESC (keys are
 * pid, tid, name, style, kernel). */
/* whole is the exact sum as a double, not a saturated int64: parts near
 * 2^63 each must not all read as 100 %. */
/* The rounding of the report being built (nsysstats_build() sets it). */
static enum nsys_round_rule round_rule;

static void add_round1(struct table *tbl, double v)
{
	table_add_round1(tbl, v, round_rule);
}

static void add_ratio(struct table *tbl, int64_t part, double whole)
{
	if (whole == 0)
		table_add_null(tbl);
	else
		add_round1(tbl, (double)part * 100.0 / (double)whole);
}

static void add_dur_stats(struct table *tbl, const struct nsys_summary *s)
{
	add_round1(tbl, s->avg);
	add_round1(tbl, s->med);
	table_add_i64(tbl, s->min);
	table_add_i64(tbl, s->max);
	add_round1(tbl, s->stddev);
}

static const char *const time_cols[] = {"Time (%)", "Total Time (ns)", NULL,	   "Avg (ns)",
					"Med (ns)", "Min (ns)",	       "Max (ns)", "StdDev (ns)"};

static void init_time_table(struct table *tbl, const char *count_col, const char *const *extra,
			    size_t nextra)
{
	const char *names[12];
	char spec[13];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(time_cols); i++) {
		spec[n] = TABLE_NUM;
		names[n++] = time_cols[i] ? time_cols[i] : count_col;
	}
	for (size_t i = 0; i < nextra; i++) {
		spec[n] = TABLE_TEXT;
		names[n++] = extra[i];
	}
	spec[n] = '\0';
	table_init_names(tbl, spec, names);
}

/* Emits "Time (%) ... StdDev" rows for groups, in order, name from key 0
 * via namefn. */
static double groups_total(const struct group *g, size_t n)
{
	__int128 total = 0;

	for (size_t i = 0; i < n; i++)
		total += g[i].s.total;
	return (double)total;
}

static int skip(struct strbuf *msg, const struct trace *t, const char *what)
{
	strbuf_addf(msg, "%s %s", t->path, what);
	return 1;
}

/* Rows whose times nsys sums without a word: an end before its start (a
 * negative duration) or a timestamp of 0 (never recorded). */
struct time_check {
	size_t n, inverted, zero;
};

static void check_time(struct time_check *c, int64_t start, int64_t end)
{
	c->n++;
	c->inverted += end < start;
	c->zero += start == 0 || end == 0;
}

static void warn_times(const struct nsysstats_opts *o, const char *report, const char *what,
		       const struct time_check *c)
{
	if (!o || !o->warn)
		return;
	if (c->inverted)
		strbuf_addf(o->warn,
			    "warning: %s: %zu of %zu %s end before they start; their negative "
			    "durations are in the numbers, as nsys counts them\n",
			    report, c->inverted, c->n, what);
	if (c->zero)
		strbuf_addf(o->warn,
			    "warning: %s: %zu of %zu %s have a start or end of 0 (not recorded); "
			    "they are in the numbers, as nsys counts them\n",
			    report, c->zero, c->n, what);
}

#define NO_STRINGS "file does not contain StringIds table."
#define NO_KERNELS "does not contain CUDA kernel data."
#define NO_NVTX "does not contain NV Tools Extension (NVTX) data."
#define NO_API "does not contain CUDA API data."

static const char *name_of(const struct trace *t, int32_t id)
{
	return strtab_str(&t->strs, id);
}

/* Sorted interned-string ids, found back from ranks. */
static int32_t *rank_to_id(const struct trace *t)
{
	int32_t *inv = xmalloc(st_mult(t->strs.nr + 1, sizeof(*inv)));

	for (size_t i = 0; i < t->strs.nr; i++)
		inv[t->strs.rank[i]] = (int32_t)i;
	return inv;
}

static const char *rank_name(const int32_t *inv, const struct trace *t, int64_t rank)
{
	return rank < 0 ? NULL : name_of(t, inv[rank]);
}

/* Range names as the chosen nsys prints them, one per t->ranges[i]: up to
 * 2023.4 "domain:text", or the bare text in the default domain (NULL when
 * the text is); from 2024.1 always "domain:text", either part empty when
 * absent (default-domain "decode" reads ":decode"), and the domain named by
 * its registered string when it has one. Interns new strings, so call it
 * before strtab_rank(). */
static int32_t *range_names(struct trace *t, const struct nsysstats_opts *o)
{
	int32_t *names = xmalloc(st_mult(t->nranges + 1, sizeof(*names)));
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *d = name_of(t, r->domain_reg), *x = name_of(t, r->text);

		if (!o || o->spelling != NSYS_SPELL_2024) {
			names[i] = r->name;
			continue;
		}
		strbuf_reset(&sb); /* not strbuf_addf(): a range at a time adds up */
		strbuf_addstr(&sb, d ? d : "");
		strbuf_addch(&sb, ':');
		strbuf_addstr(&sb, x ? x : "");
		names[i] = strtab_intern(&t->strs, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return names;
}

/* cuda_gpu_kern_sum: ORDER BY total DESC, instances, name. */
static const struct trace *sort_trace;

static int cmp_kern(const void *a, const void *b)
{
	const struct kernel_stat *x = a, *y = b;
	int64_t rx = rank_of(sort_trace, x->name), ry = rank_of(sort_trace, y->name);

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? -1 : 1;
	return rx < ry ? -1 : rx > ry;
}

/* The kernels grouped by name as the reports group them
 * (kernel_summary_build()), in nsys's order. */
static int report_kern_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
			   struct strbuf *msg, struct strbuf *err)
{
	static const char *const extra[] = {"Name"};
	struct kernel_summary ks;
	struct time_check tc = {0};
	__int128 total = 0;

	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (!t->has_kernels)
		return skip(msg, t, NO_KERNELS);
	if (trace_load(t, TRACE_KERNELS, err))
		return -1;
	for (size_t i = 0; i < t->nkernels; i++)
		check_time(&tc, t->kernels[i].start, t->kernels[i].end);
	warn_times(o, "cuda_gpu_kern_sum", "kernels", &tc);
	strtab_rank(&t->strs);
	kernel_summary_build(&ks, t, NULL, 0, 0);
	sort_trace = t;
	if (ks.nrows)
		qsort(ks.rows, ks.nrows, sizeof(*ks.rows), cmp_kern);
	sort_trace = NULL;
	for (size_t i = 0; i < ks.nrows; i++)
		total += ks.rows[i].total_ns;
	init_time_table(tbl, "Instances", extra, 1);
	for (size_t i = 0; i < ks.nrows; i++) {
		const struct kernel_stat *k = &ks.rows[i];
		struct nsys_summary s = {.n = (int64_t)k->calls,
					 .total = k->total_ns,
					 .min = k->min_ns,
					 .max = k->max_ns,
					 .avg = k->avg_ns,
					 .med = k->med_ns,
					 .stddev = k->stddev_ns};

		add_ratio(tbl, k->total_ns, (double)total);
		table_add_i64(tbl, k->total_ns);
		table_add_i64(tbl, (int64_t)k->calls);
		add_dur_stats(tbl, &s);
		table_add_str(tbl, name_of(t, k->name));
	}
	kernel_summary_release(&ks);
	return 0;
}

static const char *style_name(int64_t style)
{
	return style < 0 ? NULL : style == TRACE_STARTEND ? "StartEnd" : "PushPop";
}

/* What a grouped time summary's last columns are written from. */
struct extra_ctx {
	const struct trace *t;
	int32_t *inv;					/* rank_to_id() */
	void (*add_name)(struct table *, const char *); /* a call's name */
};

/* nvtx_sum's Style and Range, from a group's keys (rank, style). */
static void add_range_cols(struct table *tbl, const struct gval *first, const struct extra_ctx *x)
{
	table_add_str(tbl, style_name(first->k[1]));
	table_add_str(tbl, rank_name(x->inv, x->t, first->k[0]));
}

/* A timed call's name, from its string id. */
static void add_call_name(struct table *tbl, const struct gval *first, const struct extra_ctx *x)
{
	x->add_name(tbl, name_of(x->t, (int32_t)first->p));
}

/* The grouped time summary of nvtx_sum and of the timed calls: gv[0..n)
 * sorted by key (values too unless unsorted) grouped by key, ORDER BY
 * total DESC (ties in key order), one row per group: Time (%), Total
 * Time, count_col, Avg ... StdDev, then extra[0..nextra) written by
 * add_extra from the group's first gval. */
static void grouped_time_table(const struct gval *gv, size_t n, int unsorted, const char *count_col,
			       const char *const *extra, size_t nextra,
			       void (*add_extra)(struct table *, const struct gval *,
						 const struct extra_ctx *),
			       const struct extra_ctx *ctx, struct table *tbl)
{
	size_t ng;
	struct group *g = make_groups(gv, n, unsorted, &ng);
	double total;

	if (ng)
		qsort(g, ng, sizeof(*g), cmp_total_desc);
	total = groups_total(g, ng);
	init_time_table(tbl, count_col, extra, nextra);
	for (size_t i = 0; i < ng; i++) {
		add_ratio(tbl, g[i].s.total, total);
		table_add_i64(tbl, g[i].s.total);
		table_add_i64(tbl, g[i].s.n);
		add_dur_stats(tbl, &g[i].s);
		add_extra(tbl, &gv[g[i].lo], ctx);
	}
	free(g);
}

static int report_nvtx_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
			   struct strbuf *msg, struct strbuf *err)
{
	static const char *const extra[] = {"Style", "Range"};
	struct time_check tc = {0};
	struct extra_ctx ctx = {0};
	struct gval *gv;
	int32_t *names;

	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (!t->has_nvtx)
		return skip(msg, t, NO_NVTX);
	if (trace_load(t, TRACE_NVTX, err))
		return -1;
	names = range_names(t, o);
	strtab_rank(&t->strs);
	gv = xcalloc(t->nranges + 1, sizeof(*gv));
	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		gv[i].k[0] = rank_of(t, names[i]);
		gv[i].k[1] = r->style;
		gv[i].v = (r->open ? t->nvtx_max_all : r->end) - r->start;
		if (!r->open)
			check_time(&tc, r->start, r->end);
	}
	warn_times(o, "nvtx_sum", "ranges", &tc);
	gval_sort_ranked(gv, t->nranges, t);
	ctx.t = t;
	ctx.inv = rank_to_id(t);
	grouped_time_table(gv, t->nranges, 1, "Instances", extra, 2, add_range_cols, &ctx, tbl);
	free(names);
	free(ctx.inv);
	free(gv);
	return 0;
}

/* cudaLaunchKernel_v7000 -> cudaLaunchKernel, as nsys's SQL does. */
static void add_api_name(struct table *tbl, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	char *cut;

	if (len >= 6 && s[len - 6] == '_' && s[len - 5] == 'v') {
		cut = xstrndup(s, len - 6);
		table_add_str(tbl, cut);
		free(cut);
	} else {
		table_add_str(tbl, s);
	}
}

/* The summary of timed calls, cuda_api_sum's and osrt_sum's: gv[0..n)
 * (key 0 the name's StringIds id, p its string id, v the duration)
 * grouped by name, ties in id order, ORDER BY total DESC, one row per
 * name: Time (%), Total Time, Num Calls, Avg ... StdDev, Name (written by
 * add_name). Frees gv. */
static void timed_calls_table(const struct trace *t, struct gval *gv, size_t n, struct table *tbl,
			      void (*add_name)(struct table *, const char *))
{
	static const char *const extra[] = {"Name"};
	struct extra_ctx ctx = {.t = t, .add_name = add_name};

	gval_sort(gv, n);
	grouped_time_table(gv, n, 0, "Num Calls", extra, 1, add_call_name, &ctx, tbl);
	free(gv);
}

static int report_api_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
			  struct strbuf *msg, struct strbuf *err)
{
	struct time_check tc = {0};
	struct gval *gv;

	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (!t->has_calls)
		return skip(msg, t, "does not contain CUDA trace data.");
	if (trace_load(t, TRACE_CALLS, err))
		return -1;
	strtab_rank(&t->strs);
	gv = xcalloc(t->ncalls + 1, sizeof(*gv));
	/* GROUP BY nameId: ties keep StringIds id order, not name order */
	for (size_t i = 0; i < t->ncalls; i++) {
		gv[i].k[0] = trace_csig(t, &t->calls[i])->name_sid;
		gv[i].p = trace_csig(t, &t->calls[i])->name;
		gv[i].v = t->calls[i].end - t->calls[i].start;
		check_time(&tc, t->calls[i].start, t->calls[i].end);
	}
	warn_times(o, "cuda_api_sum", "CUDA API calls", &tc);
	timed_calls_table(t, gv, t->ncalls, tbl, add_api_name);
	return 0;
}

static int report_mem(struct trace *t, const struct nsysstats_opts *o, int by_size,
		      struct table *tbl, struct strbuf *msg, struct strbuf *err)
{
	static const char *const extra[] = {"Operation"};
	static const char *const size_cols[] = {"Total (MB)",  "Count",	   "Avg (MB)",
						"Med (MB)",    "Min (MB)", "Max (MB)",
						"StdDev (MB)", "Operation"};
	struct time_check tc = {0};
	struct gval *gv;
	struct group *g;
	size_t ng, n = 0;
	int32_t *inv;
	double total;

	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (t->has_memcpy && !t->has_memcpy_enum)
		return skip(msg, t, "does not contain ENUM_CUDA_MEMCPY_OPER table.");
	if (!t->has_memcpy && !t->has_memset)
		return skip(msg, t, "does not contain GPU memory data.");
	if (trace_load(t, TRACE_MEMOPS, err))
		return -1;
	strtab_rank(&t->strs);
	gv = xcalloc(t->nmemops + 1, sizeof(*gv));
	for (size_t i = 0; i < t->nmemops; i++) {
		const struct trace_memop *m = &t->memops[i];

		if (m->name < 0)
			continue; /* nsys inner-joins the copy kind */
		gv[n].k[0] = rank_of(t, m->name);
		gv[n].v = by_size ? m->bytes : m->end - m->start;
		if (!by_size)
			check_time(&tc, m->start, m->end);
		n++;
	}
	warn_times(o, "cuda_gpu_mem_time_sum", "copies and sets", &tc);
	gval_sort(gv, n);
	g = make_groups(gv, n, 0, &ng);
	if (ng)
		qsort(g, ng, sizeof(*g), cmp_total_desc);
	total = groups_total(g, ng);
	inv = rank_to_id(t);
	if (by_size) {
		_Static_assert(ARRAY_SIZE(size_cols) == 8, "one kind per column");
		table_init_names(tbl, "rrrrrrrl", size_cols);
	} else {
		init_time_table(tbl, "Count", extra, 1);
	}
	for (size_t i = 0; i < ng; i++) {
		const struct nsys_summary *s = &g[i].s;

		if (by_size) {
			table_add_mb(tbl, (double)s->total);
			table_add_i64(tbl, s->n);
			table_add_mb(tbl, s->avg);
			table_add_mb(tbl, s->med);
			table_add_mb(tbl, (double)s->min);
			table_add_mb(tbl, (double)s->max);
			table_add_mb(tbl, s->stddev);
		} else {
			add_ratio(tbl, s->total, total);
			table_add_i64(tbl, s->total);
			table_add_i64(tbl, s->n);
			add_dur_stats(tbl, s);
		}
		table_add_str(tbl, rank_name(inv, t, gv[g[i].lo].k[0]));
	}
	free(inv);
	free(g);
	free(gv);
	return 0;
}

static int proj_checks(const struct trace *t, int need_kernels, struct strbuf *msg)
{
	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (!t->has_nvtx)
		return skip(msg, t, NO_NVTX);
	if (need_kernels && !t->has_kernels)
		return skip(msg, t, NO_KERNELS);
	if (!t->has_calls)
		return skip(msg, t, NO_API);
	if (!t->has_kernels && !t->has_memcpy && !t->has_memset)
		return skip(msg, t, "does not contain GPU operation data.");
	return 0;
}

static int report_proj_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
			   struct strbuf *msg, struct strbuf *err)
{
	static const char *const cols[] = {
	    "Range",
	    "Style",
	    "Total Proj Time (ns)",
	    "Total Range Time (ns)",
	    "Range Instances",
	    "Proj Avg (ns)",
	    "Proj Med (ns)",
	    "Proj Min (ns)",
	    "Proj Max (ns)",
	    "Proj StdDev (ns)",
	    "Total GPU Ops",
	    "Avg GPU Ops",
	    "Avg Range Lvl",
	    "Avg Num Child",
	};
	struct nvtx_proj p;
	struct gval *gv;
	struct group *g;
	size_t ng, n = 0;
	int32_t *inv, *names;
	int rc = proj_checks(t, 0, msg);

	if (rc)
		return rc;
	if (trace_load(t, TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX, err))
		return -1;
	if (o && o->ahead && o->ahead->t == t) {
		nvtx_proj_wait(o->ahead);
		p = o->ahead->p;
		o->ahead->t = NULL; /* taken */
	} else {
		nvtx_proj_compute(&p, t, NVTX_PROJ_NO_INNER);
	}
	names = range_names(t, o);
	strtab_rank(&t->strs);
	gv = xcalloc(t->nranges + 1, sizeof(*gv));
	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];

		if (!p.candidate[i] || !p.nops[i] || names[i] < 0)
			continue;
		gv[n].k[0] = rank_of(t, names[i]);
		gv[n].k[1] = r->style;
		gv[n].v = p.proj_end[i] - p.proj_start[i];
		gv[n].p = (int64_t)i;
		n++;
	}
	gval_sort_ranked(gv, n, t);
	g = make_groups(gv, n, 1, &ng);
	for (size_t i = 0; i < ng; i++) {
		for (size_t j = g[i].lo; j < g[i].hi; j++) {
			size_t r = (size_t)gv[j].p;

			g[i].x[0] =
			    i64_sat_add(g[i].x[0], i64_sat_sub(trace_range_end(t, &t->ranges[r]),
							       t->ranges[r].start));
			g[i].x[1] += p.nops[r];
			g[i].x[2] += p.level[r];
			g[i].x[3] += p.nchild_ops[r];
		}
	}
	if (ng)
		qsort(g, ng, sizeof(*g), cmp_total_desc);
	inv = rank_to_id(t);
	_Static_assert(ARRAY_SIZE(cols) == 14, "one kind per column");
	table_init_names(tbl, "llrrrrrrrrrrrr", cols);
	for (size_t i = 0; i < ng; i++) {
		const struct nsys_summary *s = &g[i].s;
		double n_inst = (double)s->n;

		table_add_str(tbl, rank_name(inv, t, gv[g[i].lo].k[0]));
		table_add_str(tbl, style_name(gv[g[i].lo].k[1]));
		table_add_i64(tbl, s->total);
		table_add_i64(tbl, g[i].x[0]);
		table_add_i64(tbl, s->n);
		add_dur_stats(tbl, s);
		table_add_i64(tbl, g[i].x[1]);
		add_round1(tbl, (double)g[i].x[1] / n_inst);
		add_round1(tbl, (double)g[i].x[2] / n_inst);
		add_round1(tbl, (double)g[i].x[3] / n_inst);
	}
	free(names);
	free(inv);
	free(g);
	free(gv);
	nvtx_proj_release(&p);
	return 0;
}

/* ORDER BY range name, pid, tid, total DESC; ties in group (key) order. */
static int cmp_nvtxkern(const void *a, const void *b)
{
	const struct nvtxkern_group *x = a, *y = b;

	if (x->key[2] != y->key[2])
		return x->key[2] < y->key[2] ? -1 : 1;
	if (x->key[0] != y->key[0])
		return x->key[0] < y->key[0] ? -1 : 1;
	if (x->key[1] != y->key[1])
		return x->key[1] < y->key[1] ? -1 : 1;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int report_nvtx_kern_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
				struct strbuf *msg, struct strbuf *err)
{
	static const char *const cols[] = {
	    "NVTX Range", "Style",	     "PID",	    "TID",	"NVTX Inst",
	    "Kern Inst",  "Total Time (ns)", "Avg (ns)",    "Med (ns)", "Min (ns)",
	    "Max (ns)",	  "StdDev (ns)",     "Kernel Name",
	};
	struct nvtxkern_group *g;
	size_t ng;
	int32_t *inv, *names;
	int rc = proj_checks(t, 1, msg);

	if (rc)
		return rc;
	if (trace_load(t, TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX, err))
		return -1;
	names = range_names(t, o);
	strtab_rank(&t->strs);
	g = nvtxkern_groups(t, names, &ng);
	if (ng)
		qsort(g, ng, sizeof(*g), cmp_nvtxkern);
	inv = rank_to_id(t);
	_Static_assert(ARRAY_SIZE(cols) == 13, "one kind per column");
	table_init_names(tbl, "llrrrrrrrrrrl", cols);
	for (size_t i = 0; i < ng; i++) {
		const int64_t *k = g[i].key;

		table_add_str(tbl, rank_name(inv, t, k[2]));
		table_add_str(tbl, style_name(k[3]));
		if (k[0] < 0) {
			table_add_null(tbl);
			table_add_null(tbl);
		} else {
			table_add_i64(tbl, k[0]);
			table_add_i64(tbl, k[1]);
		}
		table_add_i64(tbl, g[i].ranges);
		table_add_i64(tbl, g[i].kernels);
		table_add_i64(tbl, g[i].s.total);
		add_dur_stats(tbl, &g[i].s);
		table_add_str(tbl, rank_name(inv, t, k[4]));
	}
	free(names);
	free(inv);
	free(g);
	return 0;
}

/* osrt_sum: OSRT_API rows of eventClass 27 grouped by nameId (ties in
 * nameId order), ORDER BY total DESC; the name LEFT JOINed from StringIds. */
static int report_osrt_sum(struct trace *t, const struct nsysstats_opts *o, struct table *tbl,
			   struct strbuf *msg, struct strbuf *err)
{
	struct time_check tc = {0};
	struct trace_osrt *rows;
	struct gval *gv;
	size_t n;

	if (!t->has_strings)
		return skip(msg, t, NO_STRINGS);
	if (!t->has_osrt)
		return skip(msg, t, "does not contain OS Runtime trace data.");
	if (trace_osrt_calls(t, &rows, &n, err))
		return -1;
	gv = xcalloc(n + 1, sizeof(*gv));
	for (size_t i = 0; i < n; i++) {
		gv[i].k[0] = rows[i].name_sid;
		gv[i].p = rows[i].name;
		gv[i].v = i64_sat_sub(rows[i].end, rows[i].start);
		check_time(&tc, rows[i].start, rows[i].end);
	}
	free(rows);
	warn_times(o, "osrt_sum", "OS runtime calls", &tc);
	timed_calls_table(t, gv, n, tbl, table_add_str);
	return 0;
}

int nsysstats_build(struct trace *t, const char *name, const struct nsysstats_opts *o,
		    struct table *tbl, struct strbuf *msg, struct strbuf *err)
{
	round_rule = o ? o->rounding : NSYS_ROUND_SQLITE_3_42;
	if (!strcmp(name, "cuda_gpu_kern_sum"))
		return report_kern_sum(t, o, tbl, msg, err);
	if (!strcmp(name, "nvtx_sum"))
		return report_nvtx_sum(t, o, tbl, msg, err);
	if (!strcmp(name, "nvtx_gpu_proj_sum"))
		return report_proj_sum(t, o, tbl, msg, err);
	if (!strcmp(name, "nvtx_kern_sum"))
		return report_nvtx_kern_sum(t, o, tbl, msg, err);
	if (!strcmp(name, "cuda_api_sum"))
		return report_api_sum(t, o, tbl, msg, err);
	if (!strcmp(name, "cuda_gpu_mem_time_sum"))
		return report_mem(t, o, 0, tbl, msg, err);
	if (!strcmp(name, "cuda_gpu_mem_size_sum"))
		return report_mem(t, o, 1, tbl, msg, err);
	if (!strcmp(name, "osrt_sum"))
		return report_osrt_sum(t, o, tbl, msg, err);
	return error_set(err, "unknown report '%s'", name);
}

unsigned nsysstats_parts(const struct trace *t, const char *name)
{
	struct strbuf msg = STRBUF_INIT;
	unsigned parts = 0;
	int proj = !strcmp(name, "nvtx_gpu_proj_sum"), kern = !strcmp(name, "nvtx_kern_sum");

	/* each report's own SKIPPED checks, the same order */
	if (!t->has_strings)
		parts = 0;
	else if (proj || kern)
		parts = proj_checks(t, kern, &msg)
			    ? 0
			    : TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX;
	else if (!strcmp(name, "cuda_gpu_kern_sum"))
		parts = t->has_kernels ? TRACE_KERNELS : 0;
	else if (!strcmp(name, "nvtx_sum"))
		parts = t->has_nvtx ? TRACE_NVTX : 0;
	else if (!strcmp(name, "cuda_api_sum"))
		parts = t->has_calls ? TRACE_CALLS : 0;
	else if (!strcmp(name, "cuda_gpu_mem_time_sum") || !strcmp(name, "cuda_gpu_mem_size_sum"))
		parts = (t->has_memcpy && !t->has_memcpy_enum) || (!t->has_memcpy && !t->has_memset)
			    ? 0
			    : TRACE_MEMOPS;
	strbuf_release(&msg);
	return parts;
}

int nsysstats_ahead(const struct trace *t, const char *list, struct nvtx_proj_ahead *a)
{
	char *names = xstrdup(list), *save = NULL;
	unsigned parts = 0;
	int before = 0, proj = 0;

	memset(a, 0, sizeof(*a));
	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		if (!nsysstats_known(r))
			continue;
		parts |= nsysstats_parts(t, r);
		if (!strcmp(r, "nvtx_gpu_proj_sum"))
			proj = proj || before;
		before = 1;
	}
	free(names);
	/* a report that loads a part (one that failed to load before) would
	 * write what the projection reads */
	if (!proj || !nsysstats_parts(t, "nvtx_gpu_proj_sum") || (t->loaded & parts) != parts)
		return 0;
	return !nvtx_proj_start(a, t, NVTX_PROJ_NO_INNER);
}

void nsysstats_ahead_end(struct nvtx_proj_ahead *a)
{
	if (!a->t)
		return;
	nvtx_proj_wait(a);
	nvtx_proj_release(&a->p);
	a->t = NULL;
}
