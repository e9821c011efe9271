/* timeline.h: where GPU time goes, from a trace: kernel summaries, stage
 * timings (prefill, decode, decode steps) and operators. Used by `llmprof
 * report` and by kernel selection.
 *
 * Stages come from NVTX ranges named in a struct stage_config (defaults:
 * SCHEMA.md stages.*), attributed to the GPU by NVTX projection (see
 * nvtxproj.h): a GPU op belongs to a stage instance when its launch call is
 * inside the range on the launching thread.
 *
 * struct timeline owns all its arrays; timeline_release() frees them.
 * Strings it returns borrow from the trace, which must outlive it. */
#ifndef LLMPROF_TIMELINE_H
#define LLMPROF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cpuapi.h"
#include "analysis/cpusample.h"
#include "core/strbuf.h"
#include "trace/trace.h"
#include "trace/tracercost.h"

enum stage_role { STAGE_PREFILL, STAGE_DECODE, STAGE_DECODE_STEP, STAGE_NROLES };

/* A stage role and the NVTX ranges that mark it: "range@domain", or a bare
 * "range" that matches that range in any domain (default included);
 * "range@*" is the same as bare. '\@' is a literal '@'. The reversed
 * "domain@range" (ncu's order, used by SCHEMA.md's defaults) also matches. */
struct stage_spec {
	enum stage_role role;
	const char *const *names; /* borrowed */
	size_t nnames;
};

struct stage_config {
	struct stage_spec stages[STAGE_NROLES];
	/* A range is an operator when its message contains this (default
	 * "."; the built-in LLM's "attn.qkv"); PyTorch emit_nvtx ranges
	 * ("aten::mm, seq = 3, ...") and TensorRT layer ranges always are. */
	const char *operator_pattern;
};

/* SCHEMA.md defaults: prefill = LLM@prefill, prefill; decode =
 * LLM@decode_all, decode; decode_step = LLM@decode_step, decode_step;
 * pattern ".". */
void stage_config_default(struct stage_config *cfg);
const char *stage_role_name(enum stage_role role);
/* Whether spec (one "range@domain" / "range" entry) names a range with this
 * message and domain (NULL = default domain). */
int stage_name_matches(const char *spec, const char *text, const char *domain);

struct stage_timing {
	size_t instances;
	int64_t cpu_ns;	       /* summed range durations on the CPU */
	int64_t wall_ns;       /* summed: range start to the later of its end and its
				  last GPU op's end (the work is done then) */
	int64_t proj_ns;       /* summed projections [first op start, last op end] */
	int64_t busy_ns;       /* summed union of GPU op intervals per instance */
	int64_t idle_ns;       /* proj_ns - busy_ns: gaps between GPU ops inside */
	int64_t kernel_ns;     /* summed kernel durations */
	size_t kernels;	       /* kernels launched inside */
	size_t launches;       /* distinct launch calls inside */
	double launches_per_s; /* launches per second of CPU range time */
	/* host-device copies (memcpy Host-to-Device / Device-to-Host) inside */
	size_t copies;
	int64_t copy_ns, copy_bytes;
	/* distribution of per-instance projected GPU time (ns) */
	double mean_ns, p50_ns, p90_ns;
	int64_t max_ns;
	/* the per-instance projected GPU times themselves, ascending (owned by
	 * the timeline; instances without GPU work are not in it): the samples
	 * `llmprof diff` compares */
	int64_t *inst_ns;
	size_t ninst;
	/* CPU time of its ranges inside CUDA API calls, by call name (owned;
	 * cpuapi.h): only when the timeline's api_complete */
	struct cpu_api_use api;
	/* its ranges' CPU samples (owned; cpusample.h): builtin traces recorded
	 * with pipeline.trace.cpu_sample_hz > 0 only */
	struct cpu_sample_use samples;
};

struct operator_stat {
	int32_t text;	/* strs id of the operator's name (message) */
	int32_t domain; /* -1 default */
	int32_t cls;	/* strs id of its NVTX category (a module's class), -1 none */
	int stage;	/* enum stage_role of the enclosing stage, -1 none */
	size_t calls;	/* range instances */
	size_t replays; /* of calls, CUDA-graph replays: ranges never pushed */
	size_t kernels;
	int64_t gpu_ns;	     /* kernels whose innermost operator is this one */
	int64_t gpu_incl_ns; /* kernels inside it, nested operators' included */
	/* gpu_incl_ns of the instances inside no operator of the same class
	 * (cls >= 0 only): summed over a class, each kernel counts once */
	int64_t gpu_incl_outer_ns;
	int64_t cpu_ns;	    /* the ranges' own durations, summed */
	double stage_share; /* gpu_ns / kernel time of its stage (0..1), 0 without stage */
};

struct kernel_stat {
	int32_t name;
	int32_t grid[3], block[3]; /* only in by-config summaries */
	size_t calls;
	int64_t total_ns, min_ns, max_ns;
	double avg_ns, med_ns, share; /* share of the summary's total */
	double stddev_ns;	      /* sample standard deviation; 0 from a CSV */
};

struct kernel_summary {
	struct kernel_stat *rows; /* sorted by total_ns, descending */
	size_t nrows;
	int64_t total_ns;
	size_t calls;
};

struct memop_stat {
	int32_t name; /* "[CUDA memcpy Host-to-Device]", "[CUDA memset]"; -1 unknown kind */
	size_t count;
	int64_t total_ns, bytes;
};

struct timeline {
	int have_kernels; /* the export has a kernel table */
	size_t nkernels, nmemops;
	int64_t kernel_ns;
	struct stage_timing stages[STAGE_NROLES];
	int stage_found[STAGE_NROLES];
	size_t kernels_outside; /* kernels in no stage instance */
	int64_t kernel_ns_outside;
	size_t ops_no_launch;		  /* GPU ops whose launch call is missing */
	size_t kernels_no_launch;	  /* kernels among them */
	size_t stage_cross_thread;	  /* stage ranges ended on another thread: not projected */
	size_t graph_kernels;		  /* kernels replayed from a CUDA graph */
	size_t graph_kernels_op;	  /* of those, given their capture-time operator */
	int have_graph_nodes;		  /* the trace records graph nodes (builtin tracer) */
	int api_complete;		  /* the trace records every CUDA API call (cpuapi.h) */
	size_t cpu_samples;		  /* CPU samples in the trace, any range or none */
	struct trace_cpu_sampler sampler; /* the sampler's own cost */
	struct trace_cost cost;		  /* the tracer's own cost (tracercost.h) */
	int32_t *kernel_op;		  /* per kernel: strs id of its innermost operator range's
					     text, -1 outside every operator */
	/* kernels of each decode_step instance, in start order: a capture that
	 * stops or starts while the GPU runs behind the CPU leaves steps with
	 * fewer kernels, or none */
	size_t *step_kernels;
	size_t nstep_kernels;
	/* the decode time over the steps, host gaps included: per decode
	 * instance, its first step's start to its last step's end (the later of
	 * the range's end and its GPU work's end), summed; and each step's
	 * period (from the previous step's end in its instance, the first from
	 * its own start, to its end), ascending, summing to it. 0 / NULL without
	 * decode_step ranges */
	int64_t step_wall_ns;
	int64_t *step_period_ns;
	size_t nstep_periods;
	uint8_t *kernel_stages;	   /* per kernel: bit (1 << role) per stage it ran in */
	struct operator_stat *ops; /* sorted by gpu_ns, descending */
	size_t nops;
	struct kernel_summary by_name; /* per kernel name, by total time */
	struct memop_stat *memops;     /* sorted by total_ns, descending */
	size_t nmemop_stats;
	int64_t memop_ns;
};

/* Loads what it needs from t and analyzes it. */
int timeline_build(struct timeline *tl, struct trace *t, const struct stage_config *cfg,
		   struct strbuf *err);
void timeline_release(struct timeline *tl);

/* Kernel summary over the kernels with (mask == 0 or kernel_stages & mask),
 * keyed by name or by name + grid + block. kernel_stages may be NULL. The
 * one grouping of kernels: the reports and `llmprof stats`'s
 * cuda_gpu_kern_sum (nsysstats.c, which re-sorts the rows) both use it. */
void kernel_summary_build(struct kernel_summary *ks, const struct trace *t,
			  const uint8_t *kernel_stages, unsigned mask, int by_config);
void kernel_summary_release(struct kernel_summary *ks);

/* Reads an `nsys stats -r cuda_gpu_kern_sum -f csv` file (the degraded
 * input of the original system): names are interned into strs. */
int kernel_summary_read_csv(struct kernel_summary *ks, struct strtab *strs, const char *buf,
			    size_t len, const char *path, struct strbuf *err);

/* Linear-interpolated percentile (0..100) of sorted values. */
double percentile_sorted(const int64_t *v, size_t n, double pct);

#endif
