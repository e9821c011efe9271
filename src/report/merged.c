/* merged.c: see merged.h. The JSON is built with jansson (sorted keys, so
 * two merges of the same ranks are byte-identical); the Markdown follows
 * the other reports: a short verdict first, then the tables. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/bundle_dir.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "model/model.h"
#include "model/table.h"
#include "report/merged.h"
#include "report/model_tables.h"
#include "report/report.h"
#include "core/banned.h"

static json_t *jstat(const struct merge_stat *s)
{
	if (!s->n)
		return json_null();
	return json_pack("{s:i, s:f, s:f, s:f, s:i, s:i}", "ranks", (int)s->n, "min_ms", s->min,
			 "median_ms", s->median, "max_ms", s->max, "min_rank", s->min_rank,
			 "max_rank", s->max_rank);
}

/* The residual after alignment; null without samples (fewer than two
 * ranks or no matched collective: nothing was measured). */
static json_t *jresidual(const struct coll_result *c)
{
	if (!c->residual_samples)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I}", "median_ns", (json_int_t)c->residual_median_ns,
			 "max_ns", (json_int_t)c->residual_max_ns, "samples",
			 (json_int_t)c->residual_samples, "threshold_ns",
			 (json_int_t)COLL_RESIDUAL_HIGH_NS);
}

static json_t *jcoll(const struct coll_result *c)
{
	json_t *ranks = json_array(), *strag = json_array(), *clocks = json_array();

	for (size_t i = 0; i < c->nranks; i++) {
		const struct coll_rank *r = &c->ranks[i];

		json_array_append_new(
		    ranks,
		    json_pack("{s:i, s:i, s:i, s:I, s:I, s:i, s:f, s:f, s:f, s:i}", "rank", r->rank,
			      "calls", (int)r->calls, "clock", r->clock, "clock_offset_ns",
			      (json_int_t)r->clock_offset_ns, "residual_ns",
			      (json_int_t)r->residual_ns, "unmatched", (int)r->unmatched, "wait_ms",
			      r->wait_ns / 1e6, "transfer_ms", r->transfer_ns / 1e6, "comm_ms",
			      r->comm_ns / 1e6, "arrived_last", (int)r->last_count));
	}
	for (size_t i = 0; i < c->nstragglers; i++)
		json_array_append_new(strag, json_pack("{s:i, s:i, s:f, s:f}", "rank",
						       c->stragglers[i].rank, "count",
						       (int)c->stragglers[i].count, "mean_late_us",
						       c->stragglers[i].mean_late_ns / 1e3, "share",
						       c->stragglers[i].share));
	for (size_t i = 0; i < c->nclocks; i++)
		json_array_append_new(
		    clocks, json_pack("{s:i, s:i, s:I, s:b, s:i, s:I, s:I}", "clock",
				      c->clocks[i].clock, "ranks", (int)c->clocks[i].ranks,
				      "offset_ns", (json_int_t)c->clocks[i].offset_ns, "aligned",
				      c->clocks[i].aligned, "samples", (int)c->clocks[i].samples,
				      "residual_ns", (json_int_t)c->clocks[i].residual_ns,
				      "residual_max_ns", (json_int_t)c->clocks[i].residual_max_ns));
	return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o}", "instances", (int)c->ninstances,
			 "mismatches", (int)c->nmismatches, "ranks", ranks, "stragglers", strag,
			 "clocks", clocks, "residual", jresidual(c));
}

/* "Rank N" of the reports' tables for coll.ranks[k]. */
static void rank_label(struct strbuf *sb, const struct merge_result *r, int k)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "rank %d", r->coll.ranks[k].rank);
}

/* Why each late rank is late, per stage, as metrics.json's late_by_stage
 * (its rank a number here), and why the cause is unknown. */
static void jcauses(json_t *coll, const struct merge_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nstraggles; i++)
		json_array_append_new(
		    a, report_straggle_json(
			   json_integer(r->coll.ranks[r->straggles[i].rank_index].rank),
			   &r->straggles[i]));
	json_object_set_new(coll, "late_by_stage", a);
	json_object_set_new(coll, "cause_unknown_why",
			    r->cause_why ? json_string(r->cause_why) : json_null());
}

/* How the model's work is shared, in one sentence; "" with none. */
static json_t *bw(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

/* A rank's NCCL calls and bytes; null without NCCL calls. */
static json_t *jnccl(const struct merge_rank *m)
{
	json_t *a;

	if (!m->nnccl && !m->nccl_why)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < m->nnccl; i++) {
		const struct merge_nccl *n = &m->nccl[i];

		json_array_append_new(
		    a,
		    json_pack("{s:s, s:I, s:I, s:o, s:f, s:o, s:o, s:o}", "type", n->type, "calls",
			      (json_int_t)n->calls, "sized_calls", (json_int_t)n->sized, "bytes",
			      n->sized ? json_integer((json_int_t)n->bytes) : json_null(),
			      "kernel_time_ms", n->kernel_ms, "algbw_gbps", bw(n->algbw_gbps),
			      "busbw_gbps", bw(n->busbw_gbps), "ranks",
			      n->ranks > 0 ? json_integer(n->ranks) : json_null()));
	}
	return json_pack("{s:o, s:o}", "by_type", a, "bytes_unknown_why",
			 m->nccl_why ? json_string(m->nccl_why) : json_null());
}

/* t's Markdown; t released. */
static void md_table(struct table *t, struct strbuf *sb)
{
	table_write_md(t, sb);
	table_release(t);
}

/* "%.2f" of a bandwidth, or "n/a" (negative: unknown). */
static void add_bw(struct table *t, double gbps)
{
	if (gbps >= 0)
		table_addf(t, "%.2f", gbps);
	else
		table_add_str(t, "n/a");
}

/* Each rank's NCCL calls and bytes, from its own report. */
static void md_nccl(struct strbuf *sb, const struct merge_result *r)
{
	struct table t;
	int any = 0;

	for (size_t i = 0; i < r->nranks; i++)
		any |= r->ranks[i].nnccl > 0;
	if (!any)
		return;
	strbuf_addstr(sb, "\n## NCCL calls and bytes\n\nEach rank's NCCL API calls with the bytes "
			  "NCCL's NVTX payloads record, from its own report (algbw and busbw in "
			  "GB/s over the calls that launched a kernel; docs/collectives.md).\n\n");
	table_init(&t, "rlrrrrrr", "Rank", "Collective", "Calls", "Bytes/call", "Bytes",
		   "Kernel time ms", "algbw", "busbw", NULL);
	for (size_t i = 0; i < r->nranks; i++)
		for (size_t j = 0; j < r->ranks[i].nnccl; j++) {
			const struct merge_nccl *n = &r->ranks[i].nccl[j];

			table_addf(&t, "%d", r->ranks[i].rank);
			table_add_str(&t, n->type);
			table_addf(&t, "%llu", (unsigned long long)n->calls);
			if (n->sized) {
				table_addf(&t, "%.0f", (double)n->bytes / (double)n->sized);
				table_addf(&t, "%llu", (unsigned long long)n->bytes);
			} else {
				table_add_str(&t, "n/a");
				table_addf(&t, "n/a (%s)",
					   r->ranks[i].nccl_why ? r->ranks[i].nccl_why
								: "not recorded");
			}
			table_addf(&t, "%.3f", n->kernel_ms);
			add_bw(&t, n->algbw_gbps);
			add_bw(&t, n->busbw_gbps);
		}
	md_table(&t, sb);
}

static const char *split_basis(const struct merge_result *r)
{
	switch (r->split) {
	case MERGE_SPLIT_REPLICA:
		return "no rank ran NCCL kernels, so each is taken as a replica running the "
		       "whole model: a rank's MFU/MBU is the one its own report states";
	case MERGE_SPLIT_GROUP:
		return "every NCCL collective matched across the ranks, so they are taken as one "
		       "model-parallel (tensor-parallel) group of the world size: a rank's "
		       "MFU/MBU is its own report's (the whole model's work) divided by the world "
		       "size";
	case MERGE_SPLIT_UNKNOWN:
		return "the NCCL collectives do not match across the ranks (subgroups, "
		       "point-to-point, missing calls), so how the model's work is shared is "
		       "unknown: no per-rank MFU/MBU";
	case MERGE_SPLIT_NONE:
		break;
	}
	return "";
}

static json_t *jsplit(const struct merge_result *r)
{
	static const char *const names[] = {NULL, "replicas", "model-parallel", "unknown"};

	if (r->split == MERGE_SPLIT_NONE)
		return json_null();
	return json_pack("{s:s, s:o, s:s}", "split", names[r->split], "divisor",
			 r->split == MERGE_SPLIT_UNKNOWN ? json_null() : json_integer(r->divisor),
			 "basis", split_basis(r));
}

/* The clock a domain's ranks state, or NULL when its rank states none. */
static const char *clock_name(const struct merge_result *r, int clock)
{
	for (size_t i = 0; i < r->nranks; i++)
		if (!r->ranks[i].failed && r->ranks[i].collectives && r->ranks[i].clock_id == clock)
			return r->ranks[i].clock;
	return NULL;
}

/* What makes the cross-rank times less certain, one sentence each (the
 * trust items of the merge, also in merged.json "trust"). */
static void trust_items(const struct merge_result *r, json_t *out)
{
	const struct coll_result *c = &r->coll;
	struct strbuf sb = STRBUF_INIT;

	if (!r->have_coll)
		return;
	if (r->nunstated) {
		strbuf_addstr(&sb, "rank");
		strbuf_addstr(&sb, r->nunstated > 1 ? "s" : "");
		for (size_t i = 0, k = 0; i < r->nranks; i++)
			if (!r->ranks[i].failed && r->ranks[i].collectives && !r->ranks[i].clock)
				strbuf_addf(&sb, "%s %d", k++ ? "," : "", r->ranks[i].rank);
		strbuf_addf(&sb,
			    " state%s no clock (a %s of version 1, or a trace without a session "
			    "start: times from each process's own origin), so %s aligned on "
			    "collective ends alone",
			    r->nunstated > 1 ? "" : "s", bundle_art(BA_COLLECTIVES),
			    r->nunstated > 1 ? "they were" : "it was");
		json_array_append_new(out, json_string(sb.buf));
		strbuf_reset(&sb);
	}
	for (size_t h = 1; h < c->nclocks; h++)
		if (!c->clocks[h].aligned) {
			strbuf_addf(&sb,
				    "clock %d shares no matched collective with clock %d: not "
				    "aligned, its waits are not comparable",
				    c->clocks[h].clock, c->clocks[0].clock);
			json_array_append_new(out, json_string(sb.buf));
			strbuf_reset(&sb);
		}
	if (c->residual_samples && c->residual_median_ns > COLL_RESIDUAL_HIGH_NS) {
		strbuf_addf(&sb,
			    "clock residual after alignment %.1f us (median; above %.0f us): "
			    "waits and lateness are uncertain by that much",
			    c->residual_median_ns / 1e3, COLL_RESIDUAL_HIGH_NS / 1e3);
		json_array_append_new(out, json_string(sb.buf));
	} else if (!c->residual_samples && c->nranks > 1) {
		json_array_append_new(out, json_string("no collective matched across the ranks: "
						       "clocks not aligned, no residual measured"));
	}
	strbuf_release(&sb);
}

static json_t *jfindings(const struct merge_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nfindings; i++) {
		const struct coll_finding *f = &r->findings[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:s, s:o}", "severity",
				 finding_severity_name((enum finding_severity)f->severity), "code",
				 f->code, "text", f->text, "recommendation",
				 f->recommendation ? json_string(f->recommendation) : json_null()));
	}
	return a;
}

/* The findings, most severe first: what each says and what to do. */
static void md_findings(struct strbuf *sb, const struct merge_result *r)
{
	if (!r->nfindings)
		return;
	strbuf_addstr(sb, "\n## Findings\n\n");
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct coll_finding *f = &r->findings[i];

		strbuf_addf(sb, "- **%s** (`%s`): %s",
			    finding_severity_name((enum finding_severity)f->severity), f->code,
			    f->text);
		if (f->recommendation)
			strbuf_addf(sb, " %s", f->recommendation);
		strbuf_addch(sb, '\n');
	}
}

static char *merged_json(const struct merge_result *r)
{
	json_t *root = json_object(), *ranks = json_array(), *missing = json_array();
	json_t *stages = json_array(), *trust = json_array();
	char *text;

	for (size_t i = 0; i < r->nranks; i++) {
		const struct merge_rank *m = &r->ranks[i];
		json_t *o =
		    json_pack("{s:i, s:s, s:s, s:i}", "rank", m->rank, "host", m->host, "state",
			      m->failed ? "failed" : "ok", "collectives", (int)m->collectives);

		if (m->failed)
			json_object_set_new(o, "why", json_string(m->why));
		json_object_set_new(o, "clock", m->clock ? json_string(m->clock) : json_null());
		json_object_set_new(o, "nccl_calls", jnccl(m));
		for (int k = 0; k < MERGE_NSTAGES; k++) {
			double u = merge_rank_util(r, m, k);

			json_object_set_new(
			    o, r->stages[k].name,
			    m->have[k]
				? json_pack("{s:f, s:f, s:o, s:i, s:o, s:o}", "gpu_ms",
					    m->gpu_ms[k], "busy_ms", m->busy_ms[k], "step_p50_ms",
					    m->step_p50_ms[k] >= 0 ? json_real(m->step_p50_ms[k])
								   : json_null(),
					    "kernels", (int)m->kernels[k],
					    k == MERGE_PREFILL ? "mfu_datasheet" : "mbu_datasheet",
					    u >= 0 ? json_real(u) : json_null(),
					    k == MERGE_PREFILL ? "mfu_counter" : "mbu_counter",
					    m->util_counter[k] >= 0 ? json_real(m->util_counter[k])
								    : json_null())
				: json_null());
		}
		json_array_append_new(ranks, o);
	}
	for (size_t i = 0; i < r->nmissing; i++)
		json_array_append_new(missing, json_integer(r->missing[i]));
	for (int k = 0; k < MERGE_NSTAGES; k++)
		json_array_append_new(stages,
				      json_pack("{s:s, s:o, s:o}", "name", r->stages[k].name, "gpu",
						jstat(&r->stages[k].gpu), "step_p50",
						jstat(&r->stages[k].step_p50)));
	json_object_set_new(root, "schema", json_string("llmprof.merged/1"));
	json_object_set_new(root, "complete", json_boolean(!r->nmissing && !r->nfailed));
	json_object_set_new(root, "world_size", json_integer(r->world_size));
	json_object_set_new(root, "ranks", ranks);
	json_object_set_new(root, "missing", missing);
	json_object_set_new(root, "failed", json_integer((json_int_t)r->nfailed));
	json_object_set_new(root, "stages", stages);
	json_object_set_new(root, "slowest_rank",
			    r->slowest_rank >= 0 ? json_integer(r->slowest_rank) : json_null());
	json_object_set_new(root, "slowest_by",
			    r->slowest_by ? json_string(r->slowest_by) : json_null());
	if (r->have_coll) {
		json_t *c = jcoll(&r->coll);

		jcauses(c, r);
		json_object_set_new(root, "collectives", c);
	} else {
		json_object_set_new(root, "collectives", json_null());
	}
	json_object_set_new(root, "utilization", jsplit(r));
	trust_items(r, trust);
	json_object_set_new(root, "trust", trust);
	json_object_set_new(root, "findings", jfindings(r));
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	return text;
}

static void add_stat(struct table *t, const char *stage, const char *what,
		     const struct merge_stat *s)
{
	if (!s->n)
		return;
	table_add_str(t, stage);
	table_add_str(t, what);
	table_addf(t, "%zu", s->n);
	table_addf(t, "%.3f", s->min);
	table_addf(t, "%.3f", s->median);
	table_addf(t, "%.3f", s->max);
	table_addf(t, "rank %d", s->max_rank);
}

static void md_clocks(struct strbuf *sb, const struct merge_result *r)
{
	const struct coll_result *c = &r->coll;
	json_t *trust = json_array(), *x;
	size_t i;

	strbuf_addf(sb, "%zu clock domain%s", c->nclocks, c->nclocks == 1 ? "" : "s");
	for (size_t h = 0; h < c->nclocks; h++) {
		const char *name = clock_name(r, c->clocks[h].clock);

		strbuf_addf(sb, "%sclock %d: %s, %zu rank%s", h ? "; " : " (", c->clocks[h].clock,
			    name ? name : "none stated", c->clocks[h].ranks,
			    c->clocks[h].ranks == 1 ? "" : "s");
		if (h)
			strbuf_addf(sb, ", offset %.1f us", c->clocks[h].offset_ns / 1e3);
	}
	strbuf_addstr(sb, c->nclocks ? "), aligned on collective end times. " : ". ");
	if (c->residual_samples)
		strbuf_addf(sb,
			    "Clock residual after alignment (each rank's collective ends against "
			    "the other ranks'): median %.1f us, largest %.1f us, over %zu "
			    "samples.\n",
			    c->residual_median_ns / 1e3, c->residual_max_ns / 1e3,
			    c->residual_samples);
	else
		strbuf_addstr(sb, "No clock residual: it needs two ranks and a matched "
				  "collective.\n");
	trust_items(r, trust);
	json_array_foreach(trust, i, x)
	{
		strbuf_addf(sb, "%s**Trust:** %s.\n", i ? "" : "\n", json_string_value(x));
	}
	json_decref(trust);
	strbuf_addch(sb, '\n');
}

/* Per stage, the ranks late at its collectives and why, as report.md's
 * table (docs/collectives.md "Why a rank is late"). */
static void md_late(struct strbuf *sb, const struct merge_result *r)
{
	struct strbuf label = STRBUF_INIT;
	struct table t;

	if (!r->nstraggles)
		return;
	strbuf_addstr(sb,
		      "\n### Why ranks are late\n\nPer stage, each rank last at 20 % or more of "
		      "its collectives: lateness where it was last, the first steps against "
		      "the rest, and the cause from each rank's GPU time before the "
		      "collective (busy, idle: its value minus the other ranks' median) and "
		      "its launch lag (docs/collectives.md).\n\n");
	rtable_coll_late_init(&t);
	for (size_t i = 0; i < r->nstraggles; i++) {
		rank_label(&label, r, r->straggles[i].rank_index);
		rtable_coll_late_row(&t, label.buf, &r->straggles[i]);
	}
	md_table(&t, sb);
	if (r->cause_why)
		strbuf_addf(sb, "\nCause unknown: %s.\n", r->cause_why);
	strbuf_release(&label);
}

static void md_collectives(struct strbuf *sb, const struct merge_result *r)
{
	const struct coll_result *c = &r->coll;
	struct table t;

	strbuf_addf(sb, "\n## Collectives\n\n%zu matched NCCL collectives", c->ninstances);
	if (c->nmismatches)
		strbuf_addf(sb, "; %zu sequences not matched (call counts differ between ranks)",
			    c->nmismatches);
	strbuf_addstr(sb, ". ");
	md_clocks(sb, r);
	table_init(&t, "rrrrrrrr", "Rank", "Calls", "Wait ms", "Transfer ms", "Arrived last",
		   "Clock", "Clock offset us", "Residual us", NULL);
	for (size_t i = 0; i < c->nranks; i++) {
		table_addf(&t, "%d", c->ranks[i].rank);
		table_addf(&t, "%zu", c->ranks[i].calls);
		table_addf(&t, "%.3f", c->ranks[i].wait_ns / 1e6);
		table_addf(&t, "%.3f", c->ranks[i].transfer_ns / 1e6);
		table_addf(&t, "%zu", c->ranks[i].last_count);
		table_addf(&t, "%d", c->ranks[i].clock);
		table_addf(&t, "%.1f", c->ranks[i].clock_offset_ns / 1e3);
		c->residual_samples ? table_addf(&t, "%.1f", c->ranks[i].residual_ns / 1e3)
				    : table_add_str(&t, "-");
	}
	md_table(&t, sb);
	if (c->nstragglers)
		strbuf_addf(sb,
			    "\nStraggler: rank %d arrived last in %zu collectives (%.0f %%), "
			    "%.1f us late on average.\n",
			    c->stragglers[0].rank, c->stragglers[0].count,
			    c->stragglers[0].share * 100, c->stragglers[0].mean_late_ns / 1e3);
	md_late(sb, r);
}

/* One row of the ranks table: state, each stage's GPU time, the decode
 * step p50, NCCL kernels and each stage's MFU/MBU ("-": none). */
static void add_rank(struct table *t, const struct merge_result *r, const struct merge_rank *m)
{
	table_addf(t, "%d", m->rank);
	table_add_str(t, m->host);
	table_add_str(t, m->failed ? "failed" : "ok");
	for (int k = 0; k < MERGE_NSTAGES; k++)
		m->have[k] ? table_addf(t, "%.3f", m->gpu_ms[k]) : table_add_str(t, "-");
	m->have[MERGE_DECODE] && m->step_p50_ms[MERGE_DECODE] >= 0
	    ? table_addf(t, "%.3f", m->step_p50_ms[MERGE_DECODE])
	    : table_add_str(t, "-");
	table_addf(t, "%zu", m->collectives);
	for (int k = 0; k < MERGE_NSTAGES; k++) {
		double u = merge_rank_util(r, m, k);

		if (u >= 0)
			table_addf(t, "%.1f%%", 100 * u);
		else if (!m->failed && m->util_counter[k] >= 0)
			table_addf(t, "%.1f%% (counters)", 100 * m->util_counter[k]);
		else
			table_add_str(t, "-");
	}
}

/* Whether some rank's MFU/MBU shows from counters alone. */
static int any_counter_only(const struct merge_result *r)
{
	for (size_t i = 0; i < r->nranks; i++)
		for (int k = 0; k < MERGE_NSTAGES; k++)
			if (!r->ranks[i].failed && merge_rank_util(r, &r->ranks[i], k) < 0 &&
			    r->ranks[i].util_counter[k] >= 0)
				return 1;
	return 0;
}

static void merged_md(struct strbuf *sb, const struct merge_result *r)
{
	struct table t;

	strbuf_addf(sb, "# Merged ranks\n\n%zu of %d ranks merged", r->nranks - r->nfailed,
		    r->world_size);
	if (r->slowest_rank >= 0)
		strbuf_addf(sb, "; slowest: rank %d by %s", r->slowest_rank, r->slowest_by);
	strbuf_addstr(sb, ".\n");
	if (r->nmissing || r->nfailed) {
		strbuf_addstr(sb, "\n**incomplete:**");
		for (size_t i = 0; i < r->nmissing; i++)
			strbuf_addf(sb, "%s rank %d missing", i ? "," : "", r->missing[i]);
		for (size_t i = 0; i < r->nranks; i++)
			if (r->ranks[i].failed)
				strbuf_addf(sb, "%s rank %d failed (%s)",
					    r->nmissing || i ? ";" : "", r->ranks[i].rank,
					    r->ranks[i].why);
		strbuf_addstr(sb, ".\n");
	}
	strbuf_addstr(sb, "\n## Stages across ranks\n\n");
	table_init(&t, "llrrrrl", "Stage", "Metric", "Ranks", "Min ms", "Median ms", "Max ms",
		   "Max on", NULL);
	for (int k = 0; k < MERGE_NSTAGES; k++) {
		add_stat(&t, r->stages[k].name, "GPU time", &r->stages[k].gpu);
		if (r->stages[k].step_p50.n) /* none for a stage without steps */
			add_stat(&t, r->stages[k].name, "step p50", &r->stages[k].step_p50);
	}
	md_table(&t, sb);
	_Static_assert(MERGE_NSTAGES == 2, "the ranks table names prefill and decode");
	strbuf_addstr(sb, "\n## Ranks\n\n");
	table_init(&t, "rllrrrrrr", "Rank", "Host", "State", "Prefill GPU ms", "Decode GPU ms",
		   "Decode step p50 ms", "NCCL kernels", "Prefill MFU", "Decode MBU", NULL);
	for (size_t i = 0; i < r->nranks; i++)
		add_rank(&t, r, &r->ranks[i]);
	md_table(&t, sb);
	if (r->split != MERGE_SPLIT_NONE)
		strbuf_addf(sb, "\nMFU/MBU (datasheet peaks, each rank's stage time): %s.\n",
			    split_basis(r));
	if (any_counter_only(r))
		strbuf_addstr(sb, "\n\"(counters)\": the rank's own Nsight Compute counters (FLOPs "
				  "or DRAM bytes of its counted kernels, scaled to its stage's "
				  "kernel time) / its stage time / the datasheet peak, where no "
				  "model work is known; not shared between ranks.\n");
	md_findings(sb, r);
	if (r->have_coll)
		md_collectives(sb, r);
	md_nccl(sb, r);
}

int merged_write(const struct merge_result *r, const struct bundle_dir *bd, const char *dir,
		 struct strbuf *err)
{
	struct strbuf md = STRBUF_INIT, p = STRBUF_INIT;
	char *json = merged_json(r);
	int ret;

	merged_md(&md, r);
	path_join(&p, dir, bundle_art_base(BA_MERGED_MD));
	ret = bundle_dir_write(bd, p.buf, md.buf, md.len, err);
	strbuf_reset(&p);
	path_join(&p, dir, bundle_art_base(BA_MERGED_JSON));
	if (!ret) {
		ret = bundle_dir_write(bd, p.buf, json, strlen(json), err);
	}
	free(json);
	strbuf_release(&md);
	strbuf_release(&p);
	return ret;
}
