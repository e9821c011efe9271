/* cmd-profile.c: `llmprof profile`: resolve the config, create the run
 * bundle, record provenance, run the plan's steps, keep status.json true
 * after every step, and end stdout with "run: <dir>". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "run/bundle.h"
#include "run/gpu.h"
#include "run/plan.h"
#include "run/proc.h"
#include "run/provenance.h"
#include "run/status.h"
#include "trace/perfetto.h"
#include "trace/tosqlite.h"
#include "trace/tracer_launch.h"
#include "version.h"
#include "core/banned.h"

static int opt_dry_run, opt_echo;
static const char *opt_conf_dir;

static const struct opt opts[] = {
    {"dry-run", 'n', OPT_BOOL, &opt_dry_run, NULL,
     "print each planned step (argv, environment, logs) and run nothing; creates no bundle"},
    {"echo", 0, OPT_BOOL, &opt_echo, NULL,
     "also copy the children's output to the terminal (same as run.echo=true)"},
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "read the configuration from DIR instead of the default conf/ folder"},
    OPT_END_MARK,
};

/* Owned storage behind struct plan_params. */
struct profile_params {
	struct plan_params pp;
	const char **program_argv; /* borrowed strings, owned array */
	char *workloads_dir;
	const char *model_name;
	/* builtin trace backend (pipeline.trace.backend=builtin, or auto) */
	char *tracer_lib;	   /* NULL = no builtin trace */
	struct strbuf trace_dir;   /* <run>/trace */
	struct strbuf trace_log;   /* <run>/trace/log: the tracer's logs */
	char *tracer_env[5];
};

static void profile_params_release(struct profile_params *p)
{
	free(p->program_argv);
	free(p->workloads_dir);
	free(p->tracer_lib);
	strbuf_release(&p->trace_dir);
	strbuf_release(&p->trace_log);
	tracer_env_free(p->tracer_env);
}

static int write_status(const struct run_status *st);

/* Decides whether the builtin tracer records this run and, if so, points
 * the workload at it (environment for run_dir). Returns 0, or -1 with err
 * when pipeline.trace.backend=builtin but the tracer is not there. */
static int trace_setup(struct profile_params *p, const struct config *cfg, const char *run_dir,
		       struct strbuf *err)
{
	const char *backend = config_get_string(cfg, "pipeline.trace.backend");
	struct strbuf why = STRBUF_INIT;

	tracer_env_free(p->tracer_env);
	p->pp.workload_env = NULL;
	if (!config_get_bool(cfg, "pipeline.trace.enable", 1) || !backend ||
	    !strcmp(backend, "nsys"))
		return 0;
	if (!p->tracer_lib) {
		p->tracer_lib = tracer_library_path(&why);
		if (!p->tracer_lib) {
			int ret = 0;
			if (!strcmp(backend, "builtin"))
				ret = error_set(err, "pipeline.trace.backend=builtin: %s", why.buf);
			else
				warning_print("no timeline trace: %s", why.buf);
			strbuf_release(&why);
			return ret;
		}
	}
	strbuf_reset(&p->trace_dir);
	strbuf_reset(&p->trace_log);
	path_join(&p->trace_dir, run_dir, "trace");
	path_join(&p->trace_log, p->trace_dir.buf, "log");
	tracer_env_build(p->tracer_env, p->tracer_lib, p->trace_log.buf, TRACER_FULL);
	p->pp.workload_env = (const char *const *)p->tracer_env;
	return 0;
}

/* The "trace" step: tracer logs -> trace/trace.sqlite and trace/trace.json.
 * Runs even after a failed workload: what it traced is worth keeping. */
static void trace_finish(struct profile_params *p, const struct config *cfg,
			 struct run_status *st, size_t idx, int echo)
{
	struct trace_convert_stats ts;
	struct strbuf db = STRBUF_INIT, json = STRBUF_INIT, err = STRBUF_INIT,
		      msg = STRBUF_INIT;
	enum step_state state = STEP_OK;
	uint64_t ev = 0, merged = 0;
	int rc;

	(void)ev;
	trace_convert_stats_init(&ts);
	run_status_start(st, idx);
	write_status(st);
	path_join(&db, p->trace_dir.buf, "trace.sqlite");
	path_join(&json, p->trace_dir.buf, "trace.json");
	if (!tracer_logs_present(p->trace_log.buf)) {
		/* CUDA and NVTX load the tracer on first use: a program using
		 * neither leaves no log, and there is nothing to trace */
		state = STEP_SKIPPED;
		strbuf_addstr(&msg, "no timeline: the program made no CUDA or NVTX call "
				    "(the tracer was never loaded)");
		goto done;
	}
	rc = trace_convert(p->trace_log.buf, db.buf, NULL, &ts, &err);
	if (rc == -1 ||
	    perfetto_write(db.buf, json.buf,
			   (uint64_t)config_get_int(cfg, "pipeline.trace.max_json_events", 0),
			   &ev, &merged, &err) < 0) {
		state = STEP_FAILED;
		strbuf_addstr(&msg, err.buf);
		goto done;
	}
	strbuf_addf(&msg, "%llu kernels, %llu copies, %llu memsets, %llu NVTX rows, %llu launch calls",
		    (unsigned long long)ts.kernels, (unsigned long long)ts.memcpys,
		    (unsigned long long)ts.memsets, (unsigned long long)ts.nvtx_rows,
		    (unsigned long long)ts.api_calls);
	if (merged)
		strbuf_addf(&msg, "; trace.json: %llu short events merged to stay under the cap",
			    (unsigned long long)merged);
	if (ts.dropped_cupti || ts.dropped_tracer)
		strbuf_addf(&msg, "; %llu records dropped (CUPTI %llu, tracer %llu)",
			    (unsigned long long)(ts.dropped_cupti + ts.dropped_tracer),
			    (unsigned long long)ts.dropped_cupti,
			    (unsigned long long)ts.dropped_tracer);
	if (ts.cupti_busy)
		strbuf_addstr(&msg, "; no GPU activity: CUPTI was taken by another tool "
				    "(nsys, ncu or the PyTorch profiler)");
	else if (ts.cupti_unsupported)
		strbuf_addstr(&msg, "; no GPU activity: CUPTI could not trace on this system");
	if (rc == TRACE_CONVERT_PARTIAL) {
		strbuf_addf(&msg, "; %s", err.buf);
		warning_print("trace: %s", err.buf);
	}
	if (ts.diags.len)
		fprintf(stderr, "llmprof: tracer: %s", ts.diags.buf);
done:
	if (state == STEP_FAILED)
		error_print("trace: %s", msg.buf);
	else if (echo)
		fprintf(stderr, "llmprof: trace: %s\n", msg.buf);
	/* one line in status.json */
	for (size_t i = 0; i < msg.len; i++)
		if (msg.buf[i] == '\n')
			msg.buf[i] = ' ';
	run_status_end(st, idx, state, -1, 0, msg.buf);
	write_status(st);
	trace_convert_stats_release(&ts);
	strbuf_release(&db);
	strbuf_release(&json);
	strbuf_release(&err);
	strbuf_release(&msg);
}

static void params_from_config(struct profile_params *p, const struct config *cfg,
			       const struct cmd_ctx *ctx, const struct gpu_probe *gpus,
			       const char *run_dir)
{
	struct plan_params *pp = &p->pp;
	const char *name;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->trace_dir, 0);
	strbuf_init(&p->trace_log, 0);
	pp->run_dir = run_dir;
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
	p->workloads_dir = plan_workloads_dir();
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
};

/* Runs one step; records it in st. Returns 0 to go on, 1 to stop. */
static int run_step(const struct run_bundle *b, const struct plan_step *s, size_t idx,
		    struct run_status *st, int echo, uint64_t deadline_ns, double timeout_s,
		    struct run_outcome *oc)
{
	struct strbuf out = STRBUF_INIT, errp = STRBUF_INIT, err = STRBUF_INIT, d = STRBUF_INIT;
	struct proc_spec spec = {.argv = (const char *const *)s->argv,
				 .env_add = (const char *const *)s->env_add};
	struct proc_result res;
	enum step_state state;
	int stop = 1;

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
	if (proc_run(&spec, &res, &err))
		goto io_error;
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
	/* an exec failure's 127 is our own child's, not the program's */
	run_status_end(st, idx, state, res.outcome == PROC_EXEC_FAILED ? -1 : res.exit_status,
		       res.signal, d.buf);
	write_status(st);
	if (state == STEP_OK) {
		stop = 0;
	} else {
		error_print("%s: %s (logs: %s/logs/%s.{out,err})", s->name, d.buf, b->dir, s->name);
		if (state == STEP_TIMEOUT) {
			oc->state = RUN_TIMEOUT;
			oc->code = EXIT_TIMEOUT;
		} else if (state == STEP_INTERRUPTED) {
			oc->state = RUN_INTERRUPTED;
			oc->code = EXIT_INTERRUPTED;
		} else if (s->optional) {
			stop = 0;
		} else {
			oc->state = RUN_FAILED;
			oc->code =
			    s->kind == STEP_KIND_WORKLOAD ? EXIT_WORKLOAD_FAILED : EXIT_STEP_FAILED;
		}
	}
	goto out;
io_error:
	error_print("%s", err.buf);
	run_status_end(st, idx, STEP_FAILED, -1, 0, err.buf);
	write_status(st);
	oc->state = RUN_FAILED;
	oc->code = EXIT_IO;
out:
	strbuf_release(&out);
	strbuf_release(&errp);
	strbuf_release(&err);
	strbuf_release(&d);
	return stop;
}

static void print_dry_run(const struct plan *plan, const char *conf_dir, const char *root)
{
	struct strbuf sb = STRBUF_INIT;

	printf("dry run: nothing is run and no bundle is created\n");
	printf("conf: %s\n", conf_dir);
	printf("bundle: %s/<run_id>\n", root);
	plan_format(plan, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
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
	struct run_outcome oc = {RUN_OK, EXIT_OK};
	char *conf_dir = NULL;
	const char **overrides = NULL;
	size_t n_overrides = 0;
	double timeout_s;
	uint64_t deadline = 0;
	int code = EXIT_INTERNAL, have_status = 0, have_params = 0, sig;
	long trace_idx = -1;
	const char *why = NULL;

	memset(&gpus, 0, sizeof(gpus));
	strbuf_init(&gpus.note, 0);
	if (ctx->has_program && !ctx->prog_argc) {
		error_print("profile: '--' must be followed by a program");
		code = EXIT_USAGE;
		goto out;
	}
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
	overrides = xcalloc((size_t)ctx->argc + 1, sizeof(*overrides));
	for (int i = 0; i < ctx->argc; i++)
		overrides[n_overrides++] = ctx->argv[i];
	if (ctx->has_program)
		overrides[n_overrides++] = "workload=command";
	if (config_load(&cfg, conf_dir, n_overrides, overrides, &err)) {
		error_print("%s", err.buf);
		code = EXIT_CONFIG;
		goto out;
	}
	bundle_abspath(&root, config_get_string(cfg, "artifacts.root")
				  ? config_get_string(cfg, "artifacts.root")
				  : "tmp/stage2");
	timeout_s = config_get_double(cfg, "run.timeout_s", 0);
	if (!opt_echo)
		opt_echo = config_get_bool(cfg, "run.echo", 0);

	if (opt_dry_run) {
		/* model=auto depends on whether a GPU is present */
		gpu_probe_release(&gpus);
		gpu_probe_run(&gpus);
		strbuf_addf(&placeholder, "%s/<run_id>", root.buf);
		params_from_config(&pp, cfg, ctx, &gpus, placeholder.buf);
		have_params = 1;
		if (trace_setup(&pp, cfg, placeholder.buf, &err)) {
			error_print("%s", err.buf);
			code = EXIT_TOOL_MISSING;
			goto out;
		}
		if (plan_build(&plan, &pp.pp, &err)) {
			error_print("%s", err.buf);
			code = EXIT_CONFIG;
			goto out;
		}
		print_dry_run(&plan, conf_dir, root.buf);
		if (plan_check_programs(&plan, &err))
			warning_print("%s", err.buf);
		code = EXIT_OK;
		goto out;
	}

	proc_catch_interrupts();
	gpu_probe_release(&gpus);
	gpu_probe_run(&gpus);
	/* check the plan before creating anything, with a stand-in run dir */
	strbuf_addf(&placeholder, "%s/<run_id>", root.buf);
	params_from_config(&pp, cfg, ctx, &gpus, placeholder.buf);
	have_params = 1;
	if (trace_setup(&pp, cfg, placeholder.buf, &err)) {
		error_print("%s", err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	if (plan_build(&plan, &pp.pp, &err)) {
		error_print("%s", err.buf);
		code = EXIT_CONFIG;
		goto out;
	}
	if (plan_check_programs(&plan, &err)) {
		error_print("%s", err.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	if (bundle_create(&b, root.buf, &err)) {
		error_print("%s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	plan_release(&plan);
	pp.pp.run_dir = b.dir;
	if (trace_setup(&pp, cfg, b.dir, &err))
		BUG("trace setup changed between checks: %s", err.buf);
	if (pp.pp.workload_env && mkdir_p(pp.trace_log.buf, &err)) {
		error_print("%s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	if (plan_build(&plan, &pp.pp, &err))
		BUG("plan changed between checks: %s", err.buf);

	strbuf_reset(&placeholder);
	bundle_path(&b, "status.json", &placeholder);
	run_status_init(&st, b.run_id, LLMPROF_VERSION " (" LLMPROF_GIT_COMMIT ")",
			placeholder.buf);
	have_status = 1;
	for (size_t i = 0; i < plan.nr; i++)
		run_status_add(&st, plan.steps[i].name);
	if (pp.pp.workload_env)
		trace_idx = (long)run_status_add(&st, "trace");
	if (write_status(&st)) {
		code = EXIT_IO;
		printf("run: %s\n", b.dir); /* what exists is still worth finding */
		goto out;
	}
	fprintf(stderr, "llmprof: run %s\n", b.dir);
	if (bundle_update_latest(&b, &err)) {
		warning_print("%s", err.buf); /* the bundle is fine without it */
		strbuf_reset(&err);
	}
	if (write_provenance(&b, cfg, ctx, &gpus, &plan, &err)) {
		error_print("%s", err.buf);
		oc.state = RUN_FAILED;
		oc.code = EXIT_IO;
		why = "not run: cannot write the bundle";
		goto finish;
	}

	if (timeout_s > 0)
		deadline = clock_mono_ns() + (uint64_t)(timeout_s * 1e9);
	for (size_t i = 0; i < plan.nr; i++) {
		if ((sig = proc_pending_interrupt())) {
			oc.state = RUN_INTERRUPTED;
			oc.code = EXIT_INTERRUPTED;
			why = "not run: llmprof was interrupted";
			break;
		}
		if (run_step(&b, &plan.steps[i], i, &st, opt_echo, deadline, timeout_s, &oc)) {
			why = oc.state == RUN_TIMEOUT	    ? "not run: run.timeout_s exceeded"
			      : oc.state == RUN_INTERRUPTED ? "not run: llmprof was interrupted"
							    : "not run: an earlier step failed";
			break;
		}
	}
	/* after a failed or timed-out workload too: its trace shows why */
	if (trace_idx >= 0 && oc.state != RUN_INTERRUPTED && st.steps[0].state != STEP_PENDING)
		trace_finish(&pp, cfg, &st, (size_t)trace_idx, opt_echo);
	if (oc.state == RUN_OK && (sig = proc_pending_interrupt())) {
		oc.state = RUN_INTERRUPTED;
		oc.code = EXIT_INTERRUPTED;
	}
finish:
	run_status_finish(&st, oc.state, oc.code, why);
	/* a stale status.json ("running") must not come with exit 0 */
	if (write_status(&st) && oc.code == EXIT_OK)
		oc.code = EXIT_IO;
	code = oc.code;
	printf("run: %s\n", b.dir);
out:
	if (have_status)
		run_status_release(&st);
	if (have_params)
		profile_params_release(&pp);
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
		   "<artifacts.root>/<run_id>/ with config.yaml, env.json, inputs.yaml and\n"
		   "status.json, then runs each step of the pipeline with its output in logs/.\n"
		   "With '-- PROGRAM ARGS' that program is the workload (never run through a\n"
		   "shell); otherwise workload.kind picks the built-in llm or dummy workload\n"
		   "or workload.program. The last line on stdout is 'run: <dir>'.\n"
		   "Exit codes: 0 ok, 1 workload failed, 3 config, 4 tool missing, 7 cannot\n"
		   "write, 124 run.timeout_s exceeded, 130 interrupted (docs/exit-codes.md).",
    .opts = opts,
    .flags = CMD_TAKES_PROGRAM,
    .exec = cmd_profile_exec,
};
