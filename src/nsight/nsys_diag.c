/* nsys_diag.c: see nsys_diag.h.
 *
 * Where each message comes from:
 *  - "Importer error status: The importer binary and its dependencies were not
 *    found.", "Importer error status: An unknown error occurred.", "Unable to
 *    retrieve the importer version: skipping importation of the QDSTRM file.",
 *    an empty "Generated:" list when an NVTX gate never opened, "Capture range
 *    started/ended in the application.", "Illegal --capture-range argument: X.",
 *    "Executable not found in current directory or standard search paths",
 *    "Failed to create 'X.nsys-rep': No such file or directory.", "SKIPPED: X
 *    does not contain CUDA kernel data.": observed with nsys 2023.4.4
 *    (tests/data/nsys/).
 *  - "Generated:" followed by a tab and "No reports were generated": nsys
 *    2025.3.1 on the project's H100 when the gate never opened
 *    (tests/data/nsys/h100-*; also meta-pytorch/tritonbench#468).
 *  - "error while loading shared libraries: libdw.so.1": nsys 2025.3.1's
 *    importer on the project's H100 (docs/validation/nsys-h100.md); the
 *    loader's wording observed here with the 2024.1.1 importer and libssh.so.
 *  - CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: NVIDIA/TensorRT-LLM#9073
 *    (Kineto under nsys: "function cbapi->getCuptiStatus() failed with error
 *    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), pytorch/pytorch#117935;
 *    CUPTI_ERROR_MAX_LIMIT_REACHED: tensorflow/tensorflow#37674 (TF profiler
 *    under nsys).
 *  - "Report was created in Nsight Systems version (...), newer than your
 *    current version (...)": nsys 2023.4.4 export of a 2026.1 report
 *    (reference/anchors-field.md A2). */
#define _GNU_SOURCE /* memmem */

/* The fix for an importer that lacks a library: docs/nsys.md says which
 * libraries nsys's importer needs and how to put them on LD_LIBRARY_PATH,
 * `llmprof doctor` names every one it lacks. */
#define NSYS_LIB_FIX                                                                               \
	"put %s on LD_LIBRARY_PATH (docs/nsys.md, \"When nsys's importer lacks "                   \
	"libraries\"; `llmprof doctor` lists every library it lacks), then rerun"
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/nsys_diag.h"
#include "trace/nsysdb.h"
#include "core/banned.h"

void nsys_diag_release(struct nsys_diag *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		strbuf_release(&d->items[i].explain);
		strbuf_release(&d->items[i].fix);
	}
	free(d->items);
	d->items = NULL;
	d->nr = d->alloc = 0;
}

const char *nsys_diag_code_name(enum nsys_diag_code code)
{
	switch (code) {
	case NSYS_DIAG_NO_REPORT_GATED:
		return "no-report-gated";
	case NSYS_DIAG_NO_REPORT:
		return "no-report";
	case NSYS_DIAG_IMPORTER_MISSING:
		return "importer-missing";
	case NSYS_DIAG_IMPORTER_FAILED:
		return "importer-failed";
	case NSYS_DIAG_PROGRAM_NOT_FOUND:
		return "program-not-found";
	case NSYS_DIAG_BAD_OPTION:
		return "bad-option";
	case NSYS_DIAG_OUTPUT_DIR:
		return "output-dir";
	case NSYS_DIAG_KILLED_AT_RANGE_END:
		return "killed-at-range-end";
	case NSYS_DIAG_CUPTI_CONFLICT:
		return "cupti-conflict";
	case NSYS_DIAG_REPORT_TOO_NEW:
		return "report-too-new";
	case NSYS_DIAG_NO_KERNELS:
		return "no-kernels";
	case NSYS_DIAG_GRAPHS_NOT_NODES:
		return "graphs-not-nodes";
	case NSYS_DIAG_NSYS_FAILED:
		return "nsys-failed";
	}
	return "unknown";
}

const struct nsys_finding *nsys_diag_find(const struct nsys_diag *d, enum nsys_diag_code code)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->items[i].code == code)
			return &d->items[i];
	return NULL;
}

static struct nsys_finding *add(struct nsys_diag *d, enum nsys_diag_code code)
{
	struct nsys_finding *f;

	ALLOC_GROW(d->items, d->nr + 1, d->alloc);
	f = &d->items[d->nr++];
	f->code = code;
	strbuf_init(&f->explain, 0);
	strbuf_init(&f->fix, 0);
	return f;
}

static const char *find(const char *buf, size_t len, const char *needle)
{
	if (!buf)
		return NULL;
	return memmem(buf, len, needle, strlen(needle));
}

/* The line containing p (without its end of line) appended to out. */
static void add_line_at(struct strbuf *out, const char *buf, size_t len, const char *p)
{
	const char *s = p, *e = p;

	while (s > buf && s[-1] != '\n' && s[-1] != '\r')
		s--;
	while (e < buf + len && *e != '\n' && *e != '\r')
		e++;
	strbuf_add(out, s, (size_t)(e - s));
}

/* Does a "Generated:" block list no files? nsys 2023.4.4 prints
 * "Generated:" and nothing under it when an NVTX gate never opened; 2025.3.1
 * prints "Generated:\n\tNo reports were generated". Files are listed indented
 * (four spaces in 2023.4.4, a tab in 2025.3.1). */
static int generated_list_empty(const char *buf, size_t len)
{
	static const char none[] = "No reports were generated";
	const char *p = find(buf, len, "Generated:"), *end = buf + len;

	if (!p)
		return 0;
	p += strlen("Generated:");
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	if (p >= end || (*p != ' ' && *p != '\t'))
		return 1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return (size_t)(end - p) >= sizeof(none) - 1 && !memcmp(p, none, sizeof(none) - 1);
}

/* ---- argv inspection ------------------------------------------------------- */

static const char *argv_value(const char *const *argv, const char *lng, const char *shrt)
{
	size_t l = strlen(lng);

	for (size_t i = 0; argv && argv[i]; i++) {
		if (!strncmp(argv[i], lng, l) && argv[i][l] == '=')
			return argv[i] + l + 1;
		if ((!strcmp(argv[i], lng) || (shrt && !strcmp(argv[i], shrt))) && argv[i + 1])
			return argv[i + 1];
	}
	return NULL;
}

static int argv_has(const char *const *argv, const char *needle)
{
	for (size_t i = 0; argv && argv[i]; i++)
		if (strstr(argv[i], needle))
			return 1;
	return 0;
}

void nsys_nvtx_expr_split(const char *expr, struct strbuf *range, struct strbuf *domain)
{
	const char *at = NULL;

	for (const char *p = expr; *p; p++) {
		if (*p == '\\' && p[1] == '@')
			p++;
		else if (*p == '@')
			at = p;
	}
	for (const char *p = expr; *p && p != at; p++) {
		if (*p == '\\' && p[1] == '@')
			p++;
		strbuf_addch(range, *p);
	}
	if (at)
		for (const char *p = at + 1; *p; p++) {
			if (*p == '\\' && p[1] == '@')
				p++;
			strbuf_addch(domain, *p);
		}
}

static int domain_eq(const char *known, const char *want)
{
	if (!strcmp(want, "*"))
		return 1;
	return !strcmp(known ? known : "", want);
}

static void explain_gate(const struct nsys_profile_outcome *o, const char *expr,
			 struct nsys_finding *f)
{
	struct strbuf range = STRBUF_INIT, domain = STRBUF_INIT, fixed = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT, swapped = STRBUF_INIT;
	int register_off = argv_has(o->argv, "NSYS_NVTX_PROFILER_REGISTER_ONLY=0");
	int matched = 0;

	nsys_nvtx_expr_split(expr, &range, &domain);
	strbuf_addf(&f->explain,
		    "nsys wrote no report: the NVTX capture range '%s' (range '%s' "
		    "in %s%s%s) never started",
		    expr, range.buf, domain.len ? "domain '" : "the default domain", domain.buf,
		    domain.len ? "'" : "");
	for (size_t i = 0; i < o->n_known; i++)
		if (!strcmp(o->known[i].name, range.buf) &&
		    domain_eq(o->known[i].domain, domain.buf))
			matched = 1;
	if (o->n_known && matched) {
		if (!register_off) {
			strbuf_addstr(&f->explain, ": the program emits it, but as an unregistered "
						   "string, which nsys ignores by default");
			strbuf_addstr(&f->fix, "pass --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 "
					       "(llmprof adds it to the commands it builds)");
		} else {
			strbuf_addstr(&f->explain,
				      " although the program emits it: it may run in "
				      "a child process nsys does not follow, or end "
				      "before the CUDA context exists or before nsys "
				      "was ready to record (nsys starts recording some "
				      "time after the range opens)");
			strbuf_addstr(&f->fix,
				      "check `llmprof nvtx -- PROGRAM`; or profile without "
				      "gating (pipeline.nsys.gating_nvtx=false)");
		}
		goto out;
	}
	if (o->n_known) {
		/* DOMAIN@RANGE written where nsys wants RANGE@DOMAIN? */
		if (domain.len && strcmp(domain.buf, "*")) {
			strbuf_addf(&swapped, "%s@%s", range.buf, domain.buf);
			if (!nsys_nvtx_capture_expr(swapped.buf, o->known, o->n_known, &fixed,
						    &why)) {
				strbuf_addf(&f->explain,
					    ": nsys reads '%s' as range '%s' in domain "
					    "'%s' (RANGE@DOMAIN); the program emits range "
					    "'%s' in domain '%s'",
					    expr, range.buf, domain.buf, domain.buf, range.buf);
				strbuf_addf(&f->fix,
					    "use --nvtx-capture=%s (nsys order RANGE@DOMAIN; "
					    "ncu's order is DOMAIN@RANGE/)",
					    fixed.buf);
				goto out;
			}
			strbuf_reset(&why);
		}
		if (!nsys_nvtx_capture_expr(range.buf, o->known, o->n_known, &fixed, &why)) {
			strbuf_addf(&f->explain, ": the program emits '%s' only as '%s'", range.buf,
				    fixed.buf);
			strbuf_addf(&f->fix, "use --nvtx-capture=%s", fixed.buf);
			goto out;
		}
		strbuf_addf(&f->explain, ": %s", why.buf);
		strbuf_addstr(&f->fix,
			      "set pipeline.nsys.nvtx_capture to a range the program "
			      "emits (`llmprof nvtx -- PROGRAM` lists them with their nsys "
			      "filter)");
		goto out;
	}
	if (!register_off) {
		strbuf_addstr(&f->explain,
			      "; NSYS_NVTX_PROFILER_REGISTER_ONLY=0 was not passed, so "
			      "unregistered strings (nvtxRangePushA, torch.cuda.nvtx) "
			      "never match");
		strbuf_addstr(&f->fix,
			      "add --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0, and check "
			      "the name with `llmprof nvtx -- PROGRAM`");
	} else {
		strbuf_addstr(&f->fix, "list the ranges with `llmprof nvtx -- PROGRAM` and use its "
				       "nsys filter (RANGE@DOMAIN, not DOMAIN@RANGE; a bare name "
				       "means the default domain)");
	}
out:
	strbuf_release(&range);
	strbuf_release(&domain);
	strbuf_release(&fixed);
	strbuf_release(&why);
	strbuf_release(&swapped);
}

static void check_cupti(const char *buf, size_t len, struct nsys_diag *d)
{
	static const char *const keys[] = {
	    "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
	    "CUPTI_ERROR_MAX_LIMIT_REACHED",
	};

	if (nsys_diag_find(d, NSYS_DIAG_CUPTI_CONFLICT))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = find(buf, len, keys[i]);
		struct nsys_finding *f;

		if (!p)
			continue;
		f = add(d, NSYS_DIAG_CUPTI_CONFLICT);
		strbuf_addstr(&f->explain, "a second CUPTI client in the program (PyTorch profiler/"
					   "Kineto, TensorFlow profiler, an injection library) "
					   "could not subscribe while nsys holds CUPTI: \"");
		add_line_at(&f->explain, buf, len, p);
		strbuf_addstr(&f->explain, "\"");
		strbuf_addstr(&f->fix,
			      "turn the in-process profiler off under nsys (e.g. no "
			      "torch.profiler) and unset CUDA_INJECTION64_PATH; CUDA <= 13.2 "
			      "allows one CUPTI subscriber");
		return;
	}
}

static void check_too_new(const char *buf, size_t len, struct nsys_diag *d)
{
	const char *p = find(buf, len, "newer than your current version");
	struct nsys_finding *f;

	if (!p || nsys_diag_find(d, NSYS_DIAG_REPORT_TOO_NEW))
		return;
	f = add(d, NSYS_DIAG_REPORT_TOO_NEW);
	strbuf_addstr(&f->explain, "the report comes from a newer nsys than the one reading it: ");
	add_line_at(&f->explain, buf, len, p);
	strbuf_addstr(&f->fix, "export with the nsys that recorded it (or a newer one) via "
			       "pipeline.nsys.path");
}

void nsys_diag_export_text(const char *text, size_t len, struct nsys_diag *d)
{
	check_too_new(text, len, d);
	check_cupti(text, len, d);
}

/* nsys said "Importer error status:" at p: the .qdstrm -> .nsys-rep step
 * failed, or its binary is missing. */
static void diag_importer(const struct nsys_profile_outcome *o, struct nsys_diag *d, const char *b,
			  size_t l, const char *p)
{
	struct nsys_finding *f;
	int missing = find(b, l,
			   "importer binary and its dependencies were not "
			   "found") != NULL;
	struct strbuf lib = STRBUF_INIT;

	f = add(d, missing ? NSYS_DIAG_IMPORTER_MISSING : NSYS_DIAG_IMPORTER_FAILED);
	strbuf_addstr(&f->explain, "nsys recorded a .qdstrm but could not turn it "
				   "into a .nsys-rep: \"");
	add_line_at(&f->explain, b, l, p);
	strbuf_addstr(&f->explain, "\"");
	if (o->importer_text &&
	    nsys_importer_loader_failure(o->importer_text, o->importer_len, &lib))
		strbuf_addf(&f->explain, " (the importer needs %s)", lib.buf);
	if (missing)
		strbuf_addstr(&f->fix, "install the full Nsight Systems (host part with "
				       "QdstrmImporter), or use "
				       "pipeline.trace.backend=builtin");
	else if (lib.len)
		strbuf_addf(&f->fix, NSYS_LIB_FIX, lib.buf);
	else
		strbuf_addstr(&f->fix, "run `llmprof doctor` to see why the importer "
				       "cannot start (often a missing library such as "
				       "libdw.so.1)");
	strbuf_release(&lib);
}

/* The last non-empty line of buf, appended to out ("" if none). */
static void add_last_line(struct strbuf *out, const char *buf, size_t len)
{
	const char *e = buf + len, *s;

	while (e > buf && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	s = e;
	while (s > buf && s[-1] != '\n' && s[-1] != '\r')
		s--;
	strbuf_add(out, s, (size_t)(e - s));
}

/* nsys ends every session it completes with a "Generated:" list (empty when
 * a gate never opened), and passes the program's exit status on. No list and
 * a failing status mean nsys itself stopped early (seen: 2023.4.4 printing
 * only "End of file", exit 1): blaming the gate would send the user after
 * the wrong cause. */
static int nsys_stopped_early(const struct nsys_profile_outcome *o, struct nsys_diag *d,
			      int generated_said)
{
	struct nsys_finding *f;

	if (generated_said || (o->exited && o->exit_code == 0))
		return 0;
	f = add(d, NSYS_DIAG_NSYS_FAILED);
	if (o->signaled)
		strbuf_addf(&f->explain, "nsys was ended by signal %d", o->term_signal);
	else
		strbuf_addf(&f->explain, "nsys exited with status %d", o->exit_code);
	strbuf_addstr(&f->explain, " before listing any report, so nothing was recorded");
	if (o->err_len) {
		strbuf_addstr(&f->explain, "; its last message: \"");
		add_last_line(&f->explain, o->err, o->err_len);
		strbuf_addstr(&f->explain, "\"");
	}
	strbuf_addstr(&f->fix, "see logs/ for nsys's and the program's messages; if the "
			       "program ran cleanly, rerun (nsys failed on its own)");
	return 1;
}

/* No report and no .qdstrm, without a fatal finding: why, for a run gated
 * by cap (--capture-range; "none" = not gated) or not. no_report_said,
 * empty_list: nsys said it generated none. */
static void diag_no_report(const struct nsys_profile_outcome *o, struct nsys_diag *d,
			   const char *cap, const char *expr, int no_report_said, int empty_list)
{
	struct nsys_finding *f;

	if (strcmp(cap, "none")) {
		f = add(d, NSYS_DIAG_NO_REPORT_GATED);
		if (!strcmp(cap, "nvtx") && expr) {
			explain_gate(o, expr, f);
		} else if (!strcmp(cap, "cudaProfilerApi")) {
			strbuf_addstr(&f->explain, "nsys wrote no report: the program never "
						   "called cudaProfilerStart() "
						   "(--capture-range=cudaProfilerApi)");
			strbuf_addstr(&f->fix, "call cudaProfilerStart/Stop around the region, "
					       "or gate on an NVTX range instead");
		} else {
			strbuf_addf(&f->explain,
				    "nsys wrote no report: the capture range "
				    "(%s) never started",
				    cap);
			strbuf_addstr(&f->fix, "profile without gating "
					       "(pipeline.nsys.gating_nvtx=false)");
		}
		if (!no_report_said && !empty_list)
			strbuf_addstr(&f->explain, " (no report files were found)");
	} else {
		f = add(d, NSYS_DIAG_NO_REPORT);
		strbuf_addstr(&f->explain, "nsys wrote no report");
		if (no_report_said || empty_list)
			strbuf_addstr(&f->explain, " and said so");
		strbuf_addstr(&f->explain, "; the program may have failed before tracing "
					   "started");
		strbuf_addstr(&f->fix, "see logs/ for the program's output and nsys's messages");
	}
}

void nsys_diag_profile(const struct nsys_profile_outcome *o, struct nsys_diag *d)
{
	/* program output is interleaved with nsys's on both streams */
	const char *bufs[2] = {o->out, o->err};
	size_t lens[2] = {o->out_len, o->err_len};
	const char *cap = argv_value(o->argv, "--capture-range", "-c");
	const char *expr = argv_value(o->argv, "--nvtx-capture", "-p");
	const char *end = argv_value(o->argv, "--capture-range-end", NULL);
	int no_report_said = 0, empty_list = 0, importer_said = 0, fatal = 0, generated_said = 0;
	struct nsys_finding *f;
	const char *p;

	if (!cap)
		cap = "none";
	for (int s = 0; s < 2; s++) {
		const char *b = bufs[s];
		size_t l = lens[s];

		if (find(b, l, "No reports were generated"))
			no_report_said = 1;
		if (generated_list_empty(b, l))
			empty_list = 1;
		if (find(b, l, "Generated:"))
			generated_said = 1;
		if ((p = find(b, l, "Executable not found in current directory")) &&
		    !nsys_diag_find(d, NSYS_DIAG_PROGRAM_NOT_FOUND)) {
			f = add(d, NSYS_DIAG_PROGRAM_NOT_FOUND);
			strbuf_addstr(&f->explain, "nsys could not start the program: ");
			add_line_at(&f->explain, b, l, p);
			strbuf_addstr(&f->fix,
				      "give the program as a path (./prog) or put it on PATH");
			fatal = 1;
		}
		if (((p = find(b, l, "Illegal --")) || (p = find(b, l, "option is ambiguous")) ||
		     (p = find(b, l, "unrecognised option")) ||
		     (p = find(b, l, "unrecognized option"))) &&
		    !nsys_diag_find(d, NSYS_DIAG_BAD_OPTION)) {
			f = add(d, NSYS_DIAG_BAD_OPTION);
			strbuf_addstr(&f->explain, "nsys rejected its command line: ");
			add_line_at(&f->explain, b, l, p);
			strbuf_addstr(&f->fix,
				      "fix the value (see `nsys profile --help`); values in "
				      "pipeline.nsys.extra_args are passed verbatim");
			fatal = 1;
		}
		if ((p = find(b, l, "Failed to create '")) &&
		    !nsys_diag_find(d, NSYS_DIAG_OUTPUT_DIR)) {
			f = add(d, NSYS_DIAG_OUTPUT_DIR);
			strbuf_addstr(&f->explain,
				      "nsys could not write the report where asked and "
				      "put it in a temporary file: ");
			add_line_at(&f->explain, b, l, p);
			strbuf_addstr(&f->fix, "create the output directory (nsys/) before running "
					       "nsys, and check that it is writable");
		}
		if ((p = find(b, l, "Importer error status:")) && !importer_said) {
			importer_said = 1;
			diag_importer(o, d, b, l, p);
		}
		check_cupti(b, l, d);
	}
	if (!importer_said && o->n_qdstrm && !o->n_reports) {
		struct strbuf lib = STRBUF_INIT;

		f = add(d, NSYS_DIAG_IMPORTER_FAILED);
		strbuf_addstr(&f->explain, "a .qdstrm was left and no .nsys-rep: nsys's importer "
					   "did not run");
		if (o->importer_text &&
		    nsys_importer_loader_failure(o->importer_text, o->importer_len, &lib)) {
			strbuf_addf(&f->explain, " (it needs %s)", lib.buf);
			strbuf_addf(&f->fix, NSYS_LIB_FIX, lib.buf);
		} else {
			strbuf_addstr(&f->fix,
				      "run `llmprof doctor` to see why the importer cannot "
				      "start");
		}
		strbuf_release(&lib);
	}
	if (strcmp(cap, "none") &&
	    (o->signaled ? o->term_signal == 15 : (o->exited && o->exit_code == 143)) &&
	    (find(o->out, o->out_len, "Capture range ended") ||
	     find(o->err, o->err_len, "Capture range ended")) &&
	    (!end || !strcmp(end, "stop-shutdown") || starts_with(end, "repeat-shutdown"))) {
		f = add(d, NSYS_DIAG_KILLED_AT_RANGE_END);
		strbuf_addstr(&f->explain, "nsys stopped the program with SIGTERM when the capture "
					   "range ended (--capture-range-end stop-shutdown, nsys's "
					   "default): exit status 143 is expected, not a crash");
		strbuf_addstr(&f->fix, "use --capture-range-end=stop to let the program finish "
				       "(llmprof's default when it gates)");
	}
	if (!o->n_reports && !o->n_qdstrm && !fatal && !nsys_stopped_early(o, d, generated_said))
		diag_no_report(o, d, cap, expr, no_report_said, empty_list);
}

/* ---- SQLite ---------------------------------------------------------------- */

int nsys_diag_sqlite(const char *path, struct nsys_diag *d, struct strbuf *err)
{
	struct nsysdb x;
	int64_t kernels, graph_rows, graph_launches, node_kernels, runtime;
	int has_kernel_table;
	struct nsys_finding *f;
	int ret = -1;

	if (nsysdb_open(&x, path, err))
		goto out;
	has_kernel_table = nsysdb_has_table(&x, "CUPTI_ACTIVITY_KIND_KERNEL");
	kernels = nsysdb_count(&x, NSYSDB_COUNT_KERNELS);
	graph_rows = nsysdb_count(&x, NSYSDB_COUNT_GRAPH_TRACE);
	runtime = nsysdb_count(&x, NSYSDB_COUNT_API_CALLS);
	graph_launches = nsysdb_count(&x, NSYSDB_COUNT_GRAPH_LAUNCHES);
	node_kernels = nsysdb_count(&x, NSYSDB_COUNT_GRAPH_KERNELS);

	if (graph_rows > 0 || (graph_launches > 0 && node_kernels == 0)) {
		f = add(d, NSYS_DIAG_GRAPHS_NOT_NODES);
		if (graph_rows > 0)
			strbuf_addf(&f->explain,
				    "%lld CUDA graph launches were traced as single "
				    "items (--cuda-graph-trace=graph): the kernels inside "
				    "them are missing from the kernel tables",
				    (long long)graph_rows);
		else
			strbuf_addf(&f->explain,
				    "%lld CUDA graph launches but no kernel carries a "
				    "graph node id: graph kernels were not traced one "
				    "by one",
				    (long long)graph_launches);
		strbuf_addstr(&f->fix,
			      "use pipeline.nsys.cuda_graph_trace=node (llmprof's default; "
			      "adds overhead per graph node)");
	}
	if (kernels <= 0 && graph_rows <= 0) {
		f = add(d, NSYS_DIAG_NO_KERNELS);
		strbuf_addf(&f->explain, "the export has %s: no GPU kernel was captured",
			    has_kernel_table ? "an empty CUPTI_ACTIVITY_KIND_KERNEL table"
					     : "no CUPTI_ACTIVITY_KIND_KERNEL table");
		if (runtime > 0) {
			strbuf_addf(&f->explain, " although %lld CUDA API calls were",
				    (long long)runtime);
			strbuf_addstr(&f->fix,
				      "check for a CUPTI conflict (another profiler in the "
				      "program) and that the gated range contains GPU work");
		} else {
			strbuf_addstr(&f->fix,
				      "check that pipeline.nsys.trace includes cuda and that "
				      "the program uses the GPU inside the captured range");
		}
	}
	ret = 0;
out:
	nsysdb_close(&x);
	return ret;
}
