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
 *  [GB200] NVIDIA GB200 NVL72 specifications, rack figures (with sparsity)
 *         halved and divided by 72 GPUs: BF16/FP16 360 PF -> 2,500, FP8
 *         720 PF -> 5,000, TF32 180 PF -> 1,250, 576 TB/s -> 8 TB/s.
 *  [H20]  NVIDIA HGX H20 product brief: FP16/BF16 148 (dense), FP8 296,
 *         TF32 74, FP32 44, FP64 1, 96 GB HBM3, 4.0 TB/s, 78 SMs.
 *  [H800] NVIDIA H800 datasheet: the H100 SXM5/PCIe figures with FP64 cut
 *         to 1 (SXM) / 0.8 (PCIe) TFLOP/s; 3.35 / 2 TB/s.
 *  [GH200] NVIDIA GH200 Grace Hopper Superchip datasheet: the H100 SXM
 *         tensor figures; 96 GB HBM3 4 TB/s or 144 GB HBM3e 4.9 TB/s.
 *  [L40]  NVIDIA L40 datasheet: FP32 90.5, TF32 90.5 (181*), BF16/FP16
 *         181.05 (362.1*), FP8 362 (724*), 48 GB, 864 GB/s.
 *  [L4]   NVIDIA L4 datasheet: FP32 30.3, TF32 120*, BF16/FP16 242*, FP8
 *         485*, 24 GB, 300 GB/s; 58 SMs (7,424 CUDA cores).
 *  [A10]  NVIDIA A10 datasheet: FP32 31.2, TF32 62.5 (125*), BF16/FP16 125
 *         (250*), 24 GB, 600 GB/s. [A40] NVIDIA A40 datasheet: FP32 37.4,
 *         TF32 74.8 (149.6*), BF16/FP16 149.7 (299.4*), 48 GB, 696 GB/s.
 *  [A10G] AWS EC2 G5 specifications: 24 GB, 600 GB/s. NVIDIA publishes no
 *         A10G datasheet, so there is no tensor figure to cite.
 *  [T4]   NVIDIA T4 datasheet: mixed precision (FP16/FP32) 65, FP32 8.1,
 *         16 GB, 320 GB/s (Turing: no BF16, no sparsity).
 *  [V100] NVIDIA V100 datasheet: tensor 125 (SXM2) / 112 (PCIe) / 130
 *         (V100S), FP32 15.7 / 14 / 16.4, FP64 7.8 / 7 / 8.2, 900 / 900 /
 *         1,134 GB/s (Volta: no BF16, no sparsity).
 *  [ADA]  also RTX 4080: FP16/BF16 with FP32 accumulate 97.5 dense, FP8
 *         194.9, 716.8 GB/s, 76 SMs. [4060TI] NVIDIA GeForce RTX 4060 Ti
 *         specifications: 288 GB/s; only sparse "AI TOPS", no dense figure.
 *  [BW]   also RTX 5080: FP16/BF16 with FP32 accumulate 112.6 dense, FP8
 *         225.1, 960 GB/s, 84 SMs.
 * Entries marked confirmed = 0 could not be re-checked against a primary
 * source while writing this table; the report notes it and docs/peaks.md
 * says which. A figure of 0 means the source lists none: no peak is made
 * up for it. */
#define HOPPER_SXM 989.4, 989.4, 1978.9, 494.7, 66.9
#define NOT_RECHECKED "figures not re-checked against the source"
static const struct hw_spec table[] = {
    {"H100 SXM5 80GB", "Hopper", "9.0", 132, 1980, HOPPER_SXM, 66.9, 80, 3350,
     "NVIDIA H100 datasheet (SXM5)", 1, NULL},
    {"H100 PCIe 80GB", "Hopper", "9.0", 114, 1755, 756.5, 756.5, 1513.0, 378.0, 51.0, 51.0, 80,
     2000, "NVIDIA H100 datasheet (PCIe)", 1, NULL},
    {"H100 NVL 94GB", "Hopper", "9.0", 132, 1785, 835.5, 835.5, 1670.5, 417.5, 60.0, 60.0, 94, 3900,
     "NVIDIA H100 product page (NVL)", 0, "H100 NVL figures not re-checked against the datasheet"},
    {"H200 SXM 141GB", "Hopper", "9.0", 132, 1980, HOPPER_SXM, 66.9, 141, 4800,
     "NVIDIA H200 product page (SXM)", 1, NULL},
    {"H200 NVL 141GB", "Hopper", "9.0", 132, 0, 835.5, 835.5, 1670.5, 417.5, 60.0, 60.0, 141, 4800,
     "NVIDIA H200 product page (NVL)", 1,
     "TF32/FP32/FP64 taken from the H100 NVL column (same 600 W class)"},
    {"H20 96GB", "Hopper", "9.0", 78, 0, 148.0, 148.0, 296.0, 74.0, 44.0, 1.0, 96, 4000,
     "NVIDIA HGX H20 product brief", 0,
     "H20 figures as NVIDIA's partners publish its product brief; no public NVIDIA "
     "datasheet page to re-check them against"},
    {"H800 SXM5 80GB", "Hopper", "9.0", 132, 1980, HOPPER_SXM, 1.0, 80, 3350,
     "NVIDIA H800 datasheet (SXM)", 0, NOT_RECHECKED},
    {"H800 PCIe 80GB", "Hopper", "9.0", 114, 1755, 756.5, 756.5, 1513.0, 378.0, 51.0, 0.8, 80, 2000,
     "NVIDIA H800 datasheet (PCIe)", 0, NOT_RECHECKED},
    {"GH200 96GB HBM3", "Hopper", "9.0", 132, 1980, HOPPER_SXM, 66.9, 96, 4000,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (HBM3)", 0, NOT_RECHECKED},
    {"GH200 144GB HBM3e", "Hopper", "9.0", 132, 1980, HOPPER_SXM, 66.9, 144, 4900,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (HBM3e)", 0, NOT_RECHECKED},
    {"A100 SXM4 80GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 80, 2039,
     "NVIDIA A100 datasheet (80GB SXM)", 1, NULL},
    {"A100 SXM4 40GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 40, 1555,
     "NVIDIA A100 datasheet (40GB SXM)", 0, "40GB bandwidth not re-checked against the datasheet"},
    {"A100 PCIe 80GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 80, 1935,
     "NVIDIA A100 datasheet (80GB PCIe)", 1, NULL},
    {"A100 PCIe 40GB", "Ampere", "8.0", 108, 1410, 312.0, 312.0, 0, 156.0, 19.5, 19.5, 40, 1555,
     "NVIDIA A100 datasheet (40GB PCIe)", 0, "40GB bandwidth not re-checked against the datasheet"},
    {"A10", "Ampere", "8.6", 72, 1695, 125.0, 125.0, 0, 62.5, 31.2, 0, 24, 600,
     "NVIDIA A10 datasheet", 0, NOT_RECHECKED},
    {"A10G", "Ampere", "8.6", 80, 1710, 0, 0, 0, 0, 0, 0, 24, 600,
     "AWS EC2 G5 instance specifications (A10G)", 1,
     "NVIDIA publishes no A10G datasheet, so the table has no tensor peak for it"},
    {"A40", "Ampere", "8.6", 84, 1740, 149.7, 149.7, 0, 74.8, 37.4, 0, 48, 696,
     "NVIDIA A40 datasheet", 0, NOT_RECHECKED},
    {"L40S", "Ada Lovelace", "8.9", 142, 2520, 362.05, 362.05, 733.0, 183.0, 91.6, 0, 48, 864,
     "NVIDIA L40S datasheet", 1, "no FP64 figure in the datasheet (1/64 rate)"},
    {"L40", "Ada Lovelace", "8.9", 142, 2490, 181.05, 181.05, 362.05, 90.5, 90.5, 0, 48, 864,
     "NVIDIA L40 datasheet", 0, NOT_RECHECKED},
    {"L4", "Ada Lovelace", "8.9", 58, 2040, 121.0, 121.0, 242.5, 60.0, 30.3, 0, 24, 300,
     "NVIDIA L4 datasheet", 1, "datasheet tensor figures are with sparsity; halved here"},
    {"T4", "Turing", "7.5", 40, 1590, 0, 65.0, 0, 0, 8.1, 0, 16, 320, "NVIDIA T4 datasheet", 1,
     "Turing has no BF16: the FP16 tensor (mixed precision) figure only"},
    {"V100 SXM2", "Volta", "7.0", 80, 1530, 0, 125.0, 0, 0, 15.7, 7.8, 32, 900,
     "NVIDIA V100 datasheet (SXM2)", 1, "Volta has no BF16: the FP16 tensor figure only"},
    {"V100 PCIe", "Volta", "7.0", 80, 1380, 0, 112.0, 0, 0, 14.0, 7.0, 32, 900,
     "NVIDIA V100 datasheet (PCIe)", 1, "Volta has no BF16: the FP16 tensor figure only"},
    {"V100S PCIe", "Volta", "7.0", 80, 1601, 0, 130.0, 0, 0, 16.4, 8.2, 32, 1134,
     "NVIDIA V100S datasheet", 0, "Volta has no BF16: the FP16 tensor figure only; " NOT_RECHECKED},
    {"GeForce RTX 4090", "Ada Lovelace", "8.9", 128, 2520, 165.2, 165.2, 330.3, 82.6, 82.6, 0, 24,
     1008, "NVIDIA Ada GPU architecture whitepaper (RTX 4090)", 1,
     "BF16/FP16 with FP32 accumulate (330.3 with FP16 accumulate)"},
    {"GeForce RTX 4080", "Ada Lovelace", "8.9", 76, 2505, 97.5, 97.5, 194.9, 48.7, 48.7, 0, 16,
     716.8, "NVIDIA Ada GPU architecture whitepaper (RTX 4080)", 0,
     "BF16/FP16 with FP32 accumulate; " NOT_RECHECKED},
    {"GeForce RTX 4060 Ti", "Ada Lovelace", "8.9", 34, 2535, 0, 0, 0, 0, 0, 0, 16, 288,
     "NVIDIA GeForce RTX 4060 Ti specifications", 1,
     "NVIDIA lists only sparse AI TOPS for this card, so the table has no tensor peak"},
    {"GeForce RTX 5090", "Blackwell", "12.0", 170, 2407, 209.5, 209.5, 419.0, 104.8, 104.8, 0, 32,
     1792, "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090)", 0,
     "BF16/FP16 with FP32 accumulate; figures not re-checked against the whitepaper"},
    {"GeForce RTX 5080", "Blackwell", "12.0", 84, 2617, 112.6, 112.6, 225.1, 56.3, 56.3, 0, 16, 960,
     "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5080)", 0,
     "BF16/FP16 with FP32 accumulate; " NOT_RECHECKED},
    {"B200", "Blackwell", "10.0", 148, 0, 2250.0, 2250.0, 4500.0, 1100.0, 80.0, 40.0, 180, 8000,
     "NVIDIA HGX B200 specifications (per GPU, 1000 W)", 0,
     "SM count (148) from third-party tables; HGX figures (GB200 runs higher clocks)"},
    {"GB200", "Blackwell", "10.0", 148, 0, 2500.0, 2500.0, 5000.0, 1250.0, 80.0, 40.0, 186, 8000,
     "NVIDIA GB200 NVL72 specifications (rack figures / 72 GPUs)", 0,
     "per-GPU figures derived from the rack's; SM count from third-party tables"},
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

/* A name that must be the whole token run: "RTX 4080" but not "RTX 4080
 * SUPER" or "RTX 4090 D" (other SKUs, other figures). */
static int has_exact(const char *norm, const char *toks, const char *const *not_followed)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), " %s ", toks);
	if (!(p = strstr(norm, pat)))
		return 0;
	p += strlen(pat);
	for (; *not_followed; not_followed++) {
		size_t n = strlen(*not_followed);

		if (!strncmp(p, *not_followed, n) && p[n] == ' ')
			return 0;
	}
	return 1;
}

/* Everything but the H100/H200/A100 families, which need the SKU logic. */
static const struct hw_spec *match_other(const char *norm)
{
	static const char *const variants[] = {"D", "SUPER", "TI", NULL};
	static const char *const ti_variants[] = {"SUPER", NULL};
	static const struct {
		const char *tok, *key;
	} simple[] = {
	    {"H20", "H20 96GB"},     {"A10G", "A10G"},	 {"A10", "A10"},   {"A40", "A40"},
	    {"L40S", "L40S"},	     {"L40", "L40"},	 {"L4", "L4"},	   {"T4", "T4"},
	    {"V100S", "V100S PCIe"}, {"GB200", "GB200"}, {"B200", "B200"},
	};
	static const struct {
		const char *toks, *key;
	} geforce[] = {
	    {"RTX 4090", "GeForce RTX 4090"},
	    {"RTX 4080", "GeForce RTX 4080"},
	    {"RTX 5090", "GeForce RTX 5090"},
	    {"RTX 5080", "GeForce RTX 5080"},
	};

	if (has_tok(norm, "H800"))
		return by_key(has_tok(norm, "PCIE") ? "H800 PCIe 80GB" : "H800 SXM5 80GB");
	if (has_tok(norm, "GH200"))
		return by_key(has_tok(norm, "HBM3E") || has_tok(norm, "144G") ||
				      has_tok(norm, "144GB")
				  ? "GH200 144GB HBM3e"
				  : "GH200 96GB HBM3");
	if (has_tok(norm, "V100"))
		return by_key(has_tok(norm, "PCIE") ? "V100 PCIe" : "V100 SXM2");
	for (size_t i = 0; i < ARRAY_SIZE(simple); i++)
		if (has_tok(norm, simple[i].tok))
			return by_key(simple[i].key);
	for (size_t i = 0; i < ARRAY_SIZE(geforce); i++)
		if (has_exact(norm, geforce[i].toks, variants))
			return by_key(geforce[i].key);
	if (has_exact(norm, "RTX 4060 TI", ti_variants))
		return by_key("GeForce RTX 4060 Ti");
	return NULL;
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
	return match_other(norm);
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

/* The datasheet (or override, or estimated) ceilings and their source. */
static void resolve_datasheet(struct report_model *m, const struct hw_overrides *ov,
			      enum hw_precision prec, double mem_bw_gbs)
{
	struct report_peaks *pk = &m->peaks;
	struct strbuf notes = STRBUF_INIT, src = STRBUF_INIT;
	const char *bw_src = NULL, *pname = hw_precision_name(prec);
	const struct hw_spec *s;
	int tflops_from_spec = 0;
	double est;

	s = hw_lookup(m->env.gpu_name, m->env.sm_count, &notes);
	add_notes(m, &notes);
	report_set_str(&pk->device_key, s ? s->key : NULL);
	if (s) {
		double t = hw_spec_tflops(s, prec);

		if (t > 0) {
			pk->datasheet_tflops = rnum_of(t);
			tflops_from_spec = 1;
			strbuf_addf(&src, "%s, dense %s: %s", s->key, pname, s->source);
		} else {
			report_model_add_note(m,
					      "the peak table has no dense %s figure for the %s "
					      "(%s); set hardware.peak_tflops or run 'llmprof "
					      "calibrate'",
					      pname, s->key, s->source);
		}
		pk->datasheet_gbs = rnum_of(s->bw_gbs);
		bw_src = s->source;
		if (s->note && (!s->confirmed || !(t > 0)))
			report_model_add_note(m, "%s: %s", s->key, s->note);
	} else if ((prec == HW_BF16 || prec == HW_FP16) &&
		   (est = hw_estimate_bf16_tflops(
			m->env.compute_capability, m->env.sm_count,
			m->env.sm_clock_mhz.available ? m->env.sm_clock_mhz.v : 0)) > 0) {
		pk->datasheet_tflops = rnum_of(est);
		pk->tflops_estimated = 1;
		strbuf_addf(&src,
			    "estimate (no datasheet): %d SMs x %.0f MHz x the FLOP/clk/SM of "
			    "compute capability %s",
			    m->env.sm_count, m->env.sm_clock_mhz.v, m->env.compute_capability);
	}
	if (!s && mem_bw_gbs > 0) {
		pk->datasheet_gbs = rnum_of(mem_bw_gbs);
		pk->gbs_estimated = 1;
		bw_src = "estimate (no datasheet): the bandwidth nsys reports (TARGET_INFO_GPU)";
	}
	if (ov && ov->peak_tflops.available) {
		pk->datasheet_tflops = ov->peak_tflops;
		pk->tflops_estimated = 0;
		strbuf_reset(&src);
		strbuf_addstr(&src, "override hardware.peak_tflops");
		tflops_from_spec = 0;
	}
	if (ov && ov->peak_gbs.available) {
		pk->datasheet_gbs = ov->peak_gbs;
		pk->gbs_estimated = 0;
		bw_src = "override hardware.peak_bandwidth_gbs";
	}
	if (pk->tflops_estimated)
		report_model_add_note(
		    m,
		    "the dense %s peak %.1f TFLOP/s is llmprof's estimate (SMs x clock x the "
		    "per-SM rate of a full compute capability %s part), not a datasheet figure: "
		    "a cut-down part runs far below it, so MFU against it can read several "
		    "times too low; run 'llmprof calibrate' or set hardware.peak_tflops",
		    pname, pk->datasheet_tflops.v, m->env.compute_capability);
	if (pk->gbs_estimated)
		report_model_add_note(
		    m,
		    "the DRAM bandwidth %.0f GB/s is the one nsys reports for the "
		    "device (memory clock x bus width), not a datasheet figure; "
		    "run 'llmprof calibrate' for a measured ceiling",
		    mem_bw_gbs);
	/* name the bandwidth's source unless it is the spec already cited */
	if (bw_src && !(tflops_from_spec && s && !strcmp(bw_src, s->source)))
		strbuf_addf(&src, "%sbandwidth: %s", src.len ? "; " : "", bw_src);
	report_set_str(&pk->datasheet_source, src.len ? src.buf : NULL);
	strbuf_release(&notes);
	strbuf_release(&src);
}

void hw_peaks_resolve(struct report_model *m, const struct hw_overrides *ov,
		      const struct calibration *cal, double mem_bw_gbs)
{
	struct report_peaks *pk = &m->peaks;
	struct strbuf src = STRBUF_INIT, err = STRBUF_INIT;
	enum hw_precision prec = HW_BF16;

	if (m->llm.dtype && hw_precision_parse(m->llm.dtype, &prec, &err)) {
		report_model_add_note(m, "%s; peaks are for bf16", err.buf);
		prec = HW_BF16;
	}
	report_set_str(&pk->precision, hw_precision_name(prec));
	pk->datasheet_tflops = pk->datasheet_gbs = RNUM_NONE;
	pk->tflops_estimated = pk->gbs_estimated = 0;
	pk->measured_tflops = pk->measured_gbs = RNUM_NONE;
	resolve_datasheet(m, ov, prec, mem_bw_gbs);

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
	strbuf_release(&src);
	strbuf_release(&err);
}
