/* kernels_tsv.h: kernels.tsv, every kernel of a trace's report, one line
 * each (docs/report.md "kernels.tsv"). The Markdown, HTML and JSON reports
 * show the top run.report_rows kernels; this file is the full data, written
 * a line at a time from the model, never held whole in memory. */
#ifndef LLMPROF_REPORT_KERNELS_TSV_H
#define LLMPROF_REPORT_KERNELS_TSV_H

#include <stdio.h>

#include "core/strbuf.h"
#include "model/model.h"

/* Writes m's kernels to fp: a header line, then one line per kernel in the
 * model's order (total time, descending). */
void kernels_tsv_emit(const struct report_model *m, FILE *fp);

/* kernels.tsv into bd, atomically. 0, or -1 with err. */
struct bundle_dir;
int kernels_tsv_write(const struct report_model *m, const struct bundle_dir *bd,
		      struct strbuf *err);

#endif
