/* internal.h: helpers shared by the files of src/config/ only. */
#ifndef LLMPROF_CONFIG_INTERNAL_H
#define LLMPROF_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config/config.h"

/* A loaded configuration: the tree, the typed struct filled from it, and
 * the strings its positions point to. */
struct config {
	struct cnode *root;
	struct llmprof_config typed; /* points into root */
	char **pool;		     /* file names and override texts that positions point to */
	size_t pool_nr, pool_alloc;
};

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
