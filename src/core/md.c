/* md.c: Markdown escaping; see md.h. */
#include <ctype.h>
#include <string.h>

#include "core/md.h"
#include "core/utf8.h"
#include "core/banned.h"

/* Whether s holds a control byte other than the line ends and tabs the
 * writers turn into spaces: C0, DEL, or a C1 control (0xc2 0x80..0x9f). */
static int has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\r' && *p != '\t') || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			return 1;
	return 0;
}

/* s itself when it is valid UTF-8 without control bytes, else its copy in
 * tmp with each invalid byte replaced by U+FFFD, the rule JSON and HTML
 * follow (utf8_sanitize), and each control byte shown as \xHH
 * (utf8_printable): a name's terminal escape is text in a Markdown file,
 * never obeyed by the terminal that shows the file. */
static const char *utf8_valid(const char *s, struct strbuf *tmp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = s ? strlen(s) : 0, n;

	for (size_t i = 0; i < len; i += n)
		if (!(n = utf8_seq_len(p + i, len - i))) {
			utf8_sanitize(tmp, s, len);
			s = tmp->buf;
			break;
		}
	if (s && has_control(s)) {
		struct strbuf shown = STRBUF_INIT;

		utf8_printable(&shown, s, strlen(s), "\n\r\t");
		strbuf_release(tmp);
		*tmp = shown;
		return tmp->buf;
	}
	return s;
}

static int intraword(const char *start, const char *p)
{
	return p > start && isalnum((unsigned char)p[-1]) && isalnum((unsigned char)p[1]);
}

void md_text(struct strbuf *sb, const char *s)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *start = s = utf8_valid(s, &tmp);

	for (; s && *s; s++) {
		/* what needs no escape goes out a run at a time */
		size_t n = strcspn(s, "_|\\*`[]<>\n\r\t");

		if (n) {
			strbuf_add(sb, s, n);
			s += n - 1;
			continue;
		}
		switch (*s) {
		case '_':
			if (intraword(start, s)) {
				strbuf_addch(sb, '_');
				break;
			}
			/* fall through */
		case '|':
		case '\\':
		case '*':
		case '`':
		case '[':
		case ']':
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, *s);
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '\n':
		case '\r':
		case '\t':
			strbuf_addch(sb, ' ');
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
	strbuf_release(&tmp);
}

static void md_code_ex(struct strbuf *sb, const char *s, int in_table)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t run = 0, longest = 0, n;
	const char *p;

	s = s ? utf8_valid(s, &tmp) : "";
	for (p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	n = longest + 1;
	for (size_t i = 0; i < n; i++)
		strbuf_addch(sb, '`');
	if (*s == '`' || (*s && s[strlen(s) - 1] == '`'))
		strbuf_addch(sb, ' ');
	for (p = s; *p; p++) {
		size_t plain = strcspn(p, in_table ? "|\n\r\t" : "\n\r\t");

		if (plain) {
			strbuf_add(sb, p, plain);
			p += plain - 1;
		} else if (*p == '|') {
			strbuf_addstr(sb, "\\|");
		} else {
			strbuf_addch(sb, ' ');
		}
	}
	if (*s == '`' || (*s && s[strlen(s) - 1] == '`'))
		strbuf_addch(sb, ' ');
	for (size_t i = 0; i < n; i++)
		strbuf_addch(sb, '`');
	strbuf_release(&tmp);
}

void md_escape_inline(struct strbuf *sb, const char *s)
{
	struct strbuf tmp = STRBUF_INIT;

	for (s = utf8_valid(s, &tmp); s && *s; s++) {
		size_t plain = strcspn(s, "\\`*_[]<>|#\n\r\t");

		if (plain) {
			strbuf_add(sb, s, plain);
			s += plain - 1;
			continue;
		}
		if (strchr("\\`*_[]<>|#", *s))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
	}
	strbuf_release(&tmp);
}

void md_code(struct strbuf *sb, const char *s)
{
	md_code_ex(sb, s, 1);
}

void md_code_plain(struct strbuf *sb, const char *s)
{
	md_code_ex(sb, s, 0);
}
