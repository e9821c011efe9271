/* ncu_units.c: the numbers and units of Nsight Compute's CSV pages (see
 * ncu_units.h); both page readers (ncu_csv.c, ncu_details.c) use them. */
#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "trace/ncu_units.h"
#include "core/banned.h"

/* ---------------------------------------------------------------- numbers */

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Length of a group separator at p (0 if none). The decimal mark's twin
 * (',' when decimal is '.', and the reverse) groups; so do space,
 * apostrophe and the Unicode spaces locales use. */
static size_t group_sep_len(const char *p, size_t n, char decimal)
{
	unsigned char c = (unsigned char)p[0];

	if ((c == ',' || c == '.') && c != (unsigned char)decimal)
		return 1;
	if (c == ' ' || c == '\'')
		return 1;
	if (n >= 2 && c == 0xC2 && (unsigned char)p[1] == 0xA0)
		return 2; /* U+00A0 no-break space */
	if (n >= 3 && c == 0xE2 && (unsigned char)p[1] == 0x80 &&
	    ((unsigned char)p[2] == 0x89 || (unsigned char)p[2] == 0xAF))
		return 3; /* U+2009 thin space, U+202F narrow no-break space */
	return 0;
}

static int str_ieq(const char *p, size_t n, const char *s)
{
	size_t i;

	if (strlen(s) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != s[i])
			return 0;
	return 1;
}

enum ncu_num ncu_parse_number(const char *p, size_t len, char decimal, double *out)
{
	char tmp[96];
	size_t n = 0, i = 0, digits = 0;
	char *end;
	double v;

	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i == len)
		return NCU_NUM_EMPTY;
	if (str_ieq(p + i, len - i, "n/a"))
		return NCU_NUM_NA;
	if (p[i] == '(')
		return NCU_NUM_NA; /* instance values without an aggregate */
	if (p[i] == '-' || p[i] == '+')
		tmp[n++] = p[i++];
	/* Integer part, with group separators between groups of 3 digits. */
	while (i < len) {
		size_t g;

		if (is_digit(p[i])) {
			if (n >= sizeof(tmp) - 8)
				return NCU_NUM_BAD;
			tmp[n++] = p[i++];
			digits++;
			continue;
		}
		g = digits ? group_sep_len(p + i, len - i, decimal) : 0;
		if (g && i + g + 3 <= len && is_digit(p[i + g]) && is_digit(p[i + g + 1]) &&
		    is_digit(p[i + g + 2]) && (i + g + 3 == len || !is_digit(p[i + g + 3]))) {
			i += g;
			continue;
		}
		break;
	}
	if (!digits)
		return NCU_NUM_BAD;
	if (i < len && p[i] == decimal && i + 1 < len && is_digit(p[i + 1])) {
		tmp[n++] = '.';
		i++;
		while (i < len && is_digit(p[i])) {
			if (n >= sizeof(tmp) - 8)
				return NCU_NUM_BAD;
			tmp[n++] = p[i++];
		}
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		size_t j = i + 1;

		if (j < len && (p[j] == '-' || p[j] == '+'))
			j++;
		if (j < len && is_digit(p[j])) {
			tmp[n++] = 'e';
			i++;
			if (p[i] == '-' || p[i] == '+')
				tmp[n++] = p[i++];
			while (i < len && is_digit(p[i])) {
				if (n >= sizeof(tmp) - 1)
					return NCU_NUM_BAD;
				tmp[n++] = p[i++];
			}
		}
	}
	/* What may follow: nothing, or an instance list "158 (0: 158)". */
	if (i < len) {
		size_t j = i;

		while (j < len && p[j] == ' ')
			j++;
		if (j == i || j >= len || p[j] != '(')
			return NCU_NUM_BAD;
	}
	tmp[n] = '\0';
	/* Fast path, exact: a mantissa below 2^53 divided by an exact power of
	 * ten is correctly rounded, as strtod would round it. */
	{
		static const double p10[] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,
					     1e8,  1e9,	 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
					     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
		uint64_t m = 0;
		size_t j = 0, frac = 0, nd = 0;
		int neg = 0, dot = 0, ok = 1;

		if (tmp[0] == '-' || tmp[0] == '+')
			neg = tmp[j++] == '-';
		for (; j < n && ok; j++) {
			if (tmp[j] == '.')
				dot = 1;
			else if (is_digit(tmp[j]) && nd < 16) {
				m = m * 10 + (uint64_t)(tmp[j] - '0');
				nd += m != 0;
				frac += dot;
			} else
				ok = 0;
		}
		if (ok && m < (1ULL << 53) && frac < ARRAY_SIZE(p10)) {
			v = (double)m / p10[frac];
			*out = neg ? -v : v;
			return NCU_NUM_OK;
		}
	}
	v = strtod(tmp, &end);
	if (*end || !isfinite(v))
		return NCU_NUM_BAD;
	*out = v;
	return NCU_NUM_OK;
}

/* ------------------------------------------------------------------ units */

struct unit_word {
	const char *word;
	const char *base;
	int is_time; /* base is second (rescaled to nsecond in numerators) */
};

static const struct unit_word unit_words[] = {
    {"second", "second", 1},
    {"s", "second", 1},
    {"hz", "hz", 0},
    {"byte", "byte", 0},
};

struct unit_prefix {
	char c;
	int exp10;
};

/* ncu uses SI (decimal) prefixes: 1 Kbyte = 1000 byte (32.768000 Kbyte in
 * the auto-unit export is 32768 byte in the base-unit one). */
static const struct unit_prefix unit_prefixes[] = {
    {'n', -9}, {'u', -6}, {'m', -3}, {'K', 3}, {'k', 3}, {'M', 6}, {'G', 9}, {'T', 12}, {'P', 15},
};

/* Exact powers of ten, so that 1/nsecond scales by exactly 1e9. */
static double pow10_exact(int e)
{
	static const double pos[] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,
				     1e8,  1e9,	 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
				     1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30};

	if (e >= 0 && e < (int)ARRAY_SIZE(pos))
		return pos[e];
	if (e < 0 && -e < (int)ARRAY_SIZE(pos))
		return 1 / pos[-e];
	return pow(10, e);
}

/* Scales one side of a unit ("usecond", "Kbyte", "Ghz", "cycle") to its base:
 * *exp10 is the power of ten. */
static int unit_part(const char *p, size_t n, int numerator, int *exp10, struct strbuf *base)
{
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t w = 0; w < ARRAY_SIZE(unit_words); w++) {
			const struct unit_word *u = &unit_words[w];
			size_t wl = strlen(u->word);
			int e = 0;

			if (pass == 0) {
				if (n != wl || memcmp(p, u->word, n))
					continue;
			} else {
				size_t k;

				if (n != wl + 1 || memcmp(p + 1, u->word, wl))
					continue;
				for (k = 0; k < ARRAY_SIZE(unit_prefixes); k++)
					if (unit_prefixes[k].c == p[0])
						break;
				if (k == ARRAY_SIZE(unit_prefixes))
					continue;
				e = unit_prefixes[k].exp10;
			}
			if (u->is_time && numerator) {
				e += 9; /* ncu's base time unit is the nanosecond */
				if (base)
					strbuf_addstr(base, "nsecond");
			} else if (base) {
				strbuf_addstr(base, u->base);
			}
			*exp10 = e;
			return 0;
		}
	}
	/* Counted things (cycle, inst, warp, %, register, ...) carry no prefix
	 * in ncu's output; keep them as they are. */
	*exp10 = 0;
	if (base)
		strbuf_add(base, p, n);
	for (size_t i = 0; i < n; i++)
		if (!isalpha((unsigned char)p[i]) && p[i] != '%' && p[i] != '_' && p[i] != '#')
			return -1;
	return 0;
}

int ncu_unit_scale(const char *unit, size_t len, double *scale, struct strbuf *base)
{
	const char *slash = memchr(unit, '/', len);
	int num = 0, den = 0, ret;

	if (!slash) {
		ret = unit_part(unit, len, 1, &num, base);
	} else {
		ret = unit_part(unit, (size_t)(slash - unit), 1, &num, base);
		if (base)
			strbuf_addch(base, '/');
		ret |= unit_part(slash + 1, len - (size_t)(slash - unit) - 1, 0, &den, base);
	}
	*scale = pow10_exact(num - den);
	return ret ? -1 : 0;
}
