/* tosqlite_pass.c: one process's trace log -> rows (tosqlite_internal.h).
 *
 * The log is read twice, through the reader's window: pass 1 collects
 * definitions (process, clock, domains, registered strings, API and kernel
 * names, correlation aliases, devices, diagnostics), pass 2 emits rows, so
 * nothing depends on the order in which threads' chunks reached the file.
 * NVTX pushes and pops pair per thread and domain, starts and ends by range
 * id, whichever comes first.
 *
 * Memory does not follow the log's size: a record is borrowed only until
 * the next one is read, so an open range keeps a copy of its record (and
 * payload) until it ends; a range whose start and end have met is
 * forgotten. What stays per call is a few bits per correlation id (struct
 * u32set) and 8 bytes per correlation alias; the activity source's driver
 * calls are matched to their runtime calls as pass 1 reads them
 * (tosqlite_nest.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/sort.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/apiname.h"
#include "trace/kname.h"
#include "trace/tosqlite.h"
#include "trace/rankid.h"
#include "trace/tosqlite_internal.h"
#include "core/banned.h"

/* Per-process state. */
/* An open push: copies of its records (owned), freed when it pops. */
struct open_push {
	struct tlog_nvtx_event *ev;
	struct tlog_nvtx_payload *pl; /* its payloads, NULL none */
	uint32_t tid;
};

struct thread_stack {
	uint32_t tid;
	struct open_push *v;
	size_t n, alloc;
};

/* A start/end range one of whose ends was seen; end_ts -2 once both were
 * (then it is dropped at the next compaction, pend_compact()). */
struct pending {
	struct tlog_nvtx_event *ev; /* a copy of the start (owned), or NULL */
	uint64_t id;
	uint32_t tid;
	int64_t end_ts; /* end seen first: its ts, else -1 */
	uint32_t end_tid;
};

/* Correlation aliases, from << 32 | to: appended in pass 1, then sorted by
 * from (the last alias of a from wins) for map_corr()'s binary search. */
struct aliases {
	uint64_t *v;
	size_t n, alloc;
};

struct proc {
	struct tosqlite_ctx ctx;
	struct u64map strings;	 /* NVTX string id -> StringIds id */
	struct u64map api_names; /* domain<<32|cbid -> StringIds id */
	struct u64map api_other; /* domain<<32|cbid of calls that launch no GPU work (value 1) */
	struct aliases aliases;	 /* driver corr -> runtime corr */
	struct api_nest nest;	 /* TLOG_API_ACT calls: which driver calls are nested */
	struct u64map kname;	 /* kernel name id -> index into knames */
	struct u32set api_corr;	 /* corr ids of recorded launch calls */
	struct u64map tnames;	 /* tid+1 -> StringIds id | (OS name) << 63 */
	int64_t (*knames)[3];
	size_t nknames, aknames;
	struct thread_stack *threads;
	size_t nthreads, athreads;
	struct pending *pend; /* in the order they were first seen */
	size_t npend, apend, pend_done;
	struct u64map pend_by_id; /* range id -> index+1 into pend, 0 = none */
	int ended;		  /* TLOG_END seen: the at-exit flush completed */
	struct sample_proc samples;
	uint64_t recorded; /* records other than who the process is */
};

static int64_t text_id_for(struct proc *p, const struct tlog_nvtx_event *e)
{
	uint64_t v;
	if (e->h.aux == TLOG_MSG_REGISTERED && u64map_get(&p->strings, e->string_id, &v))
		return (int64_t)v;
	return -1;
}

static struct thread_stack *thread_of(struct proc *p, uint32_t tid)
{
	size_t i;
	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	ALLOC_GROW(p->threads, p->nthreads + 1, p->athreads);
	memset(&p->threads[p->nthreads], 0, sizeof(p->threads[0]));
	p->threads[p->nthreads].tid = tid;
	return &p->threads[p->nthreads++];
}

/* A copy of the record h (owned by the caller): h is borrowed from the
 * reader only until the next record. */
static void *rec_copy(const void *h)
{
	size_t size = ((const struct tlog_rec *)h)->size;
	void *v = xmalloc(size);

	memcpy(v, h, size);
	return v;
}

static void emit_range(struct conv *c, struct proc *p, const struct tlog_nvtx_event *b,
		       uint32_t btid, int64_t end_ts, uint32_t etid,
		       const struct tlog_nvtx_payload *pl)
{
	struct strbuf blob = STRBUF_INIT;
	struct nvtx_row r;

	tosqlite_nvtx_range_row(&r, &p->ctx, b, btid, end_ts, etid, text_id_for(p, b));
	if (pl) {
		if (tosqlite_payload_blob(&blob, pl, pl->h.size) == 0) {
			r.blob = blob.buf;
			r.blob_len = blob.len;
		} else {
			c->stats->problems++;
		}
	}
	conv_put_nvtx(c, &r);
	strbuf_release(&blob);
	if (end_ts < 0)
		c->stats->open_ranges++;
}

/* Payloads go to the innermost open push of their domain on the thread
 * (written after the push, or before the pop that ends it); the first
 * record a range gets is kept. */
static void on_payload(struct proc *p, const struct tlog_nvtx_payload *pl, uint32_t tid)
{
	struct thread_stack *t = thread_of(p, tid);

	for (size_t i = t->n; i > 0; i--)
		if (t->v[i - 1].ev->domain == pl->domain) {
			if (!t->v[i - 1].pl)
				t->v[i - 1].pl = rec_copy(pl);
			return;
		}
}

static void on_push(struct proc *p, const struct tlog_nvtx_event *e, uint32_t tid)
{
	struct thread_stack *t = thread_of(p, tid);
	ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n].ev = rec_copy(e);
	t->v[t->n].pl = NULL;
	t->v[t->n].tid = tid;
	t->n++;
}

static void on_pop(struct conv *c, struct proc *p, const struct tlog_nvtx_end *e, uint32_t tid)
{
	struct thread_stack *t = thread_of(p, tid);
	size_t i = t->n;

	/* Pops pair with the latest push of the same domain on the thread. */
	while (i > 0 && t->v[i - 1].ev->domain != e->domain)
		i--;
	if (i == 0) {
		c->stats->unmatched_ends++;
		return;
	}
	emit_range(c, p, t->v[i - 1].ev, tid, (int64_t)e->ts, tid, t->v[i - 1].pl);
	free(t->v[i - 1].ev);
	free(t->v[i - 1].pl);
	memmove(&t->v[i - 1], &t->v[i], (t->n - i) * sizeof(t->v[0]));
	t->n--;
}

/* Drops the ranges whose start and end have met, once they are half of
 * pend: pend and its map then hold the open ranges, in their order. */
static void pend_compact(struct proc *p)
{
	size_t k = 0;

	if (p->pend_done < 1024 || p->pend_done * 2 < p->npend)
		return;
	tosqlite_u64map_free(&p->pend_by_id);
	for (size_t i = 0; i < p->npend; i++) {
		if (p->pend[i].end_ts == -2)
			continue;
		p->pend[k] = p->pend[i];
		u64map_put(&p->pend_by_id, p->pend[k].id, k + 1);
		k++;
	}
	p->npend = k;
	p->pend_done = 0;
	if (p->apend > 2 * k + 64) {
		p->apend = 2 * k + 64;
		p->pend = xrealloc(p->pend, st_mult(p->apend, sizeof(*p->pend)));
	}
}

/* A range whose start and end have met: forgotten (an id seen again
 * begins a new range). */
static void pend_done(struct proc *p, struct pending *q)
{
	q->end_ts = -2;
	FREE_AND_NULL(q->ev);
	u64map_put(&p->pend_by_id, q->id, 0);
	p->pend_done++;
}

static struct pending *pending_for(struct proc *p, uint64_t id)
{
	uint64_t v;
	if (u64map_get(&p->pend_by_id, id, &v) && v)
		return &p->pend[v - 1];
	pend_compact(p);
	ALLOC_GROW(p->pend, p->npend + 1, p->apend);
	memset(&p->pend[p->npend], 0, sizeof(p->pend[0]));
	p->pend[p->npend].end_ts = -1;
	p->pend[p->npend].id = id;
	u64map_put(&p->pend_by_id, id, ++p->npend);
	return &p->pend[p->npend - 1];
}

static void on_start(struct conv *c, struct proc *p, const struct tlog_nvtx_event *e, uint32_t tid)
{
	struct pending *q = pending_for(p, e->id);
	if (q->end_ts >= 0) {
		emit_range(c, p, e, tid, q->end_ts, q->end_tid, NULL);
		pend_done(p, q);
		return;
	}
	free(q->ev); /* a second start of an open id: the later one counts */
	q->ev = rec_copy(e);
	q->tid = tid;
}

static void on_end(struct conv *c, struct proc *p, const struct tlog_nvtx_end *e, uint32_t tid)
{
	struct pending *q = pending_for(p, e->id);
	if (q->ev && q->end_ts == -1) {
		emit_range(c, p, q->ev, q->tid, (int64_t)e->ts, tid, NULL);
		pend_done(p, q);
		return;
	}
	if (q->end_ts != -1) {
		c->stats->unmatched_ends++; /* ended twice */
		return;
	}
	q->end_ts = (int64_t)e->ts;
	q->end_tid = tid;
}

static void alias_add(struct aliases *a, uint32_t from, uint32_t to)
{
	ALLOC_GROW(a->v, a->n + 1, a->alloc);
	a->v[a->n++] = (uint64_t)from << 32 | to;
}

static int cmp_alias_from(const void *a, const void *b)
{
	uint32_t x = (uint32_t)(*(const uint64_t *)a >> 32),
		 y = (uint32_t)(*(const uint64_t *)b >> 32);
	return (x > y) - (x < y);
}

static size_t alias_bucket(const void *a)
{
	(void)a;
	return 0;
}

/* After pass 1: sorted by from, one alias per from (the last one given,
 * as a map's put would leave it). */
static void aliases_sort(struct aliases *a)
{
	size_t k = 0, run = 1;

	while (run < a->n && a->v[run - 1] >> 32 <= a->v[run] >> 32)
		run++;
	if (run < a->n) /* in order already, as the tracer writes them: no index */
		sort_stable(a->v, a->n, sizeof(*a->v), cmp_alias_from, 1, alias_bucket);
	for (size_t i = 0; i < a->n; i++) {
		if (i + 1 < a->n && a->v[i + 1] >> 32 == a->v[i] >> 32)
			continue;
		a->v[k++] = a->v[i];
	}
	a->n = k;
}

static uint32_t map_corr(struct proc *p, uint32_t corr)
{
	size_t lo = 0, hi = p->aliases.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t from = (uint32_t)(p->aliases.v[mid] >> 32);

		if (from == corr)
			return (uint32_t)p->aliases.v[mid];
		if (from < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return corr;
}

static void note_attribution(struct conv *c, struct proc *p, uint32_t corr)
{
	if (!u32set_has(&p->api_corr, corr) && !u32set_has(&p->nest.top, corr))
		c->stats->unattributed++;
}

static const char *level_name(uint32_t l)
{
	return l == TLOG_DIAG_ERROR ? "error" : l == TLOG_DIAG_WARNING ? "warning" : "info";
}

/* A TLOG_API_ACT record, for resolve_api_calls()'s fallback. */
static void add_span(struct api_span **spans, size_t *n, size_t *alloc, const struct tlog_rec *h)
{
	const struct tlog_api *a = (const void *)h;
	struct api_span *sp;
	ALLOC_GROW(*spans, *n + 1, *alloc);
	sp = &(*spans)[(*n)++];
	memset(sp, 0, sizeof(*sp));
	sp->start = a->start;
	sp->end = a->end;
	sp->tid = a->tid;
	sp->corr = a->corr;
	sp->driver = h->aux == TLOG_API_DRIVER;
}

/* A kernel name: its demangled, short and mangled StringIds. */
static void def_kernel_name(struct conv *c, struct proc *p, const struct tlog_rec *h,
			    struct strbuf *sb)
{
	const struct tlog_kernel_name *k = (const void *)h;
	struct str m = tlog_rec_string(h, sizeof(*k), k->mangled_len);
	struct str d = tlog_rec_string(h, sizeof(*k) + k->mangled_len + 1, k->demangled_len);
	ALLOC_GROW(p->knames, p->nknames + 1, p->aknames);
	p->knames[p->nknames][0] = conv_intern(c, d.p, d.len);
	strbuf_reset(sb);
	strbuf_add(sb, d.p, d.len);
	{
		struct strbuf shortn = STRBUF_INIT;
		kname_base(&shortn, sb->buf); /* nsys's shortName */
		p->knames[p->nknames][1] = conv_intern(c, shortn.buf, shortn.len);
		strbuf_release(&shortn);
	}
	p->knames[p->nknames][2] = conv_intern(c, m.p, m.len);
	u64map_put(&p->kname, k->id, p->nknames++);
}

/* One row per thread: an NVTX name beats the OS name, a later name of the
 * same kind beats an earlier one. */
static void def_thread_name(struct conv *c, struct proc *p, const struct tlog_rec *h)
{
	const struct tlog_thread_name *t = (const void *)h;
	struct str s = tlog_rec_string(h, sizeof(*t), t->len);
	uint64_t old;
	if (h->aux == 1 && u64map_get(&p->tnames, (uint64_t)t->tid + 1, &old) && !(old >> 63))
		return;
	u64map_put(&p->tnames, (uint64_t)t->tid + 1,
		   (uint64_t)conv_intern(c, s.p, s.len) | ((uint64_t)(h->aux == 1) << 63));
}

/* The PROCESSES row; the process name is argv[0]. */
static void put_process(struct conv *c, struct proc *p, const struct tlog_rec *h)
{
	const struct tlog_process *pr = (const void *)h;
	struct str s = tlog_rec_string(h, sizeof(*pr), pr->len);
	sqlite3_stmt *st = c->st[S_PROCESS];
	size_t n = 0;
	while (n < s.len && s.p[n] != ' ')
		n++; /* process name = argv[0] */
	sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
	sqlite3_bind_int64(st, 2, pr->pid);
	sqlite3_bind_text(st, 3, s.p, (int)n, SQLITE_TRANSIENT);
	conv_step(c, S_PROCESS);
}

static void bind_opt_i32(sqlite3_stmt *st, int col, int32_t v)
{
	if (v >= 0)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

/* The LLMPROF_PROCESSES row: the rank identity the tracer read at start. A
 * log of a tracer older than TLOG_RANK has none, and the process has no row. */
static void put_rank(struct conv *c, struct proc *p, const struct tlog_rec *h)
{
	const struct tlog_rank *r = (const void *)h;
	struct str host = tlog_rec_string(h, sizeof(*r), r->len);
	sqlite3_stmt *st = c->st[S_RANK];

	sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
	sqlite3_bind_int64(st, 2, p->ctx.pid);
	bind_opt_i32(st, 3, r->rank);
	bind_opt_i32(st, 4, r->local_rank);
	bind_opt_i32(st, 5, r->world_size);
	if (host.len)
		conv_bind_text(st, 6, host);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, rank_launcher_name(r->launcher), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, rank_source_name(r->source), -1, SQLITE_STATIC);
	conv_step(c, S_RANK);
}

/* The LLMPROF_TRACER_COST row: what tracing cost the process (struct
 * tlog_cost). A process that ended without its exit handlers, or a tracer
 * older than TLOG_COST, has none. */
static void put_cost(struct conv *c, struct proc *p, const struct tlog_rec *h)
{
	const struct tlog_cost *k = (const void *)h;
	const uint64_t v[] = {k->wall_ns,     k->cpu_ns,     k->api_ns,	  k->api_n,
			      k->resource_ns, k->resource_n, k->nvtx_ns,  k->nvtx_n,
			      k->buffer_ns,   k->buffer_n,   k->flush_ns, k->flush_n};
	sqlite3_stmt *st = c->st[S_COST];

	sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
	sqlite3_bind_int64(st, 2, p->ctx.pid);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) /* clamped: a column is signed */
		sqlite3_bind_int64(st, (int)i + 3, v[i] > INT64_MAX ? INT64_MAX : (int64_t)v[i]);
	conv_step(c, S_COST);
}

/* One of the tracer's own diagnostics: a LLMPROF_TRACER_DIAGNOSTICS row and
 * a line of stats->diags. */
static void put_diag(struct conv *c, struct proc *p, const struct tlog_rec *h)
{
	const struct tlog_diag *d = (const void *)h;
	struct str s = tlog_rec_string(h, sizeof(*d), d->len);
	sqlite3_stmt *st = c->st[S_DIAG];
	if (d->code == TLOG_DIAG_CUPTI_BUSY)
		c->stats->cupti_busy = 1;
	if (d->code == TLOG_DIAG_CUPTI_UNSUPPORTED)
		c->stats->cupti_unsupported = 1;
	strbuf_addf(&c->stats->diags, "pid %u: %s: %.*s\n", p->ctx.pid, level_name(h->aux),
		    (int)s.len, s.p);
	sqlite3_bind_int64(st, 1, tosqlite_global_pid(p->ctx.pid));
	sqlite3_bind_int64(st, 2, (int64_t)((uint64_t)d->ts - (uint64_t)c->t0));
	sqlite3_bind_text(st, 3, level_name(h->aux), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, d->code);
	conv_bind_text(st, 5, s);
	conv_step(c, S_DIAG);
}

/* The TARGET_INFO_GPU row of a device, once per device over all processes. */
static void put_device(struct conv *c, const struct tlog_rec *h)
{
	const struct tlog_device *d = (const void *)h;
	struct str name = tlog_rec_string(h, sizeof(*d), d->len);
	sqlite3_stmt *st = c->st[S_GPU];
	char uuid[40];
	uint64_t seen;
	int i = 1;
	if (u64map_get(&c->devices_seen, (uint64_t)d->id + 1, &seen))
		return;
	u64map_put(&c->devices_seen, (uint64_t)d->id + 1, 1);
	for (int k = 0, o = 0; k < 16; k++) {
		static const char hex[] = "0123456789abcdef";
		if (k == 4 || k == 6 || k == 8 || k == 10)
			uuid[o++] = '-';
		uuid[o++] = hex[d->uuid[k] >> 4];
		uuid[o++] = hex[d->uuid[k] & 15];
		uuid[o] = '\0';
	}
	sqlite3_bind_int64(st, i++, VM_ID);
	sqlite3_bind_int64(st, i++, d->id);
	conv_bind_text(st, i++, name);
	sqlite3_bind_int64(st, i++, d->l2_cache_size);
	sqlite3_bind_int64(st, i++, (int64_t)d->global_memory_size);
	/* KB/s -> B/s; a damaged record must not overflow */
	sqlite3_bind_int64(st, i++,
			   d->global_memory_bandwidth_kbs > INT64_MAX / 1000
			       ? INT64_MAX
			       : (int64_t)d->global_memory_bandwidth_kbs * 1000);
	sqlite3_bind_int64(st, i++, (int64_t)d->core_clock_khz * 1000);
	sqlite3_bind_int64(st, i++, d->sm_count);
	sqlite3_bind_text(st, i++, uuid, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, i++, d->id);
	sqlite3_bind_int64(st, i++, d->constant_memory);
	sqlite3_bind_int64(st, i++, d->max_regs_per_block);
	sqlite3_bind_int64(st, i++, d->max_shmem_per_block);
	sqlite3_bind_int64(st, i++, d->max_shmem_per_sm);
	sqlite3_bind_int64(st, i++, d->max_regs_per_sm);
	sqlite3_bind_int64(st, i++, d->threads_per_warp);
	sqlite3_bind_int64(st, i++, d->memcpy_engines);
	sqlite3_bind_int64(st, i++, d->max_warps_per_sm);
	sqlite3_bind_int64(st, i++, d->max_blocks_per_sm);
	sqlite3_bind_int64(st, i++, d->max_threads_per_block);
	for (int k = 0; k < 3; k++)
		sqlite3_bind_int64(st, i++, d->max_block_dim[k]);
	for (int k = 0; k < 3; k++)
		sqlite3_bind_int64(st, i++, d->max_grid_dim[k]);
	sqlite3_bind_int64(st, i++, d->cc_major);
	sqlite3_bind_int64(st, i++, d->cc_minor);
	sqlite3_bind_int64(st, i++, d->cc_major);
	sqlite3_bind_int64(st, i++, d->cc_minor);
	conv_step(c, S_GPU);
}

/* Pass 1: definitions. */
static void pass1(struct conv *c, struct proc *p, struct tlog_reader *r, int *have_clock,
		  int64_t *clock_off)
{
	struct tlog_item it;
	struct strbuf sb = STRBUF_INIT;

	while (tlog_next(r, &it) && !conv_interrupted(c)) {
		const struct tlog_rec *h = it.rec;
		c->stats->records++;
		if (h->type != TLOG_PROCESS && h->type != TLOG_RANK && h->type != TLOG_END &&
		    h->type != TLOG_COST)
			p->recorded++;
		switch (h->type) {
		case TLOG_END:
			p->ended = 1;
			break;
		case TLOG_NVTX_STRING: {
			const struct tlog_nvtx_def *d = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*d), d->len);
			u64map_put(&p->strings, d->id, (uint64_t)conv_intern(c, s.p, s.len));
			break;
		}
		case TLOG_API_NAME: {
			const struct tlog_api_name *a = (const void *)h;
			struct str s = tlog_rec_string(h, sizeof(*a), a->len);
			u64map_put(&p->api_names, ((uint64_t)h->aux << 32) | a->cbid,
				   (uint64_t)conv_intern(c, s.p, s.len));
			if (!api_name_is_launch_n(s.p, s.len, 1))
				u64map_put(&p->api_other, ((uint64_t)h->aux << 32) | a->cbid, 1);
			break;
		}
		case TLOG_CORR_ALIAS: {
			const struct tlog_corr_alias *a = (const void *)h;
			alias_add(&p->aliases, a->from, a->to);
			break;
		}
		case TLOG_API: {
			const struct tlog_api *a = (const void *)h;
			u32set_add(&p->api_corr, a->corr);
			break;
		}
		case TLOG_API_ACT:
			api_nest_add(&p->nest, (const void *)h);
			break;
		case TLOG_KERNEL_NAME:
			def_kernel_name(c, p, h, &sb);
			break;
		case TLOG_CLOCK: {
			const struct tlog_clock *k = (const void *)h;
			if (k->cupti_ns) {
				*have_clock = 1;
				*clock_off = (int64_t)(k->tracer_ns -
						       k->cupti_ns); /* wraps, never overflows */
			}
			break;
		}
		case TLOG_THREAD_NAME:
			def_thread_name(c, p, h);
			break;
		case TLOG_PROCESS:
			put_process(c, p, h);
			break;
		case TLOG_RANK:
			put_rank(c, p, h);
			break;
		case TLOG_COST:
			put_cost(c, p, h);
			break;
		case TLOG_DIAG:
			put_diag(c, p, h);
			break;
		case TLOG_DROPPED: {
			const struct tlog_dropped *d = (const void *)h;
			if (h->aux == 1)
				c->stats->dropped_tracer += d->count;
			else
				c->stats->dropped_cupti += d->count;
			break;
		}
		case TLOG_DEVICE:
			put_device(c, h);
			break;
		case TLOG_MODULE:
		case TLOG_CPU_SAMPLING:
			conv_sample_def(c, &p->samples, p->ctx.pid, h);
			break;
		default:
			break;
		}
	}
	strbuf_release(&sb);
}

/* After pass 1: fold driver calls made inside runtime calls (activity
 * source) into their runtime call, as pass 1 decided them (api_nest); a log
 * not in CUPTI's order is read once more for every call, sorted whole. */
static void resolve_api_calls(struct conv *c, struct proc *p, struct tlog_reader *r)
{
	struct api_nest *n = &p->nest;

	api_nest_finish(n);
	if (n->fallback) {
		struct api_span *spans = NULL;
		size_t ns = 0, as = 0;
		struct tlog_item it;

		api_nest_release(n);
		tlog_rewind(r);
		while (tlog_next(r, &it) && !conv_interrupted(c))
			if (it.rec->type == TLOG_API_ACT)
				add_span(&spans, &ns, &as, it.rec);
		tosqlite_api_nest(spans, ns);
		for (size_t i = 0; i < ns; i++)
			api_nest_result(n, spans[i].corr, spans[i].driver ? spans[i].parent : 0);
		free(spans);
	}
	for (size_t i = 0; i < n->naliases; i++)
		alias_add(&p->aliases, (uint32_t)(n->aliases[i] >> 32), (uint32_t)n->aliases[i]);
	FREE_AND_NULL(n->aliases);
	n->naliases = n->aaliases = 0;
	aliases_sort(&p->aliases);
}

static void put_api(struct conv *c, struct proc *p, const struct tlog_api *a, uint32_t tid)
{
	struct runtime_row row;
	sqlite3_stmt *s = c->st[S_RUNTIME];
	uint64_t name;

	if (!u64map_get(&p->api_names, ((uint64_t)a->h.aux << 32) | a->cbid, &name)) {
		char buf[48];
		int n = snprintf(buf, sizeof(buf), "%s_cbid_%u",
				 a->h.aux == TLOG_API_DRIVER ? "driver" : "runtime", a->cbid);
		name = (uint64_t)conv_intern(c, buf, (size_t)n);
	}
	tosqlite_runtime_row(&row, &p->ctx, a, tid, (int64_t)name);
	sqlite3_bind_int64(s, 1, row.start);
	sqlite3_bind_int64(s, 2, row.end);
	sqlite3_bind_int64(s, 3, row.eventClass);
	sqlite3_bind_int64(s, 4, row.globalTid);
	sqlite3_bind_int64(s, 5, row.correlationId);
	sqlite3_bind_int64(s, 6, row.nameId);
	sqlite3_bind_int64(s, 7, row.returnValue);
	if (conv_step(c, S_RUNTIME) == 0) {
		uint64_t v;
		if (u64map_get(&p->api_other, ((uint64_t)a->h.aux << 32) | a->cbid, &v))
			c->stats->api_other++;
		else
			c->stats->api_calls++;
	}
}

/* A graph node made or cloned: LLMPROF_GRAPH_NODES (docs/tracer.md). Node
 * ids are CUPTI's, unique in the process, as the kernels' graphNodeId. */
static void put_graph_node(struct conv *c, struct proc *p, const struct tlog_rec *h, uint32_t tid)
{
	const struct tlog_graph_node *n = (const void *)h;
	sqlite3_stmt *st = c->st[S_GRAPHNODE];

	sqlite3_bind_int64(st, 1, tosqlite_global_tid(p->ctx.pid, tid));
	sqlite3_bind_int64(st, 2, (int64_t)((uint64_t)n->ts - (uint64_t)p->ctx.t0));
	sqlite3_bind_int64(st, 3, (int64_t)n->node_id);
	if (n->original_id)
		sqlite3_bind_int64(st, 4, (int64_t)n->original_id);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, n->graph_id);
	sqlite3_bind_int64(st, 6, h->aux);
	conv_step(c, S_GRAPHNODE);
}

/* Pass 2: events. */
static void pass2(struct conv *c, struct proc *p, struct tlog_reader *r)
{
	struct tlog_item it;
	size_t i;

	while (tlog_next(r, &it) && !c->failed && !conv_interrupted(c)) {
		const struct tlog_rec *h = it.rec;
		switch (h->type) {
		case TLOG_NVTX_PUSH:
			on_push(p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_POP:
			on_pop(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_START:
			on_start(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_END:
			on_end(c, p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_MARK: {
			struct nvtx_row row;
			const struct tlog_nvtx_event *e = (const void *)h;
			tosqlite_nvtx_mark_row(&row, &p->ctx, e, it.tid, text_id_for(p, e));
			conv_put_nvtx(c, &row);
			break;
		}
		case TLOG_NVTX_PAYLOAD:
			on_payload(p, (const void *)h, it.tid);
			break;
		case TLOG_NVTX_PL_SCHEMA:
			conv_put_pl_schema(c, (const void *)h, h->size);
			break;
		case TLOG_NVTX_DOMAIN:
		case TLOG_NVTX_CATEGORY: {
			struct nvtx_row row;
			tosqlite_nvtx_def_row(&row, &p->ctx, (const void *)h, it.tid);
			conv_put_nvtx(c, &row);
			break;
		}
		case TLOG_API:
			put_api(c, p, (const void *)h, it.tid);
			break;
		case TLOG_API_ACT: {
			const struct tlog_api *a = (const void *)h;
			if (h->aux == TLOG_API_DRIVER && u32set_has(&p->nest.nested, a->corr))
				break; /* part of its runtime call's row */
			put_api(c, p, a, it.tid);
			break;
		}
		case TLOG_KERNEL: {
			const struct tlog_kernel *k = (const void *)h;
			struct kernel_row row;
			int64_t unknown[3];
			const int64_t *names;
			uint64_t idx;
			uint32_t corr = map_corr(p, k->corr);
			if (u64map_get(&p->kname, k->name_id, &idx)) {
				names = p->knames[idx];
			} else {
				unknown[0] = unknown[1] = unknown[2] =
				    conv_intern(c, "<unknown>", 9);
				names = unknown;
			}
			tosqlite_kernel_row(&row, &p->ctx, k, names, corr);
			note_attribution(c, p, corr);
			if (conv_insert_row(c, S_KERNEL, &row.start, 28, row.graphNodeId_null,
					    27) == 0)
				c->stats->kernels++;
			break;
		}
		case TLOG_MEMCPY: {
			const struct tlog_memcpy *m = (const void *)h;
			struct memcpy_row row;
			uint32_t corr = map_corr(p, m->corr);
			tosqlite_memcpy_row(&row, &p->ctx, m, corr);
			note_attribution(c, p, corr);
			if (conv_insert_row(c, S_MEMCPY, &row.start, 17, row.graphNodeId_null,
					    17) == 0)
				c->stats->memcpys++;
			break;
		}
		case TLOG_CPU_SAMPLE:
			conv_put_sample(
			    c, &p->samples, tosqlite_global_tid(p->ctx.pid, it.tid),
			    (int64_t)((uint64_t)((const struct tlog_cpu_sample *)h)->ts -
				      (uint64_t)p->ctx.t0),
			    h);
			break;
		case TLOG_GRAPH_NODE:
			if (h->size >= sizeof(struct tlog_graph_node))
				put_graph_node(c, p, h, it.tid);
			break;
		case TLOG_MEMSET: {
			const struct tlog_memset *m = (const void *)h;
			struct memset_row row;
			uint32_t corr = map_corr(p, m->corr);
			tosqlite_memset_row(&row, &p->ctx, m, corr);
			note_attribution(c, p, corr);
			if (conv_insert_row(c, S_MEMSET, &row.start, 12, row.graphNodeId_null,
					    11) == 0)
				c->stats->memsets++;
			break;
		}
		default:
			break;
		}
	}
	/* Ranges still open when the log ends (crash, missing pop/end). */
	for (i = 0; i < p->nthreads; i++) {
		struct thread_stack *t = &p->threads[i];
		for (size_t j = 0; j < t->n; j++)
			emit_range(c, p, t->v[j].ev, t->v[j].tid, -1, 0, t->v[j].pl);
	}
	for (i = 0; i < p->npend; i++) {
		struct pending *q = &p->pend[i];
		if (q->end_ts == -2)
			continue;
		if (q->ev)
			emit_range(c, p, q->ev, q->tid, -1, 0, NULL);
		else
			c->stats->unmatched_ends++;
	}
}

static void proc_release(struct proc *p)
{
	size_t i;
	tosqlite_u64map_free(&p->strings);
	tosqlite_u64map_free(&p->api_names);
	tosqlite_u64map_free(&p->api_other);
	free(p->aliases.v);
	api_nest_release(&p->nest);
	tosqlite_u64map_free(&p->kname);
	u32set_free(&p->api_corr);
	tosqlite_u64map_free(&p->tnames);
	tosqlite_u64map_free(&p->pend_by_id);
	free(p->knames);
	for (i = 0; i < p->nthreads; i++) {
		for (size_t j = 0; j < p->threads[i].n; j++) {
			free(p->threads[i].v[j].ev);
			free(p->threads[i].v[j].pl);
		}
		free(p->threads[i].v);
	}
	free(p->threads);
	for (i = 0; i < p->npend; i++)
		free(p->pend[i].ev);
	free(p->pend);
	conv_sample_release(&p->samples);
}

/* The ThreadNames rows of a process, from pass 1's tnames. */
static void put_thread_names(struct conv *c, const struct proc *p)
{
	for (size_t k = 0; k < p->tnames.cap; k++) {
		sqlite3_stmt *ts = c->st[S_THREAD];
		if (!p->tnames.keys[k])
			continue;
		sqlite3_bind_int64(ts, 1, (int64_t)(p->tnames.vals[k] & ~((uint64_t)1 << 63)));
		sqlite3_bind_int64(ts, 2, 0);
		sqlite3_bind_int64(
		    ts, 3, tosqlite_global_tid(p->ctx.pid, (uint32_t)(p->tnames.keys[k] - 1)));
		conv_step(c, S_THREAD);
	}
}

/* A process whose tracer writes TLOG_END but whose log has none ended
 * without exit(): the records buffered since the last periodic flush are
 * lost. A fork()ed child whose log holds no record after its process and
 * rank (the tracer writes the thread name at once on the first record) is
 * not counted: it recorded nothing before it exec()ed (subprocess). */
static void count_unflushed(struct trace_convert_stats *st, const struct tlog_reader *r,
			    const struct proc *p)
{
	if (!(r->hdr.flags & TLOG_F_END_RECORD) || p->ended ||
	    ((r->hdr.flags & TLOG_F_FORKED) && !p->recorded))
		return;
	st->unflushed++;
	strbuf_addf(&st->diags,
		    "pid %u: warning: ended without exit() (a crash, _exit() or SIGKILL): "
		    "the records since its last periodic flush (LLMPROF_TRACE_LOG_FLUSH_MS, "
		    "1 s by default) are missing\n",
		    r->hdr.pid);
}

void conv_process(struct conv *c, struct tlog_reader *r, struct strbuf *problems)
{
	struct trace_convert_stats *st = c->stats;
	struct proc p;
	int have_clock = 0;
	int64_t off = 0;

	memset(&p, 0, sizeof(p));
	p.ctx.t0 = c->t0;
	p.ctx.pid = r->hdr.pid;
	pass1(c, &p, r, &have_clock, &off);
	put_thread_names(c, &p);
	/* CUPTI timestamps are CLOCK_REALTIME on Linux like ours; if a
	 * platform differs by more than 1 ms, move GPU records onto the
	 * tracer clock and say so. */
	if (have_clock && (off > 1000000 || off < -1000000)) {
		p.ctx.gpu_shift = off;
		strbuf_addf(&st->diags,
			    "pid %u: warning: CUPTI clock differs from the tracer clock by "
			    "%lld ns; GPU timestamps shifted\n",
			    p.ctx.pid, (long long)off);
	}
	count_unflushed(st, r, &p);
	resolve_api_calls(c, &p, r);
	tlog_rewind(r);
	if (!c->failed)
		pass2(c, &p, r);
	conv_put_sampler(c, &p.samples, p.ctx.pid);
	proc_release(&p);
	st->processes++;
	if (r->n_problems & ~((uint64_t)1 << 63)) {
		st->problems += r->n_problems & ~((uint64_t)1 << 63);
		strbuf_addstr(problems, r->problems.buf);
	}
}
