/* jsonutil.h: small helpers around jansson for the files llmprof writes. */
#ifndef LLMPROF_JSONUTIL_H
#define LLMPROF_JSONUTIL_H

#include <jansson.h>

#include "core/strbuf.h"
#include "core/utf8.h" /* utf8_sanitize() */

/* A new JSON string from s: jansson rejects invalid UTF-8, so each byte
 * that is not part of a valid sequence becomes U+FFFD. Never NULL (dies on
 * OOM). Caller owns the reference. */
json_t *json_string_lossy(const char *s);

/* Streaming writers for files too large to hold as a jansson tree: they
 * append text byte-identical to jansson's json_dumps() of the same value.
 * json_add_string: the quoted, escaped UTF-8 of s[0..len), invalid bytes
 * (and NUL) as U+FFFD. json_add_real: v as JSON_REAL_PRECISION(precision)
 * prints it ("%.*g", always with a '.' or an exponent, exponent without
 * '+' or leading zeros); null when v is not finite. */
void json_add_string(struct strbuf *sb, const char *s, size_t len);
void json_add_real(struct strbuf *sb, double v, int precision);

/* Serializes root (indent 2, keys in insertion order, trailing newline)
 * and writes it to path in bd (core/bundle_dir.h; NULL: path as given)
 * atomically. 0, or -1 with err. */
struct bundle_dir;
int json_write_file_atomic(const struct bundle_dir *bd, const char *path, const json_t *root,
			   struct strbuf *err);

#endif
