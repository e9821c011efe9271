/* regions.c: NVTX regions from ncu results; see regions.h. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/regions.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/md.h"
#include "core/fsutil.h"
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
 * (REGION_DIR_MAX), unique. */
static void assign_dirs(struct regions *rg)
{
	struct strtab taken = STRTAB_INIT;

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

void regions_empty_message(const struct ncu_raw *raw, struct strbuf *out)
{
	int has_nvtx = raw->nvtx_col[0] >= 0 || raw->nvtx_col[1] >= 0;

	strbuf_addstr(out, "No matching regions: ");
	if (!raw->nrows)
		strbuf_addstr(out, "the export has no results (ncu profiled nothing: check the "
				   "--nvtx-include expressions against `llmprof nvtx`).");
	else if (!has_nvtx)
		strbuf_addstr(out, "the export has no NVTX columns (ncu was run without --nvtx).");
	else
		strbuf_addstr(out, "no result was inside an NVTX range.");
}

static const char *mode_name(enum regions_mode m)
{
	return m == REGIONS_RANGE ? "range" : "kernel";
}

void regions_render_md(const struct regions *rg, const struct ncu_raw *raw, struct strbuf *out)
{
	strbuf_addstr(out, "# Nsight Compute \xE2\x80\x93 NVTX Regions\n\n");
	if (!rg->nr) {
		regions_empty_message(raw, out);
		strbuf_addch(out, '\n');
		return;
	}
	strbuf_addf(out,
		    "%zu regions from %s replay results (%s). Total of the top-level "
		    "regions: %.6f ms.%s\n\n",
		    rg->nr, mode_name(rg->mode), raw->source, rg->total_ns / 1e6,
		    rg->all_reconciled ? " Child regions reconcile with their parents (within 1 %)."
				       : " WARNING: some child regions exceed their parent by "
					 "more than 1 %.");
	strbuf_addstr(out, "| Region | Depth | Parent | Instances | Kernels | Inclusive (ms) | "
			   "Children (ms) | Self (ms) | Reconciled |\n"
			   "|:---|---:|:---|---:|---:|---:|---:|---:|:---|\n");
	for (size_t i = 0; i < rg->nr; i++) {
		const struct region *r = &rg->v[i];

		strbuf_addstr(out, "| ");
		for (size_t d = 0; d < r->depth; d++)
			strbuf_addstr(out, "\xC2\xA0\xC2\xA0"); /* indent by depth */
		md_text(out, r->path);
		strbuf_addf(out, " | %zu | ", r->depth);
		md_text(out, r->parent ? r->parent : "");
		/* Kernel-replay rows do not say which instance of a range ran a
		 * kernel, so range instances are only known in range mode. */
		if (rg->mode == REGIONS_KERNEL)
			strbuf_addstr(out, " | n/a | ");
		else
			strbuf_addf(out, " | %zu | ", r->instances);
		if (rg->mode == REGIONS_KERNEL)
			strbuf_addf(out, "%zu", r->kernels);
		else
			strbuf_addstr(out, "n/a");
		strbuf_addf(out, " | %.6f | %.6f | %.6f | %s |\n", r->inclusive_ns / 1e6,
			    r->children_ns / 1e6, r->self_ns / 1e6, r->reconciled ? "yes" : "NO");
	}
	if (rg->unattributed)
		strbuf_addf(out, "\n%zu kernels ran outside every NVTX range.\n", rg->unattributed);
	strbuf_addstr(out,
		      "\nPer-region metrics: `<region dir>/metrics.json` next to this file.\n");
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *scopes_json(const struct region_scope *v, size_t n, const char *key)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:I,s:f,s:I}", key, (json_int_t)v[i].key,
						   "total_ms", v[i].total_ns / 1e6, "instances",
						   (json_int_t)v[i].instances));
	return a;
}

void regions_render_json(const struct regions *rg, const struct ncu_raw *raw, struct strbuf *out)
{
	json_t *root = json_object(), *arr = json_array();
	struct strbuf ts = STRBUF_INIT;
	char *text;

	format_iso8601(&ts, clock_wall_ns());
	json_object_set_new(root, "scope", json_string("aggregate"));
	json_object_set_new(root, "mode", json_string(mode_name(rg->mode)));
	json_object_set_new(root, "source", json_string(raw->source));
	for (size_t i = 0; i < rg->nr; i++) {
		const struct region *r = &rg->v[i];
		json_t *o = json_object();
		struct strbuf mp = STRBUF_INIT;

		strbuf_addf(&mp, "%s/metrics.json", r->dir);
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "domain", r->domain ? json_string(r->domain) : json_null());
		json_object_set_new(o, "path", json_string(r->path));
		json_object_set_new(o, "parent", r->parent ? json_string(r->parent) : json_null());
		json_object_set_new(o, "depth", json_integer((json_int_t)r->depth));
		json_object_set_new(o, "instances",
				    rg->mode == REGIONS_KERNEL
					? json_null()
					: json_integer((json_int_t)r->instances));
		json_object_set_new(o, "kernel_count",
				    rg->mode == REGIONS_KERNEL
					? json_integer((json_int_t)r->kernels)
					: json_null());
		json_object_set_new(o, "total_ms", jnum(r->inclusive_ns / 1e6));
		json_object_set_new(o, "children_ms", jnum(r->children_ns / 1e6));
		json_object_set_new(o, "self_ms", jnum(r->self_ns / 1e6));
		json_object_set_new(o, "reconciled", json_boolean(r->reconciled));
		json_object_set_new(o, "processes", scopes_json(r->procs, r->nprocs, "pid"));
		json_object_set_new(o, "devices", scopes_json(r->devs, r->ndevs, "device"));
		json_object_set_new(o, "dir", json_string(r->dir));
		json_object_set_new(o, "json_path", json_string(mp.buf));
		json_array_append_new(arr, o);
		strbuf_release(&mp);
	}
	json_object_set_new(root, "regions", arr);
	json_object_set_new(root, "generated_at", json_string(ts.buf));
	json_object_set_new(root, "totals",
			    json_pack("{s:f,s:I,s:b,s:I}", "total_ms", rg->total_ns / 1e6,
				      "regions", (json_int_t)rg->nr, "reconciled",
				      rg->all_reconciled, "unattributed_kernels",
				      (json_int_t)rg->unattributed));
	if (!rg->nr) {
		struct strbuf msg = STRBUF_INIT;

		regions_empty_message(raw, &msg);
		json_object_set_new(root, "message", json_string(msg.buf));
		strbuf_release(&msg);
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	strbuf_addstr(out, text ? text : "{}");
	strbuf_addch(out, '\n');
	free(text);
	json_decref(root);
	strbuf_release(&ts);
}

static int is_nvtx_col(const struct ncu_raw *raw, size_t c);

/* The metric columns of a metrics.json "metrics" object, in header order:
 * every column but the NVTX ones, a name once (at its first column; the
 * value is that of the last of its columns that holds a number, as
 * jansson's object_set gave). next[c] is the next column named like c, or
 * -1; next[ncols + c] is 1 where c starts a name. Owned by the caller:
 * free(*next). */
static void metric_columns(const struct ncu_raw *raw, long **next)
{
	long *last = xcalloc(raw->ncols ? raw->ncols : 1, sizeof(*last));

	*next = xcalloc(2 * raw->ncols + 1, sizeof(**next));
	for (size_t c = 0; c < raw->ncols; c++) {
		long f = ncu_raw_col(raw, raw->cols[c].name);

		(*next)[c] = -1;
		(*next)[raw->ncols + c] = (size_t)f == c && !is_nvtx_col(raw, c);
		last[c] = (long)c;
		if (f >= 0 && (size_t)f != c) {
			(*next)[last[f]] = (long)c;
			last[f] = (long)c;
		}
	}
	free(last);
}

static int is_nvtx_col(const struct ncu_raw *raw, size_t c)
{
	return raw->nvtx_col[0] == (long)c || raw->nvtx_col[1] == (long)c;
}

/* One result of metrics.json, as jansson's JSON_INDENT(2) prints it at its
 * depth (the object's opening brace excluded). */
static void metrics_result(const struct ncu_raw *raw, size_t row, const long *next, long kc,
			   struct strbuf *out)
{
	struct str kn = kc >= 0 ? ncu_raw_cell(raw, row, (size_t)kc) : (struct str){"", 0};
	int any = 0;

	strbuf_addstr(out, "{\n      \"kernel\": ");
	json_add_string(out, kn.p, kn.len);
	strbuf_addf(out, ",\n      \"source_line\": %zu,\n      \"metrics\": {",
		    raw->row_line[row]);
	for (size_t c = 0; c < raw->ncols; c++) {
		const char *name = raw->cols[c].name;
		int have = 0;
		double v = 0, x;

		if (!next[raw->ncols + c])
			continue;
		for (long d = (long)c; d >= 0; d = next[d])
			if (!is_nvtx_col(raw, (size_t)d) &&
			    ncu_raw_number(raw, row, (size_t)d, &x) == NCU_NUM_OK)
				v = x, have = 1;
		if (!have)
			continue;
		strbuf_addstr(out, any ? ",\n        " : "\n        ");
		json_add_string(out, name, strlen(name));
		strbuf_addstr(out, ": ");
		json_add_real(out, v, 12);
		any = 1;
	}
	strbuf_addstr(out, any ? "\n      }\n    }" : "}\n    }");
}

/* Writes region i's metrics.json to fp (NULL: only into out), a result at
 * a time: out holds one result, never the file. */
static void metrics_emit(const struct regions *rg, size_t i, const struct ncu_raw *raw,
			 struct strbuf *out, FILE *fp)
{
	const struct region *r = &rg->v[i];
	long kc = ncu_raw_col(raw, "Kernel Name"), *next;

	metric_columns(raw, &next);
	strbuf_addstr(out, "{\n  \"path\": ");
	json_add_string(out, r->path, strlen(r->path));
	strbuf_addstr(out, ",\n  \"units\": \"base (nsecond, byte, hz, byte/second, %)\",\n  "
			   "\"results\": [");
	for (size_t k = 0; k < r->nrows; k++) {
		strbuf_addstr(out, k ? ",\n    " : "\n    ");
		metrics_result(raw, r->rows[k], next, kc, out);
		if (fp) {
			fwrite(out->buf, 1, out->len, fp);
			strbuf_reset(out);
		}
	}
	strbuf_addstr(out, r->nrows ? "\n  ]\n}\n" : "]\n}\n");
	if (fp) {
		fwrite(out->buf, 1, out->len, fp);
		strbuf_reset(out);
	}
	free(next);
}

void regions_render_metrics(const struct regions *rg, size_t i, const struct ncu_raw *raw,
			    struct strbuf *out)
{
	metrics_emit(rg, i, raw, out, NULL);
}

static int metrics_write(const struct regions *rg, size_t i, const struct ncu_raw *raw,
			 const struct bundle_dir *bd, const char *path, struct strbuf *err)
{
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct strbuf buf = STRBUF_INIT;

	if (bundle_dir_atomic_open(bd, path, &af, err) < 0)
		return -1;
	metrics_emit(rg, i, raw, &buf, af.fp);
	strbuf_release(&buf);
	return atomic_file_commit(&af, err);
}

int regions_write(const struct regions *rg, const struct ncu_raw *raw, const struct bundle_dir *bd,
		  const char *dir, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, body = STRBUF_INIT;
	int ret = -1;

	if (bundle_dir_mkdir(bd, dir, err))
		goto out;
	regions_render_md(rg, raw, &body);
	path_join(&path, dir, "report.md");
	if (bundle_dir_write(bd, path.buf, body.buf, body.len, err))
		goto out;
	strbuf_reset(&body);
	strbuf_reset(&path);
	regions_render_json(rg, raw, &body);
	path_join(&path, dir, "report.json");
	if (bundle_dir_write(bd, path.buf, body.buf, body.len, err))
		goto out;
	for (size_t i = 0; i < rg->nr; i++) {
		strbuf_reset(&path);
		path_join(&path, dir, rg->v[i].dir);
		if (bundle_dir_mkdir(bd, path.buf, err))
			goto out;
		strbuf_addstr(&path, "/metrics.json");
		if (metrics_write(rg, i, raw, bd, path.buf, err))
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&body);
	return ret;
}
