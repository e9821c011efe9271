/* step_trace.c: the builtin "trace" step: the tracer's logs ->
 * trace/trace.sqlite and trace/trace.json (trace/tosqlite.h,
 * trace/perfetto.h). Runs after a failed workload too: what it traced
 * shows why. Prints nothing (progress.h). */
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "pipeline/steps.h"
#include "trace/perfetto.h"
#include "trace/tosqlite.h"
#include "trace/tracer_launch.h"
#include "core/banned.h"

static enum step_state trace_finish(struct run_ctx *rc, struct strbuf *msg, int *code)
{
	const struct run_params *p = &rc->params;
	const struct pipeline_progress *pr = rc->progress;
	struct trace_convert_stats ts;
	struct strbuf db = STRBUF_INIT, err = STRBUF_INIT;
	enum step_state state = STEP_OK;
	uint64_t ev = 0, merged = 0;
	int crc, intr0, pw;

	if (!p->tracer_lib) {
		strbuf_addstr(msg, "tracer not built: no libllmprof_tracer.so");
		return STEP_FAILED;
	}
	trace_convert_stats_init(&ts);
	bundle_path(&rc->bundle, bundle_art(BA_TRACE_SQLITE), &db);
	if (!tracer_logs_present(p->trace_log.buf)) {
		/* CUDA and NVTX load the tracer on first use: a program using
		 * neither leaves no log, and there is nothing to trace */
		state = STEP_SKIPPED;
		strbuf_addstr(msg, "no timeline: the program made no CUDA or NVTX call "
				   "(the tracer was never loaded)");
		goto done;
	}
	intr0 = proc_interrupt_count();
	crc = trace_convert(p->trace_log.buf, &rc->bundle.bd, bundle_art(BA_TRACE_SQLITE), NULL,
			    &ts, &err);
	pw = crc == -1 || crc == TRACE_CONVERT_INTERRUPTED || crc == TRACE_CONVERT_CANNOT_WRITE
		 ? -1
		 : perfetto_write(db.buf, &rc->bundle.bd, bundle_art(BA_TRACE_JSON),
				  (uint64_t)config_typed(rc->cfg)->pipeline.trace.max_json_events,
				  &ev, &merged, &err);
	if (pw < 0) {
		state = STEP_FAILED;
		/* a full disk is a write error (7), not a failed step (6) */
		if (crc == TRACE_CONVERT_CANNOT_WRITE || pw == PERFETTO_CANNOT_WRITE)
			*code = EXIT_IO;
		strbuf_addstr(msg, err.buf);
		if (proc_interrupt_count() != intr0) {
			/* Ctrl-C: the conversion or trace.json stopped at once */
			state = STEP_INTERRUPTED;
			strbuf_reset(msg);
			strbuf_addf(msg, "interrupted by %s",
				    proc_signal_name(proc_pending_interrupt()));
		}
		goto done;
	}
	strbuf_addf(msg,
		    "%llu kernels, %llu copies, %llu memsets, %llu NVTX rows, %llu launch calls",
		    (unsigned long long)ts.kernels, (unsigned long long)ts.memcpys,
		    (unsigned long long)ts.memsets, (unsigned long long)ts.nvtx_rows,
		    (unsigned long long)ts.api_calls);
	if (ts.api_other)
		strbuf_addf(msg, ", %llu other CUDA API calls", (unsigned long long)ts.api_other);
	if (ts.cpu_samples)
		strbuf_addf(msg, ", %llu CPU samples", (unsigned long long)ts.cpu_samples);
	if (merged)
		strbuf_addf(msg, "; %s: %llu short events merged to stay under the cap",
			    bundle_art_base(BA_TRACE_JSON), (unsigned long long)merged);
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
	if (crc == TRACE_CONVERT_PARTIAL) {
		strbuf_addf(msg, "; %s", err.buf);
		run_warning(rc, "trace: %s", err.buf);
	}
	if (ts.diags.len) {
		strbuf_reset(&err);
		strbuf_addf(&err, "llmprof: tracer: %s", ts.diags.buf);
		pr->text(pr->arg, err.buf);
	}
done:
	trace_convert_stats_release(&ts);
	strbuf_release(&db);
	strbuf_release(&err);
	return state;
}

void step_trace(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)
{
	(void)s;
	(void)i;
	res->state = trace_finish(rc, &res->msg, &res->code);
	if (res->state == STEP_INTERRUPTED)
		strbuf_addf(&res->error, "trace: %s", res->msg.buf);
}
