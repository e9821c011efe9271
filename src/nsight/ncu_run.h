/* ncu_run.h: what one ncu capture said, and the merge of several raw-page
 * imports into one ncu/raw.csv. Pure functions over text, so tests can feed
 * NVIDIA's own output.
 *
 * Ownership: struct ncu_raw_merge owns its columns and rows;
 * ncu_raw_merge_release(). */
#ifndef LLMPROF_NCU_RUN_H
#define LLMPROF_NCU_RUN_H

#include <stddef.h>

#include "core/strbuf.h"

enum ncu_verdict {
	NCU_RUN_OK = 0,	    /* no known failure text */
	NCU_RUN_PERM,	    /* ERR_NVGPUCTRPERM: no access to the counters */
	NCU_RUN_NO_KERNELS, /* "No kernels were profiled" */
	NCU_RUN_NO_RANGES,  /* "No ranges were profiled" */
};

/* Scans ncu's console output (stdout + stderr). For a failure, appends a
 * one-line explanation and fix to why. */
enum ncu_verdict ncu_output_diagnose(const char *text, size_t len, struct strbuf *why);

/* Merges `ncu --import --csv --page raw --print-units base` outputs: the
 * first line of each is the header, the second the units, the rest results.
 * Columns are the union in first-seen order (a column one import lacks is
 * empty in its rows); a column whose unit differs between imports is an
 * error. The "ID" column is renumbered 0.. across the merge, so each result
 * keeps a unique ID. */
struct ncu_raw_merge {
	char **cols, **units;
	size_t ncols, cols_alloc;
	char ***rows; /* each ncols_at_add long; missing cells NULL */
	size_t *row_ncols;
	size_t nrows, rows_alloc, rows_ncols_alloc;
	size_t inputs;
};
#define NCU_RAW_MERGE_INIT                                                                         \
	{                                                                                          \
		0                                                                                  \
	}

/* Adds one import's text (name for error messages). Returns the number of
 * result rows added (0: the import had none), or -1 with err (malformed
 * CSV, no units row, a unit conflict). */
int ncu_raw_merge_add(struct ncu_raw_merge *m, const char *text, size_t len, const char *name,
		      struct strbuf *err);
/* Appends the merged CSV (every field quoted, as ncu writes it). Nothing
 * when no import had a header. */
void ncu_raw_merge_write(const struct ncu_raw_merge *m, struct strbuf *out);
void ncu_raw_merge_release(struct ncu_raw_merge *m);

#endif
