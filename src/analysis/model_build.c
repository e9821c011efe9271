/* model_build.c: the report model built once from a bundle or loose
 * files: the bundle's record as bundle_open() read it (bundle/open.h),
 * the analysis (session.c, model_fill.c), the counter
 * join (join.c), analytic work, peaks, derived numbers and findings; see
 * model_build.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/analytic.h"
#include "analysis/analytic_cfg.h"
#include "analysis/findings.h"
#include "analysis/join.h"
#include "analysis/ncclapi.h"
#include "analysis/peaks.h"
#include "analysis/pytorch_log.h"
#include "analysis/ranks.h"
#include "analysis/session.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

void report_build_result_init(struct report_build_result *r)
{
	memset(r, 0, sizeof(*r));
	r->analyze_state = r->join_state = STEP_SKIPPED;
	strbuf_init(&r->analyze_msg, 0);
	strbuf_init(&r->join_msg, 0);
	strbuf_init(&r->loud, 0);
}

void report_build_result_release(struct report_build_result *r)
{
	strbuf_release(&r->analyze_msg);
	strbuf_release(&r->join_msg);
	strbuf_release(&r->loud);
}

/* The ncu step's ncu/measured.json (j, parsed once, or NULL): how many of
 * the selected kernels ncu measured (with one pass, how many results), and
 * the ncu time they cost. */
static void measured_reason(struct report_model *m, json_t *j)
{
	json_t *runs, *v, *t = j ? json_object_get(j, "ncu_time") : NULL;

	/* the program under ncu did not run to its end: say so where the user
	 * reads what ncu did (its outputs of that run may be missing) */
	if (json_integer_value(json_object_get(t, "programs_ended_after_last")) > 0)
		report_model_add_reason(m,
					"llmprof ended the program under ncu after ncu's last "
					"planned result (pipeline.ncu.stop_after_last=false lets "
					"it run to its end)");

	/* one pass: "measured" counts its one run, not the kernels in it */
	if (j && json_is_true(json_object_get(j, "one_pass")) &&
	    json_is_array(v = json_object_get(j, "results"))) {
		report_model_add_reason(
		    m, "ncu measured %zu results in one pass in %.1f s of ncu (%s)",
		    json_array_size(v), json_number_value(json_object_get(j, "ncu_wall_s")),
		    bundle_art(BA_NCU_MEASURED));
		return;
	}
	if (j && json_is_array(runs = json_object_get(j, "runs")) &&
	    json_is_integer(v = json_object_get(j, "measured")))
		report_model_add_reason(m, "ncu measured %lld of %zu %s in %.1f s of ncu (%s)",
					(long long)json_integer_value(v), json_array_size(runs),
					json_is_true(json_object_get(j, "explicit_filters"))
					    ? "configured runs"
					    : "selected kernels",
					json_number_value(json_object_get(j, "ncu_wall_s")),
					bundle_art(BA_NCU_MEASURED));
}

/* The select step's ncu/selection.json into m->sel, selected kernels
 * marked. Returns the parsed file for the counter join (borrowed from b),
 * or NULL when there is none or it does not parse (a note says so). */
static json_t *fill_selection(struct report_model *m, const struct bundle_in *b,
			      const struct config *cfg)
{
	json_t *j = b->selection, *v, *ks;
	size_t i;

	if (!b->has_selection)
		return NULL;
	if (!j) {
		report_model_add_note(m, "kernel selection not shown: %s", b->selection_err.buf);
		return NULL;
	}
	m->sel.available = 1;
	report_set_str(&m->sel.stage, cfg ? run_stage_names[config_typed(cfg)->run.stage] : NULL);
	if (json_is_integer(v = json_object_get(j, "top_n")))
		m->sel.top_n = (uint64_t)json_integer_value(v);
	if (json_is_number(v = json_object_get(j, "target_coverage")))
		m->sel.coverage_target = json_number_value(v);
	if (json_is_number(v = json_object_get(j, "coverage")))
		m->sel.coverage = rnum_of(json_number_value(v));
	if (json_is_integer(v = json_object_get(j, "selected")))
		m->sel.nr_selected = (uint64_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "distinct_kernels")))
		m->sel.nr_candidates = (uint64_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "same_work_classes")))
		m->sel.nr_same_work = (uint64_t)json_integer_value(v);
	if (session_jstr(j, "stop_reason") && *session_jstr(j, "stop_reason"))
		report_model_add_reason(m, "stopped: %s", session_jstr(j, "stop_reason"));
	if (json_is_integer(v = json_object_get(j, "nccl_kernels_not_replayed")) &&
	    json_integer_value(v))
		report_model_add_reason(m, "%lld NCCL kernels left out (never kernel-replayed)",
					(long long)json_integer_value(v));
	if (json_is_integer(v = json_object_get(j, "excluded_kernels")) && json_integer_value(v))
		report_model_add_reason(
		    m, "%lld kernels excluded by pipeline.ncu.ncu_cli.kernel_exclude",
		    (long long)json_integer_value(v));
	measured_reason(m, b->measured);
	ks = json_object_get(j, "kernels");
	json_array_foreach(ks, i, v)
	{
		const char *name = session_jstr(v, "name");

		for (size_t k = 0; name && k < m->nr_kernels; k++)
			if (!strcmp(m->kernels[k].short_name, name))
				m->kernels[k].selected = 1;
	}
	return j;
}

/* The join step's reason in the model: why it failed or was skipped, or,
 * ok but with results left unmatched, its "incomplete: ..." line. */
static const char *join_reason(const struct report_model *m, const struct report_build_result *res)
{
	return res->join_state != STEP_OK || report_model_unjoined(m) ? res->join_msg.buf : NULL;
}

/* Recorded steps, with analyze and join replaced by what happened here and
 * the reports step left out (a report cannot describe its own writing, and
 * leaving it out keeps regeneration byte-identical). */
static void fill_steps(struct report_model *m, json_t *status,
		       const struct report_build_result *res)
{
	json_t *steps = status ? json_object_get(status, "steps") : NULL;
	size_t i;
	json_t *s;
	int did_analyze = 0, did_join = 0;

	json_array_foreach(steps, i, s)
	{
		const char *name = session_jstr(s, "name"), *state = session_jstr(s, "state");
		const char *msg = session_jstr(s, "message");
		struct strbuf why = STRBUF_INIT;
		enum step_state recorded;

		if (!name || !state || !strcmp(name, "reports"))
			continue;
		recorded = step_state_from_name(state); /* a word it does not know: failed */
		if (!strcmp(name, "analyze")) {
			/* skipped both times: the recorded reason says why there is
			 * no trace (no backend, pipeline.trace.enable=false) */
			const char *reason =
			    res->analyze_state == STEP_SKIPPED && recorded == STEP_SKIPPED && msg
				? msg
				: res->analyze_msg.buf;

			report_model_add_step(m, "analyze", res->analyze_state,
					      res->analyze_state != STEP_OK ? reason : NULL);
			did_analyze = 1;
			continue;
		}
		if (!strcmp(name, "join")) {
			report_model_add_step(m, "join", res->join_state, join_reason(m, res));
			did_join = 1;
			continue;
		}
		if (recorded == STEP_OK) {
			report_model_add_step(m, name, STEP_OK, NULL);
		} else if (recorded == STEP_SKIPPED) {
			report_model_add_step(m, name, STEP_SKIPPED, msg);
		} else if (recorded == STEP_INTERRUPTED) {
			/* stopped by the user; what it did before is in the bundle */
			report_model_add_step(m, name, STEP_INTERRUPTED, msg ? msg : "interrupted");
		} else if (recorded == STEP_PENDING || recorded == STEP_RUNNING) {
			strbuf_addf(&why, "never finished (%s when %s was last written)", state,
				    bundle_art(BA_STATUS));
			report_model_add_step(m, name, STEP_FAILED, why.buf);
		} else {
			/* timeout or an unknown word: kept in the reason */
			if (strcmp(state, "failed"))
				strbuf_addf(&why, "%s: ", state);
			strbuf_addstr(&why, msg ? msg : "no reason recorded");
			report_model_add_step(m, name, STEP_FAILED, why.buf);
		}
		strbuf_release(&why);
	}
	if (!did_analyze)
		report_model_add_step(m, "analyze", res->analyze_state,
				      res->analyze_state != STEP_OK ? res->analyze_msg.buf : NULL);
	if (!did_join)
		report_model_add_step(m, "join", res->join_state, join_reason(m, res));
}

static void fill_env(struct report_model *m, json_t *env)
{
	json_t *gpus, *g, *tools, *v;

	if (!env)
		return;
	gpus = json_object_get(env, "gpus");
	g = json_array_get(gpus, 0);
	if (g) {
		report_set_str(&m->env.gpu_name, session_jstr(g, "name"));
		report_set_str(&m->env.compute_capability, session_jstr(g, "compute_capability"));
		if (json_is_integer(v = json_object_get(g, "sm_count")))
			m->env.sm_count = (int)json_integer_value(v);
		if (json_is_integer(v = json_object_get(g, "memory_total_bytes")))
			m->env.gpu_memory_gib =
			    rnum_of((double)json_integer_value(v) / (1024.0 * 1024 * 1024));
		if (json_is_integer(v = json_object_get(g, "max_sm_clock_mhz")))
			m->env.sm_clock_mhz = rnum_of((double)json_integer_value(v));
	}
	report_set_str(&m->env.driver, session_jstr(env, "driver_version"));
	report_set_str(&m->env.cuda, session_jstr(env, "cuda_driver_version"));
	report_set_str(&m->env.host, session_jstr(json_object_get(env, "host"), "hostname"));
	report_set_str(&m->env.cpu, session_jstr(json_object_get(env, "cpu"), "model"));
	if ((v = json_object_get(env, "llmprof")))
		report_model_add_tool(m, "llmprof", session_jstr(v, "version"));
	tools = json_object_get(env, "tools");
	if (session_jstr(json_object_get(tools, "nsys"), "version"))
		report_model_add_tool(m, "nsys",
				      session_jstr(json_object_get(tools, "nsys"), "version"));
	if (session_jstr(json_object_get(tools, "ncu"), "version"))
		report_model_add_tool(m, "ncu",
				      session_jstr(json_object_get(tools, "ncu"), "version"));
}

/* The CPU path of the built-in workloads: device=cpu in config.yaml, "no GPU
 * found" when env.json's probe listed none (profile then chose it). */
static enum report_device run_device(const struct config *cfg, json_t *env)
{
	const struct llmprof_config *c = cfg ? config_typed(cfg) : NULL;
	json_t *gpus = env ? json_object_get(env, "gpus") : NULL;

	if (!c ||
	    (c->workload.kind != WORKLOAD_KIND_LLM && c->workload.kind != WORKLOAD_KIND_DUMMY) ||
	    strcmp(c->device, "cpu"))
		return REPORT_DEVICE_GPU;
	return json_is_array(gpus) && !json_array_size(gpus) ? REPORT_DEVICE_CPU_NO_GPU
							     : REPORT_DEVICE_CPU;
}

/* A --rank-dir bundle's rank.json (pipeline/run.c), when the tracer
 * recorded no identity: an nsys export records none, yet the launcher named
 * the rank. What the trace says otherwise (NCCL's communicator, nsys's own
 * environment) gives way to it: rank.json is what llmprof read from the
 * launcher, with the host. Several processes are named in m->ranks
 * instead. A damaged file: a note. */
static void fill_ident_from_rank_json(struct report_model *m, const struct bundle_in *b)
{
	struct report_identity *id = &m->env.ident;
	json_t *rk = b->rank, *v;

	if ((id->from && !strcmp(id->from, "trace")) || m->ranks.nr > 1)
		return;
	if (b->rank_err.len) {
		report_model_add_note(m, "rank identity not read: %s", b->rank_err.buf);
		return;
	}
	v = rk ? json_object_get(rk, "rank") : NULL;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
		return;
	id->rank = (int)json_integer_value(v);
	v = json_object_get(rk, "local_rank");
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT32_MAX)
		id->local_rank = (int)json_integer_value(v);
	v = json_object_get(rk, "world_size");
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= INT32_MAX)
		id->world_size = (int)json_integer_value(v);
	report_set_str(&id->launcher, session_jstr(rk, "launcher"));
	report_set_str(&id->source, session_jstr(rk, "source"));
	report_set_str(&id->host, session_jstr(rk, "host"));
	report_set_str(&id->from, bundle_art(BA_RANK));
}

/* reference.json: the traced and untraced wall times of a reference run.
 * A file that cannot be read, or times that are not positive, give a note
 * and no ratio. */
static void fill_reference(struct report_model *m, const struct bundle_in *b)
{
	struct report_tracer_cost *c = &m->tracer_cost;
	json_t *t = b->reference ? json_object_get(b->reference, "traced_wall_s") : NULL;
	json_t *u = b->reference ? json_object_get(b->reference, "untraced_wall_s") : NULL;

	if (b->reference_err.len) {
		report_model_add_note(m, "reference run not read: %s", b->reference_err.buf);
		return;
	}
	if (!b->reference)
		return;
	if (!json_is_number(t) || !json_is_number(u) || !(json_number_value(t) > 0) ||
	    !(json_number_value(u) > 0)) {
		report_model_add_note(m,
				      "reference run not used: %s has no positive "
				      "traced_wall_s and untraced_wall_s",
				      bundle_art(BA_REFERENCE));
		return;
	}
	c->ref_traced_s = rnum_of(json_number_value(t));
	c->ref_untraced_s = rnum_of(json_number_value(u));
}

/* The built-in llm's shape from config model.* / infer.*. */
static void fill_llm(struct report_model *m, const struct config *cfg)
{
	struct report_llm *l = &m->llm;
	const struct llmprof_config *c = config_typed(cfg);

	if (c->workload.kind != WORKLOAD_KIND_LLM)
		return; /* a user's program: config model.* does not describe it */
	/* the resolved values as they are (config/typed.h): the report's own
	 * "unknown" (cuda_graph -1, sizes 0) stays for the bundles whose
	 * config is not the built-in LLM's, left as report_model_init set it */
	report_set_str(&l->name, c->model.name);
	report_set_str(&l->arch, model_arch_names[c->model.arch]);
	l->hidden_size = (int)c->model.hidden_size;
	l->intermediate_size = (int)c->model.intermediate_size;
	l->num_layers = (int)c->model.num_layers;
	l->num_heads = (int)c->model.num_heads;
	l->num_kv_heads = (int)c->model.num_kv_heads;
	l->head_dim = (int)c->model.head_dim;
	l->vocab_size = (int)c->model.vocab_size;
	report_set_str(&l->dtype, infer_dtype_names[c->infer.dtype]);
	l->batch_size = (int)c->infer.batch_size;
	l->prompt_len = (int)c->infer.prompt_len;
	l->new_tokens = (int)c->infer.max_new_tokens;
	l->cuda_graph = c->infer.cuda_graph;
}

/* fill_llm() took the built-in workload's shape from the configuration;
 * a trace with more decode steps than that generation makes was not made
 * by it (a user's program reported with a hand-written config.yaml): its
 * defaults ("16 layers ... 32 new tokens" beside 999 decode steps) are not
 * facts about this run, so they are dropped, with a note. */
static void drop_foreign_shape(struct report_model *m)
{
	const struct report_stage *dec = report_model_stage_by_role(m, REPORT_ROLE_DECODE);
	struct report_llm *l = &m->llm;
	int said = l->new_tokens;

	if (!dec || !dec->steps || l->new_tokens <= 0 || dec->steps + 1 <= (uint64_t)l->new_tokens)
		return;
	report_model_add_note(m,
			      "the configuration describes the built-in workload (%s, "
			      "infer.max_new_tokens = %d) but the trace has %llu decode steps: "
			      "its model and run shape are not shown; set model= keys for this "
			      "program",
			      l->name ? l->name : "unnamed", said, (unsigned long long)dec->steps);
	report_set_str(&l->name, NULL);
	report_set_str(&l->arch, NULL);
	report_set_str(&l->dtype, NULL);
	l->hidden_size = l->intermediate_size = l->num_layers = l->num_heads = 0;
	l->num_kv_heads = l->head_dim = l->vocab_size = 0;
	l->batch_size = l->prompt_len = l->new_tokens = 0;
	l->cuda_graph = -1;
}

/* The analytic FLOPs/bytes of a program the trace does not describe
 * itself, from the model preset and infer.* the user gave (model=...
 * infer.prompt_len=...), said in a note: they are only as right as those
 * keys. */
static void fill_analytic_cfg(struct report_model *m, const struct config *cfg)
{
	const struct config_infer *in = &config_typed(cfg)->infer;
	struct strbuf j = STRBUF_INIT, e = STRBUF_INIT;

	if (analytic_cfg_json(cfg, &j, &e) ||
	    analytic_load_buffer(m, j.buf, j.len, "model preset", &e))
		report_model_add_note(m, "analytic FLOPs/bytes not used: %s", e.buf);
	else
		report_model_add_note(
		    m,
		    "model FLOPs/bytes for MFU/MBU from model.name=%s with infer.batch_size=%lld, "
		    "infer.prompt_len=%lld, infer.max_new_tokens=%lld, infer.dtype=%s: they must "
		    "describe what the trace ran",
		    config_typed(cfg)->model.name, (long long)in->batch_size,
		    (long long)in->prompt_len, (long long)in->max_new_tokens,
		    infer_dtype_names[in->dtype]);
	strbuf_release(&j);
	strbuf_release(&e);
}

/* A path inside the bundle as the reports show it: relative, so a moved
 * bundle regenerates the same bytes. */
static const char *shown_path(const struct bundle_in *b, const char *path)
{
	const char *run_dir = b ? b->dir : NULL;
	size_t n = run_dir ? strlen(run_dir) : 0;

	if (n && !strncmp(path, run_dir, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

/* The join step: o->ncu_table, or path read and parsed here (with the
 * mangled names beside it), joined with the launches ncu/measured.json
 * names (measured, parsed once; measured_err: why it could not be). */
static void join_ncu(struct report_model *m, const struct report_build_opts *o, const char *path,
		     const struct report_analysis *a, json_t *sel, json_t *measured,
		     const struct strbuf *measured_err, struct report_build_result *res)
{
	struct ncu_kernel_table own = NCU_KERNEL_TABLE_INIT;
	struct strbuf err = STRBUF_INIT, note = STRBUF_INIT;
	const char *shown = shown_path(o->bundle, path);

	if (measured_err && measured_err->len)
		report_model_add_note(m, "launch indices not used: %s", measured_err->buf);
	if (o->ncu_table)
		join_counters(m, o->ncu_table, shown, a, sel, measured, m->run.counters_stage, res);
	else if (join_read_ncu(path, shown, &own, &note, &err)) {
		res->join_state = STEP_FAILED;
		strbuf_add(&res->join_msg, err.buf, err.len);
	} else
		join_counters(m, &own, shown, a, sel, measured, m->run.counters_stage, res);
	if (note.len)
		report_model_add_note(m, "%s", note.buf);
	ncu_kernel_table_release(&own);
	strbuf_release(&err);
	strbuf_release(&note);
}

void report_build_model(const struct report_build_opts *o, struct report_model *m,
			struct report_build_result *res)
{
	struct report_analysis *own = NULL;
	const struct report_analysis *a = o->analysis;
	const struct bundle_in *b = o->bundle;
	struct strbuf e = STRBUF_INIT;
	json_t *status = b ? b->status : NULL, *env = b ? b->env : NULL, *sel = NULL;
	const char *trace_path = o->trace_path;
	const char *ncu = o->ncu_csv;

	if (b) {
		if (!trace_path && b->trace.len)
			trace_path = b->trace.buf;
		if (!ncu && b->ncu_raw.len)
			ncu = b->ncu_raw.buf;
		report_set_str(&m->run.run_id, session_jstr(status, "run_id"));
		report_set_str(&m->run.started_at, session_jstr(status, "started"));
	}
	m->table_rows =
	    o->cfg ? (size_t)config_typed(o->cfg)->run.report_rows : CONFIG_REPORT_ROWS_DEFAULT;
	if (o->cfg && o->bundle) /* loose files: no profile run had a mode */
		report_set_str(&m->run.mode, run_mode_names[config_typed(o->cfg)->run.mode]);
	if (!a) {
		own = report_analysis_new();
		report_analysis_run(own, trace_path, o->cfg);
		a = own;
	}
	if (a->path)
		report_set_str(&m->run.trace_path, shown_path(b, a->path));
	res->analyze_state = a->state;
	strbuf_add(&res->analyze_msg, a->msg.buf, a->msg.len);
	model_fill_from_analysis(m, a);
	ranks_fill(m, a);
	if (a->have_tl) /* reads the payload tables; changes nothing */
		nccl_api_fill(m, (struct trace *)&a->trace);
	if (b)
		sel = fill_selection(m, b, o->cfg);
	if (ncu) {
		report_set_str(&m->run.ncu_path, shown_path(b, ncu));
		if (a->state != STEP_OK)
			strbuf_addstr(&res->join_msg, "no analyzed trace to join the counters to");
		else {
			/* the ncu step profiles run.stage only (NVTX include filters) */
			report_set_str(&m->run.counters_stage,
				       o->cfg && b
					   ? run_stage_names[config_typed(o->cfg)->run.stage]
					   : o->counters_stage);
			join_ncu(m, o, ncu, a, sel, b ? b->measured : NULL,
				 b ? &b->measured_err : NULL, res);
		}
	} else {
		strbuf_addf(&res->join_msg, "no %s: no counters to join", bundle_art(BA_NCU_RAW));
	}
	if (b) {
		fill_steps(m, status, res);
		pytorch_log_fill(m, b->pytorch_given,
				 b->pytorch_log.len ? b->pytorch_log.buf : NULL, b->pytorch_log.len,
				 b->pytorch_log_err.len ? b->pytorch_log_err.buf : NULL);
	} else {
		report_model_add_step(m, "analyze", res->analyze_state,
				      res->analyze_state != STEP_OK ? res->analyze_msg.buf : NULL);
		report_model_add_step(m, "join", res->join_state, join_reason(m, res));
	}
	fill_env(m, env);
	if (b)
		fill_ident_from_rank_json(m, b);
	if (b)
		fill_reference(m, b);
	m->env.device = run_device(o->cfg, env);
	if (o->cfg) {
		fill_llm(m, o->cfg);
		drop_foreign_shape(m);
	}
	if (b && b->analytic_path.len) {
		if (b->analytic_err.len || analytic_load_buffer(m, b->analytic.buf, b->analytic.len,
								b->analytic_path.buf, &e))
			report_model_add_note(m, "analytic FLOPs/bytes not used: %s",
					      b->analytic_err.len ? b->analytic_err.buf : e.buf);
	} else if (o->cfg && analytic_cfg_applies(o->cfg)) {
		fill_analytic_cfg(m, o->cfg);
	}
	strbuf_reset(&e);
	if (m->env.device == REPORT_DEVICE_GPU)
		peaks_load(m, o->cfg, model_fill_env_from_trace(m, a));
	else
		report_model_add_note(m,
				      "the built-in workload ran on the %s, so GPU peaks, MFU "
				      "and MBU do not apply",
				      report_device_label(m->env.device));
	ranks_utilization(m);
	report_model_derive(m);
	findings_run(m);
	model_timeline_findings(m, a);
	model_trust(m, a);
	findings_rank(m);
	for (size_t i = 0; i < m->nr_findings; i++) {
		const char *t = m->findings[i].text;

		if (m->findings[i].severity == FINDING_INFO || !t)
			continue;
		/* the text is Markdown: drop its backslash escapes for a terminal */
		for (; *t; t++) {
			if (*t == '\\' && t[1] && strchr("\\`*_{}[]()#+-.!|<>~", t[1]))
				t++;
			strbuf_addch(&res->loud, *t);
		}
		strbuf_addch(&res->loud, '\n');
	}
	report_analysis_free(own);
	strbuf_release(&e);
}
