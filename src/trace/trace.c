/* trace.c: read-only, streaming reader of nsys-schema SQLite files; what it
 * knows of the schema comes from nsysdb.h. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/atenname.h"
#include "trace/graphnodes.h"
#include "trace/nsysdb.h"
#include "trace/nvtxdomain.h"
#include "trace/trace.h"
#include "trace/trace_par.h"
#include "core/banned.h"

int trace_has_table(struct trace *t, const char *name)
{
	return t->db && nsysdb_has_table(t->db, name);
}

/* A timestamp, clamped to +-TRACE_TIME_MAX (trace.h). */
static inline int64_t col_time(struct trace *t, sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);

	if (v > TRACE_TIME_MAX || v < -TRACE_TIME_MAX) {
		t->clamped++;
		return v > 0 ? TRACE_TIME_MAX : -TRACE_TIME_MAX;
	}
	return v;
}

/* The same for a value of nsysdb_scan(). */
static inline int64_t val_time(struct trace *t, sqlite3_value *x)
{
	int64_t v = sqlite3_value_int64(x);

	if (v > TRACE_TIME_MAX || v < -TRACE_TIME_MAX) {
		t->clamped++;
		return v > 0 ? TRACE_TIME_MAX : -TRACE_TIME_MAX;
	}
	return v;
}

/* The builtin tracer's counts of what it lost (META_DATA_EXPORT); nsys
 * exports have none and read 0. */
static void read_tracer_meta(struct trace *t)
{
	static const char *const names[] = {"LLMPROF_DROPPED_CUPTI", "LLMPROF_DROPPED_TRACER",
					    "LLMPROF_LOG_PROBLEMS", "LLMPROF_UNFLUSHED_PROCESSES"};
	uint64_t *to[] = {&t->dropped_cupti, &t->dropped_tracer, &t->log_problems, &t->unflushed};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int64_t v;

		if (nsysdb_meta_i64(t->db, names[i], &v))
			*to[i] = v > 0 ? (uint64_t)v : 0;
	}
}

uint32_t trace_ksig_id(struct trace *t, struct trace_ksig s, int64_t corr, uint32_t *corr_lo)
{
	s.corr_hi = (int32_t)(uint32_t)((uint64_t)corr >> 32);
	*corr_lo = (uint32_t)corr;
	t->ksigs.size = sizeof(s);
	return rectab_intern(&t->ksigs, &s);
}

uint32_t trace_csig_id(struct trace *t, struct trace_csig s, int64_t corr, uint32_t *corr_lo)
{
	s.corr_hi = (int32_t)(uint32_t)((uint64_t)corr >> 32);
	*corr_lo = (uint32_t)corr;
	t->csigs.size = sizeof(s);
	return rectab_intern(&t->csigs, &s);
}

/* A kernel's columns past the first five (load_kernels()). */
static void ksig_rest(struct trace *t, sqlite3_value **v, struct trace_ksig *sig)
{
	sig->short_name = nsysdb_string_val(&t->sids, v[5]);
	sig->device = (int32_t)nsysdb_val_i64(v[6], -1);
	sig->context = (int32_t)nsysdb_val_i64(v[7], -1);
	sig->stream = (int32_t)nsysdb_val_i64(v[8], -1);
	for (int i = 0; i < 3; i++) {
		sig->grid[i] = (int32_t)nsysdb_val_i64(v[9 + i], 0);
		sig->block[i] = (int32_t)nsysdb_val_i64(v[12 + i], 0);
	}
	sig->regs = (int32_t)nsysdb_val_i64(v[15], 0);
	sig->graph_node = nsysdb_val_i64(v[16], -1);
	sig->mangled = nsysdb_string_val(&t->sids, v[17]);
}

/* One CUPTI_ACTIVITY_KIND_KERNEL row (load_kernels()'s columns). */
static void kernel_row(void *ctx, sqlite3_value **v)
{
	/* what a NULL column gives, for the fields a lean load leaves out */
	static const struct trace_ksig lean = {.short_name = -1,
					       .device = -1,
					       .context = -1,
					       .stream = -1,
					       .graph_node = -1,
					       .mangled = -1};
	struct trace *t = ctx;
	struct trace_kernel *k;
	struct trace_ksig sig;

	memcpy(&sig, &lean, sizeof(sig)); /* padding too: rectab hashes bytes */
	ALLOC_GROW(t->kernels, t->nkernels + 1, t->kernels_alloc);
	k = &t->kernels[t->nkernels++];
	k->start = val_time(t, v[0]);
	k->end = val_time(t, v[1]);
	t->kernels_bad_time += k->end <= k->start;
	sig.gpid = nsysdb_val_i64(v[3], 0);
	sig.name = nsysdb_string_val(&t->sids, v[4]);
	if (!t->kernels_lean)
		ksig_rest(t, v, &sig);
	k->sig = trace_ksig_id(t, sig, nsysdb_val_i64(v[2], -1), &k->corr_lo);
}

static int load_kernels(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {
	    "!start",	     "!end",	    "correlationId", "globalPid",
	    "demangledName", "shortName",   "deviceId",	     "contextId",
	    "streamId",	     "gridX",	    "gridY",	     "gridZ",
	    "blockX",	     "blockY",	    "blockZ",	     "registersPerThread",
	    "graphNodeId",   "mangledName",
	};

	if (!t->has_kernels)
		return 0;
	ALLOC_GROW(t->kernels, nsysdb_row_estimate(t->db, "CUPTI_ACTIVITY_KIND_KERNEL"),
		   t->kernels_alloc);
	return nsysdb_scan(t->db, "CUPTI_ACTIVITY_KIND_KERNEL", cols,
			   t->kernels_lean ? 5 : ARRAY_SIZE(cols), kernel_row, t, err);
}

/* A damaged LLMPROF_GRAPH_NODES table costs only the graph attribution of
 * replayed kernels, as a damaged NVTX table costs trace.json only its NVTX
 * events: the problem is kept for the trust report, the load goes on. An
 * interrupt (Ctrl-C, the deadline) still ends the load. */
static int load_graph_nodes(struct trace *t, struct strbuf *err)
{
	if (!t->db || !graph_nodes_read(t->db, &t->graph_nodes, &t->ngraph_nodes,
					&t->graph_nodes_alloc, &t->clamped, err))
		return 0;
	if (sqlite3_errcode(t->db->db) == SQLITE_INTERRUPT)
		return -1;
	trace_note_unreadable(t, "LLMPROF_GRAPH_NODES", err->buf);
	strbuf_reset(err);
	return 0;
}

/* A copy kind's name, "[CUDA memcpy Host-to-Device]", by its id. */
struct copy_kinds {
	struct trace *t;
	int32_t names[64];
};

static void copy_kind(void *ctx, int64_t id, const char *label)
{
	struct copy_kinds *k = ctx;
	struct strbuf nm = STRBUF_INIT;

	if (id < 0 || id >= (int64_t)ARRAY_SIZE(k->names))
		return;
	strbuf_addf(&nm, "[CUDA memcpy %s]", label);
	k->names[id] = strtab_intern(&k->t->strs, nm.buf, nm.len);
	strbuf_release(&nm);
}

static int load_memops(struct trace *t, struct strbuf *err)
{
	static const char *const cpcols[] = {"!start", "!end",	   "correlationId", "globalPid",
					     "bytes",  "copyKind", "deviceId",	    "streamId"};
	struct copy_kinds kinds = {t, {0}};
	int32_t *kind_names = kinds.names;
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	for (size_t i = 0; i < ARRAY_SIZE(kinds.names); i++)
		kind_names[i] = -1;
	if (t->has_memcpy_enum &&
	    nsysdb_enum(t->db, "ENUM_CUDA_MEMCPY_OPER", copy_kind, &kinds, err))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const char *table =
		    pass ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
		int32_t memset_name = strtab_intern(&t->strs, "[CUDA memset]", 13);

		if (!(pass ? t->has_memset : t->has_memcpy))
			continue;
		if (nsysdb_select(t->db, table, cpcols, ARRAY_SIZE(cpcols), &st, err))
			goto cleanup;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct trace_memop *m;
			int64_t ck = nsysdb_col_i64(st, 5, -1);

			ALLOC_GROW(t->memops, t->nmemops + 1, t->memops_alloc);
			m = &t->memops[t->nmemops++];
			m->start = col_time(t, st, 0);
			m->end = col_time(t, st, 1);
			m->corr = nsysdb_col_i64(st, 2, -1);
			m->gpid = nsysdb_col_i64(st, 3, 0);
			m->bytes = nsysdb_col_i64(st, 4, 0);
			m->kind = pass ? TRACE_MEMSET : TRACE_MEMCPY;
			m->name = pass ? memset_name
				       : (ck >= 0 && ck < (int64_t)ARRAY_SIZE(kinds.names)
					      ? kind_names[ck]
					      : -1);
			m->device = (int32_t)nsysdb_col_i64(st, 6, -1);
			m->stream = (int32_t)nsysdb_col_i64(st, 7, -1);
		}
		if (nsysdb_step_done(t->db, rc, table, err))
			goto cleanup;
		sqlite3_finalize(st);
		st = NULL;
	}
	ret = 0;
cleanup:
	sqlite3_finalize(st);
	return ret;
}

/* One CUPTI_ACTIVITY_KIND_RUNTIME row (load_calls()'s columns). */
static void call_row(void *ctx, sqlite3_value **v)
{
	struct trace *t = ctx;
	struct trace_call *c;
	struct trace_csig sig;

	ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
	c = &t->calls[t->ncalls++];
	c->start = val_time(t, v[0]);
	c->end = val_time(t, v[1]);
	memset(&sig, 0, sizeof(sig));
	sig.gtid = nsysdb_val_i64(v[2], 0);
	sig.name_sid = nsysdb_val_i64(v[4], -1);
	sig.name = nsysdb_string_id(&t->sids, sig.name_sid);
	c->sig = trace_csig_id(t, sig, nsysdb_val_i64(v[3], -1), &c->corr_lo);
}

static int load_calls(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"!start", "!end", "globalTid", "correlationId",
					   "nameId"};

	if (!t->has_calls)
		return 0;
	ALLOC_GROW(t->calls, nsysdb_row_estimate(t->db, "CUPTI_ACTIVITY_KIND_RUNTIME"),
		   t->calls_alloc);
	return nsysdb_scan(t->db, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, ARRAY_SIZE(cols), call_row,
			   t, err);
}

/* NVTX category names (eventType 33 rows: nvtxDomainNameCategory), per
 * process, domain and category id; the PyTorch startup module names a
 * module range's class this way (docs/pytorch.md). */
#define NVTX_CATEGORY_NAME 33

struct nvtx_cat {
	int64_t proc, domain;
	uint32_t id;
	int32_t name;
	size_t seq; /* order named: of equal keys the last wins */
};

struct nvtx_cats {
	struct nvtx_cat *v;
	size_t n, alloc;
};

/* The interned text of a value, -1 for NULL. */
static int32_t val_intern(struct trace *t, sqlite3_value *v)
{
	const char *s = (const char *)sqlite3_value_text(v);

	return s ? strtab_intern(&t->strs, s, (size_t)sqlite3_value_bytes(v)) : -1;
}

static void nvtx_cats_add(struct trace *t, struct nvtx_cats *c, sqlite3_value **v)
{
	int64_t id = nsysdb_val_i64(v[9], 0);
	int32_t name = nsysdb_string_val(&t->sids, v[7]);

	if (name < 0)
		name = val_intern(t, v[6]);
	if (id <= 0 || id > UINT32_MAX || name < 0)
		return;
	ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n++] = (struct nvtx_cat){
	    .proc = nsysdb_val_i64(v[4], 0) & TRACE_GPID_MASK,
	    .domain = nsysdb_val_i64(v[8], 0),
	    .id = (uint32_t)id,
	    .name = name,
	    .seq = c->n,
	};
}

static int cmp_nvtx_cat(const void *a, const void *b)
{
	const struct nvtx_cat *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_nvtx_cat_seq(const void *a, const void *b)
{
	const struct nvtx_cat *x = a, *y = b;
	int c = cmp_nvtx_cat(a, b);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each range's category id becomes its name (-1 when none was named; a
 * later naming of the same id wins, as the last call does in NVTX). */
static void nvtx_cats_resolve(struct trace *t, struct nvtx_cats *c)
{
	size_t n = 0;

	if (c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), cmp_nvtx_cat_seq);
	for (size_t i = 0; i < c->n; i++) { /* keep the last of equal keys */
		if (n && !cmp_nvtx_cat(&c->v[n - 1], &c->v[i]))
			n--;
		c->v[n++] = c->v[i];
	}
	c->n = n;
	for (size_t i = 0; i < t->nranges; i++) {
		struct trace_range *r = &t->ranges[i];
		struct nvtx_cat key = {.proc = r->gtid & TRACE_GPID_MASK,
				       .domain = r->domain_id < 0 ? 0 : r->domain_id,
				       .id = (uint32_t)r->category};
		const struct nvtx_cat *hit =
		    r->category > 0 && c->n ? bsearch(&key, c->v, c->n, sizeof(*c->v), cmp_nvtx_cat)
					    : NULL;

		r->category = hit ? hit->name : -1;
	}
}

/* range_op[]: each range's operator name (atenname.h), computed once per
 * distinct message. */
static void ranges_op_names(struct trace *t)
{
	size_t nstr = t->strs.nr;
	int32_t *memo = xmalloc(st_mult(nstr + 1, sizeof(*memo)));
	struct strbuf key = STRBUF_INIT;

	for (size_t i = 0; i < nstr; i++)
		memo[i] = -2; /* not yet looked at */
	free(t->range_op);
	t->range_op = xmalloc(st_mult(t->nranges + 1, sizeof(*t->range_op)));
	for (size_t i = 0; i < t->nranges; i++) {
		int32_t text = t->ranges[i].text;

		t->range_op[i] = text;
		if (text < 0 || (size_t)text >= nstr)
			continue;
		if (memo[text] == -2)
			memo[text] = aten_op_key(strtab_str(&t->strs, text), &key)
					 ? strtab_intern(&t->strs, key.buf, key.len)
					 : text;
		t->range_op[i] = memo[text];
	}
	free(memo);
	strbuf_release(&key);
}

/* What load_nvtx() keeps between rows. */
struct nvtx_load {
	struct trace *t;
	struct nvtx_domains doms;
	struct nvtx_cats cats;
	int have_max, have_rmax;
};

/* One NVTX_EVENTS row (load_nvtx()'s columns). */
static void nvtx_row(void *ctx, sqlite3_value **v)
{
	struct nvtx_load *l = ctx;
	struct trace *t = l->t;
	int64_t type = sqlite3_value_int64(v[3]), start = val_time(t, v[1]);
	int has_end = sqlite3_value_type(v[2]) != SQLITE_NULL;
	int64_t end = has_end ? val_time(t, v[2]) : start;
	int64_t m = end > start ? end : start;
	int is_range = type == 59 || type == 60 || type == 70 || type == 71;
	struct trace_range *r;
	int32_t text = -1;

	if (!l->have_max || m > t->nvtx_max_all)
		t->nvtx_max_all = m;
	l->have_max = 1;
	if (type == NVTX_DOMAIN_CREATE) {
		int32_t name = val_intern(t, v[6]);
		int32_t regname = nsysdb_string_val(&t->sids, v[7]);

		nvtx_domains_add(&l->doms, nsysdb_val_i64(v[8], 0), nsysdb_val_i64(v[4], 0), start,
				 name, regname < 0 ? name : regname);
		return;
	}
	if (type == NVTX_CATEGORY_NAME) {
		nvtx_cats_add(t, &l->cats, v);
		return;
	}
	if (!is_range)
		return;
	if (!l->have_rmax || m > t->nvtx_max_range)
		t->nvtx_max_range = m;
	l->have_rmax = 1;
	text = nsysdb_string_val(&t->sids, v[7]);
	if (text < 0)
		text = val_intern(t, v[6]);
	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges++];
	r->rowid = sqlite3_value_int64(v[0]);
	r->start = start;
	r->end = end;
	r->open = !has_end;
	r->gtid = nsysdb_val_i64(v[4], 0);
	r->cross_thread = sqlite3_value_type(v[5]) != SQLITE_NULL;
	r->text = text;
	r->domain_id = nsysdb_val_i64(v[8], -1);
	r->domain = r->domain_reg = -1;
	r->category = (int32_t)nsysdb_val_i64(v[9], 0); /* resolved below */
	r->name = text;
	r->style = (type == 60 || type == 71) ? TRACE_STARTEND : TRACE_PUSHPOP;
}

static int load_nvtx(struct trace *t, struct strbuf *err)
{
	static const char *const cols[] = {"rowid",	"!start",	"end",	"!eventType",
					   "globalTid", "endGlobalTid", "text", "textId",
					   "domainId",	"category"};
	struct nvtx_load l = {t, NVTX_DOMAINS_INIT, {0}, 0, 0};
	struct nvtx_domains *doms = &l.doms;
	struct strbuf nm = STRBUF_INIT;
	int ret = -1;

	if (!t->has_nvtx)
		return 0;
	if (nsysdb_scan(t->db, "NVTX_EVENTS", cols, ARRAY_SIZE(cols), nvtx_row, &l, err))
		goto cleanup;
	nvtx_cats_resolve(t, &l.cats);
	ranges_op_names(t);
	/* Domain names: the rule of nvtxdomain.h. */
	for (size_t i = 0; i < t->nranges && doms->n; i++) {
		struct trace_range *r = &t->ranges[i];
		const struct nvtx_domain *best = nvtx_domains_find(doms, r->domain_id, r->gtid);

		if (!best)
			continue;
		r->domain_reg = best->regname;
		if (best->name < 0)
			continue;
		r->domain = best->name;
		if (r->text < 0) {
			r->name = -1;
			continue;
		}
		strbuf_reset(&nm); /* not strbuf_addf(): a range at a time adds up */
		strbuf_addstr(&nm, strtab_str(&t->strs, best->name));
		strbuf_addch(&nm, ':');
		strbuf_addstr(&nm, strtab_str(&t->strs, r->text));
		r->name = strtab_intern(&t->strs, nm.buf, nm.len);
	}
	ret = 0;
cleanup:
	strbuf_release(&nm);
	nvtx_domains_release(doms);
	free(l.cats.v);
	return ret;
}

/* The deviceId most loaded kernels have; -1 when none is known. One pass
 * with a count per device seen (a host has a handful; past 64 distinct ids
 * the rest are not counted); of a tie, the one seen first wins. */
static int64_t busiest_device(const struct trace *t)
{
	int32_t ids[64];
	size_t counts[64], nids = 0, best_n = 0;
	int64_t best = -1;

	for (size_t i = 0; i < t->nkernels; i++) {
		int32_t d = trace_ksig(t, &t->kernels[i])->device;
		size_t j = 0;

		if (d < 0)
			continue;
		while (j < nids && ids[j] != d)
			j++;
		if (j == nids) {
			if (nids == ARRAY_SIZE(ids))
				continue;
			ids[nids] = d;
			counts[nids++] = 0;
		}
		counts[j]++;
	}
	for (size_t j = 0; j < nids; j++)
		if (counts[j] > best_n) {
			best = ids[j];
			best_n = counts[j];
		}
	return best;
}

int trace_gpu_info(struct trace *t, struct trace_gpu *g, struct strbuf *err)
{
	const char *cols[] = {
	    "!id",	   "name",	   "smCount",	  "clockRate", "memoryBandwidth",
	    "totalMemory", "computeMajor", "computeMinor"};
	sqlite3_stmt *st = NULL;
	int64_t want = (t->loaded & TRACE_KERNELS) ? busiest_device(t) : -1;
	int rc, picked = 0;

	memset(g, 0, sizeof(*g));
	g->cc_major = g->cc_minor = -1;
	if (!trace_has_table(t, "TARGET_INFO_GPU"))
		return 0;
	/* exports of nsys before 2021 name the device deviceId, not id */
	if (!nsysdb_has_column(t->db, "TARGET_INFO_GPU", "id") &&
	    nsysdb_has_column(t->db, "TARGET_INFO_GPU", "deviceId"))
		cols[0] = "!deviceId";
	if (nsysdb_select(t->db, "TARGET_INFO_GPU", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		g->ngpus++;
		/* the device the kernels ran on wins; else the lowest id */
		if (picked && (g->id == want || (id != want && id > g->id)))
			continue;
		picked = 1;
		free(g->name);
		g->name = name && *name ? xstrdup(name) : NULL;
		g->id = id;
		g->sm_count = (int)nsysdb_col_i64(st, 2, 0);
		g->clock_hz = nsysdb_col_i64(st, 3, 0);
		g->mem_bw_bps = nsysdb_col_i64(st, 4, 0);
		g->total_memory = nsysdb_col_i64(st, 5, 0);
		g->cc_major = (int)nsysdb_col_i64(st, 6, -1);
		g->cc_minor = (int)nsysdb_col_i64(st, 7, -1);
	}
	if (rc != SQLITE_DONE) {
		nsysdb_error(t->db, err, "TARGET_INFO_GPU");
		sqlite3_finalize(st);
		trace_gpu_release(g);
		return -1;
	}
	sqlite3_finalize(st);
	return picked;
}

int trace_session_start(struct trace *t, int64_t *utc_ns, struct strbuf *err)
{
	static const char *const cols[] = {"!utcEpochNs"};
	sqlite3_stmt *st = NULL;
	int rc, found = 0;

	*utc_ns = 0;
	if (!t->db || !trace_has_table(t, "TARGET_INFO_SESSION_START_TIME"))
		return 0;
	if (nsysdb_select(t->db, "TARGET_INFO_SESSION_START_TIME", cols, ARRAY_SIZE(cols), &st,
			  err))
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
		    sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int64(st, 0) < TRACE_TIME_MAX)
			*utc_ns = sqlite3_column_int64(st, 0), found = 1;
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return nsysdb_error(t->db, err, "TARGET_INFO_SESSION_START_TIME");
	return found;
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return v && *v ? xstrdup(v) : NULL;
}

int trace_processes(struct trace *t, struct trace_process **out, size_t *n, struct strbuf *err)
{
	static const char *const cols[] = {"!globalPid", "pid",	 "rank",     "localRank",
					   "worldSize",	 "host", "launcher", "rankSource"};
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!trace_has_table(t, "LLMPROF_PROCESSES"))
		return 0;
	if (nsysdb_select(t->db, "LLMPROF_PROCESSES", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_process *p;

		ALLOC_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		p->gpid = sqlite3_column_int64(st, 0) & TRACE_GPID_MASK;
		p->pid = nsysdb_col_i64(st, 1, trace_pid(p->gpid));
		/* a rank out of int32 is damage: read as not recorded */
		p->rank = (int32_t)nsysdb_col_i64(st, 2, -1);
		p->local_rank = (int32_t)nsysdb_col_i64(st, 3, -1);
		p->world_size = (int32_t)nsysdb_col_i64(st, 4, -1);
		if (p->rank != nsysdb_col_i64(st, 2, -1) || p->rank < -1)
			p->rank = -1;
		p->host = col_strdup(st, 5);
		p->launcher = col_strdup(st, 6);
		p->source = col_strdup(st, 7);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trace_processes_free(*out, *n);
		*out = NULL;
		*n = 0;
		return nsysdb_error(t->db, err, "LLMPROF_PROCESSES");
	}
	return 0;
}

void trace_processes_free(struct trace_process *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].host);
		free(p[i].launcher);
		free(p[i].source);
	}
	free(p);
}

void trace_gpu_release(struct trace_gpu *g)
{
	free(g->name);
	memset(g, 0, sizeof(*g));
}

int trace_open(struct trace *t, const char *path, struct strbuf *err)
{
	struct nsysdb *x = xcalloc(1, sizeof(*x));

	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	if (nsysdb_open(x, path, err)) {
		nsysdb_close(x);
		free(x);
		return -1;
	}
	t->db = x;
	t->has_strings = nsysdb_has_table(x, "StringIds");
	t->has_kernels = nsysdb_has_table(x, "CUPTI_ACTIVITY_KIND_KERNEL");
	t->has_memcpy = nsysdb_has_table(x, "CUPTI_ACTIVITY_KIND_MEMCPY");
	t->has_memset = nsysdb_has_table(x, "CUPTI_ACTIVITY_KIND_MEMSET");
	t->has_memcpy_enum = nsysdb_has_table(x, "ENUM_CUDA_MEMCPY_OPER");
	t->has_calls = nsysdb_has_table(x, "CUPTI_ACTIVITY_KIND_RUNTIME");
	t->has_nvtx = nsysdb_has_table(x, "NVTX_EVENTS");
	t->has_osrt = nsysdb_has_table(x, "OSRT_API");
	if (!nsysdb_is_export(x))
		return error_set(
		    err, "'%s' is an SQLite file but not an nsys or llmprof trace export", path);
	t->producer = nsysdb_producer(x);
	read_tracer_meta(t);
	return nsysdb_strings_load(x, &t->strs, &t->sids, err);
}

int trace_osrt_calls(struct trace *t, struct trace_osrt **out, size_t *n, struct strbuf *err)
{
	static const char *const cols[] = {"!start", "!end", "nameId", "eventClass"};
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if (!t->has_osrt)
		return 0;
	if (nsysdb_select(t->db, "OSRT_API", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trace_osrt *o;

		if (nsysdb_col_i64(st, 3, -1) != 27)
			continue; /* osrt_sum: WHERE eventClass == 27 */
		ALLOC_GROW(*out, *n + 1, alloc);
		o = &(*out)[(*n)++];
		o->start = col_time(t, st, 0);
		o->end = col_time(t, st, 1);
		o->name_sid = nsysdb_col_i64(st, 2, -1);
		o->name = nsysdb_string(&t->sids, st, 2);
	}
	ret = nsysdb_step_done(t->db, rc, "OSRT_API", err);
	sqlite3_finalize(st);
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void trace_note_unreadable(struct trace *t, const char *table, const char *why)
{
	ALLOC_GROW(t->unreadable, t->nunreadable + 1, t->unreadable_alloc);
	t->unreadable[t->nunreadable].table = xstrdup(table);
	t->unreadable[t->nunreadable++].why = xstrdup(why);
}

const char *trace_unreadable(const struct trace *t, const char *table)
{
	for (size_t i = 0; i < t->nunreadable; i++)
		if (!strcmp(t->unreadable[i].table, table))
			return t->unreadable[i].why;
	return NULL;
}

/* A part's loader, and what it leaves to drop when it fails: the part
 * empty and unloaded, the counters as before it, so that a later
 * trace_load() reads it again from the start. (What a failed NVTX read
 * interned stays in strs, named by nothing.) */
static int load_part(struct trace *t, unsigned part, struct strbuf *err)
{
	uint64_t clamped = t->clamped, bad = t->kernels_bad_time;
	int rc = part == TRACE_KERNELS	? load_kernels(t, err)
		 : part == TRACE_MEMOPS ? load_memops(t, err)
		 : part == TRACE_CALLS	? load_calls(t, err)
					: load_nvtx(t, err) || load_graph_nodes(t, err);

	if (!rc)
		return 0;
	t->clamped = clamped;
	t->kernels_bad_time = bad;
	if (part == TRACE_KERNELS) {
		t->nkernels = 0;
		rectab_release(&t->ksigs);
	} else if (part == TRACE_MEMOPS) {
		t->nmemops = 0;
	} else if (part == TRACE_CALLS) {
		t->ncalls = 0;
		rectab_release(&t->csigs);
	} else {
		t->nranges = t->ngraph_nodes = 0;
		t->nvtx_max_all = t->nvtx_max_range = 0;
		free(t->range_op);
		t->range_op = NULL;
	}
	return -1;
}

/* The parts in todo, each by load_part(), the kernels and the API calls on
 * threads of their own while this one reads the rest (trace_par.h). The
 * error is the one a read a part at a time, in this order, would stop at:
 * the first failed part's; the parts read meanwhile stay loaded. */
int trace_load(struct trace *t, unsigned parts, struct strbuf *err)
{
	static const unsigned order[] = {TRACE_KERNELS, TRACE_MEMOPS, TRACE_CALLS, TRACE_NVTX};
	struct strbuf errs[ARRAY_SIZE(order)];
	unsigned todo = parts & ~t->loaded, ahead;
	struct trace_par par;
	int ret = 0, failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		strbuf_init(&errs[i], 0);
	ahead = trace_par_start(&par, t, todo, load_part);
	for (size_t i = 0; i < ARRAY_SIZE(order) && !failed; i++) {
		if (!(todo & order[i]) || (ahead & order[i]))
			continue;
		if (load_part(t, order[i], &errs[i]))
			failed = 1;
		else
			t->loaded |= order[i];
	}
	trace_par_finish(&par, t, errs);
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (errs[i].len && !ret++)
			strbuf_addstr(err, errs[i].buf);
		strbuf_release(&errs[i]);
	}
	return ret ? -1 : 0;
}

void trace_kernels_lean(struct trace *t)
{
	t->kernels_lean = 1;
}

void trace_close(struct trace *t)
{
	if (t->db) {
		nsysdb_close(t->db);
		free(t->db);
	}
	free(t->path);
	free(t->producer);
	strtab_release(&t->strs);
	free(t->kernels);
	rectab_release(&t->ksigs);
	rectab_release(&t->csigs);
	free(t->memops);
	free(t->calls);
	free(t->ranges);
	free(t->range_op);
	free(t->graph_nodes);
	for (size_t i = 0; i < t->nunreadable; i++) {
		free(t->unreadable[i].table);
		free(t->unreadable[i].why);
	}
	free(t->unreadable);
	nsysdb_strings_release(&t->sids);
	memset(t, 0, sizeof(*t));
}
