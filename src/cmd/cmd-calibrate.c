/* cmd-calibrate.c: `llmprof calibrate` measures a GPU's practical ceilings
 * (bf16 GEMM TFLOP/s, device copy GB/s) with llmprof-calibrate and stores
 * them per GPU model for the reports (analysis/calibration.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calibration.h"
#include "analysis/hw.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/gpu.h"
#include "core/proc.h"
#include "nsight/tools.h"
#include "core/banned.h"

#define CALIBRATE_TOOL "llmprof-calibrate"
#define CALIBRATE_EXIT_NO_DEVICE 3 /* the tool's "no usable CUDA device" */

static int64_t opt_device = 0;
static int64_t opt_timeout = 600;
static int opt_no_store;

static const struct opt opts[] = {
    {"device", 'd', OPT_INT, &opt_device, "N", "CUDA device index to measure (default 0)", 0, 1023},
    {"timeout", 0, OPT_INT, &opt_timeout, "SECONDS",
     "give up after this many seconds (default 600)", 1, 86400},
    {"no-store", 0, OPT_BOOL, &opt_no_store, NULL, "print the measurement without storing it", 0,
     0},
    OPT_END_MARK,
};

/* The last non-empty line of s, as an owned string. */
static char *last_line(const char *s)
{
	const char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return xstrndup(start, (size_t)(end - start));
}

/* The tool's "no usable CUDA device" (exit 3) as one line: no GPU, or a
 * driver CUDA cannot use, with CUDA's own words as the detail
 * ("llmprof-calibrate: no usable CUDA device: CUDA driver version is
 * insufficient for CUDA runtime version" -> "... (CUDA: CUDA driver
 * version is insufficient for CUDA runtime version)"). */
static void no_device(const char *tool_err)
{
	static const char prefix[] = CALIBRATE_TOOL ": no usable CUDA device: ";
	char *last = last_line(tool_err);
	const char *detail = last;

	if (starts_with(detail, prefix))
		detail += strlen(prefix);
	else if (starts_with(detail, CALIBRATE_TOOL ": "))
		detail += strlen(CALIBRATE_TOOL ": ");
	if (!*detail)
		detail = "no CUDA device";
	error_print("calibrate: no usable GPU: no NVIDIA GPU with a working driver was found "
		    "(CUDA: %s)",
		    detail);
	free(last);
}

static void print_summary(const struct calibration *c)
{
	const struct hw_spec *s = hw_lookup(c->gpu, c->sm_count, NULL);

	printf("%s: bf16 GEMM 8192^3 %.1f TFLOP/s", c->gpu, c->gemm_tflops);
	if (s && s->bf16 > 0)
		printf(" (%.1f%% of the %.1f TFLOP/s dense datasheet peak)",
		       100 * c->gemm_tflops / s->bf16, s->bf16);
	printf("; device copy %.0f GB/s read+write", c->copy_gbs);
	if (s)
		printf(" (%.1f%% of %.0f GB/s)", 100 * c->copy_gbs / s->bw_gbs, s->bw_gbs);
	printf("\n");
}

static int cmd_calibrate_exec(struct cmd_ctx *ctx)
{
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf dev = STRBUF_INIT, when = STRBUF_INIT, path = STRBUF_INIT;
	struct proc_spec spec;
	struct proc_result res;
	struct calibration cal = {0};
	struct tool_found found;
	struct gpu_probe gpus;
	size_t probed;
	char *tool = NULL, *line = NULL;
	const char *argv[4];
	int code = EXIT_INTERNAL;

	if (ctx->argc) {
		error_print("calibrate: unexpected argument '%s'", ctx->argv[0]);
		code = EXIT_USAGE;
		goto out;
	}
	tool_find(TOOL_CALIBRATE, NULL, &found);
	if (found.problem) {
		error_print("calibrate: %s is not installed: %s (%s)", CALIBRATE_TOOL,
			    found.why.buf, found.fix.buf);
		tool_found_release(&found);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	tool = xstrdup(found.path);
	tool_found_release(&found);
	/* NVML or nvidia-smi may name the GPU; without either, say nothing
	 * until the tool has found a CUDA device or said there is none */
	gpu_probe_run(&gpus);
	probed = gpus.nr;
	gpu_probe_release(&gpus);
	strbuf_addf(&dev, "%lld", (long long)opt_device);
	argv[0] = tool;
	argv[1] = "--device";
	argv[2] = dev.buf;
	argv[3] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.stdin_null = 1;
	spec.out.buf = &out;
	spec.err.buf = &errout;
	spec.timeout_s = (double)opt_timeout;
	if (probed)
		fprintf(stderr,
			"llmprof: measuring device %lld (bf16 GEMM, 2 GiB device copy)...\n",
			(long long)opt_device);
	if (proc_run(&spec, &res, &err)) {
		error_print("calibrate: %s", err.buf);
		code = EXIT_INTERNAL;
		goto out;
	}
	strbuf_trim(&errout);
	if (res.outcome == PROC_EXITED && res.exit_status == CALIBRATE_EXIT_NO_DEVICE) {
		no_device(errout.buf);
		code = EXIT_TOOL_MISSING;
		goto out;
	}
	if (res.outcome == PROC_INTERRUPTED) {
		error_print("calibrate: interrupted");
		code = EXIT_INTERRUPTED;
		goto out;
	}
	if (res.outcome != PROC_EXITED || res.exit_status != 0) {
		struct strbuf d = STRBUF_INIT;
		proc_result_describe(&res, &spec, &d);
		error_print("calibrate: %s %s%s%s", CALIBRATE_TOOL, d.buf, errout.len ? ": " : "",
			    errout.buf);
		strbuf_release(&d);
		code = res.outcome == PROC_TIMEOUT ? EXIT_TIMEOUT : EXIT_STEP_FAILED;
		goto out;
	}
	line = last_line(out.buf);
	if (calibration_parse(line, strlen(line), CALIBRATE_TOOL " output", &cal, &err)) {
		error_print("calibrate: %s", err.buf);
		code = EXIT_STEP_FAILED;
		goto out;
	}
	format_iso8601(&when, clock_wall_ns());
	free(cal.created_at);
	cal.created_at = xstrdup(when.buf);
	if (!cal.tool)
		cal.tool = xstrdup(CALIBRATE_TOOL);
	print_summary(&cal);
	if (!opt_no_store) {
		if (calibration_store(&cal, &path, &err)) {
			error_print("calibrate: %s", err.buf);
			code = EXIT_IO;
			goto out;
		}
		printf("stored: %s\n", path.buf);
	}
	code = EXIT_OK;
out:
	calibration_release(&cal);
	free(tool);
	free(line);
	strbuf_release(&out);
	strbuf_release(&errout);
	strbuf_release(&err);
	strbuf_release(&dev);
	strbuf_release(&when);
	strbuf_release(&path);
	return code;
}

const struct cmd_entry cmd_calibrate_entry = {
    .name = "calibrate",
    .usage = "[--device N] [--timeout SECONDS] [--no-store]",
    .summary = "measure this GPU's bf16 GEMM and copy ceilings for MFU/MBU",
    .description =
	"Runs llmprof-calibrate: a cuBLASLt bf16 GEMM (8192^3, fp32 accumulate) and a\n"
	"2 GiB device-to-device copy, timed with CUDA events after warm-up. The copy\n"
	"rate counts bytes read plus bytes written. The result is stored per GPU model in\n"
	"$LLMPROF_CALIBRATION_DIR, else $XDG_CACHE_HOME/llmprof/calibration, else\n"
	"~/.cache/llmprof/calibration, and reports show it next to datasheet peaks.\n"
	"llmprof-calibrate is found as 'doctor' shows it: $LLMPROF_CALIBRATE, next to\n"
	"llmprof, ../libexec/llmprof, then PATH.\n"
	"Exit status 4 when no usable GPU (or no driver CUDA can use) or no\n"
	"llmprof-calibrate is available; 6 when it fails; 124 on --timeout.",
    .opts = opts,
    .exec = cmd_calibrate_exec,
};
