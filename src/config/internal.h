/* internal.h: helpers shared by the files of src/config/, and by the tests
 * of the tree; nothing else includes it. */
#ifndef LLMPROF_CONFIG_INTERNAL_H
#define LLMPROF_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config/config.h"

/* A loaded configuration: the tree, the typed struct filled from it, and
 * the strings its positions point to. */
struct config {
	struct cnode *root;
	struct llmprof_config typed; /* points into root */
	char **pool;		     /* file names and override texts that positions point to */
	size_t pool_nr, pool_alloc;
};

/* String-keyed getters: for config/ itself and for the tests of the tree.
 * Code outside config/ reads config_typed() (a misspelled key here is only
 * found at run time, and a fallback would restate the schema's default);
 * tests/cli/test-config-typed-use.sh fails when a .c file outside
 * src/config/ calls one. A missing key or a null value yields the given
 * fallback (NULL for strings). Calling a getter of the wrong type on a
 * schema key is a bug (BUG()). */
const char *config_get_string(const struct config *cfg, const char *key);
int64_t config_get_int(const struct config *cfg, const char *key, int64_t fallback);
double config_get_double(const struct config *cfg, const char *key, double fallback);
int config_get_bool(const struct config *cfg, const char *key, int fallback);
/* Number of items of a list key (0 when missing/null) and item i as a string
 * (scalars are rendered as YAML would print them). */
size_t config_list_len(const struct config *cfg, const char *key);
const char *config_list_item(const struct config *cfg, const char *key, size_t i);

/* ${now:FORMAT}: appends the UTC time now formatted by the fmt_len bytes at
 * fmt (strftime). -1 with err saying why: an empty format, one over 255
 * bytes, a result over 511 bytes or none at all. now.c. */
int config_format_now(const char *fmt, size_t fmt_len, time_t now, struct strbuf *out,
		      struct strbuf *err);

/* Deeper trees are rejected by the parsers, so recursion stays bounded. */
#define CONFIG_MAX_DEPTH 64

/* Frees n's value (children, string) but keeps key and pos. */
void cnode_clear_value(struct cnode *n);
/* Replaces dst's value and pos by a copy of src's; dst keeps its key. */
void cnode_assign(struct cnode *dst, const struct cnode *src);
/* Removes and frees map[key]; -1 when absent. */
int cnode_map_remove(struct cnode *map, const char *key);
/* Types a plain scalar by the YAML 1.2 core schema and stores it in n
 * (keeping the text in n->s). -1 with err for an integer that does not fit
 * in 64 bits or a NUL byte. */
int cnode_set_plain(struct cnode *n, const char *s, size_t len, struct strbuf *err);
/* Whether a plain scalar with this text would read back as a string. */
int cnode_plain_is_string(const char *s, size_t len);
void cnode_set_string(struct cnode *n, const char *s, size_t len);
/* A list or map in flow style: [a, "b c"], {k: v}. */
void cnode_flow_render(const struct cnode *n, struct strbuf *sb);
/* Length of the valid UTF-8 sequence at s (max len bytes) and its code
 * point, or 0 when the bytes there are not valid UTF-8. */
size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp);

#endif
