/* util.c: see util.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, struct strbuf *err)
{
	char *end;
	long long v;

	errno = 0;
	if (!*s || isspace((unsigned char)*s))
		return error_set(err, "'%s' is not an integer", s);
	v = strtoll(s, &end, 0);
	if (*end)
		return error_set(err, "'%s' is not an integer", s);
	if (errno == ERANGE || v < min || v > max)
		return error_set(err, "'%s' is out of range [%lld, %lld]", s,
				 (long long)min, (long long)max);
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, struct strbuf *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!*s || !isdigit((unsigned char)*s))
		return error_set(err, "'%s' is not a non-negative integer", s);
	v = strtoull(s, &end, 0);
	if (*end)
		return error_set(err, "'%s' is not a non-negative integer", s);
	if (errno == ERANGE || v < min || v > max)
		return error_set(err, "'%s' is out of range [%llu, %llu]", s,
				 (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out, struct strbuf *err)
{
	char *end;
	double v;

	errno = 0;
	if (!*s || isspace((unsigned char)*s))
		return error_set(err, "'%s' is not a number", s);
	v = strtod(s, &end);
	if (*end || errno == ERANGE || isnan(v))
		return error_set(err, "'%s' is not a number", s);
	*out = v;
	return 0;
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d = xcalloc(st_mult(la + 1, lb + 1), sizeof(*d));
	size_t res;

#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	res = D(la, lb);
#undef D
	free(d);
	return res;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t clock_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

void format_iso8601(struct strbuf *sb, uint64_t wall_ns)
{
	time_t secs = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strbuf_addf(sb, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    (unsigned)(wall_ns % 1000000000ull / 1000000ull));
}

int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !memcmp(s + ls - lx, suffix, lx);
}
