/* exposed.c: each kernel's exposed time (see exposed.h). */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/exposed.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct kstart {
	int64_t start;
	size_t k;
};

static int cmp_kstart(const void *a, const void *b)
{
	const struct kstart *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

void kernel_exposed_times(const struct trace *t, int64_t *exposed)
{
	struct kstart *v = xmalloc(st_mult(t->nkernels + 1, sizeof(*v)));
	struct {
		int32_t dev;
		int64_t covered;
	} *dev = NULL;
	size_t ndev = 0, adev = 0, last = 0;
	int sorted = 1;

	for (size_t i = 0; i < t->nkernels; i++) {
		v[i].start = t->kernels[i].start;
		v[i].k = i;
		sorted &= i == 0 || v[i - 1].start <= v[i].start;
	}
	/* exports list kernels mostly in start order: sort only when not */
	if (!sorted)
		qsort(v, t->nkernels, sizeof(*v), cmp_kstart);
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *k = &t->kernels[v[i].k];
		const struct trace_ksig *sig = trace_ksig(t, k);
		int64_t from;

		if (!ndev || dev[last].dev != sig->device) {
			for (last = 0; last < ndev && dev[last].dev != sig->device; last++)
				;
			if (last == ndev) {
				ALLOC_GROW(dev, ndev + 1, adev);
				dev[ndev].dev = sig->device;
				dev[ndev++].covered = INT64_MIN;
			}
		}
		from = k->start > dev[last].covered ? k->start : dev[last].covered;
		exposed[v[i].k] = k->end > from ? i64_sat_sub(k->end, from) : 0;
		if (k->end > dev[last].covered)
			dev[last].covered = k->end;
	}
	free(dev);
	free(v);
}
