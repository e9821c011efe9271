/* stage_suggest.h: when no NVTX range of a trace matched a stage, what the
 * trace has instead: its top-level NVTX ranges (how many, how long, what
 * nests inside each) and, where names and nesting say it, the KEY=VALUE
 * overrides that would map them to stages (docs/report.md, "When no stage
 * matched"). Range names some engines push at each step are recognised
 * (the table in stage_suggest.c names the source of each).
 *
 * Pure: reads the trace's ranges, writes text. */
#ifndef LLMPROF_STAGE_SUGGEST_H
#define LLMPROF_STAGE_SUGGEST_H

#include "core/strbuf.h"
#include "trace/trace.h"

/* Appends to list (Markdown, one sentence) the top-level ranges, and to
 * ov the overrides, shell-quoted and ready to paste ('stages.decode=[x]'
 * 'stages.decode_step=[y]'); ov stays empty when nothing can be guessed.
 * note gets why a name could not be offered (numbered names), if any. */
void stage_suggest(const struct trace *t, struct strbuf *list, struct strbuf *ov,
		   struct strbuf *note);

#endif
