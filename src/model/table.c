/* table.c: the one table and its writers (Markdown, HTML, and nsys's csv,
 * json and column formats), with nsys's number formatting (SQLite round()
 * + Python repr()); see table.h. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/md.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "model/table.h"
#include "core/banned.h"

/* The kinds of spec and the names; aborts on a mismatch (a caller's bug). */
static void init_cols(struct table *t, const char *spec)
{
	memset(t, 0, sizeof(*t));
	strbuf_init(&t->arena, 256);
	t->ncols = strlen(spec);
	t->names = xcalloc(t->ncols + 1, sizeof(*t->names));
	t->kinds = xcalloc(t->ncols + 1, sizeof(*t->kinds));
	for (size_t i = 0; i < t->ncols; i++) {
		if (spec[i] != TABLE_TEXT && spec[i] != TABLE_NUM && spec[i] != TABLE_CODE)
			abort();
		t->kinds[i] = (enum table_kind)spec[i];
	}
}

void table_init(struct table *t, const char *spec, const char *name, ...)
{
	va_list ap;
	size_t n = 0;

	init_cols(t, spec);
	va_start(ap, name);
	for (const char *h = name; h; h = va_arg(ap, const char *)) {
		if (n == t->ncols)
			abort();
		t->names[n++] = xstrdup(h);
	}
	va_end(ap);
	if (n != t->ncols)
		abort();
}

void table_init_names(struct table *t, const char *spec, const char *const *names)
{
	init_cols(t, spec);
	for (size_t i = 0; i < t->ncols; i++)
		t->names[i] = xstrdup(names[i]);
}

void table_release(struct table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->names[i]);
	free(t->names);
	free(t->kinds);
	free(t->cells);
	strbuf_release(&t->arena);
	memset(t, 0, sizeof(*t));
}

static void push_cell(struct table *t, size_t off_plus_one)
{
	ALLOC_GROW(t->cells, t->ncells + 1, t->alloc);
	t->cells[t->ncells++] = off_plus_one;
	if (t->ncells % t->ncols == 0)
		t->nrows = t->ncells / t->ncols;
}

void table_add_null(struct table *t)
{
	push_cell(t, 0);
}

void table_add_str(struct table *t, const char *s)
{
	size_t off = t->arena.len;

	if (!s) {
		table_add_null(t);
		return;
	}
	strbuf_addstr(&t->arena, s);
	strbuf_addch(&t->arena, '\0');
	push_cell(t, off + 1);
}

void table_make_printable(struct table *t)
{
	struct strbuf arena = STRBUF_INIT, name = STRBUF_INIT;

	for (size_t i = 0; i < t->ncells; i++) {
		const char *s;

		if (!t->cells[i])
			continue;
		s = t->arena.buf + t->cells[i] - 1;
		t->cells[i] = arena.len + 1;
		utf8_printable(&arena, s, strlen(s), NULL);
		strbuf_addch(&arena, '\0');
	}
	strbuf_release(&t->arena);
	t->arena = arena;
	for (size_t c = 0; c < t->ncols; c++) {
		strbuf_reset(&name);
		utf8_printable(&name, t->names[c], strlen(t->names[c]), NULL);
		free(t->names[c]);
		t->names[c] = strbuf_detach(&name, NULL);
	}
	strbuf_release(&name);
}

void table_addf(struct table *t, const char *fmt, ...)
{
	size_t off = t->arena.len;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&t->arena, fmt, ap);
	va_end(ap);
	strbuf_addch(&t->arena, '\0');
	push_cell(t, off + 1);
}

void table_add_sb(struct table *t, struct strbuf *sb)
{
	table_add_str(t, sb->buf);
	strbuf_reset(sb);
}

void table_add_i64(struct table *t, int64_t v)
{
	size_t off = t->arena.len;

	strbuf_addf(&t->arena, "%lld", (long long)v);
	strbuf_addch(&t->arena, '\0');
	push_cell(t, off + 1);
}

void table_add_pyfloat(struct table *t, double v)
{
	size_t off = t->arena.len;

	format_pyfloat(&t->arena, v);
	strbuf_addch(&t->arena, '\0');
	push_cell(t, off + 1);
}

void table_add_round1(struct table *t, double v, enum nsys_round_rule rule)
{
	table_add_pyfloat(t, nsys_round(v, 1, rule));
}

void table_add_mb(struct table *t, double bytes)
{
	size_t off = t->arena.len;

	strbuf_addf(&t->arena, "%.3f", bytes / 1000000.0);
	strbuf_addch(&t->arena, '\0');
	push_cell(t, off + 1);
}

const char *table_cell(const struct table *t, size_t row, size_t col)
{
	size_t c = t->cells[row * t->ncols + col];

	return c ? t->arena.buf + c - 1 : NULL;
}

/* nsys's csv writer quotes a field only when it holds a comma, and does not
 * double embedded quotes; we match it byte for byte. */
static void csv_field(struct strbuf *out, const char *s)
{
	if (!s)
		return;
	if (strchr(s, ',')) {
		strbuf_addch(out, '"');
		strbuf_addstr(out, s);
		strbuf_addch(out, '"');
	} else {
		strbuf_addstr(out, s);
	}
}

void table_write_csv(const struct table *t, struct strbuf *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			strbuf_addch(out, ',');
		csv_field(out, t->names[c]);
	}
	strbuf_addch(out, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				strbuf_addch(out, ',');
			csv_field(out, table_cell(t, r, c));
		}
		strbuf_addch(out, '\n');
	}
}

/* A header or body cell of Markdown: code cells as code spans. */
static void md_cell(struct strbuf *out, const char *s, int code)
{
	strbuf_addch(out, ' ');
	if (code && s && *s)
		md_code(out, s);
	else
		md_text(out, s ? s : "");
	strbuf_addstr(out, " |");
}

void table_write_md(const struct table *t, struct strbuf *out)
{
	strbuf_addch(out, '|');
	for (size_t c = 0; c < t->ncols; c++)
		md_cell(out, t->names[c], 0);
	strbuf_addstr(out, "\n|");
	for (size_t c = 0; c < t->ncols; c++)
		strbuf_addstr(out, t->kinds[c] == TABLE_NUM ? " ---: |" : " --- |");
	strbuf_addch(out, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addch(out, '|');
		for (size_t c = 0; c < t->ncols; c++)
			md_cell(out, table_cell(t, r, c), t->kinds[c] == TABLE_CODE);
		strbuf_addch(out, '\n');
	}
}

static void html_cell(struct strbuf *out, const char *tag, const char *s, enum table_kind kind)
{
	strbuf_addf(out, "<%s%s>", tag, kind == TABLE_NUM ? " class=\"num\"" : "");
	if (kind == TABLE_CODE && s && *s) {
		strbuf_addstr(out, "<code>");
		xml_text(out, s);
		strbuf_addstr(out, "</code>");
	} else {
		xml_text(out, s ? s : "");
	}
	strbuf_addf(out, "</%s>", tag);
}

void table_write_html(const struct table *t, struct strbuf *out, const char *css_class)
{
	strbuf_addf(out, "<div class=\"tablewrap\"><table class=\"%s\">\n<thead><tr>",
		    css_class ? css_class : "data");
	for (size_t c = 0; c < t->ncols; c++)
		html_cell(out, "th", t->names[c],
			  t->kinds[c] == TABLE_NUM ? TABLE_NUM : TABLE_TEXT);
	strbuf_addstr(out, "</tr></thead>\n");
	if (t->nrows)
		strbuf_addstr(out, "<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addstr(out, "<tr>");
		for (size_t c = 0; c < t->ncols; c++)
			html_cell(out, "td", table_cell(t, r, c), t->kinds[c]);
		strbuf_addstr(out, "</tr>\n");
	}
	if (t->nrows)
		strbuf_addstr(out, "</tbody>\n");
	strbuf_addstr(out, "</table></div>\n");
}

/* A JSON string as Python's json.dumps writes it (nsys -f json): ASCII only,
 * other characters as \uXXXX (UTF-16 surrogate pairs above U+FFFF). */
static void json_str(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(out, '"');
	while (*p) {
		const unsigned char *run = p;
		unsigned c, cp = 0;
		int n = 0;

		/* printable ASCII goes out as is, a run at a time */
		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run) {
			strbuf_add(out, run, (size_t)(p - run));
			continue;
		}
		c = *p;
		if (c == '"' || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, (char)c);
			p++;
			continue;
		}
		if (c < 0x80) {
			if (c == '\n')
				strbuf_addstr(out, "\\n");
			else if (c == '\r')
				strbuf_addstr(out, "\\r");
			else if (c == '\t')
				strbuf_addstr(out, "\\t");
			else if (c == '\b')
				strbuf_addstr(out, "\\b");
			else if (c == '\f')
				strbuf_addstr(out, "\\f");
			else if (c < 0x20 || c == 0x7f)
				strbuf_addf(out, "\\u%04x", c);
			else
				strbuf_addch(out, (char)c);
			p++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			cp = c & 0x1f;
			n = 1;
		} else if ((c & 0xf0) == 0xe0) {
			cp = c & 0x0f;
			n = 2;
		} else if ((c & 0xf8) == 0xf0) {
			cp = c & 0x07;
			n = 3;
		}
		p++;
		for (int i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80) {
				n = -1;
				break;
			}
			cp = (cp << 6) | (*p & 0x3f);
		}
		if (n <= 0) {
			strbuf_addstr(out, "\\ufffd"); /* invalid UTF-8 */
			continue;
		}
		if (cp >= 0x10000) {
			cp -= 0x10000;
			strbuf_addf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
				    0xdc00 + (cp & 0x3ff));
		} else {
			strbuf_addf(out, "\\u%04x", cp);
		}
	}
	strbuf_addch(out, '"');
}

/* The layout of nsys stats -f json: an indented array of objects; a NULL
 * cell is "" there, whatever the column. */
void table_write_json(const struct table *t, struct strbuf *out)
{
	strbuf_addch(out, '[');
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addstr(out, r ? ",\n  {\n" : "\n  {\n");
		for (size_t c = 0; c < t->ncols; c++) {
			const char *v = table_cell(t, r, c);

			strbuf_addstr(out, "    ");
			json_str(out, t->names[c]);
			strbuf_addstr(out, ": ");
			if (!v)
				strbuf_addstr(out, "\"\"");
			else if (t->kinds[c] == TABLE_NUM && strcmp(v, "inf") && strcmp(v, "nan") &&
				 strcmp(v, "-inf"))
				strbuf_addstr(out, v);
			else
				json_str(out, v);
			strbuf_addstr(out, c + 1 < t->ncols ? ",\n" : "\n");
		}
		strbuf_addstr(out, "  }");
	}
	strbuf_addstr(out, "\n]\n"); /* "[\n]\n" without rows, as nsys */
}

/* Characters (UTF-8 code points) in the first len bytes of s. */
static size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

/* Bytes of the first n characters of s. */
static size_t utf8_prefix(const char *s, size_t n)
{
	size_t i = 0;

	for (; s[i] && n; n--)
		for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++)
			;
	return i;
}

/* A number as nsys's column writer shows it: the integer part grouped with
 * sep (C's grouping string: group sizes from the right, the last repeated,
 * CHAR_MAX ends grouping). Anything but [-]digits[.digits] is left as is. */
static void group_number(struct strbuf *sb, const char *s, const char *sep, const char *grouping)
{
	const char *p = s + (*s == '-'), *e = p, *g = grouping;
	size_t ndig, left, size;
	char *marks;

	while (*e >= '0' && *e <= '9')
		e++;
	ndig = (size_t)(e - p);
	if (!sep || !*sep || !grouping || !*grouping || *grouping <= 0 || !ndig ||
	    (*e && (*e != '.' || !e[1] || e[1 + strspn(e + 1, "0123456789")]))) {
		strbuf_addstr(sb, s);
		return;
	}
	/* mark the digits a separator goes before, from the right */
	marks = xcalloc(ndig + 1, 1);
	left = ndig;
	size = (size_t)*g;
	while (size > 0 && left > size) {
		left -= size;
		marks[left] = 1;
		if (g[1] == CHAR_MAX)
			break;
		if (g[1])
			g++;
		size = *g > 0 ? (size_t)*g : 0;
	}
	if (*s == '-')
		strbuf_addch(sb, '-');
	for (size_t i = 0; i < ndig; i++) {
		if (marks[i])
			strbuf_addstr(sb, sep);
		strbuf_addch(sb, p[i]);
	}
	strbuf_addstr(sb, e);
	free(marks);
}

/* s cut to width characters, the last an ellipsis (U+2026), when longer. */
static void clip(struct strbuf *sb, size_t width)
{
	if (!width || utf8_chars(sb->buf, sb->len) <= width)
		return;
	strbuf_setlen(sb, utf8_prefix(sb->buf, width - 1));
	strbuf_addstr(sb, "\xe2\x80\xa6");
}

static void column_cell(const struct table *t, size_t row, size_t col,
			const struct table_column_opts *o, struct strbuf *sb)
{
	const char *s = table_cell(t, row, col);

	strbuf_reset(sb);
	if (!s)
		return;
	if (t->kinds[col] == TABLE_NUM && o)
		group_number(sb, s, o->thousands_sep, o->grouping);
	else
		strbuf_addstr(sb, s);
}

static void pad(struct strbuf *out, size_t n)
{
	while (n--)
		strbuf_addch(out, ' ');
}

void table_write_column(const struct table *t, const struct table_column_opts *o,
			struct strbuf *out)
{
	size_t *width = xcalloc(t->ncols + 1, sizeof(*width));
	size_t scan = t->nrows < TABLE_COLUMN_AUTOLINES ? t->nrows : TABLE_COLUMN_AUTOLINES;
	struct strbuf cell = STRBUF_INIT;

	/* widths from the header and the first rows only, at most COLMAX */
	for (size_t c = 0; c < t->ncols; c++) {
		width[c] = utf8_chars(t->names[c], strlen(t->names[c]));
		for (size_t r = 0; r < scan; r++) {
			column_cell(t, r, c, o, &cell);
			if (utf8_chars(cell.buf, cell.len) > width[c])
				width[c] = utf8_chars(cell.buf, cell.len);
		}
		if (width[c] > TABLE_COLUMN_MAX)
			width[c] = TABLE_COLUMN_MAX;
	}
	/* header: centred, the odd space on the right */
	for (size_t c = 0; c < t->ncols; c++) {
		size_t marg;

		strbuf_reset(&cell);
		strbuf_addstr(&cell, t->names[c]);
		clip(&cell, width[c]);
		marg = width[c] - utf8_chars(cell.buf, cell.len);
		strbuf_addstr(out, c ? "  " : " ");
		pad(out, marg / 2);
		strbuf_add(out, cell.buf, cell.len);
		pad(out, marg - marg / 2);
	}
	strbuf_addch(out, '\n');
	for (size_t c = 0; c < t->ncols; c++) {
		strbuf_addstr(out, c ? "  " : " ");
		for (size_t i = 0; i < width[c]; i++)
			strbuf_addch(out, '-');
	}
	strbuf_addch(out, '\n');
	/* text left-aligned (padded even in the last column), numbers right;
	 * anything wider than its column is clipped on the right */
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			size_t marg;

			column_cell(t, r, c, o, &cell);
			clip(&cell, width[c]);
			marg = width[c] - utf8_chars(cell.buf, cell.len);
			strbuf_addstr(out, c ? "  " : " ");
			if (t->kinds[c] == TABLE_NUM)
				pad(out, marg);
			strbuf_add(out, cell.buf, cell.len);
			if (t->kinds[c] != TABLE_NUM)
				pad(out, marg);
		}
		strbuf_addch(out, '\n');
	}
	strbuf_release(&cell);
	free(width);
}

/* SQLite 3.42's printf("%.*f", n, x) read back: in long double, x plus
 * half a unit of the last place (a double) plus x * 3e-16 when x is small
 * enough, then digits by repeated multiplication, the 17th and later read
 * as 0. Its printf.c, step by step, so that the same value rounds the same
 * way (x86-64: long double has a 64-bit mantissa there and here). */
static double round_sqlite_3_42(double x, int n)
{
	static const double half[] = {5.0e-01, 5.0e-02, 5.0e-03, 5.0e-04, 5.0e-05,
				      5.0e-06, 5.0e-07, 5.0e-08, 5.0e-09, 5.0e-10};
	long double v = x, scale = 1.0L;
	double rounder = half[n % 10], rx;
	char buf[512], *p = buf;
	int exp = 0, nsd = 16, e2, ex, prec = n;
	uint64_t u;

	for (int i = n; i >= 10; i -= 10)
		rounder *= 1.0e-10;
	if (v < 0) {
		v = -v;
		*p++ = '-';
	}
	rx = (double)v;
	memcpy(&u, &rx, sizeof(u));
	ex = -1023 + (int)((u >> 52) & 0x7ff);
	if (n + (ex / 3) < 15)
		rounder = (double)(rounder + v * 3e-16);
	v += rounder;
	if (v > 0.0L) {
		while (v >= 1e100 * scale && exp <= 350) {
			scale *= 1e100;
			exp += 100;
		}
		while (v >= 1e10 * scale && exp <= 350) {
			scale *= 1e10;
			exp += 10;
		}
		while (v >= 10.0 * scale && exp <= 350) {
			scale *= 10.0;
			exp++;
		}
		v /= scale;
		while (v < 1e-8) {
			v *= 1e8;
			exp -= 8;
		}
		while (v < 1.0) {
			v *= 10.0;
			exp--;
		}
	}
	if (exp > 350 || (size_t)(exp > 0 ? exp : 0) + (size_t)n + 8 > sizeof(buf) - 2)
		return x;
		/* one digit of v, then v scaled up for the next; '0' after 16 */
#define DIGIT()                                                                                    \
	(nsd-- <= 0 ? '0' : (e2 = (int)v, v = (v - (long double)e2) * 10.0, (char)('0' + e2)))
	if (exp < 0) {
		*p++ = '0';
	} else {
		for (int i = exp; i >= 0; i--)
			*p++ = DIGIT();
	}
	*p++ = '.';
	for (int i = exp + 1; i < 0 && prec > 0; prec--, i++)
		*p++ = '0';
	while (prec-- > 0)
		*p++ = DIGIT();
#undef DIGIT
	*p = '\0';
	return strtod(buf, NULL);
}

/* SQLite 3.43 and later: round() prints with "%!.*f", which takes the
 * double's own decimal digits (SQLite's sqlite3FpDecode(): about 20
 * significant ones), keeps those before the place rounded to and adds one
 * when the next digit is 5 or more: halves away from zero, on the value the
 * double holds. A value beyond 2^52 has no fraction and is returned as is. */
static double round_sqlite_3_43(double x, int n)
{
	char buf[48], digits[24], out[64];
	double a = fabs(x);
	int dexp, keep, nd = 0;

	if (a > 4503599627370496.0 || a == 0.0)
		return x;
	snprintf(buf, sizeof(buf), "%.19e", a); /* d.ddd...e+XX, 20 digits */
	for (const char *s = buf; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[nd++] = *s;
	dexp = (int)strtol(strchr(buf, 'e') + 1, NULL, 10);
	keep = dexp + 1 + n; /* significant digits before the place */
	if (keep < 0 || (keep == 0 && digits[0] < '5'))
		return x < 0 ? -0.0 : 0.0;
	if (keep == 0) {
		snprintf(out, sizeof(out), "%s1e%d", x < 0 ? "-" : "", -n);
		return strtod(out, NULL);
	}
	if (keep < nd && digits[keep] >= '5') {
		int j = keep - 1;

		while (j >= 0 && digits[j] == '9')
			digits[j--] = '0';
		if (j >= 0) {
			digits[j]++;
		} else { /* 9.96 -> 10.0: one more digit in front */
			memmove(digits + 1, digits, (size_t)keep);
			digits[0] = '1';
			dexp++;
			keep++;
		}
	}
	if (keep > nd)
		keep = nd;
	snprintf(out, sizeof(out), "%s%.*se%d", x < 0 ? "-" : "", keep, digits, dexp + 1 - keep);
	return strtod(out, NULL);
}

double nsys_round(double x, int ndigits, enum nsys_round_rule rule)
{
	if (isnan(x) || isinf(x) || ndigits < 0 || ndigits > 30)
		return x;
	return rule == NSYS_ROUND_SQLITE_3_43 ? round_sqlite_3_43(x, ndigits)
					      : round_sqlite_3_42(x, ndigits);
}

void format_pyfloat(struct strbuf *sb, double x)
{
	char buf[64], digits[32];
	int prec, exp10 = 0, nd = 0;
	char *e;

	if (isnan(x)) {
		strbuf_addstr(sb, "nan");
		return;
	}
	if (isinf(x)) {
		strbuf_addstr(sb, x < 0 ? "-inf" : "inf");
		return;
	}
	if (signbit(x)) {
		strbuf_addch(sb, '-');
		x = -x;
	}
	if (x == 0) {
		strbuf_addstr(sb, "0.0");
		return;
	}
	/* Shortest digit string that reads back as x. */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	e = strchr(buf, 'e');
	exp10 = (int)strtol(e + 1, NULL, 10);
	for (char *p = buf; p < e; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	if (exp10 >= -4 && exp10 < 16) {
		if (exp10 >= 0) {
			for (int i = 0; i <= exp10; i++)
				strbuf_addch(sb, i < nd ? digits[i] : '0');
			strbuf_addch(sb, '.');
			if (nd > exp10 + 1)
				strbuf_addstr(sb, digits + exp10 + 1);
			else
				strbuf_addch(sb, '0');
		} else {
			strbuf_addstr(sb, "0.");
			for (int i = 0; i < -exp10 - 1; i++)
				strbuf_addch(sb, '0');
			strbuf_addstr(sb, digits);
		}
	} else {
		strbuf_addch(sb, digits[0]);
		if (nd > 1) {
			strbuf_addch(sb, '.');
			strbuf_addstr(sb, digits + 1);
		}
		strbuf_addf(sb, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	}
}
