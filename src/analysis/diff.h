/* diff.h: what changed between two runs (`llmprof diff A B`), and whether it
 * is larger than the run-to-run noise.
 *
 * Each side is one or more built report models (analysis/model_build.h):
 * one run, or repeated runs of the same configuration. diff_compute()
 * compares them:
 *   metrics    TTFT, TPOT, tokens/s, GPU busy/idle, and per stage its GPU
 *              time, busy, idle, MFU/MBU: each side's value (the mean over
 *              its runs), the change, and a 95 % confidence interval of the
 *              change (Welch's t-interval: over the runs when both sides
 *              have two or more, else over the per-step decode samples or
 *              the per-instance prefill samples; docs/diff.md)
 *   kernels    matched by mangled name, then by demangled name, then by a
 *              normalised family (diff_family()), then by operator; the rest
 *              are new or gone; calls, GPU time and exposed time (the part
 *              no other kernel covers: report_kernel.stage_exposed_ns) per
 *              run, inside the stages, and apart what ran outside them
 *   waterfall  per stage: stage GPU time delta = sum of the kernel rows'
 *              exposed-time deltas + other GPU work (copies not under a
 *              kernel) + idle
 *   operators  matched by name and stage
 *   ranks      per rank, when both sides have several
 *
 * Ownership: struct diff owns every string and array (diff_release()); it
 * borrows nothing from the models once built. */
#ifndef LLMPROF_ANALYSIS_DIFF_H
#define LLMPROF_ANALYSIS_DIFF_H

#include <stddef.h>

#include "core/strbuf.h"
#include "model/model.h"

/* Where a metric's interval comes from. */
enum diff_basis {
	DIFF_BASIS_NONE,      /* no samples: the change has no interval */
	DIFF_BASIS_STEPS,     /* decode_step GPU spans, pooled over each side's runs */
	DIFF_BASIS_INSTANCES, /* per-instance GPU times of the stage (prefill) */
	DIFF_BASIS_RUNS,      /* the metric's value in each run (2+ runs a side) */
	DIFF_BASIS_PERIODS,   /* decode steps' wall periods (report_stage.step_period_ns),
				 pooled: what TPOT is the mean of */
};

/* The gate's three outcomes (docs/diff.md "The gate"). */
enum diff_gate_outcome {
	DIFF_GATE_PASS,	       /* within the threshold, or better */
	DIFF_GATE_FAIL,	       /* worse by more than it, and the interval excludes 0 */
	DIFF_GATE_CANNOT_TELL, /* missing on a side, no interval, an interval too wide
				  to tell, or other hardware */
};

struct diff_metric {
	const char *key;   /* stable id: "tpot_ms", "decode.gpu_ms" (static) */
	const char *label; /* "TPOT" (static) */
	const char *unit;  /* "ms", "tokens/s", "%" (static) */
	int higher_better;
	struct rnum a, b;	    /* each side's mean over its runs */
	struct rnum delta, pct;	    /* b - a, and 100 (b - a) / a */
	struct rnum lo, hi;	    /* 95 % interval of delta, in unit */
	struct rnum lo_pct, hi_pct; /* the same, in % of a */
	enum diff_basis basis;
	size_t na, nb;	 /* samples behind the interval */
	int significant; /* the interval excludes 0 (never without one) */
};

enum diff_match {
	DIFF_MATCH_MANGLED,  /* the same mangled name */
	DIFF_MATCH_NAME,     /* the same demangled name */
	DIFF_MATCH_FAMILY,   /* the same family, another variant (tile, arch, template) */
	DIFF_MATCH_OPERATOR, /* other kernels, under the same operator */
	DIFF_MATCH_NEW,	     /* only in B */
	DIFF_MATCH_GONE,     /* only in A */
};

/* One row of the kernel diff: one kernel, or the kernels of a family or an
 * operator on each side. Numbers are per run (the mean over a side's runs).
 * A row's change is that of its exposed time inside the stages (the terms
 * of the waterfalls); what ran outside every stage (warm-up, CUDA-graph
 * capture) is kept apart, in out_*. */
struct diff_kernel {
	enum diff_match match;
	char *name_a, *name_b;	     /* the side's kernel with the most time; NULL = none */
	char *family;		     /* diff_family() of name_a or name_b */
	char *op;		     /* operator of its first launch; NULL = none */
	size_t kernels_a, kernels_b; /* distinct kernels the row groups */
	double calls_a, calls_b;     /* all launches */
	double ns_a, ns_b;	     /* all launches: their durations */
	/* inside prefill / decode: launches, durations, exposed time */
	double stage_calls_a[REPORT_ROLE_OTHER], stage_calls_b[REPORT_ROLE_OTHER];
	double stage_ns_a[REPORT_ROLE_OTHER], stage_ns_b[REPORT_ROLE_OTHER];
	double exp_ns_a[REPORT_ROLE_OTHER], exp_ns_b[REPORT_ROLE_OTHER];
	/* outside every stage: all launches minus those inside */
	double out_calls_a, out_calls_b, out_ns_a, out_ns_b;
	double delta_ns; /* of the exposed time inside the stages, b - a */
	/* counters of name_a / name_b (first run with them); profiled 0 = none */
	struct report_counters ca, cb;
};

/* Stage GPU time delta = sum of the kernel rows' exposed-time deltas inside
 * the stage + other GPU work (busy time no kernel covers: copies) + idle,
 * in ns per run; kernels beyond the top are folded into one "rest" term. */
/* The waterfall term of the GPU busy time no kernel covers. */
#define DIFF_OTHER_WORK "other GPU work (copies, not under a kernel)"
struct diff_waterfall_row {
	char *label; /* kernel name, "other kernels (12)", "GPU idle" */
	double delta_ns;
};
struct diff_waterfall {
	enum report_role role;
	int available; /* both sides have the stage */
	double a_ns, b_ns, delta_ns;
	struct diff_waterfall_row *rows; /* kernel rows, then rest, other GPU work, idle */
	size_t nr;
};

struct diff_operator {
	char *name, *stage; /* stage NULL = none */
	double calls_a, calls_b, ms_a, ms_b;
	int in_a, in_b;
};

struct diff_rank {
	char *label; /* "rank 1" */
	struct rnum decode_ms_a, decode_ms_b, step_p50_a, step_p50_b;
	struct rnum ttft_a, ttft_b, tpot_a, tpot_b;
	double kernel_ms_a, kernel_ms_b;
};

/* The per-step decode GPU times (ms) of each side, for the distribution
 * chart; pooled over the runs, ascending. */
struct diff_samples {
	double *a, *b;
	size_t na, nb;
};

struct diff_side_info {
	size_t runs;
	char *label;   /* the argument as given */
	char *gpu;     /* GPU name; NULL = unknown; "mixed" over runs that differ */
	char *backend; /* "builtin", "nsys", "trace file"; "mixed" */
};

struct diff {
	struct diff_side_info a, b;
	struct diff_metric *metrics;
	size_t nr_metrics;
	struct diff_kernel *kernels; /* by |delta_ns| descending */
	size_t nr_kernels;
	size_t nr_new, nr_gone, nr_changed;
	/* kernel launches and time outside every stage, per run */
	double out_calls_a, out_calls_b, out_ns_a, out_ns_b;
	struct diff_waterfall falls[REPORT_ROLE_OTHER];
	struct diff_operator *ops; /* by |ms_b - ms_a| descending */
	size_t nr_ops;
	struct diff_rank *ranks;
	size_t nr_ranks;
	struct diff_samples steps;
	char **notes; /* hardware differs, backends differ, ... */
	size_t nr_notes;
	/* the gate (diff_gate()) */
	const char *gate_metric; /* the --metric name; NULL = no gate */
	double gate_pct;
	enum diff_gate_outcome gate;
	int gate_failed; /* gate == DIFF_GATE_FAIL */
	char *gate_text; /* one line: the outcome and why */
	int hw_differs;	 /* both sides know their GPU and they differ, or a side mixes GPUs */
};

/* The inputs of one side: its label, runs and what each run was read from. */
struct diff_input {
	const char *label;
	const struct report_model *const *runs;
	const char *const *backends; /* per run: "builtin", "nsys", "trace file" */
	size_t nr;
};

/* Compares a and b (each with nr >= 1) into d. top: waterfall kernel rows
 * per stage (the rest summed into one). */
void diff_compute(const struct diff_input *a, const struct diff_input *b, size_t top,
		  struct diff *d);
void diff_release(struct diff *d);

/* The --metric names the gate accepts: "tpot", "ttft", "tokens_per_s",
 * "stage:decode", "stage:prefill". The metric's key, or NULL. */
const char *diff_gate_key(const char *name);
/* Applies the gate to the chosen metric: FAIL when it got worse by more than
 * pct percent and its interval excludes 0; CANNOT_TELL when a side lacks
 * it, it has no interval, it is worse by more than pct but its interval
 * includes 0, or the hardware differs (unless allow_hw); PASS otherwise
 * (within pct, or better). Sets gate* and returns the outcome; -1 with err
 * when the metric is unknown. */
int diff_gate(struct diff *d, const char *name, double pct, int allow_hw, struct strbuf *err);
/* "pass", "FAIL", "cannot tell" (static). */
const char *diff_gate_outcome_name(enum diff_gate_outcome o);

/* A kernel's family: its qualified name (trace/kname.h's display with
 * KNAME_SCOPE: no return type, parameters, template arguments or anonymous
 * namespace) with architecture tags (sm90, ampere, hopper),
 * tile shapes (128x64, 64x8x1) and other numbers replaced by '*' (so
 * nvjet_sm90_tst_64x8_... and nvjet_sm90_tst_128x8_..., or sm80_xmma_...
 * and sm90_xmma_..., share one). Appended to out. */
void diff_family(const char *name, struct strbuf *out);

/* Welch's 95 % interval of mean(b) - mean(a); 0, or -1 when a side has
 * fewer than 2 samples. Exposed for tests. */
int diff_welch(const double *a, size_t na, const double *b, size_t nb, double *lo, double *hi);
/* The two-sided 95 % quantile of Student's t with df degrees of freedom. */
double diff_t975(double df);

#endif
