/* model.h: the report data model. The pipeline fills one struct report_model
 * from its analysis APIs; every writer (Markdown, JSON, HTML, SVG) and the
 * findings engine only read it.
 *
 * Who fills what (src/analysis/model_build.c drives it all, once per run or
 * `llmprof report`):
 *   run, steps        run bundle (status.json)             analysis/model_build.c
 *   env               provenance (env.json)                analysis/model_build.c
 *   llm               config model.* / infer.*             analysis/model_build.c
 *   stages, agg, gpu_*, timeline   trace analysis          analysis/model_fill.c
 *   kernels (timing)  the timeline's kernel summary        analysis/model_fill.c
 *   kernels[].c       ncu raw page joined to kernels       analysis/join.c
 *   operators         NVTX operator ranges                 analysis/model_fill.c
 *   sel               kernel selection                     analysis/model_build.c
 *   stages[].flops/bytes  analytic_load_file()             analysis/analytic.c
 *   peaks             peaks_load(): config overrides, calibration, datasheet
 *                                                          analysis/peaks.c
 *   stages[].mfu_*, mbu_*, kernels[].pct_gpu, .c->ai      report_model_derive()
 *   findings          findings_run()                       analysis/findings.c
 *   ncu, kernels      an ncu export alone: report_model_from_ncu()
 *                                                          analysis/ncu_export.c
 *
 * Order: fill the model, analytic_load_file(), peaks_load(),
 * report_model_derive(), findings_run(), then report_write_all()
 * (src/report/report.h).
 *
 * Unknown is never 0: every number that may be missing is a struct rnum with
 * an `available` flag, and writers print "n/a" (Markdown/HTML) or null (JSON).
 *
 * Ownership: the model owns every string and array it points to (all
 * allocated with xmalloc/xstrdup); report_model_release() frees them. Use the
 * report_model_add_*() helpers to append, and report_set_str() to set a
 * string field. */
#ifndef LLMPROF_REPORT_MODEL_H
#define LLMPROF_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/state.h"

/* A number that may be unknown. */
struct rnum {
	double v;
	int available;
};
#define RNUM_NONE ((struct rnum){0.0, 0})
static inline struct rnum rnum_of(double v)
{
	struct rnum r = {v, 1};
	return r;
}

/* One pipeline step as status.json records it. */
struct report_step {
	char *name;		/* "config", "trace", "ncu", ... */
	enum step_state status; /* STEP_OK, STEP_FAILED, STEP_SKIPPED or
				   STEP_INTERRUPTED (stopped by the user; what it
				   had done is kept) */
	char *reason;		/* why failed/skipped; NULL when ok */
};

/* A counter result the join could not give to a trace kernel. */
struct report_unjoined {
	long long id, pid; /* ncu's "ID" and "Process ID"; -1 = n/a */
	char *name;	   /* as the export names it */
	int grid[3], block[3];
	char *reason; /* "no trace kernel has this mangled name", ... */
};

/* The counter join (analysis/join.c): ncu's kernel results (range-replay
 * results, which measure NVTX ranges, are not counted), how many joined a
 * trace kernel and by which rule, and the others with their reasons. */
struct report_counter_join {
	int ran; /* the join ran on an export */
	size_t results, joined, ranges;
	size_t by_launch, by_mangled, by_name, by_normalised;
	struct report_unjoined *unjoined;
	size_t nr_unjoined, alloc_unjoined;
};

struct report_run {
	char *run_id;	  /* YYYYMMDD-HHMMSS-xxxx, or NULL for loose files */
	char *state;	  /* "complete", "failed", "interrupted" */
	char *mode;	  /* run.mode: "deep" or "light"; NULL when unknown */
	char *started_at; /* ISO 8601 UTC from the bundle (never "now": output must be reproducible)
			   */
	char *trace_path; /* the trace the reports come from, as given */
	char *ncu_path;	  /* ncu raw.csv, or NULL */
	int counters_by_class; /* stage counter FLOPs came from the measured launches'
				  classes (analysis/join.c), not per-name means */
	char *counters_stage;  /* run.stage the ncu counters were taken in ("decode",
				  "prefill", "all"); NULL = unknown, read as "all" */
	struct report_counter_join cjoin;
	struct report_step *steps;
	size_t nr_steps, alloc_steps;
};

struct report_tool {
	char *name; /* "nsys", "ncu", "llmprof", "torch" ... */
	char *version;
};

/* What the built-in workload ran on (config device, env.json's GPUs). */
enum report_device {
	REPORT_DEVICE_GPU,	  /* a GPU, or not known (a user's program, loose files) */
	REPORT_DEVICE_CPU_NO_GPU, /* the CPU path because no GPU was found (model auto) */
	REPORT_DEVICE_CPU,	  /* the CPU path asked for with device=cpu, a GPU present */
};

/* One process's identity as its launcher gave it: the builtin tracer's
 * record of the one process that ran kernels, else the rank.json of a
 * --rank-dir bundle (any backend). Several processes: report_ranks. */
struct report_identity {
	int rank;		    /* -1 = none recorded */
	int local_rank, world_size; /* -1 = not recorded */
	char *launcher;		    /* "torchrun", "slurm", ...; NULL = not recorded */
	char *source;		    /* the variable the rank came from: "RANK", ... */
	char *from;		    /* "trace" or "rank.json" */
	char *host;		    /* as the identity records it; NULL = not recorded */
};

struct report_env {
	enum report_device device;
	char *gpu_name;		  /* as the driver reports it: "NVIDIA H100 80GB HBM3" */
	int sm_count;		  /* 0 = unknown */
	char *compute_capability; /* "9.0" */
	struct rnum gpu_memory_gib;
	struct rnum sm_clock_mhz; /* max SM clock */
	char *driver;		  /* "580.65.06" */
	char *cuda;		  /* "13.0" */
	char *host;
	char *cpu;
	struct report_identity ident; /* rank -1 = none */
	struct report_tool *tools;
	size_t nr_tools, alloc_tools;
};

/* The model being profiled. Integers 0 = unknown. */
struct report_llm {
	char *name;	    /* "llama-3.2-1b" */
	char *arch;	    /* "llama" */
	struct rnum params; /* parameter count */
	int hidden_size, intermediate_size, num_layers, num_heads, num_kv_heads, head_dim;
	int vocab_size;
	char *dtype; /* "bf16", "fp16", "fp32" */
	int batch_size, prompt_len, new_tokens;
	int cuda_graph; /* -1 unknown, 0 no, 1 yes */
};

enum report_role {
	REPORT_ROLE_PREFILL,
	REPORT_ROLE_DECODE,
	REPORT_ROLE_OTHER,
};

struct report_stage {
	char *name; /* the stage's display name, "prefill", "decode" */
	enum report_role role;
	uint64_t instances;	/* how many times the range ran */
	struct rnum cpu_ms;	/* wall time of the NVTX range(s), summed */
	struct rnum done_ms;	/* range start to the later of its end and its GPU work's end,
				   summed: when the stage's result exists */
	struct rnum gpu_ms;	/* GPU projection: first kernel start to last kernel end, summed */
	struct rnum busy_ms;	/* union of kernel/memcpy intervals inside the projection */
	struct rnum idle_ms;	/* gpu_ms - busy_ms */
	uint64_t kernels;	/* kernel launches attributed to the stage */
	uint64_t graph_kernels; /* of them, replayed from a CUDA graph (findings only) */
	struct rnum launches_per_s; /* kernels / cpu time */
	/* decode only: one sample per decode step (NVTX decode_step range) */
	uint64_t steps;		/* decode_step ranges */
	uint64_t *step_kernels; /* kernels of each, in order (owned); NULL = unknown */
	size_t nr_step_kernels;
	/* each step's GPU span (first to last kernel of the step): mean, p50,
	 * p90, max; the time between steps is not in them */
	struct rnum step_mean_ms, step_p50_ms, step_p90_ms, step_max_ms;
	/* the decode time over the steps, wall clock, host gaps included: per
	 * decode instance from its first step's range start to its last step's
	 * end (the later of the range's end and its GPU work's end), summed;
	 * TPOT = step_wall_ms / steps. And each step's period (ns, ascending;
	 * owned): from the previous step's end (the first: its own start) to
	 * its own end; they sum to step_wall_ms and are what `llmprof diff`
	 * compares TPOT by */
	struct rnum step_wall_ms;
	int64_t *step_period_ns;
	size_t nr_step_periods;
	/* per-instance GPU time (ns, ascending; owned): one sample per decode
	 * step for decode, per stage instance otherwise; what `llmprof diff`
	 * compares. NULL = none */
	int64_t *sample_ns;
	size_t nr_samples;
	/* decode, set with the analytic work when the trace lacks some steps' GPU
	 * work: steps the workload ran per instance, steps recorded (partly
	 * recorded ones count by their share of the median step's kernels),
	 * steps with some and with no kernels missing; steps_expected 0 = none */
	uint64_t steps_expected;
	double steps_recorded;
	uint64_t steps_partial, steps_empty;
	/* analytic work of the whole stage (all instances, the traced steps), from the model */
	struct rnum flops;		/* model FLOPs (2 per MAC) */
	struct rnum bytes;		/* DRAM bytes that must move: weights + KV cache */
	struct rnum counter_flops;	/* ncu FLOPs per launch x the kernel's launches inside
					   this stage, summed over the kernels with counters
					   taken in this stage (a lower bound when selection
					   did not cover every kernel) */
	struct rnum counter_time_share; /* share of the stage's kernel time those
					   kernels account for, 0..1 */
	struct rnum counter_bytes;	/* ncu DRAM bytes, counted as counter_flops */
	/* host-device copies (memcpy H2D/D2H) inside the stage's ranges */
	uint64_t copies;
	struct rnum copy_ms, copy_bytes;
	/* derived by report_model_derive() */
	struct rnum achieved_tflops, achieved_gbs;
	struct rnum mfu_datasheet, mfu_measured;
	struct rnum mbu_datasheet, mbu_measured;
	struct rnum counter_mfu_datasheet;
	/* counter-based, for when the model is unknown: counter FLOPs (bytes)
	 * / counter_time_share (the covered share of the stage's kernel time,
	 * scaling the measured part to the whole stage) / stage time /
	 * datasheet peak */
	struct rnum mfu_counter, mbu_counter;
	/* where its CPU time went (docs/report.md "Where the CPU time goes"),
	 * available only when the trace records every CUDA API call: time its
	 * ranges' threads spent inside CUDA API calls (api_ms, api_calls of
	 * them), the rest of cpu_ms (host_ms: Python, the framework), and the
	 * REPORT_API_TOP longest calls by name (owned), the others summed */
	struct rnum api_ms, host_ms, api_rest_ms;
	uint64_t api_calls, api_rest_calls;
	struct report_api_call {
		char *name; /* "cudaMalloc", without nsys's version suffix */
		struct rnum ms;
		uint64_t calls;
	} * api_top;
	size_t nr_api_top;
	/* its CPU samples (docs/report.md "Where the CPU time goes"), from
	 * builtin traces recorded with pipeline.trace.cpu_sample_hz > 0 (0
	 * samples otherwise): sampled_ms = the samples' periods summed, an
	 * estimate of CPU time; *_outside: the samples outside CUDA API calls,
	 * when the trace records every call (api_ms available). Groups owned,
	 * most sampled first: every category, the REPORT_SAMPLE_TOP functions */
	uint64_t cpu_samples, cpu_samples_outside;
	struct rnum sampled_ms, sampled_outside_ms;
	struct report_sample_group {
		char *name;   /* category, or function */
		char *detail; /* categories: their most sampled function; functions: library */
		uint64_t samples;
		struct rnum ms;
	} * sample_cats, *sample_funcs, *sample_outside_cats;
	size_t nr_sample_cats, nr_sample_funcs, nr_sample_outside_cats;
};

#define REPORT_API_TOP 5
#define REPORT_SAMPLE_TOP 5

struct report_aggregates {
	struct rnum ttft_ms;	  /* time to first token: prefill range start to the end of
				     its GPU work (per request) */
	struct rnum tpot_ms;	  /* time per output token: decode time over the steps (wall,
				     host gaps included: report_stage.step_wall_ms) / steps */
	const char *tpot_basis;	  /* what TPOT and tokens/s were timed by (static):
				     "wall" (the steps' wall time), "gpu_span" (the
				     decode's GPU span, without step ranges' times);
				     NULL = not derived here */
	struct rnum tokens_per_s; /* generated tokens (all sequences) / the same decode time */
	struct rnum tokens;	  /* generated tokens, all sequences */
	struct rnum e2e_ms;	  /* profiled region: first stage range start to last stage
				     range end, CPU time */
	struct rnum gpu_span_ms;  /* first to last kernel of the stages (of the whole trace
				     when no stage was found) */
	struct rnum gpu_busy_ms;  /* union of GPU activity */
	struct rnum gpu_idle_ms;  /* span - busy */
};

enum kernel_bound {
	BOUND_UNKNOWN,
	BOUND_COMPUTE,
	BOUND_MEMORY,
	BOUND_LATENCY, /* neither compute nor memory near its peak */
};

/* Hardware counters of one kernel (per launch, averaged over the profiled
 * launches). Absent when ncu did not profile it. */
struct report_counters {
	uint64_t profiled;	   /* launches ncu measured; 0 = no counters */
	struct rnum duration_ns;   /* gpu__time_duration.sum, mean */
	struct rnum sm_sol_pct;	   /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
	struct rnum mem_sol_pct;   /* gpu__compute_memory_throughput... (memory SOL) */
	struct rnum dram_sol_pct;  /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
	struct rnum occupancy_pct; /* sm__warps_active.avg.pct_of_peak_sustained_active */
	struct rnum flops_hp, flops_sp, flops_dp, flops_tensor; /* FLOPs per launch by kind */
	struct rnum flops;	/* total FLOPs per launch (sum of the above that are available) */
	struct rnum dram_bytes; /* dram__bytes.sum per launch (read + write) */
	/* derived by report_model_derive() when not set by the join */
	struct rnum ai;		     /* flops / dram_bytes, FLOP/byte */
	struct rnum achieved_tflops; /* flops / duration */
	enum kernel_bound bound;
};

struct report_kernel {
	char *short_name; /* "ampere_bf16_s16816gemm_..." or demangled base name */
	char *full_name;  /* demangled full signature; short_name itself (one
			     string, freed once) when the two are the same */
	char *device;	  /* "GPU 0" */
	char *stage;	  /* stage name it ran in; NULL = outside every stage;
			     "mixed" when it ran in several */
	uint64_t calls;	  /* every launch, inside a stage or not (warm-up) */
	uint64_t total_ns;
	/* launches and GPU time inside the prefill / decode ranges, by role */
	uint64_t stage_calls[REPORT_ROLE_OTHER];
	uint64_t stage_ns[REPORT_ROLE_OTHER];
	/* exposed time: of each launch, the part no earlier-started kernel on
	 * its device still covers (kernel_exposed_times()); over the whole
	 * run, and inside the prefill / decode ranges. <= the durations: a
	 * kernel launched early (programmatic dependent launch) or overlapping
	 * another stream's counts only what it adds to the GPU's busy time */
	uint64_t exposed_ns;
	uint64_t stage_exposed_ns[REPORT_ROLE_OTHER];
	struct rnum pct_gpu; /* share of all kernel time; derived when unset */
	char *mangled;	     /* the mangled name of its first launch; NULL = the trace has none */
	char *op;	     /* the operator that launched most of its GPU time; NULL = none */
	size_t nr_ops;	     /* operators that launched it (0 = none) */
	int selected;	     /* chosen for counters */
	/* never NULL: &report_no_counters (all unavailable) until a writer
	 * takes report_kernel_counters(); owned then. Out of line: most
	 * kernels have none, and a million distinct names would otherwise
	 * hold 224 bytes each for nothing */
	const struct report_counters *c;
	/* an Nsight Compute export alone (struct report_ncu_export): kernels
	 * are grouped by name and launch configuration (grid, block; all 0 =
	 * n/a), their GPU time is ncu's summed durations, n/a when a result
	 * had none (total_ns is then unused) */
	int grid[3], block[3];
	struct rnum ncu_ns;
};

struct report_operator {
	char *name;  /* NVTX range name: "attn.qkv", "model.layers.3.mlp" */
	char *cls;   /* its NVTX category, a PyTorch module's class ("LlamaMLP"), or NULL */
	char *stage; /* enclosing stage, or NULL */
	uint64_t calls;
	struct rnum cpu_ms;
	struct rnum gpu_ms;	    /* kernels it launched itself (innermost operator) */
	struct rnum gpu_incl_ms;    /* with the kernels of operators nested in it */
	struct rnum share_of_stage; /* gpu_ms / stage gpu_ms, 0..1; derived when unset */
};

/* The operators of one class (NVTX category) in one stage together: every
 * LlamaAttention of every layer (docs/pytorch.md "Operator tables"). */
struct report_op_class {
	char *cls;
	char *stage;	    /* enclosing stage, or NULL */
	uint64_t operators; /* distinct operator ranges (module paths) */
	uint64_t calls;
	struct rnum gpu_ms;	    /* kernels its modules launched themselves */
	struct rnum gpu_incl_ms;    /* with nested modules' kernels, each kernel once */
	struct rnum share_of_stage; /* gpu_ms / stage kernel time, 0..1 */
};

struct report_selection {
	int available;		/* the select step ran */
	char *stage;		/* run.stage */
	uint64_t top_n;		/* run.top_n_kernels */
	double coverage_target; /* run.coverage, 0..1 */
	struct rnum coverage;	/* achieved share of stage kernel time, 0..1 */
	uint64_t nr_selected;
	uint64_t nr_candidates; /* distinct kernels in the stage */
	uint64_t nr_same_work;	/* classes a selected kernel's result stands for */
	char **reasons;		/* why selection stopped, skipped kernels, ... */
	size_t nr_reasons, alloc_reasons;
};

/* Peaks for the precision the model runs in (infer.dtype). */
struct report_peaks {
	char *precision;  /* "bf16" */
	char *device_key; /* hw table entry matched: "H100 SXM5 80GB"; NULL = none */
	struct rnum datasheet_tflops, datasheet_gbs;
	char *datasheet_source; /* "datasheet: NVIDIA H100 ...", "override hardware.peak_tflops" */
	/* 1: that datasheet_* figure is llmprof's estimate, not from the peak
	 * table or an override (an unknown GPU: SMs x clock x per-SM rate, or
	 * the bandwidth nsys reports); MFU/MBU against it say so */
	int tflops_estimated, gbs_estimated;
	struct rnum measured_tflops, measured_gbs;
	char *measured_source; /* "llmprof calibrate 2026-11-21T...", "override ..." */
	char **notes;	       /* warnings: SM count mismatch, unknown GPU, ... */
	size_t nr_notes, alloc_notes;
};

/* Timeline for the stage chart: lanes of [start, end) intervals. GPU lanes
 * may hold millions of intervals; the SVG writer bins them to pixels. */
enum lane_kind {
	LANE_RANGE, /* NVTX stage ranges (CPU time) */
	LANE_GPU,   /* kernels/memcpy on one stream */
};
struct report_interval {
	int64_t start_ns, end_ns;
	const char
	    *label; /* borrowed from the model's string pool (lane range names); may be NULL */
};
struct report_lane {
	char *name; /* "decode (NVTX)", "stream 7" */
	enum lane_kind kind;
	struct report_interval *iv;
	size_t nr, alloc;
};
struct report_timeline {
	int64_t t0_ns, t1_ns; /* extent; 0,0 = computed from the lanes */
	struct report_lane *lanes;
	size_t nr_lanes, alloc_lanes;
	char **labels; /* string pool for interval labels */
	size_t nr_labels, alloc_labels;
};

enum finding_severity {
	FINDING_INFO,
	FINDING_WARNING,  /* an inefficiency worth acting on */
	FINDING_CRITICAL, /* the dominant bottleneck, or data missing */
};

struct report_finding {
	enum finding_severity severity;
	char *code;	      /* stable id: "decode-launch-bound" */
	char *text;	      /* one sentence (bottleneck, with numbers) */
	char *recommendation; /* what to try; NULL when purely informative */
	/* the estimated time it would save (docs/report.md, "Estimated
	 * savings"): saving_ms per saving_unit ("token", "request"; NULL =
	 * no estimate) and over the whole profiled run, by which findings of
	 * one severity are ranked */
	struct rnum saving_ms, saving_run_ms;
	const char *saving_unit; /* a string literal */
};

/* One thing that could make the run's numbers wrong (the trust report,
 * analysis/trust.c; docs/report.md "Trust"). Only present items (count >
 * 0) are listed; one above its threshold is also a finding of the same
 * code. */
struct report_trust_item {
	const char *code;    /* stable id: "records-dropped" (a string literal) */
	char *what;	     /* what was seen, one phrase (owned) */
	uint64_t count;	     /* how many */
	uint64_t threshold;  /* a finding when count > threshold */
	const char *affects; /* what it makes wrong (a string literal) */
};
struct report_trust {
	int checked; /* a trace was analysed: an empty list means nothing found */
	struct report_trust_item *v;
	size_t nr, alloc;
};

/* The kernels of an Nsight Compute raw-page export read alone (`report
 * --ncu-csv RAW.csv` without a trace): kernels.md then shows the export's
 * (name, launch configuration) groups with their counters. */
struct report_ncu_export {
	int available;		   /* the model's kernels are such groups */
	char *source;		   /* the export as named */
	uint64_t launches;	   /* its results */
	double total_ns;	   /* summed durations of the results that have one */
	uint64_t missing_duration; /* results without gpu__time_duration.sum */
	size_t max_rows;	   /* rows kernels.md shows (0 = all); a last row sums the rest */
};

/* Ranks: one process of a multi-process trace (analysis/ranks.c), filled
 * only when kernels ran in more than one process; nr == 0 otherwise, and
 * every other part of the model is then the whole run as before. With
 * several processes the model's stages, kernels and operators are the "all
 * processes" view (instances summed over processes), and these are each
 * process's own, computed by the same code on its part of the trace. */
struct report_rank_stage {
	int found;				      /* the stage ran in this process */
	uint64_t instances, kernels, steps;	      /* steps: decode_step ranges */
	struct rnum cpu_ms, gpu_ms, busy_ms, idle_ms; /* as struct report_stage */
	struct rnum step_p50_ms, step_p90_ms, step_max_ms;
	/* the rank's share of the model's work (report_ranks.util_split) and
	 * what it reaches against the peaks in its own stage time, as
	 * struct report_stage; unavailable when the share is unknown */
	struct rnum flops, bytes;
	struct rnum mfu_datasheet, mfu_measured, mbu_datasheet, mbu_measured;
};
struct report_rank_kernel {
	char *name;
	uint64_t calls, total_ns;
};
struct report_rank_op {
	char *name, *stage; /* stage NULL = none */
	uint64_t calls;
	struct rnum gpu_ms;
};
/* NCCL collectives across ranks (analysis/collectives.h through
 * analysis/ranks.c; docs/collectives.md has the method). Times in ns; waits
 * and transfers count matched calls only, in the aligned clock. */
struct report_coll_type {
	char *type; /* "AllReduce", ... */
	uint64_t calls, matched;
	int64_t total_ns, wait_ns, transfer_ns;
};
struct report_coll_stage {
	char *stage; /* "prefill", "decode" */
	uint64_t windows;
	int64_t window_ns, comm_ns, exposed_ns; /* comm/exposed: inside the windows */
};
struct report_rank_coll {
	uint64_t calls, unmatched;
	int64_t comm_ns, exposed_ns, wait_ns, transfer_ns;
	int64_t clock_offset_ns;	/* subtracted from its times to align them */
	int host;			/* index into report_collectives.hosts */
	struct report_coll_type *types; /* types it called, in enum order (owned) */
	size_t nr_types;
	struct report_coll_stage *stages; /* owned */
	size_t nr_stages;
};
struct report_coll_straggler {
	int rank_index; /* into report_ranks.v */
	uint64_t count; /* matched collectives it arrived last in */
	int64_t late_ns;
	double mean_late_ns, share; /* share: count / matched collectives */
};
/* A rank arriving last in one stage, with its lateness and its cause
 * (analysis/collectives_cause.h has the method). Deltas: its value minus
 * the other ranks' median, averaged over the collectives it was last in. */
struct report_coll_straggle {
	int rank_index;	    /* into report_ranks.v */
	char *stage;	    /* owned: "decode", "prefill", "outside stages" */
	uint64_t instances; /* matched collectives in the stage */
	uint64_t count;	    /* of them, those it arrived last in */
	/* lateness (ns) where it was last, in all, in the first steps, in the rest */
	struct report_late {
		uint64_t n;
		double mean_ns, p50_ns, p90_ns, max_ns;
	} late, early, steady;
	int early_by_steps;	  /* 1: early = the first 2 decode steps; 0: the first tenth */
	uint64_t early_instances; /* the stage's collectives in that early part */
	uint64_t explained;	  /* collectives the deltas average over */
	double busy_ns, idle_ns, kernels;
	double lag_ns, others_lag_ns; /* launch -> GPU start; NAN when launch times are unknown */
	double busy_med_ns;
	uint64_t extra_n; /* collectives before which it ran more kernels than the others */
	double extra_busy_ns, extra_kernels;
	char *cause; /* owned: "host", "GPU", "other" */
};
struct report_coll_host {
	char *name; /* NULL = not recorded (every such rank shares one clock) */
	uint64_t ranks, samples;
	int64_t offset_ns, residual_ns;
	int aligned; /* offset estimated, or the reference host (the first) */
};
struct report_coll_mismatch {
	char *type;
	uint64_t stream, min_calls, max_calls, ranks_short;
	int min_rank, max_rank; /* indexes into report_ranks.v */
};
/* One (process, collective type) of the NCCL API calls the trace's NVTX
 * ranges of domain "NCCL" record, with what their extended payloads say
 * (analysis/ncclapi.c; docs/collectives.md "Bytes"). Filled with one
 * process too. */
struct report_nccl_api {
	char *label;	   /* the process: "rank 0", "pid 4242" (owned) */
	char *type;	   /* "AllReduce", ... (owned) */
	char *op;	   /* reduction operation all its calls name, else NULL (owned) */
	uint64_t calls;	   /* NCCL API calls */
	uint64_t sized;	   /* of them, with a message size */
	uint64_t bytes;	   /* their summed message sizes, as NCCL records them */
	uint64_t launched; /* calls that launched an NCCL kernel (inside the range, same thread) */
	uint64_t kernels;  /* NCCL kernels those launched */
	int64_t kernel_ns; /* their summed durations */
	int nranks;	   /* communicator size; 0 = unknown, -1 = differs between calls */
	struct rnum algbw_gbs, busbw_gbs; /* over calls sized and launched, 1e9 bytes/s */
};

struct report_collectives {
	/* NCCL API calls and their bytes (report_nccl_api), in process then
	 * type order; bytes_why: NULL when sizes were read, else why they are
	 * unknown ("nsys export without --include-blobs", ...) */
	struct report_nccl_api *api; /* owned */
	size_t nr_api;
	char *bytes_why;
	int available;		   /* some rank ran an NCCL kernel */
	uint64_t calls, instances; /* NCCL kernels; collectives matched across ranks */
	struct report_coll_straggler *stragglers; /* most often last first (owned) */
	size_t nr_stragglers;
	struct report_coll_straggle *straggles; /* per stage, with causes (owned) */
	size_t nr_straggles;
	struct report_coll_host *hosts; /* owned */
	size_t nr_hosts;
	int64_t residual_median_ns, residual_max_ns;
	uint64_t residual_samples;
	struct report_coll_mismatch *mismatches; /* owned */
	size_t nr_mismatches;
	/* the module's findings, added to the model's by findings_run() */
	struct report_finding *findings;
	size_t nr_findings;
};

struct report_rank {
	int64_t pid;
	int rank;		     /* -1 = the launcher gave none: the pid identifies it */
	int local_rank, world_size;  /* -1 = not recorded */
	char *label;		     /* "rank 1", or "pid 4242" without a rank */
	char *host, *launcher, *gpu; /* NULL = not recorded; gpu: "GPU 0" (most kernels) */
	char *rank_source; /* where rank came from: "RANK", "SLURM_PROCID", ..., "NCCL" (its
			      communicator-init payloads), "pid" (none) */
	struct report_rank_stage stages[REPORT_ROLE_OTHER]; /* by enum report_role */
	struct rnum ttft_ms, tpot_ms;
	struct rnum gpu_span_ms, gpu_busy_ms; /* as struct report_aggregates, this process */
	uint64_t kernels, kernel_ns;
	struct report_rank_kernel *kern; /* by GPU time, descending (owned) */
	size_t nr_kern;
	struct report_rank_op *ops; /* by GPU time, descending (owned) */
	size_t nr_ops;
	int slowest;		      /* the cross-rank slowest (report_ranks.slowest) */
	struct report_rank_coll coll; /* its NCCL collectives (report_collectives) */
};
/* min / median / max of one number across the ranks that have it. */
struct report_spread {
	struct rnum min, med, max;
	int max_rank; /* index into ranks.v of the max, -1 none */
};
/* How the model's work (config model.*, workload/analytic.json) is shared
 * by the ranks, for per-rank MFU/MBU (analysis/ranks_util.c). */
enum report_rank_split {
	RANK_SPLIT_NONE,    /* no model work known: nothing to share */
	RANK_SPLIT_REPLICA, /* no NCCL collectives: each process runs the whole model */
	RANK_SPLIT_GROUP,   /* every collective matched across all ranks: one
			       model-parallel group, each rank 1/nr of the work */
	RANK_SPLIT_UNKNOWN, /* collectives that do not match across all ranks */
};

struct report_ranks {
	struct report_rank *v; /* by rank, ranked processes first, then by pid */
	size_t nr, alloc;
	int identified; /* the trace recorded identities (LLMPROF_PROCESSES) */
	/* per stage role: GPU span and decode step p50 across ranks */
	struct report_spread stage_gpu[REPORT_ROLE_OTHER];
	struct report_spread step_p50;
	int slowest;	  /* index into v, -1 none */
	char *slowest_by; /* "last arrival at collectives", "decode GPU span",
			     "prefill GPU span", "GPU span" */
	struct report_collectives coll;
	enum report_rank_split util_split;
	char *util_basis; /* the split in one sentence; NULL with RANK_SPLIT_NONE */
};

/* The CPU sampler's own cost (docs/report.md "CPU samples"), summed over
 * the processes whose sampler wrote its totals (0 processes: none, or no
 * sampling): the time inside its signal handler over its calls, and the
 * CPU time their samples stand for. */
/* What tracing cost the program (docs/tracer.md "What tracing costs"):
 * basis as trace/tracercost.h's enum trace_cost_basis (0: no trace, 1:
 * measured, 2: an llmprof trace without the record, 3: nsys's). */
struct report_tracer_cost {
	int basis;
	uint64_t processes, hooks, background;
	struct rnum hooks_ms, background_ms, cpu_ms, wall_ms, api_ms, nvtx_ms;
	/* reference.json (pipeline.trace.reference_run_max_s): the program's
	 * wall time traced and untraced, one run each; unavailable without */
	struct rnum ref_traced_s, ref_untraced_s;
};

struct report_cpu_sampler {
	uint64_t processes, calls;
	struct rnum handler_ms, sampled_ms;
};

/* What the PyTorch startup module's log says (docs/pytorch.md "The log"),
 * every process of the run together; analysis/pytorch_log.c fills it. */
struct report_pytorch {
	int given;	    /* the workload was given the module (logs/workload.env) */
	int have_log;	    /* logs/pytorch.log was read */
	char *log_err;	    /* it could not be read: why (owned), else NULL */
	char *torch;	    /* torch's version, the first process's (owned) */
	char *failure;	    /* the first error line's message (owned), else NULL */
	uint64_t processes; /* whose hooks were installed */
	uint64_t ops;	    /* whose ATen ranges were on */
	uint64_t failed;    /* error lines: ranges an error turned off (or never on) */
	uint64_t auto_procs, auto_off, auto_kept; /* under auto: all, off, kept at exit */
	double budget_pct; /* auto's budget, as its process read it (% slower) */
	/* The cost lines the processes wrote at exit, summed: module calls,
	 * ranges pushed, ms in the hooks' bodies, calls x each process's
	 * calibrated hooked call path (ms), the estimate (the two together)
	 * and the wall time since each one's first module call. costed_old:
	 * lines of an older llmprof, which timed the bodies only (their calls,
	 * ranges and hook_ms are in the sums, the rest is not) */
	uint64_t costed, costed_old;
	uint64_t calls, ranges;
	double hook_ms, path_ms, est_ms, wall_ms;
};

/* The mode the log shows: "never_on" (no process installed the hooks),
 * "auto", "ops" or "modules". */
static inline const char *report_pytorch_mode(const struct report_pytorch *p)
{
	return !p->processes ? "never_on" : p->auto_procs ? "auto" : p->ops ? "ops" : "modules";
}

/* The slowdown the costed processes' estimates make of their wall time,
 * est / (wall - est) (a fraction: 0.21 = 21 % slower), capped at 100;
 * unavailable without an estimate. As the startup module computes it
 * (pytorch/_llmprof_pytorch.py, _slowdown()). */
static inline struct rnum report_pytorch_slowdown(const struct report_pytorch *p)
{
	double base = p->wall_ms - p->est_ms;

	if (p->costed <= p->costed_old || !(p->wall_ms > 0))
		return RNUM_NONE;
	if (!(p->est_ms > 0))
		return rnum_of(0.0);
	return rnum_of(base <= 0 || p->est_ms >= 100 * base ? 100.0 : p->est_ms / base);
}

struct report_model {
	struct report_ncu_export ncu;
	struct report_ranks ranks;
	struct report_run run;
	struct report_env env;
	struct report_llm llm;
	struct report_stage *stages;
	size_t nr_stages, alloc_stages;
	struct report_aggregates agg;
	struct report_kernel *kernels;
	size_t nr_kernels, alloc_kernels;
	/* run.report_rows: rows of each kernel and operator table the reports
	 * and metrics.json show, the last one summing the rest; 0 = all.
	 * kernels.tsv has every kernel */
	size_t table_rows;
	struct report_operator *ops;
	size_t nr_ops, alloc_ops;
	struct report_op_class *op_classes; /* by gpu_ms, descending */
	size_t nr_op_classes, alloc_op_classes;
	struct report_selection sel;
	struct report_peaks peaks;
	struct report_timeline timeline;
	struct report_finding *findings;
	size_t nr_findings, alloc_findings;
	struct report_trust trust;
	struct report_cpu_sampler cpu_sampler;
	struct report_tracer_cost tracer_cost;
	struct report_pytorch pytorch;
};

void report_model_init(struct report_model *m);

/* The counters of a kernel ncu did not measure: every field unavailable. */
extern const struct report_counters report_no_counters;
/* k's counters to write: allocated zeroed on the first call, owned by k
 * (freed by report_model_release()). */
struct report_counters *report_kernel_counters(struct report_kernel *k);

/* Rows of n a table bounded to rows (0 = all) lists one by one: n when
 * they fit, else rows - 1 (at least 1), the last row summing the rest. */
static inline size_t report_rows_shown(size_t rows, size_t n)
{
	if (!rows || n <= rows)
		return n;
	return rows > 1 ? rows - 1 : 1;
}

/* A stage's derived numbers (achieved rates, MFU/MBU against p, idle,
 * launches/s) from what is set; what is already available is kept.
 * report_model_derive() runs it on every stage. */
void report_stage_derive(struct report_stage *s, const struct report_peaks *p);
void report_model_release(struct report_model *m);
/* Frees the timeline's lanes alone (one interval per kernel: 8 M kernels
 * hold ~270 MB) once the charts are drawn. */
void report_model_release_timeline(struct report_model *m);

/* Frees *field and stores a copy of s (NULL allowed). */
void report_set_str(char **field, const char *s);

/* Append a zeroed element (numbers unavailable, strings NULL) and return it;
 * the pointer is valid until the next add of the same kind. */
struct report_step *report_model_add_step(struct report_model *m, const char *name,
					  enum step_state status, const char *reason);
struct report_stage *report_model_add_stage(struct report_model *m, const char *name,
					    enum report_role role);
struct report_kernel *report_model_add_kernel(struct report_model *m, const char *short_name,
					      const char *full_name);
/* The row of class cls in stage (NULL: none), added zeroed when new. */
struct report_op_class *report_model_op_class(struct report_model *m, const char *cls,
					      const char *stage);
struct report_operator *report_model_add_operator(struct report_model *m, const char *name,
						  const char *stage);
struct report_lane *report_model_add_lane(struct report_model *m, const char *name,
					  enum lane_kind kind);
void report_lane_add(struct report_lane *lane, int64_t start_ns, int64_t end_ns, const char *label);
void report_model_add_tool(struct report_model *m, const char *name, const char *version);
void report_model_add_note(struct report_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void report_model_add_reason(struct report_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void report_model_add_finding(struct report_model *m, enum finding_severity sev, const char *code,
			      const char *recommendation, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Appends a trust item (what formatted); the pointer is valid until the
 * next add. */
struct report_trust_item *report_model_add_trust(struct report_model *m, const char *code,
						 uint64_t count, uint64_t threshold,
						 const char *affects, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Lookups; NULL when absent. The first stage with the role wins. */
const struct report_stage *report_model_stage_by_role(const struct report_model *m,
						      enum report_role role);
const struct report_stage *report_model_stage_by_name(const struct report_model *m,
						      const char *name);
/* The first failed step, or NULL. */
const struct report_step *report_model_failed_step(const struct report_model *m);
/* The first interrupted step, or NULL: the run stopped there (its later
 * steps may still have run on what it kept). */
const struct report_step *report_model_interrupted_step(const struct report_model *m);
int report_model_finished(const struct report_model *m);
/* The first skipped step that leaves the reports without timings (any but
 * select, ncu and join, whose skip only leaves out counters), or NULL. */
const struct report_step *report_model_gap_step(const struct report_model *m);
/* Finished, and no step skipped that the reports need for their timings. */
int report_model_complete(const struct report_model *m);
/* How many counter results the join left unmatched (0 = none, or no
 * join); a run with any is finished but incomplete. */
size_t report_model_unjoined(const struct report_model *m);
/* run.state when the bundle gave one, else "complete", "incomplete"
 * (finished with a step skipped that the timings need), "interrupted" or
 * "failed". */
const char *report_model_state(const struct report_model *m);
/* The Device row: "CPU (no GPU found)", "CPU (device=cpu)"; NULL on a GPU. */
const char *report_device_label(enum report_device d);
/* 1 when the peak MFU (compute = 1) or MBU (compute = 0) divides by is
 * llmprof's estimate rather than a datasheet figure or an override. */
int report_peak_estimated(const struct report_model *m, int compute);

/* Fills what follows from other fields and is still unavailable: kernel
 * pct_gpu, counters ai/achieved/bound, operator share_of_stage, stage idle
 * and achieved rates, MFU/MBU against both peaks, TPOT/TTFT/tokens/s from the
 * stages. Sorts kernels by total time (desc, then name) and operators by GPU
 * time. Idempotent. */
void report_model_derive(struct report_model *m);

/* The time MFU/MBU of a stage divide by: its GPU projection (which includes
 * GPU idle gaps, so launch overhead lowers utilisation), else its NVTX wall
 * time; unavailable when neither is positive. */
struct rnum report_stage_time_ms(const struct report_stage *s);
/* The stage roles (bit 1 << REPORT_ROLE_*) whose launches the ncu step
 * profiled for run.stage `taken` ("prefill", "decode", "decode_step",
 * "all"; NULL = unknown, read as "all"), through its NVTX include filters. */
unsigned report_counter_roles(const char *taken);

const char *report_role_name(enum report_role role);
const char *kernel_bound_name(enum kernel_bound b);
const char *finding_severity_name(enum finding_severity s);

#endif
