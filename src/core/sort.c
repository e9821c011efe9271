/* sort.c: introsort without a temporary array, its int64_t twin and
 * selection (see sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct sorter {
	size_t size;
	int (*cmp)(const void *, const void *);
};

#define AT(b, i) ((unsigned char *)(b) + (i)*s->size)

static void swap(const struct sorter *s, void *a, void *b)
{
	unsigned char t[64];

	if (a == b)
		return;
	memcpy(t, a, s->size);
	memcpy(a, b, s->size);
	memcpy(b, t, s->size);
}

static void insertion(const struct sorter *s, unsigned char *b, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && s->cmp(AT(b, j), AT(b, j - 1)) < 0; j--)
			swap(s, AT(b, j), AT(b, j - 1));
}

static void sift_down(const struct sorter *s, unsigned char *b, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && s->cmp(AT(b, c), AT(b, c + 1)) < 0)
			c++;
		if (s->cmp(AT(b, root), AT(b, c)) >= 0)
			return;
		swap(s, AT(b, root), AT(b, c));
		root = c;
	}
}

static void heapsort_(const struct sorter *s, unsigned char *b, size_t n)
{
	for (size_t i = n / 2; i > 0; i--)
		sift_down(s, b, i - 1, n);
	for (size_t i = n; i > 1; i--) {
		swap(s, AT(b, 0), AT(b, i - 1));
		sift_down(s, b, 0, i - 1);
	}
}

static void intro(const struct sorter *s, unsigned char *b, size_t n, int depth)
{
	while (n > 16) {
		size_t mid = n / 2, i = 0, j = n - 1;
		unsigned char pivot[64];

		if (depth-- <= 0) {
			heapsort_(s, b, n);
			return;
		}
		if (s->cmp(AT(b, mid), AT(b, 0)) < 0)
			swap(s, AT(b, mid), AT(b, 0));
		if (s->cmp(AT(b, n - 1), AT(b, 0)) < 0)
			swap(s, AT(b, n - 1), AT(b, 0));
		if (s->cmp(AT(b, n - 1), AT(b, mid)) < 0)
			swap(s, AT(b, n - 1), AT(b, mid));
		memcpy(pivot, AT(b, mid), s->size);
		for (;;) {
			while (s->cmp(AT(b, i), pivot) < 0)
				i++;
			while (s->cmp(pivot, AT(b, j)) < 0)
				j--;
			if (i >= j)
				break;
			swap(s, AT(b, i), AT(b, j));
			i++;
			j--;
		}
		/* recurse into the smaller half, loop on the larger */
		if (j + 1 < n - j - 1) {
			intro(s, b, j + 1, depth);
			b = AT(b, j + 1);
			n -= j + 1;
		} else {
			intro(s, AT(b, j + 1), n - j - 1, depth);
			n = j + 1;
		}
	}
	insertion(s, b, n);
}

void sort_inplace(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	struct sorter s = {size, cmp};
	int depth = 0;

	if (n < 2 || !size)
		return;
	if (size > 64) {
		qsort(base, n, size, cmp);
		return;
	}
	for (size_t m = n; m; m >>= 1)
		depth += 2;
	intro(&s, base, n, depth);
}

static inline int less_i64(const int64_t *a, const int64_t *b)
{
	return *a < *b;
}

SORT_DEFINE(sort_i64_inline, int64_t, less_i64)

void sort_i64(int64_t *v, size_t n)
{
	sort_i64_inline(v, n);
}

int64_t select_i64(int64_t *v, size_t n, size_t k)
{
	int depth = 0;

	for (size_t m = n; m; m >>= 1)
		depth += 2;
	/* quickselect: partition as intro_i64() does, keep the side holding k */
	while (n > 16) {
		size_t mid = n / 2, i = 0, j = n - 1;
		int64_t pivot;

		if (depth-- <= 0)
			break;
		if (v[mid] < v[0])
			sort_i64_inline_swap(&v[mid], &v[0]);
		if (v[n - 1] < v[0])
			sort_i64_inline_swap(&v[n - 1], &v[0]);
		if (v[n - 1] < v[mid])
			sort_i64_inline_swap(&v[n - 1], &v[mid]);
		pivot = v[mid];
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			sort_i64_inline_swap(&v[i++], &v[j--]);
		}
		if (k <= j) {
			n = j + 1;
		} else {
			v += j + 1;
			n -= j + 1;
			k -= j + 1;
		}
	}
	sort_i64(v, n); /* a short run, or partitions that degenerate */
	return v[k];
}

/* For sort_stable: the elements' order through their indices. */
static const unsigned char *st_base;
static size_t st_size;
static int (*st_cmp)(const void *, const void *);

static int cmp_at(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = st_cmp(st_base + x * st_size, st_base + y * st_size);

	return c ? c : (x > y) - (x < y);
}

/* Moves element idx[j] to position j for every j, along the cycles of the
 * permutation (idx is consumed). */
static void permute(unsigned char *b, size_t n, size_t size, uint32_t *idx)
{
	unsigned char tmp[256];

	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		if (idx[i] == i)
			continue;
		memcpy(tmp, b + i * size, size);
		for (;;) {
			size_t k = idx[j];

			idx[j] = (uint32_t)j;
			if (k == i) {
				memcpy(b + j * size, tmp, size);
				break;
			}
			memcpy(b + j * size, b + k * size, size);
			j = k;
		}
	}
}

void sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		 size_t nbuckets, size_t (*bucket)(const void *))
{
	unsigned char *b = base;
	uint32_t *idx;
	size_t *end;

	if (n < 2)
		return;
	if (n > UINT32_MAX || size > 256 || !nbuckets) {
		qsort(base, n, size, cmp); /* glibc's: stable */
		return;
	}
	idx = xmalloc(n * sizeof(*idx));
	end = xcalloc(nbuckets + 1, sizeof(*end));
	for (size_t i = 0; i < n; i++)
		end[bucket(b + i * size) + 1]++;
	for (size_t k = 1; k <= nbuckets; k++)
		end[k] += end[k - 1];
	for (size_t i = 0; i < n; i++)
		idx[end[bucket(b + i * size)]++] = (uint32_t)i;
	st_base = b;
	st_size = size;
	st_cmp = cmp;
	for (size_t k = 0, lo = 0; k < nbuckets; lo = end[k++]) {
		size_t i = lo + 1;

		while (i < end[k] && cmp_at(&idx[i - 1], &idx[i]) < 0)
			i++;
		if (i < end[k])
			sort_inplace(idx + lo, end[k] - lo, sizeof(*idx), cmp_at);
	}
	st_cmp = NULL;
	permute(b, n, size, idx);
	free(end);
	free(idx);
}
