/* rectab.c: open-addressing interner of fixed-size records. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xalloc.h"
#include "trace/rectab.h"
#include "core/banned.h"

/* FNV-1a over 8-byte words (records are rows' shared parts: hashed once
 * per row, so a word at a time), then mixed. */
static uint64_t hash_rec(const unsigned char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 1099511628211ULL;
	}
	for (; i < len; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h ^ (h >> 31);
}

void rectab_release(struct rectab *rt)
{
	size_t size = rt->size;

	free(rt->recs);
	free(rt->slots);
	memset(rt, 0, sizeof(*rt));
	rt->size = size;
}

/* The slot of rec: where it is, or the empty one where it goes. */
static size_t lookup(const struct rectab *rt, const unsigned char *rec)
{
	size_t mask = rt->nslots - 1, i;

	for (i = hash_rec(rec, rt->size) & mask;; i = (i + 1) & mask) {
		uint32_t id = rt->slots[i];

		if (id == UINT32_MAX || !memcmp(rectab_get(rt, id), rec, rt->size))
			return i;
	}
}

static void rehash(struct rectab *rt)
{
	size_t n = rt->nslots ? rt->nslots * 2 : 256;

	free(rt->slots);
	rt->nslots = n;
	rt->slots = xmalloc(st_mult(n, sizeof(*rt->slots)));
	memset(rt->slots, 0xff, n * sizeof(*rt->slots));
	for (size_t id = 0; id < rt->nr; id++)
		rt->slots[lookup(rt, rectab_get(rt, (uint32_t)id))] = (uint32_t)id;
}

uint32_t rectab_intern(struct rectab *rt, const void *rec)
{
	size_t slot;

	if (rt->last < rt->nr && !memcmp(rectab_get(rt, rt->last), rec, rt->size))
		return rt->last;
	if ((rt->nr + 1) * 2 > rt->nslots)
		rehash(rt);
	slot = lookup(rt, rec);
	if (rt->slots[slot] != UINT32_MAX)
		return rt->last = rt->slots[slot];
	if (rt->nr >= UINT32_MAX - 1)
		die(70, "more than 2^32 distinct records");
	ALLOC_GROW(rt->recs, st_mult(rt->nr + 1, rt->size), rt->alloc);
	memcpy(rt->recs + rt->nr * rt->size, rec, rt->size);
	rt->slots[slot] = (uint32_t)rt->nr;
	return rt->last = (uint32_t)rt->nr++;
}
