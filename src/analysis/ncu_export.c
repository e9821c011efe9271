/* ncu_export.c: see ncu_export.h. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ncu_export.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/banned.h"

/* The export is read whole: the parsed table's cells point into its text
 * (trace/ncu_csv.h), and the kernels and regions need every result at once,
 * so reading it in pieces would save no memory (every cell would be copied
 * instead). A file over the cap is refused before a byte of it is read,
 * in words that say why, not only how large it is. */
int ncu_export_check_size(const char *path, struct strbuf *err)
{
	size_t size;
	int fd = open_regular_file(path, SIZE_MAX, &size, err);

	if (fd < 0)
		return -1;
	close(fd);
	if (size <= INPUT_CAP_DATA)
		return 0;
	return error_set(err,
			 "'%s' is too large: %zu bytes, over the %zu GiB an Nsight Compute CSV "
			 "may have (llmprof holds it in memory whole); export fewer results or "
			 "metrics",
			 path, size, INPUT_CAP_DATA >> 30);
}

int ncu_export_load(struct ncu_export *x, const char *path, struct strbuf *err)
{
	/* read_regular_file() checks the cap again: the file may grow */
	if (ncu_export_check_size(path, err) ||
	    read_regular_file(path, INPUT_CAP_DATA, &x->text, err))
		return -1;
	if (ncu_raw_parse(x->text.buf, x->text.len, path, &x->raw, err) ||
	    ncu_kernels_from_raw(&x->raw, &x->t, err))
		return -1;
	return 0;
}

void ncu_export_release(struct ncu_export *x)
{
	ncu_kernel_table_release(&x->t);
	ncu_raw_release(&x->raw);
	strbuf_release(&x->text);
}

static struct rnum have_or_none(double v)
{
	return ncu_have(v) ? rnum_of(v) : RNUM_NONE;
}

static enum kernel_bound bound_of(enum ncu_bound b)
{
	switch (b) {
	case NCU_BOUND_COMPUTE:
		return BOUND_COMPUTE;
	case NCU_BOUND_MEMORY:
		return BOUND_MEMORY;
	case NCU_BOUND_LATENCY:
		return BOUND_LATENCY;
	case NCU_BOUND_UNKNOWN:
		break;
	}
	return BOUND_UNKNOWN;
}

void report_model_from_ncu(struct report_model *m, const struct ncu_kernel_table *t,
			   size_t max_rows)
{
	m->ncu.available = 1;
	report_set_str(&m->ncu.source, t->source ? t->source : "?");
	m->ncu.launches = t->total_calls;
	m->ncu.total_ns = t->total_ns;
	m->ncu.missing_duration = t->missing_duration;
	m->ncu.max_rows = max_rows;
	for (size_t j = 0; j < t->ngroups; j++) {
		const struct ncu_kernel_group *g = &t->groups[j];
		struct report_kernel *k = report_model_add_kernel(m, g->short_name, g->name);

		memcpy(k->grid, g->grid, sizeof(k->grid));
		memcpy(k->block, g->block, sizeof(k->block));
		k->calls = g->calls;
		k->ncu_ns = have_or_none(g->total_ns);
		report_kernel_counters(k)->profiled = g->calls;
		report_kernel_counters(k)->sm_sol_pct = have_or_none(g->sm_sol_pct);
		report_kernel_counters(k)->mem_sol_pct = have_or_none(g->mem_sol_pct);
		report_kernel_counters(k)->occupancy_pct = have_or_none(g->achieved_occ_pct);
		report_kernel_counters(k)->ai = have_or_none(g->ai);
		report_kernel_counters(k)->bound = bound_of(g->bound);
	}
}
