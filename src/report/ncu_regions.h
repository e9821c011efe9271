/* ncu_regions.h: the NVTX regions reports from the regions of an Nsight
 * Compute export (analysis/regions.h builds them): report.md (one table,
 * a region a row, indented by depth), report.json, and each region's
 * metrics.json. They compute nothing; docs/ncu.md describes them. */
#ifndef LLMPROF_REPORT_NCU_REGIONS_H
#define LLMPROF_REPORT_NCU_REGIONS_H

#include "analysis/regions.h"
#include "core/strbuf.h"
#include "trace/ncu_csv.h"

/* "No matching regions" explanation when rg has none. */
void regions_empty_message(const struct ncu_raw *raw, struct strbuf *out);

void regions_render_md(const struct regions *rg, const struct ncu_raw *raw, struct strbuf *out);
void regions_render_json(const struct regions *rg, const struct ncu_raw *raw, struct strbuf *out);
/* One region's metrics.json: every numeric metric of its rows, base units. */
void regions_render_metrics(const struct regions *rg, size_t i, const struct ncu_raw *raw,
			    struct strbuf *out);
/* Writes dir/report.md, dir/report.json and dir/<region dir>/metrics.json
 * (dir is ncu/regions of a bundle), dir a name in bd (core/bundle_dir.h).
 * 0 or -1 with err. */
struct bundle_dir;
int regions_write(const struct regions *rg, const struct ncu_raw *raw, const struct bundle_dir *bd,
		  const char *dir, struct strbuf *err);

#endif
