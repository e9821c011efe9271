/* model_json.c: model.* from a transformers config.json the profiled
 * command names (model_json.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "config/config.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "pipeline/model_json.h"
#include "pipeline/run_ctx.h"
#include "core/banned.h"

/* model_type -> whether the analytic model covers it (arch llama) and
 * whether its Q/K/V projections always have a bias. */
static const struct {
	const char *type;
	int qkv_bias;
} covered[] = {{"llama", 0}, {"mistral", 0}, {"qwen2", 1}};

/* A positive integer key; absent or null: def (required when def < 0). */
static int get_int(json_t *o, const char *key, int64_t def, int64_t *out, const char *path,
		   struct strbuf *err)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		if (def < 0)
			return error_set(err, "%s: no \"%s\"", path, key);
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return error_set(err, "%s: \"%s\" is not a positive integer", path, key);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

static int get_num(json_t *o, const char *key, double def, double *out, const char *path,
		   struct strbuf *err)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		*out = def;
		return 0;
	}
	if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v)))
		return error_set(err, "%s: \"%s\" is not a positive number", path, key);
	*out = json_number_value(v);
	return 0;
}

static int get_bool(json_t *o, const char *key, int def, int *out, const char *path,
		    struct strbuf *err)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		*out = def;
		return 0;
	}
	if (!json_is_boolean(v))
		return error_set(err, "%s: \"%s\" is not true or false", path, key);
	*out = json_is_true(v);
	return 0;
}

int hf_model_parse(struct hf_model *m, const char *buf, size_t len, const char *path,
		   struct strbuf *err)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je), *t;
	const char *type;
	size_t c;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (!root)
		return error_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	if (!json_is_object(root)) {
		error_set(err, "%s: not a JSON object", path);
		goto out;
	}
	t = json_object_get(root, "model_type");
	if (!json_is_string(t)) {
		error_set(err, "%s: no \"model_type\" string", path);
		goto out;
	}
	type = json_string_value(t);
	for (c = 0; c < sizeof(covered) / sizeof(covered[0]); c++)
		if (!strcmp(type, covered[c].type))
			break;
	if (c == sizeof(covered) / sizeof(covered[0]) || strlen(type) >= sizeof(m->model_type)) {
		error_set(err,
			  "%s: model_type \"%.60s\" is not an architecture the analytic model "
			  "covers (llama, mistral, qwen2)",
			  path, type);
		ret = 1;
		goto out;
	}
	memcpy(m->model_type, type, strlen(type) + 1);
	if (get_int(root, "hidden_size", -1, &m->hidden, path, err) ||
	    get_int(root, "intermediate_size", -1, &m->inter, path, err) ||
	    get_int(root, "num_hidden_layers", -1, &m->layers, path, err) ||
	    get_int(root, "num_attention_heads", -1, &m->heads, path, err) ||
	    get_int(root, "vocab_size", -1, &m->vocab, path, err) ||
	    get_int(root, "num_key_value_heads", m->heads, &m->kv_heads, path, err) ||
	    get_int(root, "max_position_embeddings", 2048, &m->max_pos, path, err) ||
	    get_num(root, "rope_theta", 10000.0, &m->rope_theta, path, err) ||
	    get_num(root, "rms_norm_eps", 1e-6, &m->eps, path, err) ||
	    get_bool(root, "tie_word_embeddings", 0, &m->tie, path, err) ||
	    get_bool(root, "attention_bias", covered[c].qkv_bias, &m->qkv_bias, path, err))
		goto out;
	if (covered[c].qkv_bias)
		m->qkv_bias = 1;
	if (m->heads % m->kv_heads) {
		error_set(err,
			  "%s: num_attention_heads %lld is not a multiple of "
			  "num_key_value_heads %lld",
			  path, (long long)m->heads, (long long)m->kv_heads);
		goto out;
	}
	if (!json_object_get(root, "head_dim") || json_is_null(json_object_get(root, "head_dim"))) {
		if (m->hidden % m->heads) {
			error_set(err,
				  "%s: no \"head_dim\", and hidden_size is not a multiple of "
				  "num_attention_heads",
				  path);
			goto out;
		}
		m->head_dim = m->hidden / m->heads;
	} else if (get_int(root, "head_dim", -1, &m->head_dim, path, err)) {
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether cand is, or is a folder holding, a config.json; into path. */
static int names_config(const char *cand, struct strbuf *path)
{
	struct stat st;
	const char *base = strrchr(cand, '/');

	if (!*cand || stat(cand, &st))
		return 0;
	strbuf_reset(path);
	if (S_ISDIR(st.st_mode)) {
		strbuf_addstr(path, cand);
		while (path->len > 1 && path->buf[path->len - 1] == '/')
			strbuf_setlen(path, path->len - 1);
		strbuf_addstr(path, "/config.json");
		return is_regular(path->buf);
	}
	base = base ? base + 1 : cand;
	if (S_ISREG(st.st_mode) && !strcmp(base, "config.json")) {
		strbuf_addstr(path, cand);
		return 1;
	}
	return 0;
}

int hf_model_find(const char *const *argv, struct strbuf *path)
{
	for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');

		if (names_config(a, path))
			return 1;
		if (a[0] == '-' && eq && names_config(eq + 1, path))
			return 1;
	}
	strbuf_reset(path);
	return 0;
}

static char *ov_int(const char *key, int64_t v)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "model.%s=%lld", key, (long long)v);
	return strbuf_detach(&sb, NULL);
}

static char *ov_num(const char *key, double v)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "model.%s=%.17g", key, v);
	return strbuf_detach(&sb, NULL);
}

char **hf_model_overrides(const struct hf_model *m, const char *name)
{
	char **ov = xcalloc(16, sizeof(*ov));
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	/* single-quoted: a name is a string, whatever it looks like */
	strbuf_addstr(&sb, "model.name='");
	for (const char *c = name; *c; c++) {
		if (*c == '\'')
			strbuf_addch(&sb, '\'');
		strbuf_addch(&sb, *c);
	}
	strbuf_addch(&sb, '\'');
	ov[n++] = strbuf_detach(&sb, NULL);
	ov[n++] = xstrdup("model.arch=llama");
	ov[n++] = ov_int("hidden_size", m->hidden);
	ov[n++] = ov_int("intermediate_size", m->inter);
	ov[n++] = ov_int("num_layers", m->layers);
	ov[n++] = ov_int("num_heads", m->heads);
	ov[n++] = ov_int("num_kv_heads", m->kv_heads);
	ov[n++] = ov_int("head_dim", m->head_dim);
	ov[n++] = ov_int("vocab_size", m->vocab);
	ov[n++] = ov_int("max_position", m->max_pos);
	ov[n++] = ov_num("rope_theta", m->rope_theta);
	ov[n++] = ov_num("rms_norm_eps", m->eps);
	ov[n++] = xstrdup(m->qkv_bias ? "model.qkv_bias=true" : "model.qkv_bias=false");
	ov[n++] =
	    xstrdup(m->tie ? "model.tie_word_embeddings=true" : "model.tie_word_embeddings=false");
	return ov;
}

void hf_model_overrides_free(char **ov)
{
	for (size_t i = 0; ov && ov[i]; i++)
		free(ov[i]);
	free(ov);
}

/* Whether an override sets or removes a model key (model=..., model.x=,
 * +model.x=, ~model.x, model@...). */
static int names_model(const char *a)
{
	a += *a == '+' || *a == '~';
	return !strncmp(a, "model", 5) &&
	       (a[5] == '.' || a[5] == '=' || a[5] == '@' || a[5] == '\0');
}

/* The model's name: the folder holding config.json ("Llama-3.2-1B"). */
static void model_name(struct strbuf *out, const char *path)
{
	char *abs = realpath(path, NULL);
	const char *p = abs ? abs : path, *end = strrchr(p, '/'), *start;

	strbuf_reset(out);
	if (end && end > p) {
		for (start = end; start > p && start[-1] != '/'; start--)
			;
		strbuf_add(out, start, (size_t)(end - start));
	}
	if (!out->len)
		strbuf_addstr(out, "config.json");
	free(abs);
}

char **run_model_json(const struct run_ctx *rc, const char *const *ov, size_t n,
		      struct strbuf *note, char **path_out)
{
	const struct llmprof_config *c = config_typed(rc->cfg);
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT, err = STRBUF_INIT, name = STRBUF_INIT;
	const char **argv = NULL;
	struct hf_model m;
	char **out = NULL;
	int r;

	strbuf_reset(note);
	*path_out = NULL;
	if (c->workload.kind != WORKLOAD_KIND_COMMAND || strcmp(c->model.name, "auto"))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (names_model(ov[i]))
			return NULL;
	if (rc->has_program) {
		argv = xcalloc((size_t)rc->prog_argc + 1, sizeof(*argv));
		for (int i = 0; i < rc->prog_argc; i++)
			argv[i] = rc->prog_argv[i];
	} else if (c->workload.program) {
		argv = xcalloc(c->workload.args.nr + 2, sizeof(*argv));
		argv[0] = c->workload.program;
		for (size_t i = 0; i < c->workload.args.nr; i++)
			argv[i + 1] = c->workload.args.v[i];
	}
	if (!argv || !hf_model_find(argv, &path))
		goto out;
	if (read_regular_file(path.buf, INPUT_CAP_TEXT, &buf, &err)) {
		strbuf_addf(note, "ignored the model's config.json: %s; MFU/MBU need model= keys",
			    err.buf);
		goto out;
	}
	r = hf_model_parse(&m, buf.buf, buf.len, path.buf, &err);
	if (r) {
		strbuf_addf(note, "ignored the model's config.json: %s; MFU/MBU need model= keys",
			    err.buf);
		goto out;
	}
	model_name(&name, path.buf);
	out = hf_model_overrides(&m, name.buf);
	*path_out = xstrdup(path.buf);
	strbuf_addf(note, "model shape from %s (%s, %lld layers, hidden %lld)", path.buf,
		    m.model_type, (long long)m.layers, (long long)m.hidden);
out:
	free(argv);
	strbuf_release(&path);
	strbuf_release(&buf);
	strbuf_release(&err);
	strbuf_release(&name);
	return out;
}
