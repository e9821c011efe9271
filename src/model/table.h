/* table.h: a small text table (header + rows of cells) and its writers in
 * the formats `nsys stats` speaks: csv and column (byte-compatible with
 * nsys 2023.4.4 -f csv and -f column), markdown and json. Also the number
 * formatting nsys uses.
 *
 * A table owns every cell it holds; table_release() frees them. Cells are
 * appended row by row; a NULL cell prints as empty (csv/md) or null (json). */
#ifndef LLMPROF_TABLE_H
#define LLMPROF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"

enum table_kind {
	TABLE_TEXT, /* quoted in json */
	TABLE_NUM,  /* bare in json */
};

struct table {
	size_t ncols;
	char **names;		/* owned */
	enum table_kind *kinds; /* owned */
	size_t nrows;
	size_t ncells, alloc;
	size_t *cells;	     /* offset+1 into arena, 0 = NULL cell */
	struct strbuf arena; /* NUL-separated cell text */
};

/* names: ncols column names; kinds may be NULL (all TABLE_NUM except the
 * names given in TABLE_TEXT by caller later via table_set_kind). */
void table_init(struct table *t, const char *const *names, size_t ncols);
void table_set_kind(struct table *t, size_t col, enum table_kind kind);
void table_release(struct table *t);

/* Append one cell to the current row; a row is complete after ncols cells. */
void table_add_null(struct table *t);
void table_add_str(struct table *t, const char *s);
void table_add_i64(struct table *t, int64_t v);
/* A REAL value as Python's repr() prints it (what nsys does). */
void table_add_pyfloat(struct table *t, double v);
/* SQLite round(v, 1) then repr: nsys's Avg/Med/StdDev/Time (%) columns. */
void table_add_round1(struct table *t, double v);
/* bytes shown in decimal MB with 3 decimals (nsys ":mem_B" columns). */
void table_add_mb(struct table *t, double bytes);

/* The cell text, or NULL. */
const char *table_cell(const struct table *t, size_t row, size_t col);

void table_write_csv(const struct table *t, struct strbuf *out);
void table_write_md(const struct table *t, struct strbuf *out);
void table_write_json(const struct table *t, struct strbuf *out);
/* nsys stats -f column (2023.4.4, its defaults autolines=100 and
 * colmax=100): a space, then the columns two spaces apart, each as wide as
 * its widest cell among the header and the first TABLE_COLUMN_AUTOLINES rows,
 * at most TABLE_COLUMN_MAX characters; headers centred over a line of
 * dashes; text cells left-aligned and padded, numbers right-aligned and
 * grouped like the locale's numbers, NULL blank. A cell wider than its
 * column is cut on the right, its last character an ellipsis (U+2026). */
#define TABLE_COLUMN_AUTOLINES 100
#define TABLE_COLUMN_MAX 100
struct table_column_opts {
	const char *thousands_sep; /* NULL or "": no grouping (C locale) */
	const char *grouping;	   /* localeconv()->grouping, e.g. "\3" */
};
void table_write_column(const struct table *t, const struct table_column_opts *opts,
			struct strbuf *out);

/* Number formatting, exposed for tests. */
/* SQLite's round(x, n) (nsys computes its rounded columns in SQL). */
double nsys_round(double x, int ndigits);
/* Python repr(float): shortest round-trip digits, fixed notation for
 * 1e-4 <= |x| < 1e16, else d.ddde+XX. */
void format_pyfloat(struct strbuf *sb, double x);

#endif
