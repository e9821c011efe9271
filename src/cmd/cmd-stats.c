/* cmd-stats.c: `llmprof stats`, the reports of `nsys stats` from an nsys
 * SQLite export or an llmprof trace.sqlite. docs/stats.md documents them. */
#include <stdio.h>
#include <string.h>

#include "analysis/nsysstats.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "report/table.h"
#include "trace/trace.h"
#include "core/banned.h"

static const char *opt_reports;
static const char *opt_format;
static const char *opt_output;

static const struct opt opts[] = {
    {"report", 'r', OPT_STRING, &opt_reports, "REPORT[,REPORT...]",
     "reports to run (default: nvtx_sum,cuda_api_sum,cuda_gpu_kern_sum,"
     "cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum)",
     0, 0},
    {"format", 'f', OPT_STRING, &opt_format, "csv|md|json",
     "output format (default csv; csv matches `nsys stats -f csv`)", 0, 0},
    {"output", 'o', OPT_STRING, &opt_output, "BASE",
     "write each report to BASE_<report>.<format> instead of stdout", 0, 0},
    OPT_END_MARK,
};

static const char *const default_reports =
    "nvtx_sum,cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum";

static void render(const struct table *tbl, const char *fmt, struct strbuf *out)
{
	if (!strcmp(fmt, "json"))
		table_write_json(tbl, out);
	else if (!strcmp(fmt, "md"))
		table_write_md(tbl, out);
	else
		table_write_csv(tbl, out);
}

static int cmd_stats_exec(struct cmd_ctx *ctx)
{
	const char *fmt = opt_format ? opt_format : "csv";
	const char *list = opt_reports ? opt_reports : default_reports;
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT, out = STRBUF_INIT, path = STRBUF_INIT;
	struct trace t;
	char *names = NULL, *save = NULL;
	int code = EXIT_OK, printed = 0, opened = 0, nreports = 0;

	if (ctx->argc != 1) {
		error_print("stats: expected one FILE.sqlite (see 'llmprof stats --help')");
		return EXIT_USAGE;
	}
	if (strcmp(fmt, "csv") && strcmp(fmt, "md") && strcmp(fmt, "json")) {
		error_print("stats: unknown format '%s' (csv, md or json)", fmt);
		return EXIT_USAGE;
	}
	names = xstrdup(list);
	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		nreports++;
		if (!nsysstats_known(r)) {
			error_print(
			    "stats: unknown report '%s'; known: nvtx_sum, nvtx_gpu_proj_sum, "
			    "nvtx_kern_sum, cuda_api_sum, cuda_gpu_kern_sum, "
			    "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum",
			    r);
			code = EXIT_USAGE;
			goto cleanup;
		}
	}
	if (!nreports) {
		error_print("stats: -r needs at least one report name");
		code = EXIT_USAGE;
		goto cleanup;
	}
	free(names);
	names = xstrdup(list);
	if (trace_open(&t, ctx->argv[0], &err)) {
		error_print("%s", err.buf);
		code = EXIT_BAD_INPUT;
		opened = 1;
		goto cleanup;
	}
	opened = 1;
	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		struct table tbl;
		int rc;

		strbuf_reset(&msg);
		rc = nsysstats_build(&t, r, &tbl, &msg, &err);
		if (rc < 0) {
			error_print("%s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		if (rc > 0) {
			/* nsys says this on stdout; we keep stdout for data. */
			fprintf(stderr, "SKIPPED: %s\n", msg.buf);
			continue;
		}
		if (!tbl.nrows) {
			/* nsys prints nothing at all then, not even the header. */
			fprintf(stderr,
				"NO DATA: %s: Report was successfully run, but no data was "
				"returned.\n",
				r);
			table_release(&tbl);
			continue;
		}
		strbuf_reset(&out);
		render(&tbl, fmt, &out);
		table_release(&tbl);
		if (opt_output) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s_%s.%s", opt_output, r, fmt);
			if (write_file_atomic(path.buf, out.buf, out.len, &err)) {
				error_print("%s", err.buf);
				code = EXIT_IO;
				goto cleanup;
			}
			fprintf(stderr, "wrote %s\n", path.buf);
		} else {
			if (printed++)
				fputc('\n', stdout);
			fwrite(out.buf, 1, out.len, stdout);
		}
	}
cleanup:
	if (opened)
		trace_close(&t);
	free(names);
	strbuf_release(&err);
	strbuf_release(&msg);
	strbuf_release(&out);
	strbuf_release(&path);
	return code;
}

const struct cmd_entry cmd_stats_entry = {
    .name = "stats",
    .usage = "[-r REPORT[,REPORT...]] [-f csv|md|json] [-o BASE] FILE.sqlite",
    .summary = "nsys-compatible summaries (kernels, NVTX, GPU projection, API, memory)",
    .description = "Reads an nsys SQLite export (nsys export --type sqlite) or an llmprof\n"
		   "trace.sqlite and prints the reports of `nsys stats` with the same columns,\n"
		   "rows and numbers (-f csv is byte-compatible with nsys 2023.4.4). A report\n"
		   "whose data is absent prints 'SKIPPED: ...' on stderr, as nsys does, and\n"
		   "is not an error. A file that is not a readable export exits with 5.",
    .opts = opts,
    .exec = cmd_stats_exec,
};
