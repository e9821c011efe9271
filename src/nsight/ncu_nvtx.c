/* ncu_nvtx.c: configured NVTX includes vs the trace; see ncu_nvtx.h. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_nvtx.h"
#include "nsight/nvtx_filter.h"
#include "core/banned.h"

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int ncu_nvtx_check(const char *const *include, size_t n, const struct ncu_seen_range *seen,
		   size_t nseen, char ***out, struct strbuf *err)
{
	struct nvtx_seen *s = xcalloc(nseen + 1, sizeof(*s));
	char **exprs = xcalloc(n + 1, sizeof(*exprs));
	int ret = 0;

	for (size_t i = 0; i < nseen; i++) {
		s[i].domain = seen[i].domain && seen[i].domain[0] ? seen[i].domain : NULL;
		s[i].name = seen[i].name;
		s[i].style = seen[i].startend ? NCU_NVTX_STARTEND : NCU_NVTX_PUSHPOP;
	}
	for (size_t i = 0; i < n; i++) {
		struct nvtx_spec spec = {NULL, NULL};
		struct strbuf e = STRBUF_INIT, why = STRBUF_INIT;
		const char *x = include[i];
		size_t len = strlen(x);

		/* a user name of a range the trace saw: that range's ncu syntax */
		if (!starts_with(x, "regex:") && len && x[len - 1] != '/' &&
		    !nvtx_spec_parse(x, &spec, &why)) {
			for (size_t k = 0; k < nseen; k++)
				if (same(spec.domain, s[k].domain) && same(spec.range, s[k].name)) {
					nvtx_ncu_expr(&spec, s[k].style, &e);
					break;
				}
		}
		nvtx_spec_release(&spec);
		if (!e.len)
			strbuf_addstr(&e, x);
		exprs[i] = strbuf_detach(&e, NULL);
		strbuf_reset(&why);
		if (nvtx_ncu_expr_matches(exprs[i], s, nseen, &why) != 1)
			ret = -1;
		strbuf_release(&why);
	}
	if (ret) {
		error_set(err, "pipeline.ncu.ncu_cli.nvtx.include matches no range of the trace, "
			       "so ncu would profile nothing: ");
		nvtx_diagnose((const char *const *)exprs, n, s, nseen, err);
		ncu_nvtx_exprs_free(exprs, n);
		exprs = NULL;
	}
	*out = exprs;
	free(s);
	return ret;
}

void ncu_nvtx_exprs_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
