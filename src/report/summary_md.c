/* summary_md.c: stakeholder_summary.md, the one-page summary: executive
 * summary, Environment, Aggregates, Per-Stage Timings, MFU and MBU, Top
 * Operators, Top Kernels, Recommendations (docs/report.md). Every section
 * is always there; an empty one says why, so a missing table never reads
 * as "nothing to see". */
#include <stddef.h>
#include <string.h>

#include "bundle/layout.h"
#include "model/format.h"
#include "report/report.h"
#include "report/model_tables.h"
#include "report/render_md_priv.h"
#include "core/md.h"
#include "core/banned.h"

/* Rows of each summary table: the rest is in report.md, kernels.md and
 * operators.md. */
#define SUMMARY_ROWS 5

/* "Key: value" pairs on one line, so the page stays one page. */
static void pair(struct strbuf *out, int *n, const char *k, const char *v)
{
	strbuf_addstr(out, (*n)++ ? "; " : "");
	strbuf_addf(out, "**%s** ", k);
	md_text(out, v && *v ? v : "unknown");
}

/* Which timeline the numbers come from, from the trace the model read. */
static void backend_text(const struct report_model *m, struct strbuf *sb)
{
	const char *p = m->run.trace_path;

	strbuf_reset(sb);
	if (!p)
		strbuf_addstr(sb, "none (no trace was analysed)");
	else if (strstr(p, bundle_art(BA_NSYS_SQLITE)) || strstr(p, ".nsys-rep") ||
		 strstr(p, ".qdrep"))
		strbuf_addstr(sb, "Nsight Systems (nsys)");
	else if (strstr(p, bundle_art(BA_TRACE_SQLITE)))
		strbuf_addstr(sb, "llmprof's tracer");
	else
		strbuf_addf(sb, "the trace %s", p);
	if (m->run.ncu_path)
		strbuf_addstr(sb, " + Nsight Compute counters");
}

/* GPU, driver, tools, model, backend: one paragraph. */
static void environment(const struct report_model *m, struct strbuf *out)
{
	const struct report_env *e = &m->env;
	const struct report_llm *l = &m->llm;
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	strbuf_addstr(out, "\n## Environment\n\n");
	if (e->device != REPORT_DEVICE_GPU) {
		pair(out, &n, "Device", report_device_label(e->device));
	} else {
		strbuf_addstr(&sb, e->gpu_name ? e->gpu_name : "unknown");
		if (e->sm_count > 0)
			strbuf_addf(&sb, " (%d SMs)", e->sm_count);
		if (m->peaks.device_key)
			strbuf_addf(&sb, ", peak table: %s", m->peaks.device_key);
		pair(out, &n, "GPU", sb.buf);
	}
	strbuf_reset(&sb);
	if (e->driver || e->cuda)
		strbuf_addf(&sb, "%s%s%s", e->driver ? e->driver : "unknown",
			    e->cuda ? ", CUDA " : "", e->cuda ? e->cuda : "");
	pair(out, &n, "Driver", sb.buf);
	strbuf_reset(&sb);
	for (size_t i = 0; i < e->nr_tools; i++)
		strbuf_addf(&sb, "%s%s %s", i ? ", " : "", e->tools[i].name,
			    e->tools[i].version ? e->tools[i].version : "");
	pair(out, &n, "Tools", sb.buf);
	strbuf_reset(&sb);
	if (l->name)
		strbuf_addf(&sb, "%s%s%s", l->name, l->dtype ? ", " : "", l->dtype ? l->dtype : "");
	else
		strbuf_addstr(&sb, "unknown: no model= keys or config.json describe the program, "
				   "so no model FLOPs or bytes");
	pair(out, &n, "Model", sb.buf);
	backend_text(m, &sb);
	pair(out, &n, "Backend", sb.buf);
	strbuf_addstr(out, ".\n");
	strbuf_release(&sb);
}

/* The aggregates table of report.md, as one line. */
static void aggregates(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	int n = 0;

	strbuf_addstr(out, "\n## Aggregates\n\n");
	rtable_aggregates(m, &t);
	for (size_t r = 0; r < t.nrows; r++)
		pair(out, &n, table_cell(&t, r, 0), table_cell(&t, r, 1));
	strbuf_addstr(out, ".\n");
	table_release(&t);
}

static void per_stage(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	strbuf_addstr(out, "\n## Per-Stage Timings\n\n");
	if (!m->nr_stages) {
		if (m->run.trace_path)
			strbuf_addf(out,
				    "No stage ranges were found in the trace (%s says which names "
				    "were looked for).\n",
				    bundle_art(BA_REPORT_MD));
		else
			strbuf_addstr(out,
				      "No trace was analysed, so there are no stage timings.\n");
		return;
	}
	rtable_summary_stages(m, &t);
	md_table(&t, out);
}

/* "- prefill: MFU 2.3% of the datasheet peak (model), 2.9% of the measured
 * ceiling; 23.0 TFLOP/s." 0 when the stage has none of them. */
static int util_line(const struct report_model *m, const struct report_stage *s, struct strbuf *out)
{
	int pre = s->role == REPORT_ROLE_PREFILL;
	struct rnum ds = pre ? s->mfu_datasheet : s->mbu_datasheet;
	struct rnum ms = pre ? s->mfu_measured : s->mbu_measured;
	struct rnum ctr = pre ? s->mfu_counter : s->mbu_counter;
	struct rnum rate = pre ? s->achieved_tflops : s->achieved_gbs;

	strbuf_addstr(out, "- ");
	md_text(out, s->name);
	strbuf_addf(out, ": %s ", pre ? "MFU" : "MBU");
	if (ds.available || ctr.available) {
		fmt_frac_pct(out, ds.available ? ds : ctr);
		strbuf_addf(out, " of the %s peak (%s)",
			    report_peak_estimated(m, pre) ? "ESTIMATED" : "datasheet",
			    ds.available ? "model" : "counter-based");
	} else {
		strbuf_addstr(out, "n/a against the datasheet peak");
	}
	strbuf_addstr(out, ", ");
	fmt_frac_pct(out, ms);
	strbuf_addstr(out, " of the measured ceiling");
	if (rate.available) {
		strbuf_addstr(out, "; ");
		if (pre)
			fmt_tflops(out, rate);
		else
			fmt_gbs(out, rate);
		strbuf_addstr(out, pre ? " TFLOP/s" : " GB/s");
	}
	strbuf_addstr(out, ".\n");
	return ds.available || ctr.available || ms.available;
}

/* Why a judged stage has no MFU/MBU: the first missing input. */
static const char *util_absent(const struct report_model *m)
{
	const struct report_peaks *p = &m->peaks;

	if (!p->datasheet_tflops.available && !p->datasheet_gbs.available &&
	    !p->measured_tflops.available && !p->measured_gbs.available)
		return "no peak is known for this GPU (docs/peaks.md; 'llmprof calibrate' measures "
		       "one)";
	return "no model FLOPs or bytes (the model is unknown: set model= keys or give "
	       "config.json) and no Nsight Compute counters";
}

static void utilisation(const struct report_model *m, struct strbuf *out)
{
	const struct report_peaks *p = &m->peaks;
	int any = 0, lines = 0;

	strbuf_addstr(out, "\n## MFU and MBU\n\n");
	if (m->env.device != REPORT_DEVICE_GPU) {
		strbuf_addstr(out,
			      "None: the workload ran on the CPU, where no GPU peak applies.\n");
		return;
	}
	for (size_t i = 0; i < m->nr_stages; i++) {
		if (m->stages[i].role == REPORT_ROLE_OTHER)
			continue;
		any |= util_line(m, &m->stages[i], out);
		lines++;
	}
	if (!lines) {
		strbuf_addstr(out, "No prefill or decode stage, so no MFU or MBU.\n");
		return;
	}
	if (!any)
		strbuf_addf(out, "- all n/a: %s.\n", util_absent(m));
	strbuf_addstr(out, "- peaks: ");
	fmt_tflops(out, p->datasheet_tflops);
	strbuf_addf(out, " TFLOP/s dense %s%s, ", p->precision ? p->precision : "bf16",
		    p->tflops_estimated ? " (ESTIMATED)" : "");
	fmt_gbs(out, p->datasheet_gbs);
	strbuf_addf(out, " GB/s%s", p->gbs_estimated ? " (ESTIMATED)" : "");
	strbuf_addstr(out, " (");
	md_text(out, p->datasheet_source ? p->datasheet_source : "no source");
	strbuf_addstr(out, "); measured: ");
	if (p->measured_source)
		md_text(out, p->measured_source);
	else
		strbuf_addstr(out, "none ('llmprof calibrate' measures them)");
	strbuf_addstr(out, ".\n");
}

static void top_operators(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	strbuf_addstr(out, "\n## Top Operators\n\n");
	if (!m->nr_ops) {
		strbuf_addstr(out, m->nr_stages
				       ? "No operator ranges: no NVTX range matched "
					 "stages.operator_pattern inside a stage.\n"
				       : "No operator ranges: there are no stages to hold them.\n");
		return;
	}
	/* the operators behind the stage times, also those of CUDA-graph
	 * replays (their ranges ran only at capture) */
	rtable_operators(m, &t, SUMMARY_ROWS);
	md_table(&t, out);
	if (m->nr_ops > SUMMARY_ROWS)
		strbuf_addf(out, "\n%zu more in %s.\n", m->nr_ops - SUMMARY_ROWS,
			    bundle_art(BA_OPERATORS_MD));
}

static void top_kernels(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	strbuf_addstr(out, "\n## Top Kernels\n\n");
	if (!m->nr_kernels) {
		if (m->env.device != REPORT_DEVICE_GPU)
			strbuf_addstr(out, "No GPU kernels: the workload ran on the CPU.\n");
		else if (!m->run.trace_path)
			strbuf_addstr(
			    out, "No kernels: no trace was analysed (see the status above).\n");
		else
			strbuf_addstr(out, "No kernels: the trace holds no GPU kernels.\n");
		return;
	}
	rtable_kernels_top(m, &t, SUMMARY_ROWS);
	md_table(&t, out);
	if (m->nr_kernels > SUMMARY_ROWS)
		strbuf_addf(out, "\n%zu more in %s.\n", m->nr_kernels - SUMMARY_ROWS,
			    bundle_art(BA_KERNELS_MD));
}

/* One of the summary's top findings: what it found, its estimated saving,
 * what to do. */
static void summary_finding(struct strbuf *out, size_t n, const struct report_finding *f)
{
	strbuf_addf(out, "%zu. **%s** %s", n, finding_severity_name(f->severity), f->text);
	if (f->saving_ms.available) {
		strbuf_addstr(out, " **Estimated saving: up to ");
		fmt_ms(out, f->saving_ms);
		strbuf_addf(out, " ms per %s", f->saving_unit ? f->saving_unit : "run");
		if (f->saving_run_ms.available) {
			strbuf_addstr(out, "** (");
			fmt_ms(out, f->saving_run_ms);
			strbuf_addstr(out, " ms in this run).");
		} else {
			strbuf_addstr(out, ".**");
		}
	}
	if (f->recommendation)
		strbuf_addf(out, " Do: %s", f->recommendation);
	strbuf_addch(out, '\n');
}

/* "the first 3 of 5 findings", "the 2 findings", "the finding": never
 * "the first 1". */
static void report_summary_findings_phrase(size_t n, size_t shown, struct strbuf *out)
{
	const char *report = bundle_art(BA_REPORT_MD);

	if (n == 1)
		strbuf_addf(out, "the one finding of %s", report);
	else if (shown >= n)
		strbuf_addf(out, "all %zu findings of %s, most severe first", n, report);
	else
		strbuf_addf(out,
			    "the first %zu of the %zu findings in %s, most severe first and "
			    "then by the time they would save",
			    shown, n, report);
}

static void recommendations(const struct report_model *m, struct strbuf *out)
{
	size_t shown = m->nr_findings < REPORT_SUMMARY_FINDINGS ? m->nr_findings
								: (size_t)REPORT_SUMMARY_FINDINGS;

	strbuf_addstr(out, "\n## Recommendations\n\n");
	if (!m->nr_findings) {
		if (!report_model_complete(m))
			strbuf_addstr(out, "None: the data the findings need is missing (see the "
					   "status above).\n");
		else if (!m->nr_stages && !m->nr_kernels)
			strbuf_addstr(out, "None: nothing was measured to judge (no stages, no "
					   "kernels).\n");
		else
			strbuf_addstr(out, "None: no bottleneck crossed the thresholds in "
					   "docs/report.md.\n");
		return;
	}
	strbuf_addstr(out, "From ");
	report_summary_findings_phrase(m->nr_findings, shown, out);
	strbuf_addstr(out, ":\n\n");
	for (size_t i = 0; i < shown; i++)
		summary_finding(out, i + 1, &m->findings[i]);
}

void report_render_summary_md(const struct report_model *m, struct strbuf *out)
{
	strbuf_addstr(out, "# Stakeholder Summary\n\n");
	status_quote(m, out);
	device_quote(m, out);
	strbuf_addstr(out, "**Executive summary.** ");
	{
		struct strbuf h = STRBUF_INIT;
		report_headline(m, &h);
		md_text(out, h.buf);
		strbuf_release(&h);
	}
	if (m->nr_findings == 1)
		strbuf_addstr(out, " 1 finding: under Recommendations.");
	else if (m->nr_findings)
		strbuf_addf(
		    out, " %zu findings: the first %zu under Recommendations.", m->nr_findings,
		    m->nr_findings < REPORT_SUMMARY_FINDINGS ? m->nr_findings
							     : (size_t)REPORT_SUMMARY_FINDINGS);
	strbuf_addch(out, '\n');

	environment(m, out);
	aggregates(m, out);
	per_stage(m, out);
	utilisation(m, out);
	top_operators(m, out);
	top_kernels(m, out);
	md_ranks_section(m, out, 0);
	if (m->ranks.nr < 2 && report_nccl_shown(m)) {
		strbuf_addstr(out, "\n## Collectives\n\n");
		report_nccl_summary(m, out);
	}
	recommendations(m, out);

	strbuf_addf(
	    out,
	    "\n## Glossary\n\n"
	    "- **TTFT** (time to first token): prefill time per request, until its GPU work ends.\n"
	    "- **TPOT** (time per output token): decode wall time, from the first step's start "
	    "to the last step's end with the host's gaps, per step; the GPU span of a step "
	    "alone is in %s.\n"
	    "- **MFU** (model FLOPs utilisation): FLOPs per second / the GPU's peak; "
	    "prefill is judged by it.\n"
	    "- **MBU** (model bandwidth utilisation): DRAM bytes per second / peak bandwidth; "
	    "decode is judged by it. *Model*: FLOPs and bytes from the model's shape; "
	    "*counter-based*: Nsight Compute's counters, scaled to the whole stage by their "
	    "coverage.\n"
	    "- **More**: every finding, the decode-step distribution and the trust report in "
	    "%s; every kernel in %s; every operator in %s.\n",
	    bundle_art(BA_REPORT_MD), bundle_art(BA_REPORT_MD), bundle_art(BA_KERNELS_MD),
	    bundle_art(BA_OPERATORS_MD));
}
