/* calibration.h: measured ceilings per GPU model, written by `llmprof
 * calibrate` and read by the reports.
 *
 * Location: $LLMPROF_CALIBRATION_DIR, else $XDG_CACHE_HOME/llmprof/calibration,
 * else $HOME/.cache/llmprof/calibration; one file per GPU model named
 * <sanitized gpu name>.json ("NVIDIA H100 80GB HBM3" -> NVIDIA_H100_80GB_HBM3.json).
 *
 * File (and the one JSON line llmprof-calibrate prints):
 *   {"gpu": "NVIDIA H100 80GB HBM3", "sm_count": 132, "cc": "9.0",
 *    "gemm": {"m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "iters": 50,
 *             "ms": 1.38, "tflops": 798.2},
 *    "copy": {"bytes": 2147483648, "iters": 20, "ms": 1.43,
 *             "gbs": 3003.1, "convention": "read+write"},
 *    "tool": "llmprof-calibrate 0.1.0", "created_at": "2026-11-21T16:00:00Z"}
 * copy.gbs counts every byte twice (read once, written once), the same
 * convention as a DRAM bandwidth datasheet figure. */
#ifndef LLMPROF_CALIBRATION_H
#define LLMPROF_CALIBRATION_H

#include <stddef.h>

#include "core/strbuf.h"

struct calibration {
	char *gpu;	    /* device name as reported */
	int sm_count;	    /* 0 = unknown */
	char *cc;	    /* may be NULL */
	double gemm_tflops; /* dense bf16 GEMM, > 0 */
	double copy_gbs;    /* D2D copy, read+write bytes per second / 1e9, > 0 */
	char *created_at;   /* may be NULL */
	char *tool;	    /* may be NULL */
	char *path;	    /* file it came from (set by calibration_load) */
};

void calibration_release(struct calibration *c);

/* Parses one calibration JSON document of len bytes (`what` names it in
 * errors). Fills *c (caller releases). 0, or -1 with err. */
int calibration_parse(const char *buf, size_t len, const char *what, struct calibration *c,
		      struct strbuf *err);

/* "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3": [A-Za-z0-9.-] kept,
 * every other run of bytes becomes one '_', no leading/trailing '_';
 * empty -> "unknown-gpu". Appends to out. */
void calibration_sanitize_name(struct strbuf *out, const char *gpu);

/* The calibration directory (see above) appended to out; -1 with err when
 * neither LLMPROF_CALIBRATION_DIR, XDG_CACHE_HOME nor HOME is set. */
int calibration_dir(struct strbuf *out, struct strbuf *err);

/* Loads the calibration for gpu. Returns 1 when found (c filled), 0 when no
 * file exists, -1 with err when it exists but is unreadable or invalid, or
 * was measured on a different GPU name. */
int calibration_load(const char *gpu, struct calibration *c, struct strbuf *err);

/* Writes c (as calibration_parse reads it) to <dir>/<sanitized gpu>.json
 * atomically, creating dir. The written path is appended to path_out when
 * non-NULL. 0, or -1 with err. */
int calibration_store(const struct calibration *c, struct strbuf *path_out, struct strbuf *err);

#endif
