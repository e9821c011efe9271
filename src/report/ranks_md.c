/* ranks_md.c: the per-rank tables (model_tables.h) and the Markdown
 * sections built from them. Reads m->ranks only (analysis/ranks.c fills
 * it); a report of one process never calls into here with rows to show. */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "report/model_tables.h"
#include "report/report.h"
#include "core/banned.h"

static const char *or_na(const char *s)
{
	return s && *s ? s : FMT_NA;
}

static void cell_ms(struct table *t, struct strbuf *sb, struct rnum v)
{
	fmt_ms(sb, v);
	table_add_sb(t, sb);
}

/* How many ranks took their rank from source ("NCCL", "pid", ...). */
static size_t ranks_from(const struct report_ranks *rs, const char *source)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->nr; i++)
		n += rs->v[i].rank_source && !strcmp(rs->v[i].rank_source, source);
	return n;
}

void rtable_ranks(const struct report_model *m, struct table *t)
{
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "lllllrrrrrl", "Rank", "Pid", "Host", "GPU", "Launcher",
		   "Decode GPU span (ms)", "TPOT (ms, wall)", "TTFT (ms)", "GPU busy %", "Kernels",
		   "Slowest", NULL);
	for (size_t i = 0; i < m->ranks.nr; i++) {
		const struct report_rank *r = &m->ranks.v[i];

		table_add_str(t, r->label);
		table_addf(t, "%lld", (long long)r->pid);
		table_add_str(t, or_na(r->host));
		table_add_str(t, or_na(r->gpu));
		table_add_str(t, or_na(r->launcher));
		cell_ms(t, &sb,
			r->stages[REPORT_ROLE_DECODE].found ? r->stages[REPORT_ROLE_DECODE].gpu_ms
							    : RNUM_NONE);
		cell_ms(t, &sb, r->tpot_ms);
		cell_ms(t, &sb, r->ttft_ms);
		if (r->gpu_span_ms.available && r->gpu_busy_ms.available && r->gpu_span_ms.v > 0)
			fmt_fixed(&sb, rnum_of(100 * r->gpu_busy_ms.v / r->gpu_span_ms.v), 1);
		else
			strbuf_addstr(&sb, FMT_NA);
		table_add_sb(t, &sb);
		table_addf(t, "%llu", (unsigned long long)r->kernels);
		table_add_str(t, r->slowest ? "slowest" : "");
	}
	strbuf_release(&sb);
}

void rtable_rank_stages(const struct report_model *m, struct table *t)
{
	static const char *const names[REPORT_ROLE_OTHER] = {"prefill", "decode"};
	struct strbuf sb = STRBUF_INIT;

	table_init(t, "llrrrrrrrrrl", "Rank", "Stage", "Instances", "Range wall (ms)",
		   "GPU span (ms)", "GPU busy (ms)", "GPU idle (ms)", "Kernels",
		   "Step GPU span p50 (ms)", "Step GPU span p90 (ms)", "Step GPU span max (ms)",
		   "MFU or MBU (model)", NULL);
	for (size_t i = 0; i < m->ranks.nr; i++)
		for (int role = 0; role < REPORT_ROLE_OTHER; role++) {
			const struct report_rank_stage *s = &m->ranks.v[i].stages[role];

			if (!s->found)
				continue;
			table_add_str(t, m->ranks.v[i].label);
			table_add_str(t, names[role]);
			table_addf(t, "%llu", (unsigned long long)s->instances);
			cell_ms(t, &sb, s->cpu_ms);
			cell_ms(t, &sb, s->gpu_ms);
			cell_ms(t, &sb, s->busy_ms);
			cell_ms(t, &sb, s->idle_ms);
			table_addf(t, "%llu", (unsigned long long)s->kernels);
			cell_ms(t, &sb, s->step_p50_ms);
			cell_ms(t, &sb, s->step_p90_ms);
			cell_ms(t, &sb, s->step_max_ms);
			/* judged as the merged stage: prefill by MFU, decode by MBU */
			if ((role == REPORT_ROLE_PREFILL ? s->mfu_datasheet : s->mbu_datasheet)
				.available) {
				strbuf_addstr(&sb, role == REPORT_ROLE_PREFILL ? "MFU " : "MBU ");
				fmt_frac_pct(&sb, role == REPORT_ROLE_PREFILL ? s->mfu_datasheet
									      : s->mbu_datasheet);
			} else {
				strbuf_addstr(&sb, FMT_NA);
			}
			table_add_sb(t, &sb);
		}
	strbuf_release(&sb);
}

static void spread_row(const struct report_model *m, struct table *t, const char *what,
		       const struct report_spread *sp)
{
	struct strbuf sb = STRBUF_INIT;

	if (!sp->max.available)
		return;
	table_add_str(t, what);
	cell_ms(t, &sb, sp->min);
	cell_ms(t, &sb, sp->med);
	cell_ms(t, &sb, sp->max);
	table_add_str(t, sp->max_rank >= 0 ? m->ranks.v[sp->max_rank].label : FMT_NA);
	strbuf_release(&sb);
}

void rtable_rank_spread(const struct report_model *m, struct table *t)
{
	table_init(t, "lrrrl", "Across ranks", "Min (ms)", "Median (ms)", "Max (ms)", "Max on",
		   NULL);
	spread_row(m, t, "prefill GPU span", &m->ranks.stage_gpu[REPORT_ROLE_PREFILL]);
	spread_row(m, t, "decode GPU span", &m->ranks.stage_gpu[REPORT_ROLE_DECODE]);
	spread_row(m, t, "decode step GPU span p50", &m->ranks.step_p50);
}

/* A first column "name" of kind first (code for kernel names), then one
 * column per shown rank: "rank 0 (ms)". */
static size_t per_rank_header(const struct report_model *m, struct table *t, const char *name,
			      char first)
{
	size_t n = m->ranks.nr < REPORT_RANK_COLS ? m->ranks.nr : REPORT_RANK_COLS;
	const char *names[1 + REPORT_RANK_COLS];
	char spec[2 + REPORT_RANK_COLS];
	struct strbuf h[REPORT_RANK_COLS];

	names[0] = name;
	spec[0] = first;
	for (size_t i = 0; i < n; i++) {
		strbuf_init(&h[i], 0);
		strbuf_addf(&h[i], "%s (ms)", m->ranks.v[i].label);
		names[1 + i] = h[i].buf;
		spec[1 + i] = TABLE_NUM;
	}
	spec[1 + n] = '\0';
	table_init_names(t, spec, names);
	for (size_t i = 0; i < n; i++)
		strbuf_release(&h[i]);
	return n;
}

void rtable_rank_kernels(const struct report_model *m, struct table *t, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = per_rank_header(m, t, "Kernel", TABLE_CODE);

	for (size_t k = 0; k < m->nr_kernels && k < top; k++) {
		table_add_str(t, m->kernels[k].short_name);
		for (size_t i = 0; i < n; i++) {
			const struct report_rank *r = &m->ranks.v[i];
			struct rnum v = RNUM_NONE;

			for (size_t j = 0; j < r->nr_kern; j++)
				if (r->kern[j].name && m->kernels[k].short_name &&
				    !strcmp(r->kern[j].name, m->kernels[k].short_name))
					v = rnum_of((double)r->kern[j].total_ns / 1e6);
			cell_ms(t, &sb, v);
		}
	}
	strbuf_release(&sb);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void rtable_rank_operators(const struct report_model *m, struct table *t, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = per_rank_header(m, t, "Operator", TABLE_TEXT);

	for (size_t k = 0; k < m->nr_ops && k < top; k++) {
		table_add_str(t, m->ops[k].name);
		for (size_t i = 0; i < n; i++) {
			const struct report_rank *r = &m->ranks.v[i];
			struct rnum v = RNUM_NONE;

			for (size_t j = 0; j < r->nr_ops; j++)
				if (same(r->ops[j].name, m->ops[k].name) &&
				    same(r->ops[j].stage, m->ops[k].stage))
					v = r->ops[j].gpu_ms;
			cell_ms(t, &sb, v);
		}
	}
	strbuf_release(&sb);
}

void report_ranks_util_basis(const struct report_model *m, struct strbuf *out)
{
	const struct report_ranks *rs = &m->ranks;

	if (!rs->util_basis)
		return;
	strbuf_addstr(out, "Per-rank MFU/MBU (datasheet peaks, the rank's own stage time): ");
	strbuf_addstr(out, rs->util_basis);
	strbuf_addstr(out, ".\n");
}

void report_ranks_intro(const struct report_model *m, struct strbuf *out)
{
	const struct report_ranks *rs = &m->ranks;
	const struct report_spread *dec = &rs->stage_gpu[REPORT_ROLE_DECODE];

	strbuf_addf(out,
		    "%zu processes ran kernels. Each row below is one process analysed on its "
		    "own; the stage, kernel and operator tables elsewhere in the reports are "
		    "the sum over all processes, so a stage's instances count one per process "
		    "that ran it.",
		    rs->nr);
	if (!rs->identified && ranks_from(rs, "device"))
		strbuf_addstr(out,
			      " The trace records no rank identities (an nsys export, or a tracer "
			      "that predates them) and NCCL names none: each process drove one "
			      "GPU of its own, so it is named by the local rank that GPU gives "
			      "where LOCAL_RANK r runs on cuda:r (torchrun's convention); its pid "
			      "is beside it.");
	else if (!rs->identified)
		strbuf_addstr(out, " The trace records no rank identities (an nsys export, or "
				   "a tracer that predates them): processes are named by pid.");
	else if (ranks_from(rs, "NCCL"))
		strbuf_addf(out,
			    " %zu of them are named by the rank NCCL's communicator-init "
			    "payloads give them (the trace records no launcher environment per "
			    "process)%s.",
			    ranks_from(rs, "NCCL"),
			    ranks_from(rs, "pid") ? "; the others, by pid" : "");
	if (rs->slowest >= 0) {
		const struct report_rank *r = &rs->v[rs->slowest];

		strbuf_addf(out, " Slowest: %s by %s", r->label, rs->slowest_by);
		if (rs->slowest_by && !strcmp(rs->slowest_by, "decode GPU span") &&
		    dec->max.available && dec->med.available) {
			strbuf_addstr(out, " (");
			fmt_ms(out, dec->max);
			strbuf_addstr(out, " ms against a median of ");
			fmt_ms(out, dec->med);
			strbuf_addstr(out, " ms)");
		}
		strbuf_addch(out, '.');
	}
	if (rs->nr > REPORT_RANK_COLS)
		strbuf_addf(out,
			    " Per-rank kernel and operator columns show the first %d ranks; "
			    "%s has every rank.",
			    REPORT_RANK_COLS, bundle_art(BA_METRICS_JSON));
	strbuf_addch(out, '\n');
}
