/* fuzz-nvtx-filter.c: libFuzzer target for the NVTX filter translation
 * (src/nsight/nvtx_filter.c): a user's stage name -> ncu --nvtx-include and
 * nsys --nvtx-capture syntax, the checker that says whether an ncu
 * expression matches the ranges a trace saw, the suggestion and the
 * diagnosis.
 *
 * Input: line 1 is the user's name or an ncu expression; every further
 * line is a range the trace saw, "DOMAIN<TAB>NAME" (push/pop), with a
 * third field "s" for start/end, or just "NAME" (default domain).
 *
 *   scripts/fuzz.sh 60 nvtx-filter
 *
 * Properties besides memory safety: the ncu expression written for a
 * parsed name matches that very range (so profile's check before the
 * expensive pass cannot reject what llmprof itself wrote); a malformed
 * expression or an unmatched one always says why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "nsight/nvtx_filter.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEN 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1), *p, *first;
	struct nvtx_seen seen[MAX_SEEN];
	size_t n = 0;
	struct nvtx_spec spec = {NULL, NULL};
	struct strbuf err = STRBUF_INIT, expr = STRBUF_INIT, why = STRBUF_INIT;
	int rc;

	memcpy(text, data, size);
	text[size] = '\0';
	first = text;
	p = strchr(text, '\n');
	if (p)
		*p++ = '\0';
	while (p && *p && n < MAX_SEEN) {
		char *nl = strchr(p, '\n'), *t1, *t2;

		if (nl)
			*nl = '\0';
		t1 = strchr(p, '\t');
		seen[n].style = NCU_NVTX_PUSHPOP;
		if (t1) {
			*t1++ = '\0';
			seen[n].domain = p;
			seen[n].name = t1;
			t2 = strchr(t1, '\t');
			if (t2) {
				*t2++ = '\0';
				if (*t2 == 's')
					seen[n].style = NCU_NVTX_STARTEND;
			}
		} else {
			seen[n].domain = NULL;
			seen[n].name = p;
		}
		n++;
		p = nl ? nl + 1 : NULL;
	}

	if (!nvtx_spec_parse(first, &spec, &err)) {
		for (int style = NCU_NVTX_PUSHPOP; style <= NCU_NVTX_STARTEND; style++) {
			struct nvtx_seen self = {spec.domain, spec.range,
						 (enum ncu_nvtx_style)style};

			strbuf_reset(&expr);
			strbuf_reset(&why);
			nvtx_ncu_expr(&spec, (enum ncu_nvtx_style)style, &expr);
			rc = nvtx_ncu_expr_matches(expr.buf, &self, 1, &why);
			if (rc != 1) {
				fprintf(stderr, "'%s' -> ncu '%s' does not match itself (%d): %s\n",
					first, expr.buf, rc, why.buf);
				abort();
			}
		}
		strbuf_reset(&expr);
		strbuf_reset(&err);
		if (nvtx_nsys_capture(&spec, &expr, &err) && !err.len)
			abort();
		nvtx_spec_release(&spec);
	} else if (!err.len) {
		abort();
	}

	strbuf_reset(&why);
	rc = nvtx_ncu_expr_matches(first, seen, n, &why);
	if (rc != 1 && !why.len)
		abort(); /* a miss or a malformed expression always says why */
	strbuf_reset(&expr);
	nvtx_ncu_suggest(first, seen, n, &expr);
	strbuf_reset(&expr);
	{
		const char *exprs[2] = {first, "LLM@decode_all/"};
		nvtx_diagnose(exprs, 2, seen, n, &expr);
	}
	free(text);
	strbuf_release(&err);
	strbuf_release(&expr);
	strbuf_release(&why);
	return 0;
}
