/* strtab.h: string interning. Each distinct string gets a dense id
 * (0, 1, 2, ...); equal strings get the same id, so analysis groups by
 * integer. The table owns its strings; strtab_str() borrows. */
#ifndef LLMPROF_STRTAB_H
#define LLMPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char **strs; /* id -> string, owned */
	size_t nr, alloc;
	int32_t *slots; /* open addressing, -1 = empty */
	size_t nslots;	/* power of two */
	int32_t *rank;	/* id -> position in byte order, after strtab_rank() */
};
#define STRTAB_INIT                                                                                \
	{                                                                                          \
		NULL, 0, 0, NULL, 0, NULL                                                          \
	}

void strtab_release(struct strtab *st);
/* Returns the id of s[0..len), adding a copy if new. */
int32_t strtab_intern(struct strtab *st, const char *s, size_t len);
/* Returns the id of s or -1 when absent. */
int32_t strtab_find(const struct strtab *st, const char *s, size_t len);
static inline const char *strtab_str(const struct strtab *st, int32_t id)
{
	return id >= 0 && (size_t)id < st->nr ? st->strs[id] : NULL;
}
/* Computes rank[] so that ids compare like the strings (memcmp order, as
 * SQLite's BINARY collation). Call again after interning more. */
void strtab_rank(struct strtab *st);

#endif
