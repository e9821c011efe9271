/* collectives_findings.c: a collectives result -> findings with numbers,
 * in findings.c's form (severity, stable code, one sentence, what to try)
 * but returned to the caller instead of added to a report model, so that
 * the per-rank reports decide where they go. A rule whose numbers are
 * missing stays silent. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
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

/* The rank that arrives last in most matched collectives, when it does so
 * in at least COLL_STRAGGLER_SHARE of them by COLL_STRAGGLER_MIN_NS on
 * average: the others wait that long for it every time. */
static void rule_straggler(struct flist *l, const struct coll_result *r)
{
	const struct coll_straggler *s;
	const struct coll_rank *rk;

	if (!r->nstragglers || !r->ninstances || r->nranks < 2)
		return;
	s = &r->stragglers[0];
	if (s->share < COLL_STRAGGLER_SHARE || s->mean_late_ns < COLL_STRAGGLER_MIN_NS)
		return;
	rk = &r->ranks[s->rank_index];
	add(l, FINDING_WARNING, "collective-straggler",
	    "Look at what this rank does before its collectives that the others do not (its "
	    "kernels and host gaps in the per-rank views): a slower GPU, more work, a CPU-bound "
	    "launch thread, or a busier host.",
	    "Rank %d (host %d) arrives last at %zu of %zu collectives (%.0f%%), %.1f us after "
	    "the median of the other ranks on average (%.3f ms in total): every other rank "
	    "waits for it.",
	    s->rank, rk->host, s->count, r->ninstances, s->share * 100, us(s->mean_late_ns),
	    (double)s->late_ns / 1e6);
}

/* Exposed communication in the stage's windows, summed over ranks, as a
 * share of the windows' time. */
static void rule_exposed(struct flist *l, const struct coll_result *r, const char *stage)
{
	int64_t win = 0, comm = 0, exp = 0;
	struct strbuf name = STRBUF_INIT;
	double share;

	if (!stage)
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

size_t coll_findings(const struct coll_result *r, const char *stage, struct coll_finding **out)
{
	struct flist l = {0};

	rule_straggler(&l, r);
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
