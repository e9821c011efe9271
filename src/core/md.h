/* md.h: Markdown escaping shared by every Markdown writer. */
#ifndef LLMPROF_MD_H
#define LLMPROF_MD_H

#include "core/strbuf.h"

/* Appends s as the text of one Markdown table cell: backslash ` * _ [ ] < > | ~
 * are backslash-escaped (CommonMark escapes any ASCII punctuation) and line
 * breaks become <br>. */
void md_cell_escape(struct strbuf *out, const char *s);
/* Appends s as an inline code span, fenced with more backticks than any
 * run inside it; line breaks become spaces. */
void md_code_span(struct strbuf *out, const char *s);

#endif
