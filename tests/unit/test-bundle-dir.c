/* test-bundle-dir.c: nothing is written outside a bundle, whatever
 * replaces its folders and whenever: names with ".." or a leading '/' are
 * refused, a folder swapped for a symlink after it was checked is never
 * written through, and neither is one swapped at the worst moment (after
 * the folder was found, right before the file is created in it), nor a run
 * directory swapped between its mkdir() and its open(). The worst moments
 * are made deterministic by this executable's own openat() and mkdirat(),
 * which llmprof's code calls (the executable's definitions come first):
 * armed, they swap the folder for a symlink at that moment. Its own
 * syscall() counts openat2() calls and can answer ENOSYS, as an old kernel
 * or a container's filter does: the component-by-component walk then
 * keeps every promise alone. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/bundle_dir.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "bundle/write.h"

static char tmpdir[64];
static char root[PATH_MAX], outside[PATH_MAX];
/* open ones live here, so that a failed test leaves none behind */
static struct bundle_dir bd = BUNDLE_DIR_INIT, inner = BUNDLE_DIR_INIT;
static struct run_bundle rb = RUN_BUNDLE_INIT;

/* The hook: armed with a name prefix, openat() of a matching name first
 * swaps the folder hook_dir for a symlink to outside; mkdirat() of a
 * matching name (any name when hook_prefix is "") swaps what it just
 * made. Fires once. */
static const char *hook_prefix;
static int hook_on_mkdir;
static char hook_dir[PATH_MAX];

static void swap_path(const char *dir)
{
	char old[PATH_MAX + 8];

	snprintf(old, sizeof(old), "%s.old", dir);
	assert_int_equal(rename(dir, old), 0);
	assert_int_equal(symlink(outside, dir), 0);
}

/* openat2() calls seen, and whether to answer them ENOSYS */
static int openat2_calls, openat2_enosys;

static long real_syscall(long nr, long a, long b, long c, long d)
{
	static long (*real)(long, ...);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	return real(nr, a, b, c, d);
}

long syscall(long nr, ...)
{
	va_list ap;
	long a, b, c, d;

	va_start(ap, nr);
	a = va_arg(ap, long);
	b = va_arg(ap, long);
	c = va_arg(ap, long);
	d = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_openat2) {
		openat2_calls++;
		if (openat2_enosys) {
			errno = ENOSYS;
			return -1;
		}
	}
	return real_syscall(nr, a, b, c, d);
}

static int hook_matches(const char *name, int on_mkdir)
{
	if (!hook_prefix || hook_on_mkdir != on_mkdir ||
	    strncmp(name, hook_prefix, strlen(hook_prefix)))
		return 0;
	hook_prefix = NULL;
	return 1;
}

int openat(int dirfd, const char *name, int flags, ...)
{
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (hook_matches(name, 0))
		swap_path(hook_dir);
	return (int)real_syscall(SYS_openat, dirfd, (long)name, flags, mode);
}

int mkdirat(int dirfd, const char *name, mode_t mode)
{
	int ret = (int)real_syscall(SYS_mkdirat, dirfd, (long)name, mode, 0);

	if (!ret && hook_matches(name, 1)) {
		char old[NAME_MAX + 8];

		snprintf(old, sizeof(old), "%s.old", name);
		assert_int_equal(renameat(dirfd, name, dirfd, old), 0);
		assert_int_equal(symlinkat(outside, dirfd, name), 0);
	}
	return ret;
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/llmprof-test-bundle-dir.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(root, sizeof(root), "%s/run", tmpdir);
	snprintf(outside, sizeof(outside), "%s/outside", tmpdir);
	return mkdir(root, 0777) || mkdir(outside, 0777);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	hook_prefix = NULL;
	bundle_dir_close(&bd);
	bundle_dir_close(&inner);
	bundle_release(&rb);
	/* depth first, links themselves (never what they point to) */
	return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* outside holds nothing at all */
static void assert_outside_empty(void)
{
	DIR *d = opendir(outside);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(n, 0);
}

static void assert_one_line(const struct strbuf *err, const char *want)
{
	assert_non_null(strstr(err->buf, want));
	assert_null(strchr(err->buf, '\n'));
}

static void assert_file(const char *path, const char *want)
{
	struct strbuf got = STRBUF_INIT;
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(strbuf_read_file(&got, path), 0);
	assert_string_equal(got.buf, want);
	strbuf_release(&got);
}

static void test_names_refused(void **state)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;
	static const char *const bad[] = {"../x", "/etc/x", "a/../../x", "..", "a/..", "./../x"};

	assert_int_equal(bundle_dir_open(&bd, root, BUNDLE_DIR_NOFOLLOW, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_write(&bd, bad[i], "x", 1, &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_mkdir(&bd, bad[i], &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_open_dir(&bd, bad[i], &err), -1);
		assert_int_equal(bundle_dir_unlink(&bd, bad[i], &err), -1);
	}
	/* the same for every other writer */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct atomic_file af = ATOMIC_FILE_INIT;

		strbuf_reset(&err);
		assert_int_equal(bundle_dir_atomic_open(&bd, bad[i], &af, &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_new_file(&bd, bad[i], &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		strbuf_reset(&p);
		assert_int_equal(bundle_dir_temp_file(&bd, bad[i], &p, &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_rename(&bd, "x", bad[i], &err), -1);
		assert_one_line(&err, "is not a name inside");
		strbuf_reset(&err);
		assert_int_equal(bundle_dir_mkdirs(&bd, bad[i], &err), -1);
		assert_one_line(&err, "is not a name inside");
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/escaped", tmpdir);
	assert_int_equal(access(p.buf, F_OK), -1);
	/* "." and empty components are only spelling */
	assert_int_equal(bundle_dir_mkdirs(&bd, "a//./b/", &err), 0);
	assert_int_equal(bundle_dir_write(&bd, "./a/b//f", "ok", 2, &err), 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/a/b/f", root);
	assert_file(p.buf, "ok");
	assert_int_equal(bundle_dir_unlink(&bd, "a/b/f", &err), 0);
	assert_int_equal(access(p.buf, F_OK), -1);
	assert_int_equal(bundle_dir_unlink(&bd, "a/b/f", &err), 0); /* absent: fine */
	/* the root itself is no file name */
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_write(&bd, ".", "x", 1, &err), -1);
	assert_one_line(&err, "is a folder, not a file name inside it");
	bundle_dir_close(&bd);
	assert_outside_empty();
	strbuf_release(&err);
	strbuf_release(&p);
}

/* charts/ checked by bundle_dir_mkdir(), then replaced by a symlink to
 * outside before anything is written into it: every writer refuses, one
 * line. */
static void test_swapped_after_check(void **state)
{
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT, p = STRBUF_INIT, want = STRBUF_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;

	assert_int_equal(bundle_dir_open(&bd, root, BUNDLE_DIR_NOFOLLOW, &err), 0);
	strbuf_addf(&dir, "%s/charts", root);
	assert_int_equal(bundle_dir_mkdir(&bd, "charts", &err), 0);
	swap_path(dir.buf);
	strbuf_addf(&want, "'%s' is a symlink; llmprof writes only into real directories", dir.buf);

	assert_int_equal(bundle_dir_write(&bd, "charts/kernels.svg", "svg", 3, &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_atomic_open(&bd, "charts/kernels.svg", &af, &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_new_file(&bd, "charts/kernels.svg", &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_temp_file(&bd, "charts/kernels.svg", &p, &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_mkdirs(&bd, "charts/sub/deeper", &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_mkdir(&bd, "charts/sub", &err), -1);
	assert_one_line(&err, want.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_mkdir(&bd, "charts", &err), -1);
	assert_one_line(&err, want.buf);
	assert_outside_empty();

	/* the same path given as a path (bd NULL) is the user's: followed */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/kernels.svg", dir.buf);
	assert_int_equal(bundle_dir_write(NULL, p.buf, "svg", 3, &err), 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/kernels.svg", outside);
	assert_file(p.buf, "svg");
	bundle_dir_close(&bd);
	strbuf_release(&err);
	strbuf_release(&dir);
	strbuf_release(&p);
	strbuf_release(&want);
}

/* The worst moment: the folder found, then swapped right before the
 * temporary file is created in it (openat() hook), or between a writer's
 * open and its commit. The file lands in the folder that was checked (now
 * charts.old), never outside, and the symlink stays a symlink. */
static void test_swapped_at_worst_moment(void **state)
{
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT, p = STRBUF_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct stat st;

	assert_int_equal(bundle_dir_open(&bd, root, BUNDLE_DIR_NOFOLLOW, &err), 0);
	strbuf_addf(&dir, "%s/charts", root);
	assert_int_equal(bundle_dir_mkdir(&bd, "charts", &err), 0);
	snprintf(hook_dir, sizeof(hook_dir), "%s", dir.buf);
	hook_on_mkdir = 0;
	hook_prefix = "kernels.svg.tmp.";
	assert_int_equal(bundle_dir_write(&bd, "charts/kernels.svg", "svg", 3, &err), 0);
	assert_null(hook_prefix); /* it fired */
	assert_outside_empty();
	assert_int_equal(lstat(dir.buf, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	strbuf_addf(&p, "%s.old/kernels.svg", dir.buf);
	assert_file(p.buf, "svg");

	/* open, swap, commit: renamed where it was made */
	strbuf_reset(&dir);
	strbuf_addf(&dir, "%s/ncu", root);
	assert_int_equal(bundle_dir_mkdir(&bd, "ncu", &err), 0);
	assert_int_equal(bundle_dir_atomic_open(&bd, "ncu/metrics.json", &af, &err), 0);
	fputs("{}", af.fp);
	swap_path(dir.buf);
	assert_int_equal(atomic_file_commit(&af, &err), 0);
	assert_outside_empty();
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.old/metrics.json", dir.buf);
	assert_file(p.buf, "{}");

	/* a log: the same with bundle_dir_new_file() */
	strbuf_reset(&dir);
	strbuf_addf(&dir, "%s/logs", root);
	assert_int_equal(bundle_dir_mkdir(&bd, "logs", &err), 0);
	snprintf(hook_dir, sizeof(hook_dir), "%s", dir.buf);
	hook_prefix = "trace.out";
	{
		int fd = bundle_dir_new_file(&bd, "logs/trace.out", &err);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "log", 3), 3);
		close(fd);
	}
	assert_outside_empty();
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.old/trace.out", dir.buf);
	assert_file(p.buf, "log");
	bundle_dir_close(&bd);
	strbuf_release(&err);
	strbuf_release(&dir);
	strbuf_release(&p);
}

/* bundle_dir_temp_file() + bundle_dir_rename(), as trace.sqlite is made:
 * the rename never goes through a folder swapped in between. */
static void test_temp_then_rename(void **state)
{
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT, p = STRBUF_INIT, tmp = STRBUF_INIT;
	int fd;

	assert_int_equal(bundle_dir_open(&bd, root, 0, &err), 0);
	strbuf_addf(&dir, "%s/trace", root);
	assert_int_equal(bundle_dir_mkdir(&bd, "trace", &err), 0);
	fd = bundle_dir_temp_file(&bd, "trace/trace.sqlite", &tmp, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_true(!strncmp(tmp.buf, "trace/trace.sqlite.tmp.", 23));
	/* the path a program opening it by name is given */
	bundle_dir_path(&bd, tmp.buf, &p);
	assert_int_equal(access(p.buf, F_OK), 0);
	assert_int_equal(bundle_dir_rename(&bd, tmp.buf, "trace/trace.sqlite", &err), 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/trace.sqlite", dir.buf);
	assert_int_equal(access(p.buf, F_OK), 0);

	strbuf_reset(&tmp);
	fd = bundle_dir_temp_file(&bd, "trace/trace.sqlite", &tmp, &err);
	assert_true(fd >= 0);
	close(fd);
	swap_path(dir.buf);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_rename(&bd, tmp.buf, "trace/trace.sqlite", &err), -1);
	assert_one_line(&err, "is a symlink; llmprof writes only into real directories");
	assert_int_equal(bundle_dir_unlink(&bd, tmp.buf, NULL), -1);
	assert_outside_empty();
	bundle_dir_close(&bd);
	strbuf_release(&err);
	strbuf_release(&dir);
	strbuf_release(&p);
	strbuf_release(&tmp);
}

/* The root: a symlink is refused with BUNDLE_DIR_NOFOLLOW and followed
 * without (the user's own path, e.g. <root>/latest); a file is no root. */
static void test_root(void **state)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;

	strbuf_addf(&p, "%s/link", tmpdir);
	assert_int_equal(symlink(root, p.buf), 0);
	assert_int_equal(bundle_dir_open(&bd, p.buf, BUNDLE_DIR_NOFOLLOW, &err), -1);
	assert_one_line(&err, "is a symlink; llmprof writes only into real directories");
	assert_int_equal(bundle_dir_open(&bd, p.buf, 0, &err), 0);
	assert_int_equal(bundle_dir_open(&bd, root, BUNDLE_DIR_OWN, &err), 0);
	bundle_dir_close(&bd);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/file", tmpdir);
	assert_int_equal(write_file_atomic(p.buf, "x", 1, &err), 0);
	strbuf_reset(&err);
	assert_int_equal(bundle_dir_open(&bd, p.buf, 0, &err), -1);
	assert_one_line(&err, "is not a directory");
	/* a folder beneath a root is a root of its own: its names are its
	 * own, its messages name the whole path */
	assert_int_equal(bundle_dir_open(&bd, root, 0, &err), 0);
	assert_int_equal(bundle_dir_mkdirs(&bd, "ranks/0", &err), 0);
	assert_int_equal(bundle_dir_open_sub(&inner, &bd, "ranks", BUNDLE_DIR_OWN, &err), 0);
	assert_int_equal(bundle_dir_write(&inner, "0/x", "x", 1, &err), 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/ranks/0/x", root);
	assert_file(p.buf, "x");
	strbuf_reset(&p);
	bundle_dir_path(&inner, "0/x", &p);
	assert_true(!strncmp(p.buf, root, strlen(root)) &&
		    !strcmp(p.buf + strlen(root), "/ranks/0/x"));
	bundle_dir_close(&inner);
	bundle_dir_close(&bd);
	strbuf_release(&err);
	strbuf_release(&p);
}

/* The run directory: swapped for a symlink between its mkdir() and its
 * open(): refused, one line, nothing written through it; ranks/ of a
 * --rank-dir bundle that is a symlink: refused. */
static void test_run_dir_replaced(void **state)
{
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT;

	hook_on_mkdir = 1;
	hook_prefix = ""; /* the first mkdirat(): the run directory */
	assert_int_equal(bundle_create(&rb, root, &err), -1);
	assert_null(hook_prefix);
	assert_one_line(&err, "run directory replaced before llmprof opened it: ");
	assert_one_line(&err, "is a symlink; llmprof writes only into real directories");
	assert_outside_empty();
	bundle_release(&rb);

	strbuf_addf(&p, "%s/ranks", root);
	assert_int_equal(symlink(outside, p.buf), 0);
	bundle_fix(&rb, root, "ranks/0");
	strbuf_reset(&err);
	assert_int_equal(bundle_make(&rb, &err), -1);
	assert_one_line(&err, "is a symlink; llmprof writes only into real directories");
	assert_outside_empty();
	bundle_release(&rb);

	/* and a plain one: made, opened, logs/ inside, written through */
	assert_int_equal(bundle_create(&rb, root, &err), 0);
	assert_true(rb.bd.fd >= 0);
	assert_int_equal(bundle_write(&rb, "logs/x", "x", 1, &err), 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/logs/x", rb.dir);
	assert_file(p.buf, "x");
	bundle_release(&rb);
	assert_int_equal(rb.bd.fd, -1);
	strbuf_release(&err);
	strbuf_release(&p);
}

/* No openat2() (ENOSYS): the same results from the walk alone, and
 * openat2() is not asked again. Runs last: the answer is remembered. */
static void test_without_openat2(void **state)
{
	int calls;

	openat2_calls = 0;
	test_swapped_after_check(state);
	if (!openat2_calls) {
		skip(); /* never reached for it: nothing to fall back from */
		return;
	}
	teardown(state);
	assert_int_equal(setup(state), 0);
	openat2_enosys = 1;
	test_swapped_after_check(state);
	calls = openat2_calls;
	teardown(state);
	assert_int_equal(setup(state), 0);
	test_swapped_at_worst_moment(state);
	test_temp_then_rename(state);
	assert_int_equal(openat2_calls, calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_names_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_swapped_after_check, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_swapped_at_worst_moment, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_temp_then_rename, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_run_dir_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_without_openat2, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
