/* u64map.h: the log -> SQLite converter's u64 -> u64 map: open addressing,
 * key 0 reserved (stored aside). Inline, for the pass's lookups (the hot
 * path of a conversion, tosqlite_pass.c) and for whichever part of the
 * converter keeps one (tosqlite_db.c frees its devices_seen). Not for use
 * outside the converter. The map owns its arrays: tosqlite_u64map_free().
 * Also a compact set of u32 keys (struct u32set) for correlation ids. */
#ifndef LLMPROF_TRACE_U64MAP_H
#define LLMPROF_TRACE_U64MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

struct u64map {
	uint64_t *keys, *vals;
	size_t cap, n;
	int has_zero;
	uint64_t zero_val;
};

/* Keys are mostly sequential (correlation ids, string ids): keeping them in
 * sequential slots is collision-free and cache-friendly, which a mixing
 * hash is not (it made lookups the top cost at 1M records). */
static inline uint64_t tosqlite_mix64(uint64_t x)
{
	return x ^ (x >> 32);
}

static inline void u64map_put(struct u64map *m, uint64_t k, uint64_t v);

static inline void u64map_grow(struct u64map *m)
{
	struct u64map n = {0};
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = xcalloc(n.cap, sizeof(*n.keys));
	n.vals = xcalloc(n.cap, sizeof(*n.vals));
	n.has_zero = m->has_zero;
	n.zero_val = m->zero_val;
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

static inline void u64map_put(struct u64map *m, uint64_t k, uint64_t v)
{
	size_t i;

	if (!k) {
		m->has_zero = 1;
		m->zero_val = v;
		return;
	}
	if ((m->n + 1) * 2 > m->cap)
		u64map_grow(m);
	for (i = tosqlite_mix64(k) & (m->cap - 1); m->keys[i] && m->keys[i] != k;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
}

static inline int u64map_get(const struct u64map *m, uint64_t k, uint64_t *v)
{
	size_t i;

	if (!k) {
		if (m->has_zero)
			*v = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return 0;
	for (i = tosqlite_mix64(k) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			*v = m->vals[i];
			return 1;
		}
	return 0;
}

static inline void tosqlite_u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* A set of 32-bit keys (correlation ids): one bit per key, in pages of
 * 65,536 keys made on first use. A log's correlation ids are mostly one
 * dense run, so a set of N of them takes ~N/8 bytes, and never more than
 * 512 MiB whatever the log holds (a hash set took 32-64 bytes a key). */
#define U32SET_PAGE_BITS 16
struct u32set {
	uint64_t **pages; /* 2^16 pages or NULL */
};

static inline void u32set_add(struct u32set *s, uint32_t k)
{
	uint64_t **pg;

	if (!s->pages)
		s->pages = xcalloc((size_t)1 << (32 - U32SET_PAGE_BITS), sizeof(*s->pages));
	pg = &s->pages[k >> U32SET_PAGE_BITS];
	if (!*pg)
		*pg = xcalloc((size_t)1 << (U32SET_PAGE_BITS - 6), sizeof(**pg));
	(*pg)[(k & ((1u << U32SET_PAGE_BITS) - 1)) >> 6] |= (uint64_t)1 << (k & 63);
}

static inline int u32set_has(const struct u32set *s, uint32_t k)
{
	const uint64_t *pg = s->pages ? s->pages[k >> U32SET_PAGE_BITS] : NULL;

	return pg && (pg[(k & ((1u << U32SET_PAGE_BITS) - 1)) >> 6] >> (k & 63) & 1);
}

static inline void u32set_free(struct u32set *s)
{
	if (s->pages)
		for (size_t i = 0; i < (size_t)1 << (32 - U32SET_PAGE_BITS); i++)
			free(s->pages[i]);
	free(s->pages);
	s->pages = NULL;
}

#endif
