/* selection_json.h: ncu/selection.json, what the select step chose
 * (analysis/select.h) and the one ncu pass planned over it
 * (analysis/select_pass.h); analysis/model_build.c reads it back for the
 * reports. docs/run-bundle.md describes the file. */
#ifndef LLMPROF_REPORT_SELECTION_JSON_H
#define LLMPROF_REPORT_SELECTION_JSON_H

#include "analysis/select.h"
#include "analysis/select_pass.h"
#include "core/strbuf.h"

/* Appends the file's text: the selection, o's patterns and name base, and
 * with pass (may be NULL) its "ncu_pass" object. */
void selection_json(const struct selection *sel, const struct select_opts *o,
		    const struct select_pass *pass, struct strbuf *out);

#endif
