/* open.c: a run bundle opened for reading, each file read once; see
 * open.h. */
#include <stdio.h>
#include <string.h>

#include "bundle/open.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/banned.h"

const char *bundle_backend_name(enum bundle_backend b)
{
	switch (b) {
	case BUNDLE_BACKEND_BUILTIN:
		return "builtin";
	case BUNDLE_BACKEND_NSYS:
		return "nsys";
	case BUNDLE_BACKEND_NONE:
		break;
	}
	return NULL;
}

const char *bundle_trace(const char *dir, struct strbuf *sb, enum bundle_art *art)
{
	static const enum bundle_art rel[] = {BA_TRACE_SQLITE, BA_NSYS_SQLITE, BA_NSYS_SUMMARY};
	size_t at = sb->len;

	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		strbuf_setlen(sb, at);
		path_join(sb, dir, bundle_art(rel[i]));
		if (path_exists(sb->buf)) {
			if (art)
				*art = rel[i];
			return sb->buf;
		}
	}
	strbuf_setlen(sb, at);
	if (art)
		*art = BA_NR;
	return NULL;
}

int bundle_load_json(const char *path, json_t **out, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	json_error_t je;

	*out = NULL;
	if (!path_exists(path))
		return 0;
	if (read_regular_file(path, INPUT_CAP_TEXT, &buf, err))
		return -1;
	*out = json_loadb(buf.buf, buf.len, 0, &je);
	strbuf_release(&buf);
	if (!*out)
		return error_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	return 0;
}

json_t *bundle_rank_status(const char *dir, int r)
{
	struct strbuf p = STRBUF_INIT, rank = STRBUF_INIT, err = STRBUF_INIT;
	json_t *st = NULL;

	strbuf_addf(&rank, "%d", r);
	strbuf_addf(&p, "%s/", dir);
	bundle_art_fill(&p, BA_RANK_BUNDLE, rank.buf);
	path_join(&p, "", bundle_art(BA_STATUS));
	if (bundle_load_json(p.buf, &st, &err)) {
		json_decref(st);
		st = NULL;
	}
	strbuf_release(&p);
	strbuf_release(&rank);
	strbuf_release(&err);
	return st;
}

/* The backend status.json records: the plan's steps name it (the builtin
 * backend's "trace" step, nsys's "nsys-export"; docs/run-bundle.md). */
static enum bundle_backend status_backend(json_t *status)
{
	json_t *steps = status ? json_object_get(status, "steps") : NULL, *s;
	size_t i;

	json_array_foreach(steps, i, s)
	{
		const char *name = json_string_value(json_object_get(s, "name"));

		if (name && !strcmp(name, "trace"))
			return BUNDLE_BACKEND_BUILTIN;
		if (name && !strcmp(name, "nsys-export"))
			return BUNDLE_BACKEND_NSYS;
	}
	return BUNDLE_BACKEND_NONE;
}

/* <dir>/<a> into *out when `what` asks for it; -1 with err when it exists
 * and cannot be read. */
static int load_record(struct bundle_in *b, enum bundle_art a, unsigned flag, unsigned what,
		       json_t **out, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	if (what & flag) {
		path_join(&p, b->dir, bundle_art(a));
		ret = bundle_load_json(p.buf, out, err);
	}
	strbuf_release(&p);
	return ret;
}

/* Like load_record(), but a damaged file is kept as *why, not an error;
 * *exists says whether the file is there. */
static void load_part(struct bundle_in *b, enum bundle_art a, unsigned flag, unsigned what,
		      json_t **out, struct strbuf *why, int *exists)
{
	struct strbuf p = STRBUF_INIT;

	if (what & flag) {
		path_join(&p, b->dir, bundle_art(a));
		if (exists)
			*exists = path_exists(p.buf);
		if (bundle_load_json(p.buf, out, why)) {
			json_decref(*out);
			*out = NULL;
		}
	}
	strbuf_release(&p);
}

/* config.yaml, loaded as a conf dir (the bundle keeps the configuration
 * file's own name for this). */
static int load_config(struct bundle_in *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	path_join(&p, b->dir, bundle_art(BA_CONFIG));
	if (path_exists(p.buf))
		ret = config_load(&b->cfg, b->dir, 0, NULL, err);
	strbuf_release(&p);
	return ret;
}

static void load_analytic(struct bundle_in *b)
{
	path_join(&b->analytic_path, b->dir, bundle_art(BA_ANALYTIC));
	if (!path_exists(b->analytic_path.buf))
		strbuf_reset(&b->analytic_path);
	else if (read_regular_file(b->analytic_path.buf, INPUT_CAP_DATA, &b->analytic,
				   &b->analytic_err))
		strbuf_reset(&b->analytic);
}

/* logs/pytorch.log, and whether logs/workload.env gave the module. */
static void load_pytorch(struct bundle_in *b)
{
	struct strbuf p = STRBUF_INIT, env = STRBUF_INIT, why = STRBUF_INIT;

	bundle_art_fill(&why, BA_LOG_ENV, "workload");
	path_join(&p, b->dir, why.buf);
	strbuf_reset(&why);
	if (path_exists(p.buf) && !read_regular_file(p.buf, INPUT_CAP_TEXT, &env, &why))
		b->pytorch_given = !strncmp(env.buf, "LLMPROF_PYTORCH=", 16) ||
				   strstr(env.buf, "\nLLMPROF_PYTORCH=") != NULL;
	strbuf_reset(&p);
	path_join(&p, b->dir, bundle_art(BA_LOG_PYTORCH));
	if (path_exists(p.buf) &&
	    read_regular_file(p.buf, INPUT_CAP_TEXT, &b->pytorch_log, &b->pytorch_log_err))
		strbuf_reset(&b->pytorch_log);
	strbuf_release(&p);
	strbuf_release(&env);
	strbuf_release(&why);
}

int bundle_open(struct bundle_in *b, const char *dir, unsigned what, struct strbuf *err)
{
	b->dir = dir;
	bundle_trace(dir, &b->trace, &b->trace_art);
	path_join(&b->ncu_raw, dir, bundle_art(BA_NCU_RAW));
	if (!path_exists(b->ncu_raw.buf))
		strbuf_reset(&b->ncu_raw);
	/* the order the commands always read them in, so that of two damaged
	 * files the same one is named */
	if (load_record(b, BA_STATUS, BUNDLE_READ_STATUS, what, &b->status, err) ||
	    load_record(b, BA_METRICS_JSON, BUNDLE_READ_METRICS, what, &b->metrics, err) ||
	    ((what & BUNDLE_READ_CONFIG) && load_config(b, err)) ||
	    load_record(b, BA_ENV, BUNDLE_READ_ENV, what, &b->env, err))
		return -1;
	b->backend = status_backend(b->status);
	if (b->backend == BUNDLE_BACKEND_NONE && b->trace_art != BA_NR)
		b->backend =
		    b->trace_art == BA_TRACE_SQLITE ? BUNDLE_BACKEND_BUILTIN : BUNDLE_BACKEND_NSYS;
	load_part(b, BA_NCU_MEASURED, BUNDLE_READ_MEASURED, what, &b->measured, &b->measured_err,
		  NULL);
	load_part(b, BA_NCU_SELECTION, BUNDLE_READ_SELECTION, what, &b->selection,
		  &b->selection_err, &b->has_selection);
	load_part(b, BA_RANK, BUNDLE_READ_RANK, what, &b->rank, &b->rank_err, NULL);
	load_part(b, BA_REFERENCE, BUNDLE_READ_REFERENCE, what, &b->reference, &b->reference_err,
		  NULL);
	if (what & BUNDLE_READ_ANALYTIC)
		load_analytic(b);
	if (what & BUNDLE_READ_PYTORCH)
		load_pytorch(b);
	return 0;
}

void bundle_in_release(struct bundle_in *b)
{
	strbuf_release(&b->trace);
	strbuf_release(&b->ncu_raw);
	if (b->cfg)
		config_free(b->cfg);
	json_decref(b->status);
	json_decref(b->env);
	json_decref(b->metrics);
	json_decref(b->selection);
	json_decref(b->measured);
	json_decref(b->rank);
	json_decref(b->reference);
	strbuf_release(&b->reference_err);
	strbuf_release(&b->selection_err);
	strbuf_release(&b->measured_err);
	strbuf_release(&b->rank_err);
	strbuf_release(&b->analytic);
	strbuf_release(&b->analytic_path);
	strbuf_release(&b->analytic_err);
	strbuf_release(&b->pytorch_log);
	strbuf_release(&b->pytorch_log_err);
	b->cfg = NULL;
	b->status = b->env = b->metrics = b->selection = b->measured = b->rank = NULL;
	b->reference = NULL;
}
