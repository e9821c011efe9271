/* diff_json.c: diff.json of `llmprof diff` (schema: docs/diff.md), and the
 * three files written together (see report/diff.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/bundle_dir.h"
#include "core/jsonutil.h"
#include "report/diff.h"
#include "core/banned.h"

static json_t *jstr(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	utf8_sanitize(&sb, s, strlen(s));
	j = json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

static json_t *jnum(struct rnum r)
{
	return r.available ? json_real(r.v) : json_null();
}

static json_t *jms(double ns)
{
	return json_real(ns / 1e6);
}

static void set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

/* o[STAGE_KEY] = v, as "decode_exposed_ms_a" */
static void set_stage(json_t *o, const char *stage, const char *key, json_t *v)
{
	struct strbuf k = STRBUF_INIT;

	strbuf_addf(&k, "%s_%s", stage, key);
	set(o, k.buf, v);
	strbuf_release(&k);
}

static json_t *side_json(const struct diff_side_info *s)
{
	json_t *o = json_object();

	set(o, "input", jstr(s->label));
	set(o, "runs", json_integer((json_int_t)s->runs));
	set(o, "gpu", jstr(s->gpu));
	set(o, "backend", jstr(s->backend));
	return o;
}

static json_t *metrics_json(const struct diff *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->nr_metrics; i++) {
		const struct diff_metric *m = &d->metrics[i];
		json_t *o = json_object();

		set(o, "key", jstr(m->key));
		set(o, "label", jstr(m->label));
		set(o, "unit", jstr(m->unit));
		set(o, "higher_is_better", json_boolean(m->higher_better));
		set(o, "a", jnum(m->a));
		set(o, "b", jnum(m->b));
		set(o, "delta", jnum(m->delta));
		set(o, "delta_pct", jnum(m->pct));
		set(o, "ci95_low", jnum(m->lo));
		set(o, "ci95_high", jnum(m->hi));
		set(o, "ci95_low_pct", jnum(m->lo_pct));
		set(o, "ci95_high_pct", jnum(m->hi_pct));
		set(o, "basis", jstr(m->lo.available ? diff_basis_name(m->basis) : NULL));
		set(o, "samples_a", json_integer((json_int_t)m->na));
		set(o, "samples_b", json_integer((json_int_t)m->nb));
		set(o, "significant", json_boolean(m->significant));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *counters_json(const struct report_counters *c)
{
	json_t *o;

	if (!c->profiled)
		return json_null();
	o = json_object();
	set(o, "sm_sol_pct", jnum(c->sm_sol_pct));
	set(o, "mem_sol_pct", jnum(c->mem_sol_pct));
	set(o, "occupancy_pct", jnum(c->occupancy_pct));
	set(o, "bound", jstr(kernel_bound_name(c->bound)));
	return o;
}

/* A kernel row's change in % of A's exposed time inside the stages; null
 * when A had none. */
static json_t *pct_of(double delta_ns, const double *exp_a)
{
	double a = 0;

	for (int r = 0; r < REPORT_ROLE_OTHER; r++)
		a += exp_a[r];
	return a > 0 ? json_real(100 * delta_ns / a) : json_null();
}

static json_t *kernels_json(const struct diff *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->nr_kernels; i++) {
		const struct diff_kernel *k = &d->kernels[i];
		json_t *o = json_object();

		set(o, "match", jstr(diff_match_name(k->match)));
		set(o, "name_a", jstr(k->name_a));
		set(o, "name_b", jstr(k->name_b));
		set(o, "family", jstr(k->family));
		set(o, "operator", jstr(k->op));
		set(o, "kernels_a", json_integer((json_int_t)k->kernels_a));
		set(o, "kernels_b", json_integer((json_int_t)k->kernels_b));
		set(o, "calls_a", json_real(k->calls_a));
		set(o, "calls_b", json_real(k->calls_b));
		set(o, "ms_a", jms(k->ns_a));
		set(o, "ms_b", jms(k->ns_b));
		set(o, "delta_ms", jms(k->delta_ns));
		set(o, "delta_pct", pct_of(k->delta_ns, k->exp_ns_a));
		for (int r = 0; r < REPORT_ROLE_OTHER; r++) {
			const char *st = report_role_name((enum report_role)r);

			set_stage(o, st, "calls_a", json_real(k->stage_calls_a[r]));
			set_stage(o, st, "calls_b", json_real(k->stage_calls_b[r]));
			set_stage(o, st, "ms_a", jms(k->stage_ns_a[r]));
			set_stage(o, st, "ms_b", jms(k->stage_ns_b[r]));
			set_stage(o, st, "exposed_ms_a", jms(k->exp_ns_a[r]));
			set_stage(o, st, "exposed_ms_b", jms(k->exp_ns_b[r]));
		}
		set(o, "outside_calls_a", json_real(k->out_calls_a));
		set(o, "outside_calls_b", json_real(k->out_calls_b));
		set(o, "outside_ms_a", jms(k->out_ns_a));
		set(o, "outside_ms_b", jms(k->out_ns_b));
		set(o, "counters_a", counters_json(&k->ca));
		set(o, "counters_b", counters_json(&k->cb));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *falls_json(const struct diff *d)
{
	json_t *root = json_object();

	for (int r = 0; r < REPORT_ROLE_OTHER; r++) {
		const struct diff_waterfall *w = &d->falls[r];
		json_t *o, *rows;

		if (!w->available)
			continue;
		o = json_object();
		rows = json_array();
		/* ns as integers: with one run a side the terms sum exactly */
		set(o, "a_ns", json_real(w->a_ns));
		set(o, "b_ns", json_real(w->b_ns));
		set(o, "delta_ns", json_real(w->delta_ns));
		for (size_t i = 0; i < w->nr; i++) {
			json_t *x = json_object();

			set(x, "label", jstr(w->rows[i].label));
			set(x, "delta_ns", json_real(w->rows[i].delta_ns));
			json_array_append_new(rows, x);
		}
		set(o, "terms", rows);
		set(root, report_role_name(w->role), o);
	}
	return root;
}

static json_t *ops_json(const struct diff *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->nr_ops; i++) {
		const struct diff_operator *p = &d->ops[i];
		json_t *o = json_object();

		set(o, "name", jstr(p->name));
		set(o, "stage", jstr(p->stage));
		set(o, "in_a", json_boolean(p->in_a));
		set(o, "in_b", json_boolean(p->in_b));
		set(o, "calls_a", json_real(p->calls_a));
		set(o, "calls_b", json_real(p->calls_b));
		set(o, "gpu_ms_a", json_real(p->ms_a));
		set(o, "gpu_ms_b", json_real(p->ms_b));
		set(o, "delta_ms", json_real(p->ms_b - p->ms_a));
		set(o, "delta_pct",
		    p->ms_a > 0 ? json_real(100 * (p->ms_b - p->ms_a) / p->ms_a) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *ranks_json(const struct diff *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->nr_ranks; i++) {
		const struct diff_rank *r = &d->ranks[i];
		json_t *o = json_object();

		set(o, "label", jstr(r->label));
		set(o, "decode_gpu_ms_a", jnum(r->decode_ms_a));
		set(o, "decode_gpu_ms_b", jnum(r->decode_ms_b));
		set(o, "step_p50_ms_a", jnum(r->step_p50_a));
		set(o, "step_p50_ms_b", jnum(r->step_p50_b));
		set(o, "ttft_ms_a", jnum(r->ttft_a));
		set(o, "ttft_ms_b", jnum(r->ttft_b));
		set(o, "tpot_ms_a", jnum(r->tpot_a));
		set(o, "tpot_ms_b", jnum(r->tpot_b));
		set(o, "kernel_ms_a", json_real(r->kernel_ms_a));
		set(o, "kernel_ms_b", json_real(r->kernel_ms_b));
		json_array_append_new(a, o);
	}
	return a;
}

int diff_render_json(const struct diff *d, struct strbuf *out, struct strbuf *err)
{
	json_t *root = json_object(), *notes = json_array(), *gate = json_null();
	char *text;

	set(root, "schema", json_string("llmprof-diff/1"));
	set(root, "a", side_json(&d->a));
	set(root, "b", side_json(&d->b));
	for (size_t i = 0; i < d->nr_notes; i++)
		json_array_append_new(notes, jstr(d->notes[i]));
	set(root, "notes", notes);
	if (d->gate_metric) {
		gate = json_object();
		set(gate, "metric", jstr(d->gate_metric));
		set(gate, "fail_above_pct", json_real(d->gate_pct));
		set(gate, "failed", json_boolean(d->gate_failed));
		set(gate, "outcome",
		    json_string(d->gate == DIFF_GATE_FAIL	   ? "fail"
				: d->gate == DIFF_GATE_CANNOT_TELL ? "cannot_tell"
								   : "pass"));
		set(gate, "text", jstr(d->gate_text));
	}
	set(root, "gate", gate);
	set(root, "metrics", metrics_json(d));
	set(root, "waterfall", falls_json(d));
	set(root, "kernels", kernels_json(d));
	set(root, "kernel_counts",
	    json_pack("{s:I,s:I,s:I}", "new", (json_int_t)d->nr_new, "gone", (json_int_t)d->nr_gone,
		      "other_variant", (json_int_t)d->nr_changed));
	set(root, "kernels_outside",
	    json_pack("{s:f,s:f,s:f,s:f}", "calls_a", d->out_calls_a, "calls_b", d->out_calls_b,
		      "ms_a", d->out_ns_a / 1e6, "ms_b", d->out_ns_b / 1e6));
	set(root, "operators", ops_json(d));
	set(root, "ranks", ranks_json(d));
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	if (!text)
		return error_set(err, "%s: cannot encode JSON", bundle_art(BA_DIFF_JSON));
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
	return 0;
}

static int write_one(const struct bundle_dir *bd, const char *name, const struct strbuf *sb,
		     struct strbuf *err)
{
	return bundle_dir_write(bd, name, sb->buf, sb->len, err);
}

int diff_write_all(const struct diff *d, const struct bundle_dir *bd, struct strbuf *err)
{
	struct strbuf md = STRBUF_INIT, js = STRBUF_INIT, html = STRBUF_INIT;
	int ret = -1;

	diff_render_md(d, &md);
	diff_render_html(d, &html);
	if (diff_render_json(d, &js, err))
		goto out;
	if (write_one(bd, bundle_art(BA_DIFF_MD), &md, err) ||
	    write_one(bd, bundle_art(BA_DIFF_JSON), &js, err) ||
	    write_one(bd, bundle_art(BA_DIFF_HTML), &html, err))
		goto out;
	ret = 0;
out:
	strbuf_release(&md);
	strbuf_release(&js);
	strbuf_release(&html);
	return ret;
}
