/* profile_view.c: what the person watching `llmprof profile` sees while
 * the pipeline runs: the live status line (cmd/live.h), -v's command lines
 * and step results, ncu's progress, the findings, a failed workload's last
 * log lines and the "open" hint, all on stderr; see cmd/profile.h. The
 * pipeline reports events through profile_view_progress (pipeline/
 * progress.h); only this file turns them into text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/stat.h>

#include "bundle/layout.h"
#include "cmd/live.h"
#include "cmd/profile.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "nsight/ncu_progress.h"
#include "trace/nvtxnow.h"
#include "core/banned.h"

/* -q and -v, as profile_view_init() was given them. */
static int view_quiet, view_verbose;

/* The live status line (cmd/live.h): off with -q and with --echo, whose
 * copied output would tear it. */
static struct live g_live;

/* How many lines of a failed workload's stderr the error shows. */
#define WORKLOAD_TAIL_LINES 10

/* Terminal columns of stderr, 0 when unknown. */
static int term_width(void)
{
	struct winsize ws;

	if (!ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

/* proc_run()'s on_tick for a step's child: the last line the child wrote
 * to either log is the step's detail (unless something better, like ncu's
 * progress, sets it), then the line is redrawn or, in a log, written when
 * due. */
struct child_tick {
	const char *out_log, *err_log; /* NULL: keep the detail as it is */
	off_t out_size, err_size;
	struct nvtx_now *nvtx; /* the workload's NVTX ranges, better than its output */
};

static int log_grew(const char *path, off_t *size)
{
	struct stat sb;

	if (!path || stat(path, &sb) || sb.st_size <= *size)
		return 0;
	*size = sb.st_size;
	return 1;
}

static void child_detail(const char *path)
{
	struct strbuf tail = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_addstr(&line, "last output: ");
	if (live_file_tail(path, 1, 4096, "", &tail) > 0) {
		size_t before = line.len;

		live_last_line(tail.buf, tail.len, 120, &line);
		if (line.len > before)
			live_set_detail(&g_live, line.buf);
	}
	strbuf_release(&tail);
	strbuf_release(&line);
}

static void child_on_tick(void *arg)
{
	struct child_tick *t = arg;
	int out = log_grew(t->out_log, &t->out_size), err = log_grew(t->err_log, &t->err_size);
	struct strbuf ranges = STRBUF_INIT;

	if (t->nvtx) {
		strbuf_addstr(&ranges, "NVTX ");
		nvtx_now_poll(t->nvtx, 2, &ranges);
	}
	if (ranges.len > strlen("NVTX "))
		live_set_detail(&g_live, ranges.buf);
	else if (err)
		child_detail(t->err_log);
	else if (out)
		child_detail(t->out_log);
	else if (t->nvtx && starts_with(g_live.detail.buf, "NVTX "))
		live_set_detail(&g_live, NULL); /* its ranges closed: in none now */
	live_tick(&g_live, clock_mono_ns());
	strbuf_release(&ranges);
}

/* The child running now (children run one at a time). */
static struct child_tick g_tick;

/* Sets spec up to tick the live line (nothing when it is off). */
static void live_attach(struct proc_spec *spec, struct child_tick *t)
{
	if (!g_live.enabled)
		return;
	spec->on_tick = child_on_tick;
	spec->on_tick_arg = t;
	spec->tick_s = g_live.tty ? 0.5 : 1.0;
}

/* -v: a child's command line, before it runs. */
static void verbose_argv(const char *name, const char *const *argv, const char *const *env)
{
	struct strbuf sb = STRBUF_INIT;

	if (!view_verbose)
		return;
	live_clear(&g_live);
	for (const char *const *e = env; e && *e; e++) {
		proc_quote_shell(&sb, *e);
		strbuf_addch(&sb, ' ');
	}
	for (const char *const *a = argv; a && *a; a++) {
		if (a != argv)
			strbuf_addch(&sb, ' ');
		proc_quote_shell(&sb, *a);
	}
	if (strcmp(name, g_live.name.buf))
		note_print("step %zu/%zu %s: running %s: %s", g_live.step, g_live.nsteps,
			   g_live.name.buf, name, sb.buf);
	else
		note_print("step %zu/%zu %s: running %s", g_live.step, g_live.nsteps, name, sb.buf);
	live_printed(&g_live, clock_mono_ns());
	strbuf_release(&sb);
}

/* -v: how step i ended (the increment of the step loop, so every step that
 * got a state says it). */
static void verbose_step_end(const struct run_status *st, size_t i)
{
	const struct status_step *s = &st->steps[i];
	struct strbuf took = STRBUF_INIT;

	if (!view_verbose || s->state == STEP_PENDING)
		return;
	live_clear(&g_live);
	if (s->state != STEP_SKIPPED && s->start_ns && s->end_ns >= s->start_ns)
		strbuf_addf(&took, " in %.2f s", (double)(s->end_ns - s->start_ns) / 1e9);
	note_print("step %zu/%zu %s: %s%s%s%s", i + 1, st->nr, s->name, step_state_name(s->state),
		   took.buf, s->message && *s->message ? ": " : "", s->message ? s->message : "");
	live_printed(&g_live, clock_mono_ns());
	strbuf_release(&took);
}

/* After a failed workload: the last lines it wrote to stderr (else to
 * stdout), so the cause is on the terminal, not only in the bundle. */
static void on_log_tail(void *arg, const char *err_log, const char *out_log)
{
	struct strbuf tail = STRBUF_INIT;
	const char *log = err_log;
	int n = live_file_tail(err_log, WORKLOAD_TAIL_LINES, 65536, "  ", &tail);

	(void)arg;
	if (n <= 0) {
		strbuf_reset(&tail);
		log = out_log;
		n = live_file_tail(out_log, WORKLOAD_TAIL_LINES, 65536, "  ", &tail);
	}
	if (n > 0) {
		/* the program's own bytes: escaped but for line ends and tabs */
		note_print("the last %d line%s of %s:", n, n == 1 ? "" : "s", log);
		fputs_printable(tail.buf, stderr, "\n\t");
	}
	strbuf_release(&tail);
}

static void on_warning(void *arg, const char *msg)
{
	(void)arg;
	warning_print("%s", msg);
}

static void on_error(void *arg, const char *msg)
{
	(void)arg;
	error_print("%s", msg);
}

static void on_text(void *arg, const char *text)
{
	(void)arg;
	fputs_printable(text, stderr, "\n\t");
}

static void on_findings(void *arg, const char *text)
{
	(void)arg;
	if (!view_quiet)
		fputs_printable(text, stderr, "\n\t");
}

static void on_step_begin(void *arg, size_t i, size_t nr, const char *name)
{
	(void)arg;
	live_step(&g_live, i + 1, nr, name, clock_mono_ns());
}

static void on_step_end(void *arg, const struct run_status *st, size_t i)
{
	(void)arg;
	verbose_step_end(st, i);
}

static void on_child_begin(void *arg, const char *name, struct proc_spec *spec, const char *out_log,
			   const char *err_log, const char *nvtx_log, const char *detail)
{
	(void)arg;
	memset(&g_tick, 0, sizeof(g_tick));
	g_tick.out_log = out_log;
	g_tick.err_log = err_log;
	if (g_live.enabled && nvtx_log)
		g_tick.nvtx = nvtx_now_new(nvtx_log);
	if (detail)
		live_set_detail(&g_live, detail);
	live_attach(spec, &g_tick);
	verbose_argv(name, spec->argv, spec->env_add);
}

static void on_child_end(void *arg)
{
	(void)arg;
	live_clear(&g_live);
	nvtx_now_free(g_tick.nvtx);
	g_tick.nvtx = NULL;
}

/* ncu's progress on stderr, from its own console lines. On a terminal:
 * the live line's detail, redrawn whenever ncu reports progress.
 * Elsewhere (CI logs, files): one line per finished result, so a log
 * shows how far a long run got without a line per pass. Nothing with -q,
 * nor with run.echo, which shows ncu's own lines. */
static int ncu_tty;	       /* stderr is a terminal and not -q */
static long long ncu_reported; /* results printed (not on a terminal) */

static void on_ncu_capture_begin(void *arg, size_t i, size_t n, const char *name,
				 long long results_before)
{
	(void)arg;
	if (ncu_tty)
		note_print("ncu: kernel %zu of %zu: %s", i + 1, n,
			   name ? name : "the configured filters");
	if (ncu_reported < results_before)
		ncu_reported = results_before;
}

static void on_ncu_capture_progress(void *arg, const struct ncu_progress *p, size_t expected,
				    uint64_t start_ns)
{
	struct strbuf line = STRBUF_INIT;
	double el = (double)(clock_mono_ns() - start_ns) / 1e9;

	(void)arg;
	if (view_quiet)
		return;
	if (ncu_tty) {
		/* the live line says the step's elapsed time already */
		ncu_progress_format(p, expected, -1, &line);
		live_set_detail(&g_live, line.buf);
		live_tick(&g_live, clock_mono_ns());
	} else if (p->done > ncu_reported && !p->in_progress) {
		ncu_reported = p->done;
		ncu_progress_format(p, expected, el, &line);
		note_print("%s", line.buf);
		live_printed(&g_live, clock_mono_ns());
		strbuf_reset(&line);
		ncu_progress_format(p, expected, -1, &line);
		live_set_detail(&g_live, line.buf);
	}
	fflush(stderr);
	strbuf_release(&line);
}

static void on_ncu_capture_end(void *arg, size_t i, size_t n, int measured, double secs,
			       const char *why, int explicit_run)
{
	(void)arg;
	if (ncu_tty && measured)
		fprintf(stderr, "llmprof: ncu: kernel %zu of %zu measured in %.1f s\n", i + 1, n,
			secs);
	if (!measured && (ncu_tty || explicit_run))
		warning_print("ncu: kernel %zu: %s", i + 1, why);
}

const struct pipeline_progress profile_view_progress = {
    .warning = on_warning,
    .error = on_error,
    .text = on_text,
    .findings = on_findings,
    .log_tail = on_log_tail,
    .step_begin = on_step_begin,
    .step_end = on_step_end,
    .child_begin = on_child_begin,
    .child_end = on_child_end,
    .ncu_capture_begin = on_ncu_capture_begin,
    .ncu_capture_progress = on_ncu_capture_progress,
    .ncu_capture_end = on_ncu_capture_end,
};

/* After the pipeline: the two files a reader opens first. */
static void print_open_hint(const struct run_bundle *b)
{
	static const struct {
		enum bundle_art file;
		const char *what;
	} files[] = {
	    {BA_SUMMARY_MD, "the one-page summary"},
	    {BA_REPORT_HTML, "the full report, in a browser"},
	};
	struct strbuf p = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		strbuf_reset(&p);
		bundle_path(b, bundle_art(files[i].file), &p);
		if (path_exists(p.buf))
			fprintf(stderr, "llmprof: open %s (%s)\n", p.buf, files[i].what);
	}
	strbuf_release(&p);
}

void profile_view_init(int quiet, int verbose)
{
	view_quiet = quiet;
	view_verbose = verbose;
}

void profile_view_start(const struct run_ctx *rc, int echo)
{
	if (!view_quiet) {
		note_print("run %s", rc->bundle.dir);
		note_print("trace backend: %s", rc->params.trace_reason.buf);
	}
	live_init(&g_live, stderr, !view_quiet && !echo, isatty(2), term_width(), clock_mono_ns());
	ncu_tty = isatty(2) && !view_quiet;
	ncu_reported = 0;
}

void profile_view_end(const struct run_ctx *rc)
{
	live_release(&g_live);
	if (!view_quiet)
		print_open_hint(&rc->bundle);
}
