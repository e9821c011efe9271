/* malloc-limit-shim: an LD_PRELOAD library under which an allocation of
 * more than LLMPROF_TEST_MALLOC_MAX bytes fails (NULL, ENOMEM), as it does
 * when memory runs out, for tests of what llmprof does then
 * (tests/cli/test-trace-log-memory.sh). It takes LD_PRELOAD and the
 * variable out of the environment at load, so no child inherits it. Under
 * ASan the tests use ASan's own max_allocation_size_mb instead. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *ptr, size_t size);

static size_t limit = (size_t)-1;

__attribute__((constructor)) static void init(void)
{
	const char *v = getenv("LLMPROF_TEST_MALLOC_MAX");

	if (v)
		limit = (size_t)strtoull(v, NULL, 10);
	unsetenv("LLMPROF_TEST_MALLOC_MAX");
	unsetenv("LD_PRELOAD");
}

void *malloc(size_t size)
{
	if (size > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void *calloc(size_t nmemb, size_t size)
{
	if (size && nmemb > limit / size) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(nmemb, size);
}

void *realloc(void *ptr, size_t size)
{
	if (size > limit) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(ptr, size);
}
