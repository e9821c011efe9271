/* cnode.c: the config tree: allocation, copy, comparison, merge, lookup and
 * YAML 1.2 core-schema typing of plain scalars (see config.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "core/banned.h"

struct cnode *cnode_new(enum cnode_type type, const char *key, struct cnode_pos pos)
{
	struct cnode *n = xcalloc(1, sizeof(*n));

	n->type = type;
	n->key = key ? xstrdup(key) : NULL;
	n->pos = pos;
	return n;
}

/* Frees the value (children, string) but keeps key and pos. */
void cnode_clear_value(struct cnode *n)
{
	for (size_t i = 0; i < n->nr; i++)
		cnode_free(n->items[i]);
	FREE_AND_NULL(n->items);
	n->nr = n->alloc = 0;
	FREE_AND_NULL(n->s);
	n->b = 0;
	n->i = 0;
	n->f = 0;
}

void cnode_free(struct cnode *n)
{
	if (!n)
		return;
	cnode_clear_value(n);
	free(n->key);
	free(n);
}

void cnode_append(struct cnode *parent, struct cnode *child)
{
	ALLOC_GROW(parent->items, parent->nr + 1, parent->alloc);
	parent->items[parent->nr++] = child;
}

struct cnode *cnode_clone(const struct cnode *n)
{
	struct cnode *c = cnode_new(n->type, n->key, n->pos);

	c->b = n->b;
	c->i = n->i;
	c->f = n->f;
	c->s = n->s ? xstrdup(n->s) : NULL;
	for (size_t i = 0; i < n->nr; i++)
		cnode_append(c, cnode_clone(n->items[i]));
	return c;
}

/* Replaces dst's value by a copy of src's value; dst keeps its key. */
void cnode_assign(struct cnode *dst, const struct cnode *src)
{
	struct cnode *c = cnode_clone(src);

	cnode_clear_value(dst);
	dst->type = c->type;
	dst->pos = c->pos;
	dst->b = c->b;
	dst->i = c->i;
	dst->f = c->f;
	dst->s = c->s;
	dst->items = c->items;
	dst->nr = c->nr;
	dst->alloc = c->alloc;
	free(c->key);
	free(c);
}

int cnode_equal(const struct cnode *a, const struct cnode *b)
{
	if (a->type != b->type)
		return 0;
	if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key)))
		return 0;
	switch (a->type) {
	case CNODE_NULL:
		return 1;
	case CNODE_BOOL:
		return !a->b == !b->b;
	case CNODE_INT:
		return a->i == b->i;
	case CNODE_FLOAT:
		if (isnan(a->f) || isnan(b->f))
			return isnan(a->f) && isnan(b->f);
		return a->f == b->f && !signbit(a->f) == !signbit(b->f);
	case CNODE_STRING:
		return !strcmp(a->s, b->s);
	case CNODE_LIST:
	case CNODE_MAP:
		if (a->nr != b->nr)
			return 0;
		for (size_t i = 0; i < a->nr; i++)
			if (!cnode_equal(a->items[i], b->items[i]))
				return 0;
		return 1;
	}
	return 0;
}

struct cnode *cnode_map_get(const struct cnode *map, const char *key)
{
	if (!map || map->type != CNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->nr; i++)
		if (!strcmp(map->items[i]->key, key))
			return map->items[i];
	return NULL;
}

static struct cnode *map_get_len(const struct cnode *map, const char *key, size_t len)
{
	if (!map || map->type != CNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->nr; i++)
		if (strlen(map->items[i]->key) == len && !memcmp(map->items[i]->key, key, len))
			return map->items[i];
	return NULL;
}

struct cnode *cnode_lookup(const struct cnode *root, const char *dotted)
{
	const struct cnode *n = root;
	const char *p = dotted;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		n = map_get_len(n, p, len);
		if (!n || !dot)
			return (struct cnode *)n;
		p = dot + 1;
	}
}

int cnode_map_remove(struct cnode *map, const char *key)
{
	for (size_t i = 0; i < map->nr; i++) {
		if (strcmp(map->items[i]->key, key))
			continue;
		cnode_free(map->items[i]);
		memmove(map->items + i, map->items + i + 1,
			(map->nr - i - 1) * sizeof(*map->items));
		map->nr--;
		return 0;
	}
	return -1;
}

void cnode_merge(struct cnode *dst, const struct cnode *src)
{
	for (size_t i = 0; i < src->nr; i++) {
		const struct cnode *s = src->items[i];
		struct cnode *d = cnode_map_get(dst, s->key);

		if (!d)
			cnode_append(dst, cnode_clone(s));
		else if (d->type == CNODE_MAP && s->type == CNODE_MAP)
			cnode_merge(d, s);
		else
			cnode_assign(d, s);
	}
}

void cnode_pos_format(const struct cnode_pos *pos, struct strbuf *sb)
{
	if (pos->line > 0)
		strbuf_addf(sb, "%s:%d:%d", pos->file ? pos->file : "?", pos->line, pos->col);
	else
		strbuf_addstr(sb, pos->file ? pos->file : "?");
}

/* --- YAML 1.2 core schema --- */

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int one_of(const char *s, size_t len, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == len && !memcmp(*words, s, len))
			return 1;
	return 0;
}

/* Integer forms: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+. Returns 1 if s has
 * an integer's form (then *overflow says whether it fits in int64). */
static int int_form(const char *s, size_t len, int64_t *out, int *overflow)
{
	uint64_t v = 0, limit = INT64_MAX;
	size_t i = 0;
	int neg = 0, base = 10;

	*overflow = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
		base = s[1] == 'x' ? 16 : 8;
		i = 2;
	} else if (len && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
		if (neg)
			limit = (uint64_t)INT64_MAX + 1;
	}
	if (i == len)
		return 0;
	for (; i < len; i++) {
		int d = hex_val((unsigned char)s[i]);

		if (d < 0 || d >= base)
			return 0;
		if (v > (limit - (uint64_t)d) / (uint64_t)base)
			*overflow = 1;
		else
			v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!*overflow)
		*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int float_form(const char *s, size_t len)
{
	size_t i = 0, digits = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && is_digit(s[i]))
		i++, digits++;
	if (i < len && s[i] == '.') {
		size_t frac = 0;

		i++;
		while (i < len && is_digit(s[i]))
			i++, frac++;
		if (!digits && !frac)
			return 0;
	} else if (!digits) {
		return 0;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp = 0;

		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		while (i < len && is_digit(s[i]))
			i++, exp++;
		if (!exp)
			return 0;
	}
	return i == len;
}

int cnode_set_plain(struct cnode *n, const char *s, size_t len, struct strbuf *err)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", NULL};
	static const char *const falses[] = {"false", "False", "FALSE", NULL};
	static const char *const infs[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
	static const char *const ninfs[] = {"-.inf", "-.Inf", "-.INF", NULL};
	static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
	int overflow;

	cnode_clear_value(n);
	if (memchr(s, '\0', len))
		return error_set(err, "NUL character in a string");
	if (one_of(s, len, nulls)) {
		n->type = CNODE_NULL;
		return 0;
	}
	n->s = xstrndup(s, len);
	if (one_of(s, len, trues) || one_of(s, len, falses)) {
		n->type = CNODE_BOOL;
		n->b = one_of(s, len, trues);
	} else if (int_form(s, len, &n->i, &overflow)) {
		if (overflow)
			return error_set(err, "integer '%s' does not fit in 64 bits", n->s);
		n->type = CNODE_INT;
	} else if (one_of(s, len, infs) || one_of(s, len, ninfs)) {
		n->type = CNODE_FLOAT;
		n->f = one_of(s, len, ninfs) ? -INFINITY : INFINITY;
	} else if (one_of(s, len, nans)) {
		n->type = CNODE_FLOAT;
		n->f = NAN;
	} else if (float_form(s, len)) {
		n->type = CNODE_FLOAT;
		n->f = strtod(n->s, NULL); /* overflow gives +-HUGE_VAL = inf */
	} else {
		n->type = CNODE_STRING;
	}
	return 0;
}

int cnode_plain_is_string(const char *s, size_t len)
{
	struct cnode n = {0};
	int ret = cnode_set_plain(&n, s, len, NULL) == 0 && n.type == CNODE_STRING;

	cnode_clear_value(&n);
	return ret;
}

void cnode_set_string(struct cnode *n, const char *s, size_t len)
{
	cnode_clear_value(n);
	n->type = CNODE_STRING;
	n->s = xstrndup(s, len);
}
