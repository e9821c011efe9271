/* ncu_only.c: see ncu_only.h. */
#include <errno.h>
#include <string.h>

#include "analysis/regions.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "report/kernels_md.h"
#include "report/ncu_only.h"
#include "trace/ncu_csv.h"
#include "analysis/ncu_kernel.h"
#include "core/banned.h"

int ncu_only_report(const char *csv_path, const char *out_dir, size_t max_rows,
		    struct ncu_only_result *res, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT, dir = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct kernels_md_opts mo = KERNELS_MD_OPTS_INIT;
	struct regions rg = REGIONS_INIT;
	int code = EXIT_BAD_INPUT;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->note, 0);
	if (strbuf_read_file(&buf, csv_path)) {
		error_errno(err, "cannot read '%s'", csv_path);
		goto out;
	}
	if (ncu_raw_parse(buf.buf, buf.len, csv_path, &raw, err) ||
	    ncu_kernels_from_raw(&raw, &t, err))
		goto out;
	code = EXIT_IO;
	mo.max_rows = max_rows;
	if (mkdir_p(out_dir, err) || kernels_md_write(&t, &mo, out_dir, err))
		goto out;
	res->launches = t.total_calls;
	res->kernels = t.ngroups;
	res->total_ms = t.total_ns / 1e6;
	code = EXIT_BAD_INPUT;
	if (regions_build(&raw, &rg, err))
		goto out;
	/* regions/ is written either way: with no NVTX ranges its report says
	 * plainly why there are no regions. */
	code = EXIT_IO;
	path_join(&dir, out_dir, "regions");
	if (regions_write(&rg, &raw, dir.buf, err))
		goto out;
	res->regions = rg.nr;
	if (!rg.nr)
		regions_empty_message(&raw, &res->note);
	code = EXIT_OK;
out:
	regions_release(&rg);
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&dir);
	return code;
}
