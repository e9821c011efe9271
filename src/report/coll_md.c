/* coll_md.c: the NCCL collectives of a multi-process trace in the reports
 * (model_tables.h): per rank and type, stragglers, exposed communication
 * per stage, the hosts' clocks, and the sentences that introduce them.
 * Reads m->ranks.coll and each rank's coll (analysis/ranks_coll.c fills
 * them); with one process or no NCCL kernel every table is empty, but for
 * the NCCL API calls and their bytes (analysis/ncclapi.c), shown with any
 * number of processes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "report/model_tables.h"
#include "report/report.h"
#include "core/banned.h"

int report_coll_shown(const struct report_model *m)
{
	return m->ranks.nr > 1 && m->ranks.coll.available;
}

static void cell_ns(struct table *t, struct strbuf *sb, int64_t ns)
{
	fmt_ns_as_ms(sb, (double)ns);
	table_add_sb(t, sb);
}

void rtable_coll_ranks(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "llrrrrr", "Rank", "Collective", "Calls", "Matched", "Time (ms)", "Wait (ms)",
		   "Transfer (ms)", NULL);
	for (size_t i = 0; report_coll_shown(m) && i < m->ranks.nr; i++) {
		const struct report_rank_coll *c = &m->ranks.v[i].coll;

		for (size_t j = 0; j < c->nr_types; j++) {
			table_add_str(t, m->ranks.v[i].label);
			table_add_str(t, c->types[j].type);
			table_addf(t, "%llu", (unsigned long long)c->types[j].calls);
			table_addf(t, "%llu", (unsigned long long)c->types[j].matched);
			cell_ns(t, &sb, c->types[j].total_ns);
			cell_ns(t, &sb, c->types[j].wait_ns);
			cell_ns(t, &sb, c->types[j].transfer_ns);
		}
	}
	strbuf_release(&sb);
}

void rtable_coll_stragglers(const struct report_model *m, struct table *t)
{
	const struct report_collectives *c = &m->ranks.coll;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrrr", "Arrives last", "Collectives", "Share", "Mean lateness (us)",
		   "Total lateness (ms)", NULL);
	for (size_t i = 0; report_coll_shown(m) && i < c->nr_stragglers; i++) {
		const struct report_coll_straggler *s = &c->stragglers[i];

		table_add_str(t, m->ranks.v[s->rank_index].label);
		table_addf(t, "%llu", (unsigned long long)s->count);
		fmt_frac_pct(&sb, rnum_of(s->share));
		table_add_sb(t, &sb);
		fmt_fixed(&sb, rnum_of(s->mean_late_ns / 1e3), 1);
		table_add_sb(t, &sb);
		cell_ns(t, &sb, s->late_ns);
	}
	strbuf_release(&sb);
}

void rtable_coll_late_init(struct table *t)
{
	table_init(t, "llrrrrrrlrrr", "Rank", "Stage", "Last at", "p50 (us)", "p90 (us)",
		   "Max (us)", "First steps p50", "Then p50", "Cause", "GPU busy +us",
		   "GPU idle +us", "Launch lag us (it / others)", NULL);
}

void rtable_coll_late_row(struct table *t, const char *label, const struct report_coll_straggle *s)
{
	table_add_str(t, label);
	table_add_str(t, s->stage);
	table_addf(t, "%llu of %llu", (unsigned long long)s->count,
		   (unsigned long long)s->instances);
	table_addf(t, "%.1f", s->late.p50_ns / 1e3);
	table_addf(t, "%.1f", s->late.p90_ns / 1e3);
	table_addf(t, "%.1f", s->late.max_ns / 1e3);
	if (s->early.n)
		table_addf(t, "%.1f", s->early.p50_ns / 1e3);
	else
		table_add_str(t, FMT_NA);
	if (s->steady.n)
		table_addf(t, "%.1f", s->steady.p50_ns / 1e3);
	else
		table_add_str(t, FMT_NA);
	table_add_str(t, s->cause);
	if (s->explained) {
		table_addf(t, "%+.1f", s->busy_ns / 1e3);
		table_addf(t, "%+.1f", s->idle_ns / 1e3);
	} else {
		table_add_str(t, FMT_NA);
		table_add_str(t, FMT_NA);
	}
	if (s->explained && !isnan(s->lag_ns))
		table_addf(t, "%.1f / %.1f", s->lag_ns / 1e3, s->others_lag_ns / 1e3);
	else
		table_add_str(t, FMT_NA);
}

void rtable_coll_late(const struct report_model *m, struct table *t)
{
	const struct report_collectives *c = &m->ranks.coll;

	rtable_coll_late_init(t);
	for (size_t i = 0; report_coll_shown(m) && i < c->nr_straggles; i++)
		rtable_coll_late_row(t, m->ranks.v[c->straggles[i].rank_index].label,
				     &c->straggles[i]);
}

void rtable_coll_stages(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "llrrrrr", "Rank", "Stage", "Instances", "GPU span (ms)",
		   "Communication (ms)", "Exposed (ms)", "Exposed share", NULL);
	for (size_t i = 0; report_coll_shown(m) && i < m->ranks.nr; i++) {
		const struct report_rank_coll *c = &m->ranks.v[i].coll;

		for (size_t j = 0; j < c->nr_stages; j++) {
			const struct report_coll_stage *s = &c->stages[j];

			table_add_str(t, m->ranks.v[i].label);
			table_add_str(t, s->stage);
			table_addf(t, "%llu", (unsigned long long)s->windows);
			cell_ns(t, &sb, s->window_ns);
			cell_ns(t, &sb, s->comm_ns);
			cell_ns(t, &sb, s->exposed_ns);
			fmt_frac_pct(&sb, s->window_ns > 0 ? rnum_of((double)s->exposed_ns /
								     (double)s->window_ns)
							   : RNUM_NONE);
			table_add_sb(t, &sb);
		}
	}
	strbuf_release(&sb);
}

/* Only with several hosts: one host shares one clock with itself. */
void rtable_coll_hosts(const struct report_model *m, struct table *t)
{
	const struct report_collectives *c = &m->ranks.coll;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lrrrrl", "Host", "Ranks", "Clock offset (ms)", "Samples", "Residual (us)",
		   "Aligned", NULL);
	for (size_t i = 0; report_coll_shown(m) && c->nr_hosts > 1 && i < c->nr_hosts; i++) {
		const struct report_coll_host *h = &c->hosts[i];

		table_add_str(t, h->name ? h->name : FMT_NA);
		table_addf(t, "%llu", (unsigned long long)h->ranks);
		cell_ns(t, &sb, h->offset_ns);
		table_addf(t, "%llu", (unsigned long long)h->samples);
		fmt_fixed(&sb, rnum_of((double)h->residual_ns / 1e3), 1);
		table_add_sb(t, &sb);
		table_add_str(t, i == 0 ? "reference" : h->aligned ? "yes" : "no");
	}
	strbuf_release(&sb);
}

/* NCCL kernel time as a share of all kernel time, summed over ranks. */
static struct rnum coll_share(const struct report_model *m)
{
	double nccl = 0, all = 0;

	for (size_t i = 0; i < m->ranks.nr; i++) {
		const struct report_rank_coll *c = &m->ranks.v[i].coll;

		for (size_t j = 0; j < c->nr_types; j++)
			nccl += (double)c->types[j].total_ns;
		all += (double)m->ranks.v[i].kernel_ns;
	}
	return all > 0 ? rnum_of(nccl / all) : RNUM_NONE;
}

void report_coll_summary(const struct report_model *m, struct strbuf *out)
{
	const struct report_collectives *c = &m->ranks.coll;
	struct rnum share = coll_share(m);

	if (!report_coll_shown(m))
		return;
	strbuf_addf(out, "%llu NCCL collective kernels ran across the %zu processes",
		    (unsigned long long)c->calls, m->ranks.nr);
	if (share.available) {
		strbuf_addstr(out, ", ");
		fmt_frac_pct(out, share);
		strbuf_addstr(out, " of their kernel time");
	}
	strbuf_addf(out, "; %llu were matched across every rank.",
		    (unsigned long long)c->instances);
	if (c->nr_stragglers) {
		const struct report_coll_straggler *s = &c->stragglers[0];

		strbuf_addf(out, " Straggler: %s arrives last at %llu of them (",
			    m->ranks.v[s->rank_index].label, (unsigned long long)s->count);
		fmt_frac_pct(out, rnum_of(s->share));
		strbuf_addstr(out, "), ");
		fmt_fixed(out, rnum_of(s->mean_late_ns / 1e3), 1);
		strbuf_addstr(out, " us after the others on average, and they wait for it.");
	}
	strbuf_addch(out, '\n');
}

int report_nccl_shown(const struct report_model *m)
{
	return m->ranks.coll.nr_api > 0;
}

static void cell_bytes(struct table *t, uint64_t bytes, uint64_t n)
{
	if (n)
		table_addf(t, "%.0f", (double)bytes / (double)n);
	else
		table_add_str(t, FMT_NA);
}

void rtable_nccl_api(const struct report_model *m, struct table *t)
{
	const struct report_collectives *c = &m->ranks.coll;
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "llrrrlrrrrr", "Process", "Collective", "Calls", "Bytes/call", "Bytes", "Op",
		   "Ranks", "Launched", "Kernel time (ms)", "algbw (GB/s)", "busbw (GB/s)", NULL);
	for (size_t i = 0; i < c->nr_api; i++) {
		const struct report_nccl_api *r = &c->api[i];

		table_add_str(t, r->label);
		table_add_str(t, r->type);
		table_addf(t, "%llu", (unsigned long long)r->calls);
		cell_bytes(t, r->bytes, r->sized);
		cell_bytes(t, r->bytes, r->sized ? 1 : 0);
		table_add_str(t, r->op ? r->op : FMT_NA);
		if (r->nranks > 0)
			table_addf(t, "%d", r->nranks);
		else
			table_add_str(t, r->nranks < 0 ? "mixed" : FMT_NA);
		table_addf(t, "%llu", (unsigned long long)r->launched);
		cell_ns(t, &sb, r->kernel_ns);
		fmt_fixed(&sb, r->algbw_gbs, 2);
		table_add_sb(t, &sb);
		fmt_fixed(&sb, r->busbw_gbs, 2);
		table_add_sb(t, &sb);
	}
	strbuf_release(&sb);
}

void report_nccl_summary(const struct report_model *m, struct strbuf *out)
{
	const struct report_collectives *c = &m->ranks.coll;
	uint64_t calls = 0, sized = 0, bytes = 0, launched = 0;

	if (!report_nccl_shown(m) && !(report_coll_shown(m) && c->bytes_why))
		return;
	for (size_t i = 0; i < c->nr_api; i++) {
		calls += c->api[i].calls;
		sized += c->api[i].sized;
		bytes += c->api[i].bytes;
		launched += c->api[i].launched;
	}
	if (!c->nr_api) {
		strbuf_addf(out, "NCCL message sizes: n/a (%s).\n", c->bytes_why);
		return;
	}
	strbuf_addf(out, "%llu NCCL collective API calls", (unsigned long long)calls);
	if (sized) {
		strbuf_addstr(out, " moved ");
		fmt_si(out, rnum_of((double)bytes), "B");
		strbuf_addf(out, " as NCCL counts it (%llu of them with a size)",
			    (unsigned long long)sized);
	} else {
		strbuf_addf(out, "; bytes n/a (%s)", c->bytes_why ? c->bytes_why : "not recorded");
	}
	if (!launched)
		strbuf_addstr(out, "; none launched a kernel (nothing to move between ranks: a "
				   "communicator of one rank, or a grouped launch)");
	else if (launched < calls)
		strbuf_addf(out, "; %llu launched no kernel of their own",
			    (unsigned long long)(calls - launched));
	strbuf_addstr(out, ".\n");
}

/* The NCCL calls table with its sentence (report.md). */
static void nccl_md(const struct report_model *m, struct strbuf *out)
{
	struct table t;

	if (!m->ranks.coll.nr_api)
		return;
	strbuf_addstr(out, "\nNCCL API calls (NVTX ranges of domain NCCL) and the bytes their "
			   "payloads record; bandwidths over the calls that launched a kernel "
			   "(docs/collectives.md \"Bytes\"):\n\n");
	rtable_nccl_api(m, &t);
	table_write_md(&t, out);
	table_release(&t);
}

/* "## Collectives" of report.md. */
void report_coll_md(const struct report_model *m, struct strbuf *out)
{
	const struct report_collectives *c = &m->ranks.coll;
	struct table t;

	if (!report_coll_shown(m)) {
		if (!report_nccl_shown(m))
			return;
		strbuf_addstr(out, "\n## Collectives\n\n");
		report_nccl_summary(m, out);
		nccl_md(m, out);
		return;
	}
	strbuf_addstr(out, "\n## Collectives\n\n");
	report_coll_summary(m, out);
	report_nccl_summary(m, out);
	strbuf_addstr(out,
		      "\nCollectives are matched across ranks by their order on each NCCL stream. "
		      "Wait is the time a rank's collective ran before the last rank arrived; "
		      "transfer is the rest (docs/collectives.md).\n\n");
	rtable_coll_ranks(m, &t);
	table_write_md(&t, out);
	table_release(&t);
	nccl_md(m, out);
	rtable_coll_stragglers(m, &t);
	if (t.nrows) {
		strbuf_addstr(out, "\nStragglers (lateness: after the median arrival of the "
				   "other ranks):\n\n");
		table_write_md(&t, out);
	}
	table_release(&t);
	rtable_coll_late(m, &t);
	if (t.nrows) {
		strbuf_addstr(
		    out, "\nLate ranks per stage (lateness where the rank arrived last; first "
			 "steps: the first 2 decode steps, or the first tenth of the stage's "
			 "collectives; GPU busy / idle: before each collective, against the other "
			 "ranks' median; launch lag: from the host's launch to the GPU's start; "
			 "docs/collectives.md):\n\n");
		table_write_md(&t, out);
	}
	table_release(&t);
	rtable_coll_stages(m, &t);
	if (t.nrows) {
		strbuf_addstr(out, "\nExposed communication (NCCL kernels running while no other "
				   "kernel runs on the GPU) per stage:\n\n");
		table_write_md(&t, out);
	}
	table_release(&t);
	rtable_coll_hosts(m, &t);
	if (t.nrows) {
		strbuf_addstr(out, "\nClocks: each host's offset to the first, estimated from "
				   "collective end times; the residual is how far ends still "
				   "differ after alignment, and how uncertain waits across hosts "
				   "are.\n\n");
		table_write_md(&t, out);
	} else if (c->residual_samples) {
		/* one clock: still checked, each rank's ends against the others' */
		strbuf_addf(out,
			    "\nClock: one host, one timebase; collective ends still differ by "
			    "%.1f us between ranks (median; largest %.1f us; %llu samples), how "
			    "uncertain every wait is.\n",
			    (double)c->residual_median_ns / 1e3, (double)c->residual_max_ns / 1e3,
			    (unsigned long long)c->residual_samples);
	}
	table_release(&t);
	if (c->nr_mismatches)
		strbuf_addf(out,
			    "\n%zu collective sequences have different lengths on different "
			    "ranks and were not matched (see the findings).\n",
			    c->nr_mismatches);
}
