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

/* Writes the analytic JSON for cfg to path. 0, or -1 with err. */
int analytic_cfg_write(const struct config *cfg, const char *path, struct strbuf *err);

#endif
