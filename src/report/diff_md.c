/* diff_md.c: diff.md and diff.json of `llmprof diff` (see report/diff.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/md.h"
#include "report/diff.h"
#include "core/banned.h"

#define TOP_KERNELS 20
#define TOP_OPS 15

const char *diff_match_name(enum diff_match m)
{
	static const char *const names[] = {"mangled", "name", "family", "operator", "new", "gone"};

	return names[m];
}

const char *diff_basis_name(enum diff_basis b)
{
	static const char *const names[] = {"none", "decode steps", "prefill instances", "runs"};

	return names[b];
}

void diff_num(struct strbuf *sb, struct rnum r, int sign)
{
	if (!r.available)
		strbuf_addstr(sb, "n/a");
	else
		strbuf_addf(sb, sign ? "%+.3f" : "%.3f", r.v);
}

static void md_metrics(const struct diff *d, struct strbuf *o)
{
	strbuf_addstr(o, "## Metrics\n\n"
			 "| metric | A | B | change | change % | 95 % interval (%) | basis | "
			 "verdict |\n|---|---:|---:|---:|---:|---|---|---|\n");
	for (size_t i = 0; i < d->nr_metrics; i++) {
		const struct diff_metric *m = &d->metrics[i];

		strbuf_addf(o, "| %s (%s) | ", m->label, m->unit);
		diff_num(o, m->a, 0);
		strbuf_addstr(o, " | ");
		diff_num(o, m->b, 0);
		strbuf_addstr(o, " | ");
		diff_num(o, m->delta, 1);
		strbuf_addstr(o, " | ");
		if (m->pct.available)
			strbuf_addf(o, "%+.2f %%", m->pct.v);
		else
			strbuf_addstr(o, "n/a");
		if (m->lo_pct.available)
			strbuf_addf(o, " | [%+.2f, %+.2f] | %s (%zu / %zu) | %s |\n", m->lo_pct.v,
				    m->hi_pct.v, diff_basis_name(m->basis), m->na, m->nb,
				    !m->significant			   ? "no significant change"
				    : (m->delta.v > 0) == m->higher_better ? "better"
									   : "worse");
		else
			strbuf_addstr(o, " | n/a | none | no interval |\n");
	}
	strbuf_addch(o, '\n');
}

static void md_ms(struct strbuf *o, double ns, int sign)
{
	strbuf_addf(o, sign ? "%+.3f" : "%.3f", ns / 1e6);
}

static double roles_sum(const double *v)
{
	double t = 0;

	for (int s = 0; s < REPORT_ROLE_OTHER; s++)
		t += v[s];
	return t;
}

static void md_kernels(const struct diff *d, struct strbuf *o)
{
	size_t n = d->nr_kernels < TOP_KERNELS ? d->nr_kernels : TOP_KERNELS;

	strbuf_addf(o,
		    "## Kernels\n\n%zu rows: %zu new, %zu gone, %zu matched to another variant "
		    "(family or operator). Per run, inside the stages (prefill, decode): calls, "
		    "kernel time and exposed time (what no earlier kernel covers: the waterfalls' "
		    "terms); rows by |change| of the exposed time (top %zu). Outside every stage "
		    "(warm-up, CUDA-graph capture; in no stage's change): ",
		    d->nr_kernels, d->nr_new, d->nr_gone, d->nr_changed, n);
	strbuf_addf(o, "%.1f -> %.1f calls, ", d->out_calls_a, d->out_calls_b);
	md_ms(o, d->out_ns_a, 0);
	strbuf_addstr(o, " -> ");
	md_ms(o, d->out_ns_b, 0);
	strbuf_addstr(o, " ms (");
	md_ms(o, d->out_ns_b - d->out_ns_a, 1);
	strbuf_addstr(o, " ms).\n\n"
			 "| kernel (B, else A) | matched by | calls A | calls B | ms A | ms B | "
			 "exposed ms A | exposed ms B | change (ms) | outside stages ms A | B "
			 "|\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < n; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		strbuf_addstr(o, "| ");
		md_code(o, k->name_b ? k->name_b : k->name_a);
		if (k->name_a && k->name_b && strcmp(k->name_a, k->name_b)) {
			strbuf_addstr(o, " (A: ");
			md_code(o, k->name_a);
			strbuf_addch(o, ')');
		}
		if (k->kernels_a > 1 || k->kernels_b > 1)
			strbuf_addf(o, " (%zu / %zu kernels)", k->kernels_a, k->kernels_b);
		strbuf_addf(o, " | %s | %.1f | %.1f | ", diff_match_name(k->match),
			    roles_sum(k->stage_calls_a), roles_sum(k->stage_calls_b));
		md_ms(o, roles_sum(k->stage_ns_a), 0);
		strbuf_addstr(o, " | ");
		md_ms(o, roles_sum(k->stage_ns_b), 0);
		strbuf_addstr(o, " | ");
		md_ms(o, roles_sum(k->exp_ns_a), 0);
		strbuf_addstr(o, " | ");
		md_ms(o, roles_sum(k->exp_ns_b), 0);
		strbuf_addstr(o, " | ");
		md_ms(o, k->delta_ns, 1);
		strbuf_addstr(o, " | ");
		md_ms(o, k->out_ns_a, 0);
		strbuf_addstr(o, " | ");
		md_ms(o, k->out_ns_b, 0);
		strbuf_addstr(o, " |\n");
	}
	strbuf_addch(o, '\n');
}

static void md_falls(const struct diff *d, struct strbuf *o)
{
	for (int r = 0; r < REPORT_ROLE_OTHER; r++) {
		const struct diff_waterfall *w = &d->falls[r];

		if (!w->available)
			continue;
		strbuf_addf(o, "## Waterfall: %s\n\n%s GPU time ", report_role_name(w->role),
			    report_role_name(w->role));
		md_ms(o, w->a_ns, 0);
		strbuf_addstr(o, " ms -> ");
		md_ms(o, w->b_ns, 0);
		strbuf_addstr(o, " ms (");
		md_ms(o, w->delta_ns, 1);
		strbuf_addstr(o, " ms) = the terms below, which sum to it.\n\n"
				 "| term | change (ms) |\n|---|---:|\n");
		for (size_t i = 0; i < w->nr; i++) {
			strbuf_addstr(o, "| ");
			md_code(o, w->rows[i].label);
			strbuf_addstr(o, " | ");
			md_ms(o, w->rows[i].delta_ns, 1);
			strbuf_addstr(o, " |\n");
		}
		strbuf_addch(o, '\n');
	}
}

static void md_counter(struct strbuf *o, struct rnum a, struct rnum b)
{
	diff_num(o, a, 0);
	strbuf_addstr(o, " -> ");
	diff_num(o, b, 0);
}

static void md_counters(const struct diff *d, struct strbuf *o)
{
	size_t shown = 0;

	for (size_t i = 0; i < d->nr_kernels && i < TOP_KERNELS; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		if (!k->ca.profiled || !k->cb.profiled)
			continue;
		if (!shown++)
			strbuf_addstr(o,
				      "## Counters of the top movers\n\n"
				      "| kernel | SM SOL % | memory SOL % | occupancy % | bound |\n"
				      "|---|---|---|---|---|\n");
		strbuf_addstr(o, "| ");
		md_code(o, k->name_b);
		strbuf_addstr(o, " | ");
		md_counter(o, k->ca.sm_sol_pct, k->cb.sm_sol_pct);
		strbuf_addstr(o, " | ");
		md_counter(o, k->ca.mem_sol_pct, k->cb.mem_sol_pct);
		strbuf_addstr(o, " | ");
		md_counter(o, k->ca.occupancy_pct, k->cb.occupancy_pct);
		strbuf_addf(o, " | %s -> %s |\n", kernel_bound_name(k->ca.bound),
			    kernel_bound_name(k->cb.bound));
	}
	if (shown)
		strbuf_addch(o, '\n');
}

static void md_ops(const struct diff *d, struct strbuf *o)
{
	size_t n = d->nr_ops < TOP_OPS ? d->nr_ops : TOP_OPS;

	if (!n)
		return;
	strbuf_addf(o,
		    "## Operators\n\nPer run, by |change| (top %zu of %zu).\n\n"
		    "| operator | stage | calls A | calls B | GPU ms A | GPU ms B | change (ms) "
		    "|\n|---|---|---:|---:|---:|---:|---:|\n",
		    n, d->nr_ops);
	for (size_t i = 0; i < n; i++) {
		const struct diff_operator *p = &d->ops[i];

		strbuf_addstr(o, "| ");
		md_text(o, p->name);
		strbuf_addf(o, "%s | %s | %.1f | %.1f | %.3f | %.3f | %+.3f |\n",
			    !p->in_a   ? " (new)"
			    : !p->in_b ? " (gone)"
				       : "",
			    p->stage ? p->stage : "-", p->calls_a, p->calls_b, p->ms_a, p->ms_b,
			    p->ms_b - p->ms_a);
	}
	strbuf_addch(o, '\n');
}

static void md_ranks(const struct diff *d, struct strbuf *o)
{
	if (!d->nr_ranks)
		return;
	strbuf_addstr(o, "## Ranks\n\n| rank | decode GPU ms A | B | step p50 ms A | B | "
			 "kernel ms A | B |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < d->nr_ranks; i++) {
		const struct diff_rank *r = &d->ranks[i];

		strbuf_addstr(o, "| ");
		md_text(o, r->label);
		strbuf_addstr(o, " | ");
		diff_num(o, r->decode_ms_a, 0);
		strbuf_addstr(o, " | ");
		diff_num(o, r->decode_ms_b, 0);
		strbuf_addstr(o, " | ");
		diff_num(o, r->step_p50_a, 0);
		strbuf_addstr(o, " | ");
		diff_num(o, r->step_p50_b, 0);
		strbuf_addf(o, " | %.3f | %.3f |\n", r->kernel_ms_a, r->kernel_ms_b);
	}
	strbuf_addch(o, '\n');
}

static void md_side(struct strbuf *o, const char *name, const struct diff_side_info *s)
{
	strbuf_addf(o, "- %s: ", name);
	md_code_plain(o, s->label);
	strbuf_addf(o, " (%zu run%s; GPU: %s; backend: %s)\n", s->runs, s->runs == 1 ? "" : "s",
		    s->gpu ? s->gpu : "unknown", s->backend ? s->backend : "unknown");
}

void diff_render_md(const struct diff *d, struct strbuf *o)
{
	strbuf_addstr(o, "# llmprof diff\n\n");
	md_side(o, "A", &d->a);
	md_side(o, "B", &d->b);
	if (d->gate_text)
		strbuf_addf(o, "- %s\n", d->gate_text);
	strbuf_addch(o, '\n');
	for (size_t i = 0; i < d->nr_notes; i++)
		strbuf_addf(o, "Note: %s\n\n", d->notes[i]);
	md_metrics(d, o);
	md_falls(d, o);
	md_kernels(d, o);
	md_counters(d, o);
	md_ops(d, o);
	md_ranks(d, o);
}
