/* ncu_export.h: an Nsight Compute raw-page export read alone (`llmprof
 * report --ncu-csv RAW.csv -o DIR`, no trace): read and parsed once, its
 * kernel records grouped (analysis/ncu_kernel.h), and the report model of
 * its kernels, which report/ renders as kernels.md like any other model.
 *
 * Ownership: struct ncu_export owns the file's text, the parsed table (which
 * borrows it) and the kernel records; ncu_export_release() frees them. */
#ifndef LLMPROF_ANALYSIS_NCU_EXPORT_H
#define LLMPROF_ANALYSIS_NCU_EXPORT_H

#include <stddef.h>

#include "analysis/ncu_kernel.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "trace/ncu_csv.h"

struct ncu_export {
	struct strbuf text;
	struct ncu_raw raw;
	struct ncu_kernel_table t;
};
#define NCU_EXPORT_INIT                                                                            \
	{                                                                                          \
		STRBUF_INIT, NCU_RAW_INIT, NCU_KERNEL_TABLE_INIT                                   \
	}

/* 0 when path, a regular file, is within INPUT_CAP_DATA; else -1 with err
 * in one line that names the cap and says why there is one. */
int ncu_export_check_size(const char *path, struct strbuf *err);

/* Reads and parses path, builds the kernel records. 0, or -1 with err (the
 * file cannot be read, is over INPUT_CAP_DATA (2 GiB; the whole file is
 * held in memory, and about as much again for its cells), or is no
 * raw-page export). */
int ncu_export_load(struct ncu_export *x, const char *path, struct strbuf *err);
void ncu_export_release(struct ncu_export *x);

/* Fills m (initialized, empty) with t's kernel groups in t's order (total
 * GPU time, descending) and m->ncu; max_rows is the table's cap (0 = all). */
void report_model_from_ncu(struct report_model *m, const struct ncu_kernel_table *t,
			   size_t max_rows);

#endif
