/* select.h: which kernels of a stage get hardware counters (deep mode).
 *
 * Input: every kernel launch of the run in launch order, each flagged with
 * whether it was launched inside the chosen stage. Output: the distinct
 * kernels (name + grid + block) of the stage by GPU time, taken until
 * run.coverage of the stage's GPU time or run.top_n_kernels, and for each
 * the exact ncu selection of one launch of it:
 *   --kernel-name-base B --kernel-name regex:^<escaped name>$
 *   --launch-skip N --launch-count C
 * where N counts the earlier launches that match the same -k filter: ncu
 * counts only launches that pass every filter, so -k by name (whatever the
 * launch configuration), and with an NVTX include only launches inside the
 * range (o->nvtx_gated). The alternative --kernel-id ::regex:^name$:I uses
 * I = N + 1 (1-based invocation). docs/ncu.md, "Kernel selection", has the
 * algorithm and the caveats.
 *
 * A candidate is a class of launches: one kernel (name + grid + block) in
 * one operator range (the innermost NVTX range under the step, e.g.
 * "attn.o" vs "mlp.down"): a GEMV serving two projections of different
 * shapes under one launch configuration is two candidates, each measured on
 * its own launch. Without operator ranges a kernel and configuration is one
 * class.
 *
 * Classes of one kernel and launch configuration whose mean launch
 * durations lie within o->merge_tolerance of a selected class's are the
 * same work under another operator (gate_proj and up_proj, a kernel before
 * and after the module ranges went off): the selected class stands for
 * them (its same[]), their time counts as covered, and the launch
 * measured is the earliest in the stage of the group, so a pass that
 * counts launches per configuration reaches it first. A class without an
 * operator whose mean lies between those of two or more operator classes
 * of its kernel and configuration is their mixture (the ranges went off):
 * it takes them and is the same work of the nearest.
 *
 * Include/exclude patterns are POSIX EREs on the demangled name; exclude
 * wins. Collectives (a name containing "nccl", any case) are never selected
 * for kernel replay (they wait on other ranks and hang under replay).
 *
 * The one ncu pass over a selection is select_pass.h; ncu/selection.json,
 * the selection as the bundle keeps it, is written by report/selection_json.h.
 *
 * Ownership: struct selection owns everything in it; selection_release().
 * struct launch strings are borrowed. */
#ifndef LLMPROF_SELECT_H
#define LLMPROF_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

struct launch {
	const char *name;	/* demangled */
	const char *short_name; /* function name; NULL = derived from name */
	const char *mangled;	/* mangled name; NULL when the trace has none */
	int grid[3], block[3];
	int64_t start, end; /* GPU ns */
	int in_stage;
	int device;
	const char *op; /* innermost operator range's name; NULL: none */
};

/* What ncu's --kernel-name-base the selection's filters use. MANGLED is
 * exact: the demangled text differs between demanglers (the tracer's C++
 * runtime writes "__nv_bfloat16*", ncu "__nv_bfloat16 *"), so a demangled
 * regex built from the trace can match nothing under ncu (seen on the H100,
 * docs/validation/profile-h100.md). */
enum select_name_base { SELECT_BASE_DEMANGLED = 0, SELECT_BASE_FUNCTION, SELECT_BASE_MANGLED };

/* The most exact base the launches allow: MANGLED when every launch has a
 * mangled name, else `fallback`. */
enum select_name_base select_best_base(const struct launch *l, size_t n,
				       enum select_name_base fallback);
/* l's name as ncu's --kernel-name-base base spells it (tmp may hold it). */
const char *select_launch_name(const struct launch *l, enum select_name_base base,
			       struct strbuf *tmp);
/* "demangled", "function" or "mangled", as ncu spells it. */
const char *select_base_name(enum select_name_base base);

struct select_opts {
	double coverage;	    /* (0, 1] */
	size_t top_n;		    /* >= 1 */
	const char *const *include; /* NULL/0: every kernel */
	size_t nr_include;
	const char *const *exclude;
	size_t nr_exclude;
	unsigned launch_count; /* launches measured per kernel (>= 1) */
	int nvtx_gated;	       /* the ncu run also has the stage's --nvtx-include */
	enum select_name_base base;
	/* classes of a selected kernel and configuration within this
	 * fraction of its mean duration are measured by it; 0: never */
	double merge_tolerance;
};
#define SELECT_OPTS_INIT                                                                           \
	{                                                                                          \
		0.95, 30, NULL, 0, NULL, 0, 1, 0, SELECT_BASE_DEMANGLED, 0                         \
	}

/* A class a selected kernel measures for (the same kernel, configuration
 * and, within the tolerance, duration under another operator). */
struct select_same_work {
	char *op; /* NULL: no operator */
	size_t calls;
	double total_ns;
	size_t first; /* its first launch in the stage */
};

struct selected_kernel {
	char *name, *short_name;
	char *op; /* the operator range it serves (a class); NULL: none */
	int grid[3], block[3];
	int device;
	size_t calls;		       /* in the stage */
	double total_ns;	       /* in the stage */
	double share;		       /* total_ns / stage GPU time */
	size_t launch_index;	       /* the launch measured (index into the input) */
	size_t launch_skip;	       /* --launch-skip */
	size_t launch_count;	       /* --launch-count */
	char *kernel_name;	       /* --kernel-name value, "regex:^...$" */
	char *kernel_id;	       /* --kernel-id value */
	struct select_same_work *same; /* classes it stands for (calls and */
	size_t nr_same, alloc_same;    /* total_ns above are its own only) */
};

struct selection {
	struct selected_kernel *k;
	size_t nr, alloc;
	size_t stage_launches, distinct;
	double stage_ns, covered_ns, coverage; /* coverage = covered / stage */
	double target_coverage;
	size_t top_n;
	size_t merged;			       /* classes measured by another's result */
	double merged_ns;		       /* their time, in covered_ns */
	size_t nccl_kernels, excluded_kernels; /* distinct kernels left out */
	double nccl_ns, excluded_ns;
	char *stop_reason; /* "coverage reached", "top_n reached", "no more kernels" */
};
#define SELECTION_INIT                                                                             \
	{                                                                                          \
		0                                                                                  \
	}

/* Whether two operator ranges' names are one operator for a kernel's class:
 * equal, or equal but for the index of a repeated layer (a dot-separated
 * component of digits only: model.layers.3.mlp and model.layers.11.mlp).
 * NULL (no operator) equals only NULL. */
int select_same_op(const char *a, const char *b);

/* Whether two launches are one class: the same name, grid, block and
 * device, under one operator (select_same_op). */
int select_same_class(const struct launch *a, const struct launch *b);

/* Whether the class of launch l (in the stage) is k's own or one of its
 * same[]: what the counters of k's measured launch stand for. */
int select_kernel_covers(const struct selected_kernel *k, const struct launch *l);

/* 0, or -1 with err (bad regex, coverage outside (0,1], top_n 0, a
 * negative merge tolerance). */
int select_kernels(const struct launch *l, size_t n, const struct select_opts *o,
		   struct selection *sel, struct strbuf *err);
void selection_release(struct selection *sel);

/* Appends regex-escaped s (ERE and ECMAScript specials get a '\'). */
void select_regex_escape(struct strbuf *out, const char *s);

#endif
