/* sort.h: an in-place sort for big arrays.
 *
 * glibc's qsort() is a merge sort that first copies the whole array into a
 * temporary one of the same size (when that fits in a quarter of the
 * machine's memory): sorting 8 M launches of 8 bytes costs 64 MB more than
 * the array. sort_inplace() uses no memory beyond its stack (introsort:
 * quicksort, heapsort past a depth, insertion sort for short runs). It is
 * not stable: give cmp a last tie-break (an index) for a defined order. */
#ifndef LLMPROF_SORT_H
#define LLMPROF_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts n elements of size bytes like qsort() (beyond 64 bytes, with it). */
void sort_inplace(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Sorts n int64_t ascending, as sort_inplace() with a comparison of two
 * int64_t would, at a third of its cost: the comparisons inline (a kernel
 * summary sorts a million durations for their medians). */
void sort_i64(int64_t *v, size_t n);

/* The k-th smallest of v[0..n) (k < n), found by reordering v so that
 * v[k] is it, every v[i] <= v[k] for i < k and >= it for i > k: a linear
 * time on average where sorting costs n log n (a median of a million
 * durations). */
int64_t select_i64(int64_t *v, size_t n, size_t k);

/* Sorts like a stable sort (ties keep their order) through 4-byte indices:
 * 4 bytes per element beyond the array, where glibc's qsort() takes 16 for
 * elements over 32 bytes. bucket(element) < nbuckets must be cmp's first
 * key (elements sort by it first); each bucket is sorted alone, and not at
 * all when in order already. */
void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		 size_t nbuckets, size_t (*bucket)(const void *));

#endif
