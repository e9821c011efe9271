/* util.h: small helpers: number parsing with range checks, edit distance for
 * "did you mean", monotonic and wall clocks. */
#ifndef LLMPROF_UTIL_H
#define LLMPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parse a whole string as a number within [min, max]. Return 0, or -1 with a
 * message in err ("'x' is not an integer", "'x' is out of range [a, b]"). */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, struct strbuf *err);
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, struct strbuf *err);
int parse_double(const char *s, double *out, struct strbuf *err);

/* Damerau-style edit distance (optimal string alignment), for suggestions. */
size_t edit_distance(const char *a, const char *b);

/* Nanoseconds from CLOCK_MONOTONIC / CLOCK_REALTIME. */
uint64_t clock_mono_ns(void);
uint64_t clock_wall_ns(void);
/* Formats ns since the epoch as UTC ISO 8601 with milliseconds:
 * 2026-11-21T15:11:02.123Z. */
void format_iso8601(struct strbuf *sb, uint64_t wall_ns);

int starts_with(const char *s, const char *prefix);
int ends_with(const char *s, const char *suffix);

#endif
