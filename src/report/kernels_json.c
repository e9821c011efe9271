/* kernels_json.c: kernels.json of an Nsight Compute export; see kernels_json.h. */
#include <jansson.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/bundle_dir.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "report/kernels_json.h"
#include "report/report.h"
#include "core/banned.h"

static json_t *jnum(double v)
{
	return ncu_have(v) && isfinite(v) ? json_real(v) : json_null();
}

static json_t *jdim3(const int v[3])
{
	return json_pack("[iii]", v[0], v[1], v[2]);
}

#define KJ_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static json_t *group_json(const struct ncu_kernel_table *t, size_t j)
{
	const struct ncu_kernel_group *g = &t->groups[j];
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "short_name", json_string(g->short_name));
	json_object_set_new(o, "grid", jdim3(g->grid));
	json_object_set_new(o, "block", jdim3(g->block));
	json_object_set_new(o, "calls", json_integer((json_int_t)g->calls));
	json_object_set_new(o, "total_ns", jnum(g->total_ns));
	json_object_set_new(o, "mean_ns", jnum(g->total_ns / (double)g->calls));
	json_object_set_new(o, "min_ns", jnum(g->min_ns));
	json_object_set_new(o, "max_ns", jnum(g->max_ns));
	json_object_set_new(o, "pct_gpu_time",
			    jnum(t->total_ns > 0 ? 100.0 * g->total_ns / t->total_ns : NAN));
	json_object_set_new(o, "compute_sol_pct", jnum(g->sm_sol_pct));
	json_object_set_new(o, "memory_sol_pct", jnum(g->mem_sol_pct));
	json_object_set_new(o, "dram_throughput_pct", jnum(g->dram_pct));
	json_object_set_new(o, "l2_throughput_pct", jnum(g->l2_pct));
	json_object_set_new(o, "achieved_occupancy_pct", jnum(g->achieved_occ_pct));
	json_object_set_new(o, "theoretical_occupancy_pct", jnum(g->theoretical_occ_pct));
	json_object_set_new(o, "flops", jnum(g->flops_total));
	json_object_set_new(o, "dram_bytes", jnum(g->dram_bytes));
	json_object_set_new(o, "arithmetic_intensity", jnum(g->ai));
	json_object_set_new(o, "bound", json_string(ncu_bound_name(g->bound)));
	return o;
}

static json_t *launch_json(const struct ncu_kernel_table *t, size_t i)
{
	const struct ncu_kernel *k = &t->k[i];
	json_t *o = json_object(), *fl = json_object();

	json_object_set_new(o, "id", json_integer(k->id));
	json_object_set_new(o, "name", json_string(k->name));
	json_object_set_new(o, "short_name", json_string(k->short_name));
	json_object_set_new(o, "nvtx", k->nvtx ? json_string(k->nvtx) : json_null());
	json_object_set_new(o, "pid", k->pid >= 0 ? json_integer(k->pid) : json_null());
	json_object_set_new(o, "device", k->device >= 0 ? json_integer(k->device) : json_null());
	json_object_set_new(o, "context", k->context >= 0 ? json_integer(k->context) : json_null());
	json_object_set_new(o, "stream", k->stream >= 0 ? json_integer(k->stream) : json_null());
	json_object_set_new(o, "cc", json_string(k->cc));
	json_object_set_new(o, "grid", jdim3(k->grid));
	json_object_set_new(o, "block", jdim3(k->block));
	json_object_set_new(o, "registers_per_thread", jnum(k->registers));
	json_object_set_new(o, "shared_mem_bytes", jnum(k->shared_mem));
	json_object_set_new(o, "duration_ns", jnum(k->duration_ns));
	json_object_set_new(o, "compute_sol_pct", jnum(k->sm_sol_pct));
	json_object_set_new(o, "memory_sol_pct", jnum(k->mem_sol_pct));
	json_object_set_new(o, "dram_throughput_pct", jnum(k->dram_pct));
	json_object_set_new(o, "l2_throughput_pct", jnum(k->l2_pct));
	json_object_set_new(o, "achieved_occupancy_pct", jnum(k->achieved_occ_pct));
	json_object_set_new(o, "theoretical_occupancy_pct", jnum(k->theoretical_occ_pct));
	for (int p = 0; p < NCU_PREC_NR; p++)
		json_object_set_new(fl, ncu_prec_name((enum ncu_prec)p), jnum(k->flops[p]));
	json_object_set_new(o, "flops", fl);
	json_object_set_new(o, "flops_total", jnum(k->flops_total));
	json_object_set_new(o, "tensor_flops", jnum(k->tensor_flops));
	json_object_set_new(o, "dram_bytes", jnum(k->dram_bytes));
	json_object_set_new(o, "arithmetic_intensity", jnum(k->ai));
	json_object_set_new(o, "bound", json_string(ncu_bound_name(k->bound)));
	return o;
}

/* Appends o as json_dumps() prints it two levels deep (each line indented
 * by 4 more spaces: strings hold no raw newline), and releases o. */
static void add_nested(struct strbuf *out, json_t *o)
{
	char *text = json_dumps(o, KJ_FLAGS);

	for (const char *p = text ? text : "{}"; *p; p++) {
		strbuf_addch(out, *p);
		if (*p == '\n')
			strbuf_addstr(out, "    ");
	}
	free(text);
	json_decref(o);
}

/* Writes kernels.json to fp (NULL: only into out), an object at a time:
 * the text of the whole file is never held, nor its tree. */
static void kernels_json_emit(const struct ncu_kernel_table *t, struct strbuf *out, FILE *fp)
{
	json_t *root = json_object();
	char *text;

	json_object_set_new(root, "source", json_string(t->source ? t->source : ""));
	json_object_set_new(root, "total_calls", json_integer((json_int_t)t->total_calls));
	json_object_set_new(root, "total_gpu_time_ns", jnum(t->total_ns));
	json_object_set_new(root, "bound_rule",
			    json_string("compute: sm_sol>=60 and >=mem_sol; memory: mem_sol>=60 "
					"and >sm_sol; latency: both <60"));
	/* the scalars as jansson prints them ("{\n  ...\n}": total_calls is
	 * always there), the closing "\n}" dropped, then the arrays by hand */
	text = json_dumps(root, KJ_FLAGS);
	if (!text || strlen(text) < 4)
		BUG("%s: cannot serialize the header", bundle_art(BA_OUT_KERNELS_JSON));
	strbuf_add(out, text, strlen(text) - 2);
	free(text);
	json_decref(root);
	strbuf_addstr(out, ",\n  \"kernels\": [");
	for (size_t j = 0; j < t->ngroups; j++) {
		strbuf_addstr(out, j ? ",\n    " : "\n    ");
		add_nested(out, group_json(t, j));
		if (fp) {
			fwrite(out->buf, 1, out->len, fp);
			strbuf_reset(out);
		}
	}
	strbuf_addstr(out, t->ngroups ? "\n  ],\n  \"launches\": [" : "],\n  \"launches\": [");
	for (size_t i = 0; i < t->nr; i++) {
		strbuf_addstr(out, i ? ",\n    " : "\n    ");
		add_nested(out, launch_json(t, i));
		if (fp) {
			fwrite(out->buf, 1, out->len, fp);
			strbuf_reset(out);
		}
	}
	strbuf_addstr(out, t->nr ? "\n  ]\n}\n" : "]\n}\n");
	if (fp) {
		fwrite(out->buf, 1, out->len, fp);
		strbuf_reset(out);
	}
}

void kernels_json_render(const struct ncu_kernel_table *t, struct strbuf *out)
{
	kernels_json_emit(t, out, NULL);
}

int kernels_files_write(const struct report_model *m, const struct ncu_kernel_table *t,
			const struct bundle_dir *bd, struct strbuf *err)
{
	struct strbuf md = STRBUF_INIT, js = STRBUF_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;
	int ret = -1;

	report_render_kernels_md(m, &md);
	if (bundle_dir_write(bd, bundle_art(BA_KERNELS_MD), md.buf, md.len, err))
		goto out;
	if (bundle_dir_atomic_open(bd, bundle_art(BA_OUT_KERNELS_JSON), &af, err) < 0)
		goto out;
	kernels_json_emit(t, &js, af.fp);
	if (atomic_file_commit(&af, err))
		goto out;
	ret = 0;
out:
	strbuf_release(&md);
	strbuf_release(&js);
	return ret;
}
