/* rectab.h: interning of fixed-size records. Each distinct record (its
 * bytes: padding must be zeroed) gets a dense id (0, 1, 2, ...); equal
 * records get the same id. The trace keeps what many rows share (a
 * kernel's launch signature, a call's thread and name) once, and each row
 * an id, so that a row costs a few bytes more than its times. */
#ifndef LLMPROF_RECTAB_H
#define LLMPROF_RECTAB_H

#include <stddef.h>
#include <stdint.h>

struct rectab {
	unsigned char *recs; /* id * size -> record, owned */
	size_t size, nr, alloc;
	uint32_t *slots; /* open addressing, UINT32_MAX = empty */
	size_t nslots;	 /* power of two */
	/* the id returned last (valid below nr): a row's record is often its
	 * predecessor's (a thread's calls of one API), found without hashing */
	uint32_t last;
};
#define RECTAB_INIT(size)                                                                          \
	{                                                                                          \
		NULL, (size), 0, 0, NULL, 0, 0                                                     \
	}

void rectab_release(struct rectab *rt);
/* Returns the id of the record rec (rt->size bytes), adding a copy if new. */
uint32_t rectab_intern(struct rectab *rt, const void *rec);
static inline const void *rectab_get(const struct rectab *rt, uint32_t id)
{
	return rt->recs + (size_t)id * rt->size;
}

#endif
