/* nsys_diag.h: recognising how an nsys run went wrong, from what nsys left
 * behind: its exit status, its stdout/stderr text, the files in nsys/, and
 * the exported SQLite. Each finding is a code, a one-line explanation and a
 * one-line fix. Messages matched here were observed from real nsys runs (see
 * tests/data/nsys/) or are cited from public reports where we could not
 * reproduce them; nothing is invented.
 *
 * Everything but nsys_diag_sqlite() is pure text processing.
 *
 * Ownership: struct nsys_diag owns its findings; nsys_diag_release(). */
#ifndef LLMPROF_VENDOR_NSYS_DIAG_H
#define LLMPROF_VENDOR_NSYS_DIAG_H

#include <stddef.h>

#include "core/strbuf.h"
#include "nsight/nsys.h"

enum nsys_diag_code {
	NSYS_DIAG_NO_REPORT_GATED = 1, /* NVTX/cudaProfilerApi gate never opened */
	NSYS_DIAG_NO_REPORT,	       /* no report, no gating: program died early? */
	NSYS_DIAG_IMPORTER_MISSING,    /* .qdstrm left: no QdstrmImporter found */
	NSYS_DIAG_IMPORTER_FAILED,     /* .qdstrm left: importer could not start */
	NSYS_DIAG_PROGRAM_NOT_FOUND,   /* nsys could not find the program */
	NSYS_DIAG_BAD_OPTION,	       /* nsys rejected an option */
	NSYS_DIAG_OUTPUT_DIR,	       /* report written elsewhere: -o dir missing */
	NSYS_DIAG_KILLED_AT_RANGE_END, /* stop-shutdown: nsys ended the program (SIGTERM) */
	NSYS_DIAG_CUPTI_CONFLICT,      /* another CUPTI subscriber (torch profiler, ...) */
	NSYS_DIAG_REPORT_TOO_NEW,      /* report from a newer nsys than the one exporting */
	NSYS_DIAG_NO_KERNELS,	       /* export has no CUPTI_ACTIVITY_KIND_KERNEL rows */
	NSYS_DIAG_GRAPHS_NOT_NODES,    /* CUDA graphs traced whole: no per-kernel rows */
	NSYS_DIAG_NSYS_FAILED,	       /* nsys stopped before listing any report */
};

struct nsys_finding {
	enum nsys_diag_code code;
	struct strbuf explain; /* one line: what happened */
	struct strbuf fix;     /* one line: what to do */
};

struct nsys_diag {
	struct nsys_finding *items;
	size_t nr, alloc;
};
#define NSYS_DIAG_INIT                                                                             \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}
void nsys_diag_release(struct nsys_diag *d);
/* The stable name of a code, e.g. "no-report-gated" (status.json, tests). */
const char *nsys_diag_code_name(enum nsys_diag_code code);
/* The finding with this code, or NULL. */
const struct nsys_finding *nsys_diag_find(const struct nsys_diag *d, enum nsys_diag_code code);

/* What one `nsys profile` run left behind. */
struct nsys_profile_outcome {
	const char *const *argv; /* the nsys profile argv that ran (NULL-terminated) */
	int exited, exit_code;	 /* as from waitpid */
	int signaled, term_signal;
	const char *out;
	size_t out_len; /* nsys's stdout (program output mixed in) */
	const char *err;
	size_t err_len;	  /* nsys's stderr */
	size_t n_reports; /* .nsys-rep files found for the output base */
	size_t n_qdstrm;  /* .qdstrm files found for the output base */
	/* the NVTX ranges the program emits (from `llmprof nvtx`), may be NULL */
	const struct nsys_nvtx_range *known;
	size_t n_known;
	/* the importer's own output when started by the probe, may be NULL */
	const char *importer_text;
	size_t importer_len;
};

/* Adds the findings for one profile run. Pure. */
void nsys_diag_profile(const struct nsys_profile_outcome *o, struct nsys_diag *d);

/* Adds findings from the text of an `nsys export`/`nsys stats` run. Pure. */
void nsys_diag_export_text(const char *text, size_t len, struct nsys_diag *d);

/* Adds findings from an exported SQLite: no kernel table or no kernel rows,
 * and CUDA graphs traced as whole graphs. 0, or -1 with err when the file
 * cannot be opened as SQLite. */
int nsys_diag_sqlite(const char *path, struct nsys_diag *d, struct strbuf *err);

/* Splits an nsys --nvtx-capture expression at its last unescaped '@' into
 * range and domain (unescaped; domain "" = default domain, "*" = any). */
void nsys_nvtx_expr_split(const char *expr, struct strbuf *range, struct strbuf *domain);

#endif
