/* ranks.c: per-process analysis of a multi-process trace (see ranks.h).
 *
 * Each process is analysed by building the whole-run model from its part
 * of the trace (model_fill_from_analysis, report_model_derive) and copying
 * what the per-rank view shows: the numbers of one rank are then by
 * construction what the single-process report would say for that process
 * alone. The NCCL collectives across ranks read the same parts
 * (ranks_coll.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/ncclapi.h"
#include "analysis/ranks.h"
#include "analysis/session.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nsysenv.h"
#include "trace/rankid.h"
#include "core/banned.h"

static int64_t gpid_of(int64_t g)
{
	return g & TRACE_GPID_MASK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Copies the elements of src whose process (key(element)) is gpid into a
 * new array. */
#define PART_COPY(dst, ndst, src, nsrc, key)                                                       \
	do {                                                                                       \
		(dst) = xmalloc(st_mult((nsrc) + 1, sizeof(*(dst))));                              \
		(ndst) = 0;                                                                        \
		for (size_t i_ = 0; i_ < (nsrc); i_++)                                             \
			if (gpid_of(key((src)[i_])) == gpid)                                       \
				(dst)[(ndst)++] = (src)[i_];                                       \
	} while (0)

#define KERNEL_GPID(x) (trace_ksig(t, &(x))->gpid)
#define CALL_GTID(x) (trace_csig(t, &(x))->gtid)
#define FIELD_GPID(x) ((x).gpid)
#define FIELD_GTID(x) ((x).gtid)

/* The parts share t's string and signature tables (borrowed). */
struct rank_part *rank_parts_split(const struct trace *t, size_t *n)
{
	int64_t *g = xmalloc(st_mult(t->nkernels + 1, sizeof(*g)));
	struct rank_part *p;
	size_t ng = 0;

	for (size_t i = 0; i < t->nkernels; i++)
		g[i] = gpid_of(trace_ksig(t, &t->kernels[i])->gpid);
	qsort(g, t->nkernels, sizeof(*g), cmp_i64);
	for (size_t i = 0; i < t->nkernels; i++)
		if (!ng || g[ng - 1] != g[i])
			g[ng++] = g[i];
	*n = ng;
	if (ng < 2) { /* one process: no copy of the whole trace */
		free(g);
		return NULL;
	}
	p = xcalloc(ng + 1, sizeof(*p));
	for (size_t r = 0; r < ng; r++) {
		struct trace *v = &p[r].view;
		int64_t gpid = g[r];

		p[r].gpid = gpid;
		*v = *t; /* the string and signature tables and flags, borrowed */
		v->db = NULL;
		v->loaded = TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX;
		PART_COPY(v->kernels, v->nkernels, t->kernels, t->nkernels, KERNEL_GPID);
		PART_COPY(v->memops, v->nmemops, t->memops, t->nmemops, FIELD_GPID);
		PART_COPY(v->calls, v->ncalls, t->calls, t->ncalls, CALL_GTID);
		PART_COPY(v->ranges, v->nranges, t->ranges, t->nranges, FIELD_GTID);
		v->range_op = NULL; /* t's is by t's range index: the view's own */
		if (t->range_op) {
			size_t k = 0;

			v->range_op = xmalloc(st_mult(v->nranges + 1, sizeof(*v->range_op)));
			for (size_t i = 0; i < t->nranges; i++)
				if (gpid_of(t->ranges[i].gtid) == gpid)
					v->range_op[k++] = t->range_op[i];
		}
		v->kernels_alloc = v->nkernels;
		v->memops_alloc = v->nmemops;
		v->calls_alloc = v->ncalls;
		v->ranges_alloc = v->nranges;
	}
	free(g);
	return p;
}

void rank_parts_free(struct rank_part *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].view.kernels);
		free(p[i].view.memops);
		free(p[i].view.calls);
		free(p[i].view.ranges);
		free(p[i].view.range_op);
	}
	free(p);
}

static void copy_stage(struct report_rank_stage *d, const struct report_stage *s)
{
	d->found = 1;
	d->instances = s->instances;
	d->kernels = s->kernels;
	d->steps = s->steps;
	d->cpu_ms = s->cpu_ms;
	d->gpu_ms = s->gpu_ms;
	d->busy_ms = s->busy_ms;
	d->idle_ms = s->idle_ms;
	d->step_p50_ms = s->step_p50_ms;
	d->step_p90_ms = s->step_p90_ms;
	d->step_max_ms = s->step_max_ms;
}

/* The device most of the part's kernels ran on (a rank drives one GPU;
 * the first 64 devices are counted, which is every real machine). */
static int32_t main_device(const struct trace *v)
{
	int32_t dev[64];
	size_t cnt[64], nd = 0, best = 0;

	for (size_t i = 0; i < v->nkernels; i++) {
		size_t j;

		for (j = 0; j < nd && dev[j] != trace_ksig(v, &v->kernels[i])->device; j++)
			;
		if (j == nd) {
			if (nd == 64)
				continue;
			dev[nd] = trace_ksig(v, &v->kernels[i])->device;
			cnt[nd++] = 0;
		}
		cnt[j]++;
		if (cnt[j] > cnt[best])
			best = j;
	}
	return nd ? dev[best] : -1;
}

/* One part analysed as a whole run into r; 0, or -1 when its timeline could
 * not be built (the rank then shows without numbers). */
static int analyse_part(struct report_rank *r, struct rank_part *part,
			const struct report_analysis *a)
{
	struct report_analysis *sub = xcalloc(1, sizeof(*sub));
	struct report_model sm;
	struct strbuf err = STRBUF_INIT;
	char b[32];
	int ret = -1;

	report_model_init(&sm);
	sub->stages = a->stages;
	sub->trace = part->view;
	if (timeline_build(&sub->tl, &sub->trace, &sub->stages, &err))
		goto out;
	sub->have_trace = sub->have_tl = 1;
	model_fill_from_analysis(&sm, sub);
	report_model_derive(&sm);
	for (size_t i = 0; i < sm.nr_stages; i++)
		if (sm.stages[i].role < REPORT_ROLE_OTHER && !r->stages[sm.stages[i].role].found)
			copy_stage(&r->stages[sm.stages[i].role], &sm.stages[i]);
	r->ttft_ms = sm.agg.ttft_ms;
	r->tpot_ms = sm.agg.tpot_ms;
	r->gpu_span_ms = sm.agg.gpu_span_ms;
	r->gpu_busy_ms = sm.agg.gpu_busy_ms;
	r->kernels = sub->tl.nkernels;
	r->kernel_ns = sub->tl.kernel_ns > 0 ? (uint64_t)sub->tl.kernel_ns : 0;
	r->kern = xcalloc(sm.nr_kernels + 1, sizeof(*r->kern));
	for (size_t i = 0; i < sm.nr_kernels; i++) {
		r->kern[i].name = xstrdup(sm.kernels[i].short_name);
		r->kern[i].calls = sm.kernels[i].calls;
		r->kern[i].total_ns = sm.kernels[i].total_ns;
	}
	r->nr_kern = sm.nr_kernels;
	r->ops = xcalloc(sm.nr_ops + 1, sizeof(*r->ops));
	for (size_t i = 0; i < sm.nr_ops; i++) {
		r->ops[i].name = xstrdup(sm.ops[i].name ? sm.ops[i].name : "");
		r->ops[i].stage = sm.ops[i].stage ? xstrdup(sm.ops[i].stage) : NULL;
		r->ops[i].calls = sm.ops[i].calls;
		r->ops[i].gpu_ms = sm.ops[i].gpu_ms;
	}
	r->nr_ops = sm.nr_ops;
	if (main_device(&part->view) >= 0) {
		snprintf(b, sizeof(b), "GPU %d", main_device(&part->view));
		report_set_str(&r->gpu, b);
	}
	timeline_release(&sub->tl);
	ret = 0;
out:
	report_model_release(&sm);
	strbuf_release(&err);
	free(sub);
	return ret;
}

static void set_identity(struct report_rank *r, int64_t gpid, const struct trace_process *procs,
			 size_t nprocs)
{
	char b[64];

	r->pid = trace_pid(gpid);
	r->rank = r->local_rank = r->world_size = -1;
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].gpid == gpid) {
			r->rank = procs[i].rank;
			r->local_rank = procs[i].local_rank;
			r->world_size = procs[i].world_size;
			report_set_str(&r->host, procs[i].host);
			report_set_str(&r->launcher, procs[i].launcher);
			if (r->rank >= 0)
				report_set_str(&r->rank_source, procs[i].source);
			break;
		}
	if (r->rank < 0)
		report_set_str(&r->rank_source, "pid");
	if (r->rank >= 0)
		snprintf(b, sizeof(b), "rank %d", r->rank);
	else
		snprintf(b, sizeof(b), "pid %lld", (long long)r->pid);
	report_set_str(&r->label, b);
}

/* The processes' identities in report order (cmp_rank), each with the
 * index of its part. */
struct ident {
	struct report_rank r; /* first: cmp_rank reads it through the element */
	size_t part;
};

/* Ranked processes first, by rank, then the others by local rank (when
 * their GPU gave one), then by pid. */
static int cmp_rank(const void *pa, const void *pb)
{
	const struct report_rank *a = pa, *b = pb;

	if ((a->rank < 0) != (b->rank < 0))
		return a->rank < 0 ? 1 : -1;
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	if (a->local_rank != b->local_rank)
		return (a->local_rank > b->local_rank) - (a->local_rank < b->local_rank);
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The one device all of v's kernels ran on, or -1 (none, or several). */
static int32_t only_device(const struct trace *v)
{
	int32_t d = v->nkernels ? trace_ksig(v, &v->kernels[0])->device : -1;

	for (size_t i = 1; i < v->nkernels && d >= 0; i++)
		if (trace_ksig(v, &v->kernels[i])->device != d)
			d = -1;
	return d;
}

/* When nothing names any process (no launcher environment, no NCCL
 * ranks), one host, and process i drove GPU i alone for every i in
 * 0..n-1: the local ranks of a launcher that gives LOCAL_RANK r the device
 * cuda:r (torchrun's and most frameworks' convention). Named "local rank
 * r", rank_source "device"; the rank itself stays unknown. */
static void device_names(struct ident *id, size_t n, const struct rank_part *parts)
{
	uint64_t seen = 0;

	if (n > 64)
		return;
	for (size_t i = 0; i < n; i++) {
		int32_t d = only_device(&parts[id[i].part].view);

		if (id[i].r.rank >= 0 || id[i].r.host || d < 0 || (size_t)d >= n || (seen >> d & 1))
			return;
		seen |= 1ULL << d;
	}
	for (size_t i = 0; i < n; i++) {
		char b[48];

		id[i].r.local_rank = only_device(&parts[id[i].part].view);
		snprintf(b, sizeof(b), "local rank %d", id[i].r.local_rank);
		report_set_str(&id[i].r.label, b);
		report_set_str(&id[i].r.rank_source, "device");
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* min/median/max of get(rank) over the ranks that have it. */
static struct report_spread spread(const struct report_ranks *rs,
				   struct rnum (*get)(const struct report_rank *, int), int arg)
{
	struct report_spread sp = {RNUM_NONE, RNUM_NONE, RNUM_NONE, -1};
	double *v = xmalloc(st_mult(rs->nr + 1, sizeof(*v)));
	size_t n = 0;

	for (size_t i = 0; i < rs->nr; i++) {
		struct rnum x = get(&rs->v[i], arg);

		if (!x.available)
			continue;
		v[n++] = x.v;
		if (sp.max_rank < 0 || x.v > sp.max.v) {
			sp.max = x;
			sp.max_rank = (int)i;
		}
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		sp.min = rnum_of(v[0]);
		sp.med = rnum_of(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
	}
	free(v);
	return sp;
}

static struct rnum get_stage_gpu(const struct report_rank *r, int role)
{
	return r->stages[role].found ? r->stages[role].gpu_ms : RNUM_NONE;
}

static struct rnum get_step_p50(const struct report_rank *r, int role)
{
	(void)role;
	return r->stages[REPORT_ROLE_DECODE].step_p50_ms;
}

static struct rnum get_span(const struct report_rank *r, int role)
{
	(void)role;
	return r->gpu_span_ms;
}

/* The slowest rank: the one the others wait for at their NCCL collectives
 * when there is a clear straggler (synchronised ranks then end every step
 * together, so their GPU spans tie and name no one); else the longest
 * decode GPU span (decode is where ranks wait for each other every step),
 * else prefill's, else the whole GPU span. */
static void cross_rank(struct report_ranks *rs)
{
	const struct report_coll_straggler *st =
	    rs->coll.nr_stragglers ? &rs->coll.stragglers[0] : NULL;
	struct report_spread span;

	for (int role = 0; role < REPORT_ROLE_OTHER; role++)
		rs->stage_gpu[role] = spread(rs, get_stage_gpu, role);
	rs->step_p50 = spread(rs, get_step_p50, 0);
	span = spread(rs, get_span, 0);
	if (st && st->share >= COLL_STRAGGLER_SHARE && st->mean_late_ns >= COLL_STRAGGLER_MIN_NS) {
		rs->slowest = st->rank_index;
		report_set_str(&rs->slowest_by, "last arrival at collectives");
	} else if (rs->stage_gpu[REPORT_ROLE_DECODE].max_rank >= 0) {
		rs->slowest = rs->stage_gpu[REPORT_ROLE_DECODE].max_rank;
		report_set_str(&rs->slowest_by, "decode GPU span");
	} else if (rs->stage_gpu[REPORT_ROLE_PREFILL].max_rank >= 0) {
		rs->slowest = rs->stage_gpu[REPORT_ROLE_PREFILL].max_rank;
		report_set_str(&rs->slowest_by, "prefill GPU span");
	} else if (span.max_rank >= 0) {
		rs->slowest = span.max_rank;
		report_set_str(&rs->slowest_by, "GPU span");
	}
	if (rs->slowest >= 0)
		rs->v[rs->slowest].slowest = 1;
}

static struct trace_process *proc_of(struct trace_process *procs, size_t n, int64_t gpid)
{
	for (size_t i = 0; i < n; i++)
		if (procs[i].gpid == gpid)
			return &procs[i];
	return NULL;
}

/* Processes of gpids[0..n) whose trace records no rank (nsys records no
 * environment per process) take theirs from NCCL's communicator-init
 * payloads, when that gives every ranked process a distinct rank; else
 * nothing changes and a note says why. *procs grows by the processes it
 * had no row for. */
static void nccl_names(struct report_model *m, struct trace *t, const int64_t *gpids, size_t n,
		       struct trace_process **procs, size_t *nprocs)
{
	struct strbuf err = STRBUF_INIT;
	struct nccl_ident *id = NULL;
	size_t nid = 0, nnew = 0;
	int32_t *got = xcalloc(n + 1, sizeof(*got));

	if (!t->db || nccl_comm_idents(t, &id, &nid, &err)) {
		if (err.len)
			report_model_add_note(m, "NCCL communicator ranks not read: %s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < n; i++) { /* the rank each process would have */
		const struct trace_process *p = proc_of(*procs, *nprocs, gpids[i]);

		got[i] = p ? p->rank : -1;
		for (size_t k = 0; got[i] < 0 && k < nid; k++)
			if (id[k].gpid == gpids[i]) {
				got[i] = id[k].rank;
				nnew++;
			}
	}
	for (size_t i = 0; nnew && i < n; i++)
		for (size_t j = i + 1; got[i] >= 0 && j < n; j++)
			if (got[j] == got[i]) {
				report_model_add_note(m,
						      "NCCL communicator ranks not used: pids %lld "
						      "and %lld both say rank %d",
						      (long long)trace_pid(gpids[i]),
						      (long long)trace_pid(gpids[j]), (int)got[i]);
				goto out;
			}
	for (size_t i = 0; nnew && i < n; i++) {
		struct trace_process *p = proc_of(*procs, *nprocs, gpids[i]);
		const struct nccl_ident *x = NULL;

		for (size_t k = 0; k < nid && !x; k++)
			if (id[k].gpid == gpids[i])
				x = &id[k];
		if (!x || (p && p->rank >= 0))
			continue;
		if (!p) {
			*procs = xrealloc(*procs, st_mult(*nprocs + 1, sizeof(**procs)));
			p = &(*procs)[(*nprocs)++];
			*p = (struct trace_process){
			    gpids[i], trace_pid(gpids[i]), -1, -1, -1, NULL, NULL, NULL};
		}
		p->rank = x->rank;
		p->world_size = x->nranks;
		free(p->source);
		p->source = xstrdup("NCCL");
	}
out:
	free(got);
	free(id);
	strbuf_release(&err);
}

/* The one process that ran kernels: its recorded rank, if any, becomes the
 * run's identity (a torchrun job of one process still has rank 0 of 1). */
static void one_identity(struct report_model *m, struct trace *t, int64_t gpid,
			 const struct trace_process *procs, size_t nprocs)
{
	struct report_identity *id = &m->env.ident;
	struct strbuf err = STRBUF_INIT;
	struct rank_ident ri;
	struct nsys_env e;

	for (size_t i = 0; i < nprocs; i++) {
		if (procs[i].gpid != gpid || procs[i].rank < 0)
			continue;
		id->rank = procs[i].rank;
		id->local_rank = procs[i].local_rank;
		id->world_size = procs[i].world_size;
		report_set_str(&id->launcher, procs[i].launcher);
		report_set_str(&id->source, procs[i].source);
		report_set_str(&id->host, procs[i].host);
		/* "trace": the tracer's record of the launcher; else NCCL's */
		report_set_str(&id->from, procs[i].source && !strcmp(procs[i].source, "NCCL")
					      ? "NCCL"
					      : "trace");
		return;
	}
	/* an nsys run per rank: the launcher's variables in nsys's own
	 * environment */
	if (nsys_env_load(t, &e, &err)) {
		report_model_add_note(m, "nsys's recorded environment not read: %s", err.buf);
		strbuf_release(&err);
		return;
	}
	rank_ident_from_env(&ri, nsys_env_get, &e);
	if (ri.rank >= 0) {
		id->rank = ri.rank;
		id->local_rank = ri.local_rank;
		id->world_size = ri.world_size;
		report_set_str(&id->launcher, rank_launcher_name(ri.launcher));
		report_set_str(&id->source, rank_source_name(ri.source));
		report_set_str(&id->from, "nsys environment");
	}
	nsys_env_free(&e);
	strbuf_release(&err);
}

/* The timeline's GPU lanes, one per (device, stream) over all processes,
 * replaced by one lane per rank with all its kernels: streams of different
 * processes share ids, and the reader asks which rank was busy when. */
static void rank_lanes(struct report_model *m, const struct trace *const *views)
{
	struct report_timeline *tl = &m->timeline;
	size_t keep = 0;
	char name[96];

	for (size_t i = 0; i < tl->nr_lanes; i++) {
		if (tl->lanes[i].kind == LANE_GPU) {
			free(tl->lanes[i].name);
			free(tl->lanes[i].iv);
			continue;
		}
		tl->lanes[keep++] = tl->lanes[i];
	}
	tl->nr_lanes = keep;
	for (size_t r = 0; r < m->ranks.nr; r++) {
		const struct trace *v = views[r];
		struct report_lane *lane;
		int32_t dev = main_device(v);

		if (dev >= 0)
			snprintf(name, sizeof(name), "%s GPU %d", m->ranks.v[r].label, (int)dev);
		else
			snprintf(name, sizeof(name), "%s", m->ranks.v[r].label);
		lane = report_model_add_lane(m, name, LANE_GPU);
		for (size_t i = 0; i < v->nkernels; i++)
			report_lane_add(lane, v->kernels[i].start, v->kernels[i].end, NULL);
	}
}

void ranks_fill(struct report_model *m, const struct report_analysis *a)
{
	struct trace_process *procs = NULL;
	struct trace *t = (struct trace *)&a->trace; /* reads a table; changes nothing */
	struct strbuf err = STRBUF_INIT;
	const struct trace **views;
	struct rank_part *parts;
	struct ident *id;
	int64_t *gpids = NULL;
	size_t nparts, nprocs = 0;

	if (!a->have_tl)
		return;
	parts = rank_parts_split(&a->trace, &nparts);
	if (!nparts) {
		rank_parts_free(parts, nparts);
		return;
	}
	/* a damaged identity table costs the names, not the per-rank view */
	if (t->db && trace_processes(t, &procs, &nprocs, &err))
		report_model_add_note(m, "process identities not read: %s", err.buf);
	gpids = xcalloc(nparts + 1, sizeof(*gpids));
	for (size_t i = 0; i < nparts; i++)
		gpids[i] = nparts == 1 ? gpid_of(trace_ksig(&a->trace, a->trace.kernels)->gpid)
				       : parts[i].gpid;
	nccl_names(m, t, gpids, nparts, &procs, &nprocs);
	if (nparts == 1) { /* rank_parts_split copies nothing for one process */
		one_identity(m, t, gpid_of(trace_ksig(&a->trace, a->trace.kernels)->gpid), procs,
			     nprocs);
		goto out;
	}
	m->ranks.identified = nprocs > 0;
	id = xcalloc(nparts, sizeof(*id));
	for (size_t i = 0; i < nparts; i++) {
		set_identity(&id[i].r, parts[i].gpid, procs, nprocs);
		id[i].part = i;
	}
	device_names(id, nparts, parts);
	qsort(id, nparts, sizeof(*id), cmp_rank);
	m->ranks.v = xcalloc(nparts, sizeof(*m->ranks.v));
	m->ranks.alloc = m->ranks.nr = nparts;
	views = xcalloc(nparts, sizeof(*views));
	for (size_t i = 0; i < nparts; i++) {
		m->ranks.v[i] = id[i].r;
		views[i] = &parts[id[i].part].view;
	}
	/* before analyse_part, whose timeline may reorder a part's arrays */
	ranks_coll_fill(m, views, &a->stages);
	rank_lanes(m, views);
	for (size_t i = 0; i < nparts; i++)
		analyse_part(&m->ranks.v[i], &parts[id[i].part], a);
	cross_rank(&m->ranks);
	free(views);
	free(id);
out:
	free(gpids);
	trace_processes_free(procs, nprocs);
	rank_parts_free(parts, nparts);
	strbuf_release(&err);
}
