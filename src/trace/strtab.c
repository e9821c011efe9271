/* strtab.c: open-addressing string interner (FNV-1a). */
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "trace/strtab.h"
#include "core/banned.h"

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void strtab_release(struct strtab *st)
{
	for (size_t i = 0; i < st->nr; i++)
		free(st->strs[i]);
	free(st->strs);
	free(st->slots);
	free(st->rank);
	memset(st, 0, sizeof(*st));
}

static int32_t lookup(const struct strtab *st, const char *s, size_t len, size_t *slot)
{
	size_t mask = st->nslots - 1, i;

	/* Strings are stored as C strings: one with a NUL inside (a BLOB in
	 * StringIds) is its prefix, or the compare below reads past it. */
	len = strnlen(s, len);
	if (!st->nslots) {
		*slot = 0;
		return -1;
	}
	for (i = hash_bytes(s, len) & mask;; i = (i + 1) & mask) {
		int32_t id = st->slots[i];

		if (id < 0) {
			*slot = i;
			return -1;
		}
		if (!strncmp(st->strs[id], s, len) && st->strs[id][len] == '\0') {
			*slot = i;
			return id;
		}
	}
}

static void rehash(struct strtab *st)
{
	size_t n = st->nslots ? st->nslots * 2 : 1024;

	free(st->slots);
	st->nslots = n;
	st->slots = xmalloc(st_mult(n, sizeof(*st->slots)));
	memset(st->slots, 0xff, n * sizeof(*st->slots));
	for (size_t id = 0; id < st->nr; id++) {
		size_t slot;

		lookup(st, st->strs[id], strlen(st->strs[id]), &slot);
		st->slots[slot] = (int32_t)id;
	}
}

int32_t strtab_find(const struct strtab *st, const char *s, size_t len)
{
	size_t slot;

	return lookup(st, s, len, &slot);
}

int32_t strtab_intern(struct strtab *st, const char *s, size_t len)
{
	size_t slot;
	int32_t id = lookup(st, s, len, &slot);

	if (id >= 0)
		return id;
	if ((st->nr + 1) * 2 > st->nslots) {
		rehash(st);
		lookup(st, s, len, &slot);
	}
	ALLOC_GROW(st->strs, st->nr + 1, st->alloc);
	st->strs[st->nr] = xstrndup(s, len);
	id = (int32_t)st->nr++;
	st->slots[slot] = id;
	return id;
}

static const struct strtab *sort_st;

static int cmp_ids(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)sort_st->strs[*(const int32_t *)a];
	const unsigned char *y = (const unsigned char *)sort_st->strs[*(const int32_t *)b];

	return strcmp((const char *)x, (const char *)y);
}

void strtab_rank(struct strtab *st)
{
	int32_t *order = xmalloc(st_mult(st->nr + 1, sizeof(*order)));

	for (size_t i = 0; i < st->nr; i++)
		order[i] = (int32_t)i;
	sort_st = st;
	qsort(order, st->nr, sizeof(*order), cmp_ids);
	sort_st = NULL;
	free(st->rank);
	st->rank = xmalloc(st_mult(st->nr + 1, sizeof(*st->rank)));
	for (size_t i = 0; i < st->nr; i++)
		st->rank[order[i]] = (int32_t)i;
	free(order);
}
