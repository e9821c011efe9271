/* collectives.c: NCCL kernel names, and what one rank's kernels say on
 * their own (calls, stream ordinals, exposed communication), read as each
 * rank is added so that its other kernels need not be kept; the builder
 * and the result's memory. Matching across ranks, which reads what this
 * file keeps and calls nothing back, is collectives_match.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/collectives_priv.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const char *const type_names[COLL_NTYPES] = {
    "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
    "SendRecv",	 "Send",      "Recv",	       "AllToAll",  "other",
};

/* Each table: index 0 is "not said"; longer spellings before their
 * prefixes, since the first entry that ends on a token boundary wins. */
static const char *const ops[] = {NULL,	    "PreMulSum", "SumPostDiv", "Sum", "Prod",
				  "MinMax", "Max",	 "Min",	       "Avg"};
static const char *const dtypes[] = {NULL,
				     "__nv_bfloat16",
				     "__nv_fp8_e4m3",
				     "__nv_fp8_e5m2",
				     "fp8_e4m3",
				     "fp8_e5m2",
				     "f8e4m3",
				     "f8e5m2",
				     "uint8_t",
				     "int8_t",
				     "uint32_t",
				     "int32_t",
				     "uint64_t",
				     "int64_t",
				     "half",
				     "float",
				     "double",
				     "bf16",
				     "f16",
				     "f32",
				     "f64",
				     "i8",
				     "u8",
				     "i32",
				     "u32",
				     "i64",
				     "u64"};
static const char *const algos[] = {
    NULL, "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "COLLNET", "TREE", "RING", "PAT"};
static const char *const protos[] = {NULL, "LL128", "LL", "SIMPLE"};

const char *coll_type_name(enum coll_type t)
{
	return (unsigned)t < COLL_NTYPES ? type_names[t] : "other";
}

#define FIELD_GETTER(fn, table)                                                                    \
	const char *fn(unsigned i)                                                                 \
	{                                                                                          \
		return i < sizeof(table) / sizeof(table[0]) ? table[i] : NULL;                     \
	}
FIELD_GETTER(coll_field_op, ops)
FIELD_GETTER(coll_field_dtype, dtypes)
FIELD_GETTER(coll_field_algo, algos)
FIELD_GETTER(coll_field_proto, protos)

static int boundary(char c)
{
	return c == '_' || c == '(' || c == '<' || c == ' ' || c == '\0';
}

/* Length of s's prefix matching word when a token boundary follows. */
static size_t match_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(s, word, n) && boundary(s[n]) ? n : 0;
}

/* The first entry of table[1..n) that matches at s: its index, its length. */
static unsigned match_table(const char *s, const char *const *table, size_t n, size_t *len)
{
	for (size_t i = 1; i < n; i++)
		if ((*len = match_word(s, table[i])))
			return (unsigned)i;
	return 0;
}

/* Parses into table indices (the form coll_rec keeps). */
static int parse_fields(const char *name, struct coll_rec *rec)
{
	static const char *const prefixes[] = {"ncclDevKernel_", "ncclKernel_"};
	const char *p = NULL;
	size_t len;

	memset(rec, 0, sizeof(*rec));
	if (!name)
		return 0;
	if (starts_with(name, "void "))
		name += 5;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes) && !p; i++)
		if (starts_with(name, prefixes[i]))
			p = name + strlen(prefixes[i]);
	if (!p)
		return 0;
	rec->type = COLL_OTHER;
	for (unsigned t = 0; t < COLL_OTHER; t++)
		if ((len = match_word(p, type_names[t]))) {
			rec->type = (uint8_t)t;
			p += len;
			break;
		}
	/* The rest is op, type, algorithm and protocol in either order
	 * (the naming changed in NCCL 2.19); unknown tokens are skipped. */
	while (*p && *p != '(' && *p != '<' && *p != ' ') {
		unsigned i;

		if (*p == '_')
			p++;
		if ((i = match_table(p, algos, ARRAY_SIZE(algos), &len)))
			rec->algo = (uint8_t)i;
		else if ((i = match_table(p, protos, ARRAY_SIZE(protos), &len)))
			rec->proto = (uint8_t)i;
		else if ((i = match_table(p, ops, ARRAY_SIZE(ops), &len)))
			rec->op = (uint8_t)i;
		else if ((i = match_table(p, dtypes, ARRAY_SIZE(dtypes), &len)))
			rec->dtype = (uint8_t)i;
		else /* skip one unknown token: at least a character */
			for (len = 1; !boundary(p[len]); len++)
				;
		p += len;
	}
	return 1;
}

int coll_parse_name(const char *name, struct coll_name *out)
{
	struct coll_rec rec;

	memset(out, 0, sizeof(*out));
	if (!parse_fields(name, &rec))
		return 0;
	out->type = (enum coll_type)rec.type;
	out->op = coll_field_op(rec.op);
	out->dtype = coll_field_dtype(rec.dtype);
	out->algo = coll_field_algo(rec.algo);
	out->proto = coll_field_proto(rec.proto);
	return 1;
}

struct coll_builder *coll_builder_new(void)
{
	return xcalloc(1, sizeof(struct coll_builder));
}

/* A kernel of the rank being added, for sorting by device then start. */
struct kref {
	int64_t start, end;
	int32_t device, stream;
	int nccl;     /* 1 when an NCCL kernel */
	uint32_t rec; /* its coll_rec when nccl */
};

static int cmp_kref(const void *a, const void *b)
{
	const struct kref *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct coll_rec *x = a, *y = b;

	if (x->ord != y->ord)
		return x->ord < y->ord ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

struct ival {
	int64_t start, end;
};

/* Appends the union of the kernels of refs[0..n) with nccl == want (sorted
 * by start) to *out. */
static size_t union_of(const struct kref *refs, size_t n, int want, struct ival *out)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (refs[i].nccl != want)
			continue;
		if (m && refs[i].start <= out[m - 1].end) {
			if (refs[i].end > out[m - 1].end)
				out[m - 1].end = refs[i].end;
		} else {
			out[m].start = refs[i].start;
			out[m].end = refs[i].end;
			m++;
		}
	}
	return m;
}

/* a minus b (both sorted, disjoint) into out; returns its length. */
static size_t subtract(const struct ival *a, size_t na, const struct ival *b, size_t nb,
		       struct ival *out)
{
	size_t m = 0, j = 0;

	for (size_t i = 0; i < na; i++) {
		int64_t s = a[i].start;

		while (j < nb && b[j].end <= s)
			j++;
		for (size_t k = j; k < nb && b[k].start < a[i].end; k++) {
			if (b[k].start > s)
				out[m++] = (struct ival){s, b[k].start};
			if (b[k].end > s)
				s = b[k].end;
		}
		if (s < a[i].end)
			out[m++] = (struct ival){s, a[i].end};
	}
	return m;
}

/* Time of the sorted, disjoint v[0..n) inside [ws, we). */
static int64_t inside(const struct ival *v, size_t n, int64_t ws, int64_t we)
{
	size_t lo = 0, hi = n;
	int64_t t = 0;

	while (lo < hi) { /* first interval ending after ws */
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= ws)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && v[i].start < we; i++) {
		int64_t s = v[i].start > ws ? v[i].start : ws, e = v[i].end < we ? v[i].end : we;

		if (e > s)
			t += e - s;
	}
	return t;
}

static int64_t sum_ivals(const struct ival *v, size_t n)
{
	int64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t = i64_sat_add(t, v[i].end - v[i].start);
	return t;
}

/* The stage of each window: index into info->stages, added on first use. */
static size_t *window_stages(struct coll_rank *info, const struct coll_rank_input *in)
{
	size_t *idx = xmalloc((in->nwindows + 1) * sizeof(*idx));

	info->stages = xcalloc(in->nwindows + 1, sizeof(*info->stages));
	for (size_t w = 0; w < in->nwindows; w++) {
		const char *label = in->windows[w].stage ? in->windows[w].stage : "";
		size_t s;

		for (s = 0; s < info->nstages; s++)
			if (!strcmp(info->stages[s].stage, label))
				break;
		if (s == info->nstages)
			info->stages[info->nstages++].stage = xstrdup(label);
		idx[w] = s;
		info->stages[s].windows++;
		info->stages[s].window_ns = i64_sat_add(info->stages[s].window_ns,
							in->windows[w].end - in->windows[w].start);
	}
	return idx;
}

/* Communication and exposed time of one rank, per device, in total and per
 * stage window: the union of NCCL intervals less the union of the others. */
static void rank_exposure(struct coll_rank *info, const struct kref *refs, size_t n,
			  const struct coll_rank_input *in)
{
	struct ival *comm = xmalloc((n + 1) * sizeof(*comm));
	struct ival *busy = xmalloc((n + 1) * sizeof(*busy));
	struct ival *exp = xmalloc((2 * n + 1) * sizeof(*exp));
	size_t *wstage = window_stages(info, in);

	for (size_t i = 0; i < n;) {
		size_t j = i, nc, nb, ne;

		while (j < n && refs[j].device == refs[i].device)
			j++;
		nc = union_of(refs + i, j - i, 1, comm);
		nb = union_of(refs + i, j - i, 0, busy);
		ne = subtract(comm, nc, busy, nb, exp);
		info->comm_ns = i64_sat_add(info->comm_ns, sum_ivals(comm, nc));
		info->exposed_ns = i64_sat_add(info->exposed_ns, sum_ivals(exp, ne));
		for (size_t w = 0; nc && w < in->nwindows; w++) {
			struct coll_stage_stat *st = &info->stages[wstage[w]];
			int64_t ws = in->windows[w].start, we = in->windows[w].end;

			st->comm_ns += inside(comm, nc, ws, we);
			st->exposed_ns += inside(exp, ne, ws, we);
		}
		i = j;
	}
	free(wstage);
	free(comm);
	free(busy);
	free(exp);
}

/* Numbers the rank's NCCL streams (device, stream) by their first kernel
 * and stores each record's ordinal. refs are sorted by device, start. */
static void number_streams(struct coll_brank *br, const struct kref *refs, size_t n)
{
	struct sfirst {
		int32_t device, stream;
		int64_t first;
		size_t ord;
	} *s = NULL;
	size_t ns = 0, alloc = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!refs[i].nccl)
			continue;
		for (k = 0; k < ns; k++)
			if (s[k].device == refs[i].device && s[k].stream == refs[i].stream)
				break;
		if (k == ns) {
			ALLOC_GROW(s, ns + 1, alloc);
			s[ns++] = (struct sfirst){refs[i].device, refs[i].stream, refs[i].start, 0};
		} else if (refs[i].start < s[k].first) {
			s[k].first = refs[i].start;
		}
	}
	for (size_t k = 0; k < ns; k++) /* ordinal: rank of first start (ties: device) */
		for (size_t l = 0; l < ns; l++)
			if (s[l].first < s[k].first ||
			    (s[l].first == s[k].first &&
			     (s[l].device < s[k].device ||
			      (s[l].device == s[k].device && s[l].stream < s[k].stream))))
				s[k].ord++;
	for (size_t i = 0; i < n; i++) {
		if (!refs[i].nccl)
			continue;
		for (size_t k = 0; k < ns; k++)
			if (s[k].device == refs[i].device && s[k].stream == refs[i].stream)
				br->recs[refs[i].rec].ord =
				    (uint16_t)(s[k].ord < UINT16_MAX ? s[k].ord : UINT16_MAX);
	}
	br->info.nccl_streams = ns;
	free(s);
}

static int check_input(const struct coll_builder *b, const struct coll_rank_input *in,
		       struct strbuf *err)
{
	for (size_t i = 0; i < b->nranks; i++)
		if (b->ranks[i].info.rank == in->rank)
			return error_set(err, "rank %d was added twice", in->rank);
	if (in->clock < 0)
		return error_set(err, "rank %d: clock id %d", in->rank, in->clock);
	for (size_t w = 0; w < in->nwindows; w++)
		if (in->windows[w].end < in->windows[w].start)
			return error_set(err, "rank %d: stage window %zu ends before it starts",
					 in->rank, w);
	return 0;
}

int coll_builder_add_rank(struct coll_builder *b, const struct coll_rank_input *in,
			  struct strbuf *err)
{
	struct coll_brank *br;
	struct kref *refs;
	size_t n = 0;

	if (check_input(b, in, err))
		return -1;
	ALLOC_GROW(b->ranks, b->nranks + 1, b->alloc);
	br = &b->ranks[b->nranks++];
	memset(br, 0, sizeof(*br));
	br->info.rank = in->rank;
	br->info.host = in->host;
	br->info.clock = in->clock;
	refs = xmalloc((in->nkernels + 1) * sizeof(*refs));
	br->recs = xmalloc((in->nkernels + 1) * sizeof(*br->recs));
	for (size_t i = 0; i < in->nkernels; i++) {
		const struct coll_kernel *k = &in->kernels[i];
		struct coll_rec rec;

		if (k->end < k->start) {
			br->info.bad_kernels++;
			continue;
		}
		refs[n] = (struct kref){k->start, k->end, k->device, k->stream, 0, 0};
		if (parse_fields(k->name, &rec)) {
			struct coll_type_stat *ts = &br->info.by_type[rec.type];

			rec.start = k->start;
			rec.end = k->end;
			refs[n].nccl = 1;
			refs[n].rec = (uint32_t)br->nrecs;
			br->recs[br->nrecs++] = rec;
			ts->calls++;
			ts->total_ns = i64_sat_add(ts->total_ns, k->end - k->start);
		}
		n++;
	}
	br->info.calls = br->nrecs;
	br->info.other_kernels = n - br->nrecs;
	qsort(refs, n, sizeof(*refs), cmp_kref);
	number_streams(br, refs, n);
	rank_exposure(&br->info, refs, n, in);
	free(refs);
	/* keep only what matching needs, in the order it reads them */
	br->recs = xrealloc(br->recs, (br->nrecs + 1) * sizeof(*br->recs));
	qsort(br->recs, br->nrecs, sizeof(*br->recs), cmp_rec);
	return 0;
}

static void rank_info_release(struct coll_rank *r)
{
	for (size_t s = 0; s < r->nstages; s++)
		free(r->stages[s].stage);
	FREE_AND_NULL(r->stages);
	r->nstages = 0;
}

void coll_builder_free(struct coll_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nranks; i++) {
		free(b->ranks[i].recs);
		rank_info_release(&b->ranks[i].info);
	}
	free(b->ranks);
	free(b);
}

void coll_result_release(struct coll_result *r)
{
	for (size_t i = 0; i < r->nranks; i++)
		rank_info_release(&r->ranks[i]);
	free(r->ranks);
	free(r->instances);
	free(r->calls);
	free(r->mismatches);
	free(r->clocks);
	free(r->stragglers);
	memset(r, 0, sizeof(*r));
}

long coll_result_rank_index(const struct coll_result *r, int rank)
{
	size_t lo = 0, hi = r->nranks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ranks[mid].rank == rank)
			return (long)mid;
		if (r->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
