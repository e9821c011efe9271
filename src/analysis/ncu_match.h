/* ncu_match.h: Nsight Compute results matched to the trace's kernel
 * launches, so that every result either joins or says why not.
 *
 * The rules, in order (docs/ncu.md, "The counter join"):
 *   1. launch index: ncu/measured.json names the trace launch a result
 *      measured ("results": [{"id", "pid", "launch_index"}]);
 *   2. mangled name (ncu/mangled.csv, attached by ncu_attach_mangled())
 *      equal to the trace kernel's, and the same grid and block;
 *   3. the demangled name equal, or else the normalised name equal
 *      (trace/kname.h's kname_key()), and the same grid and block.
 * A result that none of them joins gets a reason; one that several trace
 * kernels fit equally is not joined (ambiguous), never guessed.
 *
 * Ownership: ncu_match_results() fills a caller-owned array whose reasons
 * it allocates (ncu_matches_release()); struct launch and the table are
 * borrowed. */
#ifndef LLMPROF_ANALYSIS_NCU_MATCH_H
#define LLMPROF_ANALYSIS_NCU_MATCH_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/ncu_kernel.h"
#include "analysis/select.h"
#include "core/strbuf.h"

/* Reads ncu's CSV of the same report with mangled names ("Kernel Name" of
 * `--print-kernel-base mangled`, same "ID" and "Process ID") from buf and
 * sets t's mangled names: the k-th row of a (Process ID, ID) pair to the
 * k-th result with that pair, when their grid and block (if the file has
 * them) agree. *attached = how many. 0, or -1 with err (not an ncu raw
 * page). */
int ncu_attach_mangled(struct ncu_kernel_table *t, const char *buf, size_t len, const char *shown,
		       size_t *attached, struct strbuf *err);

/* A result whose trace launch is known (ncu/measured.json). */
struct ncu_launch_hint {
	long long id, pid; /* pid -1: any process */
	size_t launch_index;
};
/* The hints in a parsed ncu/measured.json ("results" entries with an
 * integer "id" and "launch_index"; others are ignored). Returns how many,
 * *out owned by the caller (free()), NULL when none. */
size_t ncu_hints_from_json(json_t *measured, struct ncu_launch_hint **out);

enum ncu_match_how {
	NCU_MATCH_NONE = 0,   /* not joined: reason says why */
	NCU_MATCH_RANGE,      /* a range-replay result: a region, not a kernel */
	NCU_MATCH_LAUNCH,     /* by measured.json's launch_index */
	NCU_MATCH_MANGLED,    /* by mangled name, grid and block */
	NCU_MATCH_NAME,	      /* by demangled name, grid and block */
	NCU_MATCH_NORMALISED, /* by normalised name, grid and block */
};

struct ncu_match {
	enum ncu_match_how how;
	size_t launch; /* the joined launch (for a name rule: the kernel's first launch
			  in the stage, else its first); SIZE_MAX when not joined */
	char *reason;  /* when not joined */
};

/* Matches t's results to the launches l[0..n) (the trace's kernels in
 * launch order: select.h's launch_index order), using hints h[0..nh).
 * out has t->nr elements. */
void ncu_match_results(const struct ncu_kernel_table *t, const struct launch *l, size_t n,
		       const struct ncu_launch_hint *h, size_t nh, struct ncu_match *out);
void ncu_matches_release(struct ncu_match *m, size_t n);

/* "launch index", "mangled name", "name", "normalised name", "range",
 * "unmatched". */
const char *ncu_match_how_name(enum ncu_match_how how);

#endif
