/* error.c: error reporting helpers (see error.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/utf8.h"
#include "core/banned.h"

int error_set(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(struct strbuf *err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	strbuf_addf(err, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

void fputs_printable(const char *s, FILE *fp, const char *keep)
{
	struct strbuf sb = STRBUF_INIT;

	utf8_printable(&sb, s, strlen(s), keep);
	fwrite(sb.buf, 1, sb.len, fp);
	strbuf_release(&sb);
}

/* The message is formatted first and then escaped as a whole: a file name,
 * an override or a tool's output inside it cannot put a control byte, an
 * escape sequence or invalid UTF-8 on the terminal, nor a second line. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;

	strbuf_vaddf(&msg, fmt, ap);
	fflush(stdout);
	fprintf(stderr, "llmprof: %s", prefix);
	fputs_printable(msg.buf, stderr, NULL);
	fputc('\n', stderr);
	strbuf_release(&msg);
}

void error_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void warning_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void note_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(code);
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "llmprof: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
