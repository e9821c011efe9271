/* cmd-ncu-import.c: `llmprof ncu-import RAW.csv -o DIR`: kernels.md and
 * kernels.json from an ncu raw-page export alone. Temporary: it becomes
 * `llmprof report --ncu-csv RAW.csv -o DIR`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "analysis/regions.h"
#include "core/fsutil.h"
#include "report/kernels_md.h"
#include "vendor/ncu_csv.h"
#include "vendor/ncu_kernel.h"
#include "core/banned.h"

static const char *out_dir;
static int64_t max_rows;
static int with_regions;

static const struct opt opts[] = {
    {"output", 'o', OPT_STRING, &out_dir, "DIR", "write kernels.md and kernels.json to DIR", 0, 0},
    {"max-rows", 0, OPT_INT, &max_rows, "N",
     "at most N table rows; the last one sums the rest (0 = all)", 0, 1000000},
    {"regions", 0, OPT_BOOL, &with_regions, NULL,
     "also write DIR/regions/ (NVTX regions: report.md, report.json, <region>/metrics.json)", 0, 0},
    OPT_END_MARK,
};

static int cmd_ncu_import_exec(struct cmd_ctx *ctx)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	struct ncu_kernel_table t = NCU_KERNEL_TABLE_INIT;
	struct kernels_md_opts mo = KERNELS_MD_OPTS_INIT;
	int code = EXIT_OK;

	if (ctx->argc != 1 || !out_dir) {
		error_print("usage: llmprof ncu-import RAW.csv -o DIR");
		return EXIT_USAGE;
	}
	if (strbuf_read_file(&buf, ctx->argv[0])) {
		error_print("cannot read '%s': %s", ctx->argv[0], strerror(errno));
		code = EXIT_BAD_INPUT;
		goto out;
	}
	if (ncu_raw_parse(buf.buf, buf.len, ctx->argv[0], &raw, &err) ||
	    ncu_kernels_from_raw(&raw, &t, &err)) {
		error_print("%s", err.buf);
		code = EXIT_BAD_INPUT;
		goto out;
	}
	mo.max_rows = (size_t)max_rows;
	if (kernels_md_write(&t, &mo, out_dir, &err)) {
		error_print("%s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	printf("%zu launches, %zu kernels, %.6f ms -> %s/kernels.md\n", t.total_calls, t.ngroups,
	       t.total_ns / 1e6, out_dir);
	if (with_regions) {
		struct regions rg = REGIONS_INIT;
		struct strbuf dir = STRBUF_INIT;

		path_join(&dir, out_dir, "regions");
		if (regions_build(&raw, &rg, &err) || regions_write(&rg, &raw, dir.buf, &err)) {
			error_print("%s", err.buf);
			code = EXIT_IO;
		} else if (!rg.nr) {
			struct strbuf msg = STRBUF_INIT;

			regions_empty_message(&raw, &msg);
			printf("%s\n", msg.buf);
			strbuf_release(&msg);
		} else {
			printf("%zu NVTX regions -> %s/report.md\n", rg.nr, dir.buf);
		}
		regions_release(&rg);
		strbuf_release(&dir);
	}
out:
	ncu_kernel_table_release(&t);
	ncu_raw_release(&raw);
	strbuf_release(&buf);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_ncu_import_entry = {
    .name = "ncu-import",
    .usage = "RAW.csv -o DIR [--max-rows N] [--regions]",
    .summary = "kernels.md from an ncu raw-page CSV (temporary; becomes report --ncu-csv)",
    .description = "RAW.csv is `ncu --import R.ncu-rep --csv --page raw --print-units base`.",
    .opts = opts,
    .exec = cmd_ncu_import_exec,
};
