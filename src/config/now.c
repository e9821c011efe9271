/* now.c: ${now:FORMAT} (see internal.h). */
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/banned.h"

#define NOW_FORMAT_MAX 255
#define NOW_RESULT_MAX 511

int config_format_now(const char *fmt_in, size_t fl, time_t now, struct strbuf *out,
		      struct strbuf *err)
{
	/* fmt[0] is a marker: strftime() returns 0 both for an empty result
	 * and for one that does not fit, and the marker tells them apart */
	char fmt[1 + NOW_FORMAT_MAX + 1], buf[NOW_RESULT_MAX + 2];
	struct tm tm;
	size_t len;

	if (!fl)
		return error_set(err, "${now:} needs a strftime format, e.g. ${now:%%Y%%m%%d}");
	if (fl > NOW_FORMAT_MAX)
		return error_set(err, "${now:FORMAT}: the format is %zu bytes long, at most %d", fl,
				 NOW_FORMAT_MAX);
	if (!gmtime_r(&now, &tm))
		return error_set(err, "${now:FORMAT}: the clock is out of range");
	fmt[0] = '.';
	memcpy(fmt + 1, fmt_in, fl);
	fmt[fl + 1] = '\0';
	/* The format is the user's, by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	len = strftime(buf, sizeof(buf), fmt, &tm);
#pragma GCC diagnostic pop
	if (!len)
		return error_set(err, "${now:FORMAT}: the result is longer than %d bytes",
				 NOW_RESULT_MAX);
	if (len == 1)
		return error_set(err, "${now:%s} formats to nothing", fmt + 1);
	strbuf_add(out, buf + 1, len - 1);
	return 0;
}
