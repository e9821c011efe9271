/* merge.c: see merge.h. One rank at a time: its JSON files are loaded,
 * copied into a few numbers and freed; its collectives.tsv is parsed into
 * a kernel array that the collectives builder reads and the next rank
 * replaces. Peak memory is one rank's summary plus the builder's 32 bytes
 * a collective. */
#include <dirent.h>
#include <stddef.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "analysis/merge.h"
#include "analysis/rank_summary.h"
#include "analysis/session.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const char *const stage_names[MERGE_NSTAGES] = {"prefill", "decode"};

/* A JSON number member as a double; 0 when absent or null. */
static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The rank ids of dir/ranks/: every entry that is a plain decimal. */
static int list_ranks(const char *ranks_dir, int **out, size_t *n, struct strbuf *err)
{
	DIR *d = opendir(ranks_dir);
	struct dirent *e;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return error_errno(err, "cannot read '%s'", ranks_dir);
	while ((e = readdir(d))) {
		int64_t v;

		if (parse_i64(e->d_name, 0, INT32_MAX, &v, NULL))
			continue;
		ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = (int)v;
	}
	closedir(d);
	qsort(*out, *n, sizeof(**out), cmp_int);
	return 0;
}

/* A JSON number member, or -1 when absent or null. */
static double jnum_or_none(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

/* The rank's NCCL calls and bytes from its metrics.json "nccl_calls". */
static void read_nccl(struct merge_rank *mr, json_t *nc)
{
	json_t *rows = json_object_get(nc, "by_process"), *x;
	size_t i;

	if (session_jstr(nc, "bytes_unknown_why"))
		mr->nccl_why = xstrdup(session_jstr(nc, "bytes_unknown_why"));
	if (!json_is_array(rows) || !json_array_size(rows))
		return;
	mr->nccl = xcalloc(json_array_size(rows), sizeof(*mr->nccl));
	json_array_foreach(rows, i, x)
	{
		struct merge_nccl *n = &mr->nccl[mr->nnccl];

		if (!session_jstr(x, "type"))
			continue;
		n->type = xstrdup(session_jstr(x, "type"));
		n->calls = (uint64_t)jnum(x, "calls");
		n->sized = (uint64_t)jnum(x, "sized_calls");
		n->bytes = (uint64_t)jnum(x, "bytes");
		n->kernel_ms = jnum(x, "kernel_time_ms");
		n->algbw_gbps = jnum_or_none(x, "algbw_gbps");
		n->busbw_gbps = jnum_or_none(x, "busbw_gbps");
		n->ranks = (int)jnum(x, "ranks");
		mr->nnccl++;
	}
}

/* status.json's state, metrics.json's stages, rank.json's host and world
 * size. -1 with err when a file that exists does not parse. */
static int read_rank_json(const char *rdir, struct merge_rank *mr, int *world, struct strbuf *err)
{
	struct bundle_in b = BUNDLE_IN_INIT;
	json_t *st, *m, *rk, *s;
	const char *state;
	size_t i;
	int ret = -1;

	if (bundle_open(&b, rdir, BUNDLE_READ_RANK | BUNDLE_READ_STATUS | BUNDLE_READ_METRICS, err))
		goto out;
	if (b.rank_err.len) { /* a rank's record, not one part of a report */
		error_set(err, "%s", b.rank_err.buf);
		goto out;
	}
	st = b.status;
	m = b.metrics;
	rk = b.rank;
	if (rk) {
		mr->host = xstrdup(session_jstr(rk, "host") ? session_jstr(rk, "host") : "");
		if ((int)jnum(rk, "world_size") > *world)
			*world = (int)jnum(rk, "world_size");
	}
	state = st ? session_jstr(st, "state") : NULL;
	if (!st || !m || !state || strcmp(state, "ok")) {
		struct strbuf why = STRBUF_INIT;

		mr->failed = 1;
		if (!st)
			strbuf_addf(&why, "no %s (it never started)", bundle_art(BA_STATUS));
		else if (!state || strcmp(state, "ok"))
			strbuf_addf(&why, "%s state '%s'", bundle_art(BA_STATUS),
				    state ? state : "none");
		else
			strbuf_addf(&why, "no %s", bundle_art(BA_METRICS_JSON));
		mr->why = strbuf_detach(&why, NULL);
	}
	json_array_foreach(m ? json_object_get(m, "stages") : NULL, i, s)
	{
		const char *role = session_jstr(s, "role");

		for (int k = 0; role && k < MERGE_NSTAGES; k++) {
			if (strcmp(role, stage_names[k]) || !jnum(s, "instances"))
				continue;
			mr->have[k] = 1;
			mr->gpu_ms[k] = jnum(s, "gpu_ms");
			mr->busy_ms[k] = jnum(s, "busy_ms");
			mr->kernels[k] = (size_t)jnum(s, "kernels");
			/* -1: the stage has no steps (prefill), not a step of 0 ms */
			mr->step_p50_ms[k] = jnum_or_none(json_object_get(s, "steps"), "p50_ms");
			mr->util[k] =
			    jnum_or_none(json_object_get(s, "utilization"),
					 k == MERGE_PREFILL ? "mfu_datasheet" : "mbu_datasheet");
			mr->util_counter[k] =
			    jnum_or_none(json_object_get(s, "utilization"),
					 k == MERGE_PREFILL ? "mfu_counter" : "mbu_counter");
		}
	}
	read_nccl(mr, m ? json_object_get(m, "nccl_calls") : NULL);
	ret = 0;
out:
	bundle_in_release(&b);
	return ret;
}

/* Distinct names and their ids (index into v). */
struct merge_names {
	char **v;
	size_t n;
};

/* Names to ids: one id per distinct name, in order of first use (ranks are
 * read in rank order, so rank 0's host and clock get id 0: the reference). */
static int name_id(struct merge_names *n, const char *name)
{
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i], name))
			return (int)i;
	n->v = xrealloc(n->v, (n->n + 1) * sizeof(*n->v));
	n->v[n->n] = xstrdup(name);
	return (int)n->n++;
}

static void names_release(struct merge_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
}

/* One line of collectives.tsv split at tabs in place; how many fields. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	f[n++] = line;
	for (char *c = line; *c && n < max; c++)
		if (*c == '\t')
			*c = '\0', f[n++] = c + 1;
	return n;
}

struct tsv_rank {
	struct coll_kernel *k;
	size_t nk, ak;
	struct coll_window *w;
	size_t nw, aw;
	const char *host;
	const char *clock[3]; /* source, host, boot id; NULL: none stated */
	int version;
};

static int parse_tsv_line(char *line, struct tsv_rank *tr, const char *path, size_t lineno,
			  struct strbuf *err)
{
	char *f[7];
	size_t n = split_tabs(line, f, 7);
	int64_t a, b, dev, str;

	if (!strcmp(f[0], "host") && n == 2) {
		tr->host = f[1];
	} else if (!strcmp(f[0], "clock") && n == 4 && tr->version >= 2 && !tr->clock[0] &&
		   !tr->nk && !tr->nw && *f[1]) {
		tr->clock[0] = f[1], tr->clock[1] = f[2], tr->clock[2] = f[3];
	} else if (!strcmp(f[0], "window") && n == 4 &&
		   !parse_i64(f[2], INT64_MIN, INT64_MAX, &a, NULL) &&
		   !parse_i64(f[3], INT64_MIN, INT64_MAX, &b, NULL)) {
		ALLOC_GROW(tr->w, tr->nw + 1, tr->aw);
		tr->w[tr->nw++] = (struct coll_window){f[1], a, b};
	} else if (!strcmp(f[0], "kernel") && n == 6 &&
		   !parse_i64(f[1], INT64_MIN, INT64_MAX, &a, NULL) &&
		   !parse_i64(f[2], INT64_MIN, INT64_MAX, &b, NULL) &&
		   !parse_i64(f[3], INT32_MIN, INT32_MAX, &dev, NULL) &&
		   !parse_i64(f[4], INT32_MIN, INT32_MAX, &str, NULL)) {
		ALLOC_GROW(tr->k, tr->nk + 1, tr->ak);
		tr->k[tr->nk++] = (struct coll_kernel){f[5], a, b, (int32_t)dev, (int32_t)str};
	} else {
		return error_set(err, "%s:%zu: not a %s record", path, lineno,
				 bundle_art(BA_COLLECTIVES));
	}
	return 0;
}

/* Reads rdir/collectives.tsv (when there is one) into the builder. */
static int add_collectives(const char *rdir, struct merge_rank *mr, struct coll_builder *b,
			   struct merge_names *hosts, struct merge_names *clocks, int *added,
			   struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, buf = STRBUF_INIT;
	struct tsv_rank tr = {0};
	size_t lineno = 1;
	char *line, *next;
	int ret = -1;

	path_join(&p, rdir, bundle_art(BA_COLLECTIVES));
	if (!path_exists(p.buf)) {
		ret = 0;
		goto out;
	}
	if (read_regular_file(p.buf, INPUT_CAP_DATA, &buf, err))
		goto out;
	if (!strncmp(buf.buf, RANK_SUMMARY_MAGIC "\n", strlen(RANK_SUMMARY_MAGIC) + 1))
		tr.version = 2;
	else if (!strncmp(buf.buf, RANK_SUMMARY_MAGIC_V1 "\n", strlen(RANK_SUMMARY_MAGIC_V1) + 1))
		tr.version = 1;
	else {
		error_set(err, "%s: not an llmprof %s (version 1 or 2)", p.buf,
			  bundle_art(BA_COLLECTIVES));
		goto out;
	}
	for (line = strchr(buf.buf, '\n') + 1; *line; line = next) {
		next = strchr(line, '\n');
		lineno++;
		if (!next) {
			error_set(err, "%s:%zu: the last line has no line end (truncated file?)",
				  p.buf, lineno);
			goto out;
		}
		*next++ = '\0';
		if (parse_tsv_line(line, &tr, p.buf, lineno, err))
			goto out;
	}
	if (!mr->host || !*mr->host) {
		free(mr->host);
		mr->host = xstrdup(tr.host ? tr.host : "");
	}
	mr->collectives = tr.nk;
	{
		struct coll_rank_input in = {
		    mr->rank, name_id(hosts, mr->host), tr.k, tr.nk, tr.w, tr.nw, 0};
		struct strbuf dom = STRBUF_INIT;

		/* a stated clock is a domain shared with every rank that
		 * states the same one; a rank that states none is a domain
		 * of its own ('\n' cannot be in a field: no clash) */
		if (tr.clock[0]) {
			strbuf_addf(&dom, "%s on %s (boot %s)", tr.clock[0], tr.clock[1],
				    *tr.clock[2] ? tr.clock[2] : "not recorded");
			mr->clock = xstrdup(dom.buf);
		} else {
			strbuf_addf(&dom, "\nrank %d", mr->rank);
		}
		in.clock = name_id(clocks, dom.buf);
		mr->clock_id = in.clock;
		strbuf_release(&dom);
		if (coll_builder_add_rank(b, &in, err))
			goto out;
	}
	*added = 1;
	ret = 0;
out:
	free(tr.k);
	free(tr.w);
	strbuf_release(&buf);
	strbuf_release(&p);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The spread of one number over the ranks that ran stage k and did not fail. */
static void stat_of(struct merge_stat *st, const struct merge_rank *r, size_t n, int k,
		    size_t field_off)
{
	double *v = xcalloc(n + 1, sizeof(*v));

	memset(st, 0, sizeof(*st));
	st->min_rank = st->max_rank = -1;
	for (size_t i = 0; i < n; i++) {
		double x =
		    *(const double *)((const char *)&r[i] + field_off + (size_t)k * sizeof(double));

		if (r[i].failed || !r[i].have[k] || x < 0) /* x < 0: not stated */
			continue;
		if (!st->n || x < st->min)
			st->min = x, st->min_rank = r[i].rank;
		if (!st->n || x > st->max)
			st->max = x, st->max_rank = r[i].rank;
		v[st->n++] = x;
	}
	qsort(v, st->n, sizeof(*v), cmp_double);
	if (st->n)
		st->median = st->n % 2 ? v[st->n / 2] : (v[st->n / 2 - 1] + v[st->n / 2]) / 2;
	free(v);
}

static void fill_stats(struct merge_result *out)
{
	for (int k = 0; k < MERGE_NSTAGES; k++) {
		out->stages[k].name = stage_names[k];
		stat_of(&out->stages[k].gpu, out->ranks, out->nranks, k,
			offsetof(struct merge_rank, gpu_ms));
		stat_of(&out->stages[k].step_p50, out->ranks, out->nranks, k,
			offsetof(struct merge_rank, step_p50_ms));
	}
	out->slowest_rank = -1;
	for (int k = MERGE_DECODE; k >= 0 && out->slowest_rank < 0; k--) {
		if (out->stages[k].gpu.n < 2)
			continue;
		out->slowest_rank = out->stages[k].gpu.max_rank;
		out->slowest_by = k == MERGE_DECODE ? "decode GPU time" : "prefill GPU time";
	}
}

static void find_missing(struct merge_result *out)
{
	size_t j = 0;

	if (out->nranks && out->ranks[out->nranks - 1].rank + 1 > out->world_size)
		out->world_size = out->ranks[out->nranks - 1].rank + 1;
	for (int r = 0; r < out->world_size; r++) {
		while (j < out->nranks && out->ranks[j].rank < r)
			j++;
		if (j < out->nranks && out->ranks[j].rank == r)
			continue;
		out->missing = xrealloc(out->missing, (out->nmissing + 1) * sizeof(int));
		out->missing[out->nmissing++] = r;
	}
}

/* The split of the model's work, as analysis/ranks_util.c reads it from
 * one trace: no NCCL kernels on any rank, replicas; every collective
 * matched on every rank that ran, one group of world_size; else unknown. */
static void fill_split(struct merge_result *out)
{
	int any = 0, all = 1;

	for (size_t i = 0; i < out->nranks; i++)
		for (int k = 0; k < MERGE_NSTAGES; k++)
			any |= !out->ranks[i].failed && out->ranks[i].util[k] >= 0;
	if (!any)
		return;
	if (!out->have_coll) {
		out->split = MERGE_SPLIT_REPLICA;
		out->divisor = 1;
		return;
	}
	for (size_t i = 0; i < out->coll.nranks; i++)
		all &= !out->coll.ranks[i].unmatched && out->coll.ranks[i].calls;
	for (size_t i = 0; i < out->nranks; i++)
		all &= out->ranks[i].failed || out->ranks[i].collectives > 0;
	if (all && out->coll.ninstances && !out->coll.nmismatches) {
		out->split = MERGE_SPLIT_GROUP;
		out->divisor = out->world_size;
	} else {
		out->split = MERGE_SPLIT_UNKNOWN;
	}
}

double merge_rank_util(const struct merge_result *r, const struct merge_rank *m, int stage)
{
	if (m->failed || m->util[stage] < 0 || r->divisor < 1 ||
	    (r->split != MERGE_SPLIT_REPLICA && r->split != MERGE_SPLIT_GROUP))
		return -1;
	return m->util[stage] / r->divisor;
}

int merge_run(const char *dir, struct merge_result *out, struct strbuf *err)
{
	struct strbuf rd = STRBUF_INIT, p = STRBUF_INIT;
	struct coll_builder *b = coll_builder_new();
	struct merge_names hosts = {0}, clocks = {0};
	size_t n = 0;
	int *ids = NULL, added = 0, ret = -1;

	memset(out, 0, sizeof(*out));
	path_join(&rd, dir, "ranks");
	if (!path_is_dir(rd.buf)) {
		error_set(err,
			  "'%s' has no ranks/ folder: not a run folder of 'llmprof profile "
			  "--rank-dir'",
			  dir);
		goto out;
	}
	if (list_ranks(rd.buf, &ids, &n, err))
		goto out;
	if (!n) {
		error_set(err, "'%s' holds no rank folder (%s/0, %s/1, ...)", rd.buf,
			  bundle_art(BA_RANKS_DIR), bundle_art(BA_RANKS_DIR));
		goto out;
	}
	out->ranks = xcalloc(n, sizeof(*out->ranks));
	for (size_t i = 0; i < n; i++, out->nranks++) {
		struct merge_rank *mr = &out->ranks[i];

		mr->rank = ids[i];
		mr->util[MERGE_PREFILL] = mr->util[MERGE_DECODE] = -1;
		mr->util_counter[MERGE_PREFILL] = mr->util_counter[MERGE_DECODE] = -1;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%d", rd.buf, ids[i]);
		if (read_rank_json(p.buf, mr, &out->world_size, err) ||
		    (!mr->failed && add_collectives(p.buf, mr, b, &hosts, &clocks, &added, err))) {
			out->nranks++;
			goto out;
		}
		if (!mr->host)
			mr->host = xstrdup("");
		out->nfailed += (size_t)mr->failed;
		out->nunstated += !mr->failed && mr->collectives && !mr->clock;
	}
	find_missing(out);
	fill_stats(out);
	if (added && coll_builder_finish(b, &out->coll, err))
		goto out;
	out->have_coll = added;
	fill_split(out);
	/* ranks joined by collectives end their steps together (the others
	 * wait), so the one they wait for is the slowest, whatever the spans */
	if (added && out->coll.nstragglers &&
	    out->coll.stragglers[0].share >= COLL_STRAGGLER_SHARE &&
	    out->coll.stragglers[0].mean_late_ns >= COLL_STRAGGLER_MIN_NS) {
		out->slowest_rank = out->coll.stragglers[0].rank;
		out->slowest_by = "arriving last at NCCL collectives";
	}
	if (added)
		out->nfindings = coll_findings(&out->coll, "decode", NULL, NULL, &out->findings);
	ret = 0;
out:
	coll_builder_free(b);
	names_release(&hosts);
	names_release(&clocks);
	free(ids);
	strbuf_release(&rd);
	strbuf_release(&p);
	if (ret)
		merge_result_release(out);
	return ret;
}

int merge_all_ended(const char *dir, int world_size)
{
	int ended = world_size > 0;

	for (int r = 0; r < world_size && ended; r++) {
		json_t *st = bundle_rank_status(dir, r);
		const char *state;

		ended = st && (state = session_jstr(st, "state")) && strcmp(state, "running");
		json_decref(st);
	}
	return ended;
}

void merge_result_release(struct merge_result *r)
{
	for (size_t i = 0; i < r->nranks; i++) {
		free(r->ranks[i].host);
		free(r->ranks[i].why);
		free(r->ranks[i].clock);
		for (size_t j = 0; j < r->ranks[i].nnccl; j++)
			free(r->ranks[i].nccl[j].type);
		free(r->ranks[i].nccl);
		free(r->ranks[i].nccl_why);
	}
	free(r->ranks);
	free(r->missing);
	coll_findings_free(r->findings, r->nfindings);
	if (r->have_coll)
		coll_result_release(&r->coll);
	memset(r, 0, sizeof(*r));
}
