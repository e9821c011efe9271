/* fuzz-overrides.c: libFuzzer target for the whole override path of
 * `llmprof profile KEY=VALUE ...`: the grammar (a.b=v, +a.b=v, ~a.b,
 * group=option, group@pkg=option, flow lists), group files looked up under
 * conf/, interpolation, schema validation with its "did you mean" hint,
 * and config_to_yaml of the result.
 *
 * The input is split at newlines into up to 16 overrides, loaded against
 * the project's real conf/ (LLMPROF_SOURCE_DIR/conf).
 *
 *   scripts/fuzz.sh 60 overrides
 *
 * Properties besides memory safety: a rejected set of overrides always says
 * why in one line (no newline in the message), and an accepted one writes
 * YAML that parses back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OVERRIDES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *conf = LLMPROF_SOURCE_DIR "/conf";
	struct strbuf err = STRBUF_INIT, y = STRBUF_INIT;
	char *text = xmalloc(size + 1), *p;
	const char *ov[MAX_OVERRIDES];
	size_t n = 0;
	struct config *cfg = NULL;

	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; n < MAX_OVERRIDES;) {
		char *nl = memchr(p, '\n', (size_t)(text + size - p));

		ov[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (config_load_at(&cfg, conf, n, ov, 1700000000, &err)) {
		if (!err.len || memchr(err.buf, '\n', err.len))
			abort();
	} else {
		struct cnode *back = NULL;

		config_to_yaml(cfg, &y);
		strbuf_reset(&err);
		if (config_parse_yaml_buffer(y.buf, y.len, "rt", &back, &err)) {
			fprintf(stderr, "config_to_yaml wrote unparsable YAML: %s\n--\n%s\n",
				err.buf, y.buf);
			abort();
		}
		cnode_free(back);
		config_free(cfg);
	}
	free(text);
	strbuf_release(&err);
	strbuf_release(&y);
	return 0;
}
