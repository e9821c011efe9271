/* layout.c: the table of a run bundle's files; see layout.h. The names
 * here are the only spelling of each file name in llmprof's C. */
#include <stdarg.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/util.h"
#include "core/banned.h"

#define DIR BUNDLE_ART_DIR
#define OURS (BUNDLE_ART_DIR | BUNDLE_ART_OURS)
#define RUN BUNDLE_IN_RUN
#define OUT BUNDLE_IN_REPORT

/* In the order of enum bundle_art (checked by bundle_art_row()). */
static const struct bundle_art_row rows[] = {
    {BA_STATUS, RUN, "status.json", "profile, after every change", "report, diff, merge",
     "what ran and how it ended: each step's state, times and message, the exit code", 0},
    {BA_CONFIG, RUN, "config.yaml", "provenance", "report, diff",
     "the resolved configuration (`llmprof config show` format)", 0},
    {BA_ENV, RUN, "env.json", "provenance", "report, diff",
     "where it ran: host, GPUs, driver, CUDA, tools, argv", 0},
    {BA_INPUTS, RUN, "inputs.yaml", "provenance", "people",
     "what ran: the workload's argv, model and shape", 0},
    {BA_RANK, RUN, "rank.json", "profile --rank-dir, before the steps", "merge, report",
     "rank, world_size, local_rank, launcher, source (the variable), host", 0},
    {BA_REFERENCE, RUN, "reference.json", "reference, with pipeline.trace.reference_run_max_s",
     "the reports",
     "the program's wall time traced and untraced (docs/tracer.md \"What tracing costs\")", 0},
    {BA_COLLECTIVES, RUN, "collectives.tsv", "analyze, when the trace ran NCCL kernels", "merge",
     "the rank's NCCL kernels and their gaps, stage windows, steps, host and clock", 0},
    {BA_LOGS_DIR, RUN, "logs", "profile", "people", "every child step's logs", OURS},
    {BA_LOG_OUT, RUN, "logs/<step>.out", "each child step", "people, the live status line",
     "the step's stdout, complete", 0},
    {BA_LOG_ERR, RUN, "logs/<step>.err", "each child step", "people, the live status line",
     "the step's stderr, complete", 0},
    {BA_LOG_ARGV, RUN, "logs/<step>.argv", "each child step", "people",
     "the step's exact argv, one argument per line", 0},
    {BA_LOG_ENV, RUN, "logs/<step>.env", "each child step", "people",
     "environment variables llmprof added, one per line", 0},
    {BA_LOG_PYTORCH, RUN, "logs/pytorch.log",
     "the PyTorch startup module, when a process imported torch", "people, report (Trust)",
     "the startup module's lines (pytorch.md)", 0},
    {BA_TRACE_DIR, RUN, "trace", "profile (builtin backend)", "-", "the builtin tracer's trace",
     OURS},
    {BA_TRACE_LOG_DIR, RUN, "trace/log", "profile (builtin backend)", "-",
     "the tracer's logs, one per process", OURS},
    {BA_TRACE_LOG, RUN, "trace/log/trace-<pid>.bin", "the tracer, in the program", "trace",
     "one process's CUDA, NVTX and CPU-sample records", 0},
    {BA_TRACE_SQLITE, RUN, "trace/trace.sqlite", "trace", "analyze, report, diff, nsys stats",
     "the trace in nsys's SQLite schema", 0},
    {BA_TRACE_JSON, RUN, "trace/trace.json", "trace", "Perfetto", "the trace for Perfetto", 0},
    {BA_NSYS_DIR, RUN, "nsys", "profile (nsys backend)", "-", "nsys's files", OURS},
    {BA_NSYS_CMD, RUN, "nsys/cmd.txt", "profile, before the steps", "people",
     "every nsys command of the run, shell-quoted", 0},
    {BA_NSYS_REP, RUN, "nsys/run.nsys-rep", "workload (nsys profile)", "nsys-export, Nsight",
     "nsys's report", 0},
    {BA_NSYS_SQLITE, RUN, "nsys/run.sqlite", "nsys-export", "analyze, report, diff",
     "nsys's SQLite export", 0},
    {BA_NSYS_SUMMARY, RUN, "nsys/summary_cuda_gpu_kern_sum.csv", "nsys-stats",
     "report (when there is no SQLite export)", "nsys stats' kernel summary", 0},
    {BA_WORKLOAD_DIR, RUN, "workload", "profile", "-", "what the workload says of itself", OURS},
    {BA_ANALYTIC, RUN, "workload/analytic.json",
     "the built-in llm; profile for a program with a model preset", "the reports",
     "analytic FLOPs and bytes per stage, for MFU/MBU", 0},
    {BA_NCU_DIR, RUN, "ncu", "select", "-", "kernel selection and Nsight Compute's files", OURS},
    {BA_NCU_SELECTION, RUN, "ncu/selection.json", "select", "ncu, join, the reports",
     "the kernel classes chosen for counters and why", 0},
    {BA_NCU_SECTIONS, RUN, "ncu/sections.txt", "ncu", "people",
     "`ncu --list-sections`, checked before the capture", 0},
    {BA_NCU_METRICS, RUN, "ncu/metrics.txt", "ncu, when metrics are requested", "people",
     "`ncu --query-metrics`, checked before the capture", 0},
    {BA_NCU_CMD, RUN, "ncu/cmd.txt", "ncu", "people", "every ncu command, shell-quoted", 0},
    {BA_NCU_CAPTURE, RUN, "ncu/k<i>.ncu-rep", "ncu", "Nsight Compute",
     "capture i's report (k0: the one pass over every selected kernel, where ncu can)", 0},
    {BA_NCU_CAPTURE_RAW, RUN, "ncu/k<i>.raw.csv", "ncu", "ncu (merged into ncu/raw.csv)",
     "capture i's raw page", 0},
    {BA_NCU_CAPTURE_NAMES, RUN, "ncu/k<i>.<base>.csv", "ncu", "ncu",
     "capture i's kernel names in one base (mangled, demangled, function)", 0},
    {BA_NCU_RAW, RUN, "ncu/raw.csv", "ncu", "join, report", "every capture's raw page, merged", 0},
    {BA_NCU_MANGLED, RUN, "ncu/mangled.csv", "ncu", "join",
     "the same results' mangled names, same IDs (optional)", 0},
    {BA_NCU_SECTIONS_REPORT, RUN, "ncu/sections_report.txt", "ncu, when sections are configured",
     "people", "ncu's own section tables", 0},
    {BA_NCU_MEASURED, RUN, "ncu/measured.json", "ncu", "join, the reports",
     "per capture what ncu measured, and per result the trace launch it measured", 0},
    {BA_NCU_REGIONS_DIR, RUN, "ncu/regions", "ncu", "-", "ncu's NVTX range results", OURS},
    {BA_NCU_REGIONS_MD, RUN, "ncu/regions/report.md", "ncu", "people",
     "the NVTX regions ncu measured", 0},
    {BA_NCU_REGIONS_JSON, RUN, "ncu/regions/report.json", "ncu", "scripts", "the same as JSON", 0},
    {BA_NCU_REGION_METRICS, RUN, "ncu/regions/<region>/metrics.json", "ncu", "scripts",
     "every metric of one region", 0},
    {BA_KERNELS_MD, RUN, "kernels.md", "reports; report", "people",
     "the top kernels (run.report_rows) with timings and counters", 0},
    {BA_KERNELS_TSV, RUN, "kernels.tsv", "reports; report", "scripts, people",
     "every kernel, one line each, with timings, counters and full name", 0},
    {BA_OPERATORS_MD, RUN, "operators.md", "reports; report", "people", "operator ranges", 0},
    {BA_REPORT_MD, RUN, "report.md", "reports; report", "people",
     "the report: stages, MFU/MBU, findings, trust", 0},
    {BA_SUMMARY_MD, RUN, "stakeholder_summary.md", "reports; report", "people",
     "the one-page summary", 0},
    {BA_METRICS_JSON, RUN, "metrics.json", "reports; report", "diff, merge, scripts",
     "every number of the reports (docs/metrics-json.md)", 0},
    {BA_REPORT_HTML, RUN, "report.html", "reports; report", "people",
     "the report with charts, one file", 0},
    {BA_CHARTS_DIR, RUN, "charts", "reports; report", "-", "the reports' charts", OURS},
    {BA_CHART_TIMELINE, RUN, "charts/timeline.svg", "reports; report", "report.md, people",
     "the stage timeline", 0},
    {BA_CHART_KERNELS, RUN, "charts/kernels.svg", "reports; report", "report.md, people",
     "the top kernels", 0},
    {BA_CHART_ROOFLINE, RUN, "charts/roofline.svg", "reports; report", "report.md, people",
     "the roofline", 0},
    {BA_OUT_TRACE_JSON, OUT, "trace.json", "report --trace", "Perfetto", "the trace for Perfetto",
     0},
    {BA_OUT_KERNELS_JSON, OUT, "kernels.json", "report --ncu-csv", "scripts",
     "every kernel of the export, or a last row summing the rest", 0},
    {BA_OUT_REGIONS_DIR, OUT, "regions", "report --ncu-csv", "-", "the export's NVTX regions",
     OURS},
    {BA_OUT_REGIONS_MD, OUT, "regions/report.md", "report --ncu-csv", "people",
     "the NVTX regions of the export, or why there are none", 0},
    {BA_OUT_REGIONS_JSON, OUT, "regions/report.json", "report --ncu-csv", "scripts",
     "the same as JSON", 0},
    {BA_OUT_REGION_METRICS, OUT, "regions/<region>/metrics.json", "report --ncu-csv", "scripts",
     "every metric of one region", 0},
    {BA_RANKS_DIR, BUNDLE_IN_RANK_DIR, "ranks", "profile --rank-dir", "merge",
     "one run bundle per rank", DIR},
    {BA_RANK_BUNDLE, BUNDLE_IN_RANK_DIR, "ranks/<rank>", "profile --rank-dir", "merge",
     "one rank's complete run bundle", DIR},
    {BA_MERGED_DIR, BUNDLE_IN_RANK_DIR, "merged", "the last rank to end; merge", "-",
     "the cross-rank reports", DIR},
    {BA_MERGED_MD, BUNDLE_IN_RANK_DIR, "merged/merged.md", "the last rank to end; merge", "people",
     "the ranks side by side, collectives, stragglers", 0},
    {BA_MERGED_JSON, BUNDLE_IN_RANK_DIR, "merged/merged.json", "the last rank to end; merge",
     "scripts", "the same as JSON (schema llmprof.merged/1)", 0},
    {BA_DIFF_MD, BUNDLE_IN_DIFF, "diff.md", "diff -o", "people", "what changed between A and B", 0},
    {BA_DIFF_JSON, BUNDLE_IN_DIFF, "diff.json", "diff -o", "scripts", "the same as JSON", 0},
    {BA_DIFF_HTML, BUNDLE_IN_DIFF, "diff.html", "diff -o", "people", "the same as HTML", 0},
    {BA_NVTX_SQLITE, BUNDLE_IN_NVTX, "trace.sqlite", "nvtx --keep", "people", "the NVTX-only trace",
     0},
    {BA_NVTX_LOGS_DIR, BUNDLE_IN_NVTX, "logs", "nvtx --keep", "nvtx",
     "the tracer's logs of the program", DIR},
};

#undef DIR
#undef OURS
#undef RUN
#undef OUT

const struct bundle_art_row *bundle_layout(size_t *n)
{
	*n = ARRAY_SIZE(rows);
	return rows;
}

const struct bundle_art_row *bundle_art_row(enum bundle_art a)
{
	if ((size_t)a >= ARRAY_SIZE(rows) || rows[a].id != a)
		BUG("bundle artifact %d is not row %d of the layout", (int)a, (int)a);
	return &rows[a];
}

const char *bundle_art(enum bundle_art a)
{
	return bundle_art_row(a)->path;
}

const char *bundle_art_base(enum bundle_art a)
{
	const char *p = bundle_art(a), *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

void bundle_art_fill(struct strbuf *sb, enum bundle_art a, ...)
{
	const char *p = bundle_art(a);
	va_list ap;

	va_start(ap, a);
	while (*p) {
		const char *lt = strchr(p, '<'), *gt = lt ? strchr(lt, '>') : NULL;

		if (!lt || !gt) {
			strbuf_addstr(sb, p);
			break;
		}
		strbuf_add(sb, p, (size_t)(lt - p));
		strbuf_addstr(sb, va_arg(ap, const char *));
		p = gt + 1;
	}
	va_end(ap);
}

void bundle_art_stem(struct strbuf *sb, enum bundle_art a)
{
	const char *p = bundle_art(a), *base = bundle_art_base(a), *dot = strchr(base, '.');

	strbuf_add(sb, p, dot ? (size_t)(dot - p) : strlen(p));
}

void bundle_path_stem(struct strbuf *sb)
{
	const char *slash = strrchr(sb->buf, '/');
	const char *dot = strchr(slash ? slash + 1 : sb->buf, '.');

	if (dot)
		strbuf_setlen(sb, (size_t)(dot - sb->buf));
}

int bundle_mangled_beside(const char *path, struct strbuf *sb)
{
	const char *raw = bundle_art_base(BA_NCU_RAW);
	size_t n = strlen(path), r = strlen(raw);

	if (n < r || strcmp(path + n - r, raw))
		return -1;
	strbuf_add(sb, path, n - r);
	strbuf_addstr(sb, bundle_art_base(BA_NCU_MANGLED));
	return 0;
}

void bundle_reports_list(struct strbuf *sb)
{
	for (int a = BA_KERNELS_MD; a <= BA_CHARTS_DIR; a++)
		strbuf_addf(sb, "%s%s%s", a == BA_KERNELS_MD ? "" : " ", bundle_art(a),
			    a == BA_CHARTS_DIR ? "/" : "");
}

static const char *const place_title[BUNDLE_PLACE_NR] = {
    [BUNDLE_IN_RUN] = "In a run bundle (`<artifacts.root>/<run_id>/`, or `RUN/ranks/<rank>/`)",
    [BUNDLE_IN_REPORT] = "In `report --trace FILE -o DIR` and `report --ncu-csv RAW.csv -o DIR`",
    [BUNDLE_IN_RANK_DIR] = "In the `RUN` of `profile --rank-dir RUN` and `merge RUN`",
    [BUNDLE_IN_DIFF] = "In `diff -o DIR`",
    [BUNDLE_IN_NVTX] = "In `nvtx --keep DIR`",
};

void bundle_layout_markdown(struct strbuf *out)
{
	for (int p = 0; p < BUNDLE_PLACE_NR; p++) {
		strbuf_addf(out, "%s%s:\n\n", p ? "\n" : "", place_title[p]);
		strbuf_addstr(out, "| file | written by | read by | what it holds |\n"
				   "|---|---|---|---|\n");
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			const struct bundle_art_row *r = &rows[i];

			if ((int)r->place != p)
				continue;
			strbuf_addf(out, "| `%s%s` | %s | %s | %s |\n", r->path,
				    r->flags & BUNDLE_ART_DIR ? "/" : "", r->writer, r->readers,
				    r->doc);
		}
	}
}
