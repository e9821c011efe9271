/* svg.c: scales, axes and the report charts as plain SVG text. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/format.h"
#include "trace/kname.h"
#include "report/svg.h"
#include "core/banned.h"

#define FONT "font-family=\"Helvetica,Arial,sans-serif\""
#define C_PREFILL "#4e79a7"
#define C_DECODE "#f28e2b"
#define C_OTHER "#76b7b2"
#define C_GPU "#59a14f"
#define C_COMPUTE "#e15759"
#define C_MEMORY "#4e79a7"
#define C_LATENCY "#b07aa1"
#define C_UNKNOWN "#9d9d9d"
#define C_AXIS "#444444"
#define C_GRID "#e3e3e3"

double svg_scale_map(const struct svg_scale *s, double v)
{
	double d0 = s->d0, d1 = s->d1, t;

	if (s->log) {
		d0 = log10(d0);
		d1 = log10(d1);
		v = v > 0 ? log10(v) : d0;
	}
	t = d1 != d0 ? (v - d0) / (d1 - d0) : 0;
	return s->r0 + t * (s->r1 - s->r0);
}

double svg_nice_step(double span, int target)
{
	double raw, mag, f;

	if (!(span > 0) || target < 1)
		return 1;
	raw = span / target;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	if (f < 1.5)
		f = 1;
	else if (f < 3.5)
		f = 2;
	else if (f < 7.5)
		f = 5;
	else
		f = 10;
	return f * mag;
}

static void svg_open(struct strbuf *sb, int w, int h, const char *label)
{
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		    w, h, w, h);
	xml_text(sb, label);
	strbuf_addf(sb,
		    "\" " FONT
		    " font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		    w, h);
}

static void svg_empty(struct strbuf *sb, int w, const char *label, const char *why)
{
	svg_open(sb, w, 60, label);
	strbuf_addstr(sb, "<text x=\"10\" y=\"34\" fill=\"#666666\">");
	xml_text(sb, why);
	strbuf_addstr(sb, "</text>\n</svg>\n");
}

static const char *range_color(const char *name)
{
	if (name && strstr(name, "prefill"))
		return C_PREFILL;
	if (name && strstr(name, "decode"))
		return C_DECODE;
	return C_OTHER;
}

static void add_ms_label(struct strbuf *sb, double ms)
{
	fmt_fixed(sb, rnum_of(ms), fabs(ms) < 10 ? 3 : 1);
}

/* Bins the intervals of one lane to `cols` pixel columns and draws each run
 * of equally covered columns as one rect. */
static void lane_binned(struct strbuf *sb, const struct report_lane *l, int64_t t0, int64_t t1,
			int x, int y, int cols, int h, const char *color)
{
	double *cov = xcalloc((size_t)cols, sizeof(*cov));
	double span = (double)(t1 - t0);
	int c = 0;

	for (size_t i = 0; i < l->nr; i++) {
		double x0 = (double)(l->iv[i].start_ns - t0) / span * cols;
		double x1 = (double)(l->iv[i].end_ns - t0) / span * cols;

		if (x1 <= 0 || x0 >= cols)
			continue;
		if (x0 < 0)
			x0 = 0;
		if (x1 > cols)
			x1 = cols;
		if (x1 - x0 < 1e-9)
			x1 = x0 + 1e-9; /* zero-length work still marks its column */
		for (int k = (int)x0; k < cols && k < x1; k++) {
			double lo = x0 > k ? x0 : k, hi = x1 < k + 1 ? x1 : k + 1;
			cov[k] += hi - lo;
		}
	}
	while (c < cols) {
		int level = cov[c] <= 0 ? 0 : (int)ceil((cov[c] > 1 ? 1 : cov[c]) * 4);
		int start = c;

		while (c < cols) {
			int lv = cov[c] <= 0 ? 0 : (int)ceil((cov[c] > 1 ? 1 : cov[c]) * 4);
			if (lv != level)
				break;
			c++;
		}
		if (level)
			strbuf_addf(
			    sb,
			    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
			    "fill-opacity=\"%.2f\"/>\n",
			    x + start, y, c - start, h, color, 0.25 * level);
	}
	free(cov);
}

#define TL_LABEL_W 170
#define TL_LANE_H 22
#define TL_LANE_GAP 8
#define TL_MAX_EXACT 400 /* range lanes with more intervals are binned */
#define TL_LEGEND_H 22
#define TL_CHAR_W 7 /* a conservative width of one 11-px character */

static void timeline_legend(struct strbuf *sb, int x, int y)
{
	static const struct {
		const char *name, *color;
	} items[] = {{"prefill (CPU range)", C_PREFILL},
		     {"decode (CPU range)", C_DECODE},
		     {"other range", C_OTHER},
		     {"GPU busy (lighter: partly idle)", C_GPU}};
	static const int w[] = {150, 150, 110, 230};

	for (size_t i = 0; i < 4; x += w[i], i++)
		strbuf_addf(sb,
			    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" fill=\"" C_AXIS "\">%s</text>\n",
			    x, y - 9, items[i].color, x + 14, y, items[i].name);
}

/* The stage's name inside its bar when it fits. */
static void range_label(struct strbuf *sb, const char *name, double x0, double w, int y)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || w < (double)(n * TL_CHAR_W + 8))
		return;
	strbuf_addf(sb,
		    "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" fill=\"#ffffff\" "
		    "pointer-events=\"none\">",
		    x0 + 4, y + 15);
	xml_text(sb, name);
	strbuf_addstr(sb, "</text>\n");
}
void svg_timeline(struct strbuf *sb, const struct report_model *m, int width)
{
	const struct report_timeline *tl = &m->timeline;
	int64_t t0 = tl->t0_ns, t1 = tl->t1_ns;
	int plot_w = width - TL_LABEL_W - 20, h, y;
	double span_ms, step;
	size_t i, j;

	if (t0 == 0 && t1 == 0) {
		int first = 1;
		for (i = 0; i < tl->nr_lanes; i++)
			for (j = 0; j < tl->lanes[i].nr; j++) {
				const struct report_interval *iv = &tl->lanes[i].iv[j];
				if (first || iv->start_ns < t0)
					t0 = iv->start_ns;
				if (first || iv->end_ns > t1)
					t1 = iv->end_ns;
				first = 0;
			}
	}
	if (!tl->nr_lanes || t1 <= t0 || plot_w < 50) {
		svg_empty(sb, width, "Stage timeline", "No timeline data was captured.");
		return;
	}
	h = 20 + (int)tl->nr_lanes * (TL_LANE_H + TL_LANE_GAP) + 36 + TL_LEGEND_H;
	svg_open(sb, width, h, "Stage timeline");
	timeline_legend(sb, TL_LABEL_W, h - 8);
	h -= TL_LEGEND_H;
	span_ms = (double)(t1 - t0) / 1e6;
	step = svg_nice_step(span_ms, 8);
	/* grid and axis */
	for (double t = 0; t <= span_ms + step * 1e-9; t += step) {
		double x = TL_LABEL_W + t / span_ms * plot_w;
		strbuf_addf(sb,
			    "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID
			    "\"/>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"" C_AXIS
			    "\">",
			    x, x, h - 30, x, h - 16);
		add_ms_label(sb, t);
		strbuf_addstr(sb, "</text>\n");
	}
	strbuf_addf(sb,
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"" C_AXIS
		    "\">time (ms)</text>\n",
		    width - 20, h - 2);
	y = 20;
	for (i = 0; i < tl->nr_lanes; i++, y += TL_LANE_H + TL_LANE_GAP) {
		const struct report_lane *l = &tl->lanes[i];

		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#222222\">",
			    TL_LABEL_W - 8, y + 15);
		{
			struct strbuf n = STRBUF_INIT;
			fmt_ellipsize(&n, l->name, 24);
			xml_text(sb, n.buf);
			strbuf_release(&n);
		}
		strbuf_addf(sb,
			    "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			    "fill=\"#f6f6f6\"/>\n",
			    TL_LABEL_W, y, plot_w, TL_LANE_H);
		if (l->kind == LANE_GPU || l->nr > TL_MAX_EXACT) {
			lane_binned(sb, l, t0, t1, TL_LABEL_W, y, plot_w, TL_LANE_H,
				    l->kind == LANE_GPU ? C_GPU : range_color(l->name));
			continue;
		}
		for (j = 0; j < l->nr; j++) {
			const struct report_interval *iv = &l->iv[j];
			double x0 =
			    TL_LABEL_W + (double)(iv->start_ns - t0) / (double)(t1 - t0) * plot_w;
			double w = (double)(iv->end_ns - iv->start_ns) / (double)(t1 - t0) * plot_w;

			if (w < 0.5)
				w = 0.5;
			strbuf_addf(
			    sb,
			    "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			    "stroke=\"#ffffff\" stroke-width=\"0.5\"><title>",
			    x0, y, w, TL_LANE_H, range_color(iv->label ? iv->label : l->name));
			xml_text(sb, iv->label ? iv->label : l->name);
			strbuf_addstr(sb, ": ");
			fmt_ns_as_ms(sb, (double)(iv->end_ns - iv->start_ns));
			strbuf_addstr(sb, " ms at ");
			fmt_ns_as_ms(sb, (double)(iv->start_ns - t0));
			strbuf_addstr(sb, " ms</title></rect>\n");
			range_label(sb, iv->label ? iv->label : l->name, x0, w, y);
		}
	}
	strbuf_addstr(sb, "</svg>\n");
}

static const char *bound_color(enum kernel_bound b)
{
	switch (b) {
	case BOUND_COMPUTE:
		return C_COMPUTE;
	case BOUND_MEMORY:
		return C_MEMORY;
	case BOUND_LATENCY:
		return C_LATENCY;
	case BOUND_UNKNOWN:
		break;
	}
	return C_UNKNOWN;
}

static void legend(struct strbuf *sb, int x, int y)
{
	static const struct {
		const char *name, *color;
	} items[] = {{"compute-bound", C_COMPUTE},
		     {"memory-bound", C_MEMORY},
		     {"latency-bound", C_LATENCY},
		     {"no counters", C_UNKNOWN}};

	for (size_t i = 0; i < 4; i++, x += 130)
		strbuf_addf(sb,
			    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" fill=\"" C_AXIS "\">%s</text>\n",
			    x, y - 9, items[i].color, x + 14, y, items[i].name);
}

#define KB_LABEL_W 320
#define KB_ROW_H 20

void svg_kernel_bars(struct strbuf *sb, const struct report_model *m, int width, size_t top_n)
{
	size_t n = m->nr_kernels < top_n ? m->nr_kernels : top_n;
	int bar_w = width - KB_LABEL_W - 130, h;
	double max;

	if (!n || !m->kernels[0].total_ns || bar_w < 50) {
		svg_empty(sb, width, "Top kernels by GPU time", "No kernels were captured.");
		return;
	}
	h = 12 + (int)n * KB_ROW_H + 34;
	svg_open(sb, width, h, "Top kernels by GPU time");
	max = (double)m->kernels[0].total_ns;
	for (size_t i = 0; i < n; i++) {
		const struct report_kernel *k = &m->kernels[i];
		int y = 10 + (int)i * KB_ROW_H;
		double w = (double)k->total_ns / max * bar_w;

		strbuf_addf(sb, "<g><title>");
		xml_text(sb, k->full_name);
		strbuf_addstr(sb, "\n");
		fmt_ns_as_ms(sb, (double)k->total_ns);
		strbuf_addf(sb, " ms in %llu calls, ", (unsigned long long)k->calls);
		fmt_pct(sb, k->pct_gpu);
		strbuf_addf(sb, "%% of GPU time, %s", kernel_bound_name(k->c->bound));
		strbuf_addf(sb,
			    "</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#222222\">",
			    KB_LABEL_W - 8, y + 13);
		{
			/* rank and base name: 44 characters of 12 px fit the label column */
			struct strbuf s = STRBUF_INIT;

			strbuf_addf(&s, "%zu. ", i + 1);
			kname_display(&s, k->short_name, KNAME_UNWRAP | KNAME_KEEP_SHORT,
				      44 - s.len);
			xml_text(sb, s.buf);
			strbuf_release(&s);
		}
		strbuf_addf(
		    sb,
		    "</text><rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>"
		    "<text x=\"%.2f\" y=\"%d\" fill=\"" C_AXIS "\">",
		    KB_LABEL_W, y + 2, w < 1 ? 1 : w, KB_ROW_H - 5, bound_color(k->c->bound),
		    KB_LABEL_W + (w < 1 ? 1 : w) + 6, y + 13);
		fmt_ns_as_ms(sb, (double)k->total_ns);
		strbuf_addstr(sb, " ms (");
		fmt_pct(sb, k->pct_gpu);
		strbuf_addstr(sb, "%)</text></g>\n");
	}
	legend(sb, KB_LABEL_W, h - 10);
	strbuf_addstr(sb, "</svg>\n");
}

static void decade_label(struct strbuf *sb, int e)
{
	static const char *const big[] = {"1", "10", "100", "1k", "10k", "100k", "1M"};

	if (e >= 0 && e < 7)
		strbuf_addstr(sb, big[e]);
	else if (e < 0 && e >= -4)
		strbuf_addf(sb, "%.*f", -e, pow(10, e));
	else
		strbuf_addf(sb, "1e%d", e);
}

struct ceiling {
	const char *name, *dash;
	struct rnum tflops, gbs;
};

/* Text boxes already drawn in the roofline, so that a point's rank label
 * goes only where it overlaps none of them. */
#define RL_MAX_BOXES 64
struct boxes {
	double b[RL_MAX_BOXES][4]; /* x0, y0, x1, y1 */
	int n;
};

static int box_free(const struct boxes *bx, double x0, double y0, double x1, double y1)
{
	for (int i = 0; i < bx->n; i++)
		if (x0 < bx->b[i][2] && bx->b[i][0] < x1 && y0 < bx->b[i][3] && bx->b[i][1] < y1)
			return 0;
	return 1;
}

static void box_add(struct boxes *bx, double x0, double y0, double x1, double y1)
{
	if (bx->n == RL_MAX_BOXES)
		return;
	bx->b[bx->n][0] = x0;
	bx->b[bx->n][1] = y0;
	bx->b[bx->n][2] = x1;
	bx->b[bx->n][3] = y1;
	bx->n++;
}

/* The rank of a kernel beside its point (right, else left), when free. */
static void point_label(struct strbuf *sb, struct boxes *bx, size_t rank, double cx, double cy,
			double r, const struct svg_scale *xs)
{
	double w = (rank >= 100 ? 3 : rank >= 10 ? 2 : 1) * 7.0, y0 = cy - 6, y1 = cy + 5;
	double xr = cx + r + 2, xl = cx - r - 2 - w, x;

	if (xr + w <= xs->r1 && box_free(bx, xr, y0, xr + w, y1))
		x = xr;
	else if (xl >= xs->r0 && box_free(bx, xl, y0, xl + w, y1))
		x = xl;
	else
		return;
	box_add(bx, x, y0, x + w, y1);
	strbuf_addf(sb,
		    "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" fill=\"#222222\">%zu</text>\n", x,
		    cy + 4, rank);
}

/* Solid and dashed roofs and the point labels, under the bound legend. */
static void roof_legend(struct strbuf *sb, const char *solid, int x, int y)
{
	strbuf_addf(sb,
		    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222222\" "
		    "stroke-width=\"1.6\"/><text x=\"%d\" y=\"%d\" fill=\"" C_AXIS
		    "\">%s roof</text>\n"
		    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222222\" "
		    "stroke-width=\"1.6\" stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%d\" "
		    "fill=\"" C_AXIS "\">measured roof (llmprof calibrate)</text>\n"
		    "<text x=\"%d\" y=\"%d\" fill=\"" C_AXIS "\">numbers: kernel rank by GPU "
		    "time (Kernels table); area: share of GPU time</text>\n",
		    x, y - 4, x + 24, y - 4, x + 30, y, solid, x + 140, y - 4, x + 164, y - 4,
		    x + 170, y, x + 400, y);
}

static void draw_ceiling(struct strbuf *sb, const struct ceiling *c, const struct svg_scale *xs,
			 const struct svg_scale *ys, int *label_y, struct boxes *bx)
{
	size_t at;
	double xlo = xs->d0, xhi = xs->d1, ylo = ys->d0;
	double ridge;

	if (c->gbs.available && c->tflops.available && c->gbs.v > 0 && c->tflops.v > 0) {
		double xa = ylo * 1e3 / c->gbs.v; /* where the slope enters the plot */

		ridge = c->tflops.v * 1e3 / c->gbs.v;
		if (xa < xlo)
			xa = xlo;
		strbuf_addf(sb,
			    "<polyline fill=\"none\" stroke=\"#222222\" stroke-width=\"1.6\"%s "
			    "points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\"><title>",
			    c->dash, svg_scale_map(xs, xa), svg_scale_map(ys, xa * c->gbs.v / 1e3),
			    svg_scale_map(xs, ridge), svg_scale_map(ys, c->tflops.v),
			    svg_scale_map(xs, xhi), svg_scale_map(ys, c->tflops.v));
	} else if (c->tflops.available && c->tflops.v > 0) {
		strbuf_addf(sb,
			    "<polyline fill=\"none\" stroke=\"#222222\" stroke-width=\"1.6\"%s "
			    "points=\"%.2f,%.2f %.2f,%.2f\"><title>",
			    c->dash, svg_scale_map(xs, xlo), svg_scale_map(ys, c->tflops.v),
			    svg_scale_map(xs, xhi), svg_scale_map(ys, c->tflops.v));
	} else {
		return;
	}
	strbuf_addf(sb, "%s ceiling: ", c->name);
	fmt_tflops(sb, c->tflops);
	strbuf_addstr(sb, " TFLOP/s, ");
	fmt_gbs(sb, c->gbs);
	strbuf_addstr(sb, " GB/s</title></polyline>\n");
	strbuf_addf(sb, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"end\" fill=\"#222222\">",
		    svg_scale_map(xs, xhi) - 4, *label_y);
	at = sb->len;
	strbuf_addf(sb, "%s roof: ", c->name);
	fmt_tflops(sb, c->tflops);
	strbuf_addstr(sb, " TFLOP/s, ");
	fmt_gbs(sb, c->gbs);
	box_add(bx, svg_scale_map(xs, xhi) - 4 - 7.5 * (double)(sb->len - at + 5), *label_y - 12,
		svg_scale_map(xs, xhi) - 4, *label_y + 3);
	strbuf_addstr(sb, " GB/s</text>\n");
	*label_y += 15;
}

void svg_roofline(struct strbuf *sb, const struct report_model *m, int width)
{
	const struct report_peaks *p = &m->peaks;
	struct ceiling ceil_ds = {p->tflops_estimated || p->gbs_estimated ? "estimated"
									  : "datasheet",
				  "", p->datasheet_tflops, p->datasheet_gbs};
	struct ceiling ceil_ms = {"measured", " stroke-dasharray=\"6 4\"", p->measured_tflops,
				  p->measured_gbs};
	const int ml = 70, mr = 20, mt = 16, mb = 88;
	struct boxes bx = {.n = 0};
	int height = width * 55 / 100, npts = 0, label_y;
	double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = 0;
	struct svg_scale xs, ys;
	int ex0, ex1, ey0, ey1, kx, ky;

	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct report_counters *c = m->kernels[i].c;
		if (!c->ai.available || !c->achieved_tflops.available || c->ai.v <= 0 ||
		    c->achieved_tflops.v <= 0)
			continue;
		npts++;
		xmin = fmin(xmin, c->ai.v);
		xmax = fmax(xmax, c->ai.v);
		ymin = fmin(ymin, c->achieved_tflops.v);
		ymax = fmax(ymax, c->achieved_tflops.v);
	}
	{
		const struct ceiling *cs[] = {&ceil_ds, &ceil_ms};
		for (size_t i = 0; i < 2; i++) {
			if (cs[i]->tflops.available && cs[i]->tflops.v > 0) {
				ymax = fmax(ymax, cs[i]->tflops.v);
				ymin = fmin(ymin, cs[i]->tflops.v / 1e3);
				if (cs[i]->gbs.available && cs[i]->gbs.v > 0) {
					double ridge = cs[i]->tflops.v * 1e3 / cs[i]->gbs.v;
					xmin = fmin(xmin, ridge / 100);
					xmax = fmax(xmax, ridge * 10);
				}
			}
		}
	}
	if (!npts && !(ymax > 0)) {
		svg_empty(sb, width, "Roofline",
			  "No roofline: neither kernel counters nor peak numbers are available.");
		return;
	}
	if (!(xmax > 0)) {
		xmin = 0.1;
		xmax = 1000;
	}
	/* half a decade of room so no point sits on the frame */
	ex0 = (int)floor(log10(xmin / 3));
	ex1 = (int)ceil(log10(xmax * 3));
	ey0 = (int)floor(log10(ymin / 3));
	ey1 = (int)ceil(log10(ymax * 1.5));
	if (ex1 <= ex0)
		ex1 = ex0 + 1;
	if (ey1 <= ey0)
		ey1 = ey0 + 1;
	xs = (struct svg_scale){pow(10, ex0), pow(10, ex1), ml, width - mr, 1};
	ys = (struct svg_scale){pow(10, ey0), pow(10, ey1), height - mb, mt, 1};
	svg_open(sb, width, height, "Roofline");
	/* a label every k-th decade, so that tick labels never touch */
	kx = (int)ceil(44.0 / ((double)(width - ml - mr) / (ex1 - ex0)));
	ky = (int)ceil(16.0 / ((double)(height - mt - mb) / (ey1 - ey0)));
	for (int e = ex0; e <= ex1; e++) {
		double x = svg_scale_map(&xs, pow(10, e));
		strbuf_addf(sb,
			    "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"" C_GRID
			    "\"/><text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" fill=\"" C_AXIS
			    "\">",
			    x, mt, x, height - mb, x, height - mb + 20);
		if ((e - ex0) % kx == 0)
			decade_label(sb, e);
		strbuf_addstr(sb, "</text>\n");
	}
	for (int e = ey0; e <= ey1; e++) {
		double y = svg_scale_map(&ys, pow(10, e));
		strbuf_addf(sb,
			    "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"" C_GRID
			    "\"/><text x=\"%d\" y=\"%.2f\" text-anchor=\"end\" fill=\"" C_AXIS
			    "\">",
			    ml, y, width - mr, y, ml - 6, y + 4);
		if ((e - ey0) % ky == 0)
			decade_label(sb, e);
		strbuf_addstr(sb, "</text>\n");
	}
	strbuf_addf(
	    sb,
	    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_AXIS
	    "\"/>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"" C_AXIS
	    "\">arithmetic intensity (FLOP/byte of DRAM traffic)</text>\n"
	    "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" fill=\"" C_AXIS
	    "\" transform=\"rotate(-90 14 %d)\">achieved TFLOP/s</text>\n",
	    ml, mt, width - ml - mr, height - mt - mb, (ml + width - mr) / 2, height - mb + 40,
	    (mt + height - mb) / 2, (mt + height - mb) / 2);
	label_y = height - mb - 24;
	draw_ceiling(sb, &ceil_ms, &xs, &ys, &label_y, &bx);
	draw_ceiling(sb, &ceil_ds, &xs, &ys, &label_y, &bx);
	for (size_t i = m->nr_kernels; i-- > 0;) {
		const struct report_kernel *k = &m->kernels[i];
		const struct report_counters *c = k->c;
		double r;

		if (!c->ai.available || !c->achieved_tflops.available || c->ai.v <= 0 ||
		    c->achieved_tflops.v <= 0)
			continue;
		r = 3 + 9 * sqrt((k->pct_gpu.available ? k->pct_gpu.v : 0) / 100);
		strbuf_addf(
		    sb,
		    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" fill-opacity=\"0.75\" "
		    "stroke=\"#222222\" stroke-width=\"0.6\"><title>",
		    svg_scale_map(&xs, c->ai.v), svg_scale_map(&ys, c->achieved_tflops.v), r,
		    bound_color(c->bound));
		xml_text(sb, k->short_name);
		strbuf_addstr(sb, "\nAI ");
		fmt_fixed(sb, c->ai, 2);
		strbuf_addstr(sb, " FLOP/B, ");
		fmt_tflops(sb, c->achieved_tflops);
		strbuf_addstr(sb, " TFLOP/s, ");
		fmt_pct(sb, k->pct_gpu);
		strbuf_addf(sb, "%% of GPU time, %s-bound</title></circle>\n",
			    kernel_bound_name(c->bound));
	}
	if (!npts)
		strbuf_addf(sb,
			    "<text x=\"%d\" y=\"%d\" fill=\"#666666\">No kernel has FLOP and DRAM "
			    "byte counters (ncu did not run or lacked them).</text>\n",
			    ml + 10, mt + 20);
	/* rank labels, the largest kernels first */
	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct report_counters *c = m->kernels[i].c;

		if (!c->ai.available || !c->achieved_tflops.available || c->ai.v <= 0 ||
		    c->achieved_tflops.v <= 0)
			continue;
		point_label(
		    sb, &bx, i + 1, svg_scale_map(&xs, c->ai.v),
		    svg_scale_map(&ys, c->achieved_tflops.v),
		    3 + 9 * sqrt((m->kernels[i].pct_gpu.available ? m->kernels[i].pct_gpu.v : 0) /
				 100),
		    &xs);
	}
	legend(sb, ml, height - 30);
	roof_legend(sb, ceil_ds.name, ml, height - 10);
	strbuf_addstr(sb, "</svg>\n");
}
