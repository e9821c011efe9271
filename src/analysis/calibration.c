/* calibration.c: read and write measured ceilings (see calibration.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/calibration.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "core/banned.h"

void calibration_release(struct calibration *c)
{
	free(c->gpu);
	free(c->cc);
	free(c->created_at);
	free(c->tool);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

static int get_positive(json_t *obj, const char *key, const char *what, double *out,
			struct strbuf *err)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v)))
		return error_set(err, "%s: '%s' must be a positive number", what, key);
	*out = json_number_value(v);
	return 0;
}

static char *opt_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

int calibration_parse(const char *buf, size_t len, const char *what, struct calibration *c,
		      struct strbuf *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *gemm, *copy, *v;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!root) {
		error_set(err, "%s:%d:%d: %s", what, jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (!json_is_object(root)) {
		error_set(err, "%s: expected a JSON object", what);
		goto out;
	}
	v = json_object_get(root, "gpu");
	if (!json_is_string(v) || !*json_string_value(v)) {
		error_set(err, "%s: 'gpu' must be a non-empty string", what);
		goto out;
	}
	c->gpu = xstrdup(json_string_value(v));
	v = json_object_get(root, "sm_count");
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < 100000)
		c->sm_count = (int)json_integer_value(v);
	gemm = json_object_get(root, "gemm");
	copy = json_object_get(root, "copy");
	if (!json_is_object(gemm) || !json_is_object(copy)) {
		error_set(err, "%s: 'gemm' and 'copy' objects are required", what);
		goto out;
	}
	if (get_positive(gemm, "tflops", what, &c->gemm_tflops, err) ||
	    get_positive(copy, "gbs", what, &c->copy_gbs, err))
		goto out;
	v = json_object_get(copy, "convention");
	if (json_is_string(v) && strcmp(json_string_value(v), "read+write")) {
		error_set(err, "%s: copy convention '%s' is not 'read+write'", what,
			  json_string_value(v));
		goto out;
	}
	c->cc = opt_str(root, "cc");
	c->created_at = opt_str(root, "created_at");
	c->tool = opt_str(root, "tool");
	ret = 0;
out:
	if (ret)
		calibration_release(c);
	json_decref(root);
	return ret;
}

void calibration_sanitize_name(struct strbuf *out, const char *gpu)
{
	size_t start = out->len;
	int pending = 0;

	for (const unsigned char *p = (const unsigned char *)(gpu ? gpu : ""); *p; p++) {
		if (isalnum(*p) || *p == '.' || *p == '-') {
			if (pending && out->len > start)
				strbuf_addch(out, '_');
			pending = 0;
			strbuf_addch(out, *p);
		} else {
			pending = 1;
		}
	}
	if (out->len == start)
		strbuf_addstr(out, "unknown-gpu");
}

int calibration_dir(struct strbuf *out, struct strbuf *err)
{
	const char *d = getenv("LLMPROF_CALIBRATION_DIR");

	if (d && *d) {
		strbuf_addstr(out, d);
		return 0;
	}
	d = getenv("XDG_CACHE_HOME");
	if (d && *d == '/') {
		path_join(out, d, "llmprof/calibration");
		return 0;
	}
	d = getenv("HOME");
	if (d && *d) {
		path_join(out, d, ".cache/llmprof/calibration");
		return 0;
	}
	return error_set(err,
			 "cannot locate the calibration directory: set LLMPROF_CALIBRATION_DIR");
}

static int calibration_path(struct strbuf *path, const char *gpu, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT;

	if (calibration_dir(path, err))
		return -1;
	calibration_sanitize_name(&name, gpu);
	strbuf_addstr(&name, ".json");
	strbuf_addch(path, '/');
	strbuf_addstr(path, name.buf);
	strbuf_release(&name);
	return 0;
}

int calibration_load(const char *gpu, struct calibration *c, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (calibration_path(&path, gpu, err))
		goto out;
	if (!path_exists(path.buf)) {
		ret = 0;
		goto out;
	}
	if (read_regular_file(path.buf, INPUT_CAP_TEXT, &buf, err))
		goto out;
	if (calibration_parse(buf.buf, buf.len, path.buf, c, err))
		goto out;
	if (gpu && strcmp(c->gpu, gpu)) {
		error_set(err, "%s: measured on '%s', not on '%s'", path.buf, c->gpu, gpu);
		calibration_release(c);
		goto out;
	}
	c->path = strbuf_detach(&path, NULL);
	ret = 1;
out:
	strbuf_release(&path);
	strbuf_release(&buf);
	return ret;
}

int calibration_store(const struct calibration *c, struct strbuf *path_out, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	json_t *root = json_object(), *gemm = json_object(), *copy = json_object();
	char *text = NULL;
	int ret = -1;

	json_object_set_new(root, "gpu", json_string(c->gpu));
	if (c->sm_count > 0)
		json_object_set_new(root, "sm_count", json_integer(c->sm_count));
	if (c->cc)
		json_object_set_new(root, "cc", json_string(c->cc));
	json_object_set_new(gemm, "dtype", json_string("bf16"));
	json_object_set_new(gemm, "tflops", json_real(c->gemm_tflops));
	json_object_set_new(copy, "gbs", json_real(c->copy_gbs));
	json_object_set_new(copy, "convention", json_string("read+write"));
	json_object_set_new(root, "gemm", gemm);
	json_object_set_new(root, "copy", copy);
	if (c->created_at)
		json_object_set_new(root, "created_at", json_string(c->created_at));
	if (c->tool)
		json_object_set_new(root, "tool", json_string(c->tool));
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	if (!text || calibration_dir(&dir, err) || mkdir_p(dir.buf, err) ||
	    calibration_path(&path, c->gpu, err))
		goto out;
	{
		struct strbuf data = STRBUF_INIT;

		strbuf_addstr(&data, text);
		strbuf_addch(&data, '\n');
		ret = write_file_atomic(path.buf, data.buf, data.len, err);
		strbuf_release(&data);
	}
	if (!ret && path_out)
		strbuf_addstr(path_out, path.buf);
out:
	free(text);
	json_decref(root);
	strbuf_release(&dir);
	strbuf_release(&path);
	return ret;
}
