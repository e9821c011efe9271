/* ncu_only.c: see ncu_only.h. The export is read and parsed once
 * (analysis/ncu_export.h); kernels.md is the model's, rendered by the one
 * kernels.md writer. */
#include <string.h>

#include "analysis/ncu_export.h"
#include "analysis/regions.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "report/kernels_json.h"
#include "report/ncu_only.h"
#include "core/banned.h"

int ncu_only_report(const char *csv_path, const char *out_dir, size_t max_rows,
		    struct ncu_only_result *res, struct strbuf *err)
{
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	struct ncu_export x = NCU_EXPORT_INIT;
	struct report_model m;
	struct regions rg = REGIONS_INIT;
	int code = EXIT_BAD_INPUT;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->note, 0);
	report_model_init(&m);
	if (ncu_export_load(&x, csv_path, err))
		goto out;
	report_model_from_ncu(&m, &x.t, max_rows);
	code = EXIT_IO;
	/* out_dir as the user named it; nothing below it through a symlink */
	if (mkdir_p(out_dir, err) || bundle_dir_open(&bd, out_dir, 0, err) ||
	    kernels_files_write(&m, &x.t, &bd, err))
		goto out;
	res->launches = x.t.total_calls;
	res->kernels = x.t.ngroups;
	res->total_ms = x.t.total_ns / 1e6;
	code = EXIT_BAD_INPUT;
	if (regions_build(&x.raw, &rg, err))
		goto out;
	/* regions/ is written either way: with no NVTX ranges its report says
	 * plainly why there are no regions. */
	code = EXIT_IO;
	if (regions_write(&rg, &x.raw, &bd, "regions", err))
		goto out;
	res->regions = rg.nr;
	if (!rg.nr)
		regions_empty_message(&x.raw, &res->note);
	code = EXIT_OK;
out:
	bundle_dir_close(&bd);
	regions_release(&rg);
	report_model_release(&m);
	ncu_export_release(&x);
	return code;
}
