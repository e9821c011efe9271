/* fuzz-model-json.c: libFuzzer target for the transformers config.json
 * reader (pipeline/model_json.h).
 *
 * Properties checked besides memory safety: a config.json that parses has
 * a covered model_type, every size positive, the query heads a multiple of
 * the key/value heads, and its model.* overrides are all there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/strbuf.h"
#include "pipeline/model_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct hf_model m;
	int r = hf_model_parse(&m, (const char *)data, size, "fuzz/config.json", &err);

	if (r == 0) {
		char **ov = hf_model_overrides(&m, "fuzz");
		size_t n = 0;

		if (m.hidden <= 0 || m.inter <= 0 || m.layers <= 0 || m.heads <= 0 ||
		    m.kv_heads <= 0 || m.head_dim <= 0 || m.vocab <= 0 || m.max_pos <= 0 ||
		    m.heads % m.kv_heads || !(m.rope_theta > 0) || !(m.eps > 0) || !m.model_type[0])
			abort();
		while (ov[n])
			n++;
		if (n != HF_MODEL_NR_OVERRIDES)
			abort();
		hf_model_overrides_free(ov);
	} else if (!err.len) {
		abort(); /* a refusal always says why */
	}
	strbuf_release(&err);
	return 0;
}
