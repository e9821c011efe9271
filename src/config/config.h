/* config.h: the resolved llmprof configuration.
 *
 * conf/config.yaml (with a Hydra-style defaults list) and the groups under
 * conf/ are loaded with libyaml into a tree of struct cnode, command-line
 * overrides are applied (grammar in docs/configuration.md), interpolations
 * are resolved, and the result is checked against the schema table
 * (schema.c): unknown keys and wrong types are errors that name the closest
 * known key. After config_load() succeeds, every schema key can be read with
 * the typed getters below without further checks.
 *
 * Ownership: config_load() returns a struct config the caller frees with
 * config_free(); every pointer a getter returns is borrowed from it. */
#ifndef LLMPROF_CONFIG_H
#define LLMPROF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

enum cnode_type {
	CNODE_NULL,
	CNODE_BOOL,
	CNODE_INT,
	CNODE_FLOAT,
	CNODE_STRING,
	CNODE_LIST,
	CNODE_MAP,
};

/* Where a value came from, for error messages: "conf/x.yaml:3:5" or
 * "override 'a.b=1'". file is borrowed from the config's string pool. */
struct cnode_pos {
	const char *file;
	int line, col;
};

struct cnode {
	enum cnode_type type;
	char *key;         /* entry name inside a map; NULL for list items and root */
	struct cnode_pos pos;
	int b;             /* CNODE_BOOL */
	int64_t i;         /* CNODE_INT */
	double f;          /* CNODE_FLOAT */
	char *s;           /* CNODE_STRING (NUL-terminated, may contain any byte but NUL) */
	struct cnode **items; /* CNODE_LIST, CNODE_MAP: children in order */
	size_t nr, alloc;
};

struct config;

/* Where conf/ lives: $LLMPROF_CONF_DIR, else <exe>/../conf, <exe>/../share/llmprof/conf,
 * the source tree's conf/, or ./conf. Caller owns the result (free()). NULL if none. */
char *config_find_conf_dir(void);

/* Loads conf_dir/config.yaml, applies overrides (strings such as "a.b=1",
 * "+a.c=x", "~a.d", "group=opt", "group@target=opt") in order, resolves
 * ${...} interpolations and validates against the schema.
 * Returns 0, or -1 with a one-line message in err. */
int config_load(struct config **out, const char *conf_dir, size_t n_overrides,
		const char *const *overrides, struct strbuf *err);
void config_free(struct config *cfg);

/* The whole tree (root map). */
const struct cnode *config_root(const struct config *cfg);
/* The node at a dotted key, or NULL when absent. */
const struct cnode *config_get(const struct config *cfg, const char *key);

/* Typed getters for schema keys. A missing key or a null value yields the
 * given fallback (NULL for strings). Calling a getter of the wrong type on a
 * schema key is a bug (BUG()). */
const char *config_get_string(const struct config *cfg, const char *key);
int64_t config_get_int(const struct config *cfg, const char *key, int64_t fallback);
double config_get_double(const struct config *cfg, const char *key, double fallback);
int config_get_bool(const struct config *cfg, const char *key, int fallback);
/* Number of items of a list key (0 when missing/null) and item i as a string
 * (scalars are rendered as YAML would print them). */
size_t config_list_len(const struct config *cfg, const char *key);
const char *config_list_item(const struct config *cfg, const char *key, size_t i);

/* Renders the tree as YAML that config_load-style parsing reads back to the
 * same tree (config show, and <run>/config.yaml). */
void config_to_yaml(const struct config *cfg, struct strbuf *out);

#endif
