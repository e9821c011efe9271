/* analytic.c: read the built-in LLM's analytic FLOP/byte file. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analytic.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "core/banned.h"

#define ANALYTIC_SCHEMA "llmprof-llm-analytic/1"

/* A non-negative count, or -1 with err: an integer, or a real for counts
 * beyond 2^53 (the writer's exponent form; an int64 would overflow). */
static int get_count(json_t *obj, const char *section, const char *key, const char *what,
		     double *out, struct strbuf *err)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_number(v) || !(json_number_value(v) >= 0) || !isfinite(json_number_value(v)))
		return error_set(err, "%s: '%s.%s' must be a non-negative number", what, section,
				 key);
	*out = json_number_value(v);
	return 0;
}

static int stage_cost(json_t *root, const char *section, const char *what, double *flops,
		      double *bytes, struct strbuf *err)
{
	json_t *s = json_object_get(root, section);

	if (!json_is_object(s))
		return error_set(err, "%s: '%s' object is missing", what, section);
	if (get_count(s, section, "flops", what, flops, err) ||
	    get_count(s, section, "bytes", what, bytes, err))
		return -1;
	return 0;
}

static void set_int(int *field, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!*field && json_is_integer(v) && json_integer_value(v) > 0 &&
	    json_integer_value(v) < (1 << 30))
		*field = (int)json_integer_value(v);
}

static void set_str(char **field, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!*field && json_is_string(v))
		report_set_str(field, json_string_value(v));
}

static struct report_stage *stage_of(struct report_model *m, enum report_role role)
{
	for (size_t i = 0; i < m->nr_stages; i++)
		if (m->stages[i].role == role)
			return &m->stages[i];
	return NULL;
}

/* The file's work is one instance of each stage: scale it by the instances
 * the trace holds. */
static void fill_stage(struct report_stage *st, double flops, double bytes)
{
	double n = st->instances > 1 ? (double)st->instances : 1;

	st->flops = rnum_of(flops * n);
	st->bytes = rnum_of(bytes * n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The decode work must be that of the steps whose GPU work the trace holds,
 * or MBU is off by the missing share. A gated nsys capture stops when its
 * range ends on the CPU while the GPU still runs behind (the last steps'
 * kernels are lost), or starts after the range opened: the trace has every
 * decode_step range but some with fewer kernels than a step has, or none.
 * With one instance and one range per step of the file, step i's cost
 * counts by its share of the median step's kernels (at most 1; the median
 * over steps with kernels). Several
 * instances with every step whole scale the totals; any other mismatch
 * leaves the work unknown. */
/* The decode steps as the file gives them: listed one by one
 * (decode_steps), or, for a long generation, the first and the change per
 * step (decode_steps_affine: step i costs first + i x per_step). */
struct decode_steps {
	json_t *list;		   /* array, or NULL */
	double first[2], delta[2]; /* flops, bytes; affine form */
	size_t n;
};

static int decode_steps_of(json_t *root, struct decode_steps *d, const char *what,
			   struct strbuf *err)
{
	json_t *aff = json_object_get(root, "decode_steps_affine"), *v;

	memset(d, 0, sizeof(*d));
	d->list = json_object_get(root, "decode_steps");
	if (json_is_array(d->list)) {
		d->n = json_array_size(d->list);
		return 0;
	}
	d->list = NULL;
	if (!aff)
		return 0;
	v = json_object_get(aff, "steps");
	if (!json_is_object(aff) || !json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > INT32_MAX)
		return error_set(err, "%s: decode_steps_affine.steps is not a step count", what);
	d->n = (size_t)json_integer_value(v);
	if (get_count(json_object_get(aff, "first"), "decode_steps_affine.first", "flops", what,
		      &d->first[0], err) ||
	    get_count(json_object_get(aff, "first"), "decode_steps_affine.first", "bytes", what,
		      &d->first[1], err) ||
	    get_count(json_object_get(aff, "per_step"), "decode_steps_affine.per_step", "flops",
		      what, &d->delta[0], err) ||
	    get_count(json_object_get(aff, "per_step"), "decode_steps_affine.per_step", "bytes",
		      what, &d->delta[1], err))
		return -1;
	return 0;
}

static int decode_step_cost(const struct decode_steps *d, size_t i, double *sf, double *sb,
			    const char *what, struct strbuf *err)
{
	json_t *e;

	if (!d->list) {
		*sf = d->first[0] + (double)i * d->delta[0];
		*sb = d->first[1] + (double)i * d->delta[1];
		return 0;
	}
	e = json_array_get(d->list, i);
	if (!json_is_object(e))
		return error_set(err, "%s: decode_steps[%zu] is not an object", what, i);
	if (get_count(e, "decode_steps[]", "flops", what, sf, err) ||
	    get_count(e, "decode_steps[]", "bytes", what, sb, err))
		return -1;
	return 0;
}

static int fill_decode(struct report_stage *st, const struct decode_steps *steps, double flops,
		       double bytes, const char *what, struct strbuf *err)
{
	size_t n = steps->n, k = st->nr_step_kernels, lo;
	uint64_t inst = st->instances > 1 ? st->instances : 1, *sorted, median;
	uint64_t partial = 0, empty = 0;
	double f = 0, b = 0, recorded = 0;

	if (!k || !n) {
		fill_stage(st, flops, bytes);
		return 0;
	}
	sorted = xmalloc(st_mult(k, sizeof(*sorted)));
	memcpy(sorted, st->step_kernels, k * sizeof(*sorted));
	qsort(sorted, k, sizeof(*sorted), cmp_u64);
	for (lo = 0; lo < k && !sorted[lo]; lo++)
		; /* the median of the steps with kernels */
	median = lo < k ? sorted[lo + (k - lo) / 2] : 0;
	free(sorted);
	for (size_t i = 0; i < k && median; i++) {
		empty += !st->step_kernels[i];
		partial += st->step_kernels[i] && st->step_kernels[i] < median;
	}
	if (!median || (k == n * inst && !partial && !empty)) {
		fill_stage(st, flops, bytes); /* no GPU work traced, or all of it */
		return 0;
	}
	st->steps_expected = n;
	st->steps_partial = partial;
	st->steps_empty = empty;
	if (inst > 1 || k != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double sf = 0, sb = 0, part;

		if (decode_step_cost(steps, i, &sf, &sb, what, err))
			return -1;
		part = st->step_kernels[i] >= median ? 1
						     : (double)st->step_kernels[i] / (double)median;
		f += sf * part;
		b += sb * part;
		recorded += part;
	}
	st->flops = rnum_of(f);
	st->bytes = rnum_of(b);
	st->steps_recorded = recorded;
	return 0;
}

int analytic_load_buffer(struct report_model *m, const char *buf, size_t len, const char *what,
			 struct strbuf *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr), *v, *model, *run;
	struct report_stage *st;
	struct decode_steps steps;
	double pf, pb, df, db;
	int ret = -1;

	if (!root) {
		error_set(err, "%s:%d:%d: %s", what, jerr.line, jerr.column, jerr.text);
		goto out;
	}
	v = json_object_get(root, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), ANALYTIC_SCHEMA)) {
		error_set(err, "%s: not an analytic file (schema is not '" ANALYTIC_SCHEMA "')",
			  what);
		goto out;
	}
	if (stage_cost(root, "prefill", what, &pf, &pb, err) ||
	    stage_cost(root, "decode", what, &df, &db, err) ||
	    decode_steps_of(root, &steps, what, err))
		goto out;
	if ((st = stage_of(m, REPORT_ROLE_PREFILL)))
		fill_stage(st, pf, pb);
	if ((st = stage_of(m, REPORT_ROLE_DECODE)) && fill_decode(st, &steps, df, db, what, err))
		goto out;
	model = json_object_get(root, "model");
	if (json_is_object(model)) {
		struct report_llm *l = &m->llm;

		set_str(&l->name, model, "name");
		set_int(&l->hidden_size, model, "hidden_size");
		set_int(&l->intermediate_size, model, "intermediate_size");
		set_int(&l->num_layers, model, "num_layers");
		set_int(&l->num_heads, model, "num_heads");
		set_int(&l->num_kv_heads, model, "num_kv_heads");
		set_int(&l->head_dim, model, "head_dim");
		set_int(&l->vocab_size, model, "vocab_size");
		v = json_object_get(model, "params");
		if (!l->params.available && json_is_integer(v) && json_integer_value(v) > 0)
			l->params = rnum_of((double)json_integer_value(v));
	}
	run = json_object_get(root, "run");
	if (json_is_object(run)) {
		set_int(&m->llm.batch_size, run, "batch");
		set_int(&m->llm.prompt_len, run, "prompt_len");
		set_int(&m->llm.new_tokens, run, "new_tokens");
		set_str(&m->llm.dtype, run, "dtype");
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

int analytic_load_file(struct report_model *m, const char *path, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	int ret;

	if (read_regular_file(path, INPUT_CAP_DATA, &buf, err)) {
		ret = -1;
	} else {
		ret = analytic_load_buffer(m, buf.buf, buf.len, path, err);
	}
	strbuf_release(&buf);
	return ret;
}
