/* timeline_priv.h: what timeline.c and operators.c share, nothing else
 * includes it. */
#ifndef LLMPROF_ANALYSIS_TIMELINE_PRIV_H
#define LLMPROF_ANALYSIS_TIMELINE_PRIV_H

#include <stdint.h>

#include "analysis/nvtxproj.h"
#include "analysis/timeline.h"
#include "trace/trace.h"

/* Fills tl->ops, tl->kernel_op and the graph-kernel counts. stage_mask:
 * per range, nonzero for a stage range. tl->stages and tl->kernel_stages
 * must be set. */
void timeline_build_operators(struct timeline *tl, const struct trace *t, const struct nvtx_proj *p,
			      const uint8_t *stage_mask, const struct stage_config *cfg);

#endif
