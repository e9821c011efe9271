/* kernels_md.c: kernels.md / kernels.json writers; see kernels_md.h. */
#include <jansson.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/md.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "report/kernels_md.h"
#include "core/banned.h"

struct counter_col {
	const char *header;
	int fmt_pct; /* 1: "%.1f", 0: "%.2f" */
	size_t off;  /* offset in struct ncu_kernel_group */
};

static const struct counter_col counter_cols[] = {
    {"Compute SOL %", 1, offsetof(struct ncu_kernel_group, sm_sol_pct)},
    {"Memory SOL %", 1, offsetof(struct ncu_kernel_group, mem_sol_pct)},
    {"Achieved occupancy %", 1, offsetof(struct ncu_kernel_group, achieved_occ_pct)},
    {"AI (FLOP/byte)", 0, offsetof(struct ncu_kernel_group, ai)},
};

static double gfield(const struct ncu_kernel_group *g, size_t off)
{
	return *(const double *)((const char *)g + off);
}

static void add_dim3(struct strbuf *out, const int v[3])
{
	strbuf_addf(out, "(%d,%d,%d)", v[0], v[1], v[2]);
}

static void add_ms(struct strbuf *out, double ns)
{
	if (ncu_have(ns))
		strbuf_addf(out, "%.6f", ns / 1e6);
	else
		strbuf_addstr(out, "n/a");
}

void kernels_md_render(const struct ncu_kernel_table *t, const struct kernels_md_opts *opts,
		       struct strbuf *out)
{
	int have[ARRAY_SIZE(counter_cols)] = {0}, have_bound = 0;
	size_t shown = t->ngroups;

	for (size_t j = 0; j < t->ngroups; j++) {
		for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
			have[c] |= ncu_have(gfield(&t->groups[j], counter_cols[c].off));
		have_bound |= t->groups[j].bound != NCU_BOUND_UNKNOWN;
	}
	if (opts && opts->max_rows && t->ngroups > opts->max_rows)
		shown = opts->max_rows > 1 ? opts->max_rows - 1 : 1;

	strbuf_addf(out, "# %s\n\n", opts && opts->title ? opts->title : "Kernels");
	strbuf_addf(out, "Source: %s  \n", t->source ? t->source : "?");
	strbuf_addf(out,
		    "%zu launches of %zu distinct kernels (name + launch configuration), "
		    "%.6f ms of GPU time in total.",
		    t->total_calls, t->ngroups, t->total_ns / 1e6);
	if (t->missing_duration)
		strbuf_addf(out,
			    " %zu results had no duration (gpu__time_duration.sum) and "
			    "count as calls only.",
			    t->missing_duration);
	strbuf_addstr(out, "\n\n");
	if (!t->ngroups) {
		strbuf_addstr(out, "No kernels in this export.\n");
		return;
	}

	strbuf_addstr(out,
		      "| # | Kernel | Launch (grid x block) | Calls | Total (ms) | Mean (ms) | "
		      "% of GPU time |");
	for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
		if (have[c])
			strbuf_addf(out, " %s |", counter_cols[c].header);
	if (have_bound)
		strbuf_addstr(out, " Bound |");
	strbuf_addstr(out, "\n|---:|:---|:---|---:|---:|---:|---:|");
	for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
		if (have[c])
			strbuf_addstr(out, "---:|");
	if (have_bound)
		strbuf_addstr(out, ":---|");
	strbuf_addch(out, '\n');

	for (size_t j = 0; j < shown; j++) {
		const struct ncu_kernel_group *g = &t->groups[j];

		strbuf_addf(out, "| %zu | ", j + 1);
		md_text(out, g->short_name);
		strbuf_addstr(out, " | ");
		if (g->grid[0] || g->block[0]) {
			add_dim3(out, g->grid);
			strbuf_addstr(out, " x ");
			add_dim3(out, g->block);
		} else {
			strbuf_addstr(out, "n/a");
		}
		strbuf_addf(out, " | %zu | ", g->calls);
		add_ms(out, g->total_ns);
		strbuf_addstr(out, " | ");
		add_ms(out, ncu_have(g->total_ns) ? g->total_ns / (double)g->calls : NAN);
		strbuf_addstr(out, " | ");
		fmt_fixed(out,
			  ncu_have(g->total_ns) && t->total_ns > 0
			      ? rnum_of(100.0 * g->total_ns / t->total_ns)
			      : RNUM_NONE,
			  2);
		strbuf_addstr(out, " |");
		for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++) {
			double v = gfield(g, counter_cols[c].off);

			if (!have[c])
				continue;
			strbuf_addch(out, ' ');
			fmt_fixed(out, ncu_have(v) ? rnum_of(v) : RNUM_NONE,
				  counter_cols[c].fmt_pct ? 1 : 2);
			strbuf_addstr(out, " |");
		}
		if (have_bound)
			strbuf_addf(out, " %s |", ncu_bound_name(g->bound));
		strbuf_addch(out, '\n');
	}
	if (shown < t->ngroups) {
		size_t calls = 0;
		double total = 0;

		for (size_t j = shown; j < t->ngroups; j++) {
			calls += t->groups[j].calls;
			total += ncu_have(t->groups[j].total_ns) ? t->groups[j].total_ns : 0;
		}
		strbuf_addf(out, "| | (%zu other kernels) | | %zu | ", t->ngroups - shown, calls);
		add_ms(out, total);
		strbuf_addstr(out, " | ");
		add_ms(out, calls ? total / (double)calls : NAN);
		strbuf_addf(out, " | %.2f |", t->total_ns > 0 ? 100.0 * total / t->total_ns : 0.0);
		for (size_t c = 0; c < ARRAY_SIZE(counter_cols); c++)
			if (have[c])
				strbuf_addstr(out, " |");
		if (have_bound)
			strbuf_addstr(out, " |");
		strbuf_addch(out, '\n');
	}

	strbuf_addstr(out, "\nKernel names:\n\n");
	for (size_t j = 0; j < shown; j++) {
		strbuf_addf(out, "%zu. ", j + 1);
		md_code_plain(out, t->groups[j].name);
		strbuf_addch(out, '\n');
	}
	if (have_bound)
		strbuf_addf(out,
			    "\nBound: compute when Compute SOL >= %.0f %% and >= Memory SOL; "
			    "memory when Memory SOL >= %.0f %% and above Compute SOL; latency "
			    "when both are below %.0f %% (docs/ncu.md).\n",
			    NCU_BOUND_THRESHOLD_PCT, NCU_BOUND_THRESHOLD_PCT,
			    NCU_BOUND_THRESHOLD_PCT);
}

static json_t *jnum(double v)
{
	return ncu_have(v) && isfinite(v) ? json_real(v) : json_null();
}

static json_t *jdim3(const int v[3])
{
	return json_pack("[iii]", v[0], v[1], v[2]);
}

void kernels_json_render(const struct ncu_kernel_table *t, struct strbuf *out)
{
	json_t *root = json_object(), *groups = json_array(), *launches = json_array();
	char *text;

	json_object_set_new(root, "source", json_string(t->source ? t->source : ""));
	json_object_set_new(root, "total_calls", json_integer((json_int_t)t->total_calls));
	json_object_set_new(root, "total_gpu_time_ns", jnum(t->total_ns));
	json_object_set_new(root, "bound_rule",
			    json_string("compute: sm_sol>=60 and >=mem_sol; memory: mem_sol>=60 "
					"and >sm_sol; latency: both <60"));
	for (size_t j = 0; j < t->ngroups; j++) {
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
		json_object_set_new(
		    o, "pct_gpu_time",
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
		json_array_append_new(groups, o);
	}
	for (size_t i = 0; i < t->nr; i++) {
		const struct ncu_kernel *k = &t->k[i];
		json_t *o = json_object(), *fl = json_object();

		json_object_set_new(o, "id", json_integer(k->id));
		json_object_set_new(o, "name", json_string(k->name));
		json_object_set_new(o, "short_name", json_string(k->short_name));
		json_object_set_new(o, "nvtx", k->nvtx ? json_string(k->nvtx) : json_null());
		json_object_set_new(o, "pid", k->pid >= 0 ? json_integer(k->pid) : json_null());
		json_object_set_new(o, "device",
				    k->device >= 0 ? json_integer(k->device) : json_null());
		json_object_set_new(o, "context",
				    k->context >= 0 ? json_integer(k->context) : json_null());
		json_object_set_new(o, "stream",
				    k->stream >= 0 ? json_integer(k->stream) : json_null());
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
		json_array_append_new(launches, o);
	}
	json_object_set_new(root, "kernels", groups);
	json_object_set_new(root, "launches", launches);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	strbuf_addstr(out, text ? text : "{}");
	strbuf_addch(out, '\n');
	free(text);
	json_decref(root);
}

int kernels_md_write(const struct ncu_kernel_table *t, const struct kernels_md_opts *opts,
		     const char *dir, struct strbuf *err)
{
	struct strbuf md = STRBUF_INIT, js = STRBUF_INIT, path = STRBUF_INIT;
	int ret = -1;

	if (mkdir_p(dir, err))
		goto out;
	kernels_md_render(t, opts, &md);
	kernels_json_render(t, &js);
	path_join(&path, dir, "kernels.md");
	if (write_file_atomic(path.buf, md.buf, md.len, err))
		goto out;
	strbuf_reset(&path);
	path_join(&path, dir, "kernels.json");
	if (write_file_atomic(path.buf, js.buf, js.len, err))
		goto out;
	ret = 0;
out:
	strbuf_release(&md);
	strbuf_release(&js);
	strbuf_release(&path);
	return ret;
}
