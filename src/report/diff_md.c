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
	static const char *const names[] = {"none", "decode step GPU spans", "prefill instances",
					    "runs", "decode step periods"};

	return names[b];
}

void diff_num(struct strbuf *sb, struct rnum r, int sign)
{
	if (!r.available)
		strbuf_addstr(sb, "n/a");
	else
		strbuf_addf(sb, sign ? "%+.3f" : "%.3f", r.v);
}

/* "+2.19 %" of a metric, or "n/a". */
static void metric_pct(struct strbuf *sb, struct rnum r)
{
	if (r.available)
		strbuf_addf(sb, "%+.2f %%", r.v);
	else
		strbuf_addstr(sb, "n/a");
}

void diff_table_metrics(const struct diff *d, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrrrlll", "metric", "A", "B", "change", "change %", "95 % interval (%)",
		   "basis", "verdict", NULL);
	for (size_t i = 0; i < d->nr_metrics; i++) {
		const struct diff_metric *m = &d->metrics[i];

		table_addf(t, "%s (%s)", m->label, m->unit);
		diff_num(&sb, m->a, 0);
		table_add_sb(t, &sb);
		diff_num(&sb, m->b, 0);
		table_add_sb(t, &sb);
		diff_num(&sb, m->delta, 1);
		table_add_sb(t, &sb);
		metric_pct(&sb, m->pct);
		table_add_sb(t, &sb);
		if (m->lo_pct.available) {
			table_addf(t, "[%+.2f, %+.2f]", m->lo_pct.v, m->hi_pct.v);
			table_addf(t, "%s (%zu / %zu)", diff_basis_name(m->basis), m->na, m->nb);
			table_add_str(t, !m->significant ? "no significant change"
					 : (m->delta.v > 0) == m->higher_better ? "better"
										: "worse");
		} else {
			table_add_str(t, "n/a");
			table_add_str(t, "none");
			table_add_str(t, "no interval");
		}
	}
	strbuf_release(&sb);
}

/* t's Markdown, a blank line after it; t released. */
static void md_table(struct table *t, struct strbuf *o)
{
	table_write_md(t, o);
	strbuf_addch(o, '\n');
	table_release(t);
}

static void md_metrics(const struct diff *d, struct strbuf *o)
{
	struct table t;

	strbuf_addstr(o, "## Metrics\n\n");
	diff_table_metrics(d, &t);
	md_table(&t, o);
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

static void add_ms(struct table *t, double ns, int sign)
{
	table_addf(t, sign ? "%+.3f" : "%.3f", ns / 1e6);
}

/* The change in % of A's value beside its change in ms: "+50.0 %", "new"
 * when A had none. */
static void add_change_pct(struct table *t, double delta, double a)
{
	if (a > 0)
		table_addf(t, "%+.1f %%", 100 * delta / a);
	else
		table_add_str(t, delta != 0 ? "new" : "n/a");
}

static void md_kernels(const struct diff *d, struct strbuf *o)
{
	size_t n = d->nr_kernels < TOP_KERNELS ? d->nr_kernels : TOP_KERNELS;
	struct strbuf sb = STRBUF_INIT;
	struct table t;

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
	strbuf_addstr(o, " ms).\n\n");
	table_init(&t, "clrrrrrrrrrr", "kernel (B, else A)", "matched by", "calls A", "calls B",
		   "ms A", "ms B", "exposed ms A", "exposed ms B", "change (ms)", "change %",
		   "outside stages ms A", "B", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		table_add_str(&t, k->name_b ? k->name_b : k->name_a);
		/* how the row matched, with A's name where it differs from B's */
		strbuf_addstr(&sb, diff_match_name(k->match));
		if (k->name_a && k->name_b && strcmp(k->name_a, k->name_b))
			strbuf_addf(&sb, " (A: %s)", k->name_a);
		if (k->kernels_a > 1 || k->kernels_b > 1)
			strbuf_addf(&sb, " (%zu / %zu kernels)", k->kernels_a, k->kernels_b);
		table_add_sb(&t, &sb);
		table_addf(&t, "%.1f", roles_sum(k->stage_calls_a));
		table_addf(&t, "%.1f", roles_sum(k->stage_calls_b));
		add_ms(&t, roles_sum(k->stage_ns_a), 0);
		add_ms(&t, roles_sum(k->stage_ns_b), 0);
		add_ms(&t, roles_sum(k->exp_ns_a), 0);
		add_ms(&t, roles_sum(k->exp_ns_b), 0);
		add_ms(&t, k->delta_ns, 1);
		add_change_pct(&t, k->delta_ns, roles_sum(k->exp_ns_a));
		add_ms(&t, k->out_ns_a, 0);
		add_ms(&t, k->out_ns_b, 0);
	}
	md_table(&t, o);
	strbuf_release(&sb);
}

static void md_falls(const struct diff *d, struct strbuf *o)
{
	struct table t;

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
		strbuf_addstr(o, " ms) = the terms below, which sum to it.\n\n");
		table_init(&t, "crr", "term", "change (ms)", "% of A's stage time", NULL);
		for (size_t i = 0; i < w->nr; i++) {
			table_add_str(&t, w->rows[i].label);
			add_ms(&t, w->rows[i].delta_ns, 1);
			add_change_pct(&t, w->rows[i].delta_ns, w->a_ns);
		}
		md_table(&t, o);
	}
}

/* "12.3 -> 15.2": a counter of A and of B. */
static void add_counter(struct table *t, struct strbuf *sb, struct rnum a, struct rnum b)
{
	diff_num(sb, a, 0);
	strbuf_addstr(sb, " -> ");
	diff_num(sb, b, 0);
	table_add_sb(t, sb);
}

static void md_counters(const struct diff *d, struct strbuf *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	table_init(&t, "cllll", "kernel", "SM SOL %", "memory SOL %", "occupancy %", "bound", NULL);
	for (size_t i = 0; i < d->nr_kernels && i < TOP_KERNELS; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		if (!k->ca.profiled || !k->cb.profiled)
			continue;
		table_add_str(&t, k->name_b);
		add_counter(&t, &sb, k->ca.sm_sol_pct, k->cb.sm_sol_pct);
		add_counter(&t, &sb, k->ca.mem_sol_pct, k->cb.mem_sol_pct);
		add_counter(&t, &sb, k->ca.occupancy_pct, k->cb.occupancy_pct);
		table_addf(&t, "%s -> %s", kernel_bound_name(k->ca.bound),
			   kernel_bound_name(k->cb.bound));
	}
	if (t.nrows) {
		strbuf_addstr(o, "## Counters of the top movers\n\n");
		md_table(&t, o);
	} else {
		table_release(&t);
	}
	strbuf_release(&sb);
}

static void md_ops(const struct diff *d, struct strbuf *o)
{
	size_t n = d->nr_ops < TOP_OPS ? d->nr_ops : TOP_OPS;
	struct table t;

	if (!n)
		return;
	strbuf_addf(o, "## Operators\n\nPer run, by |change| (top %zu of %zu).\n\n", n, d->nr_ops);
	table_init(&t, "llrrrrrr", "operator", "stage", "calls A", "calls B", "GPU ms A",
		   "GPU ms B", "change (ms)", "change %", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct diff_operator *p = &d->ops[i];

		table_addf(&t, "%s%s", p->name, !p->in_a ? " (new)" : !p->in_b ? " (gone)" : "");
		table_add_str(&t, p->stage ? p->stage : "-");
		table_addf(&t, "%.1f", p->calls_a);
		table_addf(&t, "%.1f", p->calls_b);
		table_addf(&t, "%.3f", p->ms_a);
		table_addf(&t, "%.3f", p->ms_b);
		table_addf(&t, "%+.3f", p->ms_b - p->ms_a);
		add_change_pct(&t, p->ms_b - p->ms_a, p->ms_a);
	}
	md_table(&t, o);
}

static void md_ranks(const struct diff *d, struct strbuf *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	if (!d->nr_ranks)
		return;
	strbuf_addstr(o, "## Ranks\n\n");
	table_init(&t, "lrrrrrrrr", "rank", "decode GPU ms A", "B", "change %",
		   "step GPU span p50 ms A", "B", "kernel ms A", "B", "change %", NULL);
	for (size_t i = 0; i < d->nr_ranks; i++) {
		const struct diff_rank *r = &d->ranks[i];

		table_add_str(&t, r->label);
		diff_num(&sb, r->decode_ms_a, 0);
		table_add_sb(&t, &sb);
		diff_num(&sb, r->decode_ms_b, 0);
		table_add_sb(&t, &sb);
		if (r->decode_ms_a.available && r->decode_ms_b.available)
			add_change_pct(&t, r->decode_ms_b.v - r->decode_ms_a.v, r->decode_ms_a.v);
		else
			table_add_str(&t, "n/a");
		diff_num(&sb, r->step_p50_a, 0);
		table_add_sb(&t, &sb);
		diff_num(&sb, r->step_p50_b, 0);
		table_add_sb(&t, &sb);
		table_addf(&t, "%.3f", r->kernel_ms_a);
		table_addf(&t, "%.3f", r->kernel_ms_b);
		add_change_pct(&t, r->kernel_ms_b - r->kernel_ms_a, r->kernel_ms_a);
	}
	md_table(&t, o);
	strbuf_release(&sb);
}

static void md_side(struct strbuf *o, const char *name, const struct diff_side_info *s)
{
	strbuf_addf(o, "- %s: ", name);
	md_code_plain(o, s->label);
	/* the GPU name is the trace's (env.json, TARGET_INFO_GPU): text, never
	 * Markdown or HTML of its own */
	strbuf_addf(o, " (%zu run%s; GPU: ", s->runs, s->runs == 1 ? "" : "s");
	md_text(o, s->gpu ? s->gpu : "unknown");
	strbuf_addstr(o, "; backend: ");
	md_text(o, s->backend ? s->backend : "unknown");
	strbuf_addstr(o, ")\n");
}

void diff_render_md(const struct diff *d, struct strbuf *o)
{
	strbuf_addstr(o, "# llmprof diff\n\n");
	md_side(o, "A", &d->a);
	md_side(o, "B", &d->b);
	if (d->gate_text)
		strbuf_addf(o, "- %s\n", d->gate_text);
	strbuf_addch(o, '\n');
	for (size_t i = 0; i < d->nr_notes; i++) {
		strbuf_addstr(o, "Note: ");
		md_text(o, d->notes[i]); /* they quote GPU names */
		strbuf_addstr(o, "\n\n");
	}
	md_metrics(d, o);
	md_falls(d, o);
	md_kernels(d, o);
	md_counters(d, o);
	md_ops(d, o);
	md_ranks(d, o);
}
