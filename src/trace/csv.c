/* csv.c: RFC 4180 tokenizer; see csv.h. The hot loops scan with memchr and
 * a byte class table so that tokenizing runs at memory-scan speed. */
#include <string.h>

#include "core/error.h"
#include "core/xalloc.h"
#include "trace/csv.h"
#include "core/banned.h"

/* Bytes that end an unquoted field or need attention inside one. */
static const unsigned char special[256] = {
    ['\n'] = 1,
    ['\r'] = 1,
    [','] = 1,
    ['"'] = 1,
};

void csv_reader_init(struct csv_reader *r, const char *buf, size_t len, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
	r->name = name ? name : "<csv>";
	r->line = 1;
	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		r->pos = r->line_start = 3;
}

void csv_reader_release(struct csv_reader *r)
{
	free(r->fields);
	r->fields = NULL;
	r->nr = r->alloc = 0;
}

static int csv_fail(struct csv_reader *r, struct strbuf *err, size_t line, size_t line_start,
		    size_t at, const char *msg)
{
	return error_set(err, "%s:%zu:%zu: %s", r->name, line, at - line_start + 1, msg);
}

static struct csv_field *csv_push(struct csv_reader *r)
{
	struct csv_field *f;

	ALLOC_GROW(r->fields, r->nr + 1, r->alloc);
	f = &r->fields[r->nr++];
	f->quoted = f->escaped = 0;
	return f;
}

int csv_reader_next(struct csv_reader *r, struct strbuf *err)
{
	const char *buf = r->buf;
	size_t len = r->len, pos = r->pos;

	r->nr = 0;
	/* Skip blank lines. */
	while (pos < len && (buf[pos] == '\n' || buf[pos] == '\r')) {
		if (buf[pos] == '\n') {
			r->line++;
			r->line_start = pos + 1;
		}
		pos++;
	}
	if (pos >= len) {
		r->pos = pos;
		return 0;
	}
	r->record_line = r->line;
	for (;;) {
		struct csv_field *f = csv_push(r);

		if (pos < len && buf[pos] == '"') {
			size_t open = pos, start = ++pos, open_line = r->line,
			       open_ls = r->line_start;

			for (;;) {
				/* Quoted fields are short in practice (every ncu
				 * cell is quoted): a byte loop beats two memchr
				 * calls, and counts embedded newlines for error
				 * positions on the way. */
				while (pos < len && buf[pos] != '"') {
					if (buf[pos] == '\n') {
						r->line++;
						r->line_start = pos + 1;
					}
					pos++;
				}
				if (pos >= len) {
					r->pos = len;
					r->cut = 1;
					return csv_fail(r, err, open_line, open_ls, open,
							"unterminated quoted field");
				}
				if (pos + 1 < len && buf[pos + 1] == '"') {
					f->escaped = 1;
					pos += 2;
					continue;
				}
				if (r->lenient_quotes && pos + 1 < len && buf[pos + 1] != ',' &&
				    buf[pos + 1] != '\n' && buf[pos + 1] != '\r') {
					f->escaped = 1; /* a lone quote: data */
					pos++;
					continue;
				}
				f->p = buf + start;
				f->len = pos - start;
				f->quoted = 1;
				pos++;
				break;
			}
			if (pos < len && buf[pos] != ',' && buf[pos] != '\n' && buf[pos] != '\r') {
				r->pos = len;
				return csv_fail(r, err, r->line, r->line_start, pos,
						"unexpected character after closing quote");
			}
		} else {
			size_t start = pos;

			while (pos < len && (!special[(unsigned char)buf[pos]] ||
					     (r->lenient_quotes && buf[pos] == '"')))
				pos++;
			if (pos < len && buf[pos] == '"') {
				r->pos = len;
				return csv_fail(r, err, r->line, r->line_start, pos,
						"quote inside an unquoted field");
			}
			/* A lone CR not followed by LF is data in no dialect we
			 * read; treat it as a line end like LF. */
			f->p = buf + start;
			f->len = pos - start;
		}
		if (pos >= len) {
			r->pos = pos;
			return 1;
		}
		if (buf[pos] == ',') {
			pos++;
			continue;
		}
		/* End of record: CRLF, LF or CR. */
		if (buf[pos] == '\r')
			pos++;
		if (pos < len && buf[pos] == '\n')
			pos++;
		r->line++;
		r->line_start = pos;
		r->pos = pos;
		return 1;
	}
}

void csv_field_unescape(const struct csv_field *f, struct strbuf *out)
{
	size_t i = 0;

	if (!f->escaped) {
		strbuf_add(out, f->p, f->len);
		return;
	}
	while (i < f->len) {
		const char *q = memchr(f->p + i, '"', f->len - i);
		size_t n = q ? (size_t)(q - f->p) - i : f->len - i;

		strbuf_add(out, f->p + i, n);
		i += n;
		if (q) {
			strbuf_addch(out, '"');
			/* skip the doubled quote; a lone one (lenient_quotes) is data */
			i += i + 1 < f->len && f->p[i + 1] == '"' ? 2 : 1;
		}
	}
}

int csv_field_eq(const struct csv_field *f, const char *s)
{
	size_t n = strlen(s);
	struct strbuf sb = STRBUF_INIT;
	int eq;

	if (!f->escaped)
		return f->len == n && !memcmp(f->p, s, n);
	csv_field_unescape(f, &sb);
	eq = sb.len == n && !memcmp(sb.buf, s, n);
	strbuf_release(&sb);
	return eq;
}
