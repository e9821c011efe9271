/* html.c: report.html, one self-contained XHTML-compatible page (inline CSS
 * and SVG, a few lines of inline script that sort the tables, no external
 * resource; readable without script) and report_write_all(). */
#include <ctype.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/bundle_dir.h"
#include "model/format.h"
#include "report/report.h"
#include "report/svg.h"
#include "report/model_tables.h"
#include "trace/kname.h"
#include "report/kernels_tsv.h"
#include "core/banned.h"

/* Kernels listed in the HTML table; kernels.md has all of them. */
#define HTML_KERNEL_ROWS 50
/* Short kernel names: characters shown; the full name is the cell's title. */
#define HTML_KNAME_MAX 48
/* Code spans in findings longer than this read as a kernel's base name. */
#define HTML_CODE_SHORTEN 60

static const char css[] =
    "body{font-family:Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fafafa}"
    "header{background:#1f2d3d;color:#fff;padding:18px 32px}"
    "header h1{margin:0 0 6px 0;font-size:24px}"
    "header p{margin:4px 0;font-size:14px;color:#d5dde6}"
    "nav{padding:8px 32px;background:#e9edf2;font-size:14px}"
    "nav a{margin-right:16px;color:#1f4e79;text-decoration:none}"
    "main{padding:8px 32px 32px 32px;max-width:1800px}"
    "section{background:#fff;border:1px solid #e1e4e8;border-radius:6px;padding:12px 20px;"
    "margin:16px 0}"
    "h2{font-size:19px;margin:6px 0 12px 0;color:#1f2d3d}"
    "h3{font-size:15px;margin:14px 0 8px 0}"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}"
    "th,td{border-bottom:1px solid #e6e6e6;padding:4px 10px;text-align:left;vertical-align:top}"
    "th{background:#f3f5f7;font-weight:600}"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.num{white-space:nowrap}"
    ".tablewrap{overflow-x:auto;max-width:100%}"
    "table.data th:first-child,table.data td:first-child{position:sticky;left:0;z-index:1;"
    "background:#fff;box-shadow:1px 0 0 #e6e6e6}"
    "table.data th:first-child{background:#f3f5f7}"
    "table.sortable th{cursor:pointer}"
    "table.kernels td:first-child{white-space:nowrap}"
    "table.kernels td:first-child code{word-break:normal}"
    ".rk{display:inline-block;min-width:2em;color:#555;font-variant-numeric:tabular-nums}"
    "code{font-family:Menlo,Consolas,monospace;font-size:12px;word-break:break-all}"
    ".status{font-weight:600}.status.bad{color:#ffb4a8}"
    ".finding{margin:6px 0;padding:8px 12px;border-left:4px solid #9d9d9d;background:#f7f7f7}"
    ".finding.critical{border-color:#c0392b}.finding.warning{border-color:#e67e22}"
    ".finding.info{border-color:#2980b9}"
    ".sev{font-size:11px;text-transform:uppercase;font-weight:700;margin-right:8px}"
    ".rec{margin-top:4px;color:#333}"
    ".note{font-size:13px;color:#555}"
    ".chart{overflow-x:auto}"
    "details{font-size:13px}";

void md_inline_html(struct strbuf *out, const char *md)
{
	const char *p = md;

	while (p && *p) {
		if (*p == '`') {
			size_t n = strspn(p, "`");
			const char *body = p + n, *q = body;
			struct strbuf code = STRBUF_INIT;

			/* find a closing run of exactly n backticks */
			while (*q) {
				size_t r = strspn(q, "`");
				if (r == n)
					break;
				q += r ? r : 1;
			}
			if (!*q) { /* unmatched: literal backticks */
				strbuf_add(out, p, n);
				p = body;
				continue;
			}
			for (const char *c = body; c < q; c++) {
				if (*c == '\\' && c[1] == '|')
					continue;
				strbuf_addch(&code, *c);
			}
			strbuf_trim(&code);
			if (code.len > HTML_CODE_SHORTEN) {
				/* a kernel signature: its base name, the whole on hover */
				struct strbuf b = STRBUF_INIT;

				kname_display(&b, code.buf, KNAME_UNWRAP | KNAME_KEEP_SHORT,
					      HTML_KNAME_MAX);
				strbuf_addstr(out, "<code title=\"");
				xml_text(out, code.buf);
				strbuf_addstr(out, "\">");
				xml_text(out, b.buf);
				strbuf_release(&b);
			} else {
				strbuf_addstr(out, "<code>");
				xml_text(out, code.buf);
			}
			strbuf_addstr(out, "</code>");
			strbuf_release(&code);
			p = q + n;
			continue;
		}
		{
			size_t n = strcspn(p, "`");
			struct strbuf txt = STRBUF_INIT;

			/* outside code spans, "\X" (X punctuation) is a literal X;
			 * the text between backslashes is copied a run at a time */
			for (size_t i = 0; i < n;) {
				const char *bs = memchr(p + i, '\\', n - i);
				size_t k = bs ? (size_t)(bs - p) : n;

				strbuf_add(&txt, p + i, k - i);
				if (k == n)
					break;
				if (k + 1 < n && ispunct((unsigned char)p[k + 1]))
					k++;
				strbuf_addch(&txt, p[k]);
				i = k + 1;
			}
			xml_text(out, txt.buf);
			strbuf_release(&txt);
			p += n;
		}
	}
}

/* Sorts a table.sortable by the clicked column (numbers as numbers, again
 * to reverse). No '<' or '&', so the page stays well-formed XML. */
static const char sort_script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.title='click to sort';th.addEventListener('click',function(){"
    "var tb=th.closest('table').tBodies[0];if(!tb)return;"
    "var i=th.cellIndex,d=th.dataset.d==='1'?-1:1;th.dataset.d=d===1?'1':'0';"
    "var v=function(r){var t=r.cells[i]?r.cells[i].textContent.replace(/,/g,''):'';"
    "var n=parseFloat(t);return isNaN(n)?[1,t]:[0,n];};"
    "Array.from(tb.rows).sort(function(a,b){var x=v(a),y=v(b);"
    "if(x[0]!==y[0])return x[0]-y[0];return(x[1]>y[1]?1:y[1]>x[1]?-1:0)*d;})"
    ".forEach(function(r){tb.appendChild(r);});});});";

static void html_table(struct table *t, struct strbuf *out)
{
	table_write_html(t, out, "data sortable");
	table_release(t);
}

/* The kernels: rank and short name in the first (sticky) column, the full
 * name as its title and the operator under it; the other columns as
 * rtable_kernels_full has them, but its last (Operator), so the table keeps
 * fitting a 1366 px screen. The one table whose HTML is not
 * table_write_html()'s (a cell with a title and two lines), it is written
 * here from the same struct table report.md's kernel table comes from. */
static void kernels_table_html(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	struct strbuf b = STRBUF_INIT;

	rtable_kernels_full(m, &t);
	strbuf_addstr(out, "<div class=\"tablewrap\"><table class=\"data sortable kernels\">\n"
			   "<thead><tr><th>Kernel (operator)</th>");
	for (size_t c = 2; c + 1 < t.ncols; c++) {
		strbuf_addf(out, "<th%s>", t.kinds[c] == TABLE_NUM ? " class=\"num\"" : "");
		xml_text(out, t.names[c]);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t.nrows; r++) {
		const struct report_kernel *k = &m->kernels[r];

		strbuf_reset(&b);
		kname_display(&b, k->short_name, KNAME_UNWRAP | KNAME_KEEP_SHORT, HTML_KNAME_MAX);
		strbuf_addstr(out, "<tr><td title=\"");
		xml_text(out, k->full_name ? k->full_name : k->short_name);
		strbuf_addf(out, "\"><span class=\"rk\">%zu</span> <code>", r + 1);
		xml_text(out, b.buf);
		strbuf_addstr(out, "</code>");
		if (k->op) {
			strbuf_addstr(out, "<br><small>");
			xml_text(out, table_cell(&t, r, t.ncols - 1));
			strbuf_addstr(out, "</small>");
		}
		strbuf_addstr(out, "</td>");
		for (size_t c = 2; c + 1 < t.ncols; c++) {
			strbuf_addf(out, "<td%s>", t.kinds[c] == TABLE_NUM ? " class=\"num\"" : "");
			xml_text(out, table_cell(&t, r, c));
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</tbody>\n</table></div>\n");
	strbuf_release(&b);
	table_release(&t);
}

/* The status line; "every report below is complete" does not stand beside
 * a critical finding. Returns 1 when the line is a warning. */
static int status_html(const struct report_model *m, int done, struct strbuf *s)
{
	size_t crit = 0;

	report_status_line(m, s);
	for (size_t i = 0; i < m->nr_findings; i++)
		crit += m->findings[i].severity == FINDING_CRITICAL;
	if (!done)
		return 1;
	if (!crit)
		return 0;
	if (strstr(s->buf, "every report below is complete")) {
		strbuf_reset(s);
		strbuf_addstr(s, "The pipeline finished and every step ran");
	} else if (s->len && s->buf[s->len - 1] == '.') {
		strbuf_setlen(s, s->len - 1);
	}
	strbuf_addf(s,
		    "; %zu critical finding%s below say%s what the numbers miss or where the "
		    "time goes.",
		    crit, crit == 1 ? "" : "s", crit == 1 ? "s" : "");
	return 1;
}

static void section_open(struct strbuf *out, const char *id, const char *title)
{
	strbuf_addf(out, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

/* Where each stage's CPU time went, when the trace records every CUDA API
 * call (docs/report.md, "Where the CPU time goes"). */
static void cpu_time_html(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		if (!s->api_ms.available)
			continue;
		strbuf_addstr(out, "<h3>Where the CPU time goes: ");
		xml_text(out, s->name ? s->name : "stage");
		strbuf_addstr(out, " (");
		fmt_ms(out, s->cpu_ms);
		strbuf_addstr(out, " ms)</h3>\n");
		rtable_cpu_time(s, &t);
		table_write_html(&t, out, "data");
		table_release(&t);
	}
}

/* Each stage's CPU samples (docs/report.md, "Where the CPU time goes"). */
static void cpu_samples_html(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	int head = 0;

	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];
		struct strbuf cap = STRBUF_INIT;

		if (!s->cpu_samples)
			continue;
		if (!head++ && report_cpu_sampler_line(m, &cap)) {
			strbuf_addstr(out, "<p>");
			xml_text(out, cap.buf);
			strbuf_addstr(out, "</p>\n");
			strbuf_reset(&cap);
		}
		report_cpu_samples_caption(s, &cap);
		strbuf_addstr(out, "<h3>CPU samples: ");
		xml_text(out, cap.buf);
		strbuf_addstr(out, "</h3>\n");
		strbuf_release(&cap);
		rtable_cpu_sample_cats(s, &t);
		table_write_html(&t, out, "data");
		table_release(&t);
		rtable_cpu_sample_funcs(s, &t);
		table_write_html(&t, out, "data");
		table_release(&t);
	}
}

static void findings_html(const struct report_model *m, struct strbuf *out)
{
	if (!m->nr_findings) {
		strbuf_addstr(out, "<p>No rule in docs/report.md fired on this data.</p>\n");
		return;
	}
	for (size_t i = 0; i < m->nr_findings; i++) {
		const struct report_finding *f = &m->findings[i];
		const char *sev = finding_severity_name(f->severity);

		strbuf_addf(out, "<div class=\"finding %s\"><span class=\"sev\">%s</span>", sev,
			    sev);
		strbuf_addstr(out, "<code>");
		xml_text(out, f->code);
		strbuf_addstr(out, "</code> ");
		md_inline_html(out, f->text);
		if (f->recommendation) {
			strbuf_addstr(out, "<div class=\"rec\"><b>Recommendation:</b> ");
			md_inline_html(out, f->recommendation);
			strbuf_addstr(out, "</div>");
		}
		strbuf_addstr(out, "</div>\n");
	}
}

/* What could make the numbers wrong (docs/report.md, "Trust"), after the
 * findings; nothing when no trace was checked. */
static void trust_html(const struct report_model *m, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	if (!m->trust.checked)
		return;
	strbuf_addstr(out, "<h3>Trust</h3>\n");
	if (!m->trust.nr) {
		strbuf_addstr(out, "<p>" REPORT_TRUST_NONE "</p>\n");
	} else {
		rtable_trust(m, &t);
		html_table(&t, out);
	}
	if (report_tracer_cost_line(m, &sb)) {
		strbuf_addstr(out, "<p>");
		xml_text(out, sb.buf);
		strbuf_addstr(out, "</p>\n");
	}
	strbuf_reset(&sb);
	if (report_pytorch_line(m, &sb)) {
		strbuf_addstr(out, "<p>");
		xml_text(out, sb.buf);
		strbuf_addstr(out, "</p>\n");
	}
	strbuf_release(&sb);
}

/* Several processes: one row per rank, then each rank's stages, then with
 * NCCL kernels the stragglers and each rank's collectives. */
static void ranks_html(const struct report_model *m, struct strbuf *out)
{
	struct strbuf s = STRBUF_INIT;
	struct table t;

	if (m->ranks.nr < 2) {
		if (!report_nccl_shown(m))
			return;
		strbuf_addstr(out, "<h3>Collectives</h3>\n<p class=\"note\">");
		report_nccl_summary(m, &s);
		xml_text(out, s.buf);
		strbuf_release(&s);
		strbuf_addstr(out, "</p>\n");
		if (m->ranks.coll.nr_api) {
			rtable_nccl_api(m, &t);
			html_table(&t, out);
		}
		return;
	}
	strbuf_addstr(out, "<h3>Ranks</h3>\n<p class=\"note\">");
	report_ranks_intro(m, &s);
	xml_text(out, s.buf);
	strbuf_release(&s);
	strbuf_addstr(out, "</p>\n");
	rtable_ranks(m, &t);
	html_table(&t, out);
	rtable_rank_stages(m, &t);
	html_table(&t, out);
	report_ranks_util_basis(m, &s);
	if (s.len) {
		strbuf_addstr(out, "<p class=\"note\">");
		strbuf_trim(&s);
		xml_text(out, s.buf);
		strbuf_addstr(out, "</p>\n");
	}
	strbuf_release(&s);
	if (!report_coll_shown(m))
		return;
	/* the collectives: the straggler table is what a reader of a multi-rank
	 * run looks for first */
	strbuf_addstr(out, "<h3>Collectives</h3>\n<p class=\"note\">");
	report_coll_summary(m, &s);
	report_nccl_summary(m, &s);
	xml_text(out, s.buf);
	strbuf_release(&s);
	strbuf_addstr(out, "</p>\n");
	rtable_coll_stragglers(m, &t);
	if (t.nrows)
		table_write_html(&t, out, "data sortable");
	table_release(&t);
	rtable_coll_late(m, &t); /* per stage, why they are late */
	if (t.nrows)
		table_write_html(&t, out, "data sortable");
	table_release(&t);
	rtable_coll_ranks(m, &t);
	html_table(&t, out);
	if (m->ranks.coll.nr_api) {
		rtable_nccl_api(m, &t);
		html_table(&t, out);
	}
}

/* The operators section: by class first when the operators have classes
 * (docs/pytorch.md "Operator tables"), then every operator range. */
static void operators_html(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	section_open(out, "operators", "Operators");
	if (m->nr_ops) {
		if (m->nr_op_classes) {
			strbuf_addstr(out, "<h3>By module class</h3>\n");
			rtable_op_classes(m, &t, 0);
			html_table(&t, out);
			strbuf_addstr(out, "<h3>By module path</h3>\n");
		}
		rtable_operators(m, &t, 0);
		html_table(&t, out);
	} else {
		strbuf_addstr(out, "<p>No operator ranges were captured.</p>\n");
	}
	strbuf_addstr(out, "</section>\n");
}

void report_render_html(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	struct strbuf s = STRBUF_INIT;
	int done = report_model_complete(m);

	strbuf_addstr(out,
		      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
		      "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		      "<title>llmprof report");
	if (m->run.run_id) {
		strbuf_addstr(out, ": ");
		xml_text(out, m->run.run_id);
	}
	strbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n", css);
	strbuf_addf(out, "<h1>Profiling report%s</h1>\n", done ? "" : ": INCOMPLETE");
	strbuf_addf(out, "<p class=\"status%s\">", status_html(m, done, &s) ? " bad" : "");
	xml_text(out, s.buf);
	strbuf_reset(&s);
	strbuf_addstr(out, "</p>\n<p>");
	report_headline(m, &s);
	xml_text(out, s.buf);
	strbuf_reset(&s);
	strbuf_addstr(out, "</p>\n</header>\n<nav><a href=\"#findings\">Findings</a>"
			   "<a href=\"#timeline\">Timeline</a><a href=\"#stages\">Stages</a>"
			   "<a href=\"#utilization\">MFU / MBU</a><a href=\"#kernels\">Kernels</a>"
			   "<a href=\"#operators\">Operators</a><a href=\"#environment\">"
			   "Environment</a></nav>\n<main>\n");

	section_open(out, "findings", "Findings and recommendations");
	findings_html(m, out);
	trust_html(m, out);
	strbuf_addstr(out, "</section>\n");

	section_open(out, "timeline", "Stage timeline");
	strbuf_addstr(out, "<p class=\"note\">NVTX stage ranges (CPU time) and GPU activity per "
			   "stream, binned to pixel columns; a lighter column is partly idle.</p>\n"
			   "<div class=\"chart\">\n");
	svg_timeline(out, m, REPORT_CHART_WIDTH);
	strbuf_addstr(out, "</div>\n</section>\n");

	section_open(out, "stages", "Per-stage timings");
	if (m->nr_stages) {
		rtable_stages(m, &t);
		html_table(&t, out);
		rtable_decode_steps(m, &t);
		if (t.nrows) {
			strbuf_addstr(out,
				      "<h3>Decode steps: wall time per step and GPU span</h3>\n");
			table_write_html(&t, out, "data sortable");
		}
		table_release(&t);
		cpu_time_html(m, out);
		cpu_samples_html(m, out);
	} else {
		strbuf_addstr(out, "<p>No stage ranges were found in the trace.</p>\n");
	}
	strbuf_addstr(out, "<h3>Aggregates</h3>\n");
	rtable_aggregates(m, &t);
	html_table(&t, out);
	ranks_html(m, out);
	strbuf_addstr(out, "</section>\n");

	section_open(out, "utilization", "MFU and MBU");
	strbuf_addstr(out,
		      "<p class=\"note\">MFU = model FLOPs / stage time / peak; MBU = model "
		      "bytes / stage time / peak bandwidth. Prefill is judged by MFU, decode by "
		      "MBU. Datasheet peaks are dense; measured ceilings come from "
		      "<code>llmprof calibrate</code>.</p>\n");
	if (m->nr_stages) {
		rtable_utilization(m, &t);
		html_table(&t, out);
	}
	rtable_peaks(m, &t);
	html_table(&t, out);
	if (m->peaks.nr_notes) {
		strbuf_addstr(out, "<ul class=\"note\">\n");
		for (size_t i = 0; i < m->peaks.nr_notes; i++) {
			strbuf_addstr(out, "<li>");
			xml_text(out, m->peaks.notes[i]);
			strbuf_addstr(out, "</li>\n");
		}
		strbuf_addstr(out, "</ul>\n");
	}
	strbuf_addstr(out, "<h3>Roofline</h3>\n<div class=\"chart\">\n");
	svg_roofline(out, m, REPORT_CHART_WIDTH);
	strbuf_addstr(out, "</div>\n</section>\n");

	section_open(out, "kernels", "Kernels");
	strbuf_addstr(out, "<div class=\"chart\">\n");
	svg_kernel_bars(out, m, REPORT_CHART_WIDTH, REPORT_CHART_TOP);
	strbuf_addstr(out, "</div>\n");
	if (m->nr_kernels) {
		struct report_model view = *m;

		/* the table shows the top rows, no row summing the rest;
		 * kernels.md lists more, kernels.tsv all */
		view.table_rows = 0;
		if (view.nr_kernels > HTML_KERNEL_ROWS)
			view.nr_kernels = HTML_KERNEL_ROWS;
		kernels_table_html(&view, out);
		if (m->nr_kernels > HTML_KERNEL_ROWS)
			strbuf_addf(out, "<p class=\"note\">%zu more kernels in %s.</p>\n",
				    m->nr_kernels - HTML_KERNEL_ROWS,
				    bundle_art(report_rows_shown(m->table_rows, m->nr_kernels) <
						       m->nr_kernels
						   ? BA_KERNELS_TSV
						   : BA_KERNELS_MD));
		strbuf_addstr(out,
			      "<details><summary>Full kernel names (by rank)</summary>\n<ol>\n");
		for (size_t i = 0; i < view.nr_kernels; i++) {
			strbuf_addstr(out, "<li><code>");
			xml_text(out, m->kernels[i].full_name);
			strbuf_addstr(out, "</code></li>\n");
		}
		strbuf_addstr(out, "</ol>\n</details>\n");
	}
	if (m->sel.available) {
		strbuf_addstr(out, "<h3>Kernel selection for counters</h3>\n");
		rtable_selection(m, &t);
		html_table(&t, out);
		if (m->sel.nr_reasons) {
			strbuf_addstr(out, "<ul class=\"note\">\n");
			for (size_t i = 0; i < m->sel.nr_reasons; i++) {
				strbuf_addstr(out, "<li>");
				xml_text(out, m->sel.reasons[i]);
				strbuf_addstr(out, "</li>\n");
			}
			strbuf_addstr(out, "</ul>\n");
		}
	}
	strbuf_addstr(out, "</section>\n");

	operators_html(m, out);

	section_open(out, "environment", "Environment and run");
	rtable_environment(m, &t);
	html_table(&t, out);
	if (m->run.nr_steps) {
		strbuf_addstr(out, "<h3>Pipeline steps</h3>\n");
		rtable_steps(m, &t);
		html_table(&t, out);
	}
	strbuf_addf(out, "</section>\n</main>\n<script>%s</script>\n</body>\n</html>\n",
		    sort_script);
	strbuf_release(&s);
}

int report_write_all(const struct report_model *m, const struct bundle_dir *bd, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	/* bd may be the user's symlink (latest); charts/ inside must be real */
	if (bundle_dir_mkdir(bd, bundle_art(BA_CHARTS_DIR), err))
		goto out;
#define EMIT_OR_GOTO_OUT(name, render)                                                             \
	do {                                                                                       \
		strbuf_reset(&sb);                                                                 \
		render;                                                                            \
		if (bundle_dir_write(bd, bundle_art(name), sb.buf, sb.len, err))                   \
			goto out;                                                                  \
	} while (0)
	EMIT_OR_GOTO_OUT(BA_KERNELS_MD, report_render_kernels_md(m, &sb));
	if (kernels_tsv_write(m, bd, err))
		goto out;
	EMIT_OR_GOTO_OUT(BA_OPERATORS_MD, report_render_operators_md(m, &sb));
	EMIT_OR_GOTO_OUT(BA_REPORT_MD, report_render_report_md(m, &sb));
	EMIT_OR_GOTO_OUT(BA_SUMMARY_MD, report_render_summary_md(m, &sb));
	EMIT_OR_GOTO_OUT(BA_REPORT_HTML, report_render_html(m, &sb));
	EMIT_OR_GOTO_OUT(BA_CHART_TIMELINE, svg_timeline(&sb, m, REPORT_CHART_WIDTH));
	EMIT_OR_GOTO_OUT(BA_CHART_KERNELS,
			 svg_kernel_bars(&sb, m, REPORT_CHART_WIDTH, REPORT_CHART_TOP));
	EMIT_OR_GOTO_OUT(BA_CHART_ROOFLINE, svg_roofline(&sb, m, REPORT_CHART_WIDTH));
	strbuf_reset(&sb);
	if (report_render_metrics_json(m, &sb, err) ||
	    bundle_dir_write(bd, bundle_art(BA_METRICS_JSON), sb.buf, sb.len, err))
		goto out;
#undef EMIT_OR_GOTO_OUT
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}
