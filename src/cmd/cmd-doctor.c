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
#include "run/gpu.h"
#include "run/plan.h"
#include "run/tools.h"
#include "vendor/nsys.h"
#include "core/banned.h"

static const char *opt_conf_dir;

static const struct opt opts[] = {
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "check the configuration in DIR instead of the default conf/ folder"},
    OPT_END_MARK,
};

static void line(const char *level, const char *thing, const char *detail, const char *fix)
{
	printf("%-4s  %s: %s\n", level, thing, detail);
	if (fix)
		printf("      fix: %s\n", fix);
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

static void check_tool(const char *name, const char *configured, const char *fix)
{
	struct tool_info t = TOOL_INFO_INIT;
	char *old = NULL;

	tool_probe(&t, name, configured);
	if (t.path && t.version && (old = tool_too_old(name, t.version))) {
		struct strbuf upgrade = STRBUF_INIT;

		if (strcmp(name, "nsys"))
			strbuf_addf(
			    &upgrade,
			    "install Nsight Compute %d.%d or newer, or set pipeline.ncu.path",
			    TOOL_NCU_MIN_MAJOR, TOOL_NCU_MIN_MINOR);
		else
			strbuf_addf(
			    &upgrade,
			    "install Nsight Systems %d.%d or newer, or set pipeline.nsys.path; "
			    "pipeline.trace.backend=builtin needs no nsys",
			    TOOL_NSYS_MIN_MAJOR, TOOL_NSYS_MIN_MINOR);
		linef("warn", name, upgrade.buf, "%s (%s)", old, t.path);
		strbuf_release(&upgrade);
	} else if (t.path && t.version)
		linef("ok", name, NULL, "%s (%s)", t.path, t.version);
	else
		line("warn", name, t.note.buf, fix);
	if (!strcmp(name, "nsys") && t.path) {
		char *imp = nsys_find_importer(t.path); /* where profile looks */
		if (imp)
			linef("ok", "nsys importer", NULL, "%s", imp);
		else
			line("warn", "nsys importer",
			     "no QdstrmImporter next to nsys: it can record "
			     "but not finish a report",
			     "install the full Nsight Systems, or use "
			     "pipeline.trace.backend=builtin");
		free(imp);
	}
	free(old);
	tool_info_release(&t);
}

static void check_tracer(void)
{
	const char *env = getenv("LLMPROF_TRACER");
	char *dir = exe_dir();
	static const char *const rel[] = {"tracer/libllmprof_tracer.so",
					  "../lib/llmprof/libllmprof_tracer.so"};
	struct strbuf p = STRBUF_INIT;
	int found = 0;

	if (env && *env) {
		strbuf_addstr(&p, env);
		found = path_exists(p.buf);
	}
	for (size_t i = 0; i < 2 && !found; i++) {
		strbuf_reset(&p);
		path_join(&p, dir, rel[i]);
		found = path_exists(p.buf);
	}
	if (found)
		line("ok", "builtin tracer", p.buf, NULL);
	else
		linef("warn", "builtin tracer",
		      "build it with 'make' on a machine with the CUDA toolkit (tracer/), or set "
		      "LLMPROF_TRACER",
		      "libllmprof_tracer.so not found (looked in %s/tracer and "
		      "%s/../lib/llmprof)",
		      dir, dir);
	free(dir);
	strbuf_release(&p);
}

static void check_workloads(void)
{
	char *dir = plan_workloads_dir();
	static const char *const names[] = {"llmprof-llm", "llmprof-dummy"};

	for (size_t i = 0; i < 2; i++) {
		struct strbuf p = STRBUF_INIT;
		path_join(&p, dir, names[i]);
		if (path_is_executable_file(p.buf))
			line("ok", names[i], p.buf, NULL);
		else
			linef("warn", names[i],
			      "build it with 'make' (workloads/), or set "
			      "LLMPROF_WORKLOADS_DIR; '-- PROGRAM ARGS' needs neither",
			      "built-in workload not found at %s", p.buf);
		strbuf_release(&p);
	}
	free(dir);
}

static int cmd_doctor_exec(struct cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	struct gpu_probe gpus;
	char *conf_dir;
	int code = EXIT_OK;

	if (ctx->argc) {
		error_print("doctor: unexpected argument '%s'", ctx->argv[0]);
		return EXIT_USAGE;
	}
	conf_dir = opt_conf_dir ? xstrdup(opt_conf_dir) : config_find_conf_dir();
	if (!conf_dir) {
		line("fail", "conf", "no conf/ folder found",
		     "set LLMPROF_CONF_DIR or use --conf-dir");
		code = EXIT_CONFIG;
	} else if (config_load(&cfg, conf_dir, 0, NULL, &err)) {
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
	check_tool("ncu", cfg ? config_get_string(cfg, "pipeline.ncu.path") : NULL,
		   "install Nsight Compute and put ncu on PATH, or set pipeline.ncu.path");
	check_ncu_counters(&gpus);
	check_tool("nsys", cfg ? config_get_string(cfg, "pipeline.nsys.path") : NULL,
		   "install Nsight Systems and put nsys on PATH, or set pipeline.nsys.path "
		   "(the builtin tracer works without it)");
	check_tracer();
	check_workloads();
	gpu_probe_release(&gpus);
	if (cfg)
		config_free(cfg);
	free(conf_dir);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_doctor_entry = {
    .name = "doctor",
    .usage = "[options]",
    .summary = "check what is installed and usable for profiling, and why not",
    .description = "Prints one line per component: 'ok', 'warn' or 'fail', the component,\n"
		   "and what was found; every problem is followed by a 'fix:' line. Checks\n"
		   "the conf folder, GPUs and driver (NVML, else nvidia-smi), the CUDA\n"
		   "toolkit and CUPTI, ncu and whether counters are readable, nsys and its\n"
		   "importer, the builtin tracer and the built-in workloads.\n"
		   "Exit code 0 when the configuration loads (even with no GPU: reports and\n"
		   "stats still work), 3 when it does not.",
    .opts = opts,
    .exec = cmd_doctor_exec,
};
