/* trace-report.c: report.md, kernels.md, operators.md, metrics.json from a
 * trace's timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "report/table.h"
#include "report/trace-report.h"
#include "core/banned.h"

#define TOP_OPERATORS 30
#define TOP_KERNELS 20

void report_ctx_init(struct report_ctx *c)
{
	memset(c, 0, sizeof(*c));
	stage_config_default(&c->stages);
}

void report_ctx_release(struct report_ctx *c)
{
	if (c->have_trace)
		trace_close(&c->trace);
	if (c->analyzed)
		timeline_release(&c->tl);
	kernel_summary_release(&c->csv_kernels);
	strtab_release(&c->csv_strs);
	for (size_t i = 0; i < c->nfindings; i++)
		free(c->findings[i]);
	free(c->findings);
	memset(c, 0, sizeof(*c));
}

__attribute__((format(printf, 2, 3))) static void add_finding(struct report_ctx *c, const char *fmt,
							      ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(c->findings, c->nfindings + 1, c->findings_alloc);
	c->findings[c->nfindings++] = strbuf_detach(&sb, NULL);
}

int report_load(struct report_ctx *c, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	int ret = -1;

	if (ends_with(c->trace_path, ".csv")) {
		if (strbuf_read_file(&buf, c->trace_path))
			return error_errno(err, "cannot read '%s'", c->trace_path);
		ret = kernel_summary_read_csv(&c->csv_kernels, &c->csv_strs, buf.buf, buf.len,
					      c->trace_path, err);
		c->have_kernel_csv = !ret;
		strbuf_release(&buf);
		return ret;
	}
	if (trace_open(&c->trace, c->trace_path, err)) {
		trace_close(&c->trace);
		return -1;
	}
	c->have_trace = 1;
	return 0;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

int report_analyze(struct report_ctx *c, struct strbuf *err)
{
	const struct timeline *tl = &c->tl;
	int any_stage = 0;

	if (c->have_kernel_csv) {
		add_finding(c,
			    "The input is an `nsys stats` kernel summary (CSV), not a trace: "
			    "no stage timings, operators or GPU idle time can be derived from it.");
		if (!c->csv_kernels.nrows)
			add_finding(c, "**No GPU work captured**: the kernel summary is empty.");
		return 0;
	}
	if (timeline_build(&c->tl, &c->trace, &c->stages, err))
		return -1;
	c->analyzed = 1;
	if (!tl->have_kernels || !tl->nkernels) {
		add_finding(
		    c,
		    "**No GPU work captured**: the trace has %s. Was CUDA tracing on, did the "
		    "capture range cover the work, were CUDA graphs traced per node?",
		    tl->have_kernels ? "an empty kernel table" : "no CUDA kernel table at all");
	}
	for (int s = 0; s < STAGE_NROLES; s++)
		any_stage |= tl->stage_found[s];
	if (!any_stage) {
		struct strbuf names = STRBUF_INIT;

		for (int s = 0; s < STAGE_NROLES; s++)
			for (size_t i = 0; i < c->stages.stages[s].nnames; i++)
				strbuf_addf(&names, "%s`%s`", names.len ? ", " : "",
					    c->stages.stages[s].names[i]);
		add_finding(c,
			    "**No NVTX range matched a stage** (looked for %s): stage timings "
			    "are empty; `llmprof nvtx` lists the ranges a program emits.",
			    names.buf);
		strbuf_release(&names);
	}
	if (tl->nkernels && tl->kernels_outside && any_stage)
		add_finding(c,
			    "**%zu of %zu kernels ran outside every stage** (%.3f ms, %.1f%% of "
			    "kernel time): warm-up, setup or unmarked work.",
			    tl->kernels_outside, tl->nkernels, ms(tl->kernel_ns_outside),
			    tl->kernel_ns ? 100.0 * (double)tl->kernel_ns_outside / tl->kernel_ns
					  : 0);
	if (tl->stage_cross_thread)
		add_finding(c,
			    "%zu stage range%s ended on another thread than the one that started "
			    "it: its GPU work is not projected (nsys leaves such ranges out too); "
			    "push/pop or same-thread start/end ranges avoid this.",
			    tl->stage_cross_thread, tl->stage_cross_thread == 1 ? "" : "s");
	if (tl->kernels_no_launch)
		add_finding(c,
			    "%zu kernel%s no launch call in the trace (CUDA API trace off or cut "
			    "short): they belong to no NVTX range.",
			    tl->kernels_no_launch, tl->kernels_no_launch == 1 ? " has" : "s have");
	for (int s = 0; s < STAGE_NROLES; s++) {
		const struct stage_timing *st = &tl->stages[s];

		if (st->proj_ns > 0 && st->idle_ns * 5 > st->proj_ns)
			add_finding(c,
				    "The GPU is idle %.1f%% of the %s stage (%.3f of %.3f ms "
				    "projected): launch overhead or host work between kernels.",
				    100.0 * (double)st->idle_ns / st->proj_ns, stage_role_name(s),
				    ms(st->idle_ns), ms(st->proj_ns));
	}
	return 0;
}

static void add_ms(struct table *t, int64_t ns)
{
	char b[64];

	snprintf(b, sizeof(b), "%.3f", ms(ns));
	table_add_str(t, b);
}

static void add_fixed(struct table *t, double v, int decimals)
{
	char b[64];

	snprintf(b, sizeof(b), "%.*f", decimals, v);
	table_add_str(t, b);
}

static const char *str_or(const struct strtab *st, int32_t id, const char *dflt)
{
	const char *s = strtab_str(st, id);

	return s ? s : dflt;
}

static void stage_table(const struct report_ctx *c, struct table *t)
{
	static const char *const cols[] = {"stage",
					   "instances",
					   "CPU time (ms)",
					   "GPU projected (ms)",
					   "GPU busy (ms)",
					   "GPU idle inside (ms)",
					   "idle %",
					   "kernels",
					   "kernel time (ms)",
					   "launches/s"};

	table_init(t, cols, ARRAY_SIZE(cols));
	table_set_kind(t, 0, TABLE_TEXT);
	for (int s = 0; s < STAGE_NROLES; s++) {
		const struct stage_timing *st = &c->tl.stages[s];

		if (!c->tl.stage_found[s])
			continue;
		table_add_str(t, stage_role_name(s));
		table_add_i64(t, (int64_t)st->instances);
		add_ms(t, st->cpu_ns);
		add_ms(t, st->proj_ns);
		add_ms(t, st->busy_ns);
		add_ms(t, st->idle_ns);
		add_fixed(t, st->proj_ns ? 100.0 * (double)st->idle_ns / st->proj_ns : 0, 1);
		table_add_i64(t, (int64_t)st->kernels);
		add_ms(t, st->kernel_ns);
		add_fixed(t, st->launches_per_s, 0);
	}
}

static void operator_table(const struct report_ctx *c, const struct strtab *strs, size_t max,
			   struct table *t)
{
	static const char *const cols[] = {"operator",	    "domain",  "stage",		  "calls",
					   "GPU time (ms)", "kernels", "share of stage %"};

	table_init(t, cols, ARRAY_SIZE(cols));
	table_set_kind(t, 0, TABLE_TEXT);
	table_set_kind(t, 1, TABLE_TEXT);
	table_set_kind(t, 2, TABLE_TEXT);
	for (size_t i = 0; i < c->tl.nops && i < max; i++) {
		const struct operator_stat *o = &c->tl.ops[i];

		table_add_str(t, str_or(strs, o->text, ""));
		table_add_str(t, str_or(strs, o->domain, ""));
		table_add_str(t, o->stage >= 0 ? stage_role_name(o->stage) : "");
		table_add_i64(t, (int64_t)o->calls);
		add_ms(t, o->gpu_ns);
		table_add_i64(t, (int64_t)o->kernels);
		if (o->stage >= 0)
			add_fixed(t, 100.0 * o->stage_share, 1);
		else
			table_add_null(t);
	}
}

static void kernel_table(const struct kernel_summary *ks, const struct strtab *strs, int cfg,
			 size_t max, struct table *t)
{
	static const char *const cols[] = {"kernel",	 "grid",     "block",	 "calls",
					   "total (ms)", "avg (us)", "med (us)", "min (us)",
					   "max (us)",	 "share %"};
	static const char *const cols_name[] = {"kernel",   "calls",	"total (ms)", "avg (us)",
						"med (us)", "min (us)", "max (us)",   "share %"};

	if (cfg)
		table_init(t, cols, ARRAY_SIZE(cols));
	else
		table_init(t, cols_name, ARRAY_SIZE(cols_name));
	table_set_kind(t, 0, TABLE_TEXT);
	for (size_t i = 0; i < ks->nrows && i < max; i++) {
		const struct kernel_stat *k = &ks->rows[i];
		char b[96];

		table_add_str(t, str_or(strs, k->name, "(unnamed)"));
		if (cfg) {
			snprintf(b, sizeof(b), "%d,%d,%d", k->grid[0], k->grid[1], k->grid[2]);
			table_add_str(t, b);
			snprintf(b, sizeof(b), "%d,%d,%d", k->block[0], k->block[1], k->block[2]);
			table_add_str(t, b);
		}
		table_add_i64(t, (int64_t)k->calls);
		add_ms(t, k->total_ns);
		add_fixed(t, k->avg_ns / 1e3, 3);
		add_fixed(t, k->med_ns / 1e3, 3);
		add_fixed(t, (double)k->min_ns / 1e3, 3);
		add_fixed(t, (double)k->max_ns / 1e3, 3);
		add_fixed(t, 100.0 * k->share, 1);
	}
}

static void memop_table(const struct report_ctx *c, const struct strtab *strs, struct table *t)
{
	static const char *const cols[] = {"operation", "count", "total (ms)", "bytes (MB)",
					   "GB/s"};

	table_init(t, cols, ARRAY_SIZE(cols));
	table_set_kind(t, 0, TABLE_TEXT);
	for (size_t i = 0; i < c->tl.nmemop_stats; i++) {
		const struct memop_stat *m = &c->tl.memops[i];

		table_add_str(t, str_or(strs, m->name, "(unknown copy kind)"));
		table_add_i64(t, (int64_t)m->count);
		add_ms(t, m->total_ns);
		add_fixed(t, (double)m->bytes / 1e6, 3);
		if (m->total_ns > 0)
			add_fixed(t, (double)m->bytes / (double)m->total_ns, 2);
		else
			table_add_null(t);
	}
}

static void md_table(struct strbuf *md, struct table *t, const char *empty)
{
	if (!t->nrows)
		strbuf_addf(md, "%s\n", empty);
	else
		table_write_md(t, md);
	table_release(t);
}

static int write_md(const struct report_ctx *c, const char *name, const struct strbuf *md,
		    struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	path_join(&path, c->out_dir, name);
	ret = write_file_atomic(path.buf, md->buf, md->len, err);
	strbuf_release(&path);
	return ret;
}

static json_t *stage_json(const struct stage_timing *st)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:{s:f, s:f, s:f, s:I}}",
			 "instances", (json_int_t)st->instances, "cpu_ns", (json_int_t)st->cpu_ns,
			 "gpu_projected_ns", (json_int_t)st->proj_ns, "gpu_busy_ns",
			 (json_int_t)st->busy_ns, "gpu_idle_ns", (json_int_t)st->idle_ns,
			 "kernel_ns", (json_int_t)st->kernel_ns, "kernels", (json_int_t)st->kernels,
			 "launches", (json_int_t)st->launches, "launches_per_s", st->launches_per_s,
			 "gpu_projected_per_instance_ns", "mean", st->mean_ns, "p50", st->p50_ns,
			 "p90", st->p90_ns, "max", (json_int_t)st->max_ns);
}

static int write_json(const struct report_ctx *c, const struct kernel_summary *ks,
		      const struct strtab *strs, struct strbuf *err)
{
	json_t *root = json_object(), *stages = json_object(), *ops = json_array(),
	       *kerns = json_array(), *finds = json_array();
	struct strbuf path = STRBUF_INIT;
	char *text = NULL;
	int ret = -1;

	json_object_set_new(root, "source", json_string(c->trace_path));
	if (c->have_trace && c->trace.producer)
		json_object_set_new(root, "producer", json_string(c->trace.producer));
	for (size_t i = 0; i < c->nfindings; i++)
		json_array_append_new(finds, json_string(c->findings[i]));
	json_object_set_new(root, "findings", finds);
	if (c->analyzed) {
		json_object_set_new(
		    root, "kernels_total",
		    json_pack("{s:I, s:I, s:I, s:I, s:I}", "count", (json_int_t)c->tl.nkernels,
			      "time_ns", (json_int_t)c->tl.kernel_ns, "outside_stages",
			      (json_int_t)c->tl.kernels_outside, "outside_stages_ns",
			      (json_int_t)c->tl.kernel_ns_outside, "without_launch_call",
			      (json_int_t)c->tl.kernels_no_launch));
		for (int s = 0; s < STAGE_NROLES; s++)
			if (c->tl.stage_found[s])
				json_object_set_new(stages, stage_role_name(s),
						    stage_json(&c->tl.stages[s]));
		for (size_t i = 0; i < c->tl.nops; i++) {
			const struct operator_stat *o = &c->tl.ops[i];

			json_array_append_new(
			    ops, json_pack("{s:s, s:s?, s:s?, s:I, s:I, s:I, s:f}", "name",
					   str_or(strs, o->text, ""), "domain",
					   strtab_str(strs, o->domain), "stage",
					   o->stage >= 0 ? stage_role_name(o->stage) : NULL,
					   "calls", (json_int_t)o->calls, "gpu_ns",
					   (json_int_t)o->gpu_ns, "kernels", (json_int_t)o->kernels,
					   "stage_share", o->stage_share));
		}
	}
	json_object_set_new(root, "stages", stages);
	if (c->analyzed) {
		json_t *mem = json_array();

		for (size_t i = 0; i < c->tl.nmemop_stats; i++) {
			const struct memop_stat *m = &c->tl.memops[i];

			json_array_append_new(mem, json_pack("{s:s, s:I, s:I, s:I}", "operation",
							     str_or(strs, m->name, ""), "count",
							     (json_int_t)m->count, "total_ns",
							     (json_int_t)m->total_ns, "bytes",
							     (json_int_t)m->bytes));
		}
		json_object_set_new(root, "memory_ops", mem);
	}
	json_object_set_new(root, "operators", ops);
	for (size_t i = 0; i < ks->nrows; i++) {
		const struct kernel_stat *k = &ks->rows[i];

		json_array_append_new(
		    kerns, json_pack("{s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:f}", "name",
				     str_or(strs, k->name, ""), "calls", (json_int_t)k->calls,
				     "total_ns", (json_int_t)k->total_ns, "avg_ns", k->avg_ns,
				     "med_ns", k->med_ns, "min_ns", (json_int_t)k->min_ns, "max_ns",
				     (json_int_t)k->max_ns, "share", k->share));
	}
	json_object_set_new(root, "kernels", kerns);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text) {
		error_set(err, "cannot encode metrics.json");
		goto cleanup;
	}
	path_join(&path, c->out_dir, "metrics.json");
	{
		struct strbuf body = STRBUF_INIT;

		strbuf_addstr(&body, text);
		strbuf_addch(&body, '\n');
		ret = write_file_atomic(path.buf, body.buf, body.len, err);
		strbuf_release(&body);
	}
cleanup:
	free(text);
	json_decref(root);
	strbuf_release(&path);
	return ret;
}

int report_write(struct report_ctx *c, struct strbuf *err)
{
	const struct strtab *strs = c->have_trace ? &c->trace.strs : &c->csv_strs;
	const struct kernel_summary *ks = c->analyzed ? &c->tl.by_name : &c->csv_kernels;
	struct strbuf md = STRBUF_INIT;
	struct table t;
	int ret = -1;

	if (mkdir_p(c->out_dir, err))
		return -1;
	/* report.md: findings, stages, top operators, top kernels */
	strbuf_addf(&md, "# llmprof report\n\nSource: `%s`", c->trace_path);
	if (c->have_trace && c->trace.producer)
		strbuf_addf(&md, " (%s)", c->trace.producer);
	strbuf_addstr(&md, "\n\n## Findings\n\n");
	if (!c->nfindings)
		strbuf_addstr(&md, "Nothing unusual.\n");
	for (size_t i = 0; i < c->nfindings; i++)
		strbuf_addf(&md, "- %s\n", c->findings[i]);
	if (c->analyzed) {
		strbuf_addstr(&md, "\n## Stages\n\nGPU projected = from the first to the last GPU "
				   "operation launched inside the stage's NVTX ranges; busy = time "
				   "some operation ran; idle inside = projected - busy.\n\n");
		stage_table(c, &t);
		md_table(&md, &t, "No stage ranges found.");
		for (int s = 0; s < STAGE_NROLES; s++) {
			const struct stage_timing *st = &c->tl.stages[s];

			if (!c->tl.stage_found[s] || st->instances < 2)
				continue;
			strbuf_addf(
			    &md,
			    "\n%s, GPU projected time per instance: mean %.3f ms, p50 %.3f ms, "
			    "p90 %.3f ms, max %.3f ms.\n",
			    stage_role_name(s), st->mean_ns / 1e6, st->p50_ns / 1e6,
			    st->p90_ns / 1e6, ms(st->max_ns));
		}
		strbuf_addf(&md, "\n## Operators (top %d by GPU time)\n\n", TOP_OPERATORS);
		operator_table(c, strs, TOP_OPERATORS, &t);
		md_table(&md, &t, "No operator ranges found.");
	}
	strbuf_addf(&md, "\n## Kernels (top %d by GPU time)\n\n", TOP_KERNELS);
	kernel_table(ks, strs, 0, TOP_KERNELS, &t);
	md_table(&md, &t, "No kernels.");
	if (c->analyzed) {
		strbuf_addstr(&md, "\n## Memory operations\n\n");
		memop_table(c, strs, &t);
		md_table(&md, &t, "No memcpy or memset.");
	}
	if (write_md(c, "report.md", &md, err))
		goto cleanup;

	strbuf_reset(&md);
	strbuf_addstr(&md, "# Kernels\n\n## By name\n\n");
	kernel_table(ks, strs, 0, (size_t)-1, &t);
	md_table(&md, &t, "No kernels.");
	if (c->analyzed) {
		strbuf_addstr(&md, "\n## By name and launch configuration\n\n");
		kernel_table(&c->tl.by_config, strs, 1, (size_t)-1, &t);
		md_table(&md, &t, "No kernels.");
	}
	if (write_md(c, "kernels.md", &md, err))
		goto cleanup;

	strbuf_reset(&md);
	strbuf_addstr(&md, "# Operators\n\nGPU time of an operator = its kernels (a kernel counts "
			   "for its innermost operator range only); share = of its stage's kernel "
			   "time.\n\n");
	if (c->analyzed) {
		operator_table(c, strs, (size_t)-1, &t);
		md_table(&md, &t, "No operator ranges found.");
	} else {
		strbuf_addstr(&md, "Not available from a kernel summary CSV.\n");
	}
	if (write_md(c, "operators.md", &md, err))
		goto cleanup;
	ret = write_json(c, ks, strs, err);
cleanup:
	strbuf_release(&md);
	return ret;
}
