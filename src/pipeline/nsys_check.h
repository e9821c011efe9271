/* nsys_check.h: what a finished nsys step means (nsight/nsys_diag.h): a
 * `nsys profile` that left no report is a failure nsys is to blame for,
 * and nsys's known failure texts explain a failed export or stats step.
 * The one place a child's struct proc_result becomes the nsys diagnosis's
 * struct nsys_profile_outcome. Internal to pipeline/. */
#ifndef LLMPROF_PIPELINE_NSYS_CHECK_H
#define LLMPROF_PIPELINE_NSYS_CHECK_H

#include "core/proc.h"
#include "core/strbuf.h"
#include "nsight/nsys_diag.h"
#include "bundle/write.h"
#include "pipeline/plan.h"
#include "bundle/status.h"

/* Fills o's process part from res and argv (o's texts and report counts
 * are left as they are). */
void nsys_outcome_from_result(struct nsys_profile_outcome *o, const struct proc_result *res,
			      const char *const *argv);

/* After `nsys profile` (step s): a run that left no report is a failure,
 * explained by the nsys diagnosis (gate never opened, importer missing,
 * ...), appended to d. Sets *tool_fault when nsys, not the program, is to
 * blame (then *state becomes STEP_FAILED). */
void nsys_check_profile(const struct run_bundle *b, const struct plan_step *s,
			const struct proc_result *res, enum step_state *state, int *tool_fault,
			struct strbuf *d);

/* After nsys export/stats: nsys's known failure texts explain a failure;
 * an empty kernel summary is said to be one (stats). Appended to d. */
void nsys_check_step(const struct run_bundle *b, const struct plan_step *s, enum step_state state,
		     int stats, struct strbuf *d);

#endif
