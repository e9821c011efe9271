/* collectives_findings.c: a collectives result -> findings with numbers,
 * in findings.c's form (severity, stable code, one sentence, what to try)
 * but returned to the caller instead of added to a report model, so that
 * the per-rank reports decide where they go. A rule whose numbers are
 * missing stays silent. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/collectives_cause.h"
#include "core/md.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/model.h"
#include "core/banned.h"

struct flist {
	struct coll_finding *v;
	size_t n, alloc;
};

static void add(struct flist *l, enum finding_severity sev, const char *code, const char *rec,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct flist *l, enum finding_severity sev, const char *code, const char *rec,
		const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	struct coll_finding *f;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	f = &l->v[l->n++];
	f->severity = (int)sev;
	f->code = xstrdup(code);
	f->text = strbuf_detach(&sb, NULL);
	f->recommendation = rec ? xstrdup(rec) : NULL;
}

static double us(double ns)
{
	return ns / 1000.0;
}

/* How a finding names r->ranks[i]: its label, capitalised at the start of
 * a sentence ("Rank 1", "Local rank 1 (pid 4242)"), or "Process pid 4242"
 * when only a pid names it. */
static void rank_name(struct strbuf *sb, const struct coll_result *r, const char *const *labels,
		      size_t i)
{
	const char *l = labels ? labels[i] : NULL;

	if (!l) {
		strbuf_addf(sb, "Rank %d", r->ranks[i].rank);
		return;
	}
	if (!strncmp(l, "rank ", 5)) {
		strbuf_addf(sb, "Rank %s", l + 5);
		return;
	}
	if (!strncmp(l, "local rank ", 11)) { /* "local rank 1 (pid 4242)" */
		strbuf_addstr(sb, "Local rank ");
		md_escape_inline(sb, l + 11);
		return;
	}
	strbuf_addstr(sb, "Process ");
	md_escape_inline(sb, l);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* p50 / p90 / max of rank index k's lateness where it arrived last (nearest
 * rank below, as collectives_cause.h). */
static void late_dist(const struct coll_result *r, size_t k, int64_t q[3])
{
	int64_t *v = xmalloc(st_mult(r->ninstances + 1, sizeof(*v)));
	size_t n = 0;

	for (size_t i = 0; i < r->ninstances; i++)
		if (r->instances[i].last_rank == k)
			v[n++] = r->instances[i].late_ns;
	qsort(v, n, sizeof(*v), cmp_i64);
	q[0] = n ? v[n / 2 < n ? n / 2 : n - 1] : 0;
	q[1] = n ? v[(size_t)(0.9 * (double)n) < n ? (size_t)(0.9 * (double)n) : n - 1] : 0;
	q[2] = n ? v[n - 1] : 0;
	free(v);
}

/* " In decode (...): ... Cause: ..." for straggle s; the recommendation
 * its cause calls for into *rec (static). why: what the causes say when
 * none is known (NULL: nothing). */
static void cause_text(struct strbuf *sb, const struct coll_straggle *s, const char *why,
		       const char **rec)
{
	strbuf_addf(sb,
		    " In %s it is last at %zu of %zu collectives: p50 %.1f us, p90 %.1f us, "
		    "max %.1f us late",
		    s->stage, s->count, s->instances, us((double)s->late.p50_ns),
		    us((double)s->late.p90_ns), us((double)s->late.max_ns));
	strbuf_addch(sb, '.');
	if (s->early_instances && s->early_instances < s->instances) {
		strbuf_addf(sb, " In %s of them it is last at %zu of %zu",
			    s->early_by_steps ? "the first 2 steps" : "the first tenth", s->early.n,
			    s->early_instances);
		if (s->early.n)
			strbuf_addf(sb, " (p50 %.1f us)", us((double)s->early.p50_ns));
		strbuf_addf(sb, ", after them at %zu of %zu", s->steady.n,
			    s->instances - s->early_instances);
		if (s->steady.n)
			strbuf_addf(sb, " (p50 %.1f us)", us((double)s->steady.p50_ns));
		strbuf_addch(sb, '.');
	}
	*rec = NULL;
	if (!s->explained) {
		if (why)
			strbuf_addf(sb, " Cause unknown: %s.", why);
		return;
	}
	strbuf_addf(sb,
		    " Cause: **%s**. Between its previous NCCL kernel and this one its GPU was "
		    "busy %+.1f us and idle %+.1f us against the other ranks' median, with %+.1f "
		    "kernels",
		    coll_cause_name(s->cause), us(s->busy_ns), us(s->idle_ns), s->kernels);
	if (!isnan(s->lag_ns))
		strbuf_addf(sb,
			    "; its collective started %.1f us after its host launched it (the "
			    "others' %.1f us)",
			    us(s->lag_ns), us(s->others_lag_ns));
	strbuf_addf(sb, " (means over %zu collectives).", s->explained);
	if (s->extra_n && (double)s->extra_n >= COLL_CAUSE_MIN_SHARE * (double)s->count &&
	    s->extra_busy_ns >= COLL_STRAGGLER_MIN_NS)
		strbuf_addf(sb,
			    " Before %zu of them it also ran %.1f more kernels than the others, "
			    "%.1f us more GPU time: work the other ranks do not have.",
			    s->extra_n, s->extra_kernels, us(s->extra_busy_ns));
	if (s->cause == COLL_CAUSE_HOST)
		*rec =
		    "Its GPU waits for its host to launch work: look at what that process does on "
		    "the CPU before the collective (Python overhead, logging, data loading, "
		    "another thread or process on its cores; pin each rank to its own cores, "
		    "e.g. numactl or taskset per local rank), or capture the step in a CUDA "
		    "graph so that launches leave the critical path.";
	else if (s->cause == COLL_CAUSE_GPU && s->kernels >= 0.5)
		*rec = "Its GPU runs more kernels between collectives than the others: find the "
		       "extra work in its per-rank kernel table (an operator only this rank runs, "
		       "uneven shards) and balance it.";
	else if (s->cause == COLL_CAUSE_GPU)
		*rec = "Its GPU takes longer for the same kernels: check that GPU's clocks, power "
		       "and temperature (nvidia-smi -q -d CLOCK,PERFORMANCE), its placement, and "
		       "other processes sharing it; compare its kernel table with another rank's.";
}

/* The straggle of rank index k in stage (else its largest), or NULL. */
static const struct coll_straggle *straggle_of(const struct coll_causes *cs, size_t k,
					       const char *stage)
{
	const struct coll_straggle *best = NULL;

	for (size_t i = 0; cs && i < cs->n; i++) {
		if (cs->v[i].rank_index != k)
			continue;
		if (stage && !strcmp(cs->v[i].stage, stage))
			return &cs->v[i];
		if (!best || cs->v[i].count > best->count)
			best = &cs->v[i];
	}
	return best;
}

static const char generic_rec[] =
    "Look at what this rank does before its collectives that the others do not (its "
    "kernels and host gaps in the per-rank views): a slower GPU, more work, a CPU-bound "
    "launch thread, or a busier host.";

/* The rank that arrives last in most matched collectives, when it does so
 * in at least COLL_STRAGGLER_SHARE of them by COLL_STRAGGLER_MIN_NS on
 * average: the others wait that long for it every time. With causes, why,
 * in the stage `stage` (else where it is last most). */
/* Whether the ranks ran on more than one host (then a rank is named with
 * its host). */
static int several_hosts(const struct coll_result *r)
{
	for (size_t i = 1; i < r->nranks; i++)
		if (r->ranks[i].host != r->ranks[0].host)
			return 1;
	return 0;
}

static void rule_straggler(struct flist *l, const struct coll_result *r, const char *stage,
			   const struct coll_causes *cs, const char *const *labels)
{
	const struct coll_straggler *s;
	const struct coll_straggle *st;
	struct strbuf sb = STRBUF_INIT;
	const char *rec = NULL;
	int64_t q[3];

	if (!r->nstragglers || !r->ninstances || r->nranks < 2)
		return;
	s = &r->stragglers[0];
	if (s->share < COLL_STRAGGLER_SHARE || s->mean_late_ns < COLL_STRAGGLER_MIN_NS)
		return;
	late_dist(r, s->rank_index, q);
	rank_name(&sb, r, labels, s->rank_index);
	if (several_hosts(r))
		strbuf_addf(&sb, " (host %d)", r->ranks[s->rank_index].host);
	strbuf_addf(&sb,
		    " arrives last at %zu of %zu collectives (%.0f%%), after the median of the "
		    "other ranks by %.1f us at p50, %.1f us at p90, %.1f us at most (mean %.1f us, "
		    "%.3f ms in total): every other rank waits for it.",
		    s->count, r->ninstances, s->share * 100, us((double)q[0]), us((double)q[1]),
		    us((double)q[2]), us(s->mean_late_ns), (double)s->late_ns / 1e6);
	st = straggle_of(cs, s->rank_index, stage);
	if (st)
		cause_text(&sb, st, cs->unknown_why, &rec);
	add(l, FINDING_WARNING, "collective-straggler", rec ? rec : generic_rec, "%s", sb.buf);
	strbuf_release(&sb);
}

/* Other (rank, stage) pairs late often enough to matter, with their cause:
 * a second straggler hidden behind the first, or the same rank late for
 * another reason in another stage. */
static void rule_late_ranks(struct flist *l, const struct coll_result *r, const char *stage,
			    const struct coll_causes *cs, const char *const *labels)
{
	const struct coll_straggle *main = NULL;

	if (!cs || r->nranks < 2)
		return;
	if (r->nstragglers && r->stragglers[0].share >= COLL_STRAGGLER_SHARE &&
	    r->stragglers[0].mean_late_ns >= COLL_STRAGGLER_MIN_NS)
		main = straggle_of(cs, r->stragglers[0].rank_index, stage);
	for (size_t i = 0; i < cs->n; i++) {
		const struct coll_straggle *s = &cs->v[i];
		struct strbuf sb = STRBUF_INIT;
		const char *rec = NULL;

		/* the main straggler's other stages repeat it; outside every stage
		 * is warm-up */
		if ((main && s->rank_index == main->rank_index) ||
		    !strcmp(s->stage, COLL_NO_STAGE) || s->late.mean_ns < COLL_STRAGGLER_MIN_NS ||
		    !s->explained || (double)s->count < COLL_CAUSE_MIN_SHARE * (double)s->instances)
			continue;
		rank_name(&sb, r, labels, s->rank_index);
		strbuf_addstr(&sb, " is late too.");
		cause_text(&sb, s, cs->unknown_why, &rec);
		add(l, FINDING_INFO, "collective-late-rank", rec, "%s", sb.buf);
		strbuf_release(&sb);
	}
}

/* Exposed communication in the stage's windows, summed over ranks, as a
 * share of the windows' time. Silent when no rank gave a kernel other than
 * NCCL's (the merge's per-rank files list NCCL kernels only): what compute
 * hid is then unknown, not nothing. */
static void rule_exposed(struct flist *l, const struct coll_result *r, const char *stage)
{
	int64_t win = 0, comm = 0, exp = 0;
	struct strbuf name = STRBUF_INIT;
	size_t others = 0;
	double share;

	for (size_t i = 0; i < r->nranks; i++)
		others += r->ranks[i].other_kernels;
	if (!stage || !others)
		return;
	for (size_t i = 0; i < r->nranks; i++)
		for (size_t s = 0; s < r->ranks[i].nstages; s++)
			if (!strcmp(r->ranks[i].stages[s].stage, stage)) {
				win += r->ranks[i].stages[s].window_ns;
				comm += r->ranks[i].stages[s].comm_ns;
				exp += r->ranks[i].stages[s].exposed_ns;
			}
	if (win <= 0 || comm <= 0)
		return;
	share = (double)exp / (double)win;
	md_escape_inline(&name, stage);
	if (share >= COLL_EXPOSED_SHARE_HIGH)
		add(l, FINDING_WARNING, "collective-exposed",
		    "Overlap communication with compute (async collectives, "
		    "communication/compute overlap in the framework), or reduce what is "
		    "communicated per step.",
		    "Communication not overlapped by compute takes %.1f%% of %s (%.3f ms of "
		    "%.3f ms, all ranks; %.3f ms of NCCL kernel time in it).",
		    share * 100, name.buf, (double)exp / 1e6, (double)win / 1e6,
		    (double)comm / 1e6);
	else
		add(l, FINDING_INFO, "collective-exposed", NULL,
		    "Communication not overlapped by compute takes %.1f%% of %s (%.3f ms of "
		    "%.3f ms, all ranks).",
		    share * 100, name.buf, (double)exp / 1e6, (double)win / 1e6);
	strbuf_release(&name);
}

static void rule_mismatch(struct flist *l, const struct coll_result *r)
{
	for (size_t i = 0; i < r->nmismatches; i++) {
		const struct coll_mismatch *m = &r->mismatches[i];

		add(l, FINDING_WARNING, "collective-count-mismatch",
		    "The capture may have started or stopped at different moments on different "
		    "ranks; capture the same steps on every rank to compare them.",
		    "%s on NCCL stream %zu: rank %d has %zu calls, rank %d has %zu (%zu ranks "
		    "short), so none of them was matched across ranks.",
		    coll_type_name(m->type), m->stream_ord, m->min_rank, m->min_calls, m->max_rank,
		    m->max_calls, m->ranks_short);
	}
}

static void rule_residual(struct flist *l, const struct coll_result *r)
{
	const struct coll_rank *worst = NULL;

	for (size_t h = 1; h < r->nclocks; h++)
		if (!r->clocks[h].aligned)
			add(l, FINDING_WARNING, "clock-unaligned",
			    "Capture at least one collective on every rank.",
			    "Clock %d (rank%s of host %d) shares no matched collective with clock "
			    "%d: it could not be aligned, and waits across the two are not "
			    "comparable.",
			    r->clocks[h].clock, r->clocks[h].ranks > 1 ? "s" : "",
			    r->clocks[h].host, r->clocks[0].clock);
	for (size_t i = 0; i < r->nranks; i++)
		if (!worst || r->ranks[i].residual_ns > worst->residual_ns)
			worst = &r->ranks[i];
	if (r->residual_samples && worst && r->residual_median_ns > COLL_RESIDUAL_HIGH_NS)
		add(l, FINDING_WARNING, "clock-residual",
		    "Clocks drift, a rank's times are not of the clock it states, or collective "
		    "ends differ across ranks: read every wait and lateness as uncertain by this "
		    "much.",
		    "After aligning clocks on collective end times, a rank's ends still differ "
		    "from the other ranks' by %.1f us (median, %zu samples; largest %.1f us; "
		    "rank %d the most, %.1f us).",
		    us((double)r->residual_median_ns), r->residual_samples,
		    us((double)r->residual_max_ns), worst->rank, us((double)worst->residual_ns));
}

static int cmp_severity(const void *a, const void *b)
{
	const struct coll_finding *x = a, *y = b;

	return y->severity - x->severity;
}

size_t coll_findings(const struct coll_result *r, const char *stage,
		     const struct coll_causes *causes, const char *const *labels,
		     struct coll_finding **out)
{
	struct flist l = {0};

	rule_straggler(&l, r, stage, causes, labels);
	rule_late_ranks(&l, r, stage, causes, labels);
	rule_exposed(&l, r, stage);
	rule_mismatch(&l, r);
	rule_residual(&l, r);
	/* most severe first, rule order within a severity: an insertion sort
	 * is stable (qsort is not) and the list is short */
	for (size_t i = 1; i < l.n; i++) {
		struct coll_finding f = l.v[i];
		size_t j = i;

		while (j > 0 && cmp_severity(&l.v[j - 1], &f) > 0) {
			l.v[j] = l.v[j - 1];
			j--;
		}
		l.v[j] = f;
	}
	*out = l.v;
	return l.n;
}

void coll_findings_free(struct coll_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].code);
		free(f[i].text);
		free(f[i].recommendation);
	}
	free(f);
}
