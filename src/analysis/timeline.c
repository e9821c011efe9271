/* timeline.c: stage timings, operators and kernel summaries.
 *
 * Sums and spans of nanosecond times saturate (i64_sat_add, i64_sat_sub): a
 * damaged trace (times near the loader's +-2^62 ns clamp) must give absurd
 * totals, not undefined behaviour. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "analysis/nvtxproj.h"
#include "analysis/timeline.h"
#include "analysis/timeline_priv.h"
#include "core/error.h"
#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/csv.h"
#include "core/banned.h"

static const char *const default_prefill[] = {"LLM@prefill", "prefill"};
static const char *const default_decode[] = {"LLM@decode_all", "decode"};
static const char *const default_step[] = {"LLM@decode_step", "decode_step"};

void stage_config_default(struct stage_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->stages[STAGE_PREFILL] = (struct stage_spec){STAGE_PREFILL, default_prefill, 2};
	cfg->stages[STAGE_DECODE] = (struct stage_spec){STAGE_DECODE, default_decode, 2};
	cfg->stages[STAGE_DECODE_STEP] = (struct stage_spec){STAGE_DECODE_STEP, default_step, 2};
	cfg->operator_pattern = ".";
}

const char *stage_role_name(enum stage_role role)
{
	switch (role) {
	case STAGE_PREFILL:
		return "prefill";
	case STAGE_DECODE:
		return "decode";
	case STAGE_DECODE_STEP:
		return "decode_step";
	case STAGE_NROLES:
		break;
	}
	return "?";
}

/* Compares spec[0..len) with s, reading "\@" in spec as "@". */
static int unescaped_equal(const char *spec, size_t len, const char *s)
{
	size_t i = 0;

	for (; i < len; i++, s++) {
		if (spec[i] == '\\' && i + 1 < len && spec[i + 1] == '@')
			i++;
		if (*s != spec[i])
			return 0;
	}
	return *s == '\0';
}

int stage_name_matches(const char *spec, const char *text, const char *domain)
{
	const char *at = NULL;
	size_t len = strlen(spec);

	if (!text)
		return 0;
	/* the last unescaped '@' splits range from domain, as in nsys */
	for (size_t i = 0; i < len; i++) {
		if (spec[i] == '\\' && spec[i + 1] == '@')
			i++;
		else if (spec[i] == '@')
			at = spec + i;
	}
	if (!at || !strcmp(at + 1, "*"))
		return unescaped_equal(spec, at ? (size_t)(at - spec) : len, text);
	if (!domain)
		return 0;
	if (unescaped_equal(at + 1, strlen(at + 1), domain) &&
	    unescaped_equal(spec, (size_t)(at - spec), text))
		return 1;
	/* SCHEMA.md's defaults ("LLM@prefill") are written domain@range, the
	 * ncu order: accept that orientation too. */
	return unescaped_equal(spec, (size_t)(at - spec), domain) &&
	       unescaped_equal(at + 1, strlen(at + 1), text);
}

double percentile_sorted(const int64_t *v, size_t n, double pct)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return 0;
	pos = pct / 100.0 * (double)(n - 1);
	lo = (size_t)floor(pos);
	if (lo + 1 >= n)
		return (double)v[n - 1];
	frac = pos - (double)lo;
	/* the difference in double: saturated sums of a damaged trace can be
	 * 2^63 apart, beyond int64 */
	return (double)v[lo] + frac * ((double)v[lo + 1] - (double)v[lo]);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct ival {
	int64_t s, e;
};

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

/* Pair indices (timeline_build) sorted by their op's [start, end]. */
static const struct trace *pair_trace;
static const struct proj_pair *pair_v;

static struct ival pair_ival(uint32_t i)
{
	uint32_t op = pair_v[i].op;
	const struct trace *t = pair_trace;
	struct ival v;

	if (op < t->nkernels) {
		v.s = t->kernels[op].start;
		v.e = t->kernels[op].end;
	} else {
		v.s = t->memops[op - t->nkernels].start;
		v.e = t->memops[op - t->nkernels].end;
	}
	return v;
}

static int cmp_pair_ival(const void *a, const void *b)
{
	struct ival x = pair_ival(*(const uint32_t *)a), y = pair_ival(*(const uint32_t *)b);

	return cmp_ival(&x, &y);
}

struct step_count {
	int64_t start;
	int64_t done;  /* the later of the range's end and its GPU work's end */
	int64_t gtid;  /* the thread that pushed it */
	int64_t group; /* the decode instance holding its start; -1 none */
	int64_t floor; /* when the prefill before it was done; INT64_MIN none */
	size_t kernels;
};

static int cmp_step_count(const void *a, const void *b)
{
	const struct step_count *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_step_group(const void *a, const void *b)
{
	const struct step_count *x = a, *y = b;

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return cmp_step_count(a, b);
}

struct decode_ival {
	int64_t gtid, start, end;
};

static int cmp_decode_ival(const void *a, const void *b)
{
	const struct decode_ival *x = a, *y = b;

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The ranges of one stage role as (thread, start, end) sorted by thread and
 * start (owned by the caller); with done, the end is the later of the
 * range's end and its GPU work's end, turned into the running maximum over
 * the thread's earlier ranges. */
static struct decode_ival *role_ivals(const struct trace *t, const uint8_t *stage_mask,
				      const struct nvtx_proj *p, enum stage_role role, int done,
				      size_t *n)
{
	struct decode_ival *d = xmalloc(st_mult(t->nranges + 1, sizeof(*d)));
	size_t nd = 0;

	for (size_t r = 0; r < t->nranges; r++)
		if (stage_mask[r] & (1u << role)) {
			d[nd].gtid = t->ranges[r].gtid;
			d[nd].start = t->ranges[r].start;
			d[nd].end = trace_range_end(t, &t->ranges[r]);
			if (done && p->nops[r] && p->proj_end[r] > d[nd].end)
				d[nd].end = p->proj_end[r];
			nd++;
		}
	qsort(d, nd, sizeof(*d), cmp_decode_ival);
	for (size_t i = 1; done && i < nd; i++)
		if (d[i].gtid == d[i - 1].gtid && d[i - 1].end > d[i].end)
			d[i].end = d[i - 1].end;
	*n = nd;
	return d;
}

/* The last of d[0..nd) on thread gtid that started at or before ts; -1 none. */
static ptrdiff_t ival_before(const struct decode_ival *d, size_t nd, int64_t gtid, int64_t ts)
{
	size_t lo = 0, hi = nd;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d[mid].gtid < gtid || (d[mid].gtid == gtid && d[mid].start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && d[lo - 1].gtid == gtid ? (ptrdiff_t)lo - 1 : -1;
}

/* Which decode instance holds each step's start, on the step's thread (the
 * last decode range there that started at or before it and had not ended),
 * and when the prefill before it on that thread was done (GPU work
 * included): the decode cannot start before. */
static void step_groups(const struct trace *t, const uint8_t *stage_mask, const struct nvtx_proj *p,
			struct step_count *steps, size_t n)
{
	size_t nd, np;
	struct decode_ival *d = role_ivals(t, stage_mask, p, STAGE_DECODE, 0, &nd);
	struct decode_ival *pre = role_ivals(t, stage_mask, p, STAGE_PREFILL, 1, &np);

	for (size_t i = 0; i < n; i++) {
		ptrdiff_t k = ival_before(d, nd, steps[i].gtid, steps[i].start);

		steps[i].group = k >= 0 && d[k].end >= steps[i].start ? (int64_t)k : -1;
		k = ival_before(pre, np, steps[i].gtid, steps[i].start);
		steps[i].floor = k >= 0 ? pre[k].end : INT64_MIN;
	}
	free(d);
	free(pre);
}

/* The decode time over the steps, host gaps included (docs/report.md
 * "TPOT"): the steps of one decode instance (per thread when no decode range
 * holds them) run from the first one's start to the last one's end, where a
 * step ends at the later of its range's end and its GPU work's end: when
 * its token exists. The first step starts at its range's start (its host
 * setup before its first kernel counts), or when the prefill before it on
 * its thread is done on the GPU, if later. Each step's period runs from the previous step's end
 * (the first: its own start) to its own, so the periods sum to the decode
 * time, their mean is the time per token, and a CPU that runs ahead of the
 * GPU does not make them jitter: a GPU-bound step ends with its kernels. */
static void step_walls(struct timeline *tl, const struct trace *t, const uint8_t *stage_mask,
		       const struct nvtx_proj *p, struct step_count *steps, size_t n)
{
	int64_t prev = 0;

	step_groups(t, stage_mask, p, steps, n);
	qsort(steps, n, sizeof(*steps), cmp_step_group);
	tl->step_period_ns = xmalloc(st_mult(n + 1, sizeof(*tl->step_period_ns)));
	for (size_t i = 0; i < n; i++) {
		int first = !i || steps[i - 1].gtid != steps[i].gtid ||
			    steps[i - 1].group != steps[i].group;
		int64_t done;

		/* a CPU ahead of the GPU starts the first step while the GPU
		 * still runs the prefill: the decode starts when that is done,
		 * where TTFT ends */
		if (first)
			prev = steps[i].floor > steps[i].start ? steps[i].floor : steps[i].start;
		done = steps[i].done > prev ? steps[i].done : prev;
		tl->step_period_ns[i] = i64_sat_sub(done, prev);
		tl->step_wall_ns = i64_sat_add(tl->step_wall_ns, tl->step_period_ns[i]);
		prev = done;
	}
	qsort(tl->step_period_ns, n, sizeof(*tl->step_period_ns), cmp_i64);
	tl->nstep_periods = n;
}

/* The length of one merged interval: saturated, and never negative for an
 * inverted one (end before start) from a damaged export. */
static int64_t ival_length(int64_t s, int64_t e)
{
	return e > s ? i64_sat_sub(e, s) : 0;
}

/* The length of the union of the ops of pairs idx[0..n) (sorting idx):
 * merged in start order. */
static int64_t union_length(const struct trace *t, const struct nvtx_proj *p, uint32_t *idx,
			    size_t n)
{
	int64_t total = 0, cs = 0, ce = 0;

	pair_trace = t;
	pair_v = p->pairs;
	qsort(idx, n, sizeof(*idx), cmp_pair_ival);
	for (size_t i = 0; i < n; i++) {
		struct ival v = pair_ival(idx[i]);

		if (i == 0 || v.s > ce) {
			total = i64_sat_add(total, ival_length(cs, ce));
			cs = v.s;
			ce = v.e;
		} else if (v.e > ce) {
			ce = v.e;
		}
	}
	pair_trace = NULL;
	pair_v = NULL;
	return i64_sat_add(total, ival_length(cs, ce));
}

/* ---- kernel summaries ---- */

/* Launches sorted by index (4 bytes each, not a copy of their fields):
 * name id, then the launch configuration when by_config, then duration. */
static const struct trace *kent_trace;
static int by_config_sort;

static void kent_cfg(const struct trace_ksig *k, int32_t cfg[6])
{
	memset(cfg, 0, 6 * sizeof(*cfg));
	if (by_config_sort) {
		memcpy(cfg, k->grid, sizeof(k->grid));
		memcpy(cfg + 3, k->block, sizeof(k->block));
	}
}

/* grid[3] then block[3]: contiguous in struct trace_ksig */
#define KENT_CFG_BYTES (6 * sizeof(int32_t))
_Static_assert(offsetof(struct trace_ksig, block) ==
		   offsetof(struct trace_ksig, grid) + 3 * sizeof(int32_t),
	       "block follows grid");

static int cmp_kent(const void *a, const void *b)
{
	const struct trace_kernel *x = &kent_trace->kernels[*(const uint32_t *)a];
	const struct trace_kernel *y = &kent_trace->kernels[*(const uint32_t *)b];
	const struct trace_ksig *xs = trace_ksig(kent_trace, x), *ys = trace_ksig(kent_trace, y);
	int64_t dx = x->end - x->start, dy = y->end - y->start;

	if (xs->name != ys->name)
		return xs->name < ys->name ? -1 : 1;
	if (by_config_sort) {
		int c = memcmp(xs->grid, ys->grid, KENT_CFG_BYTES);

		if (c)
			return c;
	}
	return dx < dy ? -1 : dx > dy;
}

static const struct strtab *sort_strs;

static int cmp_kstat(const void *a, const void *b)
{
	const struct kernel_stat *x = a, *y = b;
	const char *nx, *ny;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	nx = strtab_str(sort_strs, x->name);
	ny = strtab_str(sort_strs, y->name);
	c = strcmp(nx ? nx : "", ny ? ny : "");
	if (c)
		return c;
	return memcmp(x->grid, y->grid, sizeof(int32_t) * 6);
}

static void sort_summary(struct kernel_summary *ks, const struct strtab *strs)
{
	sort_strs = strs;
	if (ks->nrows)
		qsort(ks->rows, ks->nrows, sizeof(*ks->rows), cmp_kstat);
	sort_strs = NULL;
	for (size_t i = 0; i < ks->nrows; i++)
		ks->rows[i].share = ks->total_ns ? (double)ks->rows[i].total_ns / ks->total_ns : 0;
}

/* Adds the row of one group of durations (sorted ascending unless
 * unsorted; then reordered). */
static void summary_add_row(struct kernel_summary *ks, size_t *alloc, int32_t name,
			    const int32_t cfg[6], int64_t *vals, size_t n, int unsorted)
{
	struct kernel_stat *s;
	struct nsys_summary sum;

	if (unsorted)
		nsys_summarize_unsorted(vals, n, &sum);
	else
		nsys_summarize(vals, n, &sum);
	ALLOC_GROW(ks->rows, ks->nrows + 1, *alloc);
	s = &ks->rows[ks->nrows++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	memcpy(s->grid, cfg, sizeof(s->grid));
	memcpy(s->block, cfg + 3, sizeof(s->block));
	s->calls = (size_t)sum.n;
	s->total_ns = sum.total;
	s->min_ns = sum.min;
	s->max_ns = sum.max;
	s->avg_ns = sum.avg;
	s->med_ns = sum.med;
	s->stddev_ns = sum.stddev;
	ks->total_ns = i64_sat_add(ks->total_ns, sum.total);
	ks->calls += (size_t)sum.n;
}

/* The by-name summary without sorting the launches: durations bucketed by
 * name id (the order the sort by name gives), then each bucket summarized,
 * its median selected rather than sorted: the same rows, a fraction of the
 * time on a million kernels. 0, or -1 when a name id is outside the string
 * table (the caller sorts instead). */
static int summary_by_name(struct kernel_summary *ks, const struct trace *t,
			   const uint8_t *kernel_stages, unsigned mask)
{
	size_t nb = t->strs.nr + 2, alloc = 0, *start;
	int64_t *vals;
	static const int32_t nocfg[6];

	for (size_t i = 0; i < t->ksigs.nr; i++) {
		const struct trace_ksig *k = rectab_get(&t->ksigs, (uint32_t)i);

		if (k->name < -1 || (size_t)(k->name + 1) >= nb - 1)
			return -1;
	}
	start = xcalloc(nb + 1, sizeof(*start));
	vals = xmalloc(st_mult(t->nkernels + 1, sizeof(*vals)));
	for (size_t i = 0; i < t->nkernels; i++)
		if (!mask || (kernel_stages && (kernel_stages[i] & mask)))
			start[trace_ksig(t, &t->kernels[i])->name + 2]++;
	for (size_t b = 1; b <= nb; b++)
		start[b] += start[b - 1];
	for (size_t i = 0; i < t->nkernels; i++)
		if (!mask || (kernel_stages && (kernel_stages[i] & mask)))
			vals[start[trace_ksig(t, &t->kernels[i])->name + 1]++] =
			    t->kernels[i].end - t->kernels[i].start;
	/* start[b] is now the end of bucket b, the start of bucket b + 1 */
	for (size_t b = 0, lo = 0; b + 1 < nb; lo = start[b++]) {
		size_t n = start[b] - lo;

		if (!n)
			continue;
		summary_add_row(ks, &alloc, (int32_t)b - 1, nocfg, vals + lo, n, 1);
	}
	free(start);
	free(vals);
	return 0;
}

void kernel_summary_build(struct kernel_summary *ks, const struct trace *t,
			  const uint8_t *kernel_stages, unsigned mask, int by_config)
{
	uint32_t *e;
	int64_t *vals;
	size_t n = 0, alloc = 0;

	memset(ks, 0, sizeof(*ks));
	if (!by_config && !summary_by_name(ks, t, kernel_stages, mask)) {
		sort_summary(ks, &t->strs);
		return;
	}
	e = xmalloc(st_mult(t->nkernels + 1, sizeof(*e)));
	vals = xmalloc(st_mult(t->nkernels + 1, sizeof(*vals)));
	for (size_t i = 0; i < t->nkernels; i++)
		if (!mask || (kernel_stages && (kernel_stages[i] & mask)))
			e[n++] = (uint32_t)i;
	by_config_sort = by_config;
	kent_trace = t;
	qsort(e, n, sizeof(*e), cmp_kent);
	kent_trace = NULL;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const struct trace_ksig *kl = trace_ksig(t, &t->kernels[e[lo]]);
		int32_t cl[6];

		kent_cfg(kl, cl);
		for (hi = lo; hi < n; hi++) {
			const struct trace_kernel *kh = &t->kernels[e[hi]];
			const struct trace_ksig *hs = trace_ksig(t, kh);

			if (hs->name != kl->name ||
			    (by_config && memcmp(hs->grid, kl->grid, KENT_CFG_BYTES)))
				break;
			vals[hi - lo] = kh->end - kh->start;
		}
		summary_add_row(ks, &alloc, kl->name, cl, vals, hi - lo, 0);
	}
	sort_summary(ks, &t->strs);
	free(e);
	free(vals);
}

void kernel_summary_release(struct kernel_summary *ks)
{
	free(ks->rows);
	memset(ks, 0, sizeof(*ks));
}

/* The header row's columns: col[i] = the column of want[i], -1 when absent. */
static int kern_sum_header(struct csv_reader *r, const char *const *want, size_t nwant, int *col,
			   size_t *ncols, struct strbuf *err)
{
	struct strbuf f = STRBUF_INIT;

	for (size_t i = 0; i < nwant; i++)
		col[i] = -1;
	if (csv_reader_next(r, err) < 0)
		return -1;
	*ncols = r->nr;
	for (size_t c = 0; c < r->nr; c++) {
		strbuf_reset(&f);
		csv_field_unescape(&r->fields[c], &f);
		for (size_t i = 0; i < nwant; i++)
			if (!strcmp(f.buf, want[i]))
				col[i] = (int)c;
	}
	strbuf_release(&f);
	return 0;
}

/* Reads an `nsys stats` cuda_gpu_kern_sum CSV with trace/csv.h in its
 * dialect (lenient_quotes: names are quoted when they hold a comma, their
 * quotes left undoubled). */
int kernel_summary_read_csv(struct kernel_summary *ks, struct strtab *strs, const char *buf,
			    size_t len, const char *path, struct strbuf *err)
{
	static const char *const want[] = {"Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)",
					   "Min (ns)",	      "Max (ns)",  "Name"};
	int col[ARRAY_SIZE(want)];
	const char *p = buf, *end = buf + len;
	struct strbuf e2 = STRBUF_INIT;
	struct csv_reader r;
	size_t ncols = 0, line = 1, alloc = 0;
	int ret = -1, rc;
	char *vals[16] = {NULL};

	memset(ks, 0, sizeof(*ks));
	/* nsys may print "Processing [...]" lines before the header */
	while (p < end && !starts_with(p, "Time (%)")) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			p = end;
			break;
		}
		p = nl + 1;
		line++;
	}
	csv_reader_init(&r, p, (size_t)(end - p), path);
	r.lenient_quotes = 1;
	r.line = line;
	if (p >= end) {
		error_set(err, "%s: not an nsys cuda_gpu_kern_sum CSV (no 'Time (%%)' header)",
			  path);
		goto cleanup;
	}
	if (kern_sum_header(&r, want, ARRAY_SIZE(want), col, &ncols, err))
		goto cleanup;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (col[i] < 0 && i != 3) {
			error_set(err, "%s:%zu: the header lacks column '%s'", path, line, want[i]);
			goto cleanup;
		}
	if (ncols > ARRAY_SIZE(vals)) {
		error_set(err, "%s:%zu: %zu columns; a cuda_gpu_kern_sum CSV has 9", path, line,
			  ncols);
		goto cleanup;
	}
	while ((rc = csv_reader_next(&r, err)) > 0) {
		struct kernel_stat *s;
		int64_t v[6] = {0};
		double d;

		line = r.record_line;
		if (r.nr == 1 && !r.fields[0].len)
			continue; /* a line of "" */
		if (r.nr != ncols) {
			error_set(err, "%s:%zu:1: %zu fields, the header has %zu", path, line, r.nr,
				  ncols);
			goto cleanup;
		}
		for (size_t c = 0; c < r.nr; c++) {
			strbuf_reset(&e2);
			csv_field_unescape(&r.fields[c], &e2);
			free(vals[c]);
			vals[c] = strbuf_detach(&e2, NULL);
		}
		for (size_t i = 0; i < 6; i++) {
			if (col[i] < 0)
				continue;
			strbuf_reset(&e2);
			if (parse_double(vals[col[i]], &d, &e2) || d < 0) {
				error_set(err, "%s:%zu:%d: %s: '%s' is not a number", path, line,
					  col[i] + 1, want[i], vals[col[i]]);
				goto cleanup;
			}
			v[i] = (int64_t)llround(d);
		}
		ALLOC_GROW(ks->rows, ks->nrows + 1, alloc);
		s = &ks->rows[ks->nrows++];
		memset(s, 0, sizeof(*s));
		s->name = strtab_intern(strs, vals[col[6]], strlen(vals[col[6]]));
		s->total_ns = v[0];
		s->calls = (size_t)v[1];
		parse_double(vals[col[2]], &s->avg_ns, &e2);
		if (col[3] >= 0)
			parse_double(vals[col[3]], &s->med_ns, &e2);
		s->min_ns = v[4];
		s->max_ns = v[5];
		ks->total_ns = i64_sat_add(ks->total_ns, s->total_ns);
		ks->calls += s->calls;
	}
	if (rc < 0) {
		if (r.cut) {
			strbuf_reset(err);
			error_set(err, "%s:%zu: a quoted field is not closed (truncated file?)",
				  path, r.record_line);
		}
		goto cleanup;
	}
	sort_summary(ks, strs);
	ret = 0;
cleanup:
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++)
		free(vals[i]);
	csv_reader_release(&r);
	strbuf_release(&e2);
	if (ret)
		kernel_summary_release(ks);
	return ret;
}

/* ---- stages ---- */

/* A copy between host and device memory ("[CUDA memcpy Host-to-Device]",
 * "Device-to-Host"; pinned or pageable), not a device-side copy or memset. */
static int host_copy(const struct trace *t, const struct trace_memop *m)
{
	const char *n =
	    m->kind == TRACE_MEMCPY && m->name >= 0 ? strtab_str(&t->strs, m->name) : NULL;

	return n && (strstr(n, "Host-to-Device") || strstr(n, "Device-to-Host") ||
		     strstr(n, "HtoD") || strstr(n, "DtoH"));
}

static int cmp_memop_stat(const void *a, const void *b)
{
	const struct memop_stat *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static void build_memops(struct timeline *tl, const struct trace *t)
{
	size_t alloc = 0;

	for (size_t i = 0; i < t->nmemops; i++) {
		const struct trace_memop *m = &t->memops[i];
		struct memop_stat *s = NULL;

		for (size_t j = 0; j < tl->nmemop_stats; j++)
			if (tl->memops[j].name == m->name)
				s = &tl->memops[j];
		if (!s) {
			ALLOC_GROW(tl->memops, tl->nmemop_stats + 1, alloc);
			s = &tl->memops[tl->nmemop_stats++];
			memset(s, 0, sizeof(*s));
			s->name = m->name;
		}
		s->count++;
		s->total_ns = i64_sat_add(s->total_ns, i64_sat_sub(m->end, m->start));
		s->bytes = i64_sat_add(s->bytes, m->bytes);
		tl->memop_ns = i64_sat_add(tl->memop_ns, i64_sat_sub(m->end, m->start));
	}
	if (tl->nmemop_stats)
		qsort(tl->memops, tl->nmemop_stats, sizeof(*tl->memops), cmp_memop_stat);
}

/* Which ranges are stage instances: a mask of 1 << enum stage_role per range. */
static uint8_t *stage_ranges(const struct trace *t, const struct stage_config *cfg)
{
	uint8_t *stage_mask = xcalloc(t->nranges + 1, 1);

	for (size_t r = 0; r < t->nranges; r++) {
		const char *text = strtab_str(&t->strs, t->ranges[r].text);
		const char *dom = strtab_str(&t->strs, t->ranges[r].domain);

		for (int s = 0; s < STAGE_NROLES; s++)
			for (size_t i = 0; i < cfg->stages[s].nnames; i++)
				if (stage_name_matches(cfg->stages[s].names[i], text, dom))
					stage_mask[r] |= (uint8_t)(1u << s);
	}
	return stage_mask;
}

/* GPU ops of each range: a counting sort of the pairs by range. Returns the
 * pair indices; range r's are [(*startp)[r], (*startp)[r + 1]). */
static uint32_t *pairs_by_range(const struct nvtx_proj *p, size_t nranges, uint32_t **startp)
{
	uint32_t *start = xcalloc(nranges + 2, sizeof(*start));
	uint32_t *by_range = xmalloc(st_mult(p->npairs + 1, sizeof(*by_range)));

	for (size_t i = 0; i < p->npairs; i++)
		if (p->pairs[i].range >= 0)
			start[p->pairs[i].range + 1]++;
	for (size_t r = 0; r < nranges; r++)
		start[r + 1] += start[r];
	for (size_t i = 0; i < p->npairs; i++)
		if (p->pairs[i].range >= 0)
			by_range[start[p->pairs[i].range]++] = (uint32_t)i;
	for (size_t r = nranges; r > 0; r--)
		start[r] = start[r - 1];
	start[0] = 0;
	*startp = start;
	return by_range;
}

/* Launch rate and the distribution of per-instance GPU time of each stage. */
static void stage_distributions(struct timeline *tl, int64_t *inst_proj[STAGE_NROLES],
				const size_t inst_n[STAGE_NROLES])
{
	for (int s = 0; s < STAGE_NROLES; s++) {
		struct stage_timing *st = &tl->stages[s];
		size_t n = inst_n[s];

		if (st->cpu_ns > 0)
			st->launches_per_s = (double)st->launches * 1e9 / (double)st->cpu_ns;
		if (!n)
			continue;
		qsort(inst_proj[s], n, sizeof(int64_t), cmp_i64);
		st->mean_ns = 0;
		for (size_t i = 0; i < n; i++)
			st->mean_ns += (double)inst_proj[s][i];
		st->mean_ns /= (double)n;
		st->p50_ns = percentile_sorted(inst_proj[s], n, 50);
		st->p90_ns = percentile_sorted(inst_proj[s], n, 90);
		st->max_ns = inst_proj[s][n - 1];
		st->inst_ns = inst_proj[s]; /* the timeline owns it now */
		st->ninst = n;
		inst_proj[s] = NULL;
	}
}

/* Each stage's CPU samples, when the trace has any (cpusample.h). */
static void stage_cpu_samples(struct timeline *tl, struct trace *t, const uint8_t *stage_mask)
{
	struct trace_cpu_samples s;
	struct cpu_sample_use use[STAGE_NROLES];

	memset(&s, 0, sizeof(s));
	trace_cpu_samples_load(t, &s);
	tl->cpu_samples = s.n;
	trace_cpu_sampler_load(t, &tl->sampler);
	trace_cost_load(t, &tl->cost);
	if (s.n) {
		memset(use, 0, sizeof(use));
		cpu_samples_by_mask(use, STAGE_NROLES, t, stage_mask, &s, tl->api_complete);
		for (int r = 0; r < STAGE_NROLES; r++)
			tl->stages[r].samples = use[r];
	}
	trace_cpu_samples_release(&s);
}

int timeline_build(struct timeline *tl, struct trace *t, const struct stage_config *cfg,
		   struct strbuf *err)
{
	struct nvtx_proj p;
	uint8_t *stage_mask = NULL;
	uint32_t *by_range = NULL, *start = NULL, *call_seen = NULL;
	int64_t *inst_proj[STAGE_NROLES] = {NULL};
	size_t inst_n[STAGE_NROLES] = {0};
	struct step_count *steps = NULL;
	size_t nsteps = 0;

	memset(tl, 0, sizeof(*tl));
	if (trace_load(t, TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX, err))
		return -1;
	tl->have_kernels = t->has_kernels;
	tl->nkernels = t->nkernels;
	tl->nmemops = t->nmemops;
	for (size_t k = 0; k < t->nkernels; k++)
		tl->kernel_ns =
		    i64_sat_add(tl->kernel_ns, i64_sat_sub(t->kernels[k].end, t->kernels[k].start));
	/* the (op, range) pairs of the stage ranges only: those are read */
	stage_mask = stage_ranges(t, cfg);
	nvtx_proj_compute_for(&p, t, stage_mask);
	tl->ops_no_launch = p.nops_no_call;
	tl->kernels_no_launch = p.nkernels_no_call;

	by_range = pairs_by_range(&p, t->nranges, &start);

	tl->kernel_stages = xcalloc(t->nkernels + 1, 1);
	/* call_seen[c] = 1 + the last range that counted launch call c */
	call_seen = xcalloc(t->ncalls + 1, sizeof(*call_seen));
	for (int s = 0; s < STAGE_NROLES; s++)
		inst_proj[s] = xmalloc(st_mult(t->nranges + 1, sizeof(int64_t)));
	for (size_t r = 0; r < t->nranges; r++) {
		const struct trace_range *rg = &t->ranges[r];
		size_t lo = start[r], hi = start[r + 1], nk = 0, nc = 0, ncp = 0;
		int64_t busy, end, wall_end, kns = 0, cpns = 0, cpb = 0;
		int64_t proj = p.nops[r] ? i64_sat_sub(p.proj_end[r], p.proj_start[r]) : 0;

		if (!stage_mask[r])
			continue;
		tl->stage_cross_thread += rg->cross_thread;
		for (size_t i = lo; i < hi; i++) {
			const struct proj_pair *pp = &p.pairs[by_range[i]];
			int kern = pp->op < t->nkernels;
			const struct trace_memop *m =
			    kern ? NULL : &t->memops[pp->op - t->nkernels];

			if (kern) {
				kns = i64_sat_add(kns, i64_sat_sub(t->kernels[pp->op].end,
								   t->kernels[pp->op].start));
				nk++;
				tl->kernel_stages[pp->op] |= stage_mask[r];
			} else if (host_copy(t, m)) {
				ncp++;
				cpns = i64_sat_add(cpns, i64_sat_sub(m->end, m->start));
				cpb = i64_sat_add(cpb, m->bytes > 0 ? m->bytes : 0);
			}
			if (pp->call >= 0 && call_seen[pp->call] != r + 1) {
				call_seen[pp->call] = (uint32_t)r + 1;
				nc++;
			}
		}
		busy = union_length(t, &p, by_range + lo, hi - lo);
		if (stage_mask[r] & (1u << STAGE_DECODE_STEP)) {
			if (!steps)
				steps = xmalloc(st_mult(t->nranges + 1, sizeof(*steps)));
			steps[nsteps].start = rg->start;
			steps[nsteps].gtid = rg->gtid;
			steps[nsteps].kernels = nk;
		}
		end = trace_range_end(t, rg);
		/* the range, or its GPU work when that ends later */
		wall_end = p.nops[r] && p.proj_end[r] > end ? p.proj_end[r] : end;
		if (stage_mask[r] & (1u << STAGE_DECODE_STEP))
			steps[nsteps++].done = wall_end;
		for (int s = 0; s < STAGE_NROLES; s++) {
			struct stage_timing *st = &tl->stages[s];

			if (!(stage_mask[r] & (1u << s)))
				continue;
			tl->stage_found[s] = 1;
			st->instances++;
			st->cpu_ns = i64_sat_add(st->cpu_ns, i64_sat_sub(end, rg->start));
			st->wall_ns = i64_sat_add(st->wall_ns, i64_sat_sub(wall_end, rg->start));
			st->proj_ns = i64_sat_add(st->proj_ns, proj);
			st->busy_ns = i64_sat_add(st->busy_ns, busy);
			st->idle_ns = i64_sat_add(st->idle_ns, i64_sat_sub(proj, busy));
			st->kernel_ns = i64_sat_add(st->kernel_ns, kns);
			st->kernels += nk;
			st->launches += nc;
			st->copies += ncp;
			st->copy_ns = i64_sat_add(st->copy_ns, cpns);
			st->copy_bytes = i64_sat_add(st->copy_bytes, cpb);
			if (p.nops[r])
				inst_proj[s][inst_n[s]++] = proj;
		}
	}
	/* the pairs are no longer needed: free them before the summaries */
	free(call_seen);
	free(by_range);
	free(start);
	call_seen = NULL;
	by_range = start = NULL;
	free(p.pairs);
	p.pairs = NULL;
	p.npairs = p.pairs_alloc = 0;
	stage_distributions(tl, inst_proj, inst_n);
	tl->api_complete = cpu_api_complete(t);
	if (tl->api_complete) {
		struct cpu_api_use use[STAGE_NROLES];

		memset(use, 0, sizeof(use));
		cpu_api_by_mask(use, STAGE_NROLES, t, stage_mask);
		for (int s = 0; s < STAGE_NROLES; s++)
			tl->stages[s].api = use[s];
	}
	stage_cpu_samples(tl, t, stage_mask);
	for (size_t k = 0; k < t->nkernels; k++)
		if (!tl->kernel_stages[k]) {
			tl->kernels_outside++;
			tl->kernel_ns_outside =
			    i64_sat_add(tl->kernel_ns_outside,
					i64_sat_sub(t->kernels[k].end, t->kernels[k].start));
		}
	if (nsteps) {
		step_walls(tl, t, stage_mask, &p, steps, nsteps);
		qsort(steps, nsteps, sizeof(*steps), cmp_step_count);
		tl->step_kernels = xmalloc(st_mult(nsteps, sizeof(*tl->step_kernels)));
		for (size_t i = 0; i < nsteps; i++)
			tl->step_kernels[i] = steps[i].kernels;
		tl->nstep_kernels = nsteps;
	}
	free(steps);
	timeline_build_operators(tl, t, &p, stage_mask, cfg);
	build_memops(tl, t);
	kernel_summary_build(&tl->by_name, t, NULL, 0, 0);

	for (int s = 0; s < STAGE_NROLES; s++)
		free(inst_proj[s]);
	free(stage_mask);
	nvtx_proj_release(&p);
	return 0;
}

void timeline_release(struct timeline *tl)
{
	for (int s = 0; s < STAGE_NROLES; s++) {
		free(tl->stages[s].inst_ns);
		cpu_api_use_release(&tl->stages[s].api);
		cpu_sample_use_release(&tl->stages[s].samples);
	}
	free(tl->step_kernels);
	free(tl->step_period_ns);
	free(tl->kernel_op);
	free(tl->kernel_stages);
	free(tl->ops);
	free(tl->memops);
	kernel_summary_release(&tl->by_name);
	memset(tl, 0, sizeof(*tl));
}
