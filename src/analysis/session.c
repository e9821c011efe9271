/* session.c: the analyze step: a trace opened and its timeline built (or an
 * `nsys stats` kernel summary read), kept for the later steps; see
 * model_build.h and session.h. */
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/select.h"
#include "analysis/session.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* stages.* from the config; the defaults when cfg is NULL or a list is empty. */
static void stages_from_config(struct report_analysis *a, const struct config *cfg)
{
	const struct config_stages *c;
	const struct config_strlist *lists[STAGE_NROLES];

	stage_config_default(&a->stages);
	if (!cfg)
		return;
	c = &config_typed(cfg)->stages;
	lists[0] = &c->prefill; /* the order of the stage roles */
	lists[1] = &c->decode;
	lists[2] = &c->decode_step;
	for (int r = 0; r < STAGE_NROLES; r++) {
		size_t n = lists[r]->nr;

		if (!n)
			continue;
		a->names[r] = xcalloc(n, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			a->names[r][i] = lists[r]->v[i];
		a->stages.stages[r].names = a->names[r];
		a->stages.stages[r].nnames = n;
	}
	a->stages.operator_pattern = c->operator_pattern;
}

struct report_analysis *report_analysis_new(void)
{
	struct report_analysis *a = xcalloc(1, sizeof(*a));

	a->state = STEP_SKIPPED;
	strbuf_init(&a->msg, 0);
	return a;
}

void report_analysis_free(struct report_analysis *a)
{
	if (!a)
		return;
	if (a->have_tl)
		timeline_release(&a->tl);
	if (a->have_trace)
		trace_close(&a->trace);
	trace_gpu_release(&a->gpu);
	kernel_summary_release(&a->csv_kernels);
	strtab_release(&a->csv_strs);
	for (int r = 0; r < STAGE_NROLES; r++)
		free(a->names[r]);
	strbuf_release(&a->msg);
	free(a->path);
	free(a);
}

enum step_state report_analysis_state(const struct report_analysis *a, const char **msg)
{
	if (msg)
		*msg = a->msg.buf;
	return a->state;
}

void report_analysis_run(struct report_analysis *a, const char *path, const struct config *cfg)
{
	struct strbuf err = STRBUF_INIT, buf = STRBUF_INIT;
	int ret = -1;

	stages_from_config(a, cfg);
	if (!path) {
		strbuf_addf(&a->msg, "no trace in the bundle (%s or %s)",
			    bundle_art(BA_TRACE_SQLITE), bundle_art(BA_NSYS_SQLITE));
		return;
	}
	a->path = xstrdup(path);
	if (ends_with(path, ".csv")) {
		if (read_regular_file(path, INPUT_CAP_DATA, &buf, &err))
			goto out;
		if (kernel_summary_read_csv(&a->csv_kernels, &a->csv_strs, buf.buf, buf.len, path,
					    &err))
			goto out;
		a->have_csv = 1;
		strbuf_addf(&a->msg, "kernel summary CSV only: %zu kernels, no stages or operators",
			    a->csv_kernels.nrows);
		ret = 0;
		goto out;
	}
	if (trace_open(&a->trace, path, &err)) {
		trace_close(&a->trace);
		goto out;
	}
	a->have_trace = 1;
	if (timeline_build(&a->tl, &a->trace, &a->stages, &err))
		goto out;
	a->have_tl = 1;
	/* the device, for a report without env.json; a damaged table only
	 * costs the peaks */
	strbuf_reset(&err);
	a->have_gpu = trace_gpu_info(&a->trace, &a->gpu, &err) > 0 && a->gpu.name;
	strbuf_reset(&err);
	strbuf_addf(&a->msg, "%zu kernels, %zu memory operations, %zu operators", a->tl.nkernels,
		    a->tl.nmemops, a->tl.nops);
	ret = 0;
out:
	if (ret)
		strbuf_add(&a->msg, err.buf, err.len);
	a->state = ret ? STEP_FAILED : STEP_OK;
	strbuf_release(&err);
	strbuf_release(&buf);
}

int report_analysis_launches(const struct report_analysis *a, const char *stage,
			     struct launch **out, size_t *n, struct strbuf *err)
{
	unsigned mask;
	struct launch *l;

	*out = NULL;
	*n = 0;
	if (!a->have_tl)
		return error_set(err, "no analyzed trace to select kernels from");
	if (!stage || !strcmp(stage, "decode"))
		mask = (1u << STAGE_DECODE) | (1u << STAGE_DECODE_STEP);
	else if (!strcmp(stage, "prefill"))
		mask = 1u << STAGE_PREFILL;
	else if (!strcmp(stage, "decode_step"))
		mask = 1u << STAGE_DECODE_STEP;
	else if (!strcmp(stage, "all"))
		mask = 0;
	else
		return error_set(err,
				 "run.stage=%s: kernels can be attributed to prefill, decode, "
				 "decode_step or all; name other ranges in stages.* instead",
				 stage);
	l = xcalloc(a->trace.nkernels + 1, sizeof(*l));
	for (size_t i = 0; i < a->trace.nkernels; i++) {
		const struct trace_kernel *k = &a->trace.kernels[i];
		const struct trace_ksig *sig = trace_ksig(&a->trace, k);

		l[i].name = strtab_str(&a->trace.strs, sig->name);
		if (!l[i].name)
			l[i].name = "(unnamed)";
		l[i].short_name = strtab_str(&a->trace.strs, sig->short_name);
		l[i].mangled = strtab_str(&a->trace.strs, sig->mangled);
		memcpy(l[i].grid, sig->grid, sizeof(l[i].grid));
		memcpy(l[i].block, sig->block, sizeof(l[i].block));
		l[i].start = k->start;
		l[i].end = k->end;
		l[i].device = sig->device;
		l[i].in_stage = !mask || (a->tl.kernel_stages && (a->tl.kernel_stages[i] & mask));
		/* the operator range makes the class (analysis/select.h) */
		l[i].op = a->tl.kernel_op && a->tl.kernel_op[i] >= 0
			      ? strtab_str(&a->trace.strs, a->tl.kernel_op[i])
			      : NULL;
	}
	*out = l;
	*n = a->trace.nkernels;
	return 0;
}

const char *session_jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}
