/* analytic.h: model FLOPs and bytes for MFU/MBU from the built-in LLM's
 * analytic file (schema "llmprof-llm-analytic/1", written next to the trace
 * by the workload: workloads/llm_analytic.c), into the report model.
 *
 * Fills, for the first stage of each role, stage->flops and stage->bytes from
 * the file's "prefill" and "decode" totals (decode = every decode step), and
 * the m->llm fields that are still unset (name, shape, params, dtype, batch,
 * prompt_len, new_tokens). Stages absent from the model are not created. */
#ifndef LLMPROF_ANALYTIC_H
#define LLMPROF_ANALYTIC_H

#include <stddef.h>

#include "core/strbuf.h"
#include "model/model.h"

/* buf holds len bytes of JSON; what names it in errors. 0, or -1 with err
 * ("what:line:col: ..." for syntax, "what: ..." for content). */
int analytic_load_buffer(struct report_model *m, const char *buf, size_t len, const char *what,
			 struct strbuf *err);
int analytic_load_file(struct report_model *m, const char *path, struct strbuf *err);

#endif
