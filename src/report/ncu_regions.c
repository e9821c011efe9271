/* ncu_regions.c: the NVTX regions reports of an Nsight Compute export
 * (ncu/regions/ of a bundle, regions/ of `report --ncu-csv`), rendered
 * from the regions analysis/regions.c built; see report/ncu_regions.h. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/bundle_dir.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "model/table.h"
#include "report/ncu_regions.h"
#include "core/banned.h"

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
	struct strbuf sb = STRBUF_INIT;
	struct table t;

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
	table_init(&t, "lrlrrrrrl", "Region", "Depth", "Parent", "Instances", "Kernels",
		   "Inclusive (ms)", "Children (ms)", "Self (ms)", "Reconciled", NULL);
	for (size_t i = 0; i < rg->nr; i++) {
		const struct region *r = &rg->v[i];

		for (size_t d = 0; d < r->depth; d++)
			strbuf_addstr(&sb, "\xC2\xA0\xC2\xA0"); /* indent by depth */
		strbuf_addstr(&sb, r->path);
		table_add_sb(&t, &sb);
		table_addf(&t, "%zu", r->depth);
		table_add_str(&t, r->parent);
		/* Kernel-replay rows do not say which instance of a range ran a
		 * kernel, so range instances are only known in range mode. */
		if (rg->mode == REGIONS_KERNEL) {
			table_add_str(&t, "n/a");
			table_addf(&t, "%zu", r->kernels);
		} else {
			table_addf(&t, "%zu", r->instances);
			table_add_str(&t, "n/a");
		}
		table_addf(&t, "%.6f", r->inclusive_ns / 1e6);
		table_addf(&t, "%.6f", r->children_ns / 1e6);
		table_addf(&t, "%.6f", r->self_ns / 1e6);
		table_add_str(&t, r->reconciled ? "yes" : "NO");
	}
	table_write_md(&t, out);
	table_release(&t);
	strbuf_release(&sb);
	if (rg->unattributed)
		strbuf_addf(out, "\n%zu kernels ran outside every NVTX range.\n", rg->unattributed);
	strbuf_addf(out, "\nPer-region metrics: `<region dir>/%s` next to this file.\n",
		    bundle_art_base(BA_NCU_REGION_METRICS));
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

		path_join(&mp, r->dir, bundle_art_base(BA_NCU_REGION_METRICS));
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

/* A result's duration for ranking (gpu__time_duration.sum; -1 = none). */
struct ranked {
	double ns;
	size_t row;
};

static int cmp_ranked_ns(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int cmp_ranked_row(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return x->row < y->row ? -1 : x->row > y->row;
}

/* The rows region r's metrics.json lists, in export order: all of them,
 * or past rg->max_results the longest max_results (ties: the first).
 * *n is their count; owned by the caller. */
static size_t *listed_rows(const struct regions *rg, const struct region *r,
			   const struct ncu_raw *raw, size_t *n)
{
	size_t max = rg->max_results, *rows;
	struct ranked *v;
	long dc = ncu_raw_col(raw, "gpu__time_duration.sum");

	*n = max && r->nrows > max ? max : r->nrows;
	rows = xmalloc(st_mult(*n ? *n : 1, sizeof(*rows)));
	if (*n == r->nrows) {
		for (size_t k = 0; k < r->nrows; k++)
			rows[k] = r->rows[k];
		return rows;
	}
	v = xmalloc(st_mult(r->nrows, sizeof(*v)));
	for (size_t k = 0; k < r->nrows; k++) {
		double x;

		v[k].row = r->rows[k];
		v[k].ns = dc >= 0 && ncu_raw_number(raw, r->rows[k], (size_t)dc, &x) == NCU_NUM_OK
			      ? x
			      : -1;
	}
	qsort(v, r->nrows, sizeof(*v), cmp_ranked_ns);
	qsort(v, *n, sizeof(*v), cmp_ranked_row);
	for (size_t k = 0; k < *n; k++)
		rows[k] = v[k].row;
	free(v);
	return rows;
}

/* Writes region i's metrics.json to fp (NULL: only into out), a result at
 * a time: out holds one result, never the file. Past rg->max_results
 * results, the longest are listed and "results_not_listed" counts the
 * rest: every result is in the export, at its source_line. */
static void metrics_emit(const struct regions *rg, size_t i, const struct ncu_raw *raw,
			 struct strbuf *out, FILE *fp)
{
	const struct region *r = &rg->v[i];
	long kc = ncu_raw_col(raw, "Kernel Name"), *next;
	size_t n, *rows = listed_rows(rg, r, raw, &n);

	metric_columns(raw, &next);
	strbuf_addstr(out, "{\n  \"path\": ");
	json_add_string(out, r->path, strlen(r->path));
	strbuf_addstr(out, ",\n  \"units\": \"base (nsecond, byte, hz, byte/second, %)\",\n  "
			   "\"results\": [");
	for (size_t k = 0; k < n; k++) {
		strbuf_addstr(out, k ? ",\n    " : "\n    ");
		metrics_result(raw, rows[k], next, kc, out);
		if (fp) {
			fwrite(out->buf, 1, out->len, fp);
			strbuf_reset(out);
		}
	}
	strbuf_addstr(out, n ? "\n  ]" : "]");
	if (n < r->nrows) {
		strbuf_addf(out, ",\n  \"results_not_listed\": %zu,\n  \"source\": ", r->nrows - n);
		json_add_string(out, raw->source, strlen(raw->source));
	}
	strbuf_addstr(out, "\n}\n");
	free(rows);
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
	path_join(&path, dir, bundle_art_base(BA_NCU_REGIONS_MD));
	if (bundle_dir_write(bd, path.buf, body.buf, body.len, err))
		goto out;
	strbuf_reset(&body);
	strbuf_reset(&path);
	regions_render_json(rg, raw, &body);
	path_join(&path, dir, bundle_art_base(BA_NCU_REGIONS_JSON));
	if (bundle_dir_write(bd, path.buf, body.buf, body.len, err))
		goto out;
	for (size_t i = 0; i < rg->nr; i++) {
		strbuf_reset(&path);
		path_join(&path, dir, rg->v[i].dir);
		if (bundle_dir_mkdir(bd, path.buf, err))
			goto out;
		strbuf_addch(&path, '/');
		strbuf_addstr(&path, bundle_art_base(BA_NCU_REGION_METRICS));
		if (metrics_write(rg, i, raw, bd, path.buf, err))
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&body);
	return ret;
}
