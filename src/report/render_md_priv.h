/* render_md_priv.h: what the Markdown writers (render_md.c, summary_md.c)
 * share. Nothing here allocates what the caller must free. */
#ifndef LLMPROF_RENDER_MD_PRIV_H
#define LLMPROF_RENDER_MD_PRIV_H

#include "core/strbuf.h"
#include "model/model.h"
#include "model/table.h"

/* Appends t as a Markdown table and releases it. */
void md_table(struct table *t, struct strbuf *out);
/* "> INCOMPLETE: ..." and a blank line, unless the run is complete. */
void status_quote(const struct report_model *m, struct strbuf *out);
/* "> Device: CPU ..." on the CPU path; nothing on a GPU. */
void device_quote(const struct report_model *m, struct strbuf *out);
/* "## Ranks" of a multi-process trace (nothing for one process); stages: 1
 * adds the per-rank stage table (report.md), 0 the collectives paragraph
 * (the summary). */
void md_ranks_section(const struct report_model *m, struct strbuf *out, int stages);

#endif
