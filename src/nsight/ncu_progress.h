/* ncu_progress.h: progress of a running ncu, read from its own output.
 *
 * ncu prints, per profiled result, on one line that grows while it runs:
 *   ==PROF== Profiling "add" - 3: 0%....50%....100% - 10 passes
 * (older versions omit " - 3"; long names end in "..."; a single pass
 * reads "- 1 pass"; the program's own output may land in the middle of the
 * line). Each '.' is 10 % of the result's replay passes. The pass count is
 * only printed at the end, so "pass j of m" uses the count of the previous
 * result (every result of one ncu run collects the same sections).
 *
 * Ownership: struct ncu_progress owns its line buffer; _release(). */
#ifndef LLMPROF_NCU_PROGRESS_H
#define LLMPROF_NCU_PROGRESS_H

#include <stddef.h>

#include "core/strbuf.h"

struct ncu_progress {
	long long done;		    /* results finished */
	long long current_id;	    /* ID of the result in progress, -1 if none */
	char name[160];		    /* its name as ncu prints it */
	int pct;		    /* 0..100 of its passes */
	int passes;		    /* passes per result, from the last finished one; 0 unknown */
	long long passes_total;	    /* of every finished result */
	int passes_min, passes_max; /* over them; 0 before the first */
	int in_progress;
	int no_kernels, no_ranges, errors;
	int connected;	    /* "==PROF== Connected to process": processes ncu profiles */
	char report[512];   /* from "==PROF== Report: PATH" */
	struct strbuf line; /* the unfinished line */
};

void ncu_progress_init(struct ncu_progress *p);
void ncu_progress_release(struct ncu_progress *p);
/* Feeds bytes of ncu's output in any chunking; returns 1 when the state
 * changed (the display should be redrawn). */
int ncu_progress_feed(struct ncu_progress *p, const char *buf, size_t len);
/* "ncu: kernel 3 of 12 \"add\": pass ~5 of 10 (50%), 12.3 s elapsed".
 * expected = 0 when the number of results is unknown; elapsed_s < 0 leaves
 * out ", ... s elapsed". */
void ncu_progress_format(const struct ncu_progress *p, size_t expected, double elapsed_s,
			 struct strbuf *out);

#endif
