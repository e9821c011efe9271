/* xalloc.c: allocation wrappers that die on out-of-memory. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/xalloc.h"
#include "core/banned.h"

static void (*oom_hook)(void *arg, size_t size);
static void *oom_arg;
/* Freed before the hook runs, so that it can allocate what it needs to
 * say so (a status.json is a few KB). */
static void *oom_reserve;
#define OOM_RESERVE (1u << 20)

void xalloc_set_oom_hook(void (*fn)(void *arg, size_t size), void *arg)
{
	oom_hook = fn;
	oom_arg = arg;
	if (fn && !oom_reserve)
		oom_reserve = malloc(OOM_RESERVE);
	if (!fn)
		FREE_AND_NULL(oom_reserve);
}

static void oom(size_t size)
{
	void (*fn)(void *, size_t) = oom_hook;

	fprintf(stderr, "llmprof: fatal: out of memory allocating %zu bytes\n", size);
	oom_hook = NULL; /* once: the hook itself may run out */
	FREE_AND_NULL(oom_reserve);
	if (fn)
		fn(oom_arg, size);
	exit(70);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

size_t st_mult(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		fprintf(stderr, "llmprof: fatal: size overflow (%zu * %zu)\n", nmemb, size);
		exit(70);
	}
	return nmemb * size;
}
