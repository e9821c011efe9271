/* cmd-profile.c: `llmprof profile`: resolve the config, create the run
 * bundle, record provenance, run the plan's steps, keep status.json true
 * after every step, and end stdout with "run: <dir>". */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/stat.h>

#include "analysis/analytic_cfg.h"
#include "analysis/regions.h"
#include "trace/ncu_csv.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/bundle.h"
#include "nsight/gpu.h"
#include "pipeline/plan.h"
#include "core/proc.h"
#include "pipeline/provenance.h"
#include "pipeline/status.h"
#include "nsight/tools.h"
#include "analysis/select.h"
#include "report/build.h"
#include "trace/nvtxlist.h"
#include "trace/nvtxnow.h"
#include "trace/perfetto.h"
#include "trace/tosqlite.h"
#include "trace/tracer_launch.h"
#include "nsight/ncu_argv.h"
#include "nsight/ncu_config.h"
#include "nsight/ncu_nvtx.h"
#include "nsight/ncu_progress.h"
#include "nsight/ncu_run.h"
#include "nsight/nsys.h"
#include "nsight/nsys_config.h"
#include "nsight/nsys_diag.h"
#include "version.h"
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
/* The builtin tracer's log folder while it traces the workload, for the
 * NVTX ranges the program is in (trace/nvtxnow.h); NULL otherwise. */
static const char *g_trace_log;

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

/* How long the nsys usability probe may take per child. */
#define NSYS_PROBE_TIMEOUT_MS 20000

/* Owned storage behind struct plan_params. */
struct profile_params {
	struct plan_params pp;
	const char **program_argv; /* borrowed strings, owned array */
	char *workloads_dir;
	const char *model_name;
	struct strbuf trace_reason;
	struct strbuf trace_problem; /* --dry-run: why the backend cannot work */
	struct strbuf ncu_problem;   /* --dry-run: why the ncu step would fail */
	int have_gpu;		     /* the GPU probe found one */
	struct nsys_options nsys;
	const char **nsys_extra;
	char *nsys_path;
	/* builtin trace backend */
	char *tracer_lib;	 /* NULL = no builtin trace */
	struct strbuf trace_dir; /* <run>/trace */
	struct strbuf trace_log; /* <run>/trace/log: the tracer's logs */
	char *tracer_env[5];
	struct strbuf ncu_what; /* the ncu step's --dry-run text */
};

static void profile_params_release(struct profile_params *p)
{
	free(p->program_argv);
	free(p->workloads_dir);
	strbuf_release(&p->trace_reason);
	strbuf_release(&p->trace_problem);
	strbuf_release(&p->ncu_problem);
	free(p->nsys_extra);
	free(p->nsys_path);
	free(p->tracer_lib);
	strbuf_release(&p->trace_dir);
	strbuf_release(&p->trace_log);
	tracer_env_free(p->tracer_env);
	strbuf_release(&p->ncu_what);
}

/* Points the workload at the builtin tracer, its logs under run_dir. */
static void tracer_setup(struct profile_params *p, const char *run_dir)
{
	tracer_env_free(p->tracer_env);
	memset(p->tracer_env, 0, sizeof(p->tracer_env));
	p->pp.workload_env = NULL;
	if (p->pp.trace != PLAN_TRACE_BUILTIN || !p->tracer_lib)
		return;
	strbuf_reset(&p->trace_dir);
	strbuf_reset(&p->trace_log);
	path_join(&p->trace_dir, run_dir, "trace");
	path_join(&p->trace_log, p->trace_dir.buf, "log");
	tracer_env_build(p->tracer_env, p->tracer_lib, p->trace_log.buf, TRACER_FULL);
	p->pp.workload_env = (const char *const *)p->tracer_env;
}

/* Chooses the timeline backend (pipeline.trace.*): nsys when asked for or
 * when backend=auto and nsys can finish a report, else the builtin tracer;
 * both found by tool_find (nsight/tools.h). Records why in p->trace_reason.
 * Returns 0, or -1 with err and *code when the choice cannot work
 * (backend=nsys with an unusable nsys, bad nsys options). With --dry-run
 * such a problem goes to p->trace_problem instead, the plan is built with
 * the backend asked for, and 0 is returned. */
static int choose_backend(struct profile_params *p, const struct config *cfg, struct strbuf *err,
			  int *code)
{
	const char *backend = config_get_string(cfg, "pipeline.trace.backend");
	struct tool_found nsys, tracer;
	int ret = -1, have_nsys = 0, have_tracer = 0;

	if (!backend)
		backend = "auto";
	if (!config_get_bool(cfg, "pipeline.trace.enable", 1)) {
		p->pp.trace = PLAN_TRACE_OFF;
		strbuf_addstr(&p->trace_reason, "pipeline.trace.enable=false");
		return 0;
	}
	if (strcmp(backend, "builtin")) {
		tool_find(TOOL_NSYS, config_get_string(cfg, "pipeline.nsys.path"), &nsys);
		have_nsys = 1;
		if (!nsys.problem) {
			p->pp.trace = PLAN_TRACE_NSYS;
			p->nsys_path = xstrdup(nsys.path);
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=%s: nsys %s at %s can "
				    "finish a report",
				    backend, nsys.version, nsys.path);
		} else if (!strcmp(backend, "nsys")) {
			*code = EXIT_TOOL_MISSING;
			error_set(err, "pipeline.trace.backend=nsys: %s; %s", nsys.why.buf,
				  nsys.fix.buf);
			if (!p->pp.dry_run)
				goto out;
			p->pp.trace = PLAN_TRACE_NSYS;
			p->nsys_path = xstrdup(nsys.path ? nsys.path : "nsys");
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=nsys, but nsys is not "
				    "usable: %s",
				    nsys.why.buf);
			strbuf_addstr(&p->trace_problem, err->buf);
			p->pp.trace_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(err);
		} else {
			strbuf_addf(&p->trace_reason,
				    "pipeline.trace.backend=auto: nsys is not "
				    "usable (%s)",
				    nsys.why.buf);
		}
	}
	if (p->pp.trace != PLAN_TRACE_NSYS) {
		tool_find(TOOL_TRACER, NULL, &tracer);
		have_tracer = 1;
		if (tracer.deprecated.len && !p->pp.dry_run) /* the dry run's tool lines say it */
			warning_print("%s", tracer.deprecated.buf);
		if (!tracer.problem) {
			p->tracer_lib = xstrdup(tracer.path);
			p->pp.trace = PLAN_TRACE_BUILTIN;
			p->pp.tracer_lib = p->tracer_lib;
			if (p->trace_reason.len)
				strbuf_addf(&p->trace_reason, "; using the builtin tracer %s",
					    p->tracer_lib);
			else
				strbuf_addf(&p->trace_reason,
					    "pipeline.trace.backend=builtin: tracer %s",
					    p->tracer_lib);
		} else if (!strcmp(backend, "builtin")) {
			*code = EXIT_TOOL_MISSING;
			error_set(err, "pipeline.trace.backend=builtin: %s (%s)", tracer.why.buf,
				  tracer.fix.buf);
			if (!p->pp.dry_run)
				goto out;
			p->tracer_lib = xstrdup(tracer.path ? tracer.path : tracer.name);
			p->pp.trace = PLAN_TRACE_BUILTIN;
			p->pp.tracer_lib = p->tracer_lib;
			strbuf_addf(&p->trace_reason, "pipeline.trace.backend=builtin, but %s",
				    tracer.why.buf);
			strbuf_addstr(&p->trace_problem, err->buf);
			p->pp.trace_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(err);
		} else {
			/* auto with neither backend: the workload runs untraced */
			p->pp.trace = PLAN_TRACE_OFF;
			warning_print("no timeline trace: %s; %s", tracer.why.buf,
				      p->trace_reason.buf);
			strbuf_addf(&p->trace_reason, "; %s", tracer.why.buf);
		}
	}
	if (p->pp.trace == PLAN_TRACE_NSYS) {
		if (nsys_options_from_config(cfg, &p->nsys, &p->nsys_extra, err)) {
			*code = EXIT_CONFIG;
			if (!p->pp.dry_run)
				goto out;
			if (!p->trace_problem.len) {
				strbuf_addstr(&p->trace_problem, err->buf);
				p->pp.trace_problem_code = EXIT_CONFIG;
			}
			strbuf_reset(err);
		}
		p->nsys.nsys = p->nsys_path;
		p->pp.nsys = &p->nsys;
	}
	ret = 0;
out:
	p->pp.trace_reason = p->trace_reason.buf;
	p->pp.trace_problem = p->trace_problem.len ? p->trace_problem.buf : NULL;
	if (have_nsys)
		tool_found_release(&nsys);
	if (have_tracer)
		tool_found_release(&tracer);
	return ret;
}

static void params_from_config(struct profile_params *p, const struct config *cfg,
			       const struct cmd_ctx *ctx, const struct gpu_probe *gpus,
			       const char *run_dir)
{
	struct plan_params *pp = &p->pp;
	const char *name;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->trace_reason, 0);
	strbuf_init(&p->trace_problem, 0);
	strbuf_init(&p->ncu_problem, 0);
	strbuf_init(&p->trace_dir, 0);
	strbuf_init(&p->trace_log, 0);
	strbuf_init(&p->ncu_what, 0);
	pp->run_dir = run_dir;
	p->have_gpu = gpus->nr > 0;
	pp->workload_kind = config_get_string(cfg, "workload.kind");
	if (ctx->has_program) {
		/* "-- PROGRAM ARGS" always wins over the configured workload */
		pp->workload_kind = "command";
		p->program_argv = xcalloc((size_t)ctx->prog_argc + 1, sizeof(char *));
		for (int i = 0; i < ctx->prog_argc; i++)
			p->program_argv[i] = ctx->prog_argv[i];
	} else if (pp->workload_kind && !strcmp(pp->workload_kind, "command")) {
		size_t n = config_list_len(cfg, "workload.args");
		const char *prog = config_get_string(cfg, "workload.program");

		p->program_argv = xcalloc(n + 2, sizeof(char *));
		if (prog) {
			p->program_argv[0] = prog;
			for (size_t i = 0; i < n; i++)
				p->program_argv[i + 1] = config_list_item(cfg, "workload.args", i);
		}
	}
	pp->program_argv = p->program_argv;
	p->workloads_dir = tool_workloads_dir();
	pp->workloads_dir = p->workloads_dir;
	pp->device = config_get_string(cfg, "device");
	name = config_get_string(cfg, "model.name");
	/* model=auto is decided here, at run time: the real model where a GPU
	 * can run it, the tiny one otherwise */
	if (!name || !strcmp(name, "auto"))
		name = gpus->nr ? "llama-3.2-1b" : "tiny";
	pp->model_name = name;
	pp->prompt_len = config_get_int(cfg, "infer.prompt_len", 128);
	pp->max_new_tokens = config_get_int(cfg, "infer.max_new_tokens", 32);
	pp->batch_size = config_get_int(cfg, "infer.batch_size", 1);
	pp->warmup = config_get_int(cfg, "workload.warmup", 1);
	pp->seed = config_get_int(cfg, "model.seed", 1234);
	pp->dtype = config_get_string(cfg, "infer.dtype");
	pp->cuda_graph = config_get_bool(cfg, "infer.cuda_graph", 0);
	pp->hidden_size = config_get_int(cfg, "model.hidden_size", 0);
	pp->intermediate_size = config_get_int(cfg, "model.intermediate_size", 0);
	pp->num_layers = config_get_int(cfg, "model.num_layers", 0);
	pp->num_heads = config_get_int(cfg, "model.num_heads", 0);
	pp->num_kv_heads = config_get_int(cfg, "model.num_kv_heads", 0);
	pp->head_dim = config_get_int(cfg, "model.head_dim", 0);
	pp->vocab_size = config_get_int(cfg, "model.vocab_size", 0);
	pp->max_position = config_get_int(cfg, "model.max_position", 0);
	pp->rope_theta = config_get_double(cfg, "model.rope_theta", 0);
	pp->rms_norm_eps = config_get_double(cfg, "model.rms_norm_eps", 0);
	pp->qkv_bias = config_get_bool(cfg, "model.qkv_bias", -1);
	pp->tie_word_embeddings = config_get_bool(cfg, "model.tie_word_embeddings", -1);
	pp->weights = config_get_string(cfg, "model.weights");
	pp->mode = config_get_string(cfg, "run.mode");
	pp->ncu_enable = config_get_bool(cfg, "pipeline.ncu.enable", 1);
}

/* A KEY=VALUE the chosen built-in workload has no flag for is said, not
 * silently dropped (workload=dummy infer.prompt_len=64). */
static void warn_ignored_overrides(const struct config *cfg, const struct cmd_ctx *ctx,
				   const char **ov, size_t n)
{
	const char *kind = ctx->has_program ? "command" : config_get_string(cfg, "workload.kind");

	for (size_t i = 0; i < n; i++) {
		const char *key = plan_workload_ignores(kind, ov[i]);

		if (key)
			warning_print(
			    "'%s' is ignored: the %s workload does not use %s (it takes "
			    "only device, infer.batch_size, workload.warmup and model.seed)",
			    ov[i], kind, key);
	}
}

static int write_status(const struct run_status *st)
{
	struct strbuf err = STRBUF_INIT;
	int ret = run_status_write(st, &err);

	if (ret)
		error_print("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

/* Writes config.yaml, env.json, inputs.yaml. */
static int write_provenance(const struct run_bundle *b, const struct config *cfg,
			    const struct cmd_ctx *ctx, const struct gpu_probe *gpus,
			    const struct plan *plan, struct strbuf *err)
{
	struct provenance_opts po = {ctx->orig_argc, ctx->orig_argv,
				     config_get_string(cfg, "pipeline.nsys.path"),
				     config_get_string(cfg, "pipeline.ncu.path"), gpus};
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	json_t *env = NULL;
	struct run_inputs inputs;
	char *found = NULL;
	int ret = -1;

	config_to_yaml(cfg, &sb);
	if (bundle_write(b, "config.yaml", sb.buf, sb.len, err))
		goto out;
	env = provenance_env_json(&po);
	bundle_path(b, "env.json", &path);
	if (json_write_file_atomic(path.buf, env, err))
		goto out;
	strbuf_reset(&sb);
	inputs = plan->inputs;
	if (inputs.argv && inputs.argv[0] && (found = find_in_path(inputs.argv[0])) &&
	    strcmp(found, inputs.argv[0]))
		inputs.program_path = found;
	provenance_inputs_yaml(&inputs, &sb);
	if (bundle_write(b, "inputs.yaml", sb.buf, sb.len, err))
		goto out;
	ret = 0;
out:
	json_decref(env);
	free(found);
	strbuf_release(&sb);
	strbuf_release(&path);
	return ret;
}

static int write_step_logs(const struct run_bundle *b, const struct plan_step *s,
			   struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, rel = STRBUF_INIT;
	int ret;

	strbuf_addf(&rel, "logs/%s.argv", s->name);
	bundle_path(b, rel.buf, &path);
	ret = proc_write_argv(path.buf, (const char *const *)s->argv, err);
	if (!ret) {
		strbuf_reset(&rel);
		strbuf_reset(&path);
		strbuf_addf(&rel, "logs/%s.env", s->name);
		bundle_path(b, rel.buf, &path);
		ret = proc_write_argv(path.buf, (const char *const *)s->env_add, err);
	}
	strbuf_release(&path);
	strbuf_release(&rel);
	return ret;
}

struct run_outcome {
	enum run_state state;
	int code;
	int failed;	 /* a step failed: later steps run only when after_failure */
	const char *why; /* for the steps never run */
};

/* Records the first failure: its state and exit code decide the run's. */
static void outcome_fail(struct run_outcome *oc, enum step_state state, int code)
{
	if (oc->failed)
		return;
	oc->failed = 1;
	if (state == STEP_TIMEOUT) {
		oc->state = RUN_TIMEOUT;
		oc->code = EXIT_TIMEOUT;
		oc->why = "not run: run.timeout_s exceeded";
	} else if (state == STEP_INTERRUPTED) {
		oc->state = RUN_INTERRUPTED;
		oc->code = EXIT_INTERRUPTED;
		oc->why = "not run: llmprof was interrupted";
	} else {
		oc->state = RUN_FAILED;
		oc->code = code;
		oc->why = "not run: an earlier step failed";
	}
}

static size_t count_qdstrm(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += starts_with(e->d_name, "run") && ends_with(e->d_name, ".qdstrm");
	closedir(d);
	return n;
}

/* After `nsys profile`: a run that left no report is a failure, explained
 * by the nsys diagnosis (gate never opened, importer missing, ...). Sets
 * *tool_fault when nsys, not the program, is to blame. */
static void nsys_check_profile(const struct run_bundle *b, const struct plan_step *s,
			       const struct proc_result *res, enum step_state *state,
			       int *tool_fault, struct strbuf *d)
{
	struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct nsys_args reps = NSYS_ARGS_INIT;
	struct nsys_diag dg = NSYS_DIAG_INIT;
	struct nsys_profile_outcome o;
	size_t n;

	memset(&o, 0, sizeof(o));
	bundle_path(b, "nsys", &dir);
	n = nsys_list_reports(dir.buf, "run", &reps);
	bundle_path(b, s->out_log, &out);
	bundle_path(b, s->err_log, &err);
	{
		struct strbuf ob = STRBUF_INIT, eb = STRBUF_INIT;

		strbuf_read_file(&ob, out.buf);
		strbuf_read_file(&eb, err.buf);
		o.argv = (const char *const *)s->argv;
		o.exited = res->outcome == PROC_EXITED || res->outcome == PROC_TIMEOUT;
		o.exit_code = res->exit_status;
		o.signaled = res->signal != 0;
		o.term_signal = res->signal;
		o.out = ob.buf;
		o.out_len = ob.len;
		o.err = eb.buf;
		o.err_len = eb.len;
		o.n_reports = n;
		o.n_qdstrm = count_qdstrm(dir.buf);
		nsys_diag_profile(&o, &dg);
		strbuf_release(&ob);
		strbuf_release(&eb);
	}
	if (!n && *state == STEP_OK) {
		/* the program was fine; nsys is to blame */
		*state = STEP_FAILED;
		*tool_fault = 1;
		strbuf_reset(d);
		if (!dg.nr)
			strbuf_addstr(d, "nsys wrote no report");
	}
	for (size_t i = 0; i < dg.nr && i < 2; i++)
		strbuf_addf(d, "%snsys [%s]: %s (fix: %s)", d->len ? "; " : "",
			    nsys_diag_code_name(dg.items[i].code), dg.items[i].explain.buf,
			    dg.items[i].fix.buf);
	nsys_diag_release(&dg);
	nsys_args_release(&reps);
	strbuf_release(&dir);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* After nsys export/stats: nsys's known failure texts explain a failure;
 * an empty kernel summary is said to be one. */
static void nsys_check_step(const struct run_bundle *b, const struct plan_step *s,
			    enum step_state state, struct strbuf *d)
{
	struct strbuf p = STRBUF_INIT, text = STRBUF_INIT;
	struct nsys_diag dg = NSYS_DIAG_INIT;

	if (state != STEP_OK) {
		bundle_path(b, s->out_log, &p);
		strbuf_read_file(&text, p.buf);
		strbuf_reset(&p);
		bundle_path(b, s->err_log, &p);
		strbuf_read_file(&text, p.buf);
		nsys_diag_export_text(text.buf, text.len, &dg);
		for (size_t i = 0; i < dg.nr && i < 2; i++)
			strbuf_addf(d, "; nsys [%s]: %s (fix: %s)",
				    nsys_diag_code_name(dg.items[i].code), dg.items[i].explain.buf,
				    dg.items[i].fix.buf);
	} else if (!strcmp(s->name, "nsys-stats")) {
		bundle_path(b, "nsys/summary_cuda_gpu_kern_sum.csv", &p);
		if (!path_exists(p.buf))
			strbuf_addstr(d, "; but nsys wrote no summary_cuda_gpu_kern_sum.csv");
		else if (!strbuf_read_file(&text, p.buf) && !text.len)
			strbuf_addstr(d, "; the trace has no CUDA kernel data (nsys skipped "
					 "cuda_gpu_kern_sum: the CSV is empty)");
	}
	nsys_diag_release(&dg);
	strbuf_release(&p);
	strbuf_release(&text);
}

/* After a failed workload: the last lines it wrote to stderr (else to
 * stdout), so the cause is on the terminal, not only in the bundle. */
static void show_log_tail(const struct strbuf *err_log, const struct strbuf *out_log)
{
	struct strbuf tail = STRBUF_INIT;
	const struct strbuf *log = err_log;
	int n = live_file_tail(err_log->buf, WORKLOAD_TAIL_LINES, 65536, "  ", &tail);

	if (n <= 0) {
		strbuf_reset(&tail);
		log = out_log;
		n = live_file_tail(out_log->buf, WORKLOAD_TAIL_LINES, 65536, "  ", &tail);
	}
	if (n > 0)
		fprintf(stderr, "llmprof: the last %d line%s of %s:\n%s", n, n == 1 ? "" : "s",
			log->buf, tail.buf);
	strbuf_release(&tail);
}

/* Runs one child step; records it in st and returns its state. */
static enum step_state run_child(const struct run_bundle *b, const struct plan_step *s, size_t idx,
				 struct run_status *st, int echo, uint64_t deadline_ns,
				 double timeout_s, int nsys_wrapped, struct run_outcome *oc)
{
	struct strbuf out = STRBUF_INIT, errp = STRBUF_INIT, err = STRBUF_INIT, d = STRBUF_INIT;
	struct proc_spec spec = {.argv = (const char *const *)s->argv,
				 .env_add = (const char *const *)s->env_add};
	struct proc_result res;
	struct child_tick tick = {NULL, NULL, 0, 0, NULL};
	enum step_state state;
	int tool_fault = 0;

	run_status_start(st, idx);
	write_status(st);
	if (write_step_logs(b, s, &err))
		goto io_error;
	bundle_path(b, s->out_log, &out);
	bundle_path(b, s->err_log, &errp);
	spec.out.path = out.buf;
	spec.err.path = errp.buf;
	spec.out.echo = spec.err.echo = echo;
	/* the child runs in its own process group: reading a terminal would
	 * stop it with SIGTTIN, so it only inherits a stdin that is not one */
	spec.stdin_null = isatty(0);
	if (deadline_ns) {
		uint64_t now = clock_mono_ns();
		spec.timeout_s = now < deadline_ns ? (double)(deadline_ns - now) / 1e9 : 1e-3;
	}
	tick.out_log = out.buf;
	tick.err_log = errp.buf;
	if (g_live.enabled && g_trace_log && s->kind == STEP_KIND_WORKLOAD)
		tick.nvtx = nvtx_now_new(g_trace_log);
	live_attach(&spec, &tick);
	verbose_argv(s->name, spec.argv, spec.env_add);
	if (proc_run(&spec, &res, &err)) {
		live_clear(&g_live);
		goto io_error;
	}
	live_clear(&g_live);
	nvtx_now_free(tick.nvtx);
	tick.nvtx = NULL;
	if (res.outcome == PROC_TIMEOUT)
		spec.timeout_s = timeout_s; /* describe the configured limit */
	proc_result_describe(&res, &spec, &d);
	if (res.log_errno) {
		strbuf_addf(&d, "; its log is incomplete: %s", strerror(res.log_errno));
		if (oc->code == EXIT_OK)
			oc->code = EXIT_IO; /* a bundle file could not be written */
	}
	switch (res.outcome) {
	case PROC_EXITED:
		state = res.exit_status ? STEP_FAILED : STEP_OK;
		break;
	case PROC_TIMEOUT:
		state = STEP_TIMEOUT;
		break;
	case PROC_INTERRUPTED:
		state = STEP_INTERRUPTED;
		break;
	default:
		state = STEP_FAILED;
	}
	if (nsys_wrapped && state != STEP_INTERRUPTED)
		nsys_check_profile(b, s, &res, &state, &tool_fault, &d);
	else if (state != STEP_INTERRUPTED && starts_with(s->name, "nsys-"))
		nsys_check_step(b, s, state, &d);
	/* an exec failure's 127 is our own child's, not the program's */
	run_status_end(st, idx, state, res.outcome == PROC_EXEC_FAILED ? -1 : res.exit_status,
		       res.signal, d.buf);
	write_status(st);
	if (state != STEP_OK) {
		error_print("%s: %s (logs: %s/logs/%s.{out,err})", s->name, d.buf, b->dir, s->name);
		if (s->kind == STEP_KIND_WORKLOAD && !echo && state != STEP_INTERRUPTED &&
		    res.outcome != PROC_EXEC_FAILED)
			show_log_tail(&errp, &out);
		if (!s->optional || state == STEP_TIMEOUT || state == STEP_INTERRUPTED)
			outcome_fail(oc, state,
				     s->kind == STEP_KIND_WORKLOAD && !tool_fault
					 ? EXIT_WORKLOAD_FAILED
					 : EXIT_STEP_FAILED);
	}
	goto out;
io_error:
	nvtx_now_free(tick.nvtx);
	error_print("%s", err.buf);
	state = STEP_FAILED;
	run_status_end(st, idx, state, -1, 0, err.buf);
	write_status(st);
	outcome_fail(oc, state, EXIT_IO);
out:
	strbuf_release(&out);
	strbuf_release(&errp);
	strbuf_release(&err);
	strbuf_release(&d);
	return state;
}

/* What the in-process steps share. */
struct internal_ctx {
	const struct run_bundle *b;
	const struct config *cfg;	  /* the resolved config in memory */
	struct config *bcfg;		  /* the bundle's config.yaml, loaded on first use */
	struct report_analysis *analysis; /* the analyze step's, reused by reports */
	const struct cmd_ctx *ctx;
	const struct gpu_probe *gpus;
	const struct plan *plan;
	const struct profile_params *pp;
	const char *conf_dir;
	size_t n_overrides;
	struct selection *sel; /* the select step's, for the ncu step */
	const char *ncu_base;  /* --kernel-name-base the selection used */
};

/* The config the reports read: the bundle's config.yaml, exactly as
 * `llmprof report RUN_DIR` reads it, so both write the same bytes. */
static const struct config *bundle_config(struct internal_ctx *ic, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	if (!ic->bcfg) {
		bundle_path(ic->b, "config.yaml", &p);
		if (path_exists(p.buf) && config_load(&ic->bcfg, ic->b->dir, 0, NULL, err)) {
			warning_print("cannot reload %s: %s", p.buf, err->buf);
			strbuf_reset(err);
		}
		strbuf_release(&p);
	}
	return ic->bcfg ? ic->bcfg : ic->cfg;
}

/* The builtin "trace" step: tracer logs -> trace/trace.sqlite and
 * trace/trace.json. Runs after a failed workload too: what it traced shows
 * why. */
static enum step_state trace_finish(struct internal_ctx *ic, struct strbuf *msg)
{
	const struct profile_params *p = ic->pp;
	struct trace_convert_stats ts;
	struct strbuf db = STRBUF_INIT, json = STRBUF_INIT, err = STRBUF_INIT;
	enum step_state state = STEP_OK;
	uint64_t ev = 0, merged = 0;
	int rc;

	if (!p->tracer_lib) {
		strbuf_addstr(msg, "tracer not built: no libllmprof_tracer.so");
		return STEP_FAILED;
	}
	trace_convert_stats_init(&ts);
	path_join(&db, p->trace_dir.buf, "trace.sqlite");
	path_join(&json, p->trace_dir.buf, "trace.json");
	if (!tracer_logs_present(p->trace_log.buf)) {
		/* CUDA and NVTX load the tracer on first use: a program using
		 * neither leaves no log, and there is nothing to trace */
		state = STEP_SKIPPED;
		strbuf_addstr(msg, "no timeline: the program made no CUDA or NVTX call "
				   "(the tracer was never loaded)");
		goto done;
	}
	rc = trace_convert(p->trace_log.buf, db.buf, NULL, &ts, &err);
	if (rc == -1 ||
	    perfetto_write(db.buf, json.buf,
			   (uint64_t)config_get_int(ic->cfg, "pipeline.trace.max_json_events", 0),
			   &ev, &merged, &err) < 0) {
		state = STEP_FAILED;
		strbuf_addstr(msg, err.buf);
		goto done;
	}
	strbuf_addf(msg,
		    "%llu kernels, %llu copies, %llu memsets, %llu NVTX rows, %llu launch calls",
		    (unsigned long long)ts.kernels, (unsigned long long)ts.memcpys,
		    (unsigned long long)ts.memsets, (unsigned long long)ts.nvtx_rows,
		    (unsigned long long)ts.api_calls);
	if (merged)
		strbuf_addf(msg, "; trace.json: %llu short events merged to stay under the cap",
			    (unsigned long long)merged);
	if (ts.dropped_cupti || ts.dropped_tracer)
		strbuf_addf(msg, "; %llu records dropped (CUPTI %llu, tracer %llu)",
			    (unsigned long long)(ts.dropped_cupti + ts.dropped_tracer),
			    (unsigned long long)ts.dropped_cupti,
			    (unsigned long long)ts.dropped_tracer);
	if (ts.cupti_busy)
		strbuf_addstr(msg, "; no GPU activity: CUPTI was taken by another tool "
				   "(nsys, ncu or the PyTorch profiler)");
	else if (ts.cupti_unsupported)
		strbuf_addstr(msg, "; no GPU activity: CUPTI could not trace on this system");
	if (rc == TRACE_CONVERT_PARTIAL) {
		strbuf_addf(msg, "; %s", err.buf);
		warning_print("trace: %s", err.buf);
	}
	if (ts.diags.len)
		fprintf(stderr, "llmprof: tracer: %s", ts.diags.buf);
done:
	trace_convert_stats_release(&ts);
	strbuf_release(&db);
	strbuf_release(&json);
	strbuf_release(&err);
	return state;
}

static int make_ncu_dir(const struct run_bundle *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret;

	bundle_path(b, "ncu", &p);
	ret = mkdir_p(p.buf, err);
	strbuf_release(&p);
	return ret;
}

/* run.mode=light: counters on at most this many kernels. */
#define SELECT_LIGHT_TOP 5

/* The select step: the kernels of run.stage worth counters ->
 * ncu/selection.json (analysis/select.h). */
static enum step_state select_step(struct internal_ctx *ic, struct strbuf *msg)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const struct config *cfg = bundle_config(ic, &err);
	struct select_opts so = SELECT_OPTS_INIT;
	struct selection sel = SELECTION_INIT;
	struct launch *l = NULL;
	const char **exc = NULL;
	const char *stage = config_get_string(cfg, "run.stage");
	const char *mode = config_get_string(cfg, "run.mode");
	const char *base = config_get_string(cfg, "pipeline.ncu.ncu_cli.kernel_name_base");
	enum step_state state = STEP_FAILED;
	size_t n = 0, nexc = config_list_len(cfg, "pipeline.ncu.ncu_cli.kernel_exclude");
	int64_t lc = config_get_int(cfg, "pipeline.ncu.ncu_cli.launch_count", 0);

	if (!ic->analysis || strcmp(report_analysis_state(ic->analysis, NULL), "ok")) {
		strbuf_addstr(msg, "no analyzed trace to select kernels from");
		state = STEP_SKIPPED;
		goto out;
	}
	if (report_analysis_launches(ic->analysis, stage, &l, &n, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	so.coverage = config_get_double(cfg, "run.coverage", 0.95);
	so.top_n = (size_t)config_get_int(cfg, "run.top_n_kernels", 30);
	if (mode && !strcmp(mode, "light") && so.top_n > SELECT_LIGHT_TOP)
		so.top_n = SELECT_LIGHT_TOP;
	if (nexc) {
		exc = xcalloc(nexc, sizeof(*exc));
		for (size_t i = 0; i < nexc; i++)
			exc[i] = config_list_item(cfg, "pipeline.ncu.ncu_cli.kernel_exclude", i);
		so.exclude = exc;
		so.nr_exclude = nexc;
	}
	so.launch_count = lc > 0 ? (unsigned)lc : 1;
	/* each selected kernel gets its own ncu run, found by name and launch
	 * index over the whole run: no NVTX gate is needed, and none is used
	 * (docs/ncu.md "How profile runs ncu") */
	so.nvtx_gated = 0;
	so.base = base && !strcmp(base, "function") ? SELECT_BASE_FUNCTION : SELECT_BASE_DEMANGLED;
	/* mangled names are the same text in the trace and in ncu; demangled
	 * ones are not (select.h) */
	so.base = select_best_base(l, n, so.base);
	if (select_kernels(l, n, &so, &sel, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	if (!sel.stage_launches) {
		strbuf_addf(msg, "no kernel launches in run.stage=%s", stage ? stage : "decode");
		state = STEP_SKIPPED;
		goto out;
	}
	selection_json(&sel, &so, &text);
	strbuf_reset(&err);
	if (make_ncu_dir(ic->b, &err) ||
	    bundle_write(ic->b, "ncu/selection.json", text.buf, text.len, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	strbuf_addf(msg,
		    "%zu of %zu distinct kernels, %.1f%% of %s GPU time (%s) -> ncu/selection.json",
		    sel.nr, sel.distinct, 100.0 * sel.coverage, stage ? stage : "decode",
		    sel.stop_reason ? sel.stop_reason : "done");
	state = STEP_OK;
	ic->sel = xmalloc(sizeof(*ic->sel));
	*ic->sel = sel;
	memset(&sel, 0, sizeof(sel));
	ic->ncu_base = select_base_name(so.base);
out:
	selection_release(&sel);
	free(l);
	free(exc);
	strbuf_release(&err);
	strbuf_release(&text);
	return state;
}

/* Runs one ncu child with its logs under logs/<name>.{out,err}; its console
 * text (stdout then stderr) is appended to text. */
static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* Live progress of the captures on stderr, from ncu's own console lines
 * (nsight/ncu_progress.h). On a terminal: one line, redrawn whenever ncu
 * reports progress. Elsewhere (CI logs, files): one line per finished
 * result, so a log shows how far a long run got without a line per pass.
 * Nothing with run.echo, which shows ncu's own lines. */
struct ncu_live {
	struct ncu_progress p[2]; /* ncu's stdout, stderr: one line buffer each */
	size_t expected;	  /* results the step expects, 0 when unknown */
	uint64_t start_ns;	  /* the step's start: "elapsed" is the step's */
	int tty, drawn;		  /* drawn: a live line is on the terminal */
	long long reported;	  /* results printed (not on a terminal) */
};

static void ncu_live_show(struct ncu_live *l, const struct ncu_progress *p)
{
	struct strbuf line = STRBUF_INIT;
	double el = (double)(clock_mono_ns() - l->start_ns) / 1e9;

	if (l->tty) {
		/* the live line says the step's elapsed time already */
		ncu_progress_format(p, l->expected, -1, &line);
		live_set_detail(&g_live, line.buf);
		live_tick(&g_live, clock_mono_ns());
		l->drawn = g_live.drawn;
	} else if (p->done > l->reported && !p->in_progress) {
		l->reported = p->done;
		ncu_progress_format(p, l->expected, el, &line);
		fprintf(stderr, "llmprof: %s\n", line.buf);
		live_printed(&g_live, clock_mono_ns());
		strbuf_reset(&line);
		ncu_progress_format(p, l->expected, -1, &line);
		live_set_detail(&g_live, line.buf);
	}
	fflush(stderr);
	strbuf_release(&line);
}

static void ncu_live_out(void *arg, const char *buf, size_t len)
{
	struct ncu_live *l = arg;

	if (ncu_progress_feed(&l->p[0], buf, len))
		ncu_live_show(l, &l->p[0]);
}

static void ncu_live_err(void *arg, const char *buf, size_t len)
{
	struct ncu_live *l = arg;

	if (ncu_progress_feed(&l->p[1], buf, len))
		ncu_live_show(l, &l->p[1]);
}

/* Before capture i: results before it count as done (deep mode: one result
 * per capture), and the last pass count carries over (same sections). */
static void ncu_live_start(struct ncu_live *l, long long done)
{
	for (size_t s = 0; s < 2; s++) {
		int passes = l->p[s].passes;

		ncu_progress_release(&l->p[s]);
		ncu_progress_init(&l->p[s]);
		l->p[s].done = done;
		l->p[s].passes = passes;
	}
	if (l->reported < done)
		l->reported = done;
}

/* Ends the live line before other output. */
static void ncu_live_end(struct ncu_live *l)
{
	live_clear(&g_live);
	l->drawn = 0;
}

static int ncu_child(const struct run_bundle *b, const char *name, const struct ncu_cmd *cmd,
		     char *const *wl_env, const char *out_path, double timeout_s, int echo,
		     struct ncu_live *live, struct proc_result *res, struct strbuf *text,
		     struct strbuf *err)
{
	static const char *const unset[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
					    "LLMPROF_TRACE_OUT", NULL};
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT, rel = STRBUF_INIT, p = STRBUF_INIT;
	struct proc_spec spec;
	struct child_tick tick = {NULL, NULL, 0, 0, NULL};
	const char **env = NULL;
	size_t nenv = 0;
	int ret;

	memset(&spec, 0, sizeof(spec));
	/* ncu's own additions, then the workload's minus the tracer's */
	env = xcalloc(cmd->nenv + (wl_env ? strv_len(wl_env) : 0) + 1, sizeof(*env));
	for (size_t i = 0; i < cmd->nenv; i++)
		env[nenv++] = cmd->env[i];
	for (char *const *w = wl_env; w && *w; w++)
		if (!starts_with(*w, "CUDA_INJECTION64_PATH=") &&
		    !starts_with(*w, "NVTX_INJECTION64_PATH=") &&
		    !starts_with(*w, "LLMPROF_TRACE_"))
			env[nenv++] = *w;
	strbuf_addf(&rel, "logs/%s.argv", name);
	bundle_path(b, rel.buf, &p);
	ret = proc_write_argv(p.buf, (const char *const *)cmd->argv, err);
	if (ret)
		goto out;
	strbuf_reset(&rel);
	strbuf_addf(&rel, "logs/%s.out", name);
	if (out_path)
		strbuf_addstr(&o, out_path);
	else
		bundle_path(b, rel.buf, &o);
	strbuf_reset(&rel);
	strbuf_addf(&rel, "logs/%s.err", name);
	bundle_path(b, rel.buf, &e);
	spec.argv = (const char *const *)cmd->argv;
	spec.env_add = env;
	/* CUPTI takes one subscriber: the builtin tracer must not ride along */
	spec.env_remove = unset;
	spec.out.path = o.buf;
	spec.err.path = e.buf;
	spec.out.echo = spec.err.echo = echo && !out_path;
	if (live && !echo) {
		spec.out.on_data = ncu_live_out;
		spec.err.on_data = ncu_live_err;
		spec.out.on_data_arg = spec.err.on_data_arg = live;
	}
	spec.stdin_null = 1;
	spec.timeout_s = timeout_s;
	if (!echo) {
		/* ncu's own progress (live) is the detail when there is one */
		if (!live)
			live_set_detail(&g_live, name);
		live_attach(&spec, &tick);
	}
	verbose_argv(name, spec.argv, spec.env_add);
	ret = proc_run(&spec, res, err);
	live_clear(&g_live);
	if (!ret) {
		if (!out_path)
			strbuf_read_file(text, o.buf);
		strbuf_read_file(text, e.buf);
	}
out:
	strbuf_release(&o);
	strbuf_release(&e);
	strbuf_release(&rel);
	strbuf_release(&p);
	free(env);
	return ret;
}

/* ncu/regions/{report.md,report.json,<region>/metrics.json} from the merged
 * raw page. A failure here is a warning: raw.csv holds the data, and
 * `llmprof report --ncu-csv` can redo it. */
static void write_regions(struct internal_ctx *ic, const struct strbuf *text)
{
	struct ncu_raw raw = NCU_RAW_INIT;
	struct regions rg = REGIONS_INIT;
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;

	bundle_path(ic->b, "ncu/regions", &dir);
	if (ncu_raw_parse(text->buf, text->len, "ncu/raw.csv", &raw, &err) ||
	    regions_build(&raw, &rg, &err) || regions_write(&rg, &raw, dir.buf, &err))
		warning_print("ncu/regions/ not written: %s", err.buf);
	regions_release(&rg);
	ncu_raw_release(&raw);
	strbuf_release(&dir);
	strbuf_release(&err);
}

/* A configured run's --nvtx-include values, checked against the ranges
 * the bundle's trace saw and put in ncu's syntax (nsight/ncu_nvtx.h).
 * 0 with *exprs set (owned), or -1 with msg. */
static int ncu_check_includes(const struct run_bundle *b, const struct ncu_options *o,
			      char ***exprs, struct strbuf *msg)
{
	struct strbuf tp = STRBUF_INIT, err = STRBUF_INIT;
	struct nvtx_list l;
	struct ncu_seen_range *seen = NULL;
	const char *trace = report_bundle_trace(b->dir, &tp);
	int ret = -1;

	nvtx_list_init(&l);
	if (!trace || !path_exists(trace)) {
		strbuf_addstr(msg,
			      "pipeline.ncu.ncu_cli.nvtx.include cannot be checked: the bundle "
			      "has no trace; refusing an NVTX-filtered ncu run that may match "
			      "nothing");
		goto out;
	}
	if (nvtx_list_load(&l, trace, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	seen = xcalloc(l.n + 1, sizeof(*seen));
	for (size_t i = 0; i < l.n; i++) {
		seen[i].domain = l.v[i].domain;
		seen[i].name = l.v[i].name;
		seen[i].startend = l.v[i].style == NVTX_STYLE_STARTEND;
	}
	if (ncu_nvtx_check(o->nvtx_include, o->nr_nvtx_include, seen, l.n, exprs, &err)) {
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	ret = 0;
out:
	free(seen);
	nvtx_list_release(&l);
	strbuf_release(&tp);
	strbuf_release(&err);
	return ret;
}

/* Runs a listing child (ncu --list-sections / --query-metrics) into the
 * bundle file rel and parses it with parse. 0 with the names (owned), or
 * -1 after a warning: ncu could not say, and the capture will. */
static int ncu_listing(const struct run_bundle *b, const char *name, struct ncu_cmd *cmd,
		       const char *rel, double timeout_s,
		       void (*parse)(const char *, size_t, char ***, size_t *), char ***names,
		       size_t *n)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_result res;
	int ret = -1;

	*names = NULL;
	*n = 0;
	bundle_path(b, rel, &path);
	if (ncu_child(b, name, cmd, NULL, path.buf, timeout_s, 0, NULL, &res, &text, &err) ||
	    res.outcome != PROC_EXITED || res.exit_status ||
	    strbuf_read_file(&text, path.buf) < 0) {
		warning_print("%s %s failed (logs/%s.err): %s not checked before the capture",
			      cmd->argv[0], cmd->argv[1], name, rel);
		goto out;
	}
	parse(text.buf, text.len, names, n);
	if (!*n) {
		warning_print("%s %s listed nothing (%s): not checked before the capture",
			      cmd->argv[0], cmd->argv[1], rel);
		goto out;
	}
	ret = 0;
out:
	ncu_cmd_release(cmd);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

/* The ncu to run, as tool_find finds it (pipeline.ncu.path, PATH, known
 * locations; 2023.1 or newer); owned, or NULL with msg "why; fix". */
static char *find_ncu(const struct config *cfg, struct strbuf *msg)
{
	struct tool_found f;
	char *ncu = NULL;

	tool_find(TOOL_NCU, config_get_string(cfg, "pipeline.ncu.path"), &f);
	if (f.problem)
		strbuf_addf(msg, "%s; %s", f.why.buf, f.fix.buf);
	else
		ncu = xstrdup(f.path);
	tool_found_release(&f);
	return ncu;
}

/* What this ncu can collect (ncu/sections.txt, and ncu/metrics.txt when
 * metrics are requested) against what the run asks for. A tensor-pipe
 * metric this GPU names otherwise is dropped with a warning (o->metrics
 * then points to *kept, the caller's to free). 0 to go on (also when ncu
 * could not list them), or -1 with msg naming every one missing. */
static int ncu_check_offered(const struct run_bundle *b, struct ncu_options *o, double timeout_s,
			     const char ***kept, struct strbuf *msg)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf err = STRBUF_INIT, dropped = STRBUF_INIT;
	char **ids = NULL, **names = NULL;
	size_t nids = 0, nnames = 0;
	int ret = 0;

	ncu_list_sections_argv(o->ncu, &cmd);
	ncu_listing(b, "ncu-list-sections", &cmd, "ncu/sections.txt", timeout_s, ncu_sections_parse,
		    &ids, &nids);
	if (o->nr_metrics) {
		ncu_query_metrics_argv(o->ncu, &cmd);
		ncu_listing(b, "ncu-query-metrics", &cmd, "ncu/metrics.txt", timeout_s,
			    ncu_metrics_parse, &names, &nnames);
	}
	if (nnames) {
		*kept = xcalloc(o->nr_metrics + 1, sizeof(**kept));
		memcpy(*kept, o->metrics, o->nr_metrics * sizeof(**kept));
		o->nr_metrics =
		    ncu_drop_unoffered_optional(*kept, o->nr_metrics, names, nnames, &dropped);
		o->metrics = *kept;
		if (dropped.len)
			warning_print("this GPU/ncu does not offer %s (ncu/metrics.txt): measured "
				      "without, so counter FLOPs leave out that tensor path",
				      dropped.buf);
	}
	if (ncu_check_requested(o, nids ? ids : NULL, nids, nnames ? names : NULL, nnames, &err)) {
		strbuf_addstr(msg, err.buf);
		ret = -1;
	}
	ncu_names_free(ids, nids);
	ncu_names_free(names, nnames);
	strbuf_release(&err);
	strbuf_release(&dropped);
	return ret;
}

/* Appends ncu's own human-readable section tables of one measured report
 * (`ncu --import REP --page details --section S...`, ncu's units) under a
 * "==== <report> (<what>) ====" line, for ncu/sections_report.txt. A
 * failure is a warning: ncu/raw.csv holds the numbers. */
static void sections_report_add(const struct run_bundle *b, const struct ncu_options *o,
				const char *rep, size_t i, const char *what, double timeout_s,
				struct strbuf *report)
{
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf name = STRBUF_INIT, out = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct proc_result res;

	strbuf_addf(&name, "ncu-sections-k%zu", i);
	strbuf_addf(&text, "logs/%s.out", name.buf);
	bundle_path(b, text.buf, &out);
	strbuf_reset(&text);
	ncu_sections_report_argv(o->ncu, rep, o->sections, o->nr_sections, &cmd);
	if (ncu_child(b, name.buf, &cmd, NULL, out.buf, timeout_s, 0, NULL, &res, &text, &err) ||
	    res.outcome != PROC_EXITED || res.exit_status) {
		warning_print("ncu/sections_report.txt lacks %s: ncu --import --page details "
			      "failed (logs/%s.err)%s%s",
			      rep + strlen(b->dir) + 1, name.buf, err.len ? ": " : "", err.buf);
		goto out;
	}
	strbuf_reset(&text);
	if (strbuf_read_file(&text, out.buf) < 0) {
		warning_print("ncu/sections_report.txt lacks %s: cannot read %s",
			      rep + strlen(b->dir) + 1, out.buf);
		goto out;
	}
	strbuf_addf(report, "%s==== %s (%s) ====\n", report->len ? "\n" : "",
		    rep + strlen(b->dir) + 1, what);
	strbuf_add(report, text.buf, text.len);
	if (text.len && text.buf[text.len - 1] != '\n')
		strbuf_addch(report, '\n');
out:
	ncu_cmd_release(&cmd);
	strbuf_release(&name);
	strbuf_release(&out);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The ncu step: one ncu run per selected kernel (or one with the user's own
 * filters), each report imported as the raw page and merged into
 * ncu/raw.csv; ncu/cmd.txt, ncu/sections.txt, ncu/metrics.txt (when
 * metrics are asked for), ncu/sections_report.txt, ncu/measured.json. */
static enum step_state ncu_step(struct internal_ctx *ic, struct strbuf *msg, int *code)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT, cmdtxt = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT, first_fail = STRBUF_INIT, sreport = STRBUF_INIT;
	const struct config *cfg = bundle_config(ic, &err);
	const char *mode = config_get_string(cfg, "run.mode");
	double timeout_s = config_get_double(cfg, "run.timeout_s", 0);
	struct ncu_options base = NCU_OPTIONS_INIT;
	struct ncu_config_lists lists;
	struct ncu_raw_merge merge = NCU_RAW_MERGE_INIT;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct proc_result res;
	enum step_state state = STEP_FAILED;
	json_t *runs = json_array();
	char *ncu = NULL, **includes = NULL;
	const char **kept_metrics = NULL;
	const struct plan_step *wl = plan_find(ic->plan, "workload");
	size_t nruns, measured = 0, program_n = 0, results_before = 0;
	int explicit_run, tty = isatty(2) && !opt_quiet;
	double ncu_s = 0;
	struct ncu_live live;

	memset(&live, 0, sizeof(live));
	ncu_progress_init(&live.p[0]);
	ncu_progress_init(&live.p[1]);
	live.start_ns = clock_mono_ns();
	live.tty = tty;

	ncu_options_from_config(cfg, &base, &lists);
	explicit_run = ncu_options_explicit(&base);
	if (!explicit_run && (!ic->sel || !ic->sel->nr)) {
		strbuf_addstr(msg, "no kernels selected: nothing to measure (see the select step)");
		state = STEP_SKIPPED;
		goto out;
	}
	/* an ncu older than the oldest supported would fail in ways that name
	 * no cause (unknown flags, raw pages llmprof cannot read): refused */
	if (!(ncu = find_ncu(cfg, msg))) {
		*code = EXIT_TOOL_MISSING;
		goto out;
	}
	if (ncu_options_range(&base) && !base.nr_nvtx_include) {
		*code = EXIT_CONFIG;
		strbuf_addf(msg,
			    "pipeline.ncu.ncu_cli.replay_mode=%s needs "
			    "pipeline.ncu.ncu_cli.nvtx.include (the ranges to replay, e.g. "
			    "[LLM@decode_all/]); `llmprof nvtx` lists the ones the program emits",
			    base.replay_mode);
		goto out;
	}
	if (explicit_run && base.nr_nvtx_include) {
		if (ncu_check_includes(ic->b, &base, &includes, msg)) {
			*code = EXIT_CONFIG;
			goto out;
		}
		base.nvtx_include = (const char *const *)includes;
	}
	if (mode && !strcmp(mode, "light"))
		ncu_options_light(&base);
	while (ic->plan->program && ic->plan->program[program_n])
		program_n++;
	base.ncu = ncu;
	base.program = (const char *const *)ic->plan->program;
	base.nr_program = program_n;
	base.force_overwrite = 1;
	if (make_ncu_dir(ic->b, &err)) {
		*code = EXIT_IO;
		strbuf_addstr(msg, err.buf);
		goto out;
	}
	/* a section or metric this GPU lacks fails the first capture only
	 * after the program ran under it: refuse it now */
	if (ncu_check_offered(ic->b, &base, timeout_s, &kept_metrics, msg)) {
		*code = EXIT_CONFIG;
		goto out;
	}

	nruns = explicit_run ? 1 : ic->sel->nr;
	/* deep mode: each capture profiles its kernel's launch_count launches */
	for (size_t i = 0; !explicit_run && i < nruns; i++)
		live.expected += ic->sel->k[i].launch_count;
	for (size_t i = 0; i < nruns; i++) {
		const struct selected_kernel *k = explicit_run ? NULL : &ic->sel->k[i];
		struct ncu_options o = base;
		struct strbuf name = STRBUF_INIT, out_base = STRBUF_INIT, d = STRBUF_INIT;
		struct strbuf rep = STRBUF_INIT, raw = STRBUF_INIT, csv = STRBUF_INIT;
		struct proc_spec dspec;
		enum ncu_verdict v;
		json_t *rec = json_object();
		int ok = 0, rows = 0, rc;
		double cap_s;

		strbuf_addf(&name, "ncu-k%zu", i);
		strbuf_addf(&raw, "ncu/k%zu", i);
		bundle_path(ic->b, raw.buf, &out_base);
		if (k)
			ncu_options_for_kernel(&o, k->kernel_name, ic->ncu_base,
					       (long long)k->launch_skip,
					       (long long)k->launch_count);
		o.output = out_base.buf;
		if (ncu_capture_argv(&o, &cmd, &err)) {
			*code = EXIT_CONFIG;
			strbuf_addstr(msg, err.buf);
			json_decref(rec);
			strbuf_release(&name);
			strbuf_release(&out_base);
			strbuf_release(&raw);
			goto out;
		}
		ncu_cmd_format(&cmd, &cmdtxt);
		strbuf_addch(&cmdtxt, '\n');
		/* written before each run, so a stuck ncu's argv is on disk */
		if (bundle_write(ic->b, "ncu/cmd.txt", cmdtxt.buf, cmdtxt.len, &err))
			strbuf_reset(&err);
		if (tty)
			fprintf(stderr, "llmprof: ncu: kernel %zu of %zu: %s\n", i + 1, nruns,
				k ? (k->short_name ? k->short_name : k->name)
				  : "the configured filters");
		strbuf_reset(&text);
		ncu_live_start(&live, (long long)results_before);
		results_before += k ? k->launch_count : 0;
		rc = ncu_child(ic->b, name.buf, &cmd, wl ? wl->env_add : NULL, NULL, timeout_s,
			       opt_echo, opt_quiet ? NULL : &live, &res, &text, &err);
		ncu_live_end(&live);
		if (rc) {
			*code = EXIT_IO;
			strbuf_addstr(msg, err.buf);
			ncu_cmd_release(&cmd);
			json_decref(rec);
			strbuf_release(&name);
			strbuf_release(&out_base);
			strbuf_release(&raw);
			goto out;
		}
		ncu_cmd_release(&cmd);
		cap_s = (double)res.wall_ns / 1e9;
		ncu_s += cap_s;
		memset(&dspec, 0, sizeof(dspec));
		dspec.timeout_s = timeout_s;
		proc_result_describe(&res, &dspec, &d);
		strbuf_addf(&rep, "%s.ncu-rep", out_base.buf);
		v = ncu_output_diagnose(text.buf, text.len, &why);
		if (v == NCU_RUN_NO_KERNELS && k)
			strbuf_addf(&why,
				    " (-k %s --kernel-name-base %s --launch-skip %zu "
				    "--launch-count %zu)",
				    k->kernel_name, ic->ncu_base, k->launch_skip, k->launch_count);
		if ((v == NCU_RUN_NO_KERNELS || v == NCU_RUN_NO_RANGES) && !k) {
			strbuf_addstr(&why, " (configured filters:");
			if (o.kernel_name)
				strbuf_addf(&why, " --kernel-name %s", o.kernel_name);
			if (o.kernel_id)
				strbuf_addf(&why, " --kernel-id %s", o.kernel_id);
			if (o.launch_skip >= 0)
				strbuf_addf(&why, " --launch-skip %lld", o.launch_skip);
			for (size_t x = 0; x < o.nr_nvtx_include; x++)
				strbuf_addf(&why, " --nvtx-include %s", o.nvtx_include[x]);
			strbuf_addstr(&why, "; `llmprof nvtx` lists the ranges the program emits)");
		}
		if (v == NCU_RUN_OK && (res.outcome != PROC_EXITED || res.exit_status))
			strbuf_addf(&why, "ncu %s", d.buf);
		if (v == NCU_RUN_OK && !why.len && !path_exists(rep.buf))
			strbuf_addstr(&why, "ncu wrote no report");
		if (!why.len) {
			struct ncu_cmd imp = NCU_CMD_INIT;
			struct strbuf rawp = STRBUF_INIT, iname = STRBUF_INIT, itext = STRBUF_INIT;

			strbuf_addf(&raw, ".raw.csv");
			bundle_path(ic->b, raw.buf, &rawp);
			strbuf_addf(&iname, "ncu-import-k%zu", i);
			ncu_import_argv(ncu, rep.buf, "raw", &imp);
			ncu_cmd_format(&imp, &cmdtxt);
			strbuf_addch(&cmdtxt, '\n');
			if (ncu_child(ic->b, iname.buf, &imp, NULL, rawp.buf, timeout_s, 0, NULL,
				      &res, &itext, &err) ||
			    res.outcome != PROC_EXITED || res.exit_status) {
				strbuf_addf(&why, "ncu --import failed%s%s", err.len ? ": " : "",
					    err.buf);
				strbuf_reset(&err);
			} else if (strbuf_read_file(&csv, rawp.buf) < 0 ||
				   (rows = ncu_raw_merge_add(&merge, csv.buf, csv.len, raw.buf,
							     &err)) < 0) {
				/* columns that cannot be merged: nothing after is valid */
				*code = EXIT_STEP_FAILED;
				strbuf_addstr(msg, err.buf);
				ncu_cmd_release(&imp);
				strbuf_release(&rawp);
				strbuf_release(&iname);
				strbuf_release(&itext);
				json_decref(rec);
				strbuf_release(&name);
				strbuf_release(&out_base);
				strbuf_release(&raw);
				strbuf_release(&rep);
				strbuf_release(&csv);
				strbuf_release(&d);
				goto out;
			} else if (!rows) {
				strbuf_addstr(&why, "the report holds no result");
			} else {
				ok = 1;
			}
			if (ok && (o.nr_sections || o.set)) {
				struct strbuf what = STRBUF_INIT;

				if (k)
					strbuf_addf(&what, "kernel %zu of %zu: %s", i + 1, nruns,
						    k->short_name ? k->short_name : k->name);
				else
					strbuf_addstr(&what, "the configured filters");
				sections_report_add(ic->b, &o, rep.buf, i, what.buf, timeout_s,
						    &sreport);
				strbuf_release(&what);
			}
			ncu_cmd_release(&imp);
			strbuf_release(&rawp);
			strbuf_release(&iname);
			strbuf_release(&itext);
		}
		measured += ok;
		if (tty && ok)
			fprintf(stderr, "llmprof: ncu: kernel %zu of %zu measured in %.1f s\n",
				i + 1, nruns, cap_s);
		if (k) {
			json_object_set_new(rec, "rank", json_integer((json_int_t)i + 1));
			json_object_set_new(rec, "name", json_string_lossy(k->name));
			json_object_set_new(rec, "kernel_name", json_string_lossy(k->kernel_name));
			json_object_set_new(rec, "launch_skip",
					    json_integer((json_int_t)k->launch_skip));
			json_object_set_new(rec, "share", json_real(k->share));
		}
		json_object_set_new(rec, "measured", json_boolean(ok));
		json_object_set_new(rec, "results", json_integer(rows > 0 ? rows : 0));
		json_object_set_new(rec, "ncu_wall_s", json_real(cap_s));
		json_object_set_new(rec, "report",
				    json_string_lossy(rep.buf + strlen(ic->b->dir) + 1));
		if (!ok) {
			json_object_set_new(rec, "why", json_string_lossy(why.buf));
			if (!first_fail.len)
				strbuf_addstr(&first_fail, why.buf);
			if (tty || explicit_run)
				warning_print("ncu: kernel %zu: %s", i + 1, why.buf);
		}
		json_array_append_new(runs, rec);
		strbuf_release(&name);
		strbuf_release(&out_base);
		strbuf_release(&raw);
		strbuf_release(&rep);
		strbuf_release(&csv);
		strbuf_release(&d);
		if (v == NCU_RUN_PERM) {
			/* every later run would fail the same way */
			strbuf_addstr(msg, why.buf);
			goto out;
		}
		strbuf_reset(&why);
		if (res.outcome == PROC_INTERRUPTED || proc_pending_interrupt()) {
			strbuf_addstr(msg, "interrupted");
			goto out;
		}
	}
	if (measured) {
		strbuf_reset(&text);
		ncu_raw_merge_write(&merge, &text);
		if (bundle_write(ic->b, "ncu/raw.csv", text.buf, text.len, &err)) {
			*code = EXIT_IO;
			strbuf_addstr(msg, err.buf);
			goto out;
		}
		if (sreport.len && bundle_write(ic->b, "ncu/sections_report.txt", sreport.buf,
						sreport.len, &err)) {
			warning_print("%s", err.buf);
			strbuf_reset(&err);
		}
		/* range replay, or a configured NVTX-gated run: one result per
		 * region -> ncu/regions/ (analysis/regions.h) */
		if (ncu_options_range(&base) || (explicit_run && base.nr_nvtx_include))
			write_regions(ic, &text);
	}
	strbuf_addf(msg, "%zu of %zu %s measured, %zu ncu result%s in %.1f s of ncu -> ncu/raw.csv",
		    measured, nruns, explicit_run ? "configured run" : "selected kernels",
		    merge.nrows, merge.nrows == 1 ? "" : "s", ncu_s);
	if (measured < nruns)
		strbuf_addf(msg, "; not measured: %s", first_fail.buf);
	state = measured ? STEP_OK : STEP_FAILED;
out : {
	json_t *j = json_object();
	struct strbuf jp = STRBUF_INIT, jerr = STRBUF_INIT;

	json_object_set_new(j, "ncu", json_string_lossy(ncu ? ncu : ""));
	json_object_set_new(j, "mode", json_string_lossy(mode ? mode : "deep"));
	json_object_set_new(j, "explicit_filters", json_boolean(explicit_run));
	json_object_set_new(j, "measured", json_integer((json_int_t)measured));
	json_object_set_new(j, "ncu_wall_s", json_real(ncu_s));
	json_object_set_new(j, "runs", runs);
	runs = NULL;
	if (cmdtxt.len && bundle_write(ic->b, "ncu/cmd.txt", cmdtxt.buf, cmdtxt.len, &jerr))
		warning_print("%s", jerr.buf);
	strbuf_reset(&jerr);
	bundle_path(ic->b, "ncu", &jp);
	/* refused before the first capture (no ncu/ yet): nothing measured */
	if (state != STEP_SKIPPED && ncu && path_exists(jp.buf)) {
		strbuf_reset(&jp);
		bundle_path(ic->b, "ncu/measured.json", &jp);
		if (json_write_file_atomic(jp.buf, j, &jerr))
			warning_print("%s", jerr.buf);
	}
	json_decref(j);
	strbuf_release(&jp);
	strbuf_release(&jerr);
}
	json_decref(runs);
	ncu_progress_release(&live.p[0]);
	ncu_progress_release(&live.p[1]);
	ncu_cmd_release(&cmd);
	ncu_raw_merge_release(&merge);
	ncu_nvtx_exprs_free(includes, base.nr_nvtx_include);
	free(kept_metrics);
	ncu_config_lists_release(&lists);
	free(ncu);
	strbuf_release(&err);
	strbuf_release(&why);
	strbuf_release(&cmdtxt);
	strbuf_release(&sreport);
	strbuf_release(&text);
	strbuf_release(&first_fail);
	return state;
}

static enum step_state run_internal(struct internal_ctx *ic, const struct plan_step *s,
				    struct strbuf *msg, int *code)
{
	struct strbuf err = STRBUF_INIT;
	enum step_state state = STEP_OK;

	*code = EXIT_STEP_FAILED;
	if (!strcmp(s->name, "config")) {
		strbuf_addf(msg, "%s with %zu override%s -> config.yaml; trace backend: %s",
			    ic->conf_dir, ic->n_overrides, ic->n_overrides == 1 ? "" : "s",
			    ic->pp->trace_reason.buf);
	} else if (!strcmp(s->name, "provenance")) {
		if (write_provenance(ic->b, ic->cfg, ic->ctx, ic->gpus, ic->plan, &err)) {
			state = STEP_FAILED;
			*code = EXIT_IO;
			strbuf_addstr(msg, err.buf);
		} else {
			strbuf_addstr(msg, "env.json, inputs.yaml");
		}
	} else if (!strcmp(s->name, "trace")) {
		state = trace_finish(ic, msg);
	} else if (!strcmp(s->name, "analyze")) {
		struct strbuf tp = STRBUF_INIT;
		const char *m, *st;

		report_analysis_free(ic->analysis);
		ic->analysis = report_analysis_new();
		report_analysis_run(ic->analysis, report_bundle_trace(ic->b->dir, &tp),
				    bundle_config(ic, &err));
		st = report_analysis_state(ic->analysis, &m);
		state = !strcmp(st, "ok")	 ? STEP_OK
			: !strcmp(st, "skipped") ? STEP_SKIPPED
						 : STEP_FAILED;
		strbuf_addstr(msg, m);
		strbuf_release(&tp);
	} else if (!strcmp(s->name, "select")) {
		state = select_step(ic, msg);
	} else if (!strcmp(s->name, "ncu")) {
		state = ncu_step(ic, msg, code);
	} else if (!strcmp(s->name, "join")) {
		struct strbuf raw = STRBUF_INIT;

		bundle_path(ic->b, "ncu/raw.csv", &raw);
		if (!path_exists(raw.buf)) {
			state = STEP_SKIPPED;
			strbuf_addstr(msg, "no ncu/raw.csv: no counters to join");
		} else {
			struct report_build_opts o;
			struct report_build_result res;
			struct report_model m;

			memset(&o, 0, sizeof(o));
			o.run_dir = ic->b->dir;
			o.out_dir = ic->b->dir;
			o.cfg = bundle_config(ic, &err);
			o.analysis = ic->analysis;
			report_build_result_init(&res);
			report_model_init(&m);
			if (report_build_model(&o, &m, &res, &err)) {
				state = STEP_FAILED;
				strbuf_addstr(msg, err.buf);
			} else {
				state = !strcmp(res.join_state, "ok")	     ? STEP_OK
					: !strcmp(res.join_state, "skipped") ? STEP_SKIPPED
									     : STEP_FAILED;
				strbuf_addstr(msg, res.join_msg.buf);
			}
			report_model_release(&m);
			report_build_result_release(&res);
		}
		strbuf_release(&raw);
	} else if (!strcmp(s->name, "reports")) {
		struct report_build_opts o;
		struct report_build_result res;

		memset(&o, 0, sizeof(o));
		o.run_dir = ic->b->dir;
		o.out_dir = ic->b->dir;
		o.cfg = bundle_config(ic, &err);
		o.analysis = ic->analysis;
		report_build_result_init(&res);
		if (report_build(&o, &res, &err)) {
			state = STEP_FAILED;
			*code = EXIT_IO;
			strbuf_addstr(msg, err.buf);
		} else {
			strbuf_addstr(msg,
				      "kernels.md operators.md report.md stakeholder_summary.md "
				      "metrics.json report.html charts/");
			if (res.loud.len && !opt_quiet)
				fputs(res.loud.buf, stderr);
		}
		report_build_result_release(&res);
	} else {
		BUG("no in-process step called '%s'", s->name);
	}
	strbuf_release(&err);
	return state;
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

static void print_dry_run(const struct plan *plan, const struct profile_params *pp,
			  const struct config *cfg, const char *conf_dir, const char *root)
{
	struct strbuf sb = STRBUF_INIT;

	printf("dry run: nothing is run and no bundle is created\n");
	printf("conf: %s\n", conf_dir);
	printf("bundle: %s/<run_id>\n", root);
	print_tool(TOOL_NSYS, "nsys", config_get_string(cfg, "pipeline.nsys.path"));
	print_tool(TOOL_NCU, "ncu", config_get_string(cfg, "pipeline.ncu.path"));
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

/* model: auto and device for the built-in workloads, decided at run time
 * (docs/user-guide.md): a GPU -> the configured GPU model on device; none ->
 * model tiny on device cpu. Appended as overrides, so config.yaml says what
 * really ran. */
static void auto_overrides(const struct config *cfg, const struct gpu_probe *gpus, const char **ov,
			   size_t *n)
{
	const char *kind = config_get_string(cfg, "workload.kind");
	const char *name = config_get_string(cfg, "model.name");
	const char *dev = config_get_string(cfg, "device");

	if (!kind || (strcmp(kind, "llm") && strcmp(kind, "dummy")))
		return;
	if (!name || !strcmp(name, "auto"))
		ov[(*n)++] = gpus->nr ? "model.name=llama-3.2-1b" : "model=tiny";
	if (!gpus->nr && (!dev || strcmp(dev, "cpu")))
		ov[(*n)++] = "device=cpu";
}

static int make_dirs(const struct run_bundle *b, const struct plan *plan, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	if (plan_find(plan, "nsys-export")) {
		bundle_path(b, "nsys", &p);
		ret = mkdir_p(p.buf, err);
	}
	if (!ret) {
		strbuf_reset(&p);
		bundle_path(b, "workload", &p);
		ret = mkdir_p(p.buf, err);
	}
	if (!ret && plan_find(plan, "trace")) {
		strbuf_reset(&p);
		bundle_path(b, "trace/log", &p);
		ret = mkdir_p(p.buf, err);
	}
	strbuf_release(&p);
	return ret;
}

/* nsys/cmd.txt: every nsys command of the run, shell-quoted, one a line. */
static int write_nsys_cmd(const struct run_bundle *b, const struct plan *plan, struct strbuf *err)
{
	static const char *const names[] = {"workload", "nsys-export", "nsys-stats"};
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct plan_step *s = plan_find(plan, names[i]);

		for (char **a = s ? s->argv : NULL; a && *a; a++) {
			if (a != s->argv)
				strbuf_addch(&sb, ' ');
			proc_quote_shell(&sb, *a);
		}
		strbuf_addch(&sb, '\n');
	}
	ret = bundle_write(b, "nsys/cmd.txt", sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}

/* Builds the plan, the ncu step described with its argv template (which
 * needs the workload argv the first build decides). With --dry-run, ncu is
 * looked up so the step can be marked when it would fail. */
static int build_plan(struct plan *plan, struct profile_params *pp, const struct config *cfg,
		      struct strbuf *err)
{
	struct ncu_options o = NCU_OPTIONS_INIT;
	struct ncu_config_lists lists;
	struct strbuf e = STRBUF_INIT, note = STRBUF_INIT;
	char *ncu = NULL;
	size_t n = 0;

	pp->pp.ncu_what = NULL;
	pp->pp.ncu_problem = NULL;
	if (plan_build(plan, &pp->pp, err))
		return -1;
	if (!pp->pp.ncu_enable || pp->pp.trace == PLAN_TRACE_OFF)
		return 0;
	ncu_options_from_config(cfg, &o, &lists);
	strbuf_reset(&pp->ncu_problem);
	strbuf_reset(&note);
	if (pp->pp.dry_run && !(ncu = find_ncu(cfg, &note))) {
		/* without a GPU no kernel is selected, so only a run with its
		 * own filters starts ncu */
		if (pp->have_gpu || ncu_options_explicit(&o)) {
			strbuf_addstr(&pp->ncu_problem, note.buf);
			pp->pp.ncu_problem_code = EXIT_TOOL_MISSING;
			strbuf_reset(&note);
		}
	}
	o.ncu = ncu ? ncu : "ncu";
	while (plan->program && plan->program[n])
		n++;
	o.program = (const char *const *)plan->program;
	o.nr_program = n;
	strbuf_reset(&pp->ncu_what);
	if (ncu_plan_describe(&o, config_get_string(cfg, "run.mode"), pp->pp.run_dir, &pp->ncu_what,
			      &e)) {
		strbuf_reset(&pp->ncu_what);
		strbuf_addf(&pp->ncu_what, "ncu: %s", e.buf);
		if (!pp->ncu_problem.len) {
			strbuf_addf(&pp->ncu_problem, "ncu: %s", e.buf);
			pp->pp.ncu_problem_code = EXIT_CONFIG;
		}
	} else if (note.len) {
		strbuf_addf(&pp->ncu_what,
			    "\n    (no usable ncu: %s; no GPU was found, so no kernel is selected "
			    "and the step is skipped)",
			    note.buf);
	}
	pp->pp.ncu_what = pp->ncu_what.buf;
	pp->pp.ncu_problem = pp->ncu_problem.len ? pp->ncu_problem.buf : NULL;
	plan_release(plan);
	if (plan_build(plan, &pp->pp, err))
		BUG("plan changed on rebuild: %s", err->buf);
	ncu_config_lists_release(&lists);
	free(ncu);
	strbuf_release(&e);
	strbuf_release(&note);
	return 0;
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

static int cmd_profile_exec(struct cmd_ctx *ctx)
{
	struct config *cfg = NULL;
	struct strbuf err = STRBUF_INIT, root = STRBUF_INIT, placeholder = STRBUF_INIT;
	struct run_bundle b = RUN_BUNDLE_INIT;
	struct run_status st;
	struct plan plan = PLAN_INIT;
	struct profile_params pp;
	struct gpu_probe gpus;
	struct run_outcome oc = {RUN_OK, EXIT_OK, 0, NULL};
	struct internal_ctx ic;
	char *conf_dir = NULL;
	const char **overrides = NULL;
	struct strbuf output_ov = STRBUF_INIT;
	int root_given = 0, live_on = 0;
	size_t n_overrides = 0, n_user;
	double timeout_s;
	uint64_t deadline = 0;
	int code = EXIT_INTERNAL, have_status = 0, have_params = 0, sig;

	memset(&gpus, 0, sizeof(gpus));
	memset(&ic, 0, sizeof(ic));
	strbuf_init(&gpus.note, 0);
	if (ctx->has_program && !ctx->prog_argc) {
		error_print("profile: '--' must be followed by a program");
		code = EXIT_USAGE;
		goto out;
	}
	if (opt_quiet && opt_verbose) {
		error_print("profile: options '--quiet' and '--verbose' cannot be used together");
		code = EXIT_USAGE;
		goto out;
	}
	if (opt_output && !*opt_output) {
		error_print("profile: option '--output' needs a directory");
		code = EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < ctx->argc; i++)
		root_given |= names_artifacts_root(ctx->argv[i]);
	for (int i = 0; i < ctx->argc; i++) {
		if (!strchr(ctx->argv[i], '=') && ctx->argv[i][0] != '~') {
			error_print("profile: '%s' is not a KEY=VALUE override; to profile a "
				    "program, put it after '--': llmprof profile -- %s ...",
				    ctx->argv[i], ctx->argv[i]);
			code = EXIT_USAGE;
			goto out;
		}
	}
	conf_dir = opt_conf_dir ? xstrdup(opt_conf_dir) : config_find_conf_dir();
	if (!conf_dir) {
		error_print("cannot find the conf/ folder: set LLMPROF_CONF_DIR or use --conf-dir");
		code = EXIT_CONFIG;
		goto out;
	}
	/* with "-- PROGRAM", config.yaml must say the workload was a command;
	 * the program itself is in inputs.yaml and logs/workload.argv */
	overrides = xcalloc((size_t)ctx->argc + 5, sizeof(*overrides));
	for (int i = 0; i < ctx->argc; i++)
		overrides[n_overrides++] = ctx->argv[i];
	if (ctx->has_program)
		overrides[n_overrides++] = "workload=command";
	if (opt_output && !root_given) {
		/* single-quoted: a path is a string, whatever it looks like */
		strbuf_addstr(&output_ov, "artifacts.root='");
		for (const char *c = opt_output; *c; c++) {
			if (*c == '\'')
				strbuf_addch(&output_ov, '\'');
			strbuf_addch(&output_ov, *c);
		}
		strbuf_addch(&output_ov, '\'');
		overrides[n_overrides++] = output_ov.buf;
	}
	if (config_load(&cfg, conf_dir, n_overrides, overrides, &err)) {
		error_print("%s", err.buf);
		code = EXIT_CONFIG;
		goto out;
	}
	if (opt_output && root_given) {
		const char *r = config_get_string(cfg, "artifacts.root");
		struct strbuf a = STRBUF_INIT, o = STRBUF_INIT;
		int same;

		bundle_abspath(&a, r ? r : "");
		bundle_abspath(&o, opt_output);
		while (a.len > 1 && a.buf[a.len - 1] == '/')
			strbuf_setlen(&a, a.len - 1);
		while (o.len > 1 && o.buf[o.len - 1] == '/')
			strbuf_setlen(&o, o.len - 1);
		same = r && !strcmp(a.buf, o.buf);
		if (!same)
			error_print("profile: '-o %s' and the override artifacts.root=%s disagree; "
				    "give one of them",
				    opt_output, r ? r : "null");
		strbuf_release(&a);
		strbuf_release(&o);
		if (!same) {
			code = EXIT_USAGE;
			goto out;
		}
	}
	n_user = n_overrides;
	warn_ignored_overrides(cfg, ctx, overrides, n_user);
	/* model=auto and the device depend on whether a GPU is present */
	gpu_probe_release(&gpus);
	gpu_probe_run(&gpus);
	auto_overrides(cfg, &gpus, overrides, &n_overrides);
	if (!gpus.nr && n_overrides != n_user) {
		struct strbuf ov = STRBUF_INIT;

		for (size_t i = n_user; i < n_overrides; i++)
			strbuf_addf(&ov, " %s", overrides[i]);
		fprintf(stderr,
			"llmprof: no GPU found: running the built-in workload on the CPU path on "
			"purpose (applied%s)\n",
			ov.buf);
		strbuf_release(&ov);
	}
	if (n_overrides != n_user) {
		config_free(cfg);
		cfg = NULL;
		if (config_load(&cfg, conf_dir, n_overrides, overrides, &err)) {
			error_print("%s", err.buf);
			code = EXIT_CONFIG;
			goto out;
		}
	}
	bundle_abspath(&root, config_get_string(cfg, "artifacts.root")
				  ? config_get_string(cfg, "artifacts.root")
				  : "tmp/stage2");
	timeout_s = config_get_double(cfg, "run.timeout_s", 0);
	if (!opt_echo)
		opt_echo = config_get_bool(cfg, "run.echo", 0);

	/* check the plan before creating anything, with a stand-in run dir */
	strbuf_addf(&placeholder, "%s/<run_id>", root.buf);
	params_from_config(&pp, cfg, ctx, &gpus, placeholder.buf);
	have_params = 1;
	pp.pp.dry_run = opt_dry_run;
	if (choose_backend(&pp, cfg, &err, &code)) {
		error_print("%s", err.buf);
		goto out;
	}
	tracer_setup(&pp, placeholder.buf);
	if (build_plan(&plan, &pp, cfg, &err)) {
		error_print("%s", err.buf);
		code = EXIT_CONFIG;
		goto out;
	}
	if (opt_dry_run) {
		/* the whole plan, always; a step that would fail is marked, and
		 * the exit code is the one the run would end with */
		const struct plan_step *bad;
		size_t n = plan_mark_programs(&plan);

		print_dry_run(&plan, &pp, cfg, conf_dir, root.buf);
		code = EXIT_OK;
		if ((bad = plan_first_failure(&plan))) {
			error_print("dry run: step '%s' would fail: %s%s", bad->name,
				    bad->would_fail, n > 1 ? " (and more: see the plan)" : "");
			code = bad->fail_code;
		}
		goto out;
	}
	if (plan_check_programs(&plan, &err)) {
		error_print("%s", err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	proc_catch_interrupts();
	if (bundle_create(&b, root.buf, &err)) {
		error_print("%s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	plan_release(&plan);
	pp.pp.run_dir = b.dir;
	tracer_setup(&pp, b.dir);
	if (build_plan(&plan, &pp, cfg, &err))
		BUG("plan changed between checks: %s", err.buf);

	strbuf_reset(&placeholder);
	bundle_path(&b, "status.json", &placeholder);
	run_status_init(&st, b.run_id, LLMPROF_VERSION " (" LLMPROF_GIT_COMMIT ")",
			placeholder.buf);
	have_status = 1;
	for (size_t i = 0; i < plan.nr; i++)
		run_status_add(&st, plan.steps[i].name);
	if (write_status(&st)) {
		code = EXIT_IO;
		printf("run: %s\n", b.dir); /* what exists is still worth finding */
		goto out;
	}
	if (!opt_quiet) {
		fprintf(stderr, "llmprof: run %s\n", b.dir);
		fprintf(stderr, "llmprof: trace backend: %s\n", pp.trace_reason.buf);
	}
	if (bundle_update_latest(&b, &err)) {
		warning_print("%s", err.buf); /* the bundle is fine without it */
		strbuf_reset(&err);
	}
	if (make_dirs(&b, &plan, &err) ||
	    (plan_find(&plan, "nsys-export") && write_nsys_cmd(&b, &plan, &err))) {
		error_print("%s", err.buf);
		outcome_fail(&oc, STEP_FAILED, EXIT_IO);
		oc.why = "not run: cannot write the bundle";
		goto finish;
	}

	/* an external program profiled with a model preset: the analytic
	 * FLOPs/bytes come from the preset and infer.* (analysis/analytic_cfg.h) */
	if (analytic_cfg_applies(cfg)) {
		struct strbuf ap = STRBUF_INIT;

		bundle_path(&b, PLAN_ANALYTIC_FILE, &ap);
		if (analytic_cfg_write(cfg, ap.buf, &err)) {
			warning_print("no analytic FLOPs/bytes for MFU/MBU: %s", err.buf);
			strbuf_reset(&err);
		}
		strbuf_release(&ap);
	}

	ic.b = &b;
	ic.cfg = cfg;
	ic.ctx = ctx;
	ic.gpus = &gpus;
	ic.plan = &plan;
	ic.pp = &pp;
	ic.conf_dir = conf_dir;
	ic.n_overrides = n_overrides;
	if (timeout_s > 0)
		deadline = clock_mono_ns() + (uint64_t)(timeout_s * 1e9);
	live_init(&g_live, stderr, !opt_quiet && !opt_echo, isatty(2), term_width(),
		  clock_mono_ns());
	live_on = 1;
	g_trace_log = pp.pp.trace == PLAN_TRACE_BUILTIN ? pp.trace_log.buf : NULL;
	for (size_t i = 0; i < plan.nr; verbose_step_end(&st, i++)) {
		const struct plan_step *s = &plan.steps[i];
		struct strbuf path = STRBUF_INIT, msg = STRBUF_INIT;
		enum step_state state;
		int scode;

		if ((sig = proc_pending_interrupt())) {
			outcome_fail(&oc, STEP_INTERRUPTED, EXIT_INTERRUPTED);
			break;
		}
		live_step(&g_live, i + 1, plan.nr, s->name, clock_mono_ns());
		if (oc.state == RUN_INTERRUPTED)
			break;
		/* after a failure only the steps that keep what exists run, and
		 * past the deadline only the quick in-process ones; the others
		 * are marked skipped now, so the reports see the final states */
		if (oc.failed && (!s->after_failure ||
				  (oc.state == RUN_TIMEOUT && s->kind != STEP_KIND_INTERNAL))) {
			run_status_end(&st, i, STEP_SKIPPED, -1, 0, oc.why);
			write_status(&st);
			continue;
		}
		if (s->skip_reason) {
			run_status_start(&st, i);
			run_status_end(&st, i, STEP_SKIPPED, -1, 0, s->skip_reason);
			write_status(&st);
			continue;
		}
		if (!strcmp(s->name, "nsys-export") || !strcmp(s->name, "nsys-stats")) {
			int exp = !strcmp(s->name, "nsys-export");

			bundle_path(&b, exp ? "nsys/run.nsys-rep" : "nsys/run.sqlite", &path);
			if (!path_exists(path.buf)) {
				run_status_start(&st, i);
				run_status_end(&st, i, STEP_SKIPPED, -1, 0,
					       exp ? "no nsys/run.nsys-rep: nsys profile wrote none"
						   : "no nsys/run.sqlite: the export did not run");
				write_status(&st);
				strbuf_release(&path);
				continue;
			}
			strbuf_release(&path);
		}
		if (s->kind != STEP_KIND_INTERNAL) {
			run_child(&b, s, i, &st, opt_echo, deadline, timeout_s,
				  pp.pp.trace == PLAN_TRACE_NSYS && !strcmp(s->name, "workload"),
				  &oc);
			continue;
		}
		run_status_start(&st, i);
		write_status(&st);
		state = run_internal(&ic, s, &msg, &scode);
		run_status_end(&st, i, state, -1, 0, msg.buf);
		write_status(&st);
		if (state == STEP_FAILED) {
			error_print("%s: %s", s->name, msg.buf);
			outcome_fail(&oc, state, scode);
		}
		strbuf_release(&msg);
	}
	if (oc.state == RUN_OK && (sig = proc_pending_interrupt()))
		outcome_fail(&oc, STEP_INTERRUPTED, EXIT_INTERRUPTED);
finish:
	run_status_finish(&st, oc.state, oc.code, oc.why);
	/* a stale status.json ("running") must not come with exit 0 */
	if (write_status(&st) && oc.code == EXIT_OK)
		oc.code = EXIT_IO;
	code = oc.code;
	if (!opt_quiet)
		print_open_hint(&b);
	printf("run: %s\n", b.dir);
out:
	if (live_on)
		live_release(&g_live);
	g_trace_log = NULL;
	strbuf_release(&output_ov);
	if (have_status)
		run_status_release(&st);
	if (have_params)
		profile_params_release(&pp);
	if (ic.bcfg)
		config_free(ic.bcfg);
	report_analysis_free(ic.analysis);
	if (ic.sel) {
		selection_release(ic.sel);
		free(ic.sel);
	}
	plan_release(&plan);
	gpu_probe_release(&gpus);
	bundle_release(&b);
	if (cfg)
		config_free(cfg);
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
