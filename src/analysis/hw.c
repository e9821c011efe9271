/* hw.c: dense datasheet peak table, device-name matching, MFU/MBU. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "analysis/calibration.h"
#include "analysis/hw.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* Sources (sparse datasheet figures halved to dense):
 *  [H100] NVIDIA H100 Tensor Core GPU datasheet (SXM5 and PCIe columns):
 *         SXM5 FP64 TC 67, FP32 67, TF32 989*, BF16/FP16 1,979*, FP8 3,958*,
 *         3.35 TB/s; PCIe FP64 TC 51, FP32 51, TF32 756*, BF16 1,513*,
 *         FP8 3,026*, 2 TB/s, 114 SMs (* = with sparsity). Exact dense
 *         values 989.4/1978.9/494.7 = 132 SMs x 4096 (8192, 2048) FLOP/clk/SM
 *         x 1.83 GHz (H100 whitepaper); see reference anchors-field.md E1.
 *  [H100NVL] NVIDIA H100 product page, H100 NVL column: FP64 TC 60, FP32 60,
 *         TF32 835*, BF16 1,671*, FP8 3,341*, 94 GB, 3.9 TB/s.
 *  [H200] NVIDIA H200 product page: SXM BF16 1,979*, FP8 3,958*, 141 GB,
 *         4.8 TB/s; NVL BF16 1,671*, FP8 3,341*, 4.8 TB/s.
 *  [A100] NVIDIA A100 datasheet: FP64 TC 19.5, FP32 19.5, TF32 156,
 *         BF16/FP16 312 (dense), 108 SMs; 80GB SXM 2,039 GB/s, 80GB PCIe
 *         1,935 GB/s, 40GB 1,555 GB/s.
 *  [L40S] NVIDIA L40S datasheet: FP32 91.6, TF32 183 (366*), BF16/FP16
 *         362.05 (733*), FP8 733 (1,466*), 48 GB GDDR6, 864 GB/s, 142 SMs.
 *  [ADA]  NVIDIA Ada (AD102) whitepaper, RTX 4090: FP16/BF16 tensor with FP32
 *         accumulate 165.2 dense (330.3 with FP16 accumulate), FP8 330.3,
 *         TF32 82.6, FP32 82.6, 1,008 GB/s, 128 SMs, 2,520 MHz boost.
 *  [BW]   NVIDIA RTX Blackwell (GB202) whitepaper, RTX 5090: FP16/BF16
 *         tensor with FP32 accumulate 209.5 dense, FP8 419, TF32 104.8,
 *         FP32 104.8, 1,792 GB/s, 170 SMs, 2,407 MHz boost.
 *  [B200] NVIDIA HGX B200 figures per GPU at 1,000 W (as tabulated by
 *         glennklockwood.com/garden/processors/B200): BF16/FP16 2,250,
 *         FP8 4,500, TF32 1,100, FP32 80, FP64 40, 8 TB/s.
 * Entries marked confirmed = 0 could not be re-checked against a primary
 * source while writing this table; docs/report.md says which. */
static const struct hw_spec table[] = {
    {"H100 SXM5 80GB", "Hopper", "9.0", 132, 1980, 989.4, 989.4, 1978.9, 494.7, 66.9, 66.9, 80,
     3350, "NVIDIA H100 datasheet (SXM5)", 1, NULL},
    {"H100 PCIe 80GB", "Hopper", "9.0", 114, 1755, 756.5, 756.5, 1513.0, 378.0, 51.0, 51.0, 80,
     2000, "NVIDIA H100 datasheet (PCIe)", 1, NULL},
    {"H100 NVL 94GB", "Hopper", "9.0", 132, 1785, 835.5, 835.5, 1670.5, 417.5, 60.0, 60.0, 94, 3900,
     "NVIDIA H100 product page (NVL)", 0, "H100 NVL figures not re-checked against the datasheet"},
    {"H200 SXM 141GB", "Hopper", "9.0", 132, 1980, 989.4, 989.4, 1978.9, 494.7, 66.9, 66.9, 141,
     4800, "NVIDIA H200 product page (SXM)", 1, NULL},
    {"H200 NVL 141GB", "Hopper", "9.0", 132, 0, 835.5, 835.5, 1670.5, 417.5, 60.0, 60.0, 141, 4800,
     "NVIDIA H200 product page (NVL)", 1,
     "TF32/FP32/FP64 taken from the H100 NVL column (same 600 W class)"},
    {"A100 SXM4 80GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 80, 2039,
     "NVIDIA A100 datasheet (80GB SXM)", 1, NULL},
    {"A100 SXM4 40GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 40, 1555,
     "NVIDIA A100 datasheet (40GB SXM)", 0, "40GB bandwidth not re-checked against the datasheet"},
    {"A100 PCIe 80GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 80, 1935,
     "NVIDIA A100 datasheet (80GB PCIe)", 1, NULL},
    {"A100 PCIe 40GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 40, 1555,
     "NVIDIA A100 datasheet (40GB PCIe)", 0, "40GB bandwidth not re-checked against the datasheet"},
    {"L40S", "Ada Lovelace", "8.9", 142, 2520, 362.05, 362.05, 733.0, 183.0, 91.6, 0, 48, 864,
     "NVIDIA L40S datasheet", 1, "no FP64 figure in the datasheet (1/64 rate)"},
    {"GeForce RTX 4090", "Ada Lovelace", "8.9", 128, 2520, 165.2, 165.2, 330.3, 82.6, 82.6, 0, 24,
     1008, "NVIDIA Ada GPU architecture whitepaper (RTX 4090)", 1,
     "BF16/FP16 with FP32 accumulate (330.3 with FP16 accumulate)"},
    {"GeForce RTX 5090", "Blackwell", "12.0", 170, 2407, 209.5, 209.5, 419.0, 104.8, 104.8, 0, 32,
     1792, "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090)", 0,
     "BF16/FP16 with FP32 accumulate; figures not re-checked against the whitepaper"},
    {"B200", "Blackwell", "10.0", 148, 0, 2250.0, 2250.0, 4500.0, 1100.0, 80.0, 40.0, 180, 8000,
     "NVIDIA HGX B200 specifications (per GPU, 1000 W)", 0,
     "SM count (148) from third-party tables; HGX figures (GB200 runs higher clocks)"},
};

const struct hw_spec *hw_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

static const struct hw_spec *by_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].key, key))
			return &table[i];
	BUG("no hw table entry '%s'", key);
}

/* " NVIDIA A100 SXM4 80GB ": upper case, every run of non-alphanumerics one
 * space, padded with spaces so tokens can be searched as " X ". */
static void normalize(struct strbuf *sb, const char *name)
{
	int space = 1;
	char *q;

	/* a byte out per byte in at most, and a space each side */
	strbuf_grow(sb, strlen(name) + 2);
	q = sb->buf + sb->len;
	*q++ = ' ';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (isalnum(*p)) {
			*q++ = (char)toupper(*p);
			space = 0;
		} else if (!space) {
			*q++ = ' ';
			space = 1;
		}
	}
	if (!space)
		*q++ = ' ';
	strbuf_setlen(sb, (size_t)(q - sb->buf));
}

static int has_tok(const char *norm, const char *tok)
{
	char pat[32];

	snprintf(pat, sizeof(pat), " %s ", tok);
	return strstr(norm, pat) != NULL;
}

static const struct hw_spec *match_name(const char *norm, int sm, const char **assumed)
{
	*assumed = NULL;
	if (has_tok(norm, "LAPTOP") || has_tok(norm, "MOBILE"))
		return NULL;
	if (has_tok(norm, "H200"))
		return by_key(has_tok(norm, "NVL") ? "H200 NVL 141GB" : "H200 SXM 141GB");
	if (has_tok(norm, "H100")) {
		if (has_tok(norm, "NVL"))
			return by_key("H100 NVL 94GB");
		if (has_tok(norm, "PCIE"))
			return by_key("H100 PCIe 80GB");
		if (has_tok(norm, "SXM5") || has_tok(norm, "SXM") || has_tok(norm, "HBM3"))
			return by_key("H100 SXM5 80GB");
		if (sm == 114)
			return by_key("H100 PCIe 80GB");
		if (sm != 132)
			*assumed = "the name does not say SXM, PCIe or NVL; assumed SXM5";
		return by_key("H100 SXM5 80GB");
	}
	if (has_tok(norm, "A100")) {
		int pcie = has_tok(norm, "PCIE");
		int gb40 = has_tok(norm, "40GB");

		if (!gb40 && !has_tok(norm, "80GB"))
			*assumed = "the name does not give the memory size; assumed 80GB";
		if (pcie)
			return by_key(gb40 ? "A100 PCIe 40GB" : "A100 PCIe 80GB");
		return by_key(gb40 ? "A100 SXM4 40GB" : "A100 SXM4 80GB");
	}
	if (has_tok(norm, "L40S"))
		return by_key("L40S");
	if (strstr(norm, " RTX 4090 ") && !strstr(norm, " 4090 D "))
		return by_key("GeForce RTX 4090");
	if (strstr(norm, " RTX 5090 ") && !strstr(norm, " 5090 D "))
		return by_key("GeForce RTX 5090");
	if (has_tok(norm, "B200"))
		return by_key("B200");
	return NULL;
}

const struct hw_spec *hw_lookup(const char *gpu_name, int sm_count, struct strbuf *notes)
{
	struct strbuf norm = STRBUF_INIT;
	const struct hw_spec *s = NULL;
	const char *assumed;

	if (!gpu_name || !*gpu_name) {
		if (notes)
			strbuf_addstr(notes,
				      "the GPU name is unknown, so no datasheet peak applies. ");
		return NULL;
	}
	normalize(&norm, gpu_name);
	s = match_name(norm.buf, sm_count, &assumed);
	strbuf_release(&norm);
	if (!notes)
		return s;
	if (!s) {
		strbuf_addf(notes, "'%s' is not in the peak table, so no datasheet peak applies. ",
			    gpu_name);
		return NULL;
	}
	if (assumed)
		strbuf_addf(notes, "'%s': %s. ", gpu_name, assumed);
	if (sm_count > 0 && sm_count != s->sm_count)
		strbuf_addf(notes,
			    "'%s' reports %d SMs but the %s datasheet entry has %d (MIG slice or "
			    "another SKU?); datasheet peaks may not apply. ",
			    gpu_name, sm_count, s->key, s->sm_count);
	return s;
}

double hw_spec_tflops(const struct hw_spec *s, enum hw_precision p)
{
	switch (p) {
	case HW_BF16:
		return s->bf16;
	case HW_FP16:
		return s->fp16;
	case HW_FP8:
		return s->fp8;
	case HW_TF32:
		return s->tf32;
	case HW_FP32:
		return s->fp32;
	case HW_FP64:
		return s->fp64;
	}
	return 0;
}

static const struct {
	const char *name;
	enum hw_precision p;
} precision_names[] = {
    {"bf16", HW_BF16},	  {"bfloat16", HW_BF16}, {"fp16", HW_FP16}, {"float16", HW_FP16},
    {"half", HW_FP16},	  {"fp8", HW_FP8},	 {"tf32", HW_TF32}, {"fp32", HW_FP32},
    {"float32", HW_FP32}, {"float", HW_FP32},	 {"fp64", HW_FP64}, {"float64", HW_FP64},
    {"double", HW_FP64},
};

int hw_precision_parse(const char *s, enum hw_precision *out, struct strbuf *err)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(precision_names); i++)
		if (!strcasecmp(s, precision_names[i].name)) {
			*out = precision_names[i].p;
			return 0;
		}
	return error_set(err,
			 "unknown precision '%s' (expected bf16, fp16, fp8, tf32, fp32 or fp64)",
			 s ? s : "");
}

const char *hw_precision_name(enum hw_precision p)
{
	static const char *const names[] = {"bf16", "fp16", "fp8", "tf32", "fp32", "fp64"};
	return (size_t)p < ARRAY_SIZE(names) ? names[p] : "?";
}

double hw_estimate_bf16_tflops(const char *cc, int sm_count, double clock_mhz)
{
	double per_sm = 0;

	if (!cc || sm_count <= 0 || clock_mhz <= 0)
		return 0;
	if (!strcmp(cc, "8.0"))
		per_sm = 2048;
	else if (!strcmp(cc, "9.0"))
		per_sm = 4096;
	else if (!strcmp(cc, "10.0"))
		per_sm = 8192;
	return per_sm * sm_count * clock_mhz * 1e6 / 1e12;
}

double hw_mfu(double flops, double seconds, double peak_tflops)
{
	if (!(flops > 0) || !(seconds > 0) || !(peak_tflops > 0))
		return -1;
	return flops / seconds / (peak_tflops * 1e12);
}

double hw_mbu(double bytes, double seconds, double peak_gbs)
{
	if (!(bytes > 0) || !(seconds > 0) || !(peak_gbs > 0))
		return -1;
	return bytes / seconds / (peak_gbs * 1e9);
}

static void add_notes(struct report_model *m, struct strbuf *notes)
{
	/* notes is a run of sentences, each ending in ". " */
	char *p = notes->buf, *e;

	while ((e = strstr(p, ". "))) {
		*e = '\0';
		if (*p)
			report_model_add_note(m, "%s", p);
		p = e + 2;
	}
	strbuf_reset(notes);
}

void hw_peaks_resolve(struct report_model *m, const struct hw_overrides *ov,
		      const struct calibration *cal, double mem_bw_gbs)
{
	struct report_peaks *pk = &m->peaks;
	struct strbuf notes = STRBUF_INIT, src = STRBUF_INIT, err = STRBUF_INIT;
	enum hw_precision prec = HW_BF16;
	const struct hw_spec *s;
	const char *bw_src = NULL;
	int tflops_from_spec = 0;
	double est;

	if (m->llm.dtype && hw_precision_parse(m->llm.dtype, &prec, &err)) {
		report_model_add_note(m, "%s; peaks are for bf16", err.buf);
		prec = HW_BF16;
	}
	report_set_str(&pk->precision, hw_precision_name(prec));
	pk->datasheet_tflops = pk->datasheet_gbs = RNUM_NONE;
	pk->measured_tflops = pk->measured_gbs = RNUM_NONE;

	s = hw_lookup(m->env.gpu_name, m->env.sm_count, &notes);
	add_notes(m, &notes);
	report_set_str(&pk->device_key, s ? s->key : NULL);
	if (s) {
		double t = hw_spec_tflops(s, prec);

		if (t > 0) {
			pk->datasheet_tflops = rnum_of(t);
			tflops_from_spec = 1;
			strbuf_addf(&src, "%s, dense %s: %s", s->key, hw_precision_name(prec),
				    s->source);
		} else {
			report_model_add_note(m, "the %s datasheet lists no dense %s figure",
					      s->key, hw_precision_name(prec));
		}
		pk->datasheet_gbs = rnum_of(s->bw_gbs);
		bw_src = s->source;
		if (!s->confirmed && s->note)
			report_model_add_note(m, "%s: %s", s->key, s->note);
	} else if ((prec == HW_BF16 || prec == HW_FP16) &&
		   (est = hw_estimate_bf16_tflops(
			m->env.compute_capability, m->env.sm_count,
			m->env.sm_clock_mhz.available ? m->env.sm_clock_mhz.v : 0)) > 0) {
		pk->datasheet_tflops = rnum_of(est);
		strbuf_addf(&src,
			    "estimate: %d SMs x %.0f MHz x FLOP/clk/SM of compute capability %s",
			    m->env.sm_count, m->env.sm_clock_mhz.v, m->env.compute_capability);
	}
	if (!s && mem_bw_gbs > 0) {
		pk->datasheet_gbs = rnum_of(mem_bw_gbs);
		bw_src = "trace TARGET_INFO_GPU";
	}
	if (ov && ov->peak_tflops.available) {
		pk->datasheet_tflops = ov->peak_tflops;
		strbuf_reset(&src);
		strbuf_addstr(&src, "override hardware.peak_tflops");
		tflops_from_spec = 0;
	}
	if (ov && ov->peak_gbs.available) {
		pk->datasheet_gbs = ov->peak_gbs;
		bw_src = "override hardware.peak_bandwidth_gbs";
	}
	/* name the bandwidth's source unless it is the spec already cited */
	if (bw_src && !(tflops_from_spec && s && !strcmp(bw_src, s->source)))
		strbuf_addf(&src, "%sbandwidth: %s", src.len ? "; " : "", bw_src);
	report_set_str(&pk->datasheet_source, src.len ? src.buf : NULL);

	strbuf_reset(&src);
	if (cal) {
		if (prec == HW_BF16 || prec == HW_FP16) {
			pk->measured_tflops = rnum_of(cal->gemm_tflops);
		} else {
			report_model_add_note(
			    m, "the calibrated GEMM ceiling is bf16; not used for %s",
			    hw_precision_name(prec));
		}
		pk->measured_gbs = rnum_of(cal->copy_gbs);
		strbuf_addf(&src, "llmprof calibrate%s%s", cal->created_at ? " " : "",
			    cal->created_at ? cal->created_at : "");
	}
	if (ov && ov->measured_tflops.available) {
		pk->measured_tflops = ov->measured_tflops;
		strbuf_addf(&src, "%soverride hardware.measured_tflops", src.len ? "; " : "");
	}
	if (ov && ov->measured_gbs.available) {
		pk->measured_gbs = ov->measured_gbs;
		strbuf_addf(&src, "%soverride hardware.measured_bandwidth_gbs",
			    src.len ? "; " : "");
	}
	report_set_str(&pk->measured_source, src.len ? src.buf : NULL);
	if (!pk->measured_tflops.available && !pk->measured_gbs.available)
		report_model_add_note(m,
				      "no measured ceilings: run 'llmprof calibrate' on this GPU");
	strbuf_release(&notes);
	strbuf_release(&src);
	strbuf_release(&err);
}
