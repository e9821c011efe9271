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

/* The one-pass plan: ONE ncu run measures every selected class, in one of
 * two forms, whichever asks ncu for fewer results (SELECT_PASS_AUTO; a run
 * of its own for a class counted as SELECT_PASS_RUN_RESULTS results):
 *
 * per-launch-config:
 *   --filter-mode per-launch-config --kernel-name-base B
 *   --kernel-name regex:^(n1|n2|...)$ --launch-skip-before-match S
 *   --launch-count C
 * ncu then counts launches separately per kernel name AND launch
 * configuration (measured on the H100, docs/validation/ncu-one-pass-h100.md)
 * after skipping the first S launches of the process (all kernels): S is
 * the trace index of the stage's first launch, and C the smallest count
 * that reaches every selected class's first launch in its configuration's
 * sequence from S. It measures the first C launches from S of EVERY
 * configuration of the selected names: a configuration with one class is
 * measured C times, and classes that C capped at max_count cannot reach
 * are left to a run of their own (unreached[], indices into sel->k).
 *
 * window (ncu's default global filter mode):
 *   --kernel-name-base B --kernel-name regex:^(n1|n2|...)$
 *   --launch-skip K --launch-count C
 * ncu counts the launches of the selected names from the start of the
 * process, skips K and measures the next C: the shortest run of the
 * selected names' launches inside the stage that holds a launch of every
 * selected class (a transformer's layers repeat one set of classes, so
 * about one layer and what follows the last layer). Each class is measured
 * once unless it launches twice inside that run; launches of the same
 * names that belong to no selected class are measured too (other_classes).
 *
 * Every launch ncu is to measure follows from the trace (expect[], in
 * launch order), so each result maps to one trace launch. It assumes that
 * ncu and the trace count the same launches in the same order (one
 * process). */
enum select_pass_mode { SELECT_PASS_AUTO = 0, SELECT_PASS_PER_CONFIG, SELECT_PASS_WINDOW };

/* One launch the pass is to measure. */
struct select_expect {
	size_t launch_index; /* into the trace's launches */
	char *name;	     /* in the pass's base */
	char *display;	     /* its short name, for people (ncu prints name) */
	int grid[3], block[3];
};

struct select_pass {
	int window;		      /* 1: the window form; 0: per-launch-config */
	size_t skip_before;	      /* S: --launch-skip-before-match (per-launch-config) */
	size_t skip;		      /* K: --launch-skip (window) */
	size_t count;		      /* C: --launch-count (per name and configuration) */
	char *kernel_name;	      /* "regex:^(...)$" of the selected names in base */
	struct select_expect *expect; /* what ncu is to measure, in launch order */
	size_t nexpect;
	size_t *unreached; /* indices into sel->k */
	size_t nunreached;
	/* what expect[] holds: launches of a selected class not measured
	 * before in this pass, launches of a class measured before (repeats),
	 * and distinct classes of the selected names that were not selected */
	size_t selected_measured, repeats, other_classes;
	size_t other_form_expect; /* launches the form not taken expects; 0: not planned */
};
#define SELECT_PASS_INIT                                                                           \
	{                                                                                          \
		0                                                                                  \
	}
/* At most this many launches per name and configuration in one pass: a
 * class whose first launch lies further in gets a run of its own. */
#define SELECT_PASS_MAX_COUNT 4

/* What a run of its own costs, counted in results: a class per-launch-config
 * cannot reach (unreached[]) gets an ncu run of its own, which starts the
 * program again and waits for that class's launch. On an H200 that wait was
 * 28-34 s on a transformers Llama against about 1.2 s a result with the
 * default collection (bench/results/ncu-deep-time-h200-run3.md), so auto takes
 * the window only while it asks for fewer results than per-launch-config
 * plus this many for each class left to a run of its own. A window across a
 * whole stage (classes that first appear far apart, as when the PyTorch
 * module ranges go off part of the way through decode) can otherwise ask
 * for hundreds of results in place of a few runs. */
#define SELECT_PASS_RUN_RESULTS 25

/* 0 with *p (owned; select_pass_release), or -1 with err (an empty
 * selection, max_count 0, a selected launch outside the stage). AUTO takes
 * per-launch-config (measured on the H100 first) unless the window asks
 * for fewer results, each class per-launch-config leaves to a run of its
 * own counted as SELECT_PASS_RUN_RESULTS results; never the window when more than one launch per
 * kernel was asked for (pipeline.ncu.ncu_cli.launch_count: only per-launch-config honours it). */
int select_plan_pass(const struct launch *l, size_t n, const struct selection *sel,
		     enum select_name_base base, size_t max_count, enum select_pass_mode mode,
		     struct select_pass *p, struct strbuf *err);
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
