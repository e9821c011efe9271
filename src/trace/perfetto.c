/* perfetto.c: trace database -> Chrome trace-event JSON (see perfetto.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/sort.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxdomain.h"
#include "trace/graphnodes.h"
#include "trace/nsysdb.h"
#include "trace/perfetto.h"
#include "core/banned.h"

enum ev_kind { EV_RANGE, EV_MARK, EV_API, EV_GPU };

/* An event in 40 bytes (a big trace holds tens of millions: 8 M kernels
 * and their launch calls, 17 M events, take 690 MB): its track (pid, tid)
 * and name are ids into tables of distinct ones. */
#define EV_TRACK_BITS 26
struct ev {
	int64_t ts, dur;
	int64_t corr;			/* API and GPU: correlation id */
	int32_t flow;			/* GPU: pid of the process that launched it */
	int32_t name;			/* id in evs.names */
	int32_t cap;			/* kernel replayed from a CUDA graph, index+1: while
					   loading into struct gtab (the node it was captured
					   as), then into struct captures (its ranges); 0 none */
	uint32_t track : EV_TRACK_BITS; /* index into evs.tracks: in (pid, tid)
					   order once sorted */
	uint32_t kind : 2;		/* enum ev_kind */
	uint32_t cat : 3;		/* index into cat_names */
	uint32_t drop : 1;
};

struct track {
	int64_t pid, tid;
};

struct evs {
	struct ev *v;
	size_t n, alloc;
	struct strtab names;
	struct strtab track_keys; /* "pid tid" -> track id while loading */
	struct track *tracks;
	size_t ntracks, talloc;
};

enum { CAT_NVTX, CAT_MARK, CAT_API, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET };
static const char *const cat_names[] = {"nvtx",	  "nvtx.mark", "cuda_api",
					"kernel", "memcpy",    "memset"};

#define GPU_PID_BASE ((int64_t)1000000000)

static int32_t own(struct evs *e, const unsigned char *s)
{
	const char *p = s ? (const char *)s : "";

	return strtab_intern(&e->names, p, strlen(p));
}

static int32_t track_of(struct evs *e, int64_t pid, int64_t tid)
{
	char key[48];
	int32_t id;

	snprintf(key, sizeof(key), "%lld %lld", (long long)pid, (long long)tid);
	id = strtab_intern(&e->track_keys, key, strlen(key));
	if ((size_t)id == e->ntracks) {
		ALLOC_GROW(e->tracks, e->ntracks + 1, e->talloc);
		e->tracks[e->ntracks].pid = pid;
		e->tracks[e->ntracks++].tid = tid;
	}
	return id;
}

static int64_t ev_pid(const struct evs *e, const struct ev *v)
{
	return e->tracks[v->track].pid;
}

static int64_t ev_tid(const struct evs *e, const struct ev *v)
{
	return e->tracks[v->track].tid;
}

static struct ev *add(struct evs *e)
{
	ALLOC_GROW(e->v, e->n + 1, e->alloc);
	memset(&e->v[e->n], 0, sizeof(e->v[0]));
	return &e->v[e->n++];
}

/* Column i as an integer, dflt for NULL. */
static int64_t col_or(sqlite3_stmt *s, int i, int64_t dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(s, i);
}

static int pid_of(int64_t gtid)
{
	return (int)((gtid >> 24) & 0xffffff);
}

/* ---- CUDA-graph replays --------------------------------------------
 * NVTX ranges pushed while a graph is captured run once; its replays push
 * none. With llmprof's LLMPROF_GRAPH_NODES table (docs/tracer.md, "CUDA
 * graphs") each replayed kernel leads, through its clone, to the node the
 * program made, on a thread at a time: the ranges open there are where it
 * was captured. Kernels get them as the "captured_in" argument, and each
 * replay gets the ranges as slices spanning their kernels, on a track of
 * their own beside the stream ("stream N: replayed ranges"). */

#define REPLAY_TID_BASE ((int64_t)1 << 24)

struct gtab {
	struct trace_graph_node *v; /* sorted by graph_nodes_sort() */
	int32_t *stack;		    /* per made node: index+1 into struct
				       captures, 0 none yet, -1 queued */
	size_t n;
};

struct captures {
	char **text;   /* per stack: "layer0 > attn", NULL = nothing was open */
	size_t **evs;  /* per stack: its ranges' indices in e->v, outer first */
	size_t *depth; /* per stack: how many */
	size_t n, alloc;
};

/* The made node a replayed kernel's node id leads to (graphnodes.h), as
 * index+1 into g; 0 none. */
static int32_t gnode_made(const struct gtab *g, int64_t node)
{
	const struct trace_graph_node *a = graph_node_made(g->v, g->n, node);

	return a ? (int32_t)(a - g->v) + 1 : 0;
}

/* LLMPROF_GRAPH_NODES, when the trace has it (not an nsys export). A
 * damaged table costs the replay slices, not trace.json (as a damaged
 * NVTX_EVENTS costs the NVTX events). */
static void gtab_load(struct nsysdb *x, struct gtab *g)
{
	struct strbuf err = STRBUF_INIT;
	size_t alloc = 0;
	uint64_t clamped = 0;

	graph_nodes_read(x, &g->v, &g->n, &alloc, &clamped, &err);
	strbuf_release(&err);
	graph_nodes_sort(g->v, g->n);
	g->stack = xcalloc(g->n + 1, sizeof(*g->stack));
}

static int load(struct nsysdb *x, struct evs *e, const struct gtab *g, struct strbuf *err)
{
	static const enum nsysdb_query gpu_q[3] = {NSYSDB_KERNELS, NSYSDB_MEMCPY, NSYSDB_MEMSET};
	sqlite3_stmt *s = NULL;
	struct strbuf nm = STRBUF_INIT;
	struct nvtx_domains doms = NVTX_DOMAINS_INIT;
	struct strtab dom_names = STRTAB_INIT;
	int rc;

	if ((rc = nsysdb_prepare(x, NSYSDB_NVTX, &s, err)) < 0)
		goto fail;
	if (rc) {
		struct strbuf derr = STRBUF_INIT;
		int readable;

		/* A damaged NVTX_EVENTS gives no NVTX events; the rest is written. */
		readable = !nvtx_domains_read(&doms, x, &dom_names, &derr);
		strbuf_release(&derr);
		while (readable && sqlite3_step(s) == SQLITE_ROW) {
			struct ev *v = add(e);
			const unsigned char *text = sqlite3_column_text(s, 3);
			const struct nvtx_domain *d =
			    nvtx_domains_find(&doms, col_or(s, 5, -1), sqlite3_column_int64(s, 4));
			const char *dom = d ? strtab_str(&dom_names, d->name) : NULL;
			v->ts = sqlite3_column_int64(s, 0);
			v->kind = sqlite3_column_int(s, 2) == 34 ? EV_MARK : EV_RANGE;
			if (sqlite3_column_type(s, 1) == SQLITE_NULL)
				v->dur = -1; /* open range: closed at trace end below */
			else
				v->dur = i64_sat_sub(sqlite3_column_int64(s, 1), v->ts);
			v->track = track_of(e, pid_of(sqlite3_column_int64(s, 4)),
					    sqlite3_column_int64(s, 4) & 0xffffff);
			strbuf_reset(&nm);
			if (dom)
				strbuf_addf(&nm, "%s:", dom);
			strbuf_addstr(&nm, text ? (const char *)text : "");
			v->name = own(e, (const unsigned char *)nm.buf);
			v->cat = v->kind == EV_MARK ? CAT_MARK : CAT_NVTX;
		}
		sqlite3_finalize(s);
		s = NULL;
	}
	if ((rc = nsysdb_prepare(x, NSYSDB_API_CALLS, &s, err)) < 0)
		goto fail;
	if (rc) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			struct ev *v = add(e);
			v->ts = sqlite3_column_int64(s, 0);
			v->dur = i64_sat_sub(sqlite3_column_int64(s, 1), v->ts);
			v->track = track_of(e, pid_of(sqlite3_column_int64(s, 2)),
					    sqlite3_column_int64(s, 2) & 0xffffff);
			v->corr = sqlite3_column_int64(s, 3);
			v->name = own(e, sqlite3_column_text(s, 4));
			v->kind = EV_API;
			v->cat = CAT_API;
		}
		sqlite3_finalize(s);
		s = NULL;
	}
	{
		const uint8_t cats[3] = {CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET};
		for (int q = 0; q < 3; q++) {
			if ((rc = nsysdb_prepare(x, gpu_q[q], &s, err)) < 0)
				goto fail;
			if (!rc)
				continue;
			while (sqlite3_step(s) == SQLITE_ROW) {
				struct ev *v = add(e);
				v->ts = sqlite3_column_int64(s, 0);
				v->dur = i64_sat_sub(sqlite3_column_int64(s, 1), v->ts);
				v->track = track_of(e, GPU_PID_BASE + sqlite3_column_int64(s, 2),
						    sqlite3_column_int64(s, 3));
				v->corr = sqlite3_column_int64(s, 4);
				/* Process of the launch, to find the launch call. */
				v->flow = pid_of(sqlite3_column_int64(s, 5));
				v->name = own(e, sqlite3_column_text(s, 6));
				if (q == 0 && g->n)
					v->cap = gnode_made(g, col_or(s, 7, -1));
				v->kind = EV_GPU;
				v->cat = cats[q];
			}
			sqlite3_finalize(s);
			s = NULL;
		}
	}
	strbuf_release(&nm);
	nvtx_domains_release(&doms);
	strtab_release(&dom_names);
	if (e->ntracks >= (1u << EV_TRACK_BITS))
		return error_set(err, "more than %u threads and streams", 1u << EV_TRACK_BITS);
	if (e->n >= UINT32_MAX)
		return error_set(err, "more than %u events", UINT32_MAX);
	return 0;
fail:
	sqlite3_finalize(s);
	strbuf_release(&nm);
	nvtx_domains_release(&doms);
	strtab_release(&dom_names);
	return -1;
}

static void put_str(FILE *f, const char *s);

/* "GPU 0 (NVIDIA H100 80GB HBM3)", or "GPU 0" without TARGET_INFO_GPU. */
static void gpu_name(struct nsysdb *x, int64_t dev, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *s;
	int rc = nsysdb_prepare(x, NSYSDB_GPU_NAME, &s, &err);

	strbuf_release(&err);
	strbuf_addf(out, "GPU %lld", (long long)dev);
	if (rc <= 0)
		return;
	sqlite3_bind_int64(s, 1, dev);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		strbuf_addf(out, " (%s)", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

/* Process and thread names for the CPU tracks (best effort: tables may be
 * absent in an nsys export). A process with a rank identity (the builtin
 * tracer's LLMPROF_PROCESSES) is named "rank N (pid P)", so that a
 * multi-rank job reads by rank; the others keep their command line. */
static void put_names(struct nsysdb *x, FILE *f)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *s;

	if (nsysdb_prepare(x, NSYSDB_PROCESSES, &s, &err) > 0) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			const unsigned char *n = sqlite3_column_text(s, 1);
			long long pid = (long long)sqlite3_column_int64(s, 0);
			char label[64];

			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"args\":{"
				"\"name\":",
				pid);
			if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
				snprintf(label, sizeof(label), "rank %lld (pid %lld)",
					 (long long)sqlite3_column_int64(s, 2), pid);
				n = (const unsigned char *)label;
			}
			put_str(f, n ? (const char *)n : "");
			fputs("}},\n", f);
		}
		sqlite3_finalize(s);
	}
	if (nsysdb_prepare(x, NSYSDB_THREAD_NAMES, &s, &err) > 0) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			int64_t g = sqlite3_column_int64(s, 0);
			const unsigned char *n = sqlite3_column_text(s, 1);
			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%lld,"
				"\"args\":{\"name\":",
				pid_of(g), (long long)(g & 0xffffff));
			put_str(f, n ? (const char *)n : "");
			fputs("}},\n", f);
		}
		sqlite3_finalize(s);
	}
	strbuf_release(&err);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t perfetto_threshold(int64_t *dur, size_t n, size_t budget)
{
	if (n <= budget)
		return 0;
	sort_inplace(dur, n, sizeof(*dur), cmp_i64);
	/* Keep the `budget` longest; durations tied with the shortest kept one
	 * are kept too (folding some of equal ops would be arbitrary). */
	return budget ? dur[n - budget] : INT64_MAX;
}

/* 12 bytes: one per launch call (8 M in a big trace). */
struct __attribute__((packed)) key_idx {
	uint64_t key;
	uint32_t idx; /* into evs.v */
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct key_idx *)a)->key, y = ((const struct key_idx *)b)->key;
	return (x > y) - (x < y);
}

static int cmp_key_idx(const void *a, const void *b)
{
	const struct key_idx *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_track(const void *a, const void *b)
{
	const struct track *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Track ids renumbered in (pid, tid) order, so that events sort by id. */
static void tracks_sort(struct evs *e)
{
	int32_t *rank = xmalloc((e->ntracks ? e->ntracks : 1) * sizeof(*rank));
	struct track *sorted = xmalloc((e->ntracks ? e->ntracks : 1) * sizeof(*sorted));

	for (size_t i = 0; i < e->ntracks; i++)
		sorted[i] = e->tracks[i];
	if (e->ntracks)
		qsort(sorted, e->ntracks, sizeof(*sorted), cmp_track);
	/* tracks are distinct: find each one's rank */
	for (size_t i = 0; i < e->ntracks; i++) {
		const struct track *hit =
		    bsearch(&e->tracks[i], sorted, e->ntracks, sizeof(*sorted), cmp_track);
		rank[i] = (int32_t)(hit - sorted);
	}
	for (size_t i = 0; i < e->n; i++)
		e->v[i].track = rank[e->v[i].track];
	free(e->tracks);
	e->tracks = sorted;
	free(rank);
}

static int cmp_track_ts(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->dur < y->dur) - (x->dur > y->dur);
}

static size_t ev_track(const void *v)
{
	return ((const struct ev *)v)->track;
}

static void put_us(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

static void put_str(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	utf8_json_escape(&sb, s, strlen(s));
	fputc('"', f);
	fwrite(sb.buf, 1, sb.len, f);
	fputc('"', f);
	strbuf_release(&sb);
}

/* Ranges still open at the end of the trace close at its last timestamp. */
static void close_open_ranges(struct evs *e)
{
	int64_t t_end = INT64_MIN;
	size_t i;

	for (i = 0; i < e->n; i++) {
		struct ev *v = &e->v[i];
		if (v->dur > 0 && i64_sat_add(v->ts, v->dur) > t_end)
			t_end = i64_sat_add(v->ts, v->dur);
		if (v->ts > t_end)
			t_end = v->ts;
	}
	for (i = 0; i < e->n; i++)
		if (e->v[i].kind == EV_RANGE && e->v[i].dur < 0)
			e->v[i].dur = i64_sat_sub(t_end, e->v[i].ts);
}

/* The launch calls by (pid, correlationId), sorted for bsearch; equal keys
 * in event order. */
static struct key_idx *index_apis(const struct evs *e, size_t *napis)
{
	struct key_idx *apis;
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++)
		n += e->v[i].kind == EV_API;
	apis = xmalloc((n ? n : 1) * sizeof(*apis));
	*napis = 0;
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].kind == EV_API) {
			apis[*napis].key =
			    ((uint64_t)ev_pid(e, &e->v[i]) << 32) | (uint32_t)e->v[i].corr;
			apis[(*napis)++].idx = (uint32_t)i;
		}
	sort_inplace(apis, *napis, sizeof(*apis), cmp_key_idx);
	return apis;
}

/* Size cap: NVTX is always kept; the shortest GPU ops are folded, and a
 * launch call is kept only when a GPU op it launched is, so every kept op
 * keeps its flow arrow. Kept ops K, their calls <= K and merged slices
 * <= K + tracks: K = (cap - NVTX) / 3 keeps the total near cap. Returns the
 * threshold (0: everything fits); *apis (index_apis) made after the
 * durations are freed: the two at once are 24 bytes per launch. */
static int64_t apply_cap(struct evs *e, struct key_idx **apisp, size_t *napisp, uint64_t max_events)
{
	int64_t *d, threshold;
	size_t n = 0, fixed = 0, i, napis;
	struct key_idx *apis;

	if (e->n <= max_events) {
		*apisp = index_apis(e, napisp);
		return 0;
	}
	d = xmalloc((e->n ? e->n : 1) * sizeof(*d));
	for (i = 0; i < e->n; i++) {
		if (e->v[i].kind == EV_GPU)
			d[n++] = e->v[i].dur;
		else if (e->v[i].kind != EV_API)
			fixed++;
	}
	threshold =
	    perfetto_threshold(d, n, max_events > fixed ? (size_t)((max_events - fixed) / 3) : 0);
	free(d);
	*apisp = apis = index_apis(e, napisp);
	napis = *napisp;
	for (i = 0; i < e->n; i++)
		if (e->v[i].kind == EV_API || (e->v[i].kind == EV_GPU && e->v[i].dur < threshold))
			e->v[i].drop = 1;
	for (i = 0; i < e->n; i++) {
		struct key_idx k, *hit;
		if (e->v[i].kind != EV_GPU || e->v[i].drop)
			continue;
		k.key = ((uint64_t)e->v[i].flow << 32) | (uint32_t)e->v[i].corr;
		hit = bsearch(&k, apis, napis, sizeof(*apis), cmp_key);
		if (hit)
			e->v[hit->idx].drop = 0;
	}
	return threshold;
}

/* Names of the GPU tracks: "GPU N (...)" per device, "stream N" per stream. */
static void put_gpu_tracks(struct nsysdb *x, FILE *f, const struct evs *e)
{
	for (size_t i = 0; i < e->n; i++) {
		const struct ev *v = &e->v[i];
		int64_t pid = ev_pid(e, v), tid = ev_tid(e, v);
		if (i && v->track == e->v[i - 1].track)
			continue;
		if (pid >= GPU_PID_BASE) {
			if (!i || pid != ev_pid(e, &e->v[i - 1])) {
				struct strbuf gn = STRBUF_INIT;
				gpu_name(x, pid - GPU_PID_BASE, &gn);
				fprintf(f,
					"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64
					",\"args\":{\"name\":",
					pid);
				put_str(f, gn.buf);
				fputs("}},\n", f);
				strbuf_release(&gn);
			}
			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64
				",\"tid\":%" PRId64 ",\"args\":{\"name\":\"stream %" PRId64
				"\"}},\n",
				pid, tid, tid);
		}
	}
}

/* Folds the run of dropped events on e->v[i]'s track into one slice.
 * Returns the index of the run's last event. */
static size_t put_merged(FILE *f, const struct evs *e, size_t i)
{
	const struct ev *v = &e->v[i];
	size_t j = i;
	int64_t end = v->ts + v->dur;

	while (j + 1 < e->n && e->v[j + 1].drop && e->v[j + 1].track == v->track &&
	       e->v[j + 1].kind == v->kind) {
		j++;
		if (e->v[j].ts + e->v[j].dur > end)
			end = e->v[j].ts + e->v[j].dur;
	}
	fprintf(f,
		"{\"ph\":\"X\",\"cat\":\"merged\",\"name\":\"[%zu merged "
		"%s]\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
		j - i + 1, v->kind == EV_GPU ? "GPU ops" : "CUDA calls", ev_pid(e, v),
		ev_tid(e, v));
	put_us(f, v->ts);
	fputs(",\"dur\":", f);
	put_us(f, end - v->ts);
	fputs("},\n", f);
	return j;
}

/* The flow arrow from a kept GPU op e->v[i] back to its launch call. */
static void put_flow(FILE *f, const struct evs *e, size_t i, const struct key_idx *apis,
		     size_t napis)
{
	const struct ev *v = &e->v[i];
	struct key_idx k = {((uint64_t)v->flow << 32) | (uint32_t)v->corr, 0};
	struct key_idx *hit = bsearch(&k, apis, napis, sizeof(*apis), cmp_key);

	if (hit && !e->v[hit->idx].drop) {
		const struct ev *a = &e->v[hit->idx];
		uint64_t id = k.key ^ ((uint64_t)i << 40);
		fprintf(f,
			"{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\","
			"\"id\":%" PRIu64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
			id, ev_pid(e, a), ev_tid(e, a));
		put_us(f, a->ts);
		fprintf(f,
			"},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\","
			"\"name\":\"launch\",\"id\":%" PRIu64 ",\"pid\":%" PRId64
			",\"tid\":%" PRId64 ",\"ts\":",
			id, ev_pid(e, v), ev_tid(e, v));
		put_us(f, v->ts);
		fputs("},\n", f);
	}
}

/* ---- CUDA-graph replays, after the sort ---- */

static void captures_release(struct captures *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->text[i]);
		free(c->evs[i]);
	}
	free(c->text);
	free(c->evs);
	free(c->depth);
	memset(c, 0, sizeof(*c));
}

static int cmp_gnode_track(const void *a, const void *b)
{
	const struct trace_graph_node *x = *(const struct trace_graph_node *const *)a,
				      *y = *(const struct trace_graph_node *const *)b;

	if (x->gtid != y->gtid) /* by thread; any order of threads will do */
		return x->gtid < y->gtid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* First event of the track (pid, tid) in e->v (tracks numbered in (pid,
 * tid) order, events sorted by track and time); e->n when it has none. */
static size_t track_first(const struct evs *e, int64_t pid, int64_t tid)
{
	struct track key = {pid, tid};
	const struct track *t = bsearch(&key, e->tracks, e->ntracks, sizeof(key), cmp_track);
	size_t lo = 0, hi = e->n;
	int32_t id;

	if (!t)
		return e->n;
	id = (int32_t)(t - e->tracks);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->v[mid].track < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->n && e->v[lo].track == id ? lo : e->n;
}

/* Adds the capture stack of made node q: the ranges in act[0..n), outer
 * first. */
static void capture_add(struct captures *c, const struct evs *e, const size_t *act, size_t n,
			int32_t *stack)
{
	struct strbuf t = STRBUF_INIT;

	ALLOC_GROW(c->text, c->n + 1, c->alloc);
	c->evs = xrealloc(c->evs, st_mult(c->alloc, sizeof(*c->evs)));
	c->depth = xrealloc(c->depth, st_mult(c->alloc, sizeof(*c->depth)));
	for (size_t k = 0; k < n; k++)
		strbuf_addf(&t, "%s%s", k ? " > " : "", strtab_str(&e->names, e->v[act[k]].name));
	c->text[c->n] = n ? strbuf_detach(&t, NULL) : NULL;
	strbuf_release(&t);
	c->evs[c->n] = xmalloc(st_mult(n + 1, sizeof(size_t)));
	if (n)
		memcpy(c->evs[c->n], act, n * sizeof(size_t));
	c->depth[c->n] = n;
	*stack = (int32_t)++c->n;
}

/* Each replayed kernel's cap, from its made node to the ranges open there:
 * one sweep per thread over its events keeps the ranges started so far; at
 * a node's time those not yet ended enclose it, outer first. */
static void captures_resolve(struct evs *e, struct gtab *g, struct captures *c)
{
	const struct trace_graph_node **q = NULL;
	size_t nq = 0, *act = NULL, aact = 0;

	for (size_t i = 0; i < e->n; i++) {
		int32_t at = e->v[i].cap - 1;

		if (at >= 0 && !g->stack[at]) {
			if (!q)
				q = xmalloc(st_mult(g->n, sizeof(*q)));
			g->stack[at] = -1; /* queued */
			q[nq++] = &g->v[at];
		}
	}
	if (nq)
		qsort(q, nq, sizeof(*q), cmp_gnode_track);
	for (size_t lo = 0, hi; lo < nq; lo = hi) {
		size_t j = track_first(e, pid_of(q[lo]->gtid), q[lo]->gtid & 0xffffff), nact = 0;
		int32_t track = j < e->n ? e->v[j].track : -1;

		for (hi = lo; hi < nq && q[hi]->gtid == q[lo]->gtid; hi++) {
			int64_t ts = q[hi]->ts;
			size_t keep = 0;

			for (; j < e->n && e->v[j].track == track && e->v[j].ts <= ts; j++)
				if (e->v[j].kind == EV_RANGE) {
					ALLOC_GROW(act, nact + 1, aact);
					act[nact++] = j;
				}
			for (size_t k = 0; k < nact; k++) /* drop the ranges that ended */
				if (e->v[act[k]].ts + e->v[act[k]].dur > ts)
					act[keep++] = act[k];
			nact = keep;
			capture_add(c, e, act, nact, &g->stack[q[hi] - g->v]);
		}
	}
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].cap)
			e->v[i].cap = g->stack[e->v[i].cap - 1];
	free(act);
	free(q);
}

struct replay_span {
	int32_t track;
	int64_t corr;
	size_t range; /* index into e->v */
	int64_t start, end;
};

static int cmp_replay_span(const void *a, const void *b)
{
	const struct replay_span *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* One slice per replay (graph launch: one correlation id) and capture-time
 * range, from its first kernel's start to its last kernel's end, on the
 * stream's replay track. Returns how many events it wrote. */
static size_t put_replay_ranges(FILE *f, const struct evs *e, const struct captures *c)
{
	struct replay_span *v = NULL;
	size_t n = 0, alloc = 0, written = 0;
	int32_t last = -1;

	for (size_t i = 0; i < e->n; i++) {
		const struct ev *k = &e->v[i];

		if (k->kind != EV_GPU || k->cap <= 0)
			continue;
		for (size_t d = 0; d < c->depth[k->cap - 1]; d++) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n].track = k->track;
			v[n].corr = k->corr;
			v[n].range = c->evs[k->cap - 1][d];
			v[n].start = k->ts;
			v[n++].end = i64_sat_add(k->ts, k->dur > 0 ? k->dur : 0);
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_replay_span);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const struct track *t = &e->tracks[v[lo].track];
		int64_t end = v[lo].end;

		for (hi = lo + 1; hi < n && v[hi].track == v[lo].track &&
				  v[hi].corr == v[lo].corr && v[hi].range == v[lo].range;
		     hi++)
			if (v[hi].end > end)
				end = v[hi].end;
		if (v[lo].track != last) {
			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64
				",\"tid\":%" PRId64 ",\"args\":{\"name\":\"stream %" PRId64
				": replayed ranges\"}},\n",
				t->pid, REPLAY_TID_BASE + t->tid, t->tid);
			last = v[lo].track;
		}
		fputs("{\"ph\":\"X\",\"cat\":\"nvtx.replay\",\"name\":", f);
		put_str(f, strtab_str(&e->names, e->v[v[lo].range].name));
		fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", t->pid,
			REPLAY_TID_BASE + t->tid);
		put_us(f, v[lo].start);
		fputs(",\"dur\":", f);
		put_us(f, end - v[lo].start);
		fprintf(f, ",\"args\":{\"correlationId\":%" PRId64 "}},\n", v[lo].corr);
		written++;
	}
	free(v);
	return written;
}

/* Every event, merged runs folded; *written and *merged counted. */
static void put_events(FILE *f, const struct evs *e, const struct captures *caps,
		       const struct key_idx *apis, size_t napis, size_t *written, size_t *merged)
{
	for (size_t i = 0; i < e->n; i++) {
		const struct ev *v = &e->v[i];
		if (v->drop) {
			size_t j = put_merged(f, e, i);
			*merged += j - i + 1;
			(*written)++;
			i = j;
			continue;
		}
		if (v->kind == EV_MARK) {
			fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nvtx.mark\",\"name\":", f);
			put_str(f, strtab_str(&e->names, v->name));
			fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", ev_pid(e, v),
				ev_tid(e, v));
			put_us(f, v->ts);
			fputs("},\n", f);
			(*written)++;
			continue;
		}
		fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat_names[v->cat]);
		put_str(f, strtab_str(&e->names, v->name));
		fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", ev_pid(e, v),
			ev_tid(e, v));
		put_us(f, v->ts);
		fputs(",\"dur\":", f);
		put_us(f, v->dur > 0 ? v->dur : 0);
		if (v->kind == EV_GPU || v->kind == EV_API) {
			fprintf(f, ",\"args\":{\"correlationId\":%" PRId64, v->corr);
			if (v->cap > 0 && caps->text[v->cap - 1]) {
				fputs(",\"captured_in\":", f);
				put_str(f, caps->text[v->cap - 1]);
			}
			fputc('}', f);
		}
		fputs("},\n", f);
		(*written)++;
		if (v->kind == EV_GPU)
			put_flow(f, e, i, apis, napis);
	}
}

int perfetto_write(const char *sqlite_path, const struct bundle_dir *bd, const char *json_path,
		   uint64_t max_events, uint64_t *events_out, uint64_t *merged_out,
		   struct strbuf *err)
{
	struct nsysdb x = {0};
	struct evs e = {0};
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct key_idx *apis = NULL;
	struct gtab g = {0};
	struct captures caps = {0};
	size_t napis = 0, written = 0, merged = 0;
	int64_t threshold;
	int ret = -1;
	FILE *f;

	if (!max_events)
		max_events = PERFETTO_DEFAULT_MAX_EVENTS;
	if (nsysdb_open(&x, sqlite_path, err))
		goto out;
	gtab_load(&x, &g);
	if (load(&x, &e, &g, err) < 0)
		goto out;
	close_open_ranges(&e);
	tracks_sort(&e);
	/* ties in load order; 4 bytes per event beyond them, not a copy */
	sort_stable(e.v, e.n, sizeof(e.v[0]), cmp_track_ts, e.ntracks, ev_track);
	captures_resolve(&e, &g, &caps);
	threshold = apply_cap(&e, &apis, &napis, max_events);

	ret = PERFETTO_CANNOT_WRITE; /* from here on, what fails is the write */
	if (bundle_dir_atomic_open(bd, json_path, &af, err) < 0)
		goto out;
	f = af.fp;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"llmprof\"", f);
	if (threshold)
		fprintf(f,
			",\"note\":\"cap of %" PRIu64 " events: GPU ops shorter than %" PRId64
			" ns (and launch calls of only such ops) are merged per track\"",
			max_events, (int64_t)threshold);
	fputs("},\"traceEvents\":[\n", f);
	put_names(&x, f);
	put_gpu_tracks(&x, f, &e);
	put_events(f, &e, &caps, apis, napis, &written, &merged);
	written += put_replay_ranges(f, &e, &caps);
	/* A final metadata event keeps the array free of a trailing comma. */
	fprintf(f,
		"{\"ph\":\"M\",\"name\":\"llmprof\",\"pid\":0,\"args\":{\"events\":%zu,\"merged\":%"
		"zu}}\n]}\n",
		written, merged);
	if (atomic_file_commit(&af, err) < 0)
		goto out;
	if (events_out)
		*events_out = written;
	if (merged_out)
		*merged_out = merged;
	ret = 0;
out:
	if (af.fp)
		atomic_file_abort(&af);
	nsysdb_close(&x);
	strtab_release(&e.names);
	strtab_release(&e.track_keys);
	free(e.tracks);
	free(e.v);
	free(apis);
	free(g.v);
	free(g.stack);
	captures_release(&caps);
	return ret;
}
