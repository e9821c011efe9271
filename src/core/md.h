/* md.h: Markdown escaping shared by every Markdown writer (reports,
 * kernels.md, selection.md, regions.md). Each function first replaces the
 * bytes that are not valid UTF-8 with U+FFFD, as JSON and HTML do
 * (utf8_sanitize in core/utf8.h). */
#ifndef LLMPROF_MD_H
#define LLMPROF_MD_H

#include "core/strbuf.h"

/* Text safe inside a table cell and in running text: | \ * ` [ ] escaped,
 * _ too unless inside a word (up_gate stays), < and > as &lt; &gt;,
 * newlines and tabs as spaces. */
void md_text(struct strbuf *sb, const char *s);
/* A code span (for kernel names) inside a table cell: a backtick fence
 * longer than any run inside, | escaped (GFM unescapes it in cells),
 * newlines as spaces. */
void md_code(struct strbuf *sb, const char *s);
/* The same outside tables (lists, paragraphs), where | stays as is. */
void md_code_plain(struct strbuf *sb, const char *s);

/* Text from the data outside tables (step reasons, stage names): a
 * backslash before each of \ ` * _ [ ] < > | #, newlines as spaces.
 * md_inline_html() (report/html.c) undoes the backslashes. */
void md_escape_inline(struct strbuf *sb, const char *s);

#endif
