/* bind.c: reading a loaded config. The schema table binds each key to a
 * field of struct llmprof_config (config/typed.h); config_schema_bind()
 * fills those fields once, after validation, so nothing after config_load()
 * looks a key up by name. The string-keyed getters remain for the call
 * sites not converted yet (see config.h). */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* --- the typed struct --- */

static int enum_index(const struct config_key *k, const struct cnode *n)
{
	for (size_t i = 0; i < k->nr_values; i++)
		if (k->values[i] && !strcmp(k->values[i], n->s))
			return (int)i;
	BUG("config key '%s': '%s' is not one of its values", k->key, n->s);
	return 0;
}

static struct config_strlist strlist_of(const struct config_key *k, const struct cnode *n)
{
	struct config_strlist l = {NULL, 0};
	const char **v;

	if (!n)
		return l;
	if (n->type != CNODE_LIST)
		BUG("config key '%s' is not a list", k->key);
	v = xcalloc(n->nr + 1, sizeof(*v));
	for (size_t i = 0; i < n->nr; i++) {
		if (n->items[i]->type != CNODE_STRING)
			BUG("config list '%s' item %zu is not a string", k->key, i);
		v[i] = n->items[i]->s;
	}
	l.v = v;
	l.nr = n->nr;
	return l;
}

/* Validation made the node's type the key's (ints to floats for floats,
 * scalars to strings for str); anything else is a bug in the caller. */
static const struct cnode *typed_node(const struct config_key *k, const struct cnode *n,
				      enum cnode_type want)
{
	if (n && n->type != want)
		BUG("config key '%s' has node type %d, not %d", k->key, (int)n->type, (int)want);
	return n;
}

/* Stores through memcpy: the field's C type is the row's (schema.c checks
 * it at compile time), and enums are written as the int they are. */
static void bind_one(const struct config_key *k, const struct cnode *n, char *field)
{
	const void *p = NULL;
	int64_t i = 0;
	double f = 0;
	int b = 0;
	struct config_strlist l;

	switch (k->ctype) {
	case CONFIG_C_NONE:
		return;
	case CONFIG_C_STR:
		p = (n = typed_node(k, n, CNODE_STRING)) ? n->s : NULL;
		memcpy(field, &p, sizeof(const char *));
		return;
	case CONFIG_C_INT:
		i = (n = typed_node(k, n, CNODE_INT)) ? n->i : 0;
		memcpy(field, &i, sizeof(i));
		return;
	case CONFIG_C_INT_OR_NULL:
		p = (n = typed_node(k, n, CNODE_INT)) ? &n->i : NULL;
		memcpy(field, &p, sizeof(const int64_t *));
		return;
	case CONFIG_C_FLOAT:
		f = (n = typed_node(k, n, CNODE_FLOAT)) ? n->f : 0;
		memcpy(field, &f, sizeof(f));
		return;
	case CONFIG_C_FLOAT_OR_NULL:
		p = (n = typed_node(k, n, CNODE_FLOAT)) ? &n->f : NULL;
		memcpy(field, &p, sizeof(const double *));
		return;
	case CONFIG_C_BOOL:
		b = (n = typed_node(k, n, CNODE_BOOL)) ? n->b : 0;
		memcpy(field, &b, sizeof(b));
		return;
	case CONFIG_C_ENUM:
		b = (n = typed_node(k, n, CNODE_STRING)) ? enum_index(k, n) : 0;
		memcpy(field, &b, sizeof(b));
		return;
	case CONFIG_C_STRLIST:
		l = strlist_of(k, n);
		memcpy(field, &l, sizeof(l));
		return;
	case CONFIG_C_TREE:
		p = typed_node(k, n, CNODE_MAP);
		memcpy(field, &p, sizeof(const struct cnode *));
		return;
	}
}

void config_schema_bind(const struct cnode *root, const struct config_key *keys, size_t n,
			void *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct cnode *node = cnode_lookup(root, keys[i].key);

		if (node && node->type == CNODE_NULL)
			node = NULL;
		bind_one(&keys[i], node, (char *)out + keys[i].offset);
	}
}

void config_schema_unbind(const struct config_key *keys, size_t n, void *out)
{
	for (size_t i = 0; i < n; i++) {
		struct config_strlist l;

		if (keys[i].ctype != CONFIG_C_STRLIST)
			continue;
		memcpy(&l, (char *)out + keys[i].offset, sizeof(l));
		free((void *)l.v);
		l.v = NULL;
		l.nr = 0;
		memcpy((char *)out + keys[i].offset, &l, sizeof(l));
	}
}

const struct llmprof_config *config_typed(const struct config *cfg)
{
	return &cfg->typed;
}

/* --- the tree and the string-keyed getters --- */

const struct cnode *config_root(const struct config *cfg)
{
	return cfg->root;
}

const struct cnode *config_get(const struct config *cfg, const char *key)
{
	return cnode_lookup(cfg->root, key);
}

static const struct cnode *get_typed(const struct config *cfg, const char *key,
				     enum cnode_type want, enum cnode_type also)
{
	const struct cnode *n = cnode_lookup(cfg->root, key);

	if (!n || n->type == CNODE_NULL)
		return NULL;
	if (n->type != want && n->type != also)
		BUG("config key '%s' read with the wrong type (%d)", key, (int)n->type);
	return n;
}

const char *config_get_string(const struct config *cfg, const char *key)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_STRING, CNODE_STRING);
	return n ? n->s : NULL;
}

int64_t config_get_int(const struct config *cfg, const char *key, int64_t fallback)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_INT, CNODE_INT);
	return n ? n->i : fallback;
}

double config_get_double(const struct config *cfg, const char *key, double fallback)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_FLOAT, CNODE_INT);

	if (!n)
		return fallback;
	return n->type == CNODE_INT ? (double)n->i : n->f;
}

int config_get_bool(const struct config *cfg, const char *key, int fallback)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_BOOL, CNODE_BOOL);
	return n ? n->b : fallback;
}

size_t config_list_len(const struct config *cfg, const char *key)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_LIST, CNODE_LIST);
	return n ? n->nr : 0;
}

const char *config_list_item(const struct config *cfg, const char *key, size_t i)
{
	const struct cnode *n = get_typed(cfg, key, CNODE_LIST, CNODE_LIST);

	if (!n || i >= n->nr)
		BUG("config list '%s' has no item %zu", key, i);
	if (n->items[i]->type != CNODE_STRING)
		BUG("config list '%s' item %zu is not a string", key, i);
	return n->items[i]->s;
}
