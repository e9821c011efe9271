/* steps.h: the run functions of the step table (run.h, steps.c), one per
 * step the plan can hold. Internal to pipeline/. */
#ifndef LLMPROF_PIPELINE_STEPS_H
#define LLMPROF_PIPELINE_STEPS_H

#include "pipeline/run_ctx.h"

#define STEP_FN(name)                                                                              \
	void name(struct run_ctx *rc, const struct plan_step *s, size_t i, struct step_result *res)

STEP_FN(step_config);	   /* steps.c */
STEP_FN(step_provenance);  /* steps.c */
STEP_FN(step_workload);	   /* step_child.c */
STEP_FN(step_reference);   /* step_child.c */
STEP_FN(step_trace);	   /* step_trace.c */
STEP_FN(step_nsys_export); /* step_child.c */
STEP_FN(step_nsys_stats);  /* step_child.c */
STEP_FN(step_analyze);	   /* steps.c */
STEP_FN(step_select);	   /* step_select.c */
STEP_FN(step_ncu);	   /* step_ncu_run.c */
STEP_FN(step_join);	   /* step_join.c */
STEP_FN(step_reports);	   /* step_join.c */

#undef STEP_FN

/* The table, in the order the plan lists the steps (steps.c). */
extern const struct pipeline_step pipeline_steps[];
extern const size_t pipeline_nr_steps;
/* The table's entry for a plan step, or NULL. */
const struct pipeline_step *pipeline_step_find(const char *name);

#endif
