/* cmd-profile.c: `llmprof profile`: the command line (options, KEY=VALUE
 * overrides, "-- PROGRAM ARGS"), wired to the pipeline (pipeline/run.h),
 * and everything the person watching sees: the live status line
 * (cmd/live.h), -v, the messages of the steps, the findings, the "open"
 * hint, and "run: <dir>" as the last line on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/live.h"
#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_progress.h"
#include "nsight/nsys.h"
#include "nsight/tools.h"
#include "pipeline/run.h"
#include "trace/nvtxnow.h"
#include "core/banned.h"

static int opt_dry_run, opt_echo, opt_quiet, opt_verbose;
static const char *opt_conf_dir, *opt_output;

static const struct opt opts[] = {
    {"output", 'o', OPT_STRING, &opt_output, "DIR",
     "write the run bundle under DIR/<run_id>/ (same as artifacts.root=DIR)"},
    {"quiet", 'q', OPT_BOOL, &opt_quiet, NULL,
     "print only errors, warnings and the final 'run: <dir>' line"},
    {"verbose", 'v', OPT_BOOL, &opt_verbose, NULL,
     "also print each step's command line, how long it took and its result"},
    {"dry-run", 'n', OPT_BOOL, &opt_dry_run, NULL,
     "print every planned step (argv, environment, logs), marking each that would fail, and "
     "run nothing; creates no bundle; exits 0, or as the run would (4 a tool, 3 the config)"},
    {"echo", 0, OPT_BOOL, &opt_echo, NULL,
     "also copy the children's output to the terminal (same as run.echo=true)"},
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "read the configuration from DIR instead of the default conf/ folder"},
    OPT_END_MARK,
};

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

	if (!opt_verbose)
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
		fprintf(stderr, "llmprof: step %zu/%zu %s: running %s: %s\n", g_live.step,
			g_live.nsteps, g_live.name.buf, name, sb.buf);
	else
		fprintf(stderr, "llmprof: step %zu/%zu %s: running %s\n", g_live.step,
			g_live.nsteps, name, sb.buf);
	live_printed(&g_live, clock_mono_ns());
	strbuf_release(&sb);
}

/* -v: how step i ended (the increment of the step loop, so every step that
 * got a state says it). */
static void verbose_step_end(const struct run_status *st, size_t i)
{
	const struct status_step *s = &st->steps[i];
	struct strbuf took = STRBUF_INIT;

	if (!opt_verbose || s->state == STEP_PENDING)
		return;
	live_clear(&g_live);
	if (s->state != STEP_SKIPPED && s->start_ns && s->end_ns >= s->start_ns)
		strbuf_addf(&took, " in %.2f s", (double)(s->end_ns - s->start_ns) / 1e9);
	fprintf(stderr, "llmprof: step %zu/%zu %s: %s%s%s%s\n", i + 1, st->nr, s->name,
		step_state_name(s->state), took.buf, s->message && *s->message ? ": " : "",
		s->message ? s->message : "");
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
	if (n > 0)
		fprintf(stderr, "llmprof: the last %d line%s of %s:\n%s", n, n == 1 ? "" : "s", log,
			tail.buf);
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
	fputs(text, stderr);
}

static void on_findings(void *arg, const char *text)
{
	(void)arg;
	if (!opt_quiet)
		fputs(text, stderr);
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
		fprintf(stderr, "llmprof: ncu: kernel %zu of %zu: %s\n", i + 1, n,
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
	if (opt_quiet)
		return;
	if (ncu_tty) {
		/* the live line says the step's elapsed time already */
		ncu_progress_format(p, expected, -1, &line);
		live_set_detail(&g_live, line.buf);
		live_tick(&g_live, clock_mono_ns());
	} else if (p->done > ncu_reported && !p->in_progress) {
		ncu_reported = p->done;
		ncu_progress_format(p, expected, el, &line);
		fprintf(stderr, "llmprof: %s\n", line.buf);
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

static const struct pipeline_progress progress = {
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

/* A KEY=VALUE the chosen built-in workload has no flag for is said, not
 * silently dropped (workload=dummy infer.prompt_len=64). */
static void warn_ignored_overrides(const struct config *cfg, const struct cmd_ctx *ctx,
				   const char **ov, size_t n)
{
	const char *kind = workload_kind_names[ctx->has_program ? WORKLOAD_KIND_COMMAND
								: config_typed(cfg)->workload.kind];

	for (size_t i = 0; i < n; i++) {
		const char *key = plan_workload_ignores(kind, ov[i]);

		if (key)
			warning_print(
			    "'%s' is ignored: the %s workload does not use %s (it takes "
			    "only device, infer.batch_size, workload.warmup and model.seed)",
			    ov[i], kind, key);
	}
}

/* "nsys: ..." as tool_find finds it: the same text `doctor` shows. */
static void print_tool(enum tool_id id, const char *label, const char *configured)
{
	struct tool_found f;
	struct strbuf sb = STRBUF_INIT;

	tool_find(id, configured, &f);
	if (f.deprecated.len)
		warning_print("%s", f.deprecated.buf);
	tool_found_describe(&f, &sb);
	printf("%s: %s\n", label, sb.buf);
	strbuf_release(&sb);
	tool_found_release(&f);
}

static void print_dry_run(const struct run_ctx *rc, const char *root)
{
	const struct plan *plan = &rc->plan;
	const struct run_params *pp = &rc->params;
	const struct config *cfg = rc->cfg;
	const char *conf_dir = rc->conf_dir;
	struct strbuf sb = STRBUF_INIT;

	printf("dry run: nothing is run and no bundle is created\n");
	printf("conf: %s\n", conf_dir);
	printf("bundle: %s/<run_id>\n", root);
	print_tool(TOOL_NSYS, "nsys", config_typed(cfg)->pipeline.nsys.path);
	print_tool(TOOL_NCU, "ncu", config_typed(cfg)->pipeline.ncu.path);
	print_tool(TOOL_TRACER, "builtin tracer", NULL);
	printf("trace backend: %s (%s)\n",
	       pp->pp.trace == PLAN_TRACE_NSYS	    ? "nsys"
	       : pp->pp.trace == PLAN_TRACE_BUILTIN ? "builtin"
						    : "none",
	       pp->trace_reason.buf);
	if (pp->pp.trace == PLAN_TRACE_NSYS)
		printf("nsys gating: capture-range=%s\n", nsys_effective_capture_range(&pp->nsys));
	plan_format(plan, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

/* An override that sets or removes artifacts.root (which -o also sets). */
static int names_artifacts_root(const char *a)
{
	size_t n = strlen("artifacts.root");

	a += *a == '+' || *a == '~';
	return !strncmp(a, "artifacts.root", n) && (a[n] == '=' || !a[n]);
}

/* After the pipeline: the two files a reader opens first. */
static void print_open_hint(const struct run_bundle *b)
{
	static const char *const files[][2] = {
	    {"stakeholder_summary.md", "the one-page summary"},
	    {"report.html", "the full report, in a browser"},
	};
	struct strbuf p = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		strbuf_reset(&p);
		bundle_path(b, files[i][0], &p);
		if (path_exists(p.buf))
			fprintf(stderr, "llmprof: open %s (%s)\n", p.buf, files[i][1]);
	}
	strbuf_release(&p);
}

/* The command line's own checks, before any config is read. 0, or the
 * exit code after the error. */
static int check_args(const struct cmd_ctx *ctx)
{
	if (ctx->has_program && !ctx->prog_argc) {
		error_print("profile: '--' must be followed by a program");
		return EXIT_USAGE;
	}
	if (opt_quiet && opt_verbose) {
		error_print("profile: options '--quiet' and '--verbose' cannot be used together");
		return EXIT_USAGE;
	}
	if (opt_output && !*opt_output) {
		error_print("profile: option '--output' needs a directory");
		return EXIT_USAGE;
	}
	for (int i = 0; i < ctx->argc; i++) {
		if (!strchr(ctx->argv[i], '=') && ctx->argv[i][0] != '~') {
			error_print("profile: '%s' is not a KEY=VALUE override; to profile a "
				    "program, put it after '--': llmprof profile -- %s ...",
				    ctx->argv[i], ctx->argv[i]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* The overrides: the user's, workload=command with "-- PROGRAM" (so
 * config.yaml says the workload was a command; the program itself is in
 * inputs.yaml and logs/workload.argv), and -o as artifacts.root unless an
 * override names it. Room for 2 more (run_config_auto). */
static const char **build_overrides(const struct cmd_ctx *ctx, int root_given,
				    struct strbuf *output_ov, size_t *n)
{
	const char **ov = xcalloc((size_t)ctx->argc + 5, sizeof(*ov));

	*n = 0;
	for (int i = 0; i < ctx->argc; i++)
		ov[(*n)++] = ctx->argv[i];
	if (ctx->has_program)
		ov[(*n)++] = "workload=command";
	if (opt_output && !root_given) {
		/* single-quoted: a path is a string, whatever it looks like */
		strbuf_addstr(output_ov, "artifacts.root='");
		for (const char *c = opt_output; *c; c++) {
			if (*c == '\'')
				strbuf_addch(output_ov, '\'');
			strbuf_addch(output_ov, *c);
		}
		strbuf_addch(output_ov, '\'');
		ov[(*n)++] = output_ov->buf;
	}
	return ov;
}

/* -o and an artifacts.root override must name the same folder. */
static int check_output_root(const struct config *cfg)
{
	const char *r = config_typed(cfg)->artifacts.root;
	struct strbuf a = STRBUF_INIT, o = STRBUF_INIT;
	int same;

	bundle_abspath(&a, r);
	bundle_abspath(&o, opt_output);
	while (a.len > 1 && a.buf[a.len - 1] == '/')
		strbuf_setlen(&a, a.len - 1);
	while (o.len > 1 && o.buf[o.len - 1] == '/')
		strbuf_setlen(&o, o.len - 1);
	same = !strcmp(a.buf, o.buf);
	if (!same)
		error_print("profile: '-o %s' and the override artifacts.root=%s disagree; "
			    "give one of them",
			    opt_output, r ? r : "null");
	strbuf_release(&a);
	strbuf_release(&o);
	return same ? 0 : EXIT_USAGE;
}

/* The config every step reads: loaded with the user's overrides, then
 * with the ones model=auto and the device add (they depend on a GPU and
 * on the configured workload). 0, or the exit code after the error. */
static int resolve_config(struct run_ctx *rc, const struct cmd_ctx *ctx, const char *conf_dir,
			  int root_given, const char **ov, size_t n, struct strbuf *err)
{
	size_t n_user = n;

	if (run_config_load(rc, conf_dir, n, ov, err)) {
		error_print("%s", err->buf);
		return EXIT_CONFIG;
	}
	if (opt_output && root_given && check_output_root(rc->cfg))
		return EXIT_USAGE;
	warn_ignored_overrides(rc->cfg, ctx, ov, n_user);
	if (!run_config_auto(rc, ov, &n))
		return 0;
	if (!rc->gpus.nr) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = n_user; i < n; i++)
			strbuf_addf(&sb, " %s", ov[i]);
		fprintf(stderr,
			"llmprof: no GPU found: running the built-in workload on the CPU path on "
			"purpose (applied%s)\n",
			sb.buf);
		strbuf_release(&sb);
	}
	if (run_config_load(rc, conf_dir, n, ov, err)) {
		error_print("%s", err->buf);
		return EXIT_CONFIG;
	}
	return 0;
}

/* --dry-run: the whole plan, always; a step that would fail is marked,
 * and the exit code is the one the run would end with. */
static int dry_run(struct run_ctx *rc, const char *root)
{
	const struct plan_step *bad;
	size_t n = plan_mark_programs(&rc->plan);

	print_dry_run(rc, root);
	if (!(bad = plan_first_failure(&rc->plan)))
		return EXIT_OK;
	error_print("dry run: step '%s' would fail: %s%s", bad->name, bad->would_fail,
		    n > 1 ? " (and more: see the plan)" : "");
	return bad->fail_code;
}

/* Creates the bundle and runs the pipeline. The exit code. */
static int run(struct run_ctx *rc, const char *root)
{
	struct strbuf err = STRBUF_INIT;
	int code = EXIT_INTERNAL, ret;

	if (plan_check_programs(&rc->plan, &err)) {
		error_print("%s", err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	proc_catch_interrupts();
	if ((ret = run_open_bundle(rc, root, &err, &code))) {
		if (ret < 0)
			error_print("%s", err.buf);
		else
			printf("run: %s\n",
			       rc->bundle.dir); /* what exists is still worth finding */
		goto out;
	}
	if (!opt_quiet) {
		fprintf(stderr, "llmprof: run %s\n", rc->bundle.dir);
		fprintf(stderr, "llmprof: trace backend: %s\n", rc->params.trace_reason.buf);
	}
	live_init(&g_live, stderr, !opt_quiet && !opt_echo, isatty(2), term_width(),
		  clock_mono_ns());
	ncu_tty = isatty(2) && !opt_quiet;
	ncu_reported = 0;
	code = pipeline_run(rc);
	live_release(&g_live);
	if (!opt_quiet)
		print_open_hint(&rc->bundle);
	printf("run: %s\n", rc->bundle.dir);
out:
	strbuf_release(&err);
	return code;
}

static int cmd_profile_exec(struct cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT, root = STRBUF_INIT, placeholder = STRBUF_INIT;
	struct strbuf output_ov = STRBUF_INIT;
	struct run_opts ro = {0, 0};
	struct run_ctx rc;
	char *conf_dir = NULL;
	const char **overrides = NULL;
	int root_given = 0, code;
	size_t n_overrides = 0;

	run_ctx_init(&rc, &ro, &progress);
	if ((code = check_args(ctx)))
		goto out;
	for (int i = 0; i < ctx->argc; i++)
		root_given |= names_artifacts_root(ctx->argv[i]);
	conf_dir = opt_conf_dir ? xstrdup(opt_conf_dir) : config_find_conf_dir();
	if (!conf_dir) {
		error_print("cannot find the conf/ folder: set LLMPROF_CONF_DIR or use --conf-dir");
		code = EXIT_CONFIG;
		goto out;
	}
	overrides = build_overrides(ctx, root_given, &output_ov, &n_overrides);
	rc.orig_argc = ctx->orig_argc;
	rc.orig_argv = ctx->orig_argv;
	rc.has_program = ctx->has_program;
	rc.prog_argc = ctx->prog_argc;
	rc.prog_argv = ctx->prog_argv;
	if ((code = resolve_config(&rc, ctx, conf_dir, root_given, overrides, n_overrides, &err)))
		goto out;
	bundle_abspath(&root, config_typed(rc.cfg)->artifacts.root);
	if (!opt_echo)
		opt_echo = config_typed(rc.cfg)->run.echo;
	rc.opts.dry_run = opt_dry_run;
	rc.opts.echo = opt_echo;

	/* check the plan before creating anything, with a stand-in run dir */
	code = EXIT_INTERNAL;
	strbuf_addf(&placeholder, "%s/<run_id>", root.buf);
	if (run_plan(&rc, placeholder.buf, &err, &code)) {
		error_print("%s", err.buf);
		goto out;
	}
	code = opt_dry_run ? dry_run(&rc, root.buf) : run(&rc, root.buf);
out:
	run_ctx_release(&rc);
	strbuf_release(&output_ov);
	free(conf_dir);
	free(overrides);
	strbuf_release(&err);
	strbuf_release(&root);
	strbuf_release(&placeholder);
	return code;
}

const struct cmd_entry cmd_profile_entry = {
    .name = "profile",
    .usage = "[options] [KEY=VALUE ...] [-- PROGRAM [ARGS...]]",
    .summary = "run a workload under the profiling pipeline and write a run bundle",
    .description = "Resolves the configuration (conf/ plus KEY=VALUE overrides), creates\n"
		   "<artifacts.root>/<run_id>/ and runs the pipeline, each step recorded in\n"
		   "status.json: config, provenance, workload (under the timeline backend),\n"
		   "trace (builtin) or nsys-export + nsys-stats (nsys), analyze, select, ncu,\n"
		   "join, reports. pipeline.trace.backend=auto picks nsys when it can finish a\n"
		   "report, else the builtin tracer, and says why. A failed step keeps what\n"
		   "came before; the reports still run and say what is missing.\n"
		   "With '-- PROGRAM ARGS' that program is the workload (never run through a\n"
		   "shell); otherwise workload.kind picks the built-in llm or dummy workload\n"
		   "or workload.program. The last line on stdout is 'run: <dir>'.\n"
		   "Exit codes: 0 ok, 1 workload failed, 3 config, 4 tool missing, 6 a step\n"
		   "failed, 7 cannot write, 124 run.timeout_s exceeded, 130 interrupted\n"
		   "(docs/exit-codes.md).",
    .opts = opts,
    .flags = CMD_TAKES_PROGRAM,
    .exec = cmd_profile_exec,
};
