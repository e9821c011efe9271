/* svg.h: small SVG helpers (scales, log axes) and the three report charts.
 *
 * Every chart is a complete <svg> element with an xmlns, usable standalone
 * (the charts/ folder) or inline in report.html, deterministic for a given model,
 * and well-formed XML (tests run xmllint). Tooltips are <title> children, so
 * no script is needed. All functions append to sb. */
#ifndef LLMPROF_REPORT_SVG_H
#define LLMPROF_REPORT_SVG_H

#include "core/strbuf.h"
#include "model/model.h"

/* Maps [d0, d1] to [r0, r1], linearly or logarithmically (log10; d0, d1 > 0). */
struct svg_scale {
	double d0, d1, r0, r1;
	int log;
};
double svg_scale_map(const struct svg_scale *s, double v);

/* A "nice" linear tick step (1, 2 or 5 x 10^k) giving about `target` ticks. */
double svg_nice_step(double span, int target);

/* Stage timeline: one lane per model timeline lane; GPU lanes are binned to
 * pixel columns (a column is drawn when any interval touches it, its opacity
 * the covered fraction), so the output size is bounded by the width whatever
 * the interval count. Range lanes with few intervals draw each with a tooltip. */
void svg_timeline(struct strbuf *sb, const struct report_model *m, int width);

/* Horizontal bars of the top_n kernels by total time. */
void svg_kernel_bars(struct strbuf *sb, const struct report_model *m, int width, size_t top_n);

/* Log-log roofline: datasheet and measured ceilings, kernels with counters
 * as points (area ~ share of GPU time). */
void svg_roofline(struct strbuf *sb, const struct report_model *m, int width);

#endif
