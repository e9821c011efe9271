/* test-read-regular.c: read_regular_file() and open_regular_file(): regular
 * files only (a FIFO neither blocks nor is read), a size cap, what it says. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/strbuf.h"

static char dir[] = "/tmp/llmprof-read-regular.XXXXXX";

static void path_in(struct strbuf *p, const char *name)
{
	strbuf_reset(p);
	path_join(p, dir, name);
}

static void test_reads_a_regular_file(void **state)
{
	struct strbuf p = STRBUF_INIT, sb = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	path_in(&p, "f.txt");
	assert_int_equal(write_file_atomic(p.buf, "hello\n", 6, &err), 0);
	strbuf_addstr(&sb, "kept:");
	assert_int_equal(read_regular_file(p.buf, 16, &sb, &err), 0);
	assert_string_equal(sb.buf, "kept:hello\n");
	/* exactly at the cap is fine, one byte over is not; sb is untouched */
	strbuf_reset(&sb);
	assert_int_equal(read_regular_file(p.buf, 6, &sb, &err), 0);
	strbuf_reset(&sb);
	assert_int_equal(read_regular_file(p.buf, 5, &sb, &err), -1);
	assert_int_equal(sb.len, 0);
	assert_non_null(strstr(err.buf, "is too large (6 bytes; at most 5)"));
	strbuf_release(&p);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_refuses_what_is_not_regular(void **state)
{
	struct strbuf p = STRBUF_INIT, sb = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	path_in(&p, "fifo");
	assert_int_equal(mkfifo(p.buf, 0600), 0);
	/* no writer: a blocking open would never return */
	assert_int_equal(read_regular_file(p.buf, 1 << 20, &sb, &err), -1);
	strbuf_addf(&want, "'%s' is a FIFO, not a regular file", p.buf);
	assert_string_equal(err.buf, want.buf);
	strbuf_reset(&err);
	assert_int_equal(open_regular_file(p.buf, 1 << 20, NULL, &err), -1);
	assert_string_equal(err.buf, want.buf);

	strbuf_reset(&err);
	assert_int_equal(read_regular_file("/dev/zero", 1 << 20, &sb, &err), -1);
	assert_string_equal(err.buf, "'/dev/zero' is a character device, not a regular file");
	strbuf_reset(&err);
	assert_int_equal(read_regular_file(dir, 1 << 20, &sb, &err), -1);
	assert_non_null(strstr(err.buf, "is a directory, not a regular file"));
	strbuf_reset(&err);
	path_in(&p, "missing");
	assert_int_equal(read_regular_file(p.buf, 1 << 20, &sb, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read '"));
	assert_non_null(strstr(err.buf, "': No such file or directory"));
	strbuf_reset(&err);
	assert_int_equal(open_regular_file(p.buf, 1 << 20, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "cannot open '"));
	assert_int_equal(sb.len, 0);
	strbuf_release(&p);
	strbuf_release(&sb);
	strbuf_release(&err);
	strbuf_release(&want);
}

static void test_open_gives_a_blocking_fd_and_the_size(void **state)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	size_t size = 0;
	char buf[8];
	int fd;

	(void)state;
	path_in(&p, "g.txt");
	assert_int_equal(write_file_atomic(p.buf, "abc", 3, &err), 0);
	fd = open_regular_file(p.buf, 3, &size, &err);
	assert_true(fd >= 0);
	assert_int_equal(size, 3);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	close(fd);
	strbuf_release(&p);
	strbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	struct strbuf p = STRBUF_INIT;

	(void)state;
	for (const char *const *n = (const char *const[]){"f.txt", "g.txt", "fifo", NULL}; *n;
	     n++) {
		path_in(&p, *n);
		unlink(p.buf);
	}
	strbuf_release(&p);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_a_regular_file),
	    cmocka_unit_test(test_refuses_what_is_not_regular),
	    cmocka_unit_test(test_open_gives_a_blocking_fd_and_the_size),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
