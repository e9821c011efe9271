/* profile.h: the parts of `llmprof profile` that print, kept apart from
 * its argument handling (cmd-profile.c): the view of a running pipeline
 * (profile_view.c) and the --dry-run printout (profile_dryrun.c). */
#ifndef LLMPROF_CMD_PROFILE_H
#define LLMPROF_CMD_PROFILE_H

#include "pipeline/run.h"

/* The callbacks the pipeline reports through: live line, -v, ncu progress,
 * findings, log tails, warnings and errors, all on stderr. */
extern const struct pipeline_progress profile_view_progress;

/* -q (only errors, warnings and the final line) and -v (each child's
 * command line and each step's result); before the pipeline reports
 * anything. */
void profile_view_init(int quiet, int verbose);
/* Once the bundle exists: says where it is and the trace backend, and
 * starts the live line (off with -q and with echo, whose copied output
 * would tear it). */
void profile_view_start(const struct run_ctx *rc, int echo);
/* After the pipeline: the live line gone, the files a reader opens first. */
void profile_view_end(const struct run_ctx *rc);

/* --dry-run: prints the tools, the trace backend and the whole plan
 * (root: the artifacts root, the bundle shown as <root>/<run_id>), marks a
 * step that would fail and says so. The exit code the run would end with. */
int profile_dry_run(struct run_ctx *rc, const char *root);

#endif
