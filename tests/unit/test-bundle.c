/* test-bundle.c: run ids, an id drawn before its folder is made, unique
 * bundles under concurrent creation from several processes, the latest
 * link, and atomic writes into a bundle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "bundle/write.h"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/llmprof-test-bundle.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_run_id_format(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	/* 2026-11-21T15:11:02Z, in UTC whatever TZ says */
	setenv("TZ", "America/New_York", 1);
	bundle_format_run_id(&sb, 1795273862ull * 1000000000ull + 999999999ull, 0xa3f9);
	assert_string_equal(sb.buf, "20261121-151102-a3f9");
	assert_true(bundle_run_id_valid(sb.buf));
	strbuf_reset(&sb);
	bundle_format_run_id(&sb, 0, 0x1);
	assert_string_equal(sb.buf, "19700101-000000-0001");
	unsetenv("TZ");
	assert_false(bundle_run_id_valid("20261121-151102-A3F9"));
	assert_false(bundle_run_id_valid("20261121-151102-a3f"));
	assert_false(bundle_run_id_valid("20261121_151102-a3f9"));
	assert_false(bundle_run_id_valid("latest"));
	strbuf_release(&sb);
}

static size_t count_run_dirs(const char *root, int *bad)
{
	DIR *d = opendir(root);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		if (!strcmp(e->d_name, "latest"))
			continue;
		if (bundle_run_id_valid(e->d_name))
			n++;
		else
			(*bad)++;
	}
	closedir(d);
	return n;
}

/* 6 processes x 40 bundles in one root at once: every create must succeed
 * with its own directory (240 ids in a few seconds collide on the 16 random
 * bits fairly often, which exercises the EEXIST retry). */
static void test_concurrent_creation_is_unique(void **state)
{
	struct strbuf root = STRBUF_INIT, ids = STRBUF_INIT, all = STRBUF_INIT;
	enum { PROCS = 6, EACH = 40 };
	pid_t pids[PROCS];
	int fds[2], bad = 0;
	char target[PATH_MAX];
	ssize_t n;

	path_join(&root, tmpdir, "concurrent");
	assert_int_equal(pipe(fds), 0);
	for (int p = 0; p < PROCS; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0) {
			close(fds[0]);
			for (int i = 0; i < EACH; i++) {
				struct run_bundle b = RUN_BUNDLE_INIT;
				struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
				if (bundle_create(&b, root.buf, &err) ||
				    bundle_update_latest(&b, &err))
					_exit(1);
				strbuf_addf(&line, "%s\n", b.run_id);
				if (write(fds[1], line.buf, line.len) != (ssize_t)line.len)
					_exit(2);
				bundle_release(&b);
				strbuf_release(&line);
			}
			_exit(0);
		}
	}
	close(fds[1]);
	assert_int_equal(strbuf_read_fd(&all, fds[0]), 0);
	close(fds[0]);
	for (int p = 0; p < PROCS; p++) {
		int st;
		assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(count_run_dirs(root.buf, &bad), PROCS * EACH);
	assert_int_equal(bad, 0); /* no .latest.tmp.* left behind */
	/* every reported id is distinct */
	{
		size_t lines = 0;
		for (char *p = all.buf; (p = strchr(p, '\n')); p++)
			lines++;
		assert_int_equal(lines, PROCS * EACH);
		for (char *p = all.buf; *p; p = strchr(p, '\n') + 1) {
			char *again;
			strbuf_reset(&ids);
			strbuf_add(&ids, p, RUN_ID_LEN + 1);
			again = strstr(p + 1, ids.buf);
			assert_null(again);
		}
	}
	/* latest points at one of them */
	strbuf_reset(&ids);
	path_join(&ids, root.buf, "latest");
	n = readlink(ids.buf, target, sizeof(target) - 1);
	assert_true(n == RUN_ID_LEN);
	target[n] = '\0';
	assert_true(bundle_run_id_valid(target));
	assert_non_null(strstr(all.buf, target));
	strbuf_release(&root);
	strbuf_release(&ids);
	strbuf_release(&all);
}

static void test_relative_root_latest_and_writes(void **state)
{
	struct run_bundle a = RUN_BUNDLE_INIT, b = RUN_BUNDLE_INIT;
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT, got = STRBUF_INIT;
	char cwd[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	DIR *d;
	struct dirent *e;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(bundle_create(&a, "rel/root", &err), 0);
	assert_int_equal(bundle_create(&b, "rel/root/", &err), 0);
	assert_int_equal(chdir(cwd), 0);
	strbuf_addf(&p, "%s/rel/root/%s", tmpdir, a.run_id);
	assert_string_equal(a.dir, p.buf);
	assert_true(path_is_dir(a.dir));
	assert_string_not_equal(a.run_id, b.run_id);
	strbuf_reset(&p);
	bundle_path(&a, "logs", &p);
	assert_true(path_is_dir(p.buf));

	assert_int_equal(bundle_update_latest(&a, &err), 0);
	assert_int_equal(bundle_update_latest(&b, &err), 0);
	strbuf_reset(&p);
	path_join(&p, a.root, "latest");
	n = readlink(p.buf, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, b.run_id);

	assert_int_equal(bundle_write(&a, "x.txt", "one", 3, &err), 0);
	assert_int_equal(bundle_write(&a, "x.txt", "second", 6, &err), 0);
	strbuf_reset(&p);
	bundle_path(&a, "x.txt", &p);
	assert_int_equal(strbuf_read_file(&got, p.buf), 0);
	assert_string_equal(got.buf, "second");
	d = opendir(a.dir);
	while ((e = readdir(d)))
		assert_null(strstr(e->d_name, ".tmp."));
	closedir(d);

	/* an unwritable root gives a clear error */
	bundle_release(&a);
	strbuf_reset(&err);
	assert_int_equal(bundle_create(&a, "/proc/llmprof-cannot", &err), -1);
	assert_non_null(strstr(err.buf, "/proc/llmprof-cannot"));
	bundle_release(&a);
	bundle_release(&b);
	strbuf_release(&err);
	strbuf_release(&p);
	strbuf_release(&got);
}

/* bundle_choose() draws an id and creates nothing; bundle_make() says 1
 * when that folder exists by now (another run took it), and makes it with
 * logs/ otherwise; the stand-in is <root>/<run_id>, never made. */
static void test_choose_then_make(void **state)
{
	struct run_bundle a = RUN_BUNDLE_INIT, b = RUN_BUNDLE_INIT;
	struct strbuf err = STRBUF_INIT, root = STRBUF_INIT, p = STRBUF_INIT;

	path_join(&root, tmpdir, "drawn");
	bundle_choose(&a, root.buf);
	assert_true(bundle_run_id_valid(a.run_id));
	assert_string_equal(a.root, root.buf);
	assert_false(path_exists(root.buf));

	assert_int_equal(mkdir_p(a.dir, &err), 0); /* another run was quicker */
	assert_int_equal(bundle_make(&a, &err), 1);
	assert_non_null(strstr(err.buf, a.dir));
	strbuf_reset(&err);
	bundle_choose(&b, root.buf);
	assert_string_not_equal(b.dir, a.dir);
	assert_int_equal(bundle_make(&b, &err), 0);
	bundle_path(&b, "logs", &p);
	assert_true(path_is_dir(p.buf));

	bundle_stand_in(&a, root.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/<run_id>", root.buf);
	assert_string_equal(a.dir, p.buf);
	assert_false(path_exists(a.dir));
	/* the root as given, as --dry-run has always shown it */
	bundle_stand_in(&a, "/abs/root/");
	assert_string_equal(a.dir, "/abs/root//<run_id>");
	bundle_release(&a);
	bundle_release(&b);
	strbuf_release(&err);
	strbuf_release(&root);
	strbuf_release(&p);
}

/* Symlinks planted where llmprof writes are never written through: a
 * temporary name is drawn at random and opened O_EXCL|O_NOFOLLOW, the final
 * name is replaced by rename(), a log is a new file, a folder that is a
 * symlink is refused, and bundle_check_dirs() sees a folder replaced. */
static void test_planted_symlinks(void **state)
{
	struct run_bundle a = RUN_BUNDLE_INIT;
	struct strbuf err = STRBUF_INIT, p = STRBUF_INIT, victim = STRBUF_INIT, got = STRBUF_INIT,
		      tmp = STRBUF_INIT;
	struct stat st;
	int fd;

	path_join(&victim, tmpdir, "victim");
	assert_int_equal(write_file_atomic(victim.buf, "precious", 8, &err), 0);
	assert_int_equal(bundle_create(&a, tmpdir, &err), 0);

	/* final name and the old predictable temporary name both planted */
	bundle_path(&a, "report.md", &p);
	assert_int_equal(symlink(victim.buf, p.buf), 0);
	strbuf_addf(&p, ".tmp.%ld", (long)getpid());
	assert_int_equal(symlink(victim.buf, p.buf), 0);
	assert_int_equal(bundle_write(&a, "report.md", "ours", 4, &err), 0);
	assert_int_equal(strbuf_read_file(&got, victim.buf), 0);
	assert_string_equal(got.buf, "precious");
	strbuf_reset(&p);
	bundle_path(&a, "report.md", &p);
	assert_int_equal(lstat(p.buf, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* the temporary name is new each time and never an existing entry */
	fd = create_temp_file(p.buf, &tmp, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(strstr(tmp.buf, "report.md.tmp."));
	assert_int_equal(unlink(tmp.buf), 0);

	/* a log: a new file, the link removed, its target untouched */
	strbuf_reset(&p);
	bundle_path(&a, "logs/x.out", &p);
	assert_int_equal(symlink(victim.buf, p.buf), 0);
	fd = open_new_file(p.buf, &err);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "log", 3), 3);
	close(fd);
	strbuf_reset(&got);
	assert_int_equal(strbuf_read_file(&got, victim.buf), 0);
	assert_string_equal(got.buf, "precious");

	/* folders */
	assert_int_equal(bundle_check_dirs(&a, &err), 0);
	strbuf_reset(&p);
	bundle_path(&a, "charts", &p);
	assert_int_equal(symlink(tmpdir, p.buf), 0);
	strbuf_reset(&err);
	assert_int_equal(mkdir_real(p.buf, &err), -1);
	assert_non_null(strstr(err.buf, "is a symlink; llmprof writes only into real directories"));
	strbuf_reset(&err);
	assert_int_equal(bundle_check_dirs(&a, &err), -1);
	assert_non_null(strstr(err.buf, "charts' was replaced by a symlink"));
	assert_int_equal(unlink(p.buf), 0);
	assert_int_equal(mkdir_real(p.buf, &err), 0);
	assert_int_equal(mkdir_real(p.buf, &err), 0); /* a real one is fine */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s.moved", a.dir);
	assert_int_equal(rename(a.dir, p.buf), 0);
	assert_int_equal(symlink(p.buf, a.dir), 0);
	strbuf_reset(&err);
	assert_int_equal(bundle_check_dirs(&a, &err), -2);
	assert_non_null(strstr(err.buf, "is no longer a real directory"));

	/* latest: replaced only when it is a symlink */
	strbuf_reset(&p);
	path_join(&p, a.root, "latest");
	unlink(p.buf);
	assert_int_equal(write_file_atomic(p.buf, "mine", 4, &err), 0);
	strbuf_reset(&err);
	assert_int_equal(bundle_update_latest(&a, &err), -1);
	assert_non_null(strstr(err.buf, "it is not a symlink"));
	strbuf_reset(&got);
	assert_int_equal(strbuf_read_file(&got, p.buf), 0);
	assert_string_equal(got.buf, "mine");
	strbuf_reset(&err);
	assert_int_equal(bundle_create(&a, "", &err), -1);
	assert_non_null(strstr(err.buf, "the artifacts root is empty"));

	bundle_release(&a);
	strbuf_release(&err);
	strbuf_release(&p);
	strbuf_release(&victim);
	strbuf_release(&got);
	strbuf_release(&tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_id_format),
	    cmocka_unit_test(test_concurrent_creation_is_unique),
	    cmocka_unit_test(test_relative_root_latest_and_writes),
	    cmocka_unit_test(test_choose_then_make),
	    cmocka_unit_test(test_planted_symlinks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
