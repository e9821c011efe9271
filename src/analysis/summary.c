/* summary.c: nsys's summary statistics (summary.h). The standard deviation
 * is exact in 128-bit integers for every value a real trace holds, so it
 * agrees with nsys's SQLite to the last printed digit. */
#include <math.h>
#include <string.h>

#include "analysis/summary.h"
#include "core/banned.h"

static int64_t clamp_i64(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

void nsys_summarize(const int64_t *v, size_t n, struct nsys_summary *s)
{
	__int128 sum = 0, sq = 0;
	uint64_t amax = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? 0 - (uint64_t)v[i] : (uint64_t)v[i];
		if (a > amax)
			amax = a;
		sum += v[i];
	}
	s->n = (int64_t)n;
	s->total = clamp_i64(sum);
	s->min = v[0];
	s->max = v[n - 1];
	s->avg = (double)s->total / (double)n;
	s->med = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
	if (n < 2)
		return;
	if ((unsigned __int128)amax * n < ((unsigned __int128)1 << 62)) {
		/* n*Σx² - (Σx)² is exact in 128 bits (n*max < 2^62 keeps every
		 * term below 2^124); only the division rounds. */
		__int128 num;
		long double var;

		for (size_t i = 0; i < n; i++)
			sq += (__int128)v[i] * v[i];
		num = (__int128)n * sq - sum * sum;
		var = (long double)num / ((long double)n * (long double)(n - 1));
		s->stddev = (double)sqrtl(var);
	} else {
		/* values no real trace holds (damaged input): two passes in
		 * long double, never an overflow */
		long double mean = (long double)sum / (long double)n, acc = 0;

		for (size_t i = 0; i < n; i++) {
			long double d = (long double)v[i] - mean;
			acc += d * d;
		}
		s->stddev = (double)sqrtl(acc / (long double)(n - 1));
	}
}
