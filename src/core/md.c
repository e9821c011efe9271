/* md.c: Markdown escaping; see md.h. */
#include <ctype.h>
#include <string.h>

#include "core/md.h"
#include "core/banned.h"

static int intraword(const char *start, const char *p)
{
	return p > start && isalnum((unsigned char)p[-1]) && isalnum((unsigned char)p[1]);
}

void md_text(struct strbuf *sb, const char *s)
{
	const char *start = s;

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
}

static void md_code_ex(struct strbuf *sb, const char *s, int in_table)
{
	size_t run = 0, longest = 0, n;
	const char *p;

	if (!s)
		s = "";
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
}

void md_escape_inline(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
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
}

void md_code(struct strbuf *sb, const char *s)
{
	md_code_ex(sb, s, 1);
}

void md_code_plain(struct strbuf *sb, const char *s)
{
	md_code_ex(sb, s, 0);
}
