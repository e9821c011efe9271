/* utf8.h: the one rule for bytes that are not valid UTF-8, and for text
 * shown on a terminal. JSON, HTML and Markdown replace invalid bytes with
 * U+FFFD (utf8_sanitize); error messages and other diagnostics escape them
 * and every control byte as \xHH (utf8_printable), so neither a stray byte
 * nor a terminal escape sequence from a file, an override or a tool's
 * output reaches the terminal as is. */
#ifndef LLMPROF_UTF8_H
#define LLMPROF_UTF8_H

#include <stddef.h>

#include "core/strbuf.h"

/* Length of the valid UTF-8 sequence at p (at most n bytes, n >= 1), or 0. */
size_t utf8_seq_len(const unsigned char *p, size_t n);
/* Appends the UTF-8 of s with each byte not part of a valid sequence (and
 * NUL) replaced by U+FFFD. */
void utf8_sanitize(struct strbuf *out, const char *s, size_t len);
/* Appends s with JSON string escaping, without the surrounding quotes:
 * '"', '\\', '\n', '\r' and '\t' escaped, other bytes below 0x20 as \u00XX,
 * and, as utf8_sanitize() does, each byte not part of a valid sequence as
 * U+FFFD. */
void utf8_json_escape(struct strbuf *out, const char *s, size_t len);
/* Appends s for a terminal: printable ASCII and valid UTF-8 of printable
 * characters as is; C0 controls, DEL, C1 controls (U+0080..U+009F) and
 * bytes of invalid UTF-8 as \xHH. The bytes of keep (e.g. "\n\t" for a
 * multi-line log tail) stay as they are. */
void utf8_printable(struct strbuf *out, const char *s, size_t len, const char *keep);

#endif
