/* utf8.c: see utf8.h. */
#include <string.h>

#include "core/utf8.h"
#include "core/banned.h"

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void utf8_sanitize(struct strbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		size_t n = 0;

		/* ASCII but NUL, a run at a time */
		while (n < len && p[n] && p[n] < 0x80)
			n++;
		if (n) {
			strbuf_add(out, p, n);
			p += n;
			len -= n;
			continue;
		}
		n = utf8_seq_len(p, len);
		if (n && !(n == 1 && p[0] == 0)) {
			strbuf_add(out, p, n);
		} else {
			strbuf_addstr(out, "\xef\xbf\xbd");
			n = 1;
		}
		p += n;
		len -= n;
	}
}

void utf8_json_escape(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			strbuf_addstr(out, "\\\"");
			break;
		case '\\':
			strbuf_addstr(out, "\\\\");
			break;
		case '\n':
			strbuf_addstr(out, "\\n");
			break;
		case '\r':
			strbuf_addstr(out, "\\r");
			break;
		case '\t':
			strbuf_addstr(out, "\\t");
			break;
		default:
			if (c < 0x20) {
				strbuf_addf(out, "\\u%04x", c);
			} else if (c < 0x80) {
				strbuf_addch(out, c);
			} else {
				/* invalid UTF-8: U+FFFD, as utf8_sanitize() */
				size_t n = utf8_seq_len((const unsigned char *)s + i, len - i);

				if (n) {
					strbuf_add(out, s + i, n);
					i += n - 1;
				} else {
					strbuf_addstr(out, "\xef\xbf\xbd");
				}
			}
		}
	}
}

static void add_hex(struct strbuf *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	strbuf_addstr(out, "\\x");
	strbuf_addch(out, hex[c >> 4]);
	strbuf_addch(out, hex[c & 15]);
}

void utf8_printable(struct strbuf *out, const char *s, size_t len, const char *keep)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		size_t n = 0;

		/* printable ASCII, a run at a time */
		while (n < len && p[n] >= 0x20 && p[n] < 0x7f)
			n++;
		if (n) {
			strbuf_add(out, p, n);
			p += n;
			len -= n;
			continue;
		}
		n = p[0] < 0x80 ? 0 : utf8_seq_len(p, len);
		/* U+0080..U+009F (C1 controls: CSI, OSC, ...) are 0xc2 0x80..0x9f */
		if (n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0)) {
			strbuf_add(out, p, n);
		} else {
			if (p[0] && keep && strchr(keep, p[0]))
				strbuf_addch(out, (char)p[0]);
			else
				add_hex(out, p[0]);
			n = 1;
		}
		p += n;
		len -= n;
	}
}
