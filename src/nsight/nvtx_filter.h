/* nvtx_filter.h: one stage name, each tool's NVTX filter syntax, and a
 * checker that says whether a filter matches the ranges a trace saw.
 *
 * Users name a range once, as "RANGE" (default domain) or "DOMAIN@RANGE"
 * (the config default "LLM@decode_all"). The tools disagree:
 *   ncu  --nvtx-include: push/pop "DOMAIN@RANGE/" (default domain "RANGE/"),
 *        start/end "DOMAIN@RANGE" (no slash); names escape @ , [ ] / * + \
 *        with '\'; nested push/pop levels are "A/B", "A/+/B" etc.
 *   nsys --nvtx-capture: "RANGE@DOMAIN", default domain "RANGE".
 * docs/ncu.md has the full table.
 *
 * Ownership: every char * in these structs is owned by the struct and freed
 * by its _release(); struct nvtx_seen is borrowed from the caller. */
#ifndef LLMPROF_NVTX_FILTER_H
#define LLMPROF_NVTX_FILTER_H

#include <stddef.h>

#include "core/strbuf.h"
#include "trace/ncu_csv.h" /* enum ncu_nvtx_style */

struct nvtx_spec {
	char *domain; /* NULL = the default domain */
	char *range;
};

/* Parses a user name "RANGE" or "DOMAIN@RANGE" ('\@' is a literal '@').
 * Also accepts ncu's own forms "DOMAIN@RANGE/" and "RANGE/". 0 or -1. */
int nvtx_spec_parse(const char *user, struct nvtx_spec *spec, struct strbuf *err);
void nvtx_spec_release(struct nvtx_spec *spec);

/* Appends ncu's --nvtx-include expression for spec. */
void nvtx_ncu_expr(const struct nvtx_spec *spec, enum ncu_nvtx_style style, struct strbuf *out);
/* Appends nsys's --nvtx-capture value for spec; -1 with err when a name
 * holds '@', which nsys cannot express. */
int nvtx_nsys_capture(const struct nvtx_spec *spec, struct strbuf *out, struct strbuf *err);

/* A range the trace saw. domain NULL = default domain. */
struct nvtx_seen {
	const char *domain;
	const char *name;
	enum ncu_nvtx_style style;
};

/* Whether ncu expression expr (one --nvtx-include value, with or without
 * "regex:") names ranges that all exist in seen, in the right domain and
 * style. 1 matches, 0 does not (why says what is missing), -1 when expr is
 * malformed (why says how). Nesting order is not checked: seen is flat. */
int nvtx_ncu_expr_matches(const char *expr, const struct nvtx_seen *seen, size_t n,
			  struct strbuf *why);

/* For a user name or ncu expression that matched nothing, appends the ncu
 * expression that would match the most similar seen range (same name in
 * another domain or style first, then the closest name), or nothing. */
void nvtx_ncu_suggest(const char *expr, const struct nvtx_seen *seen, size_t n, struct strbuf *out);

/* The diagnosis for "No kernels were profiled" / "No ranges were
 * profiled": each include expression, whether it matches, the ranges that
 * exist, and the expression that would match. Appends to out. */
void nvtx_diagnose(const char *const *exprs, size_t nexprs, const struct nvtx_seen *seen, size_t n,
		   struct strbuf *out);

#endif
