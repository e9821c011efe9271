/* report_ncu.c: see report_ncu.h. The export is read and parsed once
 * (analysis/ncu_export.h); kernels.md is the model's, rendered by the one
 * kernels.md writer, and regions/ by report/ncu_regions.h. */
#include <stdio.h>
#include <string.h>

#include "analysis/ncu_export.h"
#include "analysis/regions.h"
#include "bundle/layout.h"
#include "config/typed.h"
#include "cmd/report_ncu.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "report/kernels_json.h"
#include "report/ncu_regions.h"
#include "core/banned.h"

int report_ncu_csv_only(const char *csv_path, const char *out_dir, size_t max_rows)
{
	struct strbuf err = STRBUF_INIT, note = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	struct ncu_export x = NCU_EXPORT_INIT;
	struct report_model m;
	struct regions rg = REGIONS_INIT;
	int code = EXIT_BAD_INPUT;

	report_model_init(&m);
	if (ncu_export_load(&x, csv_path, &err))
		goto out;
	report_model_from_ncu(&m, &x.t, max_rows);
	code = EXIT_IO;
	/* out_dir as the user named it; nothing below it through a symlink */
	if (mkdir_p(out_dir, &err) || bundle_dir_open(&bd, out_dir, 0, &err) ||
	    kernels_files_write(&m, &x.t, &bd, &err))
		goto out;
	code = EXIT_BAD_INPUT;
	if (regions_build(&x.raw, &rg, &err))
		goto out;
	/* the results of a region's metrics.json are bounded too: 200,000
	 * results of 568 metrics each would otherwise write gigabytes */
	rg.max_results = max_rows ? max_rows : CONFIG_REPORT_ROWS_DEFAULT;
	/* regions/ is written either way: with no NVTX ranges its report says
	 * plainly why there are no regions. */
	code = EXIT_IO;
	if (regions_write(&rg, &x.raw, &bd, bundle_art(BA_OUT_REGIONS_DIR), &err))
		goto out;
	code = EXIT_OK;
	printf("%zu launches of %zu kernels, %.6f ms of GPU time -> %s/%s\n", x.t.total_calls,
	       x.t.ngroups, x.t.total_ns / 1e6, out_dir, bundle_art(BA_KERNELS_MD));
	if (rg.nr) {
		printf("%zu NVTX regions -> %s/%s\n", rg.nr, out_dir,
		       bundle_art(BA_OUT_REGIONS_MD));
	} else {
		regions_empty_message(&x.raw, &note);
		printf("%s\n", note.buf);
	}
out:
	if (code)
		error_print("report: %s", err.buf);
	bundle_dir_close(&bd);
	regions_release(&rg);
	report_model_release(&m);
	ncu_export_release(&x);
	strbuf_release(&err);
	strbuf_release(&note);
	return code;
}
