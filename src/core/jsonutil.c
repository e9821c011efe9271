/* jsonutil.c: see jsonutil.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/jsonutil.h"
#include "core/utf8.h"
#include "core/banned.h"

void json_add_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(sb, '"');
	while (len) {
		size_t n = 0;

		/* printable ASCII but '"' and '\\', a run at a time */
		while (n < len && p[n] >= 0x20 && p[n] < 0x80 && p[n] != '"' && p[n] != '\\')
			n++;
		if (n) {
			strbuf_add(sb, p, n);
		} else if (p[0] >= 0x80) {
			n = utf8_seq_len(p, len);
			if (n) {
				strbuf_add(sb, p, n);
			} else {
				strbuf_addstr(sb, "\xef\xbf\xbd");
				n = 1;
			}
		} else {
			static const char esc[] = "\"\"\\\\\bb\ff\nn\rr\tt";
			const char *e = p[0] ? strchr(esc, p[0]) : NULL;

			n = 1;
			if (!p[0])
				strbuf_addstr(sb, "\xef\xbf\xbd");
			else if (e && (e - esc) % 2 == 0)
				strbuf_addf(sb, "\\%c", e[1]);
			else
				strbuf_addf(sb, "\\u%04X", p[0]);
		}
		p += n;
		len -= n;
	}
	strbuf_addch(sb, '"');
}

void json_add_real(struct strbuf *sb, double v, int precision)
{
	char buf[64], *e;
	int n;

	if (!isfinite(v)) {
		strbuf_addstr(sb, "null");
		return;
	}
	n = snprintf(buf, sizeof(buf) - 2, "%.*g", precision, v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 2)
		BUG("json_add_real: %d bytes", n);
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	/* jansson drops the exponent's '+' and leading zeros: 1e+20 -> 1e20 */
	if ((e = strchr(buf, 'e'))) {
		char *start = e + 1, *end = start + 1;

		if (*start == '-')
			start++;
		end = start;
		if (*end == '+')
			end++;
		while (*end == '0' && end[1])
			end++;
		memmove(start, end, strlen(end) + 1);
		n = (int)strlen(buf);
	}
	strbuf_add(sb, buf, (size_t)n);
}

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

int json_write_file_atomic(const struct bundle_dir *bd, const char *path, const json_t *root,
			   struct strbuf *err)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!text)
		return error_set(err, "cannot serialize '%s'", path);
	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	free(text);
	ret = bundle_dir_write(bd, path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}
