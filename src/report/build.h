/* build.h: report_build(), the model built (analysis/model_build.h) and
 * every report written from it (report_write_all()) in one call, for
 * profile's reports step. A caller that already holds a built model (the
 * join step's) renders it with report_write_all() and builds nothing again,
 * as `llmprof report` does. This header also brings in the model builder's
 * API for the callers that used to find it here. */
#ifndef LLMPROF_REPORT_BUILD_H
#define LLMPROF_REPORT_BUILD_H

#include "analysis/model_build.h"
#include "core/strbuf.h"

/* report_build_model() then report_write_all() into o->out_dir. 0, or -1
 * with err (cannot write, broken bundle metadata). */
int report_build(const struct report_build_opts *o, struct report_build_result *res,
		 struct strbuf *err);

#endif
