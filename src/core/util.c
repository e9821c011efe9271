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
		return error_set(err, "'%s' is out of range [%lld, %lld]", s, (long long)min,
				 (long long)max);
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

size_t edit_distance_max(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), over, prev_min = 0, ret;
	size_t stack[3][128], *heap = NULL, *r2, *r1, *r0, *t;

	if (max >= SIZE_MAX / 4)
		max = SIZE_MAX / 4; /* no sum below can wrap */
	over = max + 1;
	/* each edit changes the length by one at most */
	if ((la > lb ? la - lb : lb - la) > max)
		return over;
	if (lb < 128) {
		r2 = stack[0], r1 = stack[1], r0 = stack[2];
	} else {
		heap = xcalloc(st_mult(3, lb + 1), sizeof(*heap));
		r2 = heap, r1 = heap + lb + 1, r0 = heap + 2 * (lb + 1);
	}
	/*
	 * The optimal-string-alignment recurrence, over three rows (i - 2,
	 * i - 1, i) and only in the band of cells that a path within max can cross:
	 * |i - j| <= max, and |(la - i) - (lb - j)| <= max for what is left.
	 * Cells outside it read as over. If the distance is within max, its
	 * path stays in the band and comes out exact; otherwise the result is
	 * above max. Once two rows running are all above max, every later one
	 * is too. The band moves right by one cell a row at most, so a row
	 * reads only cells its predecessors wrote, or their borders.
	 */
	for (size_t j = 0; j <= lb; j++)
		r1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t lo = 1, hi = lb, row_min;

		/* the band, narrowed where what is left of a and b differs in
		 * length by more than max; the prefilter keeps lo <= hi */
		if (i > max && i - max > lo)
			lo = i - max;
		if (i + lb > la + max && i + lb - la - max > lo)
			lo = i + lb - la - max;
		if (i + max < hi)
			hi = i + max;
		if (i + lb + max - la < hi)
			hi = i + lb + max - la;

		r0[lo - 1] = lo == 1 ? i : over;
		row_min = r0[lo - 1];
		for (size_t j = lo; j <= hi; j++) {
			size_t best = r1[j - 1] + (a[i - 1] != b[j - 1]);

			if (r1[j] + 1 < best)
				best = r1[j] + 1;
			if (r0[j - 1] + 1 < best)
				best = r0[j - 1] + 1;
			if (j > 1 && i > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    r2[j - 2] + 1 < best)
				best = r2[j - 2] + 1;
			r0[j] = best;
			if (best < row_min)
				row_min = best;
		}
		if (hi < lb)
			r0[hi + 1] = over;
		if (row_min >= over && prev_min >= over && i > 1) {
			free(heap);
			return over;
		}
		prev_min = row_min;
		t = r2, r2 = r1, r1 = r0, r0 = t;
	}
	ret = r1[lb] < over ? r1[lb] : over;
	free(heap);
	return ret;
}

size_t edit_distance(const char *a, const char *b)
{
	return edit_distance_max(a, b, SIZE_MAX);
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
	strbuf_addf(sb, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
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
