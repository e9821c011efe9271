/* merged.h: `llmprof merge`'s reports, merged.md and merged.json, from a
 * built struct merge_result (analysis/merge.h); computes nothing.
 * docs/run-bundle.md describes both. */
#ifndef LLMPROF_REPORT_MERGED_H
#define LLMPROF_REPORT_MERGED_H

#include "analysis/merge.h"
#include "core/strbuf.h"

/* Writes dir/merged.md and dir/merged.json atomically, dir a folder in bd
 * (core/bundle_dir.h; "" = bd itself) that must exist. 0, or -1 with
 * err. */
struct bundle_dir;
int merged_write(const struct merge_result *r, const struct bundle_dir *bd, const char *dir,
		 struct strbuf *err);

#endif
