/* render_md.c: the Markdown reports (kernels.md, operators.md, report.md)
 * rendered from the model (stakeholder_summary.md: summary_md.c); the
 * escapers are core/md.h. */
#include <stddef.h>
#include <string.h>

#include "analysis/ncu_kernel.h"
#include "bundle/layout.h"
#include "core/util.h"

#include "model/format.h"
#include "report/report.h"
#include "report/model_tables.h"
#include "report/render_md_priv.h"
#include "core/md.h"
#include "bundle/layout.h"
#include "core/banned.h"

void md_table(struct table *t, struct strbuf *out)
{
	table_write_md(t, out);
	table_release(t);
}

/* "## Per-Stage Timings": the stage table and the decode-step
 * distribution, introduced by caption (may be ""). */
static void md_stage_section(const struct report_model *m, struct strbuf *out, const char *caption)
{
	struct table t;

	strbuf_addstr(out, "\n## Per-Stage Timings\n\n");
	if (!m->nr_stages) {
		strbuf_addstr(out, "No stage ranges were found in the trace.\n");
		return;
	}
	rtable_stages(m, &t);
	md_table(&t, out);
	rtable_decode_steps(m, &t);
	if (t.nrows) {
		strbuf_addch(out, '\n');
		strbuf_addstr(out, caption);
		table_write_md(&t, out);
	}
	table_release(&t);
}

/* "## Where the CPU time goes": one table per stage, only when the trace
 * records every CUDA API call. */
static void md_cpu_time_section(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	int head = 0;

	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];

		if (!s->api_ms.available)
			continue;
		if (!head++)
			strbuf_addstr(
			    out, "\n## Where the CPU time goes\n\n"
				 "CPU time of each stage's NVTX ranges on their threads: inside "
				 "CUDA API calls (the longest by name; a call made inside another "
				 "counts once, for the outer one) and outside CUDA (host code: "
				 "Python, the framework).\n");
		strbuf_addstr(out, "\n");
		md_text(out, s->name ? s->name : "stage");
		strbuf_addstr(out, ": ");
		fmt_ms(out, s->cpu_ms);
		strbuf_addstr(out, " ms of CPU time\n\n");
		rtable_cpu_time(s, &t);
		md_table(&t, out);
	}
}

/* "## CPU samples": per stage with samples, its categories and functions
 * (docs/report.md "Where the CPU time goes"). */
static void md_cpu_samples_section(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	int head = 0;

	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];
		struct strbuf cap = STRBUF_INIT;

		if (!s->cpu_samples)
			continue;
		if (!head++)
			strbuf_addstr(
			    out,
			    "\n## CPU samples\n\n"
			    "Stacks of the threads that launch GPU work, sampled every period "
			    "of their CPU time (pipeline.trace.cpu_sample_hz) while a stage's "
			    "range was open: where the CPU was, by category and by function. "
			    "A sample counts for its innermost frame outside libc, the loader, "
			    "the vDSO and the tracer (a system call the CUDA driver makes is "
			    "the driver's), named by the first function of that library with "
			    "a symbol, up to 16 frames out. Samples x period estimate CPU "
			    "time; a thread that waits uses none. Python code shows as the "
			    "interpreter.\n");
		if (head == 1 && report_cpu_sampler_line(m, &cap)) {
			strbuf_addch(out, '\n');
			md_text(out, cap.buf);
			strbuf_addch(out, '\n');
			strbuf_reset(&cap);
		}
		report_cpu_samples_caption(s, &cap);
		strbuf_addch(out, '\n');
		md_text(out, cap.buf);
		strbuf_addstr(out, "\n\n");
		strbuf_release(&cap);
		rtable_cpu_sample_cats(s, &t);
		md_table(&t, out);
		strbuf_addch(out, '\n');
		rtable_cpu_sample_funcs(s, &t);
		md_table(&t, out);
	}
}

/* "## Ranks" (several processes only): who each process is and its
 * headline numbers, the cross-rank spread, and with stages each rank's
 * stage table. */
void md_ranks_section(const struct report_model *m, struct strbuf *out, int stages)
{
	struct table t;

	if (m->ranks.nr < 2)
		return;
	strbuf_addstr(out, "\n## Ranks\n\n");
	report_ranks_intro(m, out);
	strbuf_addch(out, '\n');
	rtable_ranks(m, &t);
	md_table(&t, out);
	rtable_rank_spread(m, &t);
	if (t.nrows) {
		strbuf_addch(out, '\n');
		table_write_md(&t, out);
	}
	table_release(&t);
	if (!stages) {
		/* the summary: collectives in one paragraph, report.md has the tables */
		if (report_coll_shown(m)) {
			strbuf_addch(out, '\n');
			report_coll_summary(m, out);
			report_nccl_summary(m, out);
		}
		return;
	}
	rtable_rank_stages(m, &t);
	if (t.nrows) {
		strbuf_addstr(out, "\nPer-rank stages:\n\n");
		table_write_md(&t, out);
		if (m->ranks.util_basis) {
			strbuf_addch(out, '\n');
			report_ranks_util_basis(m, out);
		}
	}
	table_release(&t);
}

void status_quote(const struct report_model *m, struct strbuf *out)
{
	if (report_model_complete(m))
		return;
	strbuf_addstr(out, "> ");
	{
		struct strbuf s = STRBUF_INIT;
		report_status_line(m, &s);
		md_text(out, s.buf);
		strbuf_release(&s);
	}
	strbuf_addstr(out, "\n\n");
}

/* The CPU path, said in every report (the built-in workload ran without a
 * GPU on purpose): no kernels is then expected, not a failure. */
void device_quote(const struct report_model *m, struct strbuf *out)
{
	const char *dev = report_device_label(m->env.device);

	if (!dev)
		return;
	strbuf_addf(out,
		    "> Ran on the %s on purpose: there are no GPU kernels; times are CPU "
		    "times.\n\n",
		    dev);
}

static const struct report_step *step_named(const struct report_model *m, const char *name)
{
	for (size_t i = 0; i < m->run.nr_steps; i++)
		if (!strcmp(m->run.steps[i].name, name))
			return &m->run.steps[i];
	return NULL;
}

/* Why kernels have no counters, as a sentence fragment. */
static void counters_absent_reason(const struct report_model *m, struct strbuf *out)
{
	const struct report_step *s = step_named(m, "ncu");

	if (s && s->status != STEP_OK)
		strbuf_addf(out, "the ncu step %s (%s)", step_state_name(s->status),
			    s->reason ? s->reason : "no reason recorded");
	else if (!m->sel.available)
		strbuf_addstr(out, "no kernel selection was made");
	else
		strbuf_addstr(out, "ncu measured none of the selected kernels");
}

static void counters_line(const struct report_model *m, struct strbuf *out)
{
	size_t with = 0;
	uint64_t ns = 0, total = 0;

	for (size_t i = 0; i < m->nr_kernels; i++) {
		total += m->kernels[i].total_ns;
		if (m->kernels[i].c->profiled) {
			with++;
			ns += m->kernels[i].total_ns;
		}
	}
	if (with) {
		strbuf_addf(out,
			    "Counters: %zu of %zu kernels have Nsight Compute counters, covering ",
			    with, m->nr_kernels);
		fmt_frac_pct(out, rnum_of(total ? (double)ns / (double)total : 0));
		strbuf_addstr(out, " of GPU kernel time; the other rows show n/a.\n\n");
		return;
	}
	strbuf_addstr(out, "Counters: none, because ");
	{
		struct strbuf r = STRBUF_INIT;
		counters_absent_reason(m, &r);
		md_text(out, r.buf);
		strbuf_release(&r);
	}
	strbuf_addstr(out, "; the counter columns show n/a.\n\n");
}

/* ---- kernels.md of an Nsight Compute export alone (m->ncu) ----
 * Sorted by total GPU time with the columns Kernel, Launch, Calls, Total
 * (ms), Mean (ms), % of GPU time, then the counter columns the export
 * allows, followed by a numbered list of the full kernel names. When rows
 * are capped, a last row sums the rest, so the Calls and Total (ms)
 * columns always add up to the export's totals. */

struct counter_col {
	const char *header;
	int decimals;
	size_t off; /* offset of a struct rnum in struct report_counters */
};

static const struct counter_col counter_cols[] = {
    {"Compute SOL %", 1, offsetof(struct report_counters, sm_sol_pct)},
    {"Memory SOL %", 1, offsetof(struct report_counters, mem_sol_pct)},
    {"Achieved occupancy %", 1, offsetof(struct report_counters, occupancy_pct)},
    {"AI (FLOP/byte)", 2, offsetof(struct report_counters, ai)},
};

static struct rnum cfield(const struct report_kernel *k, size_t off)
{
	return *(const struct rnum *)((const char *)k->c + off);
}

/* A time in ns as ms with 6 decimals (1 ns, so the column adds up), or
 * "n/a". */
static void add_ms(struct table *t, struct rnum ns)
{
	if (ns.available)
		table_addf(t, "%.6f", ns.v / 1e6);
	else
		table_add_str(t, "n/a");
}

static void ncu_kernel_row(const struct report_model *m, size_t j, const int *have, int have_bound,
			   struct table *t)
{
	const struct report_kernel *k = &m->kernels[j];
	struct strbuf sb = STRBUF_INIT;

	table_addf(t, "%zu", j + 1);
	table_add_str(t, k->short_name);
	if (k->grid[0] || k->block[0])
		table_addf(t, "(%d,%d,%d) x (%d,%d,%d)", k->grid[0], k->grid[1], k->grid[2],
			   k->block[0], k->block[1], k->block[2]);
	else
		table_add_str(t, "n/a");
	table_addf(t, "%zu", (size_t)k->calls);
	add_ms(t, k->ncu_ns);
	add_ms(t, k->ncu_ns.available ? rnum_of(k->ncu_ns.v / (double)k->calls) : RNUM_NONE);
	fmt_fixed(&sb,
		  k->ncu_ns.available && m->ncu.total_ns > 0
		      ? rnum_of(100.0 * k->ncu_ns.v / m->ncu.total_ns)
		      : RNUM_NONE,
		  2);
	table_add_sb(t, &sb);
	for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++) {
		if (!have[c])
			continue;
		fmt_fixed(&sb, cfield(k, counter_cols[c].off), counter_cols[c].decimals);
		table_add_sb(t, &sb);
	}
	if (have_bound)
		table_add_str(t, kernel_bound_name(k->c->bound));
	strbuf_release(&sb);
}

/* The last row: the kernels past the cap, summed. */
static void ncu_rest_row(const struct report_model *m, size_t shown, const int *have,
			 int have_bound, struct table *t)
{
	size_t calls = 0;
	double total = 0;

	for (size_t j = shown; j < m->nr_kernels; j++) {
		calls += m->kernels[j].calls;
		total += m->kernels[j].ncu_ns.available ? m->kernels[j].ncu_ns.v : 0;
	}
	table_add_null(t);
	table_addf(t, "(%zu other kernels)", m->nr_kernels - shown);
	table_add_null(t);
	table_addf(t, "%zu", calls);
	add_ms(t, rnum_of(total));
	add_ms(t, calls ? rnum_of(total / (double)calls) : RNUM_NONE);
	table_addf(t, "%.2f", m->ncu.total_ns > 0 ? 100.0 * total / m->ncu.total_ns : 0.0);
	for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
		if (have[c])
			table_add_null(t);
	if (have_bound)
		table_add_null(t);
}

/* The columns: the fixed ones, then the counters the export has. */
static void ncu_kernels_header(const int *have, int have_bound, struct table *t)
{
	static const char *const fixed[] = {
	    "#",	  "Kernel",    "Launch (grid x block)", "Calls",
	    "Total (ms)", "Mean (ms)", "% of GPU time"};
	const char *names[ARRAY_SIZE(fixed) + ARRAY_SIZE(counter_cols) + 1];
	char spec[ARRAY_SIZE(names) + 1] = "rllrrrr";
	size_t n = ARRAY_SIZE(fixed);

	_Static_assert(ARRAY_SIZE(fixed) == sizeof("rllrrrr") - 1, "one kind per column");
	memcpy(names, fixed, sizeof(fixed));
	for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
		if (have[c]) {
			spec[n] = TABLE_NUM;
			names[n++] = counter_cols[c].header;
		}
	if (have_bound) {
		spec[n] = TABLE_TEXT;
		names[n++] = "Bound";
	}
	spec[n] = '\0';
	table_init_names(t, spec, names);
}

static void ncu_kernels_md(const struct report_model *m, struct strbuf *out)
{
	int have[ARRAY_SIZE(counter_cols)] = {0}, have_bound = 0;
	size_t shown = m->nr_kernels, max_rows = m->ncu.max_rows;
	struct table t;

	for (size_t j = 0; j < m->nr_kernels; j++) {
		for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
			have[c] |= cfield(&m->kernels[j], counter_cols[c].off).available;
		have_bound |= m->kernels[j].c->bound != BOUND_UNKNOWN;
	}
	if (max_rows && m->nr_kernels > max_rows)
		shown = max_rows > 1 ? max_rows - 1 : 1;

	strbuf_addstr(out, "# Kernels\n\n");
	strbuf_addf(out, "Source: %s  \n", m->ncu.source ? m->ncu.source : "?");
	strbuf_addf(out,
		    "%zu launches of %zu distinct kernels (name + launch configuration), "
		    "%.6f ms of GPU time in total.",
		    (size_t)m->ncu.launches, m->nr_kernels, m->ncu.total_ns / 1e6);
	if (m->ncu.missing_duration)
		strbuf_addf(out,
			    " %zu results had no duration (gpu__time_duration.sum) and "
			    "count as calls only.",
			    (size_t)m->ncu.missing_duration);
	strbuf_addstr(out, "\n\n");
	if (!m->nr_kernels) {
		strbuf_addstr(out, "No kernels in this export.\n");
		return;
	}
	ncu_kernels_header(have, have_bound, &t);
	for (size_t j = 0; j < shown; j++)
		ncu_kernel_row(m, j, have, have_bound, &t);
	if (shown < m->nr_kernels)
		ncu_rest_row(m, shown, have, have_bound, &t);
	md_table(&t, out);

	strbuf_addstr(out, "\nKernel names:\n\n");
	for (size_t j = 0; j < shown; j++) {
		strbuf_addf(out, "%zu. ", j + 1);
		md_code_plain(out, m->kernels[j].full_name);
		strbuf_addch(out, '\n');
	}
	if (have_bound)
		strbuf_addf(out,
			    "\nBound: compute when Compute SOL >= %.0f %% and >= Memory SOL; "
			    "memory when Memory SOL >= %.0f %% and above Compute SOL; latency "
			    "when both are below %.0f %% (docs/ncu.md).\n",
			    NCU_BOUND_THRESHOLD_PCT, NCU_BOUND_THRESHOLD_PCT,
			    NCU_BOUND_THRESHOLD_PCT);
}

/* "## Counter results not joined" (nothing when every result joined): the
 * first top of them (0 = all), and how many more kernels.md lists. */
static void unjoined_md(const struct report_model *m, struct strbuf *out, size_t top)
{
	const struct report_counter_join *cj = &m->run.cjoin;
	struct table t;

	if (!cj->nr_unjoined)
		return;
	strbuf_addf(out,
		    "\n## Counter results not joined\n\n%zu of %zu Nsight Compute results "
		    "matched no kernel of the trace (by launch index, mangled name, or name "
		    "with grid and block: docs/ncu.md), so their counters are in no row "
		    "above.\n\n",
		    cj->nr_unjoined, cj->results);
	rtable_unjoined(m, &t, top);
	md_table(&t, out);
	if (top && cj->nr_unjoined > top)
		strbuf_addf(out, "\n%zu more in %s.\n", cj->nr_unjoined - top,
			    bundle_art(BA_KERNELS_MD));
}

/* The one kernels.md writer: a trace's kernels (with counters joined when
 * there are some), or an Nsight Compute export's alone (m->ncu). */
void report_render_kernels_md(const struct report_model *m, struct strbuf *out)
{
	struct table t;
	uint64_t total = 0, calls = 0;
	size_t shown = report_rows_shown(m->table_rows, m->nr_kernels);

	if (m->ncu.available) {
		ncu_kernels_md(m, out);
		return;
	}
	strbuf_addstr(out, "# Kernels\n\n");
	status_quote(m, out);
	device_quote(m, out);
	if (!m->nr_kernels) {
		strbuf_addstr(out, "No kernels were captured.\n");
		return;
	}
	for (size_t i = 0; i < m->nr_kernels; i++) {
		total += m->kernels[i].total_ns;
		calls += m->kernels[i].calls;
	}
	strbuf_addf(out, "%zu distinct kernels, %llu launches, ", m->nr_kernels,
		    (unsigned long long)calls);
	fmt_ns_as_ms(out, (double)total);
	strbuf_addstr(out, " ms of GPU kernel time, sorted by total time. SOL % and occupancy "
			   "are Nsight Compute's percentages of the sustained peak; AI is FLOPs "
			   "per byte of DRAM traffic.\n\n");
	counters_line(m, out);
	if (shown < m->nr_kernels)
		strbuf_addf(
		    out,
		    "The top %zu kernels; the last row sums the other %zu (run.report_rows). "
		    "%s lists every kernel.\n\n",
		    shown, m->nr_kernels - shown, bundle_art(BA_KERNELS_TSV));
	rtable_kernels_full(m, &t);
	md_table(&t, out);
	strbuf_addstr(out, "\n<details>\n<summary>Full kernel names</summary>\n\n");
	for (size_t i = 0; i < shown; i++) {
		strbuf_addf(out, "%zu. ", i + 1);
		md_code_plain(out, m->kernels[i].full_name);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "\n</details>\n");
	if (m->ranks.nr > 1) {
		strbuf_addstr(out, "\n## Per Rank\n\nGPU time of the top kernels in each process "
				   "(the table above sums all processes).\n\n");
		rtable_rank_kernels(m, &t, REPORT_SUMMARY_TOP);
		md_table(&t, out);
	}
	unjoined_md(m, out, 0);
}

void report_render_operators_md(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	strbuf_addstr(out, "# Operators\n\n");
	status_quote(m, out);
	device_quote(m, out);
	if (!m->nr_ops) {
		strbuf_addstr(out, m->nr_stages
				       ? "No operator ranges were captured (no NVTX range matched "
					 "stages.operator_pattern inside a stage).\n"
				       : "No operator ranges: operators are counted inside the "
					 "stages, and no stage range was found.\n");
		return;
	}
	{
		int gpu = 0;

		for (size_t i = 0; i < m->nr_ops && !gpu; i++)
			gpu = m->ops[i].gpu_ms.available;
		strbuf_addf(out, "%zu operator range%s (NVTX ranges inside the stages), ",
			    m->nr_ops, m->nr_ops == 1 ? "" : "s");
		if (!gpu)
			strbuf_addf(out, "sorted by CPU time: %s, so the GPU columns are n/a.\n\n",
				    m->env.device != REPORT_DEVICE_GPU
					? "the workload ran on the CPU"
					: "no kernel of the trace ran inside them");
		else
			strbuf_addstr(
			    out, "sorted by GPU time. GPU time is the time of the kernels each "
				 "range launched itself; GPU incl. nested adds the kernels of "
				 "the operator ranges inside it (a layer around attn and mlp); "
				 "share of stage divides GPU time by the stage's GPU span.\n\n");
	}
	if (m->nr_op_classes) {
		strbuf_addstr(out,
			      "## By module class\n\nThe operators of one class (their NVTX "
			      "category: a PyTorch module's class) summed per stage, every layer "
			      "together; GPU incl. nested counts each kernel once, also where a "
			      "module nests in one of its own class.\n\n");
		rtable_op_classes(m, &t, 0);
		md_table(&t, out);
		strbuf_addstr(out, "\n## By module path\n\n");
	}
	rtable_operators(m, &t, 0);
	md_table(&t, out);
	if (m->ranks.nr > 1) {
		strbuf_addstr(out, "\n## Per Rank\n\nGPU time of the top operators in each "
				   "process (the table above sums all processes).\n\n");
		rtable_rank_operators(m, &t, REPORT_SUMMARY_TOP);
		md_table(&t, out);
	}
}

static void findings_md(const struct report_model *m, struct strbuf *out, int with_rec)
{
	if (!m->nr_findings) {
		strbuf_addstr(out, "No rule in docs/report.md fired on this data.\n");
		return;
	}
	for (size_t i = 0; i < m->nr_findings; i++) {
		const struct report_finding *f = &m->findings[i];

		strbuf_addf(out, "- **%s** `%s`: %s", finding_severity_name(f->severity), f->code,
			    f->text);
		if (with_rec && f->recommendation)
			strbuf_addf(out, " Recommendation: %s", f->recommendation);
		strbuf_addch(out, '\n');
	}
}

/* "## Trust": what could make the numbers wrong (docs/report.md, "Trust"). */
static void trust_md(const struct report_model *m, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	if (!m->trust.checked)
		return;
	strbuf_addstr(out, "\n## Trust\n\n");
	if (!m->trust.nr) {
		strbuf_addstr(out, REPORT_TRUST_NONE "\n");
	} else {
		rtable_trust(m, &t);
		md_table(&t, out);
	}
	if (report_tracer_cost_line(m, &sb)) {
		strbuf_addch(out, '\n');
		md_text(out, sb.buf);
		strbuf_addch(out, '\n');
	}
	strbuf_reset(&sb);
	if (report_pytorch_line(m, &sb)) {
		strbuf_addch(out, '\n');
		md_text(out, sb.buf);
		strbuf_addch(out, '\n');
	}
	strbuf_release(&sb);
}

static void utilization_md(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	if (!m->nr_stages) {
		strbuf_addstr(out, "No stages, so no MFU or MBU.\n\n");
	} else {
		strbuf_addstr(out,
			      "MFU = model FLOPs / stage time / peak; MBU = model bytes / stage "
			      "time / peak bandwidth. Prefill is judged by MFU, decode by "
			      "MBU. Stage time is the GPU span of the stage.\n\n");
		rtable_utilization(m, &t);
		md_table(&t, out);
		strbuf_addch(out, '\n');
	}
	rtable_peaks(m, &t);
	md_table(&t, out);
	for (size_t i = 0; i < m->peaks.nr_notes; i++) {
		strbuf_addstr(out, i ? "" : "\n");
		strbuf_addstr(out, "- Note: ");
		md_text(out, m->peaks.notes[i]);
		strbuf_addch(out, '\n');
	}
	strbuf_addch(out, '\n');
}

void report_render_report_md(const struct report_model *m, struct strbuf *out)
{
	const struct report_step *f = report_model_failed_step(m);
	struct table t;

	if (report_model_complete(m))
		strbuf_addstr(out, "# Profiling report\n\n");
	else if (f)
		strbuf_addf(out, "# Profiling report: INCOMPLETE (step '%s' failed)\n\n", f->name);
	else if (report_model_interrupted_step(m))
		strbuf_addf(out, "# Profiling report: INCOMPLETE (step '%s' interrupted)\n\n",
			    report_model_interrupted_step(m)->name);
	else if (report_model_finished(m) && report_model_gap_step(m))
		strbuf_addf(out, "# Profiling report: INCOMPLETE (step '%s' skipped)\n\n",
			    report_model_gap_step(m)->name);
	else if (report_model_finished(m))
		strbuf_addf(out,
			    "# Profiling report: INCOMPLETE (%zu of %zu counter results "
			    "unmatched)\n\n",
			    report_model_unjoined(m), m->run.cjoin.results);
	else
		strbuf_addf(out, "# Profiling report: INCOMPLETE (%s)\n\n",
			    m->run.state ? m->run.state : "unfinished");
	{
		struct strbuf s = STRBUF_INIT;
		report_status_line(m, &s);
		md_text(out, s.buf);
		strbuf_release(&s);
	}
	strbuf_addstr(out, "\n\n## Run\n\n");
	table_init(&t, "ll", "Key", "Value", NULL);
	table_add_str(&t, "Run id");
	table_add_str(&t, m->run.run_id ? m->run.run_id : "(loose files)");
	table_add_str(&t, "State");
	table_add_str(&t, report_model_state(m));
	if (m->run.mode) {
		table_add_str(&t, "Mode");
		table_add_str(&t, m->run.mode);
	}
	if (m->run.started_at) {
		table_add_str(&t, "Started");
		table_add_str(&t, m->run.started_at);
	}
	if (m->run.trace_path) {
		table_add_str(&t, "Trace");
		table_add_str(&t, m->run.trace_path);
	}
	if (m->run.ncu_path) {
		table_add_str(&t, "Counters");
		table_add_str(&t, m->run.ncu_path);
	}
	md_table(&t, out);
	if (m->run.nr_steps) {
		strbuf_addch(out, '\n');
		rtable_steps(m, &t);
		md_table(&t, out);
	}

	strbuf_addstr(out, "\n## Environment\n\n");
	rtable_environment(m, &t);
	md_table(&t, out);

	md_stage_section(m, out,
			 "Decode steps: the wall time per step runs from the first step's start to "
			 "the last step's end, host gaps included, over the steps (= TPOT); a "
			 "step's GPU span runs from its first kernel's start to its last kernel's "
			 "end:\n\n");
	md_cpu_time_section(m, out);
	md_cpu_samples_section(m, out);
	md_ranks_section(m, out, 1);
	report_coll_md(m, out);
	strbuf_addf(out, "\n![Stage timeline](%s)\n", bundle_art(BA_CHART_TIMELINE));

	strbuf_addstr(out, "\n## Aggregates\n\n");
	rtable_aggregates(m, &t);
	md_table(&t, out);

	strbuf_addstr(out, "\n## MFU and MBU\n\n");
	utilization_md(m, out);
	strbuf_addf(out, "![Roofline](%s)\n\n![Top kernels](%s)\n\n", bundle_art(BA_CHART_ROOFLINE),
		    bundle_art(BA_CHART_KERNELS));

	strbuf_addstr(out, "## Kernel Selection\n\n");
	if (!m->sel.available) {
		strbuf_addstr(out, "No kernel selection was made.\n");
	} else {
		rtable_selection(m, &t);
		md_table(&t, out);
		for (size_t i = 0; i < m->sel.nr_reasons; i++) {
			strbuf_addstr(out, i ? "- " : "\n- ");
			md_text(out, m->sel.reasons[i]);
			strbuf_addch(out, '\n');
		}
	}
	unjoined_md(m, out, REPORT_SUMMARY_TOP);

	strbuf_addstr(out, "\n## Findings\n\n");
	findings_md(m, out, 1);
	trust_md(m, out);

	strbuf_addf(out,
		    "\n## Files\n\n"
		    "- %s: every kernel with timings and counters\n"
		    "- %s: operator ranges\n"
		    "- %s: one-page summary\n"
		    "- %s: all numbers above (docs/metrics-json.md)\n"
		    "- %s: this report with charts\n"
		    "- %s, %s, %s\n",
		    bundle_art(BA_KERNELS_MD), bundle_art(BA_OPERATORS_MD),
		    bundle_art(BA_SUMMARY_MD), bundle_art(BA_METRICS_JSON),
		    bundle_art(BA_REPORT_HTML), bundle_art(BA_CHART_TIMELINE),
		    bundle_art(BA_CHART_KERNELS), bundle_art(BA_CHART_ROOFLINE));
}

void report_headline(const struct report_model *m, struct strbuf *out)
{
	const struct report_llm *l = &m->llm;
	const struct report_stage *pre = report_model_stage_by_role(m, REPORT_ROLE_PREFILL);
	const struct report_stage *dec = report_model_stage_by_role(m, REPORT_ROLE_DECODE);
	struct strbuf s = STRBUF_INIT;
	int parts = 0;

	strbuf_addstr(&s, l->name ? l->name : "The workload");
	if (l->dtype || l->batch_size > 0) {
		strbuf_addstr(&s, " (");
		if (l->dtype)
			strbuf_addstr(&s, l->dtype);
		if (l->batch_size > 0)
			strbuf_addf(&s, "%sbatch %d", l->dtype ? ", " : "", l->batch_size);
		if (l->prompt_len > 0)
			strbuf_addf(&s, ", %d-token prompt", l->prompt_len);
		if (l->new_tokens > 0)
			strbuf_addf(&s, ", %d new tokens", l->new_tokens);
		strbuf_addch(&s, ')');
	}
	if (m->env.device != REPORT_DEVICE_GPU)
		strbuf_addf(&s, " on the %s", report_device_label(m->env.device));
	else
		strbuf_addf(&s, " on %s", m->env.gpu_name ? m->env.gpu_name : "an unknown GPU");
	if (m->agg.ttft_ms.available) {
		strbuf_addstr(&s, parts++ ? ", " : ": ");
		strbuf_addstr(&s, "TTFT ");
		fmt_ms(&s, m->agg.ttft_ms);
		strbuf_addstr(&s, " ms");
	}
	if (m->agg.tpot_ms.available) {
		strbuf_addstr(&s, parts++ ? ", " : ": ");
		strbuf_addstr(&s, "TPOT ");
		fmt_ms(&s, m->agg.tpot_ms);
		strbuf_addstr(&s, " ms");
	}
	if (m->agg.tokens_per_s.available) {
		strbuf_addstr(&s, parts++ ? ", " : ": ");
		fmt_fixed(&s, m->agg.tokens_per_s, 1);
		strbuf_addstr(&s, " tokens/s");
	}
	strbuf_addstr(&s, ".");
	if (dec && dec->mbu_datasheet.available) {
		int pre_too = pre && pre->mfu_datasheet.available;

		strbuf_addstr(&s, " Decode reaches ");
		fmt_frac_pct(&s, dec->mbu_datasheet);
		strbuf_addstr(&s, " MBU");
		if (pre_too) {
			strbuf_addstr(&s, ", prefill ");
			fmt_frac_pct(&s, pre->mfu_datasheet);
			strbuf_addstr(&s, " MFU");
		}
		strbuf_addstr(
		    &s, report_peak_estimated(m, 0) || (pre_too && report_peak_estimated(m, 1))
			    ? " of peaks llmprof ESTIMATED (no datasheet figure: see Trust)."
			    : " of datasheet peaks.");
	} else if (pre && pre->mfu_datasheet.available) {
		strbuf_addstr(&s, " Prefill reaches ");
		fmt_frac_pct(&s, pre->mfu_datasheet);
		strbuf_addstr(&s, report_peak_estimated(m, 1)
				      ? " MFU of a peak llmprof ESTIMATED (no datasheet figure: "
					"see Trust)."
				      : " MFU of the datasheet peak.");
	} else if ((dec && dec->mbu_counter.available) || (pre && pre->mfu_counter.available)) {
		/* the model is unknown: the counters' own FLOPs and bytes */
		int both = dec && dec->mbu_counter.available && pre && pre->mfu_counter.available;

		strbuf_addstr(&s, " ");
		if (dec && dec->mbu_counter.available) {
			strbuf_addstr(&s, "Decode reaches ");
			fmt_frac_pct(&s, dec->mbu_counter);
			strbuf_addstr(&s, " MBU");
		}
		if (pre && pre->mfu_counter.available) {
			strbuf_addstr(&s, both ? ", prefill " : "Prefill reaches ");
			fmt_frac_pct(&s, pre->mfu_counter);
			strbuf_addstr(&s, " MFU");
		}
		strbuf_addstr(&s,
			      report_peak_estimated(m, 0) || report_peak_estimated(m, 1)
				  ? " of peaks llmprof ESTIMATED (counter-based: the model is "
				    "unknown; no datasheet figure: see Trust)."
				  : " of datasheet peaks (counter-based: the model is unknown).");
	}
	strbuf_addstr(out, s.buf);
	strbuf_release(&s);
}
