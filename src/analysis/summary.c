/* summary.c: nsys's summary statistics (summary.h). The standard deviation
 * is exact in 128-bit integers for every value a real trace holds, so it
 * agrees with nsys's SQLite to the last printed digit. */
#include <math.h>
#include <string.h>

#include "analysis/summary.h"
#include "core/sort.h"
#include "core/banned.h"

static int64_t clamp_i64(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* The value at position i of sorted[0..n) with each sorted[k] repeated
 * w[k] times (w NULL: once). */
static int64_t at_expanded(const int64_t *v, const uint64_t *w, size_t n, uint64_t i)
{
	if (!w)
		return v[i];
	for (size_t k = 0; k < n; k++) {
		if (i < w[k])
			return v[k];
		i -= w[k];
	}
	return v[n - 1];
}

void nsys_summarize_weighted(const int64_t *v, const uint64_t *w, size_t n, struct nsys_summary *s)
{
	__int128 sum = 0, sq = 0;
	uint64_t amax = 0, cnt = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? 0 - (uint64_t)v[i] : (uint64_t)v[i];
		uint64_t wi = w ? w[i] : 1;

		if (!wi)
			continue;
		if (a > amax)
			amax = a;
		sum += (__int128)v[i] * wi;
		cnt += wi;
	}
	if (!cnt)
		return;
	s->n = (int64_t)cnt;
	s->total = clamp_i64(sum);
	s->min = at_expanded(v, w, n, 0);
	s->max = at_expanded(v, w, n, cnt - 1);
	s->avg = (double)s->total / (double)cnt;
	s->med = cnt % 2 ? (double)at_expanded(v, w, n, cnt / 2)
			 : ((double)at_expanded(v, w, n, cnt / 2 - 1) +
			    (double)at_expanded(v, w, n, cnt / 2)) /
			       2.0;
	if (cnt < 2)
		return;
	if ((unsigned __int128)amax * cnt < ((unsigned __int128)1 << 62)) {
		/* n*Σx² - (Σx)² is exact in 128 bits (n*max < 2^62 keeps every
		 * term below 2^124); only the division rounds. */
		__int128 num;
		long double var;

		for (size_t i = 0; i < n; i++)
			sq += (__int128)v[i] * v[i] * (w ? w[i] : 1);
		num = (__int128)cnt * sq - sum * sum;
		var = (long double)num / ((long double)cnt * (long double)(cnt - 1));
		s->stddev = (double)sqrtl(var);
	} else {
		/* values no real trace holds (damaged input): two passes in
		 * long double, never an overflow */
		long double mean = (long double)sum / (long double)cnt, acc = 0;

		for (size_t i = 0; i < n; i++) {
			long double d = (long double)v[i] - mean;

			acc += d * d * (long double)(w ? w[i] : 1);
		}
		s->stddev = (double)sqrtl(acc / (long double)(cnt - 1));
	}
}

void nsys_summarize(const int64_t *v, size_t n, struct nsys_summary *s)
{
	nsys_summarize_weighted(v, NULL, n, s);
}

void nsys_summarize_unsorted(int64_t *v, size_t n, struct nsys_summary *s)
{
	size_t k = n / 2;
	int64_t lo, hi, below;
	uint64_t amax = 0;

	if (n < 2)
		goto sorted;
	lo = hi = v[0];
	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? 0 - (uint64_t)v[i] : (uint64_t)v[i];

		amax = a > amax ? a : amax;
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	/* past this, the deviation is summed in long double, in the values'
	 * order (nsys_summarize_weighted()): sorted, as there */
	if ((unsigned __int128)amax * n >= ((unsigned __int128)1 << 62))
		goto sorted;
	select_i64(v, n, k);
	below = v[0]; /* the largest of v[0..k): the median's lower half, for even n */
	for (size_t i = 1; i < k; i++)
		below = v[i] > below ? v[i] : below;
	/* the sums in any order are the same exact integers */
	nsys_summarize_weighted(v, NULL, n, s);
	s->min = lo;
	s->max = hi;
	s->med = n % 2 ? (double)v[k] : ((double)below + (double)v[k]) / 2.0;
	return;
sorted:
	sort_i64(v, n);
	nsys_summarize(v, n, s);
}
