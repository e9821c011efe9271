/* trust.c: the trust report's items (trust.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/trust.h"
#include "core/strbuf.h"
#include "core/banned.h"

static int has_finding(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return 1;
	return 0;
}

static int above(const struct report_trust_item *it)
{
	return it && it->threshold != TRUST_NO_THRESHOLD && it->count > it->threshold;
}

#define ADD(code, n, thr, affects, ...)                                                            \
	((n) ? report_model_add_trust(m, code, n, thr, affects, __VA_ARGS__) : NULL)

static const char *s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* Hosts whose clock was shifted to align it with the first host's. */
static uint64_t shifted_hosts(const struct report_model *m)
{
	uint64_t n = 0;

	for (size_t h = 1; h < m->ranks.coll.nr_hosts; h++)
		n += m->ranks.coll.hosts[h].aligned && m->ranks.coll.hosts[h].offset_ns;
	return n;
}

/* "12 CUPTI records dropped, 1 problem reading the tracer's log": the
 * non-zero parts, comma-separated. */
static void part(struct strbuf *sb, uint64_t n, const char *one, const char *many)
{
	if (n)
		strbuf_addf(sb, "%s%llu %s", sb->len ? ", " : "", (unsigned long long)n,
			    n == 1 ? one : many);
}

static void dropped_finding(struct report_model *m, const struct trust_counts *c)
{
	struct strbuf sb = STRBUF_INIT;

	if (has_finding(m, "records-dropped"))
		return;
	part(&sb, c->dropped_cupti, "CUPTI record dropped", "CUPTI records dropped");
	part(&sb, c->dropped_tracer, "record the tracer could not keep",
	     "records the tracer could not keep");
	part(&sb, c->log_problems, "problem reading the tracer's log",
	     "problems reading the tracer's log");
	report_model_add_finding(
	    m, FINDING_CRITICAL, "records-dropped",
	    "Trace a shorter region, or raise LLMPROF_TRACE_CUPTI_BUFFER_MB and "
	    "LLMPROF_TRACE_BUFFER_KB (docs/tracer.md).",
	    "The trace lost records (%s): kernel counts, times and shares miss that work.", sb.buf);
	strbuf_release(&sb);
}

static void unflushed_finding(struct report_model *m, uint64_t n)
{
	if (has_finding(m, "trace-unflushed"))
		return;
	report_model_add_finding(
	    m, FINDING_WARNING, "trace-unflushed",
	    "Let each traced process return from main or call exit(); for Python "
	    "multiprocessing children (which end with _exit) or a program that is killed, "
	    "lower LLMPROF_TRACE_LOG_FLUSH_MS (docs/tracer.md).",
	    "%llu traced process%s ended without exit() (a crash, _exit() or SIGKILL): the "
	    "records of up to the last LLMPROF_TRACE_LOG_FLUSH_MS (1 s by default) of each are "
	    "missing, so its last kernels and ranges are not counted.",
	    (unsigned long long)n, n == 1 ? "" : "es");
}

static void graph_nodes_finding(struct report_model *m)
{
	if (has_finding(m, "graph-nodes-unreadable"))
		return;
	report_model_add_finding(
	    m, FINDING_WARNING, "graph-nodes-unreadable",
	    "Record the run again; the graph-node table of llmprof's tracer is written whole "
	    "unless the trace was damaged afterwards.",
	    "The trace's graph-node table could not be read: kernels replayed from CUDA graphs "
	    "are counted in every kernel and stage total but belong to no operator.");
}

static void time_finding(struct report_model *m, const struct trust_counts *c)
{
	struct strbuf sb = STRBUF_INIT;

	if (has_finding(m, "timestamps-invalid"))
		return;
	part(&sb, c->bad_times, "kernel ends at or before its start",
	     "kernels end at or before their start");
	part(&sb, c->clamped, "timestamp was out of range (clamped)",
	     "timestamps were out of range (clamped)");
	report_model_add_finding(m, FINDING_WARNING, "timestamps-invalid",
				 "Check the trace for damage; record it again.",
				 "Timestamps are invalid (%s): the durations concerned count as 0 "
				 "or are wrong.",
				 sb.buf);
	strbuf_release(&sb);
}

/* A peak llmprof estimated for a GPU its table lacks: MFU/MBU against it
 * are only as good as the estimate (an H20 estimated as a full Hopper reads
 * 4x too low), so it is listed, never silently "datasheet". */
static void peak_item(struct report_model *m)
{
	const struct report_peaks *p = &m->peaks;
	uint64_t n = (uint64_t)(!!p->tflops_estimated + !!p->gbs_estimated);
	struct strbuf sb = STRBUF_INIT;

	if (!n)
		return;
	if (p->tflops_estimated)
		strbuf_addf(&sb, "dense %s %.1f TFLOP/s", p->precision ? p->precision : "bf16",
			    p->datasheet_tflops.v);
	if (p->gbs_estimated)
		strbuf_addf(&sb, "%sDRAM %.0f GB/s", sb.len ? ", " : "", p->datasheet_gbs.v);
	ADD("peak-estimated", n, TRUST_NO_THRESHOLD,
	    "MFU/MBU against the datasheet peak (not the measured ceilings)",
	    "peak%s estimated by llmprof, not from a datasheet (GPU not in the peak table): %s",
	    s(n), sb.buf);
	strbuf_release(&sb);
}

/* The PyTorch startup module (docs/pytorch.md): ranges an error turned off
 * (a finding: the operator tables stop there, and nothing else says so),
 * ranges auto turned off, a module given that never ran, a log unreadable. */
static void pytorch_items(struct report_model *m)
{
	const struct report_pytorch *p = &m->pytorch;
	const struct report_trust_item *a;

	a = ADD("pytorch-ranges-failed", p->failed, 0,
		"operators and kernels' Operator column (the ranges end at the failure)",
		"PyTorch range error%s in the startup module's log, the ranges turned off: %s",
		s(p->failed), p->failure ? p->failure : "");
	if (above(a) && !has_finding(m, "pytorch-ranges-failed"))
		report_model_add_finding(
		    m, FINDING_WARNING, "pytorch-ranges-failed",
		    "Read the startup module's log (docs/pytorch.md, \"The log\"); run again with "
		    "pipeline.trace.pytorch=none to compare.",
		    "The PyTorch startup module turned its ranges off after an error (%s): the "
		    "operator tables cover the run only until then.",
		    p->failure ? p->failure : "");
	ADD("pytorch-auto-off", p->auto_off, TRUST_NO_THRESHOLD,
	    "operators (module ranges cover the run only until then)",
	    "process%s where pipeline.trace.pytorch=auto turned the module ranges off, their "
	    "estimated slowdown above the %g %% budget",
	    p->auto_off == 1 ? "" : "es", p->budget_pct);
	ADD("pytorch-not-loaded", (uint64_t)(p->given && !p->have_log && !p->log_err && !p->failed),
	    TRUST_NO_THRESHOLD, "operators (no module ranges)",
	    "PyTorch startup module given, but no process imported torch (or Python ran with -I, "
	    "-E or -S)");
	ADD("pytorch-log-unreadable", (uint64_t) !!p->log_err, TRUST_NO_THRESHOLD,
	    "what the PyTorch startup module did (not the trace)",
	    "the PyTorch startup module's log unreadable (%s)", p->log_err ? p->log_err : "");
}

void trust_build(struct report_model *m, const struct trust_counts *c)
{
	const struct report_trust_item *a, *b, *d;
	size_t unjoined = report_model_unjoined(m);
	uint64_t hosts = shifted_hosts(m);

	for (size_t i = 0; i < m->trust.nr; i++)
		free(m->trust.v[i].what);
	m->trust.nr = 0; /* built again: the new counts replace the old */
	m->trust.checked = 1;
	a = ADD("records-dropped-cupti", c->dropped_cupti, 0, "every kernel count, time and share",
		"CUPTI record%s dropped (buffer full)", s(c->dropped_cupti));
	b = ADD("records-dropped-tracer", c->dropped_tracer, 0,
		"every kernel count, time and share", "tracer record%s it could not keep",
		s(c->dropped_tracer));
	d = ADD("tracer-log-problems", c->log_problems, 0, "the records around each problem",
		"problem%s reading the tracer's log", s(c->log_problems));
	if (above(a) || above(b) || above(d))
		dropped_finding(m, c);
	a = ADD("processes-unflushed", c->unflushed, 0, "the last records of each process",
		"process%s ended without flushing the trace (crash, _exit, SIGKILL)",
		c->unflushed == 1 ? "" : "es");
	if (above(a))
		unflushed_finding(m, c->unflushed);
	a = ADD("timestamps-inverted", c->bad_times, 0, "kernel times, GPU busy and idle",
		"kernel%s ending at or before %s start", s(c->bad_times),
		c->bad_times == 1 ? "its" : "their");
	b = ADD("timestamps-clamped", c->clamped, 0, "spans and times of the records concerned",
		"timestamp%s clamped at load (out of range)", s(c->clamped));
	if (above(a) || above(b))
		time_finding(m, c);
	ADD("kernels-without-launch", c->no_launch, 0, "stage and operator attribution",
	    "kernel%s without a launch call", s(c->no_launch));
	ADD("kernels-outside-stages", c->outside, 0, "stage times and shares (not kernel totals)",
	    "kernel%s outside every stage", s(c->outside));
	ADD("stage-cross-thread", c->cross_thread, 0, "the stage's GPU time (not projected)",
	    "stage range%s ended on another thread", s(c->cross_thread));
	ADD("ranges-open", c->open_ranges, TRUST_NO_THRESHOLD,
	    "their ends (taken as the trace's last range end)", "NVTX range%s never ended",
	    s(c->open_ranges));
	a = ADD("graph-nodes-unreadable", (uint64_t) !!c->graph_nodes_problem, 0,
		"operators of kernels replayed from CUDA graphs",
		"graph-node table unreadable, replayed kernels have no operator (%s)",
		c->graph_nodes_problem ? c->graph_nodes_problem : "");
	if (above(a))
		graph_nodes_finding(m);
	ADD("cpu-samples-unreadable", (uint64_t) !!c->cpu_samples_problem, TRUST_NO_THRESHOLD,
	    "the CPU samples section (the stage tables are not affected)",
	    "CPU-sample table unreadable, no CPU samples reported (%s)",
	    c->cpu_samples_problem ? c->cpu_samples_problem : "");
	ADD("counters-unmatched", (uint64_t)unjoined, 0, "counter-based numbers (MFU, bound)",
	    "counter result%s matched to no trace kernel", s(unjoined));
	ADD("clock-skew", hosts, TRUST_NO_THRESHOLD, "cross-host waits and stragglers",
	    "host clock%s shifted to align ranks (residual %.1f us median, %.1f us max)", s(hosts),
	    (double)m->ranks.coll.residual_median_ns / 1e3,
	    (double)m->ranks.coll.residual_max_ns / 1e3);
	/* measured for every rank, also those sharing a clock: above the
	 * threshold, the clocks are not what they seem (the clock-residual
	 * finding says more) */
	ADD("clock-residual",
	    (uint64_t)(m->ranks.coll.residual_samples &&
		       m->ranks.coll.residual_median_ns > COLL_RESIDUAL_HIGH_NS),
	    TRUST_NO_THRESHOLD, "every wait, transfer and straggler lateness",
	    "clock residual after alignment above %.0f us: %.1f us median, %.1f us max over %llu "
	    "samples",
	    COLL_RESIDUAL_HIGH_NS / 1e3, (double)m->ranks.coll.residual_median_ns / 1e3,
	    (double)m->ranks.coll.residual_max_ns / 1e3,
	    (unsigned long long)m->ranks.coll.residual_samples);
	peak_item(m);
	pytorch_items(m);
}
