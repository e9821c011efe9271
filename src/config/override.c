/* override.c: the command-line override grammar (Hydra's, minus sweeps):
 *
 *   override := ('~' | '+' | '++')? key ('@' package)? ('=' value)?
 *   value    := list | map | quoted | plain
 *   list     := '[' (value (',' value)*)? ']'
 *   map      := '{' (mkey ':' value (',' mkey ':' value)*)? '}'
 *   quoted   := '...' ('' is a quote) | "..." (backslash escapes)
 *
 * A top-level plain value is the rest of the text, trimmed, typed by the
 * YAML 1.2 core schema (an empty one is the empty string, as in Hydra);
 * nested plain values end at ',' ']' '}' (and ':' for map keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct cursor {
	const char *s;
	size_t len, i;
	const char *origin;
	struct strbuf *err;
};

static int fail(struct cursor *c, const char *msg)
{
	return error_set(c->err, "%s: %s at column %zu", c->origin, msg, c->i + 1);
}

static void skip_ws(struct cursor *c)
{
	while (c->i < c->len && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
		c->i++;
}

static struct cnode *new_node(struct cursor *c, enum cnode_type type)
{
	struct cnode_pos pos = {c->origin, 0, 0};
	return cnode_new(type, NULL, pos);
}

static void add_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

static int hex_digits(struct cursor *c, int n, unsigned *out)
{
	unsigned v = 0;

	for (int k = 0; k < n; k++) {
		char h = c->i < c->len ? c->s[c->i] : '\0';
		int d = (h >= '0' && h <= '9')	 ? h - '0'
			: (h >= 'a' && h <= 'f') ? h - 'a' + 10
			: (h >= 'A' && h <= 'F') ? h - 'A' + 10
						 : -1;
		if (d < 0)
			return fail(c, "bad hex escape");
		v = v * 16 + (unsigned)d;
		c->i++;
	}
	*out = v;
	return 0;
}

/* A quoted string at c->i (on the opening quote) into sb. */
static int parse_quoted(struct cursor *c, struct strbuf *sb)
{
	char q = c->s[c->i++];

	for (;;) {
		char ch;
		unsigned cp = 0;

		if (c->i >= c->len)
			return fail(c, "unterminated quoted string");
		ch = c->s[c->i++];
		if (ch == q) {
			if (q == '\'' && c->i < c->len && c->s[c->i] == '\'') {
				strbuf_addch(sb, '\'');
				c->i++;
				continue;
			}
			return 0;
		}
		if (ch != '\\' || q == '\'') {
			strbuf_addch(sb, ch);
			continue;
		}
		if (c->i >= c->len)
			return fail(c, "unterminated quoted string");
		ch = c->s[c->i++];
		switch (ch) {
		case '\\':
		case '"':
		case '/':
		case '\'':
			strbuf_addch(sb, ch);
			break;
		case 'n':
			strbuf_addch(sb, '\n');
			break;
		case 't':
			strbuf_addch(sb, '\t');
			break;
		case 'r':
			strbuf_addch(sb, '\r');
			break;
		case 'a':
			strbuf_addch(sb, '\a');
			break;
		case 'b':
			strbuf_addch(sb, '\b');
			break;
		case 'e':
			strbuf_addch(sb, 0x1b);
			break;
		case 'f':
			strbuf_addch(sb, '\f');
			break;
		case 'v':
			strbuf_addch(sb, '\v');
			break;
		case 'x':
		case 'u':
		case 'U':
			if (hex_digits(c, ch == 'x' ? 2 : ch == 'u' ? 4 : 8, &cp))
				return -1;
			if (!cp || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
				c->i--;
				return fail(c, "escape is not a character llmprof can hold");
			}
			add_utf8(sb, cp);
			break;
		default:
			c->i--;
			return fail(c, "unknown escape in double-quoted string");
		}
	}
}

static int parse_value(struct cursor *c, int depth, int top, struct cnode **out);

/* Plain text up to one of stop (or the end), trimmed. */
static struct str plain_span(struct cursor *c, const char *stop)
{
	struct str r;
	size_t start = c->i, end;

	while (c->i < c->len && !strchr(stop, c->s[c->i]))
		c->i++;
	end = c->i;
	while (end > start && (c->s[end - 1] == ' ' || c->s[end - 1] == '\t'))
		end--;
	r.p = c->s + start;
	r.len = end - start;
	return r;
}

static int parse_key(struct cursor *c, char **out)
{
	struct strbuf sb = STRBUF_INIT;

	skip_ws(c);
	if (c->i < c->len && (c->s[c->i] == '\'' || c->s[c->i] == '"')) {
		if (parse_quoted(c, &sb)) {
			strbuf_release(&sb);
			return -1;
		}
	} else {
		struct str k = plain_span(c, ":,[]{}");

		if (!k.len)
			return fail(c, "expected a key");
		strbuf_add(&sb, k.p, k.len);
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

static int parse_collection(struct cursor *c, int depth, struct cnode *n)
{
	int is_map = n->type == CNODE_MAP;
	char close = is_map ? '}' : ']';

	if (depth >= CONFIG_MAX_DEPTH)
		return fail(c, "nesting too deep");
	c->i++;
	skip_ws(c);
	if (c->i < c->len && c->s[c->i] == close) {
		c->i++;
		return 0;
	}
	for (;;) {
		struct cnode *item = NULL, *dup;
		char *key = NULL;
		size_t key_col = 0;

		if (is_map) {
			skip_ws(c);
			key_col = c->i + 1;
			if (parse_key(c, &key))
				return -1;
			skip_ws(c);
			if (c->i >= c->len || c->s[c->i] != ':') {
				free(key);
				return fail(c, "expected ':' after a map key");
			}
			if ((dup = cnode_map_get(n, key))) {
				error_set(
				    c->err,
				    "%s: duplicate key '%s' at column %zu (first at column %d)",
				    c->origin, key, key_col, dup->key_pos.col);
				free(key);
				return -1;
			}
			c->i++;
		}
		if (parse_value(c, depth + 1, 0, &item)) {
			free(key);
			return -1;
		}
		item->key = key;
		item->key_pos.col = (int)key_col; /* line 0: a column of the override */
		cnode_append(n, item);
		skip_ws(c);
		if (c->i < c->len && c->s[c->i] == ',') {
			c->i++;
			continue;
		}
		if (c->i < c->len && c->s[c->i] == close) {
			c->i++;
			return 0;
		}
		return fail(c, is_map ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int parse_value(struct cursor *c, int depth, int top, struct cnode **out)
{
	struct cnode *n = NULL;
	char ch;

	skip_ws(c);
	ch = c->i < c->len ? c->s[c->i] : '\0';
	if (ch == '[' || ch == '{') {
		n = new_node(c, ch == '[' ? CNODE_LIST : CNODE_MAP);
		if (parse_collection(c, depth, n))
			goto fail;
	} else if (ch == '\'' || ch == '"') {
		struct strbuf sb = STRBUF_INIT;

		if (parse_quoted(c, &sb)) {
			strbuf_release(&sb);
			return -1;
		}
		n = new_node(c, CNODE_STRING);
		n->s = strbuf_detach(&sb, NULL);
	} else {
		struct str v = plain_span(c, top ? "" : ",]}");
		struct strbuf why = STRBUF_INIT;

		if (!top && !v.len)
			return fail(c, "expected a value");
		n = new_node(c, CNODE_STRING);
		if (top && !v.len) {
			cnode_set_string(n, "", 0);
		} else if (cnode_set_plain(n, v.p, v.len, &why)) {
			error_set(c->err, "%s: %s", c->origin, why.buf);
			strbuf_release(&why);
			goto fail;
		}
	}
	if (top) {
		skip_ws(c);
		if (c->i < c->len) {
			fail(c, "unexpected text after the value");
			goto fail;
		}
	}
	*out = n;
	return 0;
fail:
	cnode_free(n);
	return -1;
}

static int valid_key(const char *s, size_t len, int slash)
{
	if (!len || s[0] == '.' || s[len - 1] == '.' || s[0] == '/' || s[len - 1] == '/')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' ||
		      (slash && ch == '/')))
			return 0;
		if (i && (ch == '.' || ch == '/') && (s[i - 1] == '.' || s[i - 1] == '/'))
			return 0;
	}
	return 1;
}

static int check_utf8(const char *text, const char *origin, struct strbuf *err)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text);

	for (size_t i = 0; i < len;) {
		unsigned cp = 0;
		size_t n = utf8_decode(s + i, len - i, &cp);

		if (!n)
			return error_set(err, "%s: not valid UTF-8 at byte %zu", origin, i + 1);
		i += n;
	}
	return 0;
}

int config_override_parse(const char *text, const char *origin, struct config_override *out,
			  struct strbuf *err)
{
	struct cursor c = {text, strlen(text), 0, origin, err};
	const char *eq = strchr(text, '=');
	const char *key_start, *key_end, *at;
	size_t key_len;

	memset(out, 0, sizeof(*out));
	if (check_utf8(text, origin, err))
		return -1;
	if (text[0] == '~') {
		out->op = CONFIG_OVERRIDE_DELETE;
		key_start = text + 1;
	} else if (text[0] == '+' && text[1] == '+') {
		out->op = CONFIG_OVERRIDE_FORCE;
		key_start = text + 2;
	} else if (text[0] == '+') {
		out->op = CONFIG_OVERRIDE_ADD;
		key_start = text + 1;
	} else {
		out->op = CONFIG_OVERRIDE_SET;
		key_start = text;
	}
	if (!eq && out->op != CONFIG_OVERRIDE_DELETE)
		return error_set(err, "%s: expected KEY=VALUE", origin);
	key_end = eq ? eq : text + c.len;
	at = memchr(key_start, '@', (size_t)(key_end - key_start));
	key_len = (size_t)((at ? at : key_end) - key_start);
	if (!valid_key(key_start, key_len, 1))
		return error_set(err,
				 "%s: '%.*s' is not a valid key (letters, digits, '_', '-', "
				 "'.' between names, '/' in group names)",
				 origin, (int)key_len, key_start);
	if (at && !valid_key(at + 1, (size_t)(key_end - at - 1), 0))
		return error_set(err, "%s: '%.*s' is not a valid package after '@'", origin,
				 (int)(key_end - at - 1), at + 1);
	out->key = xstrndup(key_start, key_len);
	if (at)
		out->package = xstrndup(at + 1, (size_t)(key_end - at - 1));
	if (eq) {
		c.i = (size_t)(eq - text) + 1;
		if (parse_value(&c, 0, 1, &out->value)) {
			config_override_release(out);
			return -1;
		}
	}
	return 0;
}

void config_override_release(struct config_override *o)
{
	FREE_AND_NULL(o->key);
	FREE_AND_NULL(o->package);
	cnode_free(o->value);
	o->value = NULL;
}
