/* select_pass.h: the one Nsight Compute pass over a whole selection
 * (analysis/select.h chooses the kernels), and the map from its results back
 * to the trace's launches.
 *
 * Ownership: struct select_pass owns everything in it; select_pass_release().
 * The launches and the selection passed in are borrowed. */
#ifndef LLMPROF_SELECT_PASS_H
#define LLMPROF_SELECT_PASS_H

#include <stddef.h>

#include "analysis/select.h"
#include "core/strbuf.h"

/* The one-pass plan: ONE ncu run measures every selected class, with
 *   --filter-mode per-launch-config --kernel-name-base B
 *   --kernel-name regex:^(n1|n2|...)$ --launch-skip-before-match S
 *   --launch-count C
 * ncu then counts launches separately per kernel name AND launch
 * configuration (measured on the H100, docs/validation/ncu-one-pass-h100.md)
 * after skipping the first S launches of the process (all kernels): S is
 * the trace index of the stage's first launch, and C the smallest count
 * that reaches every selected class's first launch in its configuration's
 * sequence from S. Every launch ncu is to measure follows from the trace:
 * the first C launches from S of each configuration of the selected names
 * (expect[], in launch order), so each result maps to one trace launch.
 * Classes that C capped at max_count cannot reach are left to a run of
 * their own (unreached[], indices into sel->k). It assumes that ncu and the
 * trace count the same launches in the same order (one process). */
/* One launch the pass is to measure. */
struct select_expect {
	size_t launch_index; /* into the trace's launches */
	char *name;	     /* in the pass's base */
	char *display;	     /* its short name, for people (ncu prints name) */
	int grid[3], block[3];
};

struct select_pass {
	size_t skip_before;	      /* S: --launch-skip-before-match */
	size_t count;		      /* C: --launch-count, per name and configuration */
	char *kernel_name;	      /* "regex:^(...)$" of the selected names in base */
	struct select_expect *expect; /* what ncu is to measure, in launch order */
	size_t nexpect;
	size_t *unreached; /* indices into sel->k */
	size_t nunreached;
};
#define SELECT_PASS_INIT                                                                           \
	{                                                                                          \
		0                                                                                  \
	}
/* At most this many launches per name and configuration in one pass: a
 * class whose first launch lies further in gets a run of its own. */
#define SELECT_PASS_MAX_COUNT 4

/* 0 with *p (owned; select_pass_release), or -1 with err (an empty
 * selection, max_count 0, a selected launch outside the stage). */
int select_plan_pass(const struct launch *l, size_t n, const struct selection *sel,
		     enum select_name_base base, size_t max_count, struct select_pass *p,
		     struct strbuf *err);
void select_pass_release(struct select_pass *p);
/* One result as ncu names it (in the pass's base) and launches it. */
struct select_result_key {
	const char *name;
	int grid[3], block[3];
};
/* Maps results (in ncu's ID order) to the trace launches they measured:
 * each result takes the earliest expected launch of its name and
 * configuration not yet taken. out[i] = a launch index, or SIZE_MAX for a
 * result the plan did not expect (reported, never guessed). Returns how
 * many mapped. */
size_t select_pass_map(const struct select_pass *p, const struct select_result_key *r, size_t nr,
		       size_t *out);

#endif
