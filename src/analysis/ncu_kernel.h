/* ncu_kernel.h: kernel records derived from an ncu raw-page export, and
 * their aggregation by (name, launch configuration).
 *
 * Every counter field is a double that is NAN when the export lacks the
 * metrics it needs ("unavailable", never 0); ncu_have() tests it. The
 * formulas are written down in docs/ncu.md ("Kernel records").
 *
 * Ownership: a struct ncu_kernel_table owns every string and array in it;
 * ncu_kernel_table_release() frees them. It does not borrow the raw table. */
#ifndef LLMPROF_NCU_KERNEL_H
#define LLMPROF_NCU_KERNEL_H

#include <math.h>
#include <stddef.h>

#include "core/strbuf.h"
#include "trace/ncu_csv.h"

/* Bound classification threshold, in % of peak (ncu's own SOLBottleneck
 * rule says throughput "below 60.0% of peak typically indicate[s] latency
 * issues"). */
#define NCU_BOUND_THRESHOLD_PCT 60.0

enum ncu_prec {
	NCU_PREC_FP64,
	NCU_PREC_FP32,
	NCU_PREC_FP16, /* SIMT half ops (the SASS h* counters include bf16x2) */
	NCU_PREC_BF16,
	NCU_PREC_TF32,
	NCU_PREC_FP8,
	NCU_PREC_TENSOR, /* reserved: tensor FLOPs of unknown precision (never guessed) */
	NCU_PREC_NR,
};

enum ncu_bound {
	NCU_BOUND_UNKNOWN = 0, /* SOL metrics missing */
	NCU_BOUND_COMPUTE,
	NCU_BOUND_MEMORY,
	NCU_BOUND_LATENCY,
};

static inline int ncu_have(double v)
{
	return !isnan(v);
}

struct ncu_kernel {
	long long id, pid;
	char *process;
	char *name;	  /* as exported (demangled by default) */
	char *mangled;	  /* from ncu/mangled.csv (ncu_match.h); NULL = unknown */
	char *short_name; /* function name without scope, template args or params */
	char *nvtx;	  /* "LLM@decode_all/decode_step" or NULL */
	long long device, context, stream; /* -1 when n/a */
	char cc[16];
	int grid[3], block[3]; /* 0 when absent (range results) */
	double registers;      /* per thread */
	double shared_mem;     /* static + dynamic bytes per block */
	double duration_ns;
	double sm_sol_pct;  /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
	double mem_sol_pct; /* gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed */
	double dram_pct;    /* gpu__dram_throughput / dram__throughput */
	double l2_pct;	    /* lts__throughput.avg.pct_of_peak_sustained_elapsed */
	double achieved_occ_pct;
	double theoretical_occ_pct;
	double flops[NCU_PREC_NR];
	double flops_total;  /* sum of the available precisions */
	double tensor_flops; /* the tensor-core share of flops_total */
	double dram_bytes;
	double ai; /* flops_total / dram_bytes */
	enum ncu_bound bound;
};

struct ncu_kernel_group {
	const char *name, *short_name; /* borrowed from the first kernel */
	int grid[3], block[3];
	size_t calls;
	double total_ns, min_ns, max_ns;
	/* Duration-weighted means of the per-launch percentages, and sums. */
	double sm_sol_pct, mem_sol_pct, dram_pct, l2_pct, achieved_occ_pct, theoretical_occ_pct;
	double flops_total, dram_bytes, ai;
	enum ncu_bound bound;
	size_t first; /* index of its first kernel */
};

struct ncu_kernel_table {
	char *source;
	struct ncu_kernel *k;
	size_t nr, alloc;
	struct ncu_kernel_group *groups; /* sorted by total_ns, descending */
	size_t ngroups;
	double total_ns; /* sum of durations */
	size_t total_calls;
	size_t missing_duration; /* results without gpu__time_duration */
};
#define NCU_KERNEL_TABLE_INIT                                                                      \
	{                                                                                          \
		0                                                                                  \
	}

/* Builds one record per row of raw, then the groups. 0, or -1 with err. */
int ncu_kernels_from_raw(const struct ncu_raw *raw, struct ncu_kernel_table *t, struct strbuf *err);
void ncu_kernel_table_release(struct ncu_kernel_table *t);

/* The rule (docs/ncu.md): compute when SM SOL >= 60 % and >= memory SOL;
 * memory when memory SOL >= 60 % and > SM SOL; latency when both < 60 %;
 * unknown when either is unavailable. */
enum ncu_bound ncu_bound_classify(double sm_sol_pct, double mem_sol_pct);
const char *ncu_bound_name(enum ncu_bound b);
const char *ncu_prec_name(enum ncu_prec p);

/* Parses "(256, 1, 1)" into v; 0 or -1. */
int ncu_parse_dim3(const char *p, size_t len, int v[3]);

#endif
