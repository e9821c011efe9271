/* version.c: reading NVIDIA tools' version strings (see version.h). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/version.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const char *find_ci(const char *hay, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = hay; p + n <= end; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

int version_older(const char *version, int major, int minor)
{
	long y = 0, m = 0;
	const char *p = version;
	int digits = 0;

	if (!p)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	for (; isdigit((unsigned char)*p) && digits < 5; p++, digits++)
		y = y * 10 + (*p - '0');
	if (digits != 4 || *p != '.' || !isdigit((unsigned char)p[1]))
		return -1;
	for (p++, digits = 0; isdigit((unsigned char)*p) && digits < 4; p++, digits++)
		m = m * 10 + (*p - '0');
	return y < major || (y == major && m < minor);
}

char *version_parse(const char *out, size_t len)
{
	const char *best = NULL, *best_end = NULL, *end = out + len;

	for (const char *line = out; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end, *v = find_ci(line, le, "version");

		if (v) {
			v += 7;
			while (v < le && (*v == ' ' || *v == ':'))
				v++;
			best = v;
			best_end = le;
		}
		line = nl ? nl + 1 : end;
	}
	if (!best)
		return NULL;
	while (best_end > best && isspace((unsigned char)best_end[-1]))
		best_end--;
	return best_end > best ? xstrndup(best, (size_t)(best_end - best)) : NULL;
}
