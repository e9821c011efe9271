/* regions.h: NVTX regions from ncu results.
 *
 * Two inputs give regions:
 *   range / app-range replay: one raw-page row per range instance (Kernel
 *     Name "range"); its gpu__time_duration is the region's measured,
 *     inclusive time;
 *   kernel replay with --nvtx: one row per kernel; a region's inclusive
 *     time is the sum of the kernels launched inside it, nested ones
 *     included.
 * A region is identified by its NVTX path (outermost first, e.g.
 * "LLM@decode_all/LLM@decode_step"); instances of the same path are merged.
 * parent/depth come from the NVTX stack. For each region: inclusive total,
 * the sum of its child regions, self = inclusive - children, and whether
 * they reconcile: children may not exceed the parent by more than 1 %
 * (REGIONS_TOLERANCE). Scopes: every region also lists its time per process
 * and per device.
 *
 * Ownership: struct regions owns all of it; regions_release(). */
#ifndef LLMPROF_REGIONS_H
#define LLMPROF_REGIONS_H

#include <stddef.h>

#include "core/strbuf.h"
#include "trace/ncu_csv.h"

#define REGIONS_TOLERANCE 0.01

enum regions_mode { REGIONS_RANGE, REGIONS_KERNEL };

struct region_scope {
	long long key; /* pid or device */
	double total_ns;
	size_t instances;
};

struct region {
	char *path;	 /* "LLM@decode_all/LLM@decode_step" */
	char *name;	 /* innermost range name */
	char *domain;	 /* NULL = default domain */
	char *parent;	 /* parent path, NULL at depth 0 */
	long parent_idx; /* index of the parent region, -1 if not a region */
	size_t depth;
	char *dir;	  /* sanitized directory name, unique */
	size_t instances; /* range results (range mode); kernel mode: kernels whose innermost
			   * region this is (range instances are unknown there; writers say n/a) */
	size_t kernels;	  /* kernel mode: kernels inside, nested included */
	double inclusive_ns;
	double children_ns; /* sum of child regions' inclusive time */
	double self_ns;
	int reconciled;
	struct region_scope *procs, *devs;
	size_t nprocs, ndevs, aprocs, adevs;
	size_t *rows; /* raw rows of this region (own, not nested) */
	size_t nrows, arows;
};

struct regions {
	enum regions_mode mode;
	struct region *v; /* sorted by path: parents before children */
	size_t nr, alloc;
	double total_ns;     /* sum over depth-0 regions */
	size_t unattributed; /* kernel mode: kernels outside every range */
	int all_reconciled;
	/* set by the caller: results a region's metrics.json lists, the
	 * longest (0 = all; run.report_rows) */
	size_t max_results;
};
#define REGIONS_INIT                                                                               \
	{                                                                                          \
		0                                                                                  \
	}

/* Builds the regions of raw (mode detected from the rows). 0, or -1 with
 * err (a bad NVTX cell). No NVTX column or no rows gives zero regions. */
int regions_build(const struct ncu_raw *raw, struct regions *rg, struct strbuf *err);
void regions_release(struct regions *rg);

#endif
