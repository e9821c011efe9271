/* csv.h: an RFC 4180 tokenizer over a borrowed (buf, len).
 *
 * Records are returned as arrays of zero-copy field slices into buf: a quoted
 * field's slice excludes its surrounding quotes and still contains any ""
 * escapes (csv_field_unescape() resolves them). Quoted fields may hold
 * commas, CR and LF. Records may have any number of fields (ragged rows are
 * normal: ncu's details page mixes 16- and 20-field rows). Lines end in LF
 * or CRLF; a final line without a newline is a record; blank lines are
 * skipped; a UTF-8 byte-order mark at the start is ignored.
 *
 * Errors (a '"' inside an unquoted field, text after a closing quote, an
 * unterminated quote) are reported as "name:line:col: message", with line
 * and col 1-based and col counted in bytes.
 *
 * Ownership: the reader borrows buf and name, which must outlive it; the
 * fields array returned by csv_reader_next() is owned by the reader and
 * valid until the next call or csv_reader_release(). */
#ifndef LLMPROF_CSV_H
#define LLMPROF_CSV_H

#include <stddef.h>

#include "core/strbuf.h"

struct csv_field {
	const char *p; /* into the input buffer; not NUL-terminated */
	size_t len;
	unsigned char quoted;  /* the field was quoted */
	unsigned char escaped; /* it contains "" escapes: unescape before use */
};

struct csv_reader {
	const char *buf;
	size_t len, pos;
	const char *name;   /* for error messages */
	size_t line;	    /* 1-based line where the next record starts */
	size_t line_start;  /* offset of that line's first byte */
	size_t record_line; /* line where the last returned record started */
	struct csv_field *fields;
	size_t nr, alloc;
	/* Set by the caller after csv_reader_init(): nsys stats' dialect, whose
	 * quoted fields hold quotes undoubled: a quote closes a quoted field
	 * only before a comma or a line end, and is data anywhere else. */
	unsigned char lenient_quotes;
	unsigned char cut; /* the last error: the input ended inside a quoted field */
};

void csv_reader_init(struct csv_reader *r, const char *buf, size_t len, const char *name);
void csv_reader_release(struct csv_reader *r);

/* Reads the next record into r->fields[0..r->nr). Returns 1 when a record
 * was read, 0 at the end of input, -1 on a syntax error (message in err). */
int csv_reader_next(struct csv_reader *r, struct strbuf *err);

/* Appends the field's text to out with "" turned into ". */
void csv_field_unescape(const struct csv_field *f, struct strbuf *out);
/* 1 when the field's text equals s exactly (after unescaping). */
int csv_field_eq(const struct csv_field *f, const char *s);

#endif
