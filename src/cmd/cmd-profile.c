/* cmd-profile.c: `llmprof profile`: the command line (options, KEY=VALUE
 * overrides, "-- PROGRAM ARGS") resolved into one config and wired to the
 * pipeline (pipeline/run.h), and "run: <dir>" as the last line on stdout.
 * What the person watching sees while it runs is cmd/profile_view.c; the
 * --dry-run printout is cmd/profile_dryrun.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "cmd/cmd.h"
#include "cmd/profile.h"
#include "config/config.h"
#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/fsutil.h"
#include "pipeline/model_json.h"
#include "pipeline/run.h"
#include "trace/rankid.h"
#include "core/banned.h"

static int opt_dry_run, opt_echo, opt_quiet, opt_verbose;
static const char *opt_conf_dir, *opt_output, *opt_rank_dir;

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
    {"rank-dir", 0, OPT_STRING, &opt_rank_dir, "DIR",
     "one rank of a job started by mpirun or srun: write this rank's bundle into "
     "DIR/ranks/<rank>/ (the rank from RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK); "
     "then 'llmprof merge DIR'"},
    OPT_END_MARK,
};

/* A KEY=VALUE the chosen built-in workload has no flag for is said, not
 * silently dropped (workload=dummy infer.prompt_len=64). */
static void warn_ignored_overrides(const struct config *cfg, const struct cmd_ctx *ctx,
				   const char **ov, size_t n)
{
	enum workload_kind kind =
	    ctx->has_program ? WORKLOAD_KIND_COMMAND : config_typed(cfg)->workload.kind;

	for (size_t i = 0; i < n; i++) {
		const char *key = plan_workload_ignores(kind, ov[i]);

		if (key)
			warning_print(
			    "'%s' is ignored: the %s workload does not use %s (it takes "
			    "only device, infer.batch_size, workload.warmup and model.seed)",
			    ov[i], workload_kind_names[kind], key);
	}
}

/* An override that sets or removes artifacts.root (which -o also sets). */
static int names_artifacts_root(const char *a)
{
	size_t n = strlen("artifacts.root");

	a += *a == '+' || *a == '~';
	return !strncmp(a, "artifacts.root", n) && (a[n] == '=' || !a[n]);
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
 * override names it. Room for 2 more (run_config_auto) and for the
 * model.* overrides of a config.json (model_json.h). */
static const char **build_overrides(const struct cmd_ctx *ctx, int root_given,
				    struct strbuf *output_ov, size_t *n)
{
	const char **ov = xcalloc((size_t)ctx->argc + 5 + HF_MODEL_NR_OVERRIDES, sizeof(*ov));

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

/* A command workload without model keys whose argv names a transformers
 * config.json: its shape as model.* overrides appended to ov (said in one
 * line), and the config loaded again with them. 0, or the exit code after
 * the error. */
static int apply_model_json(struct run_ctx *rc, const char *conf_dir, const char **ov, size_t *n,
			    struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;

	rc->model_json_ov = run_model_json(rc, ov, *n, &note, &rc->model_json);
	if (note.len && rc->model_json_ov)
		fprintf(stderr, "llmprof: %s\n", note.buf);
	else if (note.len)
		warning_print("%s", note.buf);
	strbuf_release(&note);
	if (!rc->model_json_ov)
		return 0;
	for (size_t i = 0; rc->model_json_ov[i] && i < HF_MODEL_NR_OVERRIDES; i++)
		ov[(*n)++] = rc->model_json_ov[i];
	if (run_config_load(rc, conf_dir, *n, ov, err)) {
		error_print("%s", err->buf);
		return EXIT_CONFIG;
	}
	return 0;
}

/* The config every step reads: loaded with the user's overrides (and the
 * model shape of a config.json the program names), then with the ones
 * model=auto and the device add (they depend on a GPU and on the
 * configured workload). 0, or the exit code after the error. */
static int resolve_config(struct run_ctx *rc, const struct cmd_ctx *ctx, const char *conf_dir,
			  int root_given, const char **ov, size_t n, struct strbuf *err)
{
	size_t n_user = n;
	int code;

	if (run_config_load(rc, conf_dir, n, ov, err)) {
		error_print("%s", err->buf);
		return EXIT_CONFIG;
	}
	if (opt_output && root_given && check_output_root(rc->cfg))
		return EXIT_USAGE;
	warn_ignored_overrides(rc->cfg, ctx, ov, n_user);
	if ((code = apply_model_json(rc, conf_dir, ov, &n, err)))
		return code;
	n_user = n;
	if (!run_config_auto(rc, ov, &n))
		return 0;
	if (!rc->gpus.nr) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = n_user; i < n; i++)
			strbuf_addf(&sb, " %s", ov[i]);
		note_print("no GPU found: running the built-in workload on the CPU path on "
			   "purpose (applied%s)",
			   sb.buf);
		strbuf_release(&sb);
	}
	if (run_config_load(rc, conf_dir, n, ov, err)) {
		error_print("%s", err->buf);
		return EXIT_CONFIG;
	}
	return 0;
}

/* 1 when llmprof was started with its standard output closed. */
static int stdout_was_closed;

/* "run: <dir>", the last line on stdout and on a line of its own (echoed
 * output may end without a line end). A run that did everything it was
 * asked but cannot say where its bundle is exits 7; another code stays. */
static int print_run_line(const char *dir, int code)
{
	int e = 0;

	if (!stdout_was_closed) {
		if (!proc_echo_at_line_start(1))
			putchar('\n');
		printf("run: %s\n", dir);
		if (fflush(stdout) || ferror(stdout))
			e = errno ? errno : EIO;
	}
	if (!stdout_was_closed && !e)
		return code;
	error_print("cannot write to standard output: %s (run: %s)",
		    e ? strerror(e) : "it is closed", dir);
	clearerr(stdout); /* said here: not again when llmprof exits */
	return code ? code : EXIT_IO;
}

static const char *env_get(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

/* --rank-dir: "ranks/<rank>" into name, the rank by the tracer's own rule
 * (trace/rankid.h), so a bundle's folder and its trace agree on the rank.
 * 0, or the exit code after the error; nothing is created. */
static int rank_bundle_name(int root_given, struct strbuf *name, struct run_opts *ro)
{
	struct strbuf dir = STRBUF_INIT;
	struct rank_ident id;
	const char *bad_name, *bad_value;
	int code = 0;

	if (!*opt_rank_dir || opt_output || root_given) {
		error_print(!*opt_rank_dir ? "profile: option '--rank-dir' needs a directory"
					   : "profile: '--rank-dir' names the run folder; it "
					     "cannot be used with '-o' or artifacts.root");
		return EXIT_USAGE;
	}
	rank_ident_from_env(&id, env_get, NULL);
	if (id.rank < 0 && rank_env_invalid(env_get, NULL, &bad_name, &bad_value)) {
		error_print("profile: --rank-dir: %s='%s' is not a rank (a non-negative decimal "
			    "integer, as the launcher sets it)",
			    bad_name, bad_value);
		return EXIT_USAGE;
	}
	if (id.rank < 0) {
		error_print("profile: --rank-dir: no rank in the environment (RANK, SLURM_PROCID, "
			    "OMPI_COMM_WORLD_RANK or PMI_RANK); start llmprof under the launcher: "
			    "mpirun|srun ... llmprof profile --rank-dir DIR -- PROGRAM");
		return EXIT_USAGE;
	}
	{
		char r[16];

		snprintf(r, sizeof(r), "%d", (int)id.rank);
		bundle_art_fill(name, BA_RANK_BUNDLE, r);
	}
	ro->rank = id.rank;
	ro->world_size = id.world_size;
	ro->local_rank = id.local_rank;
	ro->launcher = rank_launcher_name(id.launcher);
	ro->rank_source = rank_source_name(id.source);
	path_join(&dir, opt_rank_dir, name->buf);
	if (path_exists(dir.buf)) { /* checked again, atomically, by mkdir */
		error_print("profile: '%s' exists: rank %d was already profiled into '%s'; give "
			    "a new --rank-dir or remove that folder",
			    dir.buf, (int)id.rank, opt_rank_dir);
		code = EXIT_USAGE;
	}
	strbuf_release(&dir);
	return code;
}

/* Creates the bundle and runs the pipeline. The exit code. */
static int run(struct run_ctx *rc)
{
	struct strbuf err = STRBUF_INIT;
	int code = EXIT_INTERNAL, ret;

	if (plan_check_programs(&rc->plan, &err)) {
		error_print("%s", err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	proc_catch_interrupts();
	if ((ret = run_open_bundle(rc, &err, &code))) {
		if (ret < 0)
			error_print("%s", err.buf);
		else /* what exists is still worth finding */
			code = print_run_line(rc->bundle.dir, code);
		goto out;
	}
	if (!stdout_was_closed) {
		/* a run that goes on after an interrupt (the reports after the
		 * ncu step) ends at once on the next one: still with this line */
		strbuf_reset(&err);
		strbuf_addf(&err, "run: %s\n", rc->bundle.dir);
		proc_set_exit_words(err.buf);
	}
	profile_view_start(rc, opt_echo);
	code = pipeline_run(rc);
	profile_view_end(rc);
	code = print_run_line(rc->bundle.dir, code);
	pipeline_end_code(rc, code);
out:
	strbuf_release(&err);
	return code;
}

static int cmd_profile_exec(struct cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT, root = STRBUF_INIT;
	struct strbuf output_ov = STRBUF_INIT, rank_name = STRBUF_INIT;
	struct run_opts ro = {0, 0, NULL, -1, -1, -1, NULL, NULL};
	struct run_ctx rc;
	char *conf_dir = NULL;
	const char **overrides = NULL;
	int root_given = 0, code;
	size_t n_overrides = 0;

	stdout_was_closed = fcntl(1, F_GETFD) < 0 && errno == EBADF;
	profile_view_init(opt_quiet, opt_verbose);
	run_ctx_init(&rc, &ro, &profile_view_progress);
	if ((code = check_args(ctx)))
		goto out;
	for (int i = 0; i < ctx->argc; i++)
		root_given |= names_artifacts_root(ctx->argv[i]);
	if (opt_rank_dir && (code = rank_bundle_name(root_given, &rank_name, &rc.opts)))
		goto out;
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
	bundle_abspath(&root, opt_rank_dir ? opt_rank_dir : config_typed(rc.cfg)->artifacts.root);
	rc.opts.bundle_name = opt_rank_dir ? rank_name.buf : NULL;
	if (!opt_echo)
		opt_echo = config_typed(rc.cfg)->run.echo;
	rc.opts.dry_run = opt_dry_run;
	rc.opts.echo = opt_echo;

	/* the plan is checked before anything is created */
	code = EXIT_INTERNAL;
	if (run_plan(&rc, root.buf, &err, &code)) {
		error_print("%s", err.buf);
		goto out;
	}
	code = opt_dry_run ? profile_dry_run(&rc, root.buf) : run(&rc);
	if (opt_rank_dir && !opt_dry_run) /* the last rank to end merges them all */
		merge_after_rank(root.buf, (int)rc.opts.world_size, opt_quiet);
out:
	run_ctx_release(&rc);
	strbuf_release(&output_ov);
	strbuf_release(&rank_name);
	free(conf_dir);
	free(overrides);
	strbuf_release(&err);
	strbuf_release(&root);
	return code;
}

const struct cmd_entry cmd_profile_entry = {
    .name = "profile",
    .usage = "[options] [KEY=VALUE ...] [-- PROGRAM [ARGS...]]",
    .summary = "run a workload under the profiling pipeline and write a run bundle",
    .description =
	"Resolves the configuration (conf/ plus KEY=VALUE overrides), creates\n"
	"<artifacts.root>/<run_id>/ and runs the pipeline, each step recorded in\n"
	"status.json: config, provenance, workload (under the timeline backend),\n"
	"trace (builtin) or nsys-export + nsys-stats (nsys), analyze, select, ncu,\n"
	"join, reports. pipeline.trace.backend=auto picks nsys when it can finish a\n"
	"report, else the builtin tracer, and says why. A failed step keeps what\n"
	"came before; the reports still run and say what is missing.\n"
	"With '-- PROGRAM ARGS' that program is the workload (never run through a\n"
	"shell); otherwise workload.kind picks the built-in llm or dummy workload\n"
	"or workload.program. The last line on stdout is 'run: <dir>'.\n"
	"Under mpirun or srun, '--rank-dir DIR' writes each rank's bundle into\n"
	"DIR/ranks/<rank>/ (refused when it exists); the last rank to end (of the\n"
	"world size in the environment) then builds the cross-rank reports in\n"
	"DIR/merged/, as 'llmprof merge DIR' does.\n"
	"Exit codes: 0 ok, 1 workload failed, 2 usage (--rank-dir: no rank in\n"
	"the environment, or the rank's folder exists), 3 config, 4 tool missing, 6 a step\n"
	"failed, 7 cannot write, 124 run.timeout_s exceeded, 130 interrupted\n"
	"(docs/exit-codes.md).",
    .opts = opts,
    .flags = CMD_TAKES_PROGRAM,
    .exec = cmd_profile_exec,
};
