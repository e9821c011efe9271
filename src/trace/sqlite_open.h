/* sqlite_open.h: how every reader opens an SQLite export (an nsys export or
 * an llmprof trace.sqlite), so that a crafted file can neither block nor run
 * for ever:
 *   - the path must be a regular file (a FIFO or a device never reaches
 *     SQLite: opening a FIFO would wait for a writer);
 *   - a file the SQLite header says is longer (an export cut short) is
 *     refused: SQLite itself would read the missing pages as absent rows;
 *   - it is opened read-only and immutable ("file:PATH?immutable=1"): no
 *     journal, WAL or lock file is looked at or written, so a WAL-mode
 *     export or a leftover journal reads as the main file holds it;
 *   - no value over SQLITE_OPEN_MAX_VALUE bytes, and no statement running
 *     past SQLITE_OPEN_DEADLINE_S seconds after the open, nor once llmprof
 *     was interrupted after it (core/proc.h: Ctrl-C during a step that
 *     reads an export ends that step now): SQLITE_INTERRUPT;
 *   - none of the tables the readers select from may be a view (a view is
 *     a query, and a recursive one never ends). */
#ifndef LLMPROF_SQLITE_OPEN_H
#define LLMPROF_SQLITE_OPEN_H

#include <sqlite3.h>

#include "core/strbuf.h"

#define SQLITE_OPEN_MAX_VALUE (256 << 20)
#define SQLITE_OPEN_DEADLINE_S 600

/* Opens path as above into *db (close with sqlite3_close). Returns 0, or -1
 * with err ("cannot open 'p': ...", "'p' is a FIFO, not a regular file",
 * "'p' is a directory, not an SQLite export", "'p' is empty, not an SQLite
 * export", "'p' is truncated: N bytes where its header says M (...)") and
 * *db NULL. *size gets the file's size if non-NULL. The view
 * check is export_check_views(): it reads the schema, which fails on a file
 * that is not SQLite, so the caller says what that means first. */
int export_open(const char *path, sqlite3 **db, size_t *size, struct strbuf *err);
/* -1 with "'p': 'StringIds' is a view, not a table; an export holds tables
 * only" when one of the readers' tables is a view, else 0. */
int export_check_views(sqlite3 *db, const char *path, struct strbuf *err);
/* Whether path is a regular file that starts with the SQLite header (an
 * nsys export or an llmprof trace.sqlite, not an nsys stats .csv or a
 * .nsys-rep). Never blocks (see open_regular_file()). */
int export_is_sqlite(const char *path);
/* Whether the last error on db was the deadline. */
int export_past_deadline(sqlite3 *db);
/* The interrupt signal (SIGINT, ...) when the last error on db was that
 * llmprof was interrupted, else 0. */
int export_interrupted(sqlite3 *db);

#endif
