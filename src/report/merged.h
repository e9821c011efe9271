/* merged.h: `llmprof merge`'s reports, merged.md and merged.json, from a
 * built struct merge_result (analysis/merge.h); computes nothing.
 * docs/run-bundle.md describes both. */
#ifndef LLMPROF_REPORT_MERGED_H
#define LLMPROF_REPORT_MERGED_H

#include "analysis/merge.h"
#include "core/strbuf.h"

/* Writes out_dir/merged.md and out_dir/merged.json atomically (out_dir
 * must exist). 0, or -1 with err. */
int merged_write(const struct merge_result *r, const char *out_dir, struct strbuf *err);

#endif
