/* selection_json.c: ncu/selection.json, the select step's choice and its
 * one-pass plan as the bundle keeps them; see selection_json.h. */
#include <jansson.h>
#include <stdlib.h>

#include "core/jsonutil.h"
#include "report/selection_json.h"
#include "core/banned.h"

/* The plan as the "ncu_pass" object of root. */
static void select_pass_json(const struct select_pass *p, json_t *root)
{
	json_t *o = json_object(), *ex = json_array(), *un = json_array();

	json_object_set_new(o, "filter_mode",
			    json_string(p->window ? "global" : "per-launch-config"));
	if (p->window)
		json_object_set_new(o, "launch_skip", json_integer((json_int_t)p->skip));
	else
		json_object_set_new(o, "launch_skip_before_match",
				    json_integer((json_int_t)p->skip_before));
	json_object_set_new(o, "launch_count", json_integer((json_int_t)p->count));
	json_object_set_new(o, "kernel_name", json_string_lossy(p->kernel_name));
	for (size_t i = 0; i < p->nexpect; i++)
		json_array_append_new(ex, json_integer((json_int_t)p->expect[i].launch_index));
	json_object_set_new(o, "expected_launches", ex);
	for (size_t i = 0; i < p->nunreached; i++)
		json_array_append_new(un, json_integer((json_int_t)p->unreached[i] + 1));
	json_object_set_new(o, "own_run_ranks", un);
	/* what the expected launches are: each selected class once, repeats,
	 * and classes nobody selected that the filters reach too */
	json_object_set_new(o, "selected_measured", json_integer((json_int_t)p->selected_measured));
	json_object_set_new(o, "repeats", json_integer((json_int_t)p->repeats));
	json_object_set_new(o, "other_classes", json_integer((json_int_t)p->other_classes));
	if (p->other_form_expect) /* what the other form would have asked for */
		json_object_set_new(o, "other_form_expected",
				    json_integer((json_int_t)p->other_form_expect));
	json_object_set_new(root, "ncu_pass", o);
}

/* The classes s's result stands for (select.h): operator, calls, time. */
static json_t *same_work_json(const struct selected_kernel *s)
{
	json_t *a = json_array();

	for (size_t w = 0; w < s->nr_same; w++) {
		const struct select_same_work *x = &s->same[w];
		json_t *o = json_object();

		json_object_set_new(o, "operator", x->op ? json_string_lossy(x->op) : json_null());
		json_object_set_new(o, "calls", json_integer((json_int_t)x->calls));
		json_object_set_new(o, "total_ns", json_real(x->total_ns));
		json_array_append_new(a, o);
	}
	return a;
}

void selection_json(const struct selection *sel, const struct select_opts *o,
		    const struct select_pass *pass, struct strbuf *out)
{
	json_t *root = json_object(), *arr = json_array(), *pats;
	char *text;

	json_object_set_new(root, "stage_launches", json_integer((json_int_t)sel->stage_launches));
	json_object_set_new(root, "stage_gpu_time_ns", json_real(sel->stage_ns));
	json_object_set_new(root, "distinct_kernels", json_integer((json_int_t)sel->distinct));
	json_object_set_new(root, "target_coverage", json_real(sel->target_coverage));
	json_object_set_new(root, "top_n", json_integer((json_int_t)sel->top_n));
	json_object_set_new(root, "selected", json_integer((json_int_t)sel->nr));
	json_object_set_new(root, "covered_gpu_time_ns", json_real(sel->covered_ns));
	json_object_set_new(root, "coverage", json_real(sel->coverage));
	json_object_set_new(root, "stop_reason",
			    json_string(sel->stop_reason ? sel->stop_reason : ""));
	json_object_set_new(root, "nvtx_gated", json_boolean(o->nvtx_gated));
	json_object_set_new(root, "kernel_name_base", json_string(select_base_name(o->base)));
	pats = json_array();
	for (size_t i = 0; i < o->nr_include; i++)
		json_array_append_new(pats, json_string(o->include[i]));
	json_object_set_new(root, "include_patterns", pats);
	pats = json_array();
	for (size_t i = 0; i < o->nr_exclude; i++)
		json_array_append_new(pats, json_string(o->exclude[i]));
	json_object_set_new(root, "exclude_patterns", pats);
	json_object_set_new(root, "excluded_kernels",
			    json_integer((json_int_t)sel->excluded_kernels));
	json_object_set_new(root, "excluded_gpu_time_ns", json_real(sel->excluded_ns));
	json_object_set_new(root, "same_work_tolerance", json_real(o->merge_tolerance));
	json_object_set_new(root, "same_work_classes", json_integer((json_int_t)sel->merged));
	json_object_set_new(root, "same_work_gpu_time_ns", json_real(sel->merged_ns));
	json_object_set_new(root, "nccl_kernels_not_replayed",
			    json_integer((json_int_t)sel->nccl_kernels));
	json_object_set_new(root, "nccl_gpu_time_ns", json_real(sel->nccl_ns));
	for (size_t i = 0; i < sel->nr; i++) {
		const struct selected_kernel *s = &sel->k[i];
		json_t *e;

		e = json_pack("{s:i,s:s,s:s,s:[iii],s:[iii],s:i,s:i,s:f,s:f,"
			      "s:i,s:i,s:i,s:s,s:s}",
			      "rank", (json_int_t)(i + 1), "name", s->name, "short_name",
			      s->short_name, "grid", s->grid[0], s->grid[1], s->grid[2], "block",
			      s->block[0], s->block[1], s->block[2], "device", s->device, "calls",
			      (json_int_t)s->calls, "total_ns", s->total_ns, "share", s->share,
			      "launch_index", (json_int_t)s->launch_index, "launch_skip",
			      (json_int_t)s->launch_skip, "launch_count",
			      (json_int_t)s->launch_count, "kernel_name", s->kernel_name,
			      "kernel_id", s->kernel_id);
		if (!e) /* a name that is not UTF-8: json_pack refuses it */
			e = json_pack("{s:i}", "rank", (json_int_t)(i + 1));
		json_object_set_new(e, "operator", s->op ? json_string_lossy(s->op) : json_null());
		json_object_set_new(e, "same_work", same_work_json(s));
		json_array_append_new(arr, e);
	}
	json_object_set_new(root, "kernels", arr);
	if (pass)
		select_pass_json(pass, root);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	strbuf_addstr(out, text ? text : "{}");
	strbuf_addch(out, '\n');
	free(text);
	json_decref(root);
}
