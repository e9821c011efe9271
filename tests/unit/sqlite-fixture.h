/* sqlite-fixture.h: an SQLite file built from SQL text, for the unit tests
 * that read exports no real tool wrote (a part missing, a column renamed,
 * timestamps out of range). Include after cmocka.h: a failure here fails
 * the test that called it. */
#ifndef LLMPROF_TEST_SQLITE_FIXTURE_H
#define LLMPROF_TEST_SQLITE_FIXTURE_H

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

/* Creates a file from path, a mkstemp() template it fills in, and runs sql
 * in it, then more when not NULL (a change to a shared fixture). The caller
 * unlinks path. */
static inline void sqlite_fixture(char *path, const char *sql, const char *more)
{
	sqlite3 *db;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	if (more)
		assert_int_equal(sqlite3_exec(db, more, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

#endif
