/* analytic.c: read the built-in LLM's analytic FLOP/byte file. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analytic.h"
#include "core/error.h"
#include "core/banned.h"

#define ANALYTIC_SCHEMA "llmprof-llm-analytic/1"

/* A non-negative integer member, or -1 with err. */
static int get_count(json_t *obj, const char *section, const char *key, const char *what,
		     double *out, struct strbuf *err)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return error_set(err, "%s: '%s.%s' must be a non-negative integer", what, section,
				 key);
	*out = (double)json_integer_value(v);
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

static void fill_stage(struct report_model *m, enum report_role role, double flops, double bytes)
{
	for (size_t i = 0; i < m->nr_stages; i++)
		if (m->stages[i].role == role) {
			m->stages[i].flops = rnum_of(flops);
			m->stages[i].bytes = rnum_of(bytes);
			return;
		}
}

int analytic_load_buffer(struct report_model *m, const char *buf, size_t len, const char *what,
			 struct strbuf *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr), *v, *model, *run;
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
	    stage_cost(root, "decode", what, &df, &db, err))
		goto out;
	fill_stage(m, REPORT_ROLE_PREFILL, pf, pb);
	fill_stage(m, REPORT_ROLE_DECODE, df, db);
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

	if (strbuf_read_file(&buf, path)) {
		ret = error_errno(err, "cannot read '%s'", path);
	} else {
		ret = analytic_load_buffer(m, buf.buf, buf.len, path, err);
	}
	strbuf_release(&buf);
	return ret;
}
