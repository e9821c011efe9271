/* yaml.c: YAML text <-> struct cnode. Reading uses libyaml's event API and
 * builds the tree with an explicit stack; writing is our own, so the output
 * is deterministic and quotes exactly what would not read back the same. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

#define TAG_STR "tag:yaml.org,2002:str"

struct yaml_reader {
	const char *file;
	struct cnode **stack; /* open collections */
	size_t nr, alloc;
	char *key; /* pending key of the innermost map */
	struct cnode_pos key_pos;
	struct cnode *root;
};

static struct cnode_pos mark_pos(const char *file, yaml_mark_t m)
{
	struct cnode_pos pos = {file, (int)m.line + 1, (int)m.column + 1};
	return pos;
}

static int at(struct strbuf *err, struct cnode_pos pos, const char *msg, const char *arg)
{
	cnode_pos_format(&pos, err);
	const char *hole = strstr(msg, "%s");

	/* msg holds one "%s" for arg (kept simple so formats stay literal). */
	strbuf_addstr(err, ": ");
	strbuf_add(err, msg, (size_t)(hole - msg));
	strbuf_addstr(err, arg);
	strbuf_addstr(err, hole + 2);
	return -1;
}

/* libyaml's reader errors carry a byte offset, not a mark. */
static int parser_error(const yaml_parser_t *p, const char *buf, size_t len, const char *file,
			struct strbuf *err)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";
	struct cnode_pos pos;

	if (p->error == YAML_READER_ERROR) {
		size_t off = p->problem_offset < len ? p->problem_offset : len;
		int line = 1, col = 1;

		for (size_t i = 0; i < off; i++) {
			if (buf[i] == '\n')
				line++, col = 1;
			else if (((unsigned char)buf[i] & 0xc0) != 0x80)
				col++;
		}
		pos.file = file;
		pos.line = line;
		pos.col = col;
		return at(err, pos, "%s", problem);
	}
	pos = mark_pos(file, p->problem_mark);
	at(err, pos, "%s", problem);
	if (p->context)
		strbuf_addf(err, " (%s at line %d column %d)", p->context,
			    (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	return -1;
}

/* Attaches n to the innermost open collection (or makes it the root). */
static int attach(struct yaml_reader *r, struct cnode *n, struct strbuf *err)
{
	struct cnode *parent = r->nr ? r->stack[r->nr - 1] : NULL;

	if (!parent) {
		if (r->root) {
			cnode_free(n);
			return error_set(err, "%s: more than one document", r->file);
		}
		r->root = n;
		return 0;
	}
	if (parent->type == CNODE_MAP) {
		n->key = r->key;
		n->key_pos = r->key_pos;
		r->key = NULL;
	}
	cnode_append(parent, n);
	return 0;
}

static int check_props(struct yaml_reader *r, struct cnode_pos pos, const yaml_char_t *anchor,
		       const yaml_char_t *tag, int implicit, struct strbuf *err)
{
	if (anchor)
		return at(err, pos, "anchors and aliases are not supported (anchor '&%s')",
			  (const char *)anchor);
	if (tag && !implicit && strcmp((const char *)tag, TAG_STR) &&
	    strcmp((const char *)tag, "!") && strcmp((const char *)tag, "tag:yaml.org,2002:map") &&
	    strcmp((const char *)tag, "tag:yaml.org,2002:seq"))
		return at(err, pos, "tag '%s' is not supported", (const char *)tag);
	return 0;
}

static int on_scalar(struct yaml_reader *r, const yaml_event_t *ev, struct strbuf *err)
{
	struct cnode_pos pos = mark_pos(r->file, ev->start_mark);
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	struct cnode *parent = r->nr ? r->stack[r->nr - 1] : NULL;
	const char *tag = (const char *)ev->data.scalar.tag;
	struct cnode *n;

	if (check_props(r, pos, ev->data.scalar.anchor, ev->data.scalar.tag, 0, err))
		return -1;
	if (memchr(v, '\0', len))
		return at(err, pos, "%s", "NUL character in a string");
	if (parent && parent->type == CNODE_MAP && !r->key) {
		struct cnode *dup;

		r->key = xstrndup(v, len);
		r->key_pos = pos;
		dup = cnode_map_get(parent, r->key);
		if (dup) {
			at(err, pos, "duplicate key '%s'", r->key);
			strbuf_addstr(err, " (first at ");
			cnode_pos_format(dup->key_pos.line ? &dup->key_pos : &dup->pos, err);
			strbuf_addch(err, ')');
			return -1;
		}
		return 0;
	}
	n = cnode_new(CNODE_STRING, NULL, pos);
	if (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		struct strbuf why = STRBUF_INIT;

		if (cnode_set_plain(n, v, len, &why)) {
			at(err, pos, "%s", why.buf);
			strbuf_release(&why);
			cnode_free(n);
			return -1;
		}
	} else {
		cnode_set_string(n, v, len);
	}
	return attach(r, n, err);
}

static int on_start(struct yaml_reader *r, const yaml_event_t *ev, struct strbuf *err)
{
	int is_map = ev->type == YAML_MAPPING_START_EVENT;
	struct cnode_pos pos = mark_pos(r->file, ev->start_mark);
	struct cnode *parent = r->nr ? r->stack[r->nr - 1] : NULL;
	struct cnode *n;

	if (is_map
		? check_props(r, pos, ev->data.mapping_start.anchor, ev->data.mapping_start.tag,
			      ev->data.mapping_start.implicit, err)
		: check_props(r, pos, ev->data.sequence_start.anchor, ev->data.sequence_start.tag,
			      ev->data.sequence_start.implicit, err))
		return -1;
	if (parent && parent->type == CNODE_MAP && !r->key)
		return at(err, pos, "%s", "keys must be scalars");
	if (r->nr >= CONFIG_MAX_DEPTH)
		return at(err, pos, "nesting deeper than %s levels", "64");
	n = cnode_new(is_map ? CNODE_MAP : CNODE_LIST, NULL, pos);
	if (attach(r, n, err))
		return -1;
	ALLOC_GROW(r->stack, r->nr + 1, r->alloc);
	r->stack[r->nr++] = n;
	return 0;
}

int config_parse_yaml_buffer(const char *buf, size_t len, const char *file, struct cnode **out,
			     struct strbuf *err)
{
	struct yaml_reader r = {file, NULL, 0, 0, NULL, {NULL, 0, 0}, NULL};
	yaml_parser_t parser;
	yaml_event_t ev;
	int ret = -1, done = 0, docs = 0;

	*out = NULL;
	if (!yaml_parser_initialize(&parser))
		return error_set(err, "%s: cannot initialize the YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		int rc = 0;

		if (!yaml_parser_parse(&parser, &ev)) {
			parser_error(&parser, buf, len, file, err);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				rc = at(err, mark_pos(file, ev.start_mark), "%s",
					"more than one YAML document");
			break;
		case YAML_ALIAS_EVENT:
			rc = at(err, mark_pos(file, ev.start_mark),
				"anchors and aliases are not supported (alias '*%s')",
				(const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			rc = on_scalar(&r, &ev, err);
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			rc = on_start(&r, &ev, err);
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			r.nr--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (rc)
			goto out;
	}
	if (r.root && r.root->type == CNODE_NULL) {
		/* "---" alone, or a document that is just "~". */
		cnode_free(r.root);
		r.root = NULL;
	}
	if (!r.root) {
		struct cnode_pos pos = {file, 1, 1};
		r.root = cnode_new(CNODE_MAP, NULL, pos);
	}
	if (r.root->type != CNODE_MAP) {
		at(err, r.root->pos, "%s", "the top level must be a mapping (key: value)");
		goto out;
	}
	*out = r.root;
	r.root = NULL;
	ret = 0;
out:
	cnode_free(r.root);
	free(r.key);
	free(r.stack);
	yaml_parser_delete(&parser);
	return ret;
}

/* --- writing --- */

size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, c &= 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, c &= 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* YAML's c-printable set, less line breaks (U+0085, U+2028, U+2029 fold
 * inside quotes) and what we always escape for readability. */
static int yaml_printable(unsigned cp)
{
	if (cp == 0x2028 || cp == 0x2029)
		return 0;
	return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);
}

static void add_quoted(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);

	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t n = utf8_decode(s + i, len - i, &cp);

		if (!n) {
			/* Not UTF-8: YAML cannot hold the byte itself. */
			strbuf_addf(sb, "\\x%02x", s[i]);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, (int)cp);
		} else if (cp == '\n') {
			strbuf_addstr(sb, "\\n");
		} else if (cp == '\t') {
			strbuf_addstr(sb, "\\t");
		} else if (cp == '\r') {
			strbuf_addstr(sb, "\\r");
		} else if (yaml_printable(cp)) {
			strbuf_add(sb, s + i, n);
		} else if (cp < 0x100) {
			strbuf_addf(sb, "\\x%02x", cp);
		} else if (cp < 0x10000) {
			strbuf_addf(sb, "\\u%04x", cp);
		} else {
			strbuf_addf(sb, "\\U%08x", cp);
		}
		i += n;
	}
	strbuf_addch(sb, '"');
}

/* Whether s can be written as a plain scalar and read back as this string. */
static int plain_ok(const char *s, int flow)
{
	size_t len = strlen(s);

	if (!len || s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
		return 0;
	if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]) || starts_with(s, "..."))
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f)
			return 0;
		if ((c == ':' && s[i + 1] == ' ') || (c == ' ' && s[i + 1] == '#'))
			return 0;
		if (flow && strchr(",[]{}:", c))
			return 0;
	}
	return cnode_plain_is_string(s, len);
}

static void add_string(struct strbuf *sb, const char *s, int flow)
{
	if (plain_ok(s, flow))
		strbuf_addstr(sb, s);
	else
		add_quoted(sb, s);
}

static void float_render(double f, struct strbuf *sb)
{
	char buf[64];
	int prec;

	if (isnan(f)) {
		strbuf_addstr(sb, ".nan");
		return;
	}
	if (isinf(f)) {
		strbuf_addstr(sb, f < 0 ? "-.inf" : ".inf");
		return;
	}
	/* The shortest text that reads back to the same double. */
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", f);
	/* 500000.0 reads better than 5e+05 where %f is as short and exact. */
	if (strchr(buf, 'e') && fabs(f) >= 1e-4 && fabs(f) < 1e16) {
		char fixed[64];

		for (prec = 1; prec <= 17; prec++) {
			snprintf(fixed, sizeof(fixed), "%.*f", prec, f);
			if (strtod(fixed, NULL) == f)
				break;
		}
		if (prec <= 17)
			memcpy(buf, fixed, sizeof(buf));
	}
	strbuf_addstr(sb, buf);
	/* "1" would read back as an integer. */
	if (!strpbrk(buf, ".e"))
		strbuf_addstr(sb, ".0");
}

void cnode_scalar_render(const struct cnode *n, struct strbuf *sb)
{
	switch (n->type) {
	case CNODE_NULL:
		strbuf_addstr(sb, "null");
		break;
	case CNODE_BOOL:
		strbuf_addstr(sb, n->b ? "true" : "false");
		break;
	case CNODE_INT:
		strbuf_addf(sb, "%" PRId64, n->i);
		break;
	case CNODE_FLOAT:
		float_render(n->f, sb);
		break;
	case CNODE_STRING:
		strbuf_addstr(sb, n->s);
		break;
	case CNODE_LIST:
	case CNODE_MAP:
		cnode_flow_render(n, sb);
		break;
	}
}

static void add_scalar(struct strbuf *sb, const struct cnode *n, int flow)
{
	if (n->type == CNODE_STRING)
		add_string(sb, n->s, flow);
	else
		cnode_scalar_render(n, sb);
}

void cnode_flow_render(const struct cnode *n, struct strbuf *sb)
{
	strbuf_addch(sb, n->type == CNODE_MAP ? '{' : '[');
	for (size_t i = 0; i < n->nr; i++) {
		const struct cnode *c = n->items[i];

		if (i)
			strbuf_addstr(sb, ", ");
		if (n->type == CNODE_MAP) {
			add_string(sb, c->key, 1);
			strbuf_addstr(sb, ": ");
		}
		if (c->type == CNODE_LIST || c->type == CNODE_MAP)
			cnode_flow_render(c, sb);
		else
			add_scalar(sb, c, 1);
	}
	strbuf_addch(sb, n->type == CNODE_MAP ? '}' : ']');
}

static void indent_to(struct strbuf *sb, int indent)
{
	for (int i = 0; i < indent; i++)
		strbuf_addch(sb, ' ');
}

static int is_block(const struct cnode *n)
{
	return (n->type == CNODE_LIST || n->type == CNODE_MAP) && n->nr;
}

/* Writes a non-empty collection at indent; with inline_first the first line
 * continues the current one (after "- "). */
static void emit_block(struct strbuf *sb, const struct cnode *n, int indent, int inline_first)
{
	for (size_t i = 0; i < n->nr; i++) {
		const struct cnode *c = n->items[i];

		if (i || !inline_first)
			indent_to(sb, indent);
		if (n->type == CNODE_MAP) {
			struct strbuf key = STRBUF_INIT;

			add_string(&key, c->key, 0);
			if (key.len > 1000) {
				/* Implicit keys are limited to 1024 characters. */
				strbuf_addstr(sb, "? ");
				strbuf_addstr(sb, key.buf);
				strbuf_addch(sb, '\n');
				indent_to(sb, indent);
			} else {
				strbuf_addstr(sb, key.buf);
			}
			strbuf_release(&key);
			strbuf_addch(sb, ':');
			if (is_block(c)) {
				strbuf_addch(sb, '\n');
				emit_block(sb, c, indent + 2, 0);
				continue;
			}
			strbuf_addch(sb, ' ');
		} else {
			strbuf_addstr(sb, "- ");
			if (is_block(c)) {
				emit_block(sb, c, indent + 2, 1);
				continue;
			}
		}
		if (c->type == CNODE_LIST || c->type == CNODE_MAP)
			strbuf_addstr(sb, c->type == CNODE_MAP ? "{}" : "[]");
		else
			add_scalar(sb, c, 0);
		strbuf_addch(sb, '\n');
	}
}

void cnode_to_yaml(const struct cnode *n, struct strbuf *out)
{
	if (is_block(n)) {
		emit_block(out, n, 0, 0);
	} else if (n->type == CNODE_MAP || n->type == CNODE_LIST) {
		strbuf_addstr(out, n->type == CNODE_MAP ? "{}\n" : "[]\n");
	} else {
		add_scalar(out, n, 0);
		strbuf_addch(out, '\n');
	}
}
