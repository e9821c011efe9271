/* kname.c: a kernel's function base name (kname.h). */
#include <string.h>

#include "model/format.h"
#include "report/kname.h"
#include "core/banned.h"

/* Index of the bracket that opens the one closing at s[end] (')' or '>'),
 * or -1 when unbalanced. */
static long open_of(const char *s, long end)
{
	char close = s[end], open = close == ')' ? '(' : '<';
	int depth = 0;

	for (long i = end; i >= 0; i--) {
		if (s[i] == close)
			depth++;
		else if (s[i] == open && --depth == 0)
			return i;
	}
	return -1;
}

/* *b: where the base name in s[0, len) starts (the trailing parameter list
 * and template arguments dropped, then the last "::"- or space-separated
 * part outside brackets); *e: where the parameter list starts. */
static void base_span(const char *s, long len, long *b, long *e)
{
	long i, depth = 0;

	while (len > 6 && !strncmp(s + len - 6, " const", 6))
		len -= 6;
	if (len > 0 && s[len - 1] == ')') {
		long o = open_of(s, len - 1);
		if (o > 0)
			len = o;
	}
	*e = len;
	if (len > 0 && s[len - 1] == '>') {
		long o = open_of(s, len - 1);
		if (o > 0)
			len = o;
	}
	for (i = len - 1; i >= 0; i--) {
		if (s[i] == '>' || s[i] == ')')
			depth++;
		else if (s[i] == '<' || s[i] == '(')
			depth--;
		else if (!depth && (s[i] == ' ' || (s[i] == ':' && i > 0 && s[i - 1] == ':')))
			break;
	}
	*b = i + 1;
}

static int generic_wrapper(const char *s, long n)
{
	static const char *const names[] = {"Kernel", "Kernel2", "device_kernel", "kernel_entry",
					    NULL};

	for (size_t i = 0; names[i]; i++)
		if ((long)strlen(names[i]) == n && !strncmp(s, names[i], (size_t)n))
			return 1;
	return 0;
}

void kernel_base_name(struct strbuf *out, const char *name, size_t max)
{
	struct strbuf tmp = STRBUF_INIT;
	long len, b, e, full_e;

	if (!name || !*name) {
		strbuf_addstr(out, "(unnamed)");
		return;
	}
	len = (long)strlen(name);
	if (name[len - 1] != ')') { /* no signature: already a short name */
		fmt_ellipsize(out, name, max);
		return;
	}
	base_span(name, len, &b, &full_e);
	e = b;
	while (e < full_e && name[e] != '<' && name[e] != '(')
		e++;
	if (e > b && generic_wrapper(name + b, e - b) && name[e] == '<') {
		/* the first template argument names the kernel */
		long end = e + 1, depth = 0;

		while (end < full_e && (depth || (name[end] != ',' && name[end] != '>'))) {
			if (name[end] == '<' || name[end] == '(')
				depth++;
			else if (name[end] == '>' || name[end] == ')')
				depth--;
			end++;
		}
		base_span(name + e + 1, end - e - 1, &b, &full_e);
		b += e + 1;
		e = b;
		while (e < end && name[e] != '<' && name[e] != '(')
			e++;
	}
	if (e <= b) {
		b = 0;
		e = len;
	}
	strbuf_add(&tmp, name + b, (size_t)(e - b));
	fmt_ellipsize(out, tmp.buf, max);
	strbuf_release(&tmp);
}
