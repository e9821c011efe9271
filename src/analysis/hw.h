/* hw.h: GPU peak numbers (dense datasheet figures), device matching, and the
 * MFU/MBU arithmetic.
 *
 * The table holds DENSE figures only: NVIDIA's datasheets list tensor-core
 * throughput "with sparsity", which is twice the dense rate and never a fair
 * MFU denominator. docs/report.md lists every entry with its source.
 *
 * Matching (hw_lookup) is on the device name the driver reports, made
 * case-insensitive and token-aware ("GH200" is not an H200, "RTX 4090 D" is
 * not an RTX 4090), with the SM count as a tiebreaker when the name leaves
 * the SKU open and as a sanity check otherwise (a mismatch, e.g. a MIG slice,
 * becomes a note). An unknown GPU gets no datasheet peak, except that for
 * compute capability 8.0, 9.0 and 10.0 the dense BF16 tensor peak is
 * estimated as SMs x clock x FLOP/clk/SM (documented as an estimate).
 *
 * Nothing here allocates except where a function says so. */
#ifndef LLMPROF_HW_H
#define LLMPROF_HW_H

#include "core/strbuf.h"
#include "model/model.h"

enum hw_precision {
	HW_BF16,
	HW_FP16,
	HW_FP8,
	HW_TF32,
	HW_FP32,
	HW_FP64,
};

struct hw_spec {
	const char *key;  /* "H100 SXM5 80GB" */
	const char *arch; /* "Hopper" */
	const char *cc;	  /* compute capability "9.0" */
	int sm_count;
	int boost_mhz; /* max boost clock from the datasheet/whitepaper; 0 = not listed */
	/* dense TFLOP/s; 0 = not offered or not listed */
	double bf16, fp16, fp8, tf32, fp32, fp64;
	double mem_gib;	    /* memory size as marketed (GB) */
	double bw_gbs;	    /* DRAM bandwidth, GB/s (10^9 B/s) */
	const char *source; /* where the figures come from */
	int confirmed;	    /* 1: figures checked against the source; 0: see note */
	const char *note;   /* caveats (accumulate precision, power mode, unconfirmed) */
};

/* The whole table, for docs and tests. */
const struct hw_spec *hw_table(size_t *n);

/* Finds the table entry for a device. sm_count 0 = unknown. Appends one
 * sentence per problem to notes (may be NULL): SM mismatch, unknown GPU.
 * Returns a pointer into the static table, or NULL. */
const struct hw_spec *hw_lookup(const char *gpu_name, int sm_count, struct strbuf *notes);

/* Dense peak for a precision from an entry; 0 when not listed. */
double hw_spec_tflops(const struct hw_spec *s, enum hw_precision p);

/* "bf16", "fp16", "fp8", "tf32", "fp32", "fp64" (also "float16", "bfloat16",
 * "float32", "half", "float"). 0 or -1 with err. */
int hw_precision_parse(const char *s, enum hw_precision *out, struct strbuf *err);
const char *hw_precision_name(enum hw_precision p);

/* Estimated dense BF16 tensor peak from SMs x clock x FLOP/clk/SM for
 * compute capabilities whose per-SM rate is fixed across SKUs (8.0: 2048,
 * 9.0: 4096, 10.0: 8192); 0 when unknown. */
double hw_estimate_bf16_tflops(const char *cc, int sm_count, double clock_mhz);

/* MFU = achieved FLOP/s / peak; MBU = achieved bytes/s / peak bandwidth.
 * Return -1 when an input is not positive (never a fake 0). */
double hw_mfu(double flops, double seconds, double peak_tflops);
double hw_mbu(double bytes, double seconds, double peak_gbs);

/* User overrides (config hardware.*); unavailable = not set. */
struct hw_overrides {
	struct rnum peak_tflops, peak_gbs;
	struct rnum measured_tflops, measured_gbs;
};

/* Measured ceilings from `llmprof calibrate` (analysis/calibration.h). */
struct calibration;

/* Fills m->peaks from m->env (gpu_name, sm_count, compute_capability,
 * sm_clock_mhz), m->llm.dtype (bf16 when unset), overrides (may be NULL) and
 * a calibration (may be NULL). Each number records its source; problems go
 * to m->peaks.notes. mem_bw_gbs: bandwidth the trace reports for the device
 * (nsys TARGET_INFO_GPU), used only for unknown GPUs; 0 = none. */
void hw_peaks_resolve(struct report_model *m, const struct hw_overrides *ov,
		      const struct calibration *cal, double mem_bw_gbs);

#endif
