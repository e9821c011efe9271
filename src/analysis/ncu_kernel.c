/* ncu_kernel.c: kernel records and groups from an ncu raw page. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "analysis/ncu_kernel.h"
#include "trace/kname.h"
#include "core/banned.h"

enum ncu_bound ncu_bound_classify(double sm, double mem)
{
	if (isnan(sm) || isnan(mem))
		return NCU_BOUND_UNKNOWN;
	if (sm >= NCU_BOUND_THRESHOLD_PCT && sm >= mem)
		return NCU_BOUND_COMPUTE;
	if (mem >= NCU_BOUND_THRESHOLD_PCT)
		return NCU_BOUND_MEMORY;
	return NCU_BOUND_LATENCY;
}

const char *ncu_bound_name(enum ncu_bound b)
{
	switch (b) {
	case NCU_BOUND_COMPUTE:
		return "compute";
	case NCU_BOUND_MEMORY:
		return "memory";
	case NCU_BOUND_LATENCY:
		return "latency";
	case NCU_BOUND_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *ncu_prec_name(enum ncu_prec p)
{
	static const char *const names[NCU_PREC_NR] = {
	    "fp64", "fp32", "fp16", "bf16", "tf32", "fp8", "tensor",
	};
	return (unsigned)p < NCU_PREC_NR ? names[p] : "?";
}

int ncu_parse_dim3(const char *p, size_t len, int v[3])
{
	size_t i = 0;

	v[0] = v[1] = v[2] = 0;
	while (i < len && p[i] == ' ')
		i++;
	if (i >= len || p[i++] != '(')
		return -1;
	for (int k = 0; k < 3; k++) {
		long x = 0;
		size_t d = 0;

		while (i < len && p[i] == ' ')
			i++;
		while (i < len && isdigit((unsigned char)p[i]) && x < (1L << 31)) {
			x = x * 10 + (p[i++] - '0');
			d++;
		}
		if (!d || x > 0x7fffffff)
			return -1;
		v[k] = (int)x;
		while (i < len && p[i] == ' ')
			i++;
		if (i >= len || p[i++] != (k == 2 ? ')' : ','))
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- records */

/* Per-table lookup state: column indices memoized by the (static) name
 * pointer, so a row costs no name hashing. */
#define KCTX_MEMO 256
struct kctx {
	const struct ncu_raw *raw;
	size_t row;
	const char *memo_key[KCTX_MEMO];
	long memo_col[KCTX_MEMO];
};

static long kcol(struct kctx *x, const char *name)
{
	size_t h = ((uintptr_t)name >> 3) & (KCTX_MEMO - 1);

	while (x->memo_key[h] && x->memo_key[h] != name)
		h = (h + 1) & (KCTX_MEMO - 1);
	if (!x->memo_key[h]) {
		x->memo_key[h] = name;
		x->memo_col[h] = ncu_raw_col(x->raw, name);
	}
	return x->memo_col[h];
}

static double metric(struct kctx *x, const char *name)
{
	long c = kcol(x, name);
	double v;

	if (c < 0 || ncu_raw_number(x->raw, x->row, (size_t)c, &v) != NCU_NUM_OK)
		return NAN;
	return v;
}

/* The first available of several metric names. */
static double metric_any(struct kctx *x, const char *const *names)
{
	for (; *names; names++) {
		double v = metric(x, *names);

		if (ncu_have(v))
			return v;
	}
	return NAN;
}

static double add_or_nan(double a, double b)
{
	return isnan(a) || isnan(b) ? NAN : a + b;
}

#define SASS(op)                                                                                   \
	{                                                                                          \
		"sm__sass_thread_inst_executed_op_" op "_pred_on.sum",                             \
		    "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum",                       \
		    "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum.per_cycle_elapsed"      \
	}
/* [precision d/f/h][add, mul, fma][direct sm, direct smsp, rate] */
static const char *const sass_names[3][3][3] = {
    {SASS("dadd"), SASS("dmul"), SASS("dfma")},
    {SASS("fadd"), SASS("fmul"), SASS("ffma")},
    {SASS("hadd"), SASS("hmul"), SASS("hfma")},
};
#undef SASS

/* Executed SIMT instructions of one op: the direct count when it was
 * collected, else the roofline sections' rate times elapsed cycles. */
static double sass_count(struct kctx *x, const char *const names[3])
{
	double v = metric(x, names[0]);

	if (!ncu_have(v))
		v = metric(x, names[1]);
	if (!ncu_have(v))
		v = metric(x, names[2]) * metric(x, "smsp__cycles_elapsed.avg");
	return v;
}

/* FMA counts two operations, as in ncu's roofline sections. */
static double simt_flops(struct kctx *x, int prec)
{
	return sass_count(x, sass_names[prec][0]) + sass_count(x, sass_names[prec][1]) +
	       2 * sass_count(x, sass_names[prec][2]);
}

static int tensor_src_prec(const char *src, size_t n)
{
	static const struct {
		const char *src;
		enum ncu_prec p;
	} map[] = {
	    {"fp64", NCU_PREC_FP64}, {"fp16", NCU_PREC_FP16}, {"bf16", NCU_PREC_BF16},
	    {"tf32", NCU_PREC_TF32}, {"fp8", NCU_PREC_FP8},
	};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		size_t l = strlen(map[i].src);

		/* "fp8" also covers fp8_e4m3 / fp8_e5m2 spellings. */
		if (n >= l && !memcmp(src, map[i].src, l) && (n == l || src[l] == '_'))
			return (int)map[i].p;
	}
	return -1; /* integer paths (int8, int4, b1) are not FLOPs */
}

/* Tensor-core FLOPs by source type from sm__ops_path_tensor_src_<t>[_dst_<u>]
 * [_sparsity_{on,off}].sum (gh100 offers src_fp16, src_bf16_dst_fp32,
 * src_tf32_dst_fp32, src_fp8, src_fp64; the per-instruction-kind
 * sm__ops_path_tensor_op_* split of the same ops is not added again). Columns without a sparsity
 * suffix win over the split ones so nothing is counted twice. Returns 1 if any was present. */
struct tensor_col {
	size_t col;
	int prec, sparse;
};

struct tensor_cols {
	struct tensor_col *v;
	size_t nr, alloc;
};

/* The typed tensor columns of raw, found once per table. */
static void tensor_cols_find(const struct ncu_raw *raw, struct tensor_cols *tc)
{
	static const char prefix[] = "sm__ops_path_tensor_src_";

	for (size_t c = 0; c < raw->ncols; c++) {
		const char *name = raw->cols[c].name, *src, *dst;
		size_t len = strlen(name);
		int p;

		if (strncmp(name, prefix, sizeof(prefix) - 1) || len < 4 ||
		    strcmp(name + len - 4, ".sum"))
			continue;
		/* The source type runs to the next '_' ("fp16", "bf16_dst_fp32",
		 * "fp8_sparsity_on"); Hopper names some without a _dst_ part. */
		src = name + sizeof(prefix) - 1;
		dst = strchr(src, '_');
		if (!dst || dst > name + len - 4)
			dst = name + len - 4;
		p = tensor_src_prec(src, (size_t)(dst - src));
		if (p < 0)
			continue;
		ALLOC_GROW(tc->v, tc->nr + 1, tc->alloc);
		tc->v[tc->nr].col = c;
		tc->v[tc->nr].prec = p;
		tc->v[tc->nr].sparse = strstr(dst, "_sparsity_") != NULL;
		tc->nr++;
	}
}

static int tensor_typed(struct kctx *x, const struct tensor_cols *tc, double out[NCU_PREC_NR])
{
	double plain[NCU_PREC_NR] = {0}, sparse[NCU_PREC_NR] = {0};
	int have_plain[NCU_PREC_NR] = {0}, have_sparse[NCU_PREC_NR] = {0}, any = 0;

	for (size_t i = 0; i < tc->nr; i++) {
		int p = tc->v[i].prec;
		double v;

		if (ncu_raw_number(x->raw, x->row, tc->v[i].col, &v) != NCU_NUM_OK)
			continue;
		any = 1;
		if (tc->v[i].sparse) {
			sparse[p] += v;
			have_sparse[p] = 1;
		} else {
			plain[p] += v;
			have_plain[p] = 1;
		}
	}
	for (int p = 0; p < NCU_PREC_NR; p++)
		out[p] = have_plain[p] ? plain[p] : have_sparse[p] ? sparse[p] : 0;
	return any;
}

static void kernel_flops(struct kctx *x, const struct tensor_cols *tc, struct ncu_kernel *k)
{
	double tensor[NCU_PREC_NR];
	int any = 0;

	for (int p = 0; p < NCU_PREC_NR; p++)
		k->flops[p] = NAN;
	k->flops[NCU_PREC_FP64] = simt_flops(x, 0);
	k->flops[NCU_PREC_FP32] = simt_flops(x, 1);
	k->flops[NCU_PREC_FP16] = simt_flops(x, 2);
	k->tensor_flops = NAN;
	if (tensor_typed(x, tc, tensor)) {
		k->tensor_flops = 0;
		for (int p = 0; p < NCU_PREC_NR; p++) {
			if (!tensor[p])
				continue;
			k->flops[p] = (ncu_have(k->flops[p]) ? k->flops[p] : 0) + tensor[p];
			k->tensor_flops += tensor[p];
		}
	}
	/* Without the typed metrics, tensor FLOPs stay unavailable: the tensor
	 * pipe's instruction count has no fixed FLOP factor. On the H100 a
	 * 4096^3 bf16 GEMM executed 2,097,152 tensor instructions for
	 * 137,438,953,472 FLOPs (65,536 per HGMMA instruction), where ncu's
	 * roofline factor of 512 would have under-counted 128x
	 * (docs/validation/ncu-h100.md). */
	k->flops_total = 0;
	for (int p = 0; p < NCU_PREC_NR; p++)
		if (ncu_have(k->flops[p])) {
			k->flops_total += k->flops[p];
			any = 1;
		}
	if (!any)
		k->flops_total = NAN;
}

static long long cell_int(struct kctx *x, const char *col)
{
	long c = kcol(x, col);
	struct str s;
	double v;

	if (c < 0)
		return -1;
	s = ncu_raw_cell(x->raw, x->row, (size_t)c);
	if (ncu_parse_number(s.p, s.len, x->raw->decimal, &v) != NCU_NUM_OK)
		return -1;
	/* a damaged cell ("7.8e63"): out of range is as unusable as missing */
	if (!(v > -9.2e18 && v < 9.2e18))
		return -1;
	return (long long)v;
}

static char *cell_dup(struct kctx *x, const char *col)
{
	long c = kcol(x, col);
	struct str s;

	if (c < 0)
		return xstrdup("");
	s = ncu_raw_cell(x->raw, x->row, (size_t)c);
	return xstrndup(s.p, s.len);
}

static int kernel_from_row(struct kctx *x, const struct tensor_cols *tc, struct ncu_kernel *k,
			   struct strbuf *err)
{
	static const char *const dram_pct[] = {
	    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
	    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
	    NULL,
	};
	struct strbuf sb = STRBUF_INIT;
	struct ncu_nvtx_stack st = {0};
	const struct ncu_raw *raw = x->raw;
	size_t row = x->row;
	long c;
	double rd, wr, st_b, dy_b;

	memset(k, 0, sizeof(*k));
	k->id = cell_int(x, "ID");
	k->pid = cell_int(x, "Process ID");
	k->process = cell_dup(x, "Process Name");
	k->name = cell_dup(x, "Kernel Name");
	kname_base(&sb, k->name);
	k->short_name = strbuf_detach(&sb, NULL);
	k->device = cell_int(x, "Device");
	k->context = cell_int(x, "Context");
	k->stream = cell_int(x, "Stream");
	if ((c = kcol(x, "CC")) >= 0) {
		struct str s = ncu_raw_cell(raw, row, (size_t)c);

		if (s.len < sizeof(k->cc))
			memcpy(k->cc, s.p, s.len);
	}
	if ((c = kcol(x, "Grid Size")) >= 0) {
		struct str s = ncu_raw_cell(raw, row, (size_t)c);

		if (s.len && ncu_parse_dim3(s.p, s.len, k->grid))
			return error_set(err, "%s:%zu: bad Grid Size '%.*s'", raw->source,
					 raw->row_line[row], (int)s.len, s.p);
	}
	if ((c = kcol(x, "Block Size")) >= 0) {
		struct str s = ncu_raw_cell(raw, row, (size_t)c);

		if (s.len && ncu_parse_dim3(s.p, s.len, k->block))
			return error_set(err, "%s:%zu: bad Block Size '%.*s'", raw->source,
					 raw->row_line[row], (int)s.len, s.p);
	}
	if (ncu_raw_nvtx(raw, row, &st, err))
		return -1;
	for (size_t i = 0; i < st.nr; i++) {
		if (i)
			strbuf_addch(&sb, '/');
		if (st.ranges[i].domain)
			strbuf_addf(&sb, "%s@", st.ranges[i].domain);
		strbuf_addstr(&sb, st.ranges[i].name);
	}
	k->nvtx = st.nr ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
	ncu_nvtx_stack_release(&st);

	k->registers = metric(x, "launch__registers_per_thread");
	st_b = metric(x, "launch__shared_mem_per_block_static");
	dy_b = metric(x, "launch__shared_mem_per_block_dynamic");
	k->shared_mem = add_or_nan(st_b, dy_b);
	k->duration_ns = metric(x, "gpu__time_duration.sum");
	k->sm_sol_pct = metric(x, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
	k->mem_sol_pct =
	    metric(x, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
	k->dram_pct = metric_any(x, dram_pct);
	k->l2_pct = metric(x, "lts__throughput.avg.pct_of_peak_sustained_elapsed");
	k->achieved_occ_pct = metric(x, "sm__warps_active.avg.pct_of_peak_sustained_active");
	k->theoretical_occ_pct = metric(x, "sm__maximum_warps_per_active_cycle_pct");
	kernel_flops(x, tc, k);
	rd = metric(x, "dram__bytes_read.sum");
	wr = metric(x, "dram__bytes_write.sum");
	k->dram_bytes = add_or_nan(rd, wr);
	if (!ncu_have(k->dram_bytes))
		k->dram_bytes = metric(x, "dram__bytes.sum");
	if (!ncu_have(k->dram_bytes))
		k->dram_bytes = metric(x, "dram__bytes.sum.per_second") * k->duration_ns * 1e-9;
	k->ai = ncu_have(k->flops_total) && ncu_have(k->dram_bytes) && k->dram_bytes > 0
		    ? k->flops_total / k->dram_bytes
		    : NAN;
	k->bound = ncu_bound_classify(k->sm_sol_pct, k->mem_sol_pct);
	return 0;
}

static void kernel_release(struct ncu_kernel *k)
{
	free(k->process);
	free(k->name);
	free(k->mangled);
	free(k->short_name);
	free(k->nvtx);
}

/* ---------------------------------------------------------------- groups */

static int same_group(const struct ncu_kernel *a, const struct ncu_kernel_group *g)
{
	return !strcmp(a->name, g->name) && !memcmp(a->grid, g->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, g->block, sizeof(a->block));
}

static int group_cmp(const void *pa, const void *pb)
{
	const struct ncu_kernel_group *a = pa, *b = pb;

	if (a->total_ns != b->total_ns)
		return a->total_ns < b->total_ns ? 1 : -1;
	/* Ties: first seen first, so the order is stable. */
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Duration-weighted mean accumulator: NAN as soon as one launch lacks v. */
static void wsum(double *acc, double v, double w)
{
	*acc = isnan(v) || isnan(w) ? NAN : *acc + v * w;
}

static void build_groups(struct ncu_kernel_table *t)
{
	size_t alloc = 0;

	for (size_t i = 0; i < t->nr; i++) {
		const struct ncu_kernel *k = &t->k[i];
		struct ncu_kernel_group *g = NULL;
		double d = k->duration_ns;

		for (size_t j = t->ngroups; j > 0; j--)
			if (same_group(k, &t->groups[j - 1])) {
				g = &t->groups[j - 1];
				break;
			}
		if (!g) {
			ALLOC_GROW(t->groups, t->ngroups + 1, alloc);
			g = &t->groups[t->ngroups++];
			memset(g, 0, sizeof(*g));
			g->name = k->name;
			g->short_name = k->short_name;
			memcpy(g->grid, k->grid, sizeof(g->grid));
			memcpy(g->block, k->block, sizeof(g->block));
			g->first = i;
			g->min_ns = INFINITY;
			g->max_ns = -INFINITY;
		}
		g->calls++;
		t->total_calls++;
		if (!ncu_have(d)) {
			t->missing_duration++;
			g->total_ns = NAN;
		} else {
			g->total_ns += d;
			t->total_ns += d;
			if (d < g->min_ns)
				g->min_ns = d;
			if (d > g->max_ns)
				g->max_ns = d;
		}
		wsum(&g->sm_sol_pct, k->sm_sol_pct, d);
		wsum(&g->mem_sol_pct, k->mem_sol_pct, d);
		wsum(&g->dram_pct, k->dram_pct, d);
		wsum(&g->l2_pct, k->l2_pct, d);
		wsum(&g->achieved_occ_pct, k->achieved_occ_pct, d);
		wsum(&g->theoretical_occ_pct, k->theoretical_occ_pct, d);
		wsum(&g->flops_total, k->flops_total, 1);
		wsum(&g->dram_bytes, k->dram_bytes, 1);
	}
	for (size_t j = 0; j < t->ngroups; j++) {
		struct ncu_kernel_group *g = &t->groups[j];
		double w = g->total_ns;

		if (!(w > 0))
			w = NAN; /* no weights: the means are unavailable */
		g->sm_sol_pct /= w;
		g->mem_sol_pct /= w;
		g->dram_pct /= w;
		g->l2_pct /= w;
		g->achieved_occ_pct /= w;
		g->theoretical_occ_pct /= w;
		g->ai = ncu_have(g->flops_total) && ncu_have(g->dram_bytes) && g->dram_bytes > 0
			    ? g->flops_total / g->dram_bytes
			    : NAN;
		g->bound = ncu_bound_classify(g->sm_sol_pct, g->mem_sol_pct);
		if (isinf(g->min_ns))
			g->min_ns = g->max_ns = NAN;
	}
	if (t->ngroups)
		qsort(t->groups, t->ngroups, sizeof(*t->groups), group_cmp);
}

int ncu_kernels_from_raw(const struct ncu_raw *raw, struct ncu_kernel_table *t, struct strbuf *err)
{
	struct tensor_cols tc = {0};
	struct kctx *x = xcalloc(1, sizeof(*x));

	memset(t, 0, sizeof(*t));
	x->raw = raw;
	tensor_cols_find(raw, &tc);
	t->source = xstrdup(raw->source);
	if (ncu_raw_col(raw, "Kernel Name") < 0) {
		error_set(err, "%s: no 'Kernel Name' column", raw->source);
		goto fail;
	}
	if (ncu_raw_check_durations(raw, err))
		goto fail;
	for (size_t r = 0; r < raw->nrows; r++) {
		ALLOC_GROW(t->k, t->nr + 1, t->alloc);
		x->row = r;
		if (kernel_from_row(x, &tc, &t->k[t->nr], err)) {
			kernel_release(&t->k[t->nr]);
			goto fail;
		}
		t->nr++;
	}
	build_groups(t);
	free(tc.v);
	free(x);
	return 0;
fail:
	free(tc.v);
	free(x);
	ncu_kernel_table_release(t);
	return -1;
}

void ncu_kernel_table_release(struct ncu_kernel_table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		kernel_release(&t->k[i]);
	free(t->k);
	free(t->groups);
	free(t->source);
	memset(t, 0, sizeof(*t));
}
