/* atenname.c: the operator of a PyTorch operator range's message (see
 * atenname.h). */
#include <string.h>

#include "trace/atenname.h"
#include "core/banned.h"

static const char *field_number(const char *p, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(p, name, n))
		return NULL;
	p += n;
	if (*p == '-') /* seq = -1 is never written, but ROCm writes below it */
		p++;
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/* ", sizes = [...]": the end of the balanced brackets, or NULL. */
static const char *field_sizes(const char *p)
{
	static const char name[] = ", sizes = ";
	int depth = 0;

	if (strncmp(p, name, sizeof(name) - 1))
		return NULL;
	p += sizeof(name) - 1;
	if (*p != '[')
		return NULL;
	for (; *p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && --depth == 0)
			return p + 1;
	}
	return NULL;
}

/* Where the fields start: the first ", seq = ", ", op_id = " or ", sizes = "
 * after a non-empty name, or NULL. */
static const char *fields_start(const char *msg)
{
	static const char *const names[] = {", seq = ", ", op_id = ", ", sizes = "};
	const char *first = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *at = strstr(msg, names[i]);

		if (at && at > msg && (!first || at < first))
			first = at;
	}
	return first;
}

int aten_op_key(const char *msg, struct strbuf *key)
{
	const char *name_end, *p, *q, *sizes = NULL, *sizes_end = NULL;

	if (!msg || !(name_end = fields_start(msg)))
		return 0;
	p = name_end;
	if ((q = field_number(p, ", seq = ")))
		p = q;
	if ((q = field_number(p, ", op_id = ")))
		p = q;
	if ((q = field_sizes(p))) {
		sizes = p;
		sizes_end = q;
		p = q;
	}
	/* input_op_ids come last and run to the end of the message */
	if (!strncmp(p, ", input_op_ids = [", 18))
		p += strlen(p);
	if (*p || p == name_end)
		return 0;
	strbuf_reset(key);
	strbuf_add(key, msg, (size_t)(name_end - msg));
	if (sizes)
		strbuf_add(key, sizes, (size_t)(sizes_end - sizes));
	return 1;
}
