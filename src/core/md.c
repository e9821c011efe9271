/* md.c: Markdown escaping; see md.h. */
#include "core/md.h"
#include "core/banned.h"

void md_cell_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\r':
			if (s[1] == '\n')
				s++;
			/* fall through */
		case '\n':
			strbuf_addstr(out, "<br>");
			break;
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '<':
		case '>':
		case '|':
		case '~':
			strbuf_addch(out, '\\');
			/* fall through */
		default:
			strbuf_addch(out, *s);
		}
	}
}

void md_code_span(struct strbuf *out, const char *s)
{
	size_t run = 0, longest = 0;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		strbuf_addch(out, '`');
	strbuf_addch(out, ' ');
	for (const char *p = s; *p; p++)
		strbuf_addch(out, *p == '\n' || *p == '\r' ? ' ' : *p);
	strbuf_addch(out, ' ');
	for (size_t i = 0; i <= longest; i++)
		strbuf_addch(out, '`');
}
