/* findings.h: the recommendation engine. Threshold rules over a derived
 * report model (report_model_derive() first) that produce findings citing
 * the numbers they rest on. A rule whose numbers are unavailable stays
 * silent: nothing generic is ever emitted. docs/report.md documents every
 * rule and threshold. */
#ifndef LLMPROF_FINDINGS_H
#define LLMPROF_FINDINGS_H

#include "model/model.h"

/* Thresholds (fractions 0..1 unless the name says PCT). */
#define FINDINGS_DECODE_MBU_LOW 0.60	    /* well-tuned decode reaches 0.75-0.85 */
#define FINDINGS_IDLE_SHARE_HIGH 0.20	    /* GPU idle / stage GPU span */
#define FINDINGS_PREFILL_MFU_LOW 0.40	    /* tuned prefill GEMMs reach 0.5-0.7 */
#define FINDINGS_KERNEL_DOMINANT_SHARE 0.30 /* one kernel's share of its stage's kernel time */
#define FINDINGS_OUTSIDE_SHARE 0.05	    /* kernel time outside every stage / all kernel time */
#define FINDINGS_DRAM_SOL_LOW_PCT 60.0	    /* memory-bound kernel not near DRAM peak */
#define FINDINGS_MAX_KERNELS_NAMED 3
#define FINDINGS_SETUP_CPU_MS 20.0     /* a stage this long on the CPU ... */
#define FINDINGS_SETUP_BUSY_SHARE 0.05 /* ... with the GPU busy under this share of it */
#define FINDINGS_SETUP_LAUNCH_RATE 5.0 /* ... and fewer kernels per CPU ms (more: launch-bound) */
/* counter FLOPs of a stage's profiled kernels above this multiple of the
 * model's FLOPs for the whole stage: the GPU executes work the model does
 * not need (a lower bound already above the model cannot be noise) */
#define FINDINGS_COUNTER_FLOPS_EXCESS 1.5
/* counter FLOPs of a stage off by more than this factor, either way, from
 * the model's: a warning (the counters do not describe the stage) */
#define FINDINGS_COUNTER_FLOPS_FAR 2.0
/* the longest kernels (GPU time in the counters' stage) that must have a
 * Bound once counters were taken */
#define FINDINGS_TOP_BOUND 5

/* GPU idle share of a stage's span at or above FINDINGS_IDLE_SHARE_HIGH with
 * at least this many kernels per CPU ms: launch-bound whatever the model
 * (fewer: stage-setup-bound) */
#define FINDINGS_LAUNCH_RATE_MIN FINDINGS_SETUP_LAUNCH_RATE
/* ... and at least this much idle time in the stage (less saves nothing) */
#define FINDINGS_LAUNCH_IDLE_MS_MIN 1.0
/* a family of kernels (the name's leading words before the first with a
 * digit: nvjet_sm90_tst_128x64_... -> nvjet) above this share of its
 * stage's kernel time */
#define FINDINGS_FAMILY_SHARE FINDINGS_KERNEL_DOMINANT_SHARE
/* a memory-bound kernel below this share of the measured DRAM ceiling, a
 * tensor-core kernel below this share of the measured GEMM ceiling */
#define FINDINGS_DRAM_CEILING_LOW 0.60
#define FINDINGS_GEMM_CEILING_LOW 0.40

/* Replaces m->findings with the findings of every rule, critical first,
 * then warnings, then info; within a severity, in rule order. */
void findings_run(struct report_model *m);

/* Orders m->findings: critical first, then warnings, then info; within a
 * severity by estimated saving over the run (largest first, findings
 * without one last), then in rule order. findings_run() calls it; call it
 * again after adding findings. */
void findings_rank(struct report_model *m);

#endif
