/* ncu_nvtx.h: checks a configured ncu run's --nvtx-include values against
 * the NVTX ranges the trace saw, before ncu re-runs the workload: an
 * include that matches nothing would make ncu profile nothing (kernel
 * replay) or every kernel (when the user expected gating), so it is refused
 * with nvtx_filter's diagnosis instead.
 *
 * The ranges are passed as plain arrays (not trace/nvtxlist.h's structs,
 * whose enum clashes with trace/ncu_csv.h's). Strings borrowed. */
#ifndef LLMPROF_NCU_NVTX_H
#define LLMPROF_NCU_NVTX_H

#include <stddef.h>

#include "core/strbuf.h"

struct ncu_seen_range {
	const char *domain; /* NULL or "" = default domain */
	const char *name;
	int startend; /* 1 = start/end range, 0 = push/pop */
};

/* Translates each include to ncu syntax where it is a user name
 * ("DOMAIN@RANGE" of a range the trace saw: push/pop gets the trailing
 * '/'), then checks every include. Fills out[i] (owned, free with
 * ncu_nvtx_exprs_free) and returns 0, or -1 with err holding the
 * diagnosis (which include matched nothing, the ranges that exist, the
 * expression that would match). */
int ncu_nvtx_check(const char *const *include, size_t n, const struct ncu_seen_range *seen,
		   size_t nseen, char ***out, struct strbuf *err);
void ncu_nvtx_exprs_free(char **v, size_t n);

#endif
