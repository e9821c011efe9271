/* raise-at-shim: an LD_PRELOAD library that makes the process it is loaded
 * in send itself a signal at one exact point of its work, for tests of what
 * llmprof does with a Ctrl-C that lands there (the points between two
 * system calls no timed kill can hit every time):
 *   LLMPROF_TEST_RAISE_AT=rename:NAME   right after a rename whose new path
 *                                       ends in NAME
 *   LLMPROF_TEST_RAISE_AT=create:TEXT   right after an open(O_CREAT) whose
 *                                       path holds TEXT
 *   LLMPROF_TEST_RAISE_SIG=N            the signal (default SIGINT)
 *   LLMPROF_TEST_RAISE_TIMES=N          sent N times in a row (default 1)
 * It fires once, and takes LD_PRELOAD and these variables out of the
 * environment at load, so no child inherits it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char at_kind[16], at_text[512];
static int raise_sig = SIGINT, raise_times = 1, fired;

__attribute__((constructor)) static void init(void)
{
	const char *at = getenv("LLMPROF_TEST_RAISE_AT");
	const char *sig = getenv("LLMPROF_TEST_RAISE_SIG");
	const char *times = getenv("LLMPROF_TEST_RAISE_TIMES");
	const char *colon = at ? strchr(at, ':') : NULL;

	if (colon && (size_t)(colon - at) < sizeof(at_kind)) {
		memcpy(at_kind, at, (size_t)(colon - at));
		snprintf(at_text, sizeof(at_text), "%s", colon + 1);
	}
	if (sig)
		raise_sig = atoi(sig);
	if (times)
		raise_times = atoi(times);
	unsetenv("LD_PRELOAD");
	unsetenv("LLMPROF_TEST_RAISE_AT");
	unsetenv("LLMPROF_TEST_RAISE_SIG");
	unsetenv("LLMPROF_TEST_RAISE_TIMES");
}

static void fire(const char *kind, const char *path)
{
	size_t n, t;

	if (fired || !path || strcmp(kind, at_kind))
		return;
	n = strlen(path);
	t = strlen(at_text);
	if (!strcmp(kind, "rename") ? n < t || strcmp(path + n - t, at_text)
				    : !strstr(path, at_text))
		return;
	fired = 1;
	for (int i = 0; i < raise_times; i++)
		kill(getpid(), raise_sig);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	int r;

	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	r = real(from, to);
	if (r == 0)
		fire("rename", to);
	return r;
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	static int (*real)(int, const char *, int, const char *);
	int r;

	if (!real)
		real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
	r = real(fd1, from, fd2, to);
	if (r == 0)
		fire("rename", to);
	return r;
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
	static int (*real)(int, const char *, int, const char *, unsigned);
	int r;

	if (!real)
		real = (int (*)(int, const char *, int, const char *, unsigned))dlsym(RTLD_NEXT,
										      "renameat2");
	r = real(fd1, from, fd2, to, flags);
	if (r == 0)
		fire("rename", to);
	return r;
}

/* The real open(name) or openat(name), then the signal for a created file. */
static int open_real(const char *name, int dirfd, const char *path, int flags, mode_t mode)
{
	int r;

	if (dirfd == -200) { /* not an *at() call */
		int (*real)(const char *, int, ...) =
		    (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
		r = real(path, flags, mode);
	} else {
		int (*real)(int, const char *, int, ...) =
		    (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, name);
		r = real(dirfd, path, flags, mode);
	}
	if (r >= 0 && (flags & O_CREAT))
		fire("create", path);
	return r;
}

#define MODE_ARG(flags, mode)                                                                      \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, flags);                                                               \
		mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;                   \
		va_end(ap);                                                                        \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_real("open", -200, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_real("open64", -200, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_real("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return open_real("openat64", dirfd, path, flags, mode);
}
