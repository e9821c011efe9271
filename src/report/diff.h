/* diff.h (report): `llmprof diff`'s outputs, from a computed struct diff
 * (analysis/diff.h): diff.md, diff.json (schema: docs/diff.md) and
 * diff.html (the waterfall and the step-time distributions as inline SVG,
 * no external asset). They compute nothing. Output is appended to out. */
#ifndef LLMPROF_REPORT_DIFF_H
#define LLMPROF_REPORT_DIFF_H

#include "analysis/diff.h"
#include "core/strbuf.h"
#include "model/table.h"

void diff_render_md(const struct diff *d, struct strbuf *out);
/* 0, or -1 with err when the JSON cannot be encoded. */
int diff_render_json(const struct diff *d, struct strbuf *out, struct strbuf *err);
void diff_render_html(const struct diff *d, struct strbuf *out);
/* The three files into dir (which exists), each written atomically. */
struct bundle_dir;
int diff_write_all(const struct diff *d, const struct bundle_dir *bd, struct strbuf *err);

/* Shared by the writers. */
const char *diff_match_name(enum diff_match m);
const char *diff_basis_name(enum diff_basis b);
/* "+1.234" style number of a metric, or "n/a". */
void diff_num(struct strbuf *sb, struct rnum r, int sign);
/* The metrics table diff.md and diff.html both show: metric, A, B,
 * change, change %, the 95 % interval, its basis and the verdict. t is
 * initialised here; the caller releases it (table_release). */
void diff_table_metrics(const struct diff *d, struct table *t);

#endif
