/* diff_parts.c: operators, ranks and the step-time samples of `llmprof
 * diff`, and diff_release() (see diff.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/diff_priv.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct opent {
	const char *name, *stage;
	double calls, ms;
	int side; /* 0 = A, 1 = B */
};

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_opent(const void *x, const void *y)
{
	const struct opent *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (!c)
		c = cmp_str0(a->stage, b->stage);
	return c ? c : a->side - b->side;
}

static size_t collect_ops(const struct diff_input *in, int side, struct opent *v, size_t k)
{
	for (size_t r = 0; r < in->nr; r++)
		for (size_t i = 0; i < in->runs[r]->nr_ops; i++) {
			const struct report_operator *o = &in->runs[r]->ops[i];

			v[k].name = o->name ? o->name : "";
			v[k].stage = o->stage;
			v[k].calls = (double)o->calls / (double)in->nr;
			v[k].ms = (o->gpu_ms.available ? o->gpu_ms.v : 0) / (double)in->nr;
			v[k++].side = side;
		}
	return k;
}

static int cmp_dop(const void *x, const void *y)
{
	const struct diff_operator *a = x, *b = y;
	double da = fabs(a->ms_b - a->ms_a), db = fabs(b->ms_b - b->ms_a);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Operators matched by (name, stage), summed over each side's runs. */
static void compute_ops(const struct diff_input *a, const struct diff_input *b, struct diff *d)
{
	size_t total = 0, n;
	struct opent *v;

	for (size_t r = 0; r < a->nr; r++)
		total += a->runs[r]->nr_ops;
	for (size_t r = 0; r < b->nr; r++)
		total += b->runs[r]->nr_ops;
	v = xmalloc(st_mult(total + 1, sizeof(*v)));
	n = collect_ops(b, 1, v, collect_ops(a, 0, v, 0));
	qsort(v, n, sizeof(*v), cmp_opent);
	d->ops = xcalloc(n + 1, sizeof(*d->ops));
	for (size_t i = 0; i < n; i++) {
		struct diff_operator *o = d->nr_ops ? &d->ops[d->nr_ops - 1] : NULL;

		if (!o || strcmp(o->name, v[i].name) || cmp_str0(o->stage, v[i].stage)) {
			o = &d->ops[d->nr_ops++];
			o->name = xstrdup(v[i].name);
			o->stage = v[i].stage ? xstrdup(v[i].stage) : NULL;
		}
		if (v[i].side) {
			o->calls_b += v[i].calls;
			o->ms_b += v[i].ms;
			o->in_b = 1;
		} else {
			o->calls_a += v[i].calls;
			o->ms_a += v[i].ms;
			o->in_a = 1;
		}
	}
	qsort(d->ops, d->nr_ops, sizeof(*d->ops), cmp_dop);
	free(v);
}

/* Per rank, matched by label, when one run a side has several ranks. */
static void compute_ranks(const struct diff_input *a, const struct diff_input *b, struct diff *d)
{
	const struct report_ranks *ra = &a->runs[0]->ranks, *rb = &b->runs[0]->ranks;

	if (a->nr != 1 || b->nr != 1 || ra->nr < 2 || rb->nr < 2)
		return;
	d->ranks = xcalloc(ra->nr + 1, sizeof(*d->ranks));
	for (size_t i = 0; i < ra->nr; i++) {
		const struct report_rank *x = &ra->v[i], *y = NULL;
		struct diff_rank *o;

		for (size_t j = 0; j < rb->nr && !y; j++)
			if (!strcmp(rb->v[j].label, x->label))
				y = &rb->v[j];
		if (!y)
			continue;
		o = &d->ranks[d->nr_ranks++];
		o->label = xstrdup(x->label);
		o->decode_ms_a = x->stages[REPORT_ROLE_DECODE].gpu_ms;
		o->decode_ms_b = y->stages[REPORT_ROLE_DECODE].gpu_ms;
		o->step_p50_a = x->stages[REPORT_ROLE_DECODE].step_p50_ms;
		o->step_p50_b = y->stages[REPORT_ROLE_DECODE].step_p50_ms;
		o->ttft_a = x->ttft_ms;
		o->ttft_b = y->ttft_ms;
		o->tpot_a = x->tpot_ms;
		o->tpot_b = y->tpot_ms;
		o->kernel_ms_a = (double)x->kernel_ns / 1e6;
		o->kernel_ms_b = (double)y->kernel_ns / 1e6;
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double *step_ms(const struct diff_input *in, size_t *n)
{
	double *v = NULL;
	size_t total = 0;

	*n = 0;
	for (size_t r = 0; r < in->nr; r++) {
		const struct report_stage *s =
		    report_model_stage_by_role(in->runs[r], REPORT_ROLE_DECODE);

		total += s ? s->nr_samples : 0;
	}
	v = xmalloc(st_mult(total + 1, sizeof(*v)));
	for (size_t r = 0; r < in->nr; r++) {
		const struct report_stage *s =
		    report_model_stage_by_role(in->runs[r], REPORT_ROLE_DECODE);

		for (size_t i = 0; s && i < s->nr_samples; i++)
			v[(*n)++] = (double)s->sample_ns[i] / 1e6;
	}
	qsort(v, *n, sizeof(*v), cmp_double);
	return v;
}

void diff_compute_parts(const struct diff_input *a, const struct diff_input *b, struct diff *d)
{
	compute_ops(a, b, d);
	compute_ranks(a, b, d);
	d->steps.a = step_ms(a, &d->steps.na);
	d->steps.b = step_ms(b, &d->steps.nb);
}

static void side_release(struct diff_side_info *s)
{
	free(s->label);
	free(s->gpu);
	free(s->backend);
}

void diff_release(struct diff *d)
{
	side_release(&d->a);
	side_release(&d->b);
	free(d->metrics);
	for (size_t i = 0; i < d->nr_kernels; i++) {
		free(d->kernels[i].name_a);
		free(d->kernels[i].name_b);
		free(d->kernels[i].family);
		free(d->kernels[i].op);
	}
	free(d->kernels);
	for (int r = 0; r < REPORT_ROLE_OTHER; r++) {
		for (size_t i = 0; i < d->falls[r].nr; i++)
			free(d->falls[r].rows[i].label);
		free(d->falls[r].rows);
	}
	for (size_t i = 0; i < d->nr_ops; i++) {
		free(d->ops[i].name);
		free(d->ops[i].stage);
	}
	free(d->ops);
	for (size_t i = 0; i < d->nr_ranks; i++)
		free(d->ranks[i].label);
	free(d->ranks);
	free(d->steps.a);
	free(d->steps.b);
	for (size_t i = 0; i < d->nr_notes; i++)
		free(d->notes[i]);
	free(d->notes);
	free(d->gate_text);
	memset(d, 0, sizeof(*d));
}
