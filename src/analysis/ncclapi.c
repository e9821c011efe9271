/* ncclapi.c: see ncclapi.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/ncclapi.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxpayload.h"
#include "core/banned.h"

/* Of nested NCCL ranges on a thread, how far back the innermost is looked
 * for: NCCL nests a group call around a few collectives, never hundreds. */
#define NEST_LOOKBACK 64

/* One NCCL API range. */
struct napi {
	int64_t gtid, start, end, rowid, domain;
	int type;      /* enum coll_type; -1: not a collective (init: see nranks) */
	int init;      /* an ncclCommInit* range */
	int64_t bytes; /* -1 unknown */
	int has_comm;
	uint64_t comm;
	int64_t nranks; /* init ranges: the communicator's ranks; 0 unknown */
	const char *op; /* borrowed from the payloads; NULL unknown */
	uint64_t kernels;
	int64_t kernel_ns;
	int64_t rank, device; /* init ranges: this process's rank in it, its CUDA device; -1 */
};

struct napis {
	struct napi *v;
	size_t n, alloc;
	size_t sized; /* ranges with a decoded message size */
	struct nvtx_payloads pl;
};

static const struct {
	const char *fn;
	enum coll_type type;
} fns[] = {
    {"ncclAllReduce", COLL_ALLREDUCE},
    {"ncclAllGather", COLL_ALLGATHER},
    {"ncclReduceScatter", COLL_REDUCESCATTER},
    {"ncclBroadcast", COLL_BROADCAST},
    {"ncclBcast", COLL_BROADCAST},
    {"ncclReduce", COLL_REDUCE},
    {"ncclSend", COLL_SEND},
    {"ncclRecv", COLL_RECV},
    {"ncclAlltoAll", COLL_ALLTOALL},
    {"ncclAllToAll", COLL_ALLTOALL},
};

double nccl_busbw_factor(int type, int n)
{
	switch (type) {
	case COLL_ALLREDUCE:
		return n >= 1 ? 2.0 * (n - 1) / n : -1;
	case COLL_ALLGATHER:
	case COLL_REDUCESCATTER:
		return n >= 1 ? (double)(n - 1) / n : -1;
	case COLL_BROADCAST:
	case COLL_REDUCE:
	case COLL_SEND:
	case COLL_RECV:
	case COLL_SENDRECV:
		return 1;
	default:
		return -1;
	}
}

double nccl_algbw_scale(int type, int n)
{
	if (type == COLL_ALLGATHER || type == COLL_REDUCESCATTER)
		return n >= 1 ? n : -1;
	return 1;
}

static int is_nccl_domain(const struct trace *t, const struct trace_range *r)
{
	const char *d = strtab_str(&t->strs, r->domain);
	const char *reg = strtab_str(&t->strs, r->domain_reg);

	return (d && !strcmp(d, "NCCL")) || (reg && !strcmp(reg, "NCCL"));
}

static void collect_ranges(const struct trace *t, struct napis *a)
{
	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *text = strtab_str(&t->strs, r->text);
		int type = -1, init;

		if (!text || !is_nccl_domain(t, r))
			continue;
		for (size_t f = 0; f < ARRAY_SIZE(fns) && type < 0; f++)
			if (!strcmp(text, fns[f].fn))
				type = (int)fns[f].type;
		init = starts_with(text, "ncclCommInit");
		if (type < 0 && !init)
			continue;
		ALLOC_GROW(a->v, a->n + 1, a->alloc);
		a->v[a->n++] = (struct napi){r->gtid,
					     r->start,
					     trace_range_end(t, r),
					     r->rowid,
					     r->domain_id,
					     type,
					     init,
					     -1,
					     0,
					     0,
					     0,
					     NULL,
					     0,
					     0,
					     -1,
					     -1};
	}
}

static int cmp_rowid(const void *k, const void *e)
{
	int64_t x = *(const int64_t *)k, y = ((const struct napi *)e)->rowid;

	return (x > y) - (x < y);
}

static int cmp_by_rowid(const void *a, const void *b)
{
	const struct napi *x = a, *y = b;

	return (x->rowid > y->rowid) - (x->rowid < y->rowid);
}

/* nvtx_payload_rows callback: decodes the payload of an NCCL range. */
static int decode_row(void *ctx, int64_t rowid, const unsigned char *blob, size_t len)
{
	struct napis *a = ctx;
	struct napi *x = bsearch(&rowid, a->v, a->n, sizeof(*a->v), cmp_rowid);
	struct nvtx_pl_value v;

	if (!x)
		return 0;
	if (nvtx_payload_get(&a->pl, x->domain, blob, len, "Message size [bytes]", &v) &&
	    v.i >= 0) {
		x->bytes = v.i;
		a->sized++;
	}
	if (nvtx_payload_get(&a->pl, x->domain, blob, len, "NCCL communicator ID", &v)) {
		x->has_comm = 1;
		x->comm = (uint64_t)v.i;
	}
	if (nvtx_payload_get(&a->pl, x->domain, blob, len, "Reduction operation", &v))
		x->op = v.enum_name;
	if (x->init && nvtx_payload_get(&a->pl, x->domain, blob, len, "No. of ranks", &v) &&
	    v.i > 0 && v.i < (1 << 24))
		x->nranks = v.i;
	if (x->init && nvtx_payload_get(&a->pl, x->domain, blob, len, "Rank", &v) && v.i >= 0 &&
	    v.i < (1 << 24))
		x->rank = v.i;
	if (x->init && nvtx_payload_get(&a->pl, x->domain, blob, len, "CUDA device", &v) &&
	    v.i >= 0 && v.i < (1 << 16))
		x->device = v.i;
	return 0;
}

/* A call for the kernel lookup: by (corr, process). */
struct cref {
	int64_t corr, gpid;
	size_t call;
};

static int cmp_cref(const void *a, const void *b)
{
	const struct cref *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->gpid > y->gpid) - (x->gpid < y->gpid);
}

static int cmp_thread_start(const void *a, const void *b)
{
	const struct napi *x = a, *y = b;

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The innermost range of v (sorted by thread, start) on gtid holding ts. */
static struct napi *range_at(struct napi *v, size_t n, int64_t gtid, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* first range after (gtid, ts) */
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].gtid < gtid || (v[mid].gtid == gtid && v[mid].start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < NEST_LOOKBACK && lo > 0; k++) {
		struct napi *r = &v[--lo];

		if (r->gtid != gtid)
			break;
		if (ts <= r->end)
			return r;
	}
	return NULL;
}

/* Each kernel launched from inside an NCCL collective's range (its launch
 * call on the range's thread, within it) to that range. */
static void attribute_kernels(const struct trace *t, struct napis *a)
{
	struct cref *c = xmalloc(st_mult(t->ncalls + 1, sizeof(*c)));

	for (size_t i = 0; i < t->ncalls; i++)
		c[i] = (struct cref){trace_call_corr(t, &t->calls[i]),
				     trace_csig(t, &t->calls[i])->gtid & TRACE_GPID_MASK, i};
	qsort(c, t->ncalls, sizeof(*c), cmp_cref);
	qsort(a->v, a->n, sizeof(*a->v), cmp_thread_start);
	for (size_t i = 0; i < t->nkernels && a->n; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		const struct trace_ksig *ks = trace_ksig(t, k);
		struct cref key = {trace_kernel_corr(t, k), ks->gpid & TRACE_GPID_MASK, 0};
		const struct cref *at;
		struct napi *r;

		/* every kernel a collective's call launched counts, whatever its
		 * name: at world size 1 an AVG all_reduce runs NCCL's
		 * oneRankReduce, no ncclDevKernel_* */
		if (k->end < k->start || !(at = bsearch(&key, c, t->ncalls, sizeof(*c), cmp_cref)))
			continue;
		r = range_at(a->v, a->n, trace_csig(t, &t->calls[at->call])->gtid,
			     t->calls[at->call].start);
		if (!r || r->type < 0)
			continue;
		r->kernels++;
		r->kernel_ns = i64_sat_add(r->kernel_ns, k->end - k->start);
	}
	free(c);
}

/* Ranks of x's communicator, from the init ranges (a few: one per
 * communicator and process) gathered in inits[0..n); 0 unknown. */
static int64_t comm_ranks(const struct napi *const *inits, size_t n, const struct napi *x)
{
	for (size_t i = 0; x->has_comm && i < n; i++)
		if (inits[i]->has_comm && inits[i]->comm == x->comm && inits[i]->nranks > 0)
			return inits[i]->nranks;
	return 0;
}

/* The report label of the process pid. */
static char *process_label(const struct report_model *m, int64_t pid)
{
	char buf[64];

	for (size_t i = 0; i < m->ranks.nr; i++)
		if (m->ranks.v[i].pid == pid && m->ranks.v[i].label)
			return xstrdup(m->ranks.v[i].label);
	if (!m->ranks.nr && m->env.ident.rank >= 0)
		snprintf(buf, sizeof(buf), "rank %d", m->env.ident.rank);
	else
		snprintf(buf, sizeof(buf), "pid %lld", (long long)pid);
	return xstrdup(buf);
}

/* Where a process sorts: its index in m->ranks.v, else after them by pid. */
static int64_t process_order(const struct report_model *m, int64_t pid)
{
	for (size_t i = 0; i < m->ranks.nr; i++)
		if (m->ranks.v[i].pid == pid)
			return (int64_t)i;
	return (int64_t)m->ranks.nr + pid;
}

/* A row being summed: its (process, type) and bandwidth sums. */
struct acc {
	int64_t order, pid;
	int type;
	struct report_nccl_api row;
	double algbw_bytes, busbw_bytes, bw_ns;
	int alg_ok, bus_ok, op_mixed;
};

static int cmp_acc(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->type > y->type) - (x->type < y->type);
}

static void add_call(struct acc *r, const struct napi *x, int64_t n)
{
	double scale = nccl_algbw_scale(x->type, (int)n);
	double f = nccl_busbw_factor(x->type, (int)n);

	r->row.calls++;
	if (n > 0 && !r->row.nranks) /* calls of unknown communicator: no say */
		r->row.nranks = (int)n;
	else if (n > 0 && r->row.nranks != (int)n)
		r->row.nranks = -1;
	if (x->op && !r->op_mixed && !r->row.op)
		r->row.op = xstrdup(x->op);
	else if (!x->op || (r->row.op && strcmp(r->row.op, x->op)))
		r->op_mixed = 1;
	if (x->kernels) {
		r->row.launched++;
		r->row.kernels += x->kernels;
		r->row.kernel_ns = i64_sat_add(r->row.kernel_ns, x->kernel_ns);
	}
	if (x->bytes < 0)
		return;
	r->row.sized++;
	r->row.bytes += (uint64_t)x->bytes;
	if (!x->kernels)
		return;
	r->bw_ns += (double)x->kernel_ns;
	if (scale < 0)
		r->alg_ok = 0;
	else
		r->algbw_bytes += scale * (double)x->bytes;
	if (f < 0 || scale < 0)
		r->bus_ok = 0;
	else
		r->busbw_bytes += f * scale * (double)x->bytes;
}

/* One row per (process, type), in report order, into m. */
static void make_rows(struct report_model *m, const struct napis *a)
{
	struct acc *r = xcalloc(a->n + 1, sizeof(*r));
	const struct napi **inits = xcalloc(a->n + 1, sizeof(*inits));
	struct report_collectives *c = &m->ranks.coll;
	size_t nr = 0, ni = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].init && a->v[i].nranks > 0 && ni < 1024)
			inits[ni++] = &a->v[i];

	for (size_t i = 0; i < a->n; i++) {
		const struct napi *x = &a->v[i];
		int64_t pid = trace_pid(x->gtid);
		size_t k;

		if (x->type < 0)
			continue;
		for (k = 0; k < nr; k++)
			if (r[k].pid == pid && r[k].type == x->type)
				break;
		if (k == nr)
			r[nr++] = (struct acc){.order = process_order(m, pid),
					       .pid = pid,
					       .type = x->type,
					       .alg_ok = 1,
					       .bus_ok = 1};
		add_call(&r[k], x, comm_ranks(inits, ni, x));
	}
	qsort(r, nr, sizeof(*r), cmp_acc);
	c->api = xcalloc(nr + 1, sizeof(*c->api));
	for (size_t k = 0; k < nr; k++) {
		struct report_nccl_api *row = &c->api[k];

		*row = r[k].row;
		if (r[k].op_mixed)
			FREE_AND_NULL(row->op);
		row->label = process_label(m, r[k].pid);
		row->type = xstrdup(coll_type_name((enum coll_type)r[k].type));
		row->algbw_gbs = row->busbw_gbs = RNUM_NONE;
		if (r[k].bw_ns > 0 && r[k].alg_ok)
			row->algbw_gbs = rnum_of(r[k].algbw_bytes / r[k].bw_ns);
		if (r[k].bw_ns > 0 && r[k].bus_ok && r[k].alg_ok)
			row->busbw_gbs = rnum_of(r[k].busbw_bytes / r[k].bw_ns);
	}
	c->nr_api = nr;
	free(inits);
	free(r);
}

static int has_nccl_kernel(const struct trace *t)
{
	struct coll_name cn;

	for (size_t i = 0; i < t->nkernels; i++)
		if (coll_parse_name(strtab_str(&t->strs, trace_ksig(t, &t->kernels[i])->name), &cn))
			return 1;
	return 0;
}

/* Why no call has a size, given that the trace has NCCL calls. */
static const char *why_unknown(const struct trace *t, const struct napis *a)
{
	int ours = t->producer && strstr(t->producer, "llmprof");

	if (a->pl.ns)
		return ours ? "the trace's NCCL payloads were not recorded"
			    : "nsys export without --include-blobs";
	if (ours)
		return "the tracer that recorded this trace does not record NVTX payloads";
	return "the trace has no NVTX payload schemas (NCCL older than 2.19, or an nsys "
	       "that does not export them)";
}

void nccl_api_fill(struct report_model *m, struct trace *t)
{
	struct report_collectives *c = &m->ranks.coll;
	struct strbuf err = STRBUF_INIT;
	struct napis a = {0};
	size_t calls = 0;

	collect_ranges(t, &a);
	for (size_t i = 0; i < a.n; i++)
		calls += a.v[i].type >= 0;
	if (!calls) {
		if (has_nccl_kernel(t))
			c->bytes_why =
			    xstrdup("the trace has no NCCL NVTX ranges (NVTX not traced, "
				    "or NCCL_NVTX_DISABLE set)");
		goto out;
	}
	qsort(a.v, a.n, sizeof(*a.v), cmp_by_rowid);
	if (nvtx_payloads_load(t, &a.pl, &err) || nvtx_payload_rows(t, decode_row, &a, &err)) {
		report_model_add_note(m, "NCCL message sizes not read: %s", err.buf);
		a.sized = 0;
		for (size_t i = 0; i < a.n; i++)
			a.v[i].bytes = -1;
	}
	attribute_kernels(t, &a);
	make_rows(m, &a);
	if (!a.sized)
		c->bytes_why = xstrdup(err.len ? "the trace's payloads could not be read"
					       : why_unknown(t, &a));
out:
	nvtx_payloads_release(&a.pl);
	free(a.v);
	strbuf_release(&err);
}

/* Of a process's communicators, the widest (most ranks) says its rank in
 * the job: a tensor- or pipeline-parallel group is a part of the world,
 * never wider. Among equally wide ones, the first initialised (the world
 * communicator comes first in torch.distributed and Megatron alike). */
static int better_init(const struct napi *x, const struct nccl_ident *cur)
{
	return x->nranks > cur->nranks;
}

int nccl_comm_idents(struct trace *t, struct nccl_ident **out, size_t *n, struct strbuf *err)
{
	struct napis a = {0};
	struct nccl_ident *v = NULL;
	size_t nv = 0, alloc = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	collect_ranges(t, &a);
	for (size_t i = 0; i < a.n;
	     i++) /* only the init ranges: payload rows of others are skipped */
		if (a.v[i].init)
			a.v[nv++] = a.v[i];
	a.n = nv;
	nv = 0;
	if (!a.n)
		goto out;
	qsort(a.v, a.n, sizeof(*a.v), cmp_by_rowid);
	if (nvtx_payloads_load(t, &a.pl, err) || nvtx_payload_rows(t, decode_row, &a, err)) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < a.n; i++) { /* rowid order: the first initialised first */
		const struct napi *x = &a.v[i];
		int64_t gpid = x->gtid & TRACE_GPID_MASK;
		size_t k = 0;

		if (x->rank < 0 || x->nranks <= 0 || x->rank >= x->nranks)
			continue;
		while (k < nv && v[k].gpid != gpid)
			k++;
		if (k == nv) {
			ALLOC_GROW(v, nv + 1, alloc);
			v[nv++] = (struct nccl_ident){gpid, -1, 0, -1};
		}
		if (v[k].rank < 0 || better_init(x, &v[k]))
			v[k] = (struct nccl_ident){gpid, (int32_t)x->rank, (int32_t)x->nranks,
						   (int32_t)x->device};
	}
	*out = v;
	*n = nv;
out:
	nvtx_payloads_release(&a.pl);
	free(a.v);
	return ret;
}
