/* table.h: the one table of llmprof. Every table a user reads, whatever
 * the format, is a struct table rendered by one of the writers below: the
 * reports' Markdown and HTML (report.md, kernels.md, diff.md/html,
 * merged.md, regions/report.md, the configuration keys), and `llmprof
 * stats` in the formats nsys stats speaks (csv and column, byte-compatible
 * with nsys 2023.4.4 -f csv and -f column; json). Also the number
 * formatting nsys uses.
 *
 * A table is a header (one name per column, each column of one kind) and
 * rows of plain-text cells, already formatted: the writers escape, never
 * format. Cells are appended row by row, left to right; a row is complete
 * after as many cells as columns. A NULL cell (table_add_null, or
 * table_add_str(NULL)) prints empty (csv, Markdown, HTML, column) or as ""
 * (json). The table owns every cell and name it holds; table_release()
 * frees them.
 *
 *	struct table t;
 *
 *	table_init(&t, "clr", "Kernel", "Stage", "Total (ms)", NULL);
 *	table_add_str(&t, "gemm");
 *	table_add_str(&t, "decode");
 *	table_addf(&t, "%.3f", ms);
 *	table_write_md(&t, out);
 *	table_release(&t); */
#ifndef LLMPROF_TABLE_H
#define LLMPROF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"

/* A column's kind, also its letter in table_init()'s spec. */
enum table_kind {
	TABLE_TEXT = 'l', /* left-aligned; quoted in json */
	TABLE_NUM = 'r',  /* right-aligned; bare in json, grouped in the column format */
	TABLE_CODE = 'c', /* text shown as code (kernel names) in Markdown and HTML */
};

struct table {
	size_t ncols;
	char **names;		/* owned */
	enum table_kind *kinds; /* owned */
	size_t nrows;		/* complete rows */
	size_t ncells, alloc;
	size_t *cells;	     /* offset+1 into arena, 0 = NULL cell */
	struct strbuf arena; /* NUL-separated cell text */
};

/* spec: one letter per column, its kind ('l', 'r' or 'c'); then one header
 * name per column, ending in NULL. A count or letter that does not match is
 * a bug in the caller: abort(). */
void table_init(struct table *t, const char *spec, const char *name, ...) __attribute__((sentinel));
/* The same with the names in an array of strlen(spec) entries (headers
 * built at run time). */
void table_init_names(struct table *t, const char *spec, const char *const *names);
void table_release(struct table *t);

/* Append one cell to the current row. */
void table_add_null(struct table *t);
void table_add_str(struct table *t, const char *s); /* NULL: a NULL cell */
void table_addf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* sb's text as a cell; sb is reset, ready for the next. */
void table_add_sb(struct table *t, struct strbuf *sb);
void table_add_i64(struct table *t, int64_t v);
/* A REAL value as Python's repr() prints it (what nsys does). */
void table_add_pyfloat(struct table *t, double v);
/* How SQLite's round(x, n) rounds, which nsys's rounded columns (Avg, Med,
 * StdDev, Time (%)) follow: the rule of the SQLite the nsys that prints
 * them bundles, never of the one llmprof links. */
enum nsys_round_rule {
	/* SQLite up to 3.42 (nsys 2023.4.4 bundles 3.42.0): x plus half a
	 * unit of the last place plus x * 3e-16, in long double, 16
	 * significant digits: 2583.9499999999998 -> 2584.0, 0.35 -> 0.4 */
	NSYS_ROUND_SQLITE_3_42 = 0,
	/* SQLite 3.43 and later: the decimal digits the double holds, halves
	 * away from zero: 2583.9499999999998 -> 2583.9, 0.35 (0.34999...)
	 * -> 0.3, 0.25 -> 0.3 */
	NSYS_ROUND_SQLITE_3_43 = 1,
};
/* round(v, 1) by that rule, then repr: nsys's Avg/Med/StdDev/Time (%) columns. */
void table_add_round1(struct table *t, double v, enum nsys_round_rule rule);
/* bytes shown in decimal MB with 3 decimals (nsys ":mem_B" columns). */
void table_add_mb(struct table *t, double bytes);

/* Every cell (and header) as utf8_printable() shows it (core/utf8.h):
 * control bytes, C1 controls and invalid UTF-8 as \xHH, so text from a
 * trace cannot drive the terminal it is printed on. Call it before a
 * writer, only for a terminal: it changes the bytes nsys would print. */
void table_make_printable(struct table *t);

/* The cell text, or NULL; borrowed from t. */
const char *table_cell(const struct table *t, size_t row, size_t col);

/* GitHub-flavoured Markdown: "| a | b |", then "| --- | ---: |" (TABLE_NUM
 * right-aligned), then a line per row. Text cells through md_text(), code
 * cells through md_code() (core/md.h); an empty code cell stays empty. */
void table_write_md(const struct table *t, struct strbuf *out);
/* An HTML table inside <div class="tablewrap">, class css_class (NULL:
 * "data"); a header row in <thead>, rows in <tbody>; TABLE_NUM cells have
 * class="num", code cells are <code>; text escaped by xml_text(). */
void table_write_html(const struct table *t, struct strbuf *out, const char *css_class);
/* nsys stats -f csv: a field quoted only when it holds a comma. */
void table_write_csv(const struct table *t, struct strbuf *out);
/* nsys stats -f json: an indented array of objects, ASCII only. */
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
/* SQLite's round(x, n) by rule (nsys computes its rounded columns in SQL);
 * NaN, infinities and n outside 0..30 come back unchanged. */
double nsys_round(double x, int ndigits, enum nsys_round_rule rule);
/* Python repr(float): shortest round-trip digits, fixed notation for
 * 1e-4 <= |x| < 1e16, else d.ddde+XX. */
void format_pyfloat(struct strbuf *sb, double x);

#endif
