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

/* Serializes root (indent 2, keys in insertion order, trailing newline)
 * and writes it to path atomically. 0, or -1 with err. */
int json_write_file_atomic(const char *path, const json_t *root, struct strbuf *err);

#endif
