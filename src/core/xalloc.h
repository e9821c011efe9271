/* xalloc.h: allocation that dies on out-of-memory (CLI code only; the
 * tracer never uses these). Every returned pointer is owned by the caller
 * and released with free(). */
#ifndef LLMPROF_XALLOC_H
#define LLMPROF_XALLOC_H

#include <stddef.h>
#include <stdlib.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* fn(arg, size) runs once when an allocation fails, after the one-line
 * message and before exit(70) (EXIT_INTERNAL), with 1 MiB given back to
 * the allocator first: what llmprof must record before it dies (the
 * run's status.json). NULL removes it. */
void xalloc_set_oom_hook(void (*fn)(void *arg, size_t size), void *arg);
/* nmemb * size, dying on overflow. */
size_t st_mult(size_t nmemb, size_t size);

#define alloc_nr(x) (((x) + 16) * 3 / 2)

/* Grow arr (of nr used, alloc allocated elements) to hold at least n. */
#define ALLOC_GROW(arr, n, alloc)                                                                  \
	do {                                                                                       \
		if ((n) > (alloc)) {                                                               \
			if (alloc_nr(alloc) < (n))                                                 \
				(alloc) = (n);                                                     \
			else                                                                       \
				(alloc) = alloc_nr(alloc);                                         \
			(arr) = xrealloc((arr), st_mult(sizeof(*(arr)), (alloc)));                 \
		}                                                                                  \
	} while (0)

#define FREE_AND_NULL(p)                                                                           \
	do {                                                                                       \
		free(p);                                                                           \
		(p) = NULL;                                                                        \
	} while (0)

#endif
