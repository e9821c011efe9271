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
/* edit_distance(a, b) when it is at most max; otherwise some value above
 * max, found without computing the distance in full (strings whose lengths
 * differ by more than max cost nothing). "Did you mean" compares a key with
 * every known key, and an unknown key (one typed, or one from a fuzzer) is
 * usually far from all of them. Allocates only when b is longer than 127
 * bytes. */
size_t edit_distance_max(const char *a, const char *b, size_t max);

/* int64 sums and differences that saturate at INT64_MIN/INT64_MAX instead
 * of overflowing: nanosecond totals built from timestamps in files we did
 * not write. */
static inline int64_t i64_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static inline int64_t i64_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return a < b ? INT64_MIN : INT64_MAX;
	return r;
}

/* Nanoseconds from CLOCK_MONOTONIC / CLOCK_REALTIME. */
uint64_t clock_mono_ns(void);
uint64_t clock_wall_ns(void);
/* Formats ns since the epoch as UTC ISO 8601 with milliseconds:
 * 2026-11-21T15:11:02.123Z. */
void format_iso8601(struct strbuf *sb, uint64_t wall_ns);

int starts_with(const char *s, const char *prefix);
int ends_with(const char *s, const char *suffix);

#endif
