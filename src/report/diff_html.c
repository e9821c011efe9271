/* diff_html.c: diff.html of `llmprof diff`: the metrics, the waterfall of
 * each stage and the decode step-time distributions of A and B side by side,
 * as inline SVG; no script, no external asset (see report/diff.h). */
#include <math.h>
#include <string.h>

#include "bundle/layout.h"
#include "report/diff.h"
#include "core/banned.h"

static void esc(struct strbuf *o, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			strbuf_addstr(o, "&lt;");
		else if (*s == '>')
			strbuf_addstr(o, "&gt;");
		else if (*s == '&')
			strbuf_addstr(o, "&amp;");
		else if (*s == '"')
			strbuf_addstr(o, "&quot;");
		else
			strbuf_addch(o, *s);
	}
}

#define W 760
#define LABEL 300
#define ROW 20

/* Bars from A's stage time through each term to B's. */
static void svg_fall(const struct diff_waterfall *w, struct strbuf *o)
{
	double lo = w->a_ns, hi = w->a_ns, cur = w->a_ns, scale;
	size_t rows = w->nr + 2;

	for (size_t i = 0; i < w->nr; i++) {
		cur += w->rows[i].delta_ns;
		lo = fmin(lo, cur);
		hi = fmax(hi, cur);
	}
	lo = fmin(lo, 0);
	scale = hi > lo ? (W - LABEL - 20) / (hi - lo) : 0;
	strbuf_addf(o,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" "
		    "font-family=\"sans-serif\" font-size=\"11\">\n",
		    W, rows * ROW + 10);
	cur = w->a_ns;
	for (size_t r = 0; r < rows; r++) {
		double x0, x1, d = 0;
		const char *fill = "#888";
		struct strbuf label = STRBUF_INIT;

		if (r == 0) {
			x0 = 0;
			x1 = w->a_ns;
			strbuf_addf(&label, "A: %.3f ms", w->a_ns / 1e6);
		} else if (r == rows - 1) {
			x0 = 0;
			x1 = w->b_ns;
			strbuf_addf(&label, "B: %.3f ms", w->b_ns / 1e6);
		} else {
			d = w->rows[r - 1].delta_ns;
			x0 = fmin(cur, cur + d);
			x1 = fmax(cur, cur + d);
			fill = d > 0 ? "#c0392b" : "#27ae60";
			strbuf_addf(&label, "%+.3f ms ", d / 1e6);
			strbuf_addstr(&label, w->rows[r - 1].label);
			cur += d;
		}
		if (label.len > 60) {
			strbuf_setlen(&label, 57);
			strbuf_addstr(&label, "...");
		}
		strbuf_addf(o, "<text x=\"2\" y=\"%zu\">", r * ROW + 15);
		esc(o, label.buf);
		strbuf_addf(o,
			    "</text><rect x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"14\" "
			    "fill=\"%s\"/>\n",
			    LABEL + (x0 - lo) * scale, r * ROW + 4, fmax((x1 - x0) * scale, 1),
			    fill);
		strbuf_release(&label);
	}
	strbuf_addstr(o, "</svg>\n");
}

/* Histograms of the decode step times of A and B over shared bins. */
static void svg_steps(const struct diff_samples *s, struct strbuf *o)
{
	enum { BINS = 40, H = 160 };
	size_t ca[BINS] = {0}, cb[BINS] = {0}, top = 1;
	double lo = s->a[0], hi = s->a[s->na - 1], bw = (W - 40) / (2.0 * BINS);

	lo = fmin(lo, s->b[0]);
	hi = fmax(hi, s->b[s->nb - 1]);
	for (size_t i = 0; i < s->na; i++)
		ca[hi > lo ? (size_t)fmin(BINS - 1, (s->a[i] - lo) / (hi - lo) * BINS) : 0]++;
	for (size_t i = 0; i < s->nb; i++)
		cb[hi > lo ? (size_t)fmin(BINS - 1, (s->b[i] - lo) / (hi - lo) * BINS) : 0]++;
	for (size_t i = 0; i < BINS; i++)
		top = ca[i] > top ? ca[i] : cb[i] > top ? cb[i] : top;
	strbuf_addf(o,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "font-family=\"sans-serif\" font-size=\"11\">\n",
		    W, H + 40);
	for (size_t i = 0; i < BINS; i++) {
		double x = 20 + (double)i * 2 * bw, ha = (double)ca[i] / (double)top * H;
		double hb = (double)cb[i] / (double)top * H;

		strbuf_addf(o,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"#2c7fb8\"/><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"#f39c12\"/>\n",
			    x, 10 + H - ha, bw, ha, x + bw, 10 + H - hb, bw, hb);
	}
	strbuf_addf(o,
		    "<text x=\"20\" y=\"%d\">%.3f ms</text>"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3f ms</text>"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#2c7fb8\">A (%zu "
		    "steps)</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		    "fill=\"#f39c12\">B (%zu steps)</text>\n</svg>\n",
		    H + 25, lo, W - 20, H + 25, hi, W / 2 - 60, H + 38, s->na, W / 2 + 60, H + 38,
		    s->nb);
}

static void html_metrics(const struct diff *d, struct strbuf *o)
{
	struct table t;

	strbuf_addstr(o, "<h2>Metrics</h2>\n");
	diff_table_metrics(d, &t);
	table_write_html(&t, o, "data");
	table_release(&t);
}

void diff_render_html(const struct diff *d, struct strbuf *o)
{
	strbuf_addstr(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
			 "<title>llmprof diff</title>\n<style>body{font-family:sans-serif;"
			 "max-width:960px;margin:1em auto}table{border-collapse:collapse}"
			 "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
			 ".num{text-align:right}</style></head><body>\n"
			 "<h1>llmprof diff</h1>\n<p>A: <code>");
	esc(o, d->a.label);
	strbuf_addstr(o, "</code><br>B: <code>");
	esc(o, d->b.label);
	strbuf_addstr(o, "</code></p>\n");
	if (d->gate_text) {
		strbuf_addstr(o, "<p><b>");
		esc(o, d->gate_text);
		strbuf_addstr(o, "</b></p>\n");
	}
	for (size_t i = 0; i < d->nr_notes; i++) {
		strbuf_addstr(o, "<p>");
		esc(o, d->notes[i]);
		strbuf_addstr(o, "</p>\n");
	}
	html_metrics(d, o);
	for (int r = 0; r < REPORT_ROLE_OTHER; r++)
		if (d->falls[r].available) {
			strbuf_addf(o, "<h2>Waterfall: %s GPU time</h2>\n",
				    report_role_name(d->falls[r].role));
			svg_fall(&d->falls[r], o);
		}
	if (d->steps.na && d->steps.nb) {
		strbuf_addstr(
		    o, "<h2>Decode step GPU span (first to last kernel of each step)</h2>\n");
		svg_steps(&d->steps, o);
	}
	strbuf_addf(o, "<p>Details: %s, %s.</p>\n</body></html>\n", bundle_art(BA_DIFF_MD),
		    bundle_art(BA_DIFF_JSON));
}
