/* progress.c: the formatted warning and error lines of progress.h. */
#include <stdarg.h>

#include "core/strbuf.h"
#include "pipeline/progress.h"
#include "core/banned.h"

static void line(void (*fn)(void *, const char *), void *arg, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	fn(arg, sb.buf);
	strbuf_release(&sb);
}

void progress_warning(const struct pipeline_progress *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(pr->warning, pr->arg, fmt, ap);
	va_end(ap);
}

void progress_error(const struct pipeline_progress *pr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(pr->error, pr->arg, fmt, ap);
	va_end(ap);
}
