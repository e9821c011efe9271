/* editdist.c: see editdist.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/editdist.h"
#include "core/xalloc.h"
#include "core/banned.h"

size_t edit_distance_max(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), over, prev_min = 0, ret;
	size_t stack[3][128], *heap = NULL, *r2, *r1, *r0, *t;

	if (max >= SIZE_MAX / 4)
		max = SIZE_MAX / 4; /* no sum below can wrap */
	over = max + 1;
	/* each edit changes the length by one at most */
	if ((la > lb ? la - lb : lb - la) > max)
		return over;
	if (lb < 128) {
		r2 = stack[0], r1 = stack[1], r0 = stack[2];
	} else {
		heap = xcalloc(st_mult(3, lb + 1), sizeof(*heap));
		r2 = heap, r1 = heap + lb + 1, r0 = heap + 2 * (lb + 1);
	}
	/*
	 * The recurrence of edit_distance() over three rows (i - 2, i - 1, i)
	 * and only in the band of cells that a path within max can cross:
	 * |i - j| <= max, and |(la - i) - (lb - j)| <= max for what is left.
	 * Cells outside it read as over. If the distance is within max, its
	 * path stays in the band and comes out exact; otherwise the result is
	 * above max. Once two rows running are all above max, every later one
	 * is too. The band moves right by one cell a row at most, so a row
	 * reads only cells its predecessors wrote, or their borders.
	 */
	for (size_t j = 0; j <= lb; j++)
		r1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t lo = 1, hi = lb, row_min;

		/* the band, narrowed where what is left of a and b differs in
		 * length by more than max; the prefilter keeps lo <= hi */
		if (i > max && i - max > lo)
			lo = i - max;
		if (i + lb > la + max && i + lb - la - max > lo)
			lo = i + lb - la - max;
		if (i + max < hi)
			hi = i + max;
		if (i + lb + max - la < hi)
			hi = i + lb + max - la;

		r0[lo - 1] = lo == 1 ? i : over;
		row_min = r0[lo - 1];
		for (size_t j = lo; j <= hi; j++) {
			size_t best = r1[j - 1] + (a[i - 1] != b[j - 1]);

			if (r1[j] + 1 < best)
				best = r1[j] + 1;
			if (r0[j - 1] + 1 < best)
				best = r0[j - 1] + 1;
			if (j > 1 && i > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    r2[j - 2] + 1 < best)
				best = r2[j - 2] + 1;
			r0[j] = best;
			if (best < row_min)
				row_min = best;
		}
		if (hi < lb)
			r0[hi + 1] = over;
		if (row_min >= over && prev_min >= over && i > 1) {
			free(heap);
			return over;
		}
		prev_min = row_min;
		t = r2, r2 = r1, r1 = r0, r0 = t;
	}
	ret = r1[lb] < over ? r1[lb] : over;
	free(heap);
	return ret;
}
