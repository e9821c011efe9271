/* merge.c: see merge.h. One rank at a time: its JSON files are loaded,
 * copied into a few numbers and freed; its collectives.tsv is parsed into
 * a kernel array that the collectives builder reads and the next rank
 * replaces, and into the gaps, windows and steps the causes read once every
 * rank is in. Peak memory is one rank's summary plus, per collective of
 * every rank, the builder's 32 bytes and the gap's 40 (twice while the
 * causes are computed). */
#include <dirent.h>
#include <stddef.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "analysis/merge.h"
#include "analysis/rank_summary.h"
#include "analysis/ranks.h"
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

/* One added rank's timeline for the causes (collectives_cause.h), kept
 * until the builder has finished: 40 bytes a collective. */
struct cause_in {
	int rank;
	struct coll_gap *gaps; /* NULL: its file predates them (version 1 or 2) */
	size_t ngaps, agaps;
	struct coll_window *w, *steps; /* stage names interned */
	size_t nw, aw, nsteps, asteps;
	int version;
};

struct merge_ctx {
	struct coll_builder *b;
	struct merge_names hosts, clocks, stages;
	struct cause_in *ci; /* in the order added: rank order */
	size_t nci, aci;
	int added;
};

struct tsv_rank {
	struct coll_kernel *k;
	size_t nk, ak;
	const char *host;
	const char *clock[3]; /* source, host, boot id; NULL: none stated */
	struct cause_in *c;
};

/* A time field of version 3: "-" is none (*v = none). */
static int parse_opt(const char *f, int64_t none, int64_t *v)
{
	if (!strcmp(f, "-")) {
		*v = none;
		return 0;
	}
	return parse_i64(f, INT64_MIN, INT64_MAX, v, NULL);
}

/* A kernel line's gap columns (version 3): LAUNCH PREV_END BUSY KERNELS. */
static int parse_gap(char **f, int64_t start, struct coll_gap *g)
{
	*g = (struct coll_gap){start, COLL_GAP_NONE, 0, 0, -1};
	if (parse_opt(f[0], -1, &g->launch) || parse_opt(f[1], COLL_GAP_NONE, &g->prev_end))
		return -1;
	if (g->prev_end == COLL_GAP_NONE) /* no previous NCCL kernel: nothing to measure */
		return strcmp(f[2], "-") || strcmp(f[3], "-") ? -1 : 0;
	/* a gap ends where the kernel starts and is busy at most all along */
	if (g->prev_end > start || parse_i64(f[2], 0, start - g->prev_end, &g->busy_ns, NULL) ||
	    parse_i64(f[3], 0, INT64_MAX, &g->kernels, NULL))
		return -1;
	return 0;
}

static int parse_tsv_line(char *line, struct tsv_rank *tr, struct merge_names *stages,
			  const char *path, size_t lineno, struct strbuf *err)
{
	char *f[11];
	size_t n = split_tabs(line, f, 11);
	int64_t a, b, dev, str;
	struct cause_in *c = tr->c;
	int v3 = c->version >= 3;

	if (!strcmp(f[0], "host") && n == 2) {
		tr->host = f[1];
	} else if (!strcmp(f[0], "clock") && n == 4 && c->version >= 2 && !tr->clock[0] &&
		   !tr->nk && !c->nw && *f[1]) {
		tr->clock[0] = f[1], tr->clock[1] = f[2], tr->clock[2] = f[3];
	} else if (!strcmp(f[0], "window") && n == 4 &&
		   !parse_i64(f[2], INT64_MIN, INT64_MAX, &a, NULL) &&
		   !parse_i64(f[3], INT64_MIN, INT64_MAX, &b, NULL)) {
		int id = name_id(stages, f[1]); /* before stages->v is read: it may move */

		ALLOC_GROW(c->w, c->nw + 1, c->aw);
		c->w[c->nw++] = (struct coll_window){stages->v[id], a, b};
	} else if (!strcmp(f[0], "step") && n == 3 && v3 &&
		   !parse_i64(f[1], INT64_MIN, INT64_MAX, &a, NULL) &&
		   !parse_i64(f[2], INT64_MIN, INT64_MAX, &b, NULL)) {
		ALLOC_GROW(c->steps, c->nsteps + 1, c->asteps);
		c->steps[c->nsteps++] = (struct coll_window){"decode_step", a, b};
	} else if (!strcmp(f[0], "kernel") && n == (v3 ? 10 : 6) &&
		   !parse_i64(f[1], INT64_MIN, INT64_MAX, &a, NULL) &&
		   !parse_i64(f[2], INT64_MIN, INT64_MAX, &b, NULL) &&
		   !parse_i64(f[3], INT32_MIN, INT32_MAX, &dev, NULL) &&
		   !parse_i64(f[4], INT32_MIN, INT32_MAX, &str, NULL)) {
		if (v3) {
			ALLOC_GROW(c->gaps, c->ngaps + 1, c->agaps);
			if (parse_gap(f + 5, a, &c->gaps[c->ngaps++]))
				return error_set(err, "%s:%zu: not a %s kernel record (version 3)",
						 path, lineno, bundle_art(BA_COLLECTIVES));
		}
		ALLOC_GROW(tr->k, tr->nk + 1, tr->ak);
		tr->k[tr->nk++] =
		    (struct coll_kernel){f[v3 ? 9 : 5], a, b, (int32_t)dev, (int32_t)str};
	} else {
		return error_set(err, "%s:%zu: not a %s record", path, lineno,
				 bundle_art(BA_COLLECTIVES));
	}
	return 0;
}

/* The version of a collectives.tsv from its first line; 0 for none. */
static int tsv_version(const char *text)
{
	static const char *const magic[] = {RANK_SUMMARY_MAGIC_V1, RANK_SUMMARY_MAGIC_V2,
					    RANK_SUMMARY_MAGIC};

	for (int v = 0; v < 3; v++)
		if (!strncmp(text, magic[v], strlen(magic[v])) && text[strlen(magic[v])] == '\n')
			return v + 1;
	return 0;
}

/* The rank's clock domain id: a stated clock is a domain shared with every
 * rank that states the same one; a rank that states none is a domain of
 * its own ('\n' cannot be in a field: no clash). */
static int clock_domain(struct merge_rank *mr, const struct tsv_rank *tr,
			struct merge_names *clocks)
{
	struct strbuf dom = STRBUF_INIT;
	int id;

	if (tr->clock[0]) {
		strbuf_addf(&dom, "%s on %s (boot %s)", tr->clock[0], tr->clock[1],
			    *tr->clock[2] ? tr->clock[2] : "not recorded");
		mr->clock = xstrdup(dom.buf);
	} else {
		strbuf_addf(&dom, "\nrank %d", mr->rank);
	}
	id = name_id(clocks, dom.buf);
	strbuf_release(&dom);
	return id;
}

static void cause_in_free(struct cause_in *c)
{
	free(c->gaps);
	free(c->w);
	free(c->steps);
}

/* Reads rdir/collectives.tsv (when there is one) into the builder, and its
 * timeline into x->ci. */
static int add_collectives(const char *rdir, struct merge_rank *mr, struct merge_ctx *x,
			   struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, buf = STRBUF_INIT;
	struct cause_in c = {mr->rank, NULL, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
	struct tsv_rank tr = {0};
	size_t lineno = 1;
	char *line, *next;
	int ret = -1;

	tr.c = &c;
	path_join(&p, rdir, bundle_art(BA_COLLECTIVES));
	if (!path_exists(p.buf)) {
		ret = 0;
		goto out;
	}
	if (read_regular_file(p.buf, INPUT_CAP_DATA, &buf, err))
		goto out;
	c.version = tsv_version(buf.buf);
	if (!c.version) {
		error_set(err, "%s: not an llmprof %s (version 1, 2 or 3)", p.buf,
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
		if (parse_tsv_line(line, &tr, &x->stages, p.buf, lineno, err))
			goto out;
	}
	if (!mr->host || !*mr->host) {
		free(mr->host);
		mr->host = xstrdup(tr.host ? tr.host : "");
	}
	mr->collectives = tr.nk;
	mr->tsv_version = c.version;
	mr->clock_id = clock_domain(mr, &tr, &x->clocks);
	{
		struct coll_rank_input in = {
		    mr->rank, name_id(&x->hosts, mr->host), tr.k, tr.nk, c.w, c.nw, mr->clock_id};

		if (coll_builder_add_rank(x->b, &in, err))
			goto out;
	}
	ALLOC_GROW(x->ci, x->nci + 1, x->aci);
	x->ci[x->nci++] = c;
	memset(&c, 0, sizeof(c));
	x->added = 1;
	ret = 0;
out:
	cause_in_free(&c);
	free(tr.k);
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

/* Why no cause can be told for the ranks whose files predate the gaps
 * (version 1 or 2); NULL when every rank's file has them. Owned. */
static char *cause_unknown_why(const struct merge_ctx *x)
{
	struct strbuf sb = STRBUF_INIT, list = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < x->nci; i++)
		if (x->ci[i].version < 3)
			strbuf_addf(&list, "%s %d (version %d)", n++ ? "," : "", x->ci[i].rank,
				    x->ci[i].version);
	if (n)
		strbuf_addf(&sb,
			    "the %s of rank%s%s predate%s the gap columns (what each rank's GPU "
			    "did before a collective, and when its host launched it): profile "
			    "again with this llmprof to know whether host or GPU makes a rank late",
			    bundle_art(BA_COLLECTIVES), n > 1 ? "s" : "", list.buf,
			    n > 1 ? "" : "s");
	strbuf_release(&list);
	if (!n) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The stragglers' causes from the ranks' gaps, by the single-trace
 * analysis's code (collectives_cause.h), then the findings, which name
 * them. */
static void causes_and_findings(struct merge_result *out, const struct merge_ctx *x)
{
	struct coll_cause_rank *in = xcalloc(out->coll.nranks + 1, sizeof(*in));
	struct coll_causes cs;

	for (size_t i = 0; i < x->nci; i++) {
		const struct cause_in *c = &x->ci[i];
		long k = coll_result_rank_index(&out->coll, c->rank);

		if (k >= 0)
			in[k] = (struct coll_cause_rank){c->gaps, c->ngaps, c->w,
							 c->nw,	  c->steps, c->nsteps};
	}
	coll_causes_compute(&out->coll, in, &cs);
	out->cause_why = cause_unknown_why(x);
	cs.unknown_why = out->cause_why;
	coll_straggles_copy(&cs, &out->straggles, &out->nstraggles);
	out->nfindings = coll_findings(&out->coll, "decode", &cs, NULL, &out->findings);
	coll_causes_release(&cs);
	free(in);
}

/* Reads rank folder i (id ids[i]) into out->ranks[i] and its collectives
 * into x. */
static int read_rank(const char *ranks_dir, int id, struct merge_result *out, struct merge_ctx *x,
		     struct strbuf *err)
{
	struct merge_rank *mr = &out->ranks[out->nranks++];
	struct strbuf p = STRBUF_INIT;
	int ret = -1;

	mr->rank = id;
	mr->util[MERGE_PREFILL] = mr->util[MERGE_DECODE] = -1;
	mr->util_counter[MERGE_PREFILL] = mr->util_counter[MERGE_DECODE] = -1;
	strbuf_addf(&p, "%s/%d", ranks_dir, id);
	if (read_rank_json(p.buf, mr, &out->world_size, err) ||
	    (!mr->failed && add_collectives(p.buf, mr, x, err)))
		goto out;
	if (!mr->host)
		mr->host = xstrdup("");
	out->nfailed += (size_t)mr->failed;
	out->nunstated += !mr->failed && mr->collectives && !mr->clock;
	ret = 0;
out:
	strbuf_release(&p);
	return ret;
}

int merge_run(const char *dir, struct merge_result *out, struct strbuf *err)
{
	struct strbuf rd = STRBUF_INIT;
	struct merge_ctx x = {0};
	size_t n = 0;
	int *ids = NULL, ret = -1;

	memset(out, 0, sizeof(*out));
	x.b = coll_builder_new();
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
	for (size_t i = 0; i < n; i++)
		if (read_rank(rd.buf, ids[i], out, &x, err))
			goto out;
	find_missing(out);
	fill_stats(out);
	if (x.added && coll_builder_finish(x.b, &out->coll, err))
		goto out;
	out->have_coll = x.added;
	fill_split(out);
	/* ranks joined by collectives end their steps together (the others
	 * wait), so the one they wait for is the slowest, whatever the spans */
	if (x.added && out->coll.nstragglers &&
	    out->coll.stragglers[0].share >= COLL_STRAGGLER_SHARE &&
	    out->coll.stragglers[0].mean_late_ns >= COLL_STRAGGLER_MIN_NS) {
		out->slowest_rank = out->coll.stragglers[0].rank;
		out->slowest_by = "arriving last at NCCL collectives";
	}
	if (x.added)
		causes_and_findings(out, &x);
	ret = 0;
out:
	coll_builder_free(x.b);
	names_release(&x.hosts);
	names_release(&x.clocks);
	names_release(&x.stages);
	for (size_t i = 0; i < x.nci; i++)
		cause_in_free(&x.ci[i]);
	free(x.ci);
	free(ids);
	strbuf_release(&rd);
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
	for (size_t i = 0; i < r->nstraggles; i++) {
		free(r->straggles[i].stage);
		free(r->straggles[i].cause);
	}
	free(r->straggles);
	free(r->cause_why);
	if (r->have_coll)
		coll_result_release(&r->coll);
	memset(r, 0, sizeof(*r));
}
