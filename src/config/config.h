/* config.h: the resolved llmprof configuration.
 *
 * conf/config.yaml (with a Hydra-style defaults list) and the groups under
 * conf/ are loaded with libyaml into a tree of struct cnode, command-line
 * overrides are applied (grammar in docs/configuration.md), interpolations
 * are resolved, and the result is checked against the schema table
 * (schema.c): unknown keys and wrong types are errors that name the closest
 * known key. After config_load() succeeds, every schema key has been read
 * once into struct llmprof_config (config/typed.h): code reads the fields
 * of config_typed(cfg), never a key by its name.
 *
 * Ownership: config_load() returns a struct config the caller frees with
 * config_free(); every pointer it hands out (the typed struct, nodes,
 * strings) is borrowed from it. */
#ifndef LLMPROF_CONFIG_H
#define LLMPROF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "config/typed.h"
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
	char *key; /* entry name inside a map; NULL for list items and root */
	struct cnode_pos pos;
	struct cnode_pos key_pos; /* where key was written (line 0: unknown) */
	int b;			  /* CNODE_BOOL */
	int64_t i;		  /* CNODE_INT */
	double f;		  /* CNODE_FLOAT */
	char *s;		  /* CNODE_STRING (NUL-terminated, may contain any byte but NUL) */
	struct cnode **items;	  /* CNODE_LIST, CNODE_MAP: children in order */
	size_t nr, alloc;
};

struct config;

/* Where conf/ lives: $LLMPROF_CONF_DIR, else <exe>/../conf, <exe>/../share/llmprof/conf,
 * the source tree's conf/, or ./conf. Caller owns the result (free()). NULL if none. */
char *config_find_conf_dir(void);

/* Loads conf_dir/config.yaml, applies overrides (strings such as "a.b=1",
 * "+a.c=x", "~a.d", "group=opt", "group@target=opt") in order, resolves
 * ${...} interpolations and validates against the schema.
 * Returns 0, or -1 with a one-line message in err (control characters from
 * user text are escaped). */
int config_load(struct config **out, const char *conf_dir, size_t n_overrides,
		const char *const *overrides, struct strbuf *err);
void config_free(struct config *cfg);

/* Every schema key's value, filled once by config_load() (config/typed.h
 * says how each type is represented). Borrowed from cfg. Reading a key:
 *
 *	const struct llmprof_config *c = config_typed(cfg);
 *
 *	if (c->workload.kind == WORKLOAD_KIND_COMMAND)    was strcmp(.., "command")
 *	top_n = (size_t)c->run.top_n_kernels;              was config_get_int(.., 30)
 *	nsys = c->pipeline.nsys.path;                      NULL: null in the config
 *	if (c->pipeline.ncu.ncu_cli.launch_skip)           int?: NULL when null
 *		skip = *c->pipeline.ncu.ncu_cli.launch_skip;
 *	for (size_t i = 0; i < c->stages.prefill.nr; i++)  list[str]
 *		use(c->stages.prefill.v[i]);
 *	argv_add(ncu_replay_mode_names[c->pipeline.ncu.ncu_cli.replay_mode]);
 */
const struct llmprof_config *config_typed(const struct config *cfg);

/* The whole tree (root map): for what is free-form by nature (config show,
 * <run>/config.yaml). */
const struct cnode *config_root(const struct config *cfg);
/* The node at a dotted key, or NULL when absent. */
const struct cnode *config_get(const struct config *cfg, const char *key);
/* There are no string-keyed value getters here: they are config/'s own
 * (config/internal.h); everything else reads config_typed(). */

/* Renders the tree as YAML that config_load-style parsing reads back to the
 * same tree (config show, and <run>/config.yaml). */
void config_to_yaml(const struct config *cfg, struct strbuf *out);

/* ------------------------------------------------------------------------
 * Lower-level API: the tree, the YAML reader/writer, the override parser and
 * the schema. config_load() is built from these; tests and fuzzers call them
 * directly. Every function that returns a struct cnode * gives the caller a
 * tree it owns (cnode_free()); pos.file strings are borrowed from whoever
 * passed them in and must outlive the tree. */

#include <time.h>

/* A new node; key is copied (may be NULL). Caller owns; cnode_free(). */
struct cnode *cnode_new(enum cnode_type type, const char *key, struct cnode_pos pos);
void cnode_free(struct cnode *n);
/* Appends child (consumed; give it a key when parent is a map). */
void cnode_append(struct cnode *parent, struct cnode *child);
/* Deep copy (key and pos.file pointer included). Caller owns. */
struct cnode *cnode_clone(const struct cnode *n);
/* Same type, value, keys and order (floats: NaN equals NaN; -0.0 != 0.0).
 * Positions and the original text of typed scalars are ignored. */
int cnode_equal(const struct cnode *a, const struct cnode *b);
/* Child of a map by key, or NULL. Borrowed. */
struct cnode *cnode_map_get(const struct cnode *map, const char *key);
/* The node at a dotted key below root, or NULL. Borrowed. */
struct cnode *cnode_lookup(const struct cnode *root, const char *dotted);
/* Merges src into dst (both maps): maps merge recursively, everything else
 * (scalars, lists) replaces. src is not modified; dst gets copies. */
void cnode_merge(struct cnode *dst, const struct cnode *src);
/* "file:line:col", or just file when line is 0 (overrides, defaults). */
void cnode_pos_format(const struct cnode_pos *pos, struct strbuf *sb);
/* A scalar as YAML prints it (strings unquoted, floats as .inf/.nan/1.0). */
void cnode_scalar_render(const struct cnode *n, struct strbuf *sb);

/* Parses YAML 1.2 (core schema typing of plain scalars) into a tree whose
 * root is a map (an empty document gives an empty map). file names the
 * buffer in positions and messages, and is borrowed by every node.
 * Anchors, aliases, tags other than !!str, multiple documents, non-scalar
 * keys, duplicate keys and NUL characters are errors. Returns 0, or -1 with
 * "file:line:col: problem" in err. */
int config_parse_yaml_buffer(const char *buf, size_t len, const char *file, struct cnode **out,
			     struct strbuf *err);
/* Renders any tree as block YAML that config_parse_yaml_buffer() reads back
 * to an equal tree (strings that are not valid UTF-8 are the exception: their
 * bad bytes come back as U+0080..U+00FF). */
void cnode_to_yaml(const struct cnode *n, struct strbuf *out);

enum config_override_op {
	CONFIG_OVERRIDE_SET,	/* key=v   */
	CONFIG_OVERRIDE_ADD,	/* +key=v  */
	CONFIG_OVERRIDE_FORCE,	/* ++key=v */
	CONFIG_OVERRIDE_DELETE, /* ~key or ~key=v */
};

/* One parsed command-line override. The caller decides whether key names a
 * config group (a directory under conf/) or a config key. */
struct config_override {
	enum config_override_op op;
	char *key;	     /* owned: "a.b" or "profiling/ncu" */
	char *package;	     /* owned: text after '@', or NULL */
	struct cnode *value; /* owned; NULL for "~key" without a value */
};
#define CONFIG_OVERRIDE_INIT                                                                       \
	{                                                                                          \
		CONFIG_OVERRIDE_SET, NULL, NULL, NULL                                              \
	}

/* Parses text (grammar in docs/configuration.md); value nodes get
 * pos.file = origin (borrowed). Returns 0, or -1 with a message in err. */
int config_override_parse(const char *text, const char *origin, struct config_override *out,
			  struct strbuf *err);
void config_override_release(struct config_override *o);

/* Resolves ${a.b} and ${now:FORMAT} everywhere below root, in place. now is
 * the time ${now:...} formats (in UTC). Returns 0 or -1 with err. */
int config_resolve(struct cnode *root, time_t now, struct strbuf *err);

/* Like config_load() at a fixed time, for tests. */
int config_load_at(struct config **out, const char *conf_dir, size_t n_overrides,
		   const char *const *overrides, time_t now, struct strbuf *err);

/* The schema (schema.c). */
enum config_type {
	CONFIG_STR,
	CONFIG_INT,
	CONFIG_FLOAT,
	CONFIG_BOOL,
	CONFIG_ENUM,
	CONFIG_STRLIST,
	CONFIG_OPEN_MAP, /* a map whose content is not checked */
};

enum config_key_flags {
	CONFIG_NULLABLE = (1 << 0),
	CONFIG_HAS_MIN = (1 << 1),
	CONFIG_HAS_MAX = (1 << 2),
	CONFIG_MIN_EXCLUSIVE = (1 << 3),
	CONFIG_REQUIRED = (1 << 4), /* no default: the config files must set it */
	CONFIG_NONEMPTY = (1 << 5), /* a string that cannot be "" */
	CONFIG_NO_CTRL = (1 << 6),  /* a string without control characters (a path) */
};

/* The C type of the field a row fills (config/typed.h lists them). */
enum config_ctype {
	CONFIG_C_NONE,		/* the row fills no field */
	CONFIG_C_STR,		/* const char * (str, str?) */
	CONFIG_C_INT,		/* int64_t */
	CONFIG_C_INT_OR_NULL,	/* const int64_t * (int?) */
	CONFIG_C_FLOAT,		/* double */
	CONFIG_C_FLOAT_OR_NULL, /* const double * (float?) */
	CONFIG_C_BOOL,		/* int */
	CONFIG_C_ENUM,		/* a C enum (int-sized): the index in values */
	CONFIG_C_STRLIST,	/* struct config_strlist (list[str], list[str]?) */
	CONFIG_C_TREE,		/* const struct cnode * (map) */
};

struct config_key {
	const char *key; /* full dotted key */
	enum config_type type;
	unsigned flags;
	const char *def; /* default as YAML text ("30", "null", "[a, b]"); NULL if required */
	const char *const *values; /* CONFIG_ENUM: the names, NULL-terminated (run_mode_names) */
	double min, max;	   /* with CONFIG_HAS_MIN / CONFIG_HAS_MAX */
	const char *help;
	size_t offset;		 /* of the field in struct llmprof_config */
	enum config_ctype ctype; /* CONFIG_C_NONE: no field */
	size_t nr_values;	 /* CONFIG_ENUM: the C enum's value count (RUN_MODE_NR) */
};

/* The built-in table, sorted as SCHEMA.md lists it. Static; do not free. */
const struct config_key *config_schema(size_t *n);
/* "int", "float?", "enum(deep|light)", "list[str]?" ... into sb. */
void config_key_type_format(const struct config_key *k, struct strbuf *sb);
/* An enum key's values as "deep|light" into sb. */
void config_key_values_format(const struct config_key *k, struct strbuf *sb);
/* "[1, 100000]", "(0, 1]", ">= 0", or nothing, into sb. */
void config_key_range_format(const struct config_key *k, struct strbuf *sb);
/* Adds every key of the table that root lacks (parents must be maps or
 * absent) with its default; positions say "default". */
void config_schema_fill_defaults(struct cnode *root, const struct config_key *keys, size_t n);
/* Checks root against the table: unknown keys (with a suggestion), missing
 * required keys, types, enums and ranges. Converts ints to floats for float
 * keys and scalars to strings for str and list[str] keys. 0 or -1 with err. */
int config_schema_validate(struct cnode *root, const struct config_key *keys, size_t n,
			   struct strbuf *err);
/* Fills the struct at out (struct llmprof_config for the built-in table)
 * from a validated root: each row with a ctype writes its field at
 * out + offset. An absent or null value gives NULL (0 for non-nullable
 * types). Strings and numbers point into root, which must outlive out; list
 * arrays are allocated: release them with config_schema_unbind(). */
void config_schema_bind(const struct cnode *root, const struct config_key *keys, size_t n,
			void *out);
void config_schema_unbind(const struct config_key *keys, size_t n, void *out);
/* Orders every map's keys as the table lists them (keys the table does not
 * know keep their order, after the known ones), so output reads like the docs. */
void config_schema_sort(struct cnode *root, const struct config_key *keys, size_t n);
/* Appends "; did you mean 'x'?" when a key of the table or of root is close
 * to key (edit distance over the full key and over its last segment). */
void config_suggest_key(const char *key, const struct cnode *root, const struct config_key *keys,
			size_t n, struct strbuf *sb);

#endif
