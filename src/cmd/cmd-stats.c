/* cmd-stats.c: `llmprof stats`, the reports of `nsys stats` from an nsys
 * SQLite export, an nsys report (exported with `nsys export` first) or an
 * llmprof trace.sqlite. docs/stats.md documents them. */
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/nsysstats.h"
#include "analysis/nvtxproj.h"
#include "cmd/cmd.h"
#include "cmd/trace_input.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "model/table.h"
#include "trace/trace.h"
#include "core/banned.h"

static const char *opt_reports;
static const char *opt_format;
static const char *opt_output;
static const char *opt_nsys_version;

static const struct opt opts[] = {
    {"report", 'r', OPT_STRING, &opt_reports, "REPORT[,REPORT...]",
     "reports to run (default: nvtx_sum,osrt_sum,cuda_api_sum,cuda_gpu_kern_sum,"
     "cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum)",
     0, 0},
    {"format", 'f', OPT_STRING, &opt_format, "column|csv|md|json",
     "output format (default: column on a terminal, else csv; both match `nsys stats`)", 0, 0},
    {"output", 'o', OPT_STRING, &opt_output, "BASE",
     "write each report to BASE_<report>.<txt|csv|md|json> instead of stdout", 0, 0},
    {"nsys-version", 0, OPT_STRING, &opt_nsys_version, "auto|YYYY.M",
     "spell NVTX range names and round halves as that nsys version does (default "
     "auto: the version that wrote the export; 2023.4 for other files)",
     0, 0},
    OPT_END_MARK,
};

/* nsys's default set, less the reports llmprof does not implement (OpenMP,
 * OpenGL, Vulkan, DirectX, WDDM, unified memory, OpenACC: none of them an
 * LLM's) */
static const char *const default_reports = "nvtx_sum,osrt_sum,cuda_api_sum,cuda_gpu_kern_sum,"
					   "cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum";

/* The other reports of nsys 2023.4.4 (nsys stats --help-reports): listed
 * with others, each is skipped with a word instead of failing the command. */
static const char *const nsys_only_reports[] = {
    "cuda_api_gpu_sum",
    "cuda_api_trace",
    "cuda_gpu_kern_gb_sum",
    "cuda_gpu_sum",
    "cuda_gpu_trace",
    "cuda_kern_exec_sum",
    "cuda_kern_exec_trace",
    "dx11_pix_sum",
    "dx12_gpu_marker_sum",
    "dx12_pix_sum",
    "mpi_event_trace",
    "network_congestion",
    "nvtx_gpu_proj_trace",
    "nvtx_pushpop_sum",
    "nvtx_pushpop_trace",
    "nvtx_startend_sum",
    "nvvideo_api_sum",
    "openacc_sum",
    "opengl_khr_gpu_range_sum",
    "opengl_khr_range_sum",
    "openmp_sum",
    "um_cpu_page_faults_sum",
    "um_sum",
    "um_total_sum",
    "vulkan_api_sum",
    "vulkan_api_trace",
    "vulkan_gpu_marker_sum",
    "vulkan_marker_sum",
    "wddm_queue_sum",
    NULL,
};

/* Whether nsys has the report though llmprof does not: name up to a ':'
 * (nsys's report arguments, "cuda_gpu_trace:base"). */
static int nsys_only(const char *name)
{
	size_t len = strcspn(name, ":");

	for (size_t i = 0; nsys_only_reports[i]; i++)
		if (strlen(nsys_only_reports[i]) == len &&
		    !strncmp(nsys_only_reports[i], name, len))
			return 1;
	return 0;
}

static void render(const struct table *tbl, const char *fmt, struct strbuf *out)
{
	if (!strcmp(fmt, "json"))
		table_write_json(tbl, out);
	else if (!strcmp(fmt, "md"))
		table_write_md(tbl, out);
	else
		table_write_csv(tbl, out);
}

/* The thousands separator and grouping of the user's LC_NUMERIC, which nsys's
 * column writer uses (none in the C locale, "," every 3 digits in en_US).
 * LC_NUMERIC goes back to "C" at once: every other number llmprof prints
 * must not change with the locale. */
static void numeric_locale(struct strbuf *sep, struct strbuf *grouping)
{
	const struct lconv *lc;

	if (!setlocale(LC_NUMERIC, ""))
		return;
	lc = localeconv();
	strbuf_addstr(sep, lc->thousands_sep ? lc->thousands_sep : "");
	strbuf_addstr(grouping, lc->grouping ? lc->grouping : "");
	setlocale(LC_NUMERIC, "C");
}

/* --nsys-version, or the version that wrote t (EXPORT_PRODUCT_VERSION of an
 * nsys export): how range names are spelled and halves rounded. Anything
 * else is taken as 2023.4, which llmprof's own traces follow. */
static int pick_spelling(const struct trace *t, struct nsysstats_opts *o)
{
	static const char nvidia[] = "NVIDIA Nsight Systems ";
	const char *version = NULL;

	o->spelling = NSYS_SPELL_2023;
	o->rounding = NSYS_ROUND_SQLITE_3_42;
	if (opt_nsys_version && strcmp(opt_nsys_version, "auto")) {
		if (nsysstats_spelling(opt_nsys_version) < 0) {
			error_print("stats: --nsys-version '%s' is not a version like 2025.3 "
				    "(or auto)",
				    opt_nsys_version);
			return EXIT_USAGE;
		}
		version = opt_nsys_version;
	} else if (t && t->producer && starts_with(t->producer, nvidia)) {
		version = t->producer + strlen(nvidia);
	}
	if (version && nsysstats_spelling(version) >= 0) {
		o->spelling = (enum nsys_spelling)nsysstats_spelling(version);
		o->rounding = (enum nsys_round_rule)nsysstats_rounding(version);
	}
	return EXIT_OK;
}

/* -o BASE names files BASE_<report>.<ext>: BASE must be a name, not
 * nothing (files in the current folder) nor a device (/dev/null_...). */
static int check_output_base(const char *base)
{
	struct stat st;

	if (!*base) {
		error_print(
		    "stats: option '--output' needs a file name prefix (BASE_<report>.csv)");
		return -1;
	}
	if (!stat(base, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		error_print("stats: --output '%s' is a device or special file, not a file name "
			    "prefix",
			    base);
		return -1;
	}
	return 0;
}

/* Runs report r into *out as nsys prints it in format fmt: on stdout, or
 * (opt_output) into its file. What nsys says beside the data (SKIPPED, no
 * data, llmprof's warnings about the rows) goes to stderr, except in the
 * column format on stdout, where nsys prints SKIPPED and "no data" among
 * the reports. 0, or -1 with err on a read error. */
static int run_report(struct trace *t, const char *r, const struct nsysstats_opts *sopts,
		      const char *fmt, const struct table_column_opts *copts, struct strbuf *out,
		      struct strbuf *err)
{
	static const char nodata[] = "Report was successfully run, but no data was returned.";
	struct strbuf msg = STRBUF_INIT, warn = STRBUF_INIT;
	struct nsysstats_opts o = *sopts;
	int column = !strcmp(fmt, "column"), rc;
	struct table tbl;

	o.warn = &warn;
	rc = nsysstats_build(t, r, &o, &tbl, &msg, err);
	fputs(warn.buf, stderr);
	/* the trace's bytes as nsys prints them, except on a terminal: there a
	 * name's control bytes (an escape sequence) are shown as \xHH, never
	 * obeyed (docs/stats.md); JSON escapes them itself */
	if (rc == 0 && !opt_output && isatty(1) && strcmp(fmt, "json"))
		table_make_printable(&tbl);
	if (rc > 0) {
		if (column && !opt_output)
			strbuf_addf(out, "SKIPPED: %s\n\n", msg.buf);
		else
			fprintf(stderr, "SKIPPED: %s\n", msg.buf);
	} else if (rc == 0 && column) {
		strbuf_addf(out, "\n ** %s (%s):\n\n", nsysstats_title(r), r);
		if (tbl.nrows)
			table_write_column(&tbl, copts, out);
		else
			strbuf_addf(out, "%s\n", nodata);
		/* a blank line ends each report on the console; in a file, only
		 * the "no data" one (nsys 2023.4.4's bytes) */
		if (!opt_output || !tbl.nrows)
			strbuf_addch(out, '\n');
	} else if (rc == 0) {
		if (!tbl.nrows) /* nsys prints nothing then (json: an empty array) */
			fprintf(stderr, "NO DATA: %s: %s\n", r, nodata);
		if (tbl.nrows || !strcmp(fmt, "json"))
			render(&tbl, fmt, out);
	}
	if (rc == 0)
		table_release(&tbl);
	strbuf_release(&msg);
	strbuf_release(&warn);
	return rc < 0 ? -1 : 0;
}

/* Loads what the reports in list (comma-separated) read, in one
 * trace_load(): the tables side by side (trace/trace_par.h). A part that
 * fails to load is left unloaded: the report that reads it loads it again
 * and fails there, after the reports before it were printed, as it does
 * without this. */
static void preload(struct trace *t, const char *list)
{
	struct strbuf err = STRBUF_INIT;
	char *names = xstrdup(list), *save = NULL;
	unsigned parts = 0;

	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save))
		if (nsysstats_known(r))
			parts |= nsysstats_parts(t, r);
	trace_load(t, parts, &err);
	strbuf_release(&err);
	free(names);
}

/* The reports' big arrays (tens of MB each, made on several threads) are
 * each allocated and freed about once: kept by the allocator rather than
 * given back to the kernel at each free, they are not paged in again, and
 * no free makes the kernel interrupt the other threads to flush their
 * TLBs. One arena: the threads allocate few blocks, and large ones. On the
 * 1M-kernel bench: sys time 0.16 -> 0.13 s, wall median 0.47 -> 0.42 s
 * (bench/results/stats-1m.md). Peak RSS grows by what was freed and kept
 * (94 -> 109 MB there). */
static void keep_freed_memory(void)
{
#ifdef M_ARENA_MAX
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_ARENA_MAX, 1);
#endif
}

static int cmd_stats_exec(struct cmd_ctx *ctx)
{
	/* nsys: column on the console, csv into files; we keep csv in pipes
	 * too, so scripts reading our stdout see the same bytes as before */
	const char *fmt = opt_format ? opt_format : !opt_output && isatty(1) ? "column" : "csv";
	const char *list = opt_reports ? opt_reports : default_reports;
	const char *ext;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf sep = STRBUF_INIT, grouping = STRBUF_INIT;
	struct table_column_opts copts;
	struct nsysstats_opts sopts = {0};
	struct nvtx_proj_ahead ahead = {0};
	struct trace t;
	char *names = NULL, *save = NULL, *sqlite = NULL, *tmpdir = NULL;
	int code = EXIT_OK, printed = 0, opened = 0, nreports = 0, column;

	if (ctx->argc != 1) {
		error_print("stats: expected one FILE.sqlite or FILE.nsys-rep (see 'llmprof stats "
			    "--help')");
		return EXIT_USAGE;
	}
	if (strcmp(fmt, "column") && strcmp(fmt, "csv") && strcmp(fmt, "md") &&
	    strcmp(fmt, "json")) {
		error_print("stats: unknown format '%s' (column, csv, md or json)", fmt);
		return EXIT_USAGE;
	}
	if (opt_output && check_output_base(opt_output))
		return EXIT_USAGE;
	column = !strcmp(fmt, "column");
	if (column)
		numeric_locale(&sep, &grouping);
	copts.thousands_sep = sep.buf;
	copts.grouping = grouping.buf;
	ext = column ? "txt" : fmt;
	if ((code = pick_spelling(NULL, &sopts)))
		return code;
	names = xstrdup(list);
	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		nreports++;
		if (!nsysstats_known(r) && !nsys_only(r)) {
			error_print("stats: unknown report '%s'; known: nvtx_sum, osrt_sum, "
				    "nvtx_gpu_proj_sum, "
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
	if (trace_input_is_report(ctx->argv[0]) &&
	    (code = trace_input_export("stats", ctx->argv[0], &sqlite, &tmpdir)))
		goto cleanup;
	if (trace_open(&t, sqlite ? sqlite : ctx->argv[0], &err)) {
		error_print("%s", err.buf);
		code = EXIT_BAD_INPUT;
		opened = 1;
		goto cleanup;
	}
	opened = 1;
	keep_freed_memory();
	trace_kernels_lean(&t); /* the reports read kernels' times and names only */
	pick_spelling(&t, &sopts);
	preload(&t, names);
	/* the projection beside the reports before nvtx_gpu_proj_sum */
	if (nsysstats_ahead(&t, list, &ahead))
		sopts.ahead = &ahead;
	for (char *r = strtok_r(names, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		int rc;

		if (!nsysstats_known(r)) {
			fprintf(stderr,
				"SKIPPED: %s: a report of nsys's that llmprof stats does not "
				"implement (see 'llmprof stats --help')\n",
				r);
			continue;
		}
		strbuf_reset(&out);
		rc = run_report(&t, r, &sopts, fmt, &copts, &out, &err);
		if (rc < 0) {
			error_print("%s", err.buf);
			code = EXIT_BAD_INPUT;
			goto cleanup;
		}
		if (opt_output) {
			/* nsys writes the file whatever the report found: empty
			 * when it was skipped or found nothing */
			strbuf_reset(&path);
			strbuf_addf(&path, "%s_%s.%s", opt_output, r, ext);
			if (write_file_atomic(path.buf, out.buf, out.len, &err)) {
				error_print("%s", err.buf);
				code = EXIT_IO;
				goto cleanup;
			}
			fprintf(stderr, "wrote %s\n", path.buf);
		} else if (out.len) {
			if (printed++ && !column)
				fputc('\n', stdout);
			fwrite(out.buf, 1, out.len, stdout);
		}
	}
cleanup:
	nsysstats_ahead_end(&ahead);
	if (opened)
		trace_close(&t);
	trace_input_export_done(&sqlite, &tmpdir);
	free(names);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&path);
	strbuf_release(&sep);
	strbuf_release(&grouping);
	return code;
}

const struct cmd_entry cmd_stats_entry = {
    .name = "stats",
    .usage = "[-r REPORT[,REPORT...]] [-f column|csv|md|json] [-o BASE] [--nsys-version V] "
	     "FILE.sqlite|FILE.nsys-rep",
    .summary = "nsys-compatible summaries (kernels, NVTX, GPU projection, API, memory, OS runtime)",
    .description =
	"Reads an nsys SQLite export (nsys export --type sqlite), an nsys report\n"
	"(.nsys-rep: exported first with nsys, to FILE.sqlite beside it, reused while\n"
	"newer than the report) or an llmprof trace.sqlite, and prints the reports of\n"
	"`nsys stats` with the same columns, rows and numbers: -f column (the default\n"
	"on a terminal) and -f csv (the default otherwise) are byte-compatible with nsys\n"
	"2023.4.4, and so are the files of -o. NVTX range names are spelled, and\n"
	"halves rounded, as the nsys that wrote the export does (2024.1 and later:\n"
	"':decode' in the default domain, 2583.9499 -> 2583.9). A report whose data is\n"
	"absent prints 'SKIPPED: ...' as nsys does (on stderr except in column format)\n"
	"and is not an error; so is a report of nsys's that llmprof does not implement.\n"
	"Kernels, ranges or calls that end before they start, or have a zero\n"
	"timestamp, get a warning on stderr (the numbers stay nsys's). A file that is\n"
	"not a readable export exits with 5; a report without nsys to export it, with 4.",
    .opts = opts,
    .exec = cmd_stats_exec,
};
