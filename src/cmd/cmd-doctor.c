/* cmd-doctor.c: `llmprof doctor`: what is installed and usable, and why
 * not. Each line is "ok|warn|fail  <thing>: <detail>", each problem is
 * followed by one "      fix: ..." line. Exit 0 when the essentials (the
 * conf folder loads) are fine, even with no GPU; EXIT_CONFIG otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "nsight/gpu.h"
#include "nsight/tools.h"
#include "core/banned.h"

static const char *opt_conf_dir;

static const struct opt opts[] = {
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "check the configuration in DIR instead of the default conf/ folder"},
    OPT_END_MARK,
};

static void line(const char *level, const char *thing, const char *detail, const char *fix)
{
	/* detail quotes tools' output (a version line): escaped */
	printf("%-4s  %s: ", level, thing);
	fputs_printable(detail, stdout, NULL);
	putchar('\n');
	if (fix) {
		fputs("      fix: ", stdout);
		fputs_printable(fix, stdout, NULL);
		putchar('\n');
	}
}

static void linef(const char *level, const char *thing, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void linef(const char *level, const char *thing, const char *fix, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	line(level, thing, sb.buf, fix);
	strbuf_release(&sb);
}

static void check_gpus(const struct gpu_probe *g)
{
	struct strbuf cuda = STRBUF_INIT;

	if (!g->nr) {
		linef("warn", "gpu",
		      "install the NVIDIA driver (libnvidia-ml.so.1, nvidia-smi) on a "
		      "machine with a GPU; without one only the CPU path of the "
		      "built-in workload and 'llmprof report/stats' on existing "
		      "traces work",
		      "no NVIDIA GPU found: %s", g->note.len ? g->note.buf : "no devices");
		return;
	}
	if (g->cuda_driver_version)
		gpu_format_cuda_version(&cuda, g->cuda_driver_version);
	linef("ok", "driver", NULL, "%s%s%s (via %s)",
	      g->driver_version ? g->driver_version : "unknown", cuda.len ? ", CUDA " : "",
	      cuda.buf, g->source);
	for (size_t i = 0; i < g->nr; i++) {
		const struct gpu_info *x = &g->gpus[i];
		struct strbuf thing = STRBUF_INIT;

		strbuf_addf(&thing, "gpu %u", x->index);
		if (x->cc_major >= 0)
			linef("ok", thing.buf, NULL, "%s, compute capability %d.%d, %.1f GiB",
			      x->name ? x->name : "unknown", x->cc_major, x->cc_minor,
			      (double)x->mem_total / (1024.0 * 1024 * 1024));
		else
			linef("ok", thing.buf, NULL, "%s, %.1f GiB", x->name ? x->name : "unknown",
			      (double)x->mem_total / (1024.0 * 1024 * 1024));
		strbuf_release(&thing);
	}
	strbuf_release(&cuda);
}

static void check_toolkit(void)
{
	struct cuda_toolkit tk;

	cuda_toolkit_probe(&tk);
	if (!tk.root)
		line("warn", "cuda toolkit", tk.note.buf,
		     "install the CUDA toolkit or set CUDA_HOME (needed to build the tracer and "
		     "the built-in workloads, not to run llmprof)");
	else if (tk.version)
		linef("ok", "cuda toolkit", NULL, "%s (%s, from %s)", tk.root, tk.version,
		      tk.version_source);
	else
		linef("warn", "cuda toolkit", "check the toolkit install", "%s: %s", tk.root,
		      tk.note.buf);
	if (tk.cupti)
		line("ok", "cupti", tk.cupti, NULL);
	else if (tk.root)
		linef("warn", "cupti", "install CUPTI (cuda-cupti) for the builtin tracer",
		      "no libcupti.so under %s", tk.root);
	else
		line("warn", "cupti", "not found (no CUDA toolkit)",
		     "install CUPTI (cuda-cupti) for the builtin tracer");
	cuda_toolkit_release(&tk);
}

/* ncu reads counters only when the driver allows non-admin profiling (or
 * we are root); the driver says so in /proc without touching the GPU. */
static void check_ncu_counters(const struct gpu_probe *g)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (!g->nr) {
		line("warn", "ncu counters", "not checked without a GPU",
		     "run 'llmprof doctor' on the GPU machine");
		goto out;
	}
	if (strbuf_read_file(&sb, "/proc/driver/nvidia/params") ||
	    !(p = strstr(sb.buf, "RmProfilingAdminOnly:"))) {
		line("warn", "ncu counters",
		     "unknown (no RmProfilingAdminOnly in "
		     "/proc/driver/nvidia/params)",
		     "if ncu reports ERR_NVGPUCTRPERM, run as root or "
		     "load nvidia with NVreg_RestrictProfilingToAdminUsers=0");
		goto out;
	}
	p += strlen("RmProfilingAdminOnly:");
	while (*p == ' ')
		p++;
	if (*p == '0')
		line("ok", "ncu counters", "readable by all users (RmProfilingAdminOnly: 0)", NULL);
	else if (!geteuid())
		line("ok", "ncu counters", "admin-only, and llmprof runs as root", NULL);
	else
		line("fail", "ncu counters",
		     "admin-only (RmProfilingAdminOnly: 1) and not root: "
		     "ncu will fail with ERR_NVGPUCTRPERM",
		     "run as root, or load nvidia with NVreg_RestrictProfilingToAdminUsers=0");
out:
	strbuf_release(&sb);
}

/* A tool that cannot be used: its why (and the other candidates passed
 * over) and its fix. */
static void warn_found(const char *thing, const struct tool_found *f)
{
	if (f->passed_over.len)
		linef("warn", thing, f->fix.buf, "%s; also passed over %s", f->why.buf,
		      f->passed_over.buf);
	else
		line("warn", thing, f->why.buf, f->fix.buf);
}

/* nsys and ncu as `profile` finds them (tool_find): the executable, then
 * for nsys whether its importer can finish a report. */
static void check_tool(enum tool_id id, const char *configured)
{
	struct tool_found f;
	struct strbuf sb = STRBUF_INIT;

	tool_find(id, configured, &f);
	switch (f.problem) {
	case TOOL_OK:
		tool_found_describe(&f, &sb);
		if (f.note.len)
			line("warn", f.name, f.note.buf, "check that this is NVIDIA's ncu");
		else
			line("ok", f.name, sb.buf, NULL);
		break;
	case TOOL_NO_IMPORTER:
	case TOOL_IMPORTER_BROKEN:
		/* the executable is fine; the importer line says what is not */
		linef("ok", f.name, NULL, "%s (%s)", f.path, f.version);
		break;
	default:
		warn_found(f.name, &f);
		break;
	}
	if (id != TOOL_NSYS || !f.version)
		; /* no nsys that runs: no importer to speak of */
	else if (f.problem == TOOL_IMPORTER_BROKEN)
		line("warn", "nsys importer", f.why.buf, f.fix.buf);
	else if (f.importer)
		line("ok", "nsys importer", f.importer, NULL);
	else
		line("warn", "nsys importer",
		     "no QdstrmImporter next to nsys: it can record but not finish a report",
		     "install the full Nsight Systems (host + target), or use "
		     "pipeline.trace.backend=builtin");
	strbuf_release(&sb);
	tool_found_release(&f);
}

/* The tracer library, the built-in workloads, llmprof-calibrate. */
static void check_file(enum tool_id id, const char *thing)
{
	struct tool_found f;
	struct strbuf sb = STRBUF_INIT;

	tool_find(id, NULL, &f);
	if (f.deprecated.len)
		line("warn", thing, f.deprecated.buf, "rename the variable");
	if (f.problem) {
		warn_found(thing, &f);
	} else {
		tool_found_describe(&f, &sb);
		line("ok", thing, sb.buf, NULL);
	}
	strbuf_release(&sb);
	tool_found_release(&f);
}

static int cmd_doctor_exec(struct cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	struct gpu_probe gpus;
	char *conf_dir;
	int code = EXIT_OK;

	/* KEY=VALUE overrides, as `profile` takes them: the tools it would use */
	for (int i = 0; i < ctx->argc; i++)
		if (!strchr(ctx->argv[i], '=')) {
			error_print("doctor: unexpected argument '%s' (only KEY=VALUE overrides)",
				    ctx->argv[i]);
			return EXIT_USAGE;
		}
	conf_dir = opt_conf_dir ? xstrdup(opt_conf_dir) : config_find_conf_dir();
	if (!conf_dir) {
		line("fail", "conf", "no conf/ folder found",
		     "set LLMPROF_CONF_DIR or use --conf-dir");
		code = EXIT_CONFIG;
	} else if (config_load(&cfg, conf_dir, (size_t)ctx->argc, ctx->argv, &err)) {
		linef("fail", "conf",
		      "fix the file the message names, or point --conf-dir / LLMPROF_CONF_DIR at "
		      "llmprof's conf/ folder",
		      "%s: %s", conf_dir, err.buf);
		code = EXIT_CONFIG;
	} else {
		linef("ok", "conf", NULL, "%s", conf_dir);
	}
	gpu_probe_run(&gpus);
	check_gpus(&gpus);
	check_toolkit();
	check_tool(TOOL_NCU, cfg ? config_typed(cfg)->pipeline.ncu.path : NULL);
	check_ncu_counters(&gpus);
	check_tool(TOOL_NSYS, cfg ? config_typed(cfg)->pipeline.nsys.path : NULL);
	check_file(TOOL_TRACER, "builtin tracer");
	check_file(TOOL_LLM, "llmprof-llm");
	check_file(TOOL_DUMMY, "llmprof-dummy");
	check_file(TOOL_CALIBRATE, "llmprof-calibrate");
	gpu_probe_release(&gpus);
	/* the lines above may go to a file or a pager: the failure that sets
	 * the exit code is also the one line on stderr every command gives */
	if (code == EXIT_CONFIG)
		error_print("doctor: the configuration does not load: %s",
			    conf_dir ? err.buf : "no conf/ folder found");
	if (cfg)
		config_free(cfg);
	free(conf_dir);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_doctor_entry = {
    .name = "doctor",
    .usage = "[options] [KEY=VALUE ...]",
    .summary = "check what is installed and usable for profiling, and why not",
    .description = "Prints one line per component: 'ok', 'warn' or 'fail', the component,\n"
		   "and what was found; every problem is followed by a 'fix:' line. Checks\n"
		   "the conf folder, GPUs and driver (NVML, else nvidia-smi), the CUDA\n"
		   "toolkit and CUPTI, ncu and whether counters are readable, nsys and its\n"
		   "importer, the builtin tracer, the built-in workloads and\n"
		   "llmprof-calibrate, each found as 'profile' finds it (docs/doctor.md);\n"
		   "KEY=VALUE overrides (pipeline.nsys.path=...) apply as in 'profile'.\n"
		   "Exit code 0 when the configuration loads (even with no GPU: reports and\n"
		   "stats still work), 3 when it does not.",
    .opts = opts,
    .exec = cmd_doctor_exec,
};
