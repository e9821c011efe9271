/* diff.c: the metrics of `llmprof diff` with their intervals, the notes and
 * the gate (see diff.h; the kernels, operators and ranks: diff_kernels.c).
 *
 * The interval of a change is Welch's t-interval at 95 %: over the runs
 * when both sides have two or more (each run's value is one sample), else
 * over the samples the metric is made of, the per-step decode GPU times or
 * the per-instance prefill GPU times, pooled over a side's runs. A metric
 * that is not itself a mean of those samples (a stage's total, tokens/s,
 * MFU) takes the samples' interval as a relative width, centred on its own
 * change: time-like metrics scale with it, rate-like ones (tokens/s, MFU)
 * with its inverse. docs/diff.md states the method. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/diff_priv.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

double diff_t975(double df)
{
	static const double t[30] = {
	    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	const double z = 1.959964;

	if (!(df >= 1))
		return t[0];
	if (df < 30) {
		size_t i = (size_t)df;
		double f = df - (double)i;

		return t[i - 1] + f * (t[i] - t[i - 1]);
	}
	/* Cornish-Fisher expansion around the normal quantile */
	return z + (z * z * z + z) / (4 * df) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df) +
	       (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * df * df * df);
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? q / (double)(n - 1) : 0;
}

int diff_welch(const double *a, size_t na, const double *b, size_t nb, double *lo, double *hi)
{
	double ma, va, mb, vb, sa, sb, se, df, d;

	if (na < 2 || nb < 2)
		return -1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sqrt(sa + sb);
	d = mb - ma;
	if (se == 0) {
		*lo = *hi = d;
		return 0;
	}
	df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	*lo = d - diff_t975(df) * se;
	*hi = d + diff_t975(df) * se;
	return 0;
}

/* ------------------------------------------------------------ metrics */

enum scale { SCALE_TIME, SCALE_RATE };

struct metric_def {
	const char *key, *label, *unit;
	int higher_better;
	enum diff_basis basis; /* the samples, when runs do not give an interval */
	enum scale scale;
	int role; /* enum report_role of the stage, -1 = an aggregate */
	size_t field;
	double mult; /* MFU/MBU: fractions shown in % */
};

#define AGG(f) offsetof(struct report_aggregates, f)
#define STG(f) offsetof(struct report_stage, f)
static const struct metric_def defs[] = {
    {"ttft_ms", "TTFT", "ms", 0, DIFF_BASIS_INSTANCES, SCALE_TIME, -1, AGG(ttft_ms), 1},
    {"tpot_ms", "TPOT", "ms", 0, DIFF_BASIS_PERIODS, SCALE_TIME, -1, AGG(tpot_ms), 1},
    {"tokens_per_s", "tokens/s", "tokens/s", 1, DIFF_BASIS_PERIODS, SCALE_RATE, -1,
     AGG(tokens_per_s), 1},
    {"gpu_busy_ms", "GPU busy", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME, -1, AGG(gpu_busy_ms), 1},
    {"gpu_idle_ms", "GPU idle", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME, -1, AGG(gpu_idle_ms), 1},
    {"prefill.gpu_ms", "prefill GPU time", "ms", 0, DIFF_BASIS_INSTANCES, SCALE_TIME,
     REPORT_ROLE_PREFILL, STG(gpu_ms), 1},
    {"prefill.busy_ms", "prefill GPU busy", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME,
     REPORT_ROLE_PREFILL, STG(busy_ms), 1},
    {"prefill.idle_ms", "prefill GPU idle", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME,
     REPORT_ROLE_PREFILL, STG(idle_ms), 1},
    {"prefill.mfu_pct", "prefill MFU", "%", 1, DIFF_BASIS_INSTANCES, SCALE_RATE,
     REPORT_ROLE_PREFILL, STG(mfu_datasheet), 100},
    {"prefill.mbu_pct", "prefill MBU", "%", 1, DIFF_BASIS_INSTANCES, SCALE_RATE,
     REPORT_ROLE_PREFILL, STG(mbu_datasheet), 100},
    {"decode.gpu_ms", "decode GPU time", "ms", 0, DIFF_BASIS_STEPS, SCALE_TIME, REPORT_ROLE_DECODE,
     STG(gpu_ms), 1},
    {"decode.busy_ms", "decode GPU busy", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME, REPORT_ROLE_DECODE,
     STG(busy_ms), 1},
    {"decode.idle_ms", "decode GPU idle", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME, REPORT_ROLE_DECODE,
     STG(idle_ms), 1},
    {"decode.step_p50_ms", "decode step GPU span p50", "ms", 0, DIFF_BASIS_NONE, SCALE_TIME,
     REPORT_ROLE_DECODE, STG(step_p50_ms), 1},
    {"decode.mfu_pct", "decode MFU", "%", 1, DIFF_BASIS_STEPS, SCALE_RATE, REPORT_ROLE_DECODE,
     STG(mfu_datasheet), 100},
    {"decode.mbu_pct", "decode MBU", "%", 1, DIFF_BASIS_STEPS, SCALE_RATE, REPORT_ROLE_DECODE,
     STG(mbu_datasheet), 100},
};

static struct rnum metric_of(const struct metric_def *def, const struct report_model *m)
{
	const char *base;
	struct rnum r;

	if (def->role < 0) {
		base = (const char *)&m->agg;
	} else {
		const struct report_stage *s = report_model_stage_by_role(m, def->role);

		if (!s)
			return RNUM_NONE;
		base = (const char *)s;
	}
	memcpy(&r, base + def->field, sizeof(r));
	if (r.available)
		r.v *= def->mult;
	return r;
}

/* The samples of a side for basis (ns as doubles), pooled over its runs;
 * *n = 0 when none. Owned by the caller. */
static double *side_samples(const struct diff_input *in, enum diff_basis basis, size_t *n)
{
	enum report_role role = basis == DIFF_BASIS_STEPS || basis == DIFF_BASIS_PERIODS
				    ? REPORT_ROLE_DECODE
				    : REPORT_ROLE_PREFILL;
	double *v = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t r = 0; r < in->nr; r++) {
		const struct report_stage *s = report_model_stage_by_role(in->runs[r], role);

		const int64_t *x = !s				 ? NULL
				   : basis == DIFF_BASIS_PERIODS ? s->step_period_ns
								 : s->sample_ns;
		size_t len = !s				   ? 0
			     : basis == DIFF_BASIS_PERIODS ? s->nr_step_periods
							   : s->nr_samples;

		for (size_t i = 0; x && i < len; i++) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = (double)x[i];
		}
	}
	*n = nr;
	return v;
}

/* Each run's value, or NULL when a run lacks it. */
static double *run_values(const struct metric_def *def, const struct diff_input *in)
{
	double *v = xmalloc(st_mult(in->nr, sizeof(*v)));

	for (size_t r = 0; r < in->nr; r++) {
		struct rnum x = metric_of(def, in->runs[r]);

		if (!x.available) {
			free(v);
			return NULL;
		}
		v[r] = x.v;
	}
	return v;
}

/* The interval from the runs' values themselves (2+ runs a side). */
static int interval_runs(const struct metric_def *def, const struct diff_input *a,
			 const struct diff_input *b, struct diff_metric *dm)
{
	double *va, *vb, lo, hi;
	int ok = 0;

	if (a->nr < 2 || b->nr < 2)
		return 0;
	va = run_values(def, a);
	vb = run_values(def, b);
	if (va && vb && !diff_welch(va, a->nr, vb, b->nr, &lo, &hi)) {
		dm->lo = rnum_of(lo);
		dm->hi = rnum_of(hi);
		dm->basis = DIFF_BASIS_RUNS;
		dm->na = a->nr;
		dm->nb = b->nr;
		ok = 1;
	}
	free(va);
	free(vb);
	return ok;
}

static double rate_of(double r)
{
	return 1 / (1 + r) - 1;
}

/* The interval from the samples: their relative interval, centred on the
 * metric's own change. */
static void interval_samples(const struct metric_def *def, const struct diff_input *a,
			     const struct diff_input *b, struct diff_metric *dm)
{
	size_t na, nb;
	double *sa = side_samples(a, def->basis, &na), *sb = side_samples(b, def->basis, &nb);
	double lo, hi, ma = 0, mb = 0, var;

	if (def->basis != DIFF_BASIS_NONE && !diff_welch(sa, na, sb, nb, &lo, &hi)) {
		mean_var(sa, na, &ma, &var);
		mean_var(sb, nb, &mb, &var);
	}
	if (ma > 0) {
		double rc = (mb - ma) / ma, rlo = lo / ma, rhi = hi / ma, x = dm->a.v;

		if (def->scale == SCALE_TIME) {
			dm->lo = rnum_of(dm->delta.v + x * (rlo - rc));
			dm->hi = rnum_of(dm->delta.v + x * (rhi - rc));
		} else if (1 + rlo > 0) {
			dm->lo = rnum_of(dm->delta.v + x * (rate_of(rhi) - rate_of(rc)));
			dm->hi = rnum_of(dm->delta.v + x * (rate_of(rlo) - rate_of(rc)));
		}
		if (dm->lo.available) {
			dm->basis = def->basis;
			dm->na = na;
			dm->nb = nb;
		}
	}
	free(sa);
	free(sb);
}

static struct rnum side_mean(const struct metric_def *def, const struct diff_input *in)
{
	double s = 0;

	for (size_t r = 0; r < in->nr; r++) {
		struct rnum x = metric_of(def, in->runs[r]);

		if (!x.available)
			return RNUM_NONE;
		s += x.v;
	}
	return rnum_of(s / (double)in->nr);
}

static void compute_metric(const struct metric_def *def, const struct diff_input *a,
			   const struct diff_input *b, struct diff_metric *dm)
{
	memset(dm, 0, sizeof(*dm));
	dm->key = def->key;
	dm->label = def->label;
	dm->unit = def->unit;
	dm->higher_better = def->higher_better;
	dm->a = side_mean(def, a);
	dm->b = side_mean(def, b);
	if (!dm->a.available || !dm->b.available)
		return;
	dm->delta = rnum_of(dm->b.v - dm->a.v);
	if (dm->a.v != 0)
		dm->pct = rnum_of(100 * dm->delta.v / dm->a.v);
	if (!interval_runs(def, a, b, dm))
		interval_samples(def, a, b, dm);
	if (dm->lo.available) {
		dm->significant = dm->lo.v > 0 || dm->hi.v < 0;
		if (dm->a.v != 0) {
			dm->lo_pct = rnum_of(100 * dm->lo.v / dm->a.v);
			dm->hi_pct = rnum_of(100 * dm->hi.v / dm->a.v);
		}
	}
}

/* ------------------------------------------------------------- notes */

static void add_note(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct diff *d, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	d->notes = xrealloc(d->notes, st_mult(d->nr_notes + 1, sizeof(*d->notes)));
	d->notes[d->nr_notes++] = strbuf_detach(&sb, NULL);
}

/* The runs' common value of a string, "mixed", or NULL when none has one. */
static char *common_str(const struct diff_input *in, int gpu)
{
	const char *v = NULL;

	for (size_t r = 0; r < in->nr; r++) {
		const char *x = gpu ? in->runs[r]->env.gpu_name : in->backends[r];

		if (!x)
			continue;
		if (v && strcmp(v, x))
			return xstrdup("mixed");
		v = x;
	}
	return v ? xstrdup(v) : NULL;
}

static void side_info(struct diff_side_info *si, const struct diff_input *in)
{
	si->runs = in->nr;
	si->label = xstrdup(in->label);
	si->gpu = common_str(in, 1);
	si->backend = common_str(in, 0);
}

static void compute_notes(struct diff *d)
{
	const char *ga = d->a.gpu, *gb = d->b.gpu;

	d->hw_differs = (ga && gb && strcmp(ga, gb)) || (ga && !strcmp(ga, "mixed")) ||
			(gb && !strcmp(gb, "mixed"));
	if (ga && gb && strcmp(ga, gb))
		add_note(d,
			 "The hardware differs: A ran on %s, B on %s; kernel variants and "
			 "times are expected to change with it.",
			 ga, gb);
	else if (!ga != !gb)
		add_note(d, "Only %s records its GPU (%s): the hardware may differ.",
			 ga ? "A" : "B", ga ? ga : gb);
	if (d->a.backend && d->b.backend && strcmp(d->a.backend, d->b.backend))
		add_note(d,
			 "The traces come from different backends (A: %s, B: %s): GPU times "
			 "compare, CPU-side launch times carry each backend's overhead.",
			 d->a.backend, d->b.backend);
	if (d->a.runs < 2 || d->b.runs < 2)
		add_note(d, "Intervals come from the per-step (decode) and per-instance (prefill) "
			    "samples of one run a side; repeated runs (A1,A2,A3) give intervals "
			    "across runs.");
}

void diff_compute(const struct diff_input *a, const struct diff_input *b, size_t top,
		  struct diff *d)
{
	memset(d, 0, sizeof(*d));
	side_info(&d->a, a);
	side_info(&d->b, b);
	d->metrics = xcalloc(ARRAY_SIZE(defs), sizeof(*d->metrics));
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++) {
		compute_metric(&defs[i], a, b, &d->metrics[d->nr_metrics]);
		if (d->metrics[d->nr_metrics].a.available || d->metrics[d->nr_metrics].b.available)
			d->nr_metrics++;
	}
	compute_notes(d);
	diff_compute_kernels(a, b, top, d);
}

/* -------------------------------------------------------------- gate */

static const struct {
	const char *name, *key;
} gate_names[] = {
    {"tpot", "tpot_ms"},
    {"ttft", "ttft_ms"},
    {"tokens_per_s", "tokens_per_s"},
    {"stage:decode", "decode.gpu_ms"},
    {"stage:prefill", "prefill.gpu_ms"},
};

const char *diff_gate_key(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(gate_names); i++)
		if (!strcmp(name, gate_names[i].name))
			return gate_names[i].key;
	return NULL;
}

const char *diff_gate_outcome_name(enum diff_gate_outcome o)
{
	return o == DIFF_GATE_FAIL ? "FAIL" : o == DIFF_GATE_CANNOT_TELL ? "cannot tell" : "pass";
}

/* The outcome of a metric measured on both sides, and why, after "gate
 * NAME: +x %[ interval]". worse: the change in the bad direction, in %. */
static enum diff_gate_outcome gate_judge(const struct diff_metric *m, double pct, struct strbuf *sb)
{
	double worse = m->higher_better ? -m->pct.v : m->pct.v;

	if (!m->lo_pct.available) {
		strbuf_addstr(sb, " (no interval: one run a side and no samples to judge the "
				  "noise by; repeat the runs: A1,A2,A3)");
		return DIFF_GATE_CANNOT_TELL;
	}
	if (worse > pct && m->significant) {
		strbuf_addf(sb, ", worse by more than %g %% and significant", pct);
		return DIFF_GATE_FAIL;
	}
	if (worse > pct) {
		strbuf_addf(sb,
			    ", worse by more than %g %% but the interval includes no change "
			    "(more runs or steps narrow it)",
			    pct);
		return DIFF_GATE_CANNOT_TELL;
	}
	if (worse < 0 && m->significant)
		strbuf_addf(sb, ", an improvement (better by %.2f %%)", -worse);
	else if (worse < 0)
		strbuf_addf(sb, ", better by %.2f %% but not significantly", -worse);
	else
		strbuf_addf(sb, ", within %g %%", pct);
	return DIFF_GATE_PASS;
}

int diff_gate(struct diff *d, const char *name, double pct, int allow_hw, struct strbuf *err)
{
	const char *key = diff_gate_key(name);
	const struct diff_metric *m = NULL;
	struct strbuf sb = STRBUF_INIT;
	enum diff_gate_outcome o;

	if (!key)
		return error_set(err,
				 "unknown metric '%s' (tpot, ttft, tokens_per_s, "
				 "stage:decode, stage:prefill)",
				 name);
	d->gate_metric = name;
	d->gate_pct = pct;
	for (size_t i = 0; i < d->nr_metrics; i++)
		if (!strcmp(d->metrics[i].key, key))
			m = &d->metrics[i];
	strbuf_addf(&sb, "gate %s: ", name);
	if (!m || !m->pct.available) {
		strbuf_addf(&sb, "not measured on %s",
			    !m || (!m->a.available && !m->b.available) ? "either side"
			    : !m->a.available			       ? "side A"
			    : !m->b.available			       ? "side B"
								       : "A as a non-zero value");
		o = DIFF_GATE_CANNOT_TELL;
	} else {
		strbuf_addf(&sb, "%+.2f %%", m->pct.v);
		if (m->lo_pct.available)
			strbuf_addf(&sb, " [%+.2f, %+.2f]", m->lo_pct.v, m->hi_pct.v);
		o = gate_judge(m, pct, &sb);
		/* other hardware: the change may be the GPU's, not the code's */
		if (d->hw_differs && !allow_hw) {
			strbuf_addf(&sb,
				    "; but A ran on %s and B on %s (--allow-hardware-change "
				    "judges anyway)",
				    d->a.gpu, d->b.gpu);
			o = DIFF_GATE_CANNOT_TELL;
		}
	}
	strbuf_addf(&sb, ": %s", diff_gate_outcome_name(o));
	d->gate = o;
	d->gate_failed = o == DIFF_GATE_FAIL;
	free(d->gate_text);
	d->gate_text = strbuf_detach(&sb, NULL);
	return (int)o;
}
