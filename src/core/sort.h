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

/* Defines static void NAME(T *v, size_t n): v sorted by LESS(const T *a,
 * const T *b) (a < b), the introsort of sort_inplace() with the comparison
 * and the swaps inline, several times faster than through a function
 * pointer on millions of elements. Not stable. sort_i64() is one;
 * nsysstats.c sorts its grouped values with another. */
#define SORT_DEFINE(NAME, T, LESS)                                                                 \
	static void NAME##_swap(T *a, T *b)                                                        \
	{                                                                                          \
		T t = *a;                                                                          \
		*a = *b;                                                                           \
		*b = t;                                                                            \
	}                                                                                          \
	static void NAME##_sift(T *v, size_t root, size_t n)                                       \
	{                                                                                          \
		for (size_t c; (c = 2 * root + 1) < n; root = c) {                                 \
			if (c + 1 < n && LESS(&v[c], &v[c + 1]))                                   \
				c++;                                                               \
			if (!LESS(&v[root], &v[c]))                                                \
				return;                                                            \
			NAME##_swap(&v[root], &v[c]);                                              \
		}                                                                                  \
	}                                                                                          \
	static void NAME##_intro(T *v, size_t n, int depth)                                        \
	{                                                                                          \
		while (n > 16) {                                                                   \
			size_t mid = n / 2, i = 0, j = n - 1;                                      \
			T pivot;                                                                   \
			if (depth-- <= 0) { /* heapsort */                                         \
				for (size_t k = n / 2; k > 0; k--)                                 \
					NAME##_sift(v, k - 1, n);                                  \
				for (size_t k = n; k > 1; k--) {                                   \
					NAME##_swap(&v[0], &v[k - 1]);                             \
					NAME##_sift(v, 0, k - 1);                                  \
				}                                                                  \
				return;                                                            \
			}                                                                          \
			if (LESS(&v[mid], &v[0]))                                                  \
				NAME##_swap(&v[mid], &v[0]);                                       \
			if (LESS(&v[n - 1], &v[0]))                                                \
				NAME##_swap(&v[n - 1], &v[0]);                                     \
			if (LESS(&v[n - 1], &v[mid]))                                              \
				NAME##_swap(&v[n - 1], &v[mid]);                                   \
			pivot = v[mid];                                                            \
			for (;;) {                                                                 \
				while (LESS(&v[i], &pivot))                                        \
					i++;                                                       \
				while (LESS(&pivot, &v[j]))                                        \
					j--;                                                       \
				if (i >= j)                                                        \
					break;                                                     \
				NAME##_swap(&v[i++], &v[j--]);                                     \
			}                                                                          \
			/* recurse into the smaller half, loop on the larger */                    \
			if (j + 1 < n - j - 1) {                                                   \
				NAME##_intro(v, j + 1, depth);                                     \
				v += j + 1;                                                        \
				n -= j + 1;                                                        \
			} else {                                                                   \
				NAME##_intro(v + j + 1, n - j - 1, depth);                         \
				n = j + 1;                                                         \
			}                                                                          \
		}                                                                                  \
		for (size_t i = 1; i < n; i++) {                                                   \
			T x = v[i];                                                                \
			size_t j = i;                                                              \
			for (; j > 0 && LESS(&x, &v[j - 1]); j--)                                  \
				v[j] = v[j - 1];                                                   \
			v[j] = x;                                                                  \
		}                                                                                  \
	}                                                                                          \
	static void NAME(T *v, size_t n)                                                           \
	{                                                                                          \
		int depth = 0;                                                                     \
		for (size_t m = n; m; m >>= 1)                                                     \
			depth += 2;                                                                \
		if (n > 1)                                                                         \
			NAME##_intro(v, n, depth);                                                 \
	}

/* Sorts n int64_t ascending, as sort_inplace() with a comparison of two
 * int64_t would, at a third of its cost (SORT_DEFINE(): a kernel summary
 * sorts a million durations). */
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
