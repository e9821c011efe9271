/* analytic_cfg.h: the analytic FLOP/byte file (docs/workloads.md) for a
 * program that is not the built-in LLM, computed from the model preset and
 * infer.* keys of the config with the built-in LLM's own formulas
 * (workloads/llm_analytic.c). It is only as right as those keys: they must
 * describe what the program ran (shape, prompt length, new tokens, batch,
 * dtype). */
#ifndef LLMPROF_ANALYTIC_CFG_H
#define LLMPROF_ANALYTIC_CFG_H

#include "config/config.h"
#include "core/strbuf.h"

/* 1 when cfg names a model shape for a command workload (workload.kind=
 * command and model.name is not "auto"). */
int analytic_cfg_applies(const struct config *cfg);

/* The analytic JSON for cfg, appended to out. 0, or -1 with err (a model
 * shape the formulas cannot take). */
int analytic_cfg_json(const struct config *cfg, struct strbuf *out, struct strbuf *err);

#endif
