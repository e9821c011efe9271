/* editdist.c: see editdist.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/editdist.h"
#include "core/xalloc.h"
#include "core/banned.h"

size_t edit_distance_max(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), over, ret;
	size_t stack[3][128], *heap = NULL, *r2, *r1, *r0, *t;

	if (max >= SIZE_MAX - 2)
		max = SIZE_MAX - 3; /* keep max + 2 from wrapping */
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
	 * The recurrence of edit_distance() over three rows (i - 2, i - 1, i),
	 * every value capped at max + 1: a capped cell only ever leads to
	 * capped cells, so cells within max come out exact. Once two rows in a
	 * row are all capped, every later one is too.
	 */
	for (size_t j = 0; j <= lb; j++)
		r1[j] = j < over ? j : over;
	ret = over;
	for (size_t i = 1; i <= la; i++) {
		size_t row_min;

		r0[0] = i < over ? i : over;
		row_min = r0[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = r1[j] + 1;

			if (r0[j - 1] + 1 < best)
				best = r0[j - 1] + 1;
			if (r1[j - 1] + cost < best)
				best = r1[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    r2[j - 2] + 1 < best)
				best = r2[j - 2] + 1;
			r0[j] = best < over ? best : over;
			if (r0[j] < row_min)
				row_min = r0[j];
		}
		if (row_min >= over && i > 1) {
			size_t prev_min = over;

			for (size_t j = 0; j <= lb; j++)
				if (r1[j] < prev_min)
					prev_min = r1[j];
			if (prev_min >= over)
				goto out;
		}
		t = r2, r2 = r1, r1 = r0, r0 = t;
	}
	ret = r1[lb];
out:
	free(heap);
	return ret;
}
