/* fuzz-config.c: libFuzzer target for the YAML reader, the YAML writer, the
 * interpolation resolver and the override parser.
 *
 *   clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -Ibuild/gen \
 *     -DLLMPROF_SOURCE_DIR='"."'  tests/fuzz/fuzz-config.c src/config/[a-z]*.c \
 *     src/core/[a-z]*.c -lyaml -lm -o build/fuzz-config
 *   build/fuzz-config -dict=tests/fuzz/fuzz-config.dict -max_len=4096
 *
 * Properties checked besides memory safety: whatever parses writes back as
 * YAML that parses to an equal tree, and so does every override value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/strbuf.h"
#include "core/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const struct cnode *tree)
{
	struct strbuf y = STRBUF_INIT, err = STRBUF_INIT;
	struct cnode *back = NULL;

	cnode_to_yaml(tree, &y);
	if (config_parse_yaml_buffer(y.buf, y.len, "rt", &back, &err) || !cnode_equal(tree, back)) {
		fprintf(stderr, "round trip failed: %s\n--\n%s\n", err.buf, y.buf);
		abort();
	}
	cnode_free(back);
	strbuf_release(&y);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct cnode *tree = NULL;
	struct config_override o = CONFIG_OVERRIDE_INIT;
	char *text;

	if (!config_parse_yaml_buffer((const char *)data, size, "fuzz", &tree, &err)) {
		check_roundtrip(tree);
		strbuf_reset(&err);
		if (!config_resolve(tree, 0, &err))
			check_roundtrip(tree);
		cnode_free(tree);
	}
	strbuf_reset(&err);

	text = xstrndup((const char *)data, size); /* up to the first NUL */
	if (!config_override_parse(text, "fuzz", &o, &err)) {
		if (o.value) {
			struct cnode_pos pos = {"fuzz", 0, 0};
			struct cnode *root = cnode_new(CNODE_MAP, NULL, pos);

			o.value->key = xstrdup(o.key);
			cnode_append(root, o.value);
			o.value = NULL;
			check_roundtrip(root);
			cnode_free(root);
		}
		config_override_release(&o);
	}
	free(text);
	strbuf_release(&err);
	return 0;
}
