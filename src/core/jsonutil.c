/* jsonutil.c: see jsonutil.h. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/utf8.h"
#include "core/banned.h"

json_t *json_string_lossy(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	utf8_sanitize(&sb, s, strlen(s));
	j = json_stringn(sb.buf, sb.len);
	strbuf_release(&sb);
	if (!j)
		BUG("json_stringn failed on sanitized text");
	return j;
}

int json_write_file_atomic(const char *path, const json_t *root, struct strbuf *err)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!text)
		return error_set(err, "cannot serialize '%s'", path);
	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	free(text);
	ret = write_file_atomic(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}
