/* layout.h: where every file of a run bundle lives, in one table
 * (layout.c): one row per artifact with its path, the step or command
 * that writes it, who reads it and one line saying what it holds. Code
 * names an artifact by its enum value, never by spelling the name
 * (tests/cli/test-bundle-names.sh fails on a name from the table spelled in
 * a .c file outside src/bundle/), and docs/run-bundle.md's table is this
 * one, printed by `llmprof help --bundle-files` (tests/cli/test-bundle-
 * names.sh compares them).
 *
 * A path is relative to the folder its row's place names (the run bundle,
 * the --rank-dir folder, the -o DIR of report, merge or diff). A part in
 * angle brackets varies ("logs/<step>.out"): bundle_art_fill() puts the
 * caller's values there. Every string returned is static. */
#ifndef LLMPROF_BUNDLE_LAYOUT_H
#define LLMPROF_BUNDLE_LAYOUT_H

#include <stddef.h>

#include "core/strbuf.h"

enum bundle_art {
	/* the run bundle's own record */
	BA_STATUS,
	BA_CONFIG,
	BA_ENV,
	BA_INPUTS,
	BA_RANK,
	BA_REFERENCE,
	BA_COLLECTIVES,
	BA_LOGS_DIR,
	BA_LOG_OUT,
	BA_LOG_ERR,
	BA_LOG_ARGV,
	BA_LOG_ENV,
	BA_LOG_PYTORCH,
	/* the builtin trace backend */
	BA_TRACE_DIR,
	BA_TRACE_LOG_DIR,
	BA_TRACE_LOG,
	BA_TRACE_SQLITE,
	BA_TRACE_JSON,
	/* the nsys backend */
	BA_NSYS_DIR,
	BA_NSYS_CMD,
	BA_NSYS_REP,
	BA_NSYS_SQLITE,
	BA_NSYS_SUMMARY,
	/* the workload */
	BA_WORKLOAD_DIR,
	BA_ANALYTIC,
	/* select and ncu */
	BA_NCU_DIR,
	BA_NCU_SELECTION,
	BA_NCU_SECTIONS,
	BA_NCU_METRICS,
	BA_NCU_CMD,
	BA_NCU_CAPTURE,
	BA_NCU_CAPTURE_RAW,
	BA_NCU_CAPTURE_NAMES,
	BA_NCU_RAW,
	BA_NCU_MANGLED,
	BA_NCU_SECTIONS_REPORT,
	BA_NCU_MEASURED,
	BA_NCU_REGIONS_DIR,
	BA_NCU_REGIONS_MD,
	BA_NCU_REGIONS_JSON,
	BA_NCU_REGION_METRICS,
	/* the reports */
	BA_KERNELS_MD,
	BA_KERNELS_TSV,
	BA_OPERATORS_MD,
	BA_REPORT_MD,
	BA_SUMMARY_MD,
	BA_METRICS_JSON,
	BA_REPORT_HTML,
	BA_CHARTS_DIR,
	BA_CHART_TIMELINE,
	BA_CHART_KERNELS,
	BA_CHART_ROOFLINE,
	/* report --trace / --ncu-csv -o DIR */
	BA_OUT_TRACE_JSON,
	BA_OUT_KERNELS_JSON,
	BA_OUT_REGIONS_DIR,
	BA_OUT_REGIONS_MD,
	BA_OUT_REGIONS_JSON,
	BA_OUT_REGION_METRICS,
	/* profile --rank-dir RUN, merge RUN */
	BA_RANKS_DIR,
	BA_RANK_BUNDLE,
	BA_MERGED_DIR,
	BA_MERGED_MD,
	BA_MERGED_JSON,
	/* diff -o DIR */
	BA_DIFF_MD,
	BA_DIFF_JSON,
	BA_DIFF_HTML,
	/* nvtx --keep DIR */
	BA_NVTX_SQLITE,
	BA_NVTX_LOGS_DIR,
	BA_NR
};

/* The folder a row's path is relative to. */
enum bundle_place {
	BUNDLE_IN_RUN,	    /* a run bundle: <artifacts.root>/<run_id>/ or RUN/ranks/<r>/ */
	BUNDLE_IN_REPORT,   /* report --trace ... / --ncu-csv ... -o DIR */
	BUNDLE_IN_RANK_DIR, /* the RUN of profile --rank-dir RUN and merge RUN */
	BUNDLE_IN_DIFF,	    /* diff -o DIR */
	BUNDLE_IN_NVTX,	    /* nvtx --keep DIR */
	BUNDLE_PLACE_NR
};

/* Row flags. */
#define BUNDLE_ART_DIR 1 /* a folder */
#define BUNDLE_ART_OURS                                                                            \
	2 /* a folder llmprof writes into: must stay a real                                        \
	     directory (run-bundle.md, "Nothing is written                                         \
	     outside the bundle") */

struct bundle_art_row {
	enum bundle_art id;
	enum bundle_place place;
	const char *path;    /* relative to place's folder; <x> varies */
	const char *writer;  /* the step or command that writes it */
	const char *readers; /* who reads it */
	const char *doc;     /* one line: what it holds */
	unsigned flags;
};

/* The row of a, and the whole table (in enum order). */
const struct bundle_art_row *bundle_art_row(enum bundle_art a);
const struct bundle_art_row *bundle_layout(size_t *n);

/* a's path ("ncu/raw.csv"); for a row with a varying part, the pattern. */
const char *bundle_art(enum bundle_art a);
/* The last component of a's path ("raw.csv"). */
const char *bundle_art_base(enum bundle_art a);
/* a's path with its varying parts, in order, replaced by the strings
 * after a (as many as the pattern has), appended to sb:
 * bundle_art_fill(sb, BA_LOG_OUT, "workload") gives "logs/workload.out". */
void bundle_art_fill(struct strbuf *sb, enum bundle_art a, ...);
/* a's path without its last extension ("nsys/run" for nsys/run.nsys-rep:
 * the base name a tool is given), appended to sb. */
void bundle_art_stem(struct strbuf *sb, enum bundle_art a);
/* Cuts sb, a path, at the first dot of its last component (ncu/k3.ncu-rep
 * -> ncu/k3): the base a tool that adds its own extension is given. */
void bundle_path_stem(struct strbuf *sb);

/* Beside an ncu raw page the same results' mangled names: a path ending
 * in "raw.csv" ends in "mangled.csv" instead (ncu/raw.csv ->
 * ncu/mangled.csv, ncu/k0.raw.csv -> ncu/k0.mangled.csv, X_raw.csv ->
 * X_mangled.csv), appended to sb. 0, or -1 when path does not end in
 * raw.csv (sb unchanged). */
int bundle_mangled_beside(const char *path, struct strbuf *sb);

/* What the reports step writes, as its status.json message says:
 * "kernels.md operators.md ... charts/", appended to sb. */
void bundle_reports_list(struct strbuf *sb);

/* The table as Markdown, one table per place, for docs/run-bundle.md. */
void bundle_layout_markdown(struct strbuf *out);

#endif
