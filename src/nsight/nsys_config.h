/* nsys_config.h: fills struct nsys_options (nsight/nsys.h) from the resolved
 * config's pipeline.nsys.* keys, so the builders themselves stay free of the
 * config module.
 *
 * Ownership: the strings in *o are borrowed from cfg; *extra (the
 * pipeline.nsys.extra_args array that o->extra_args points to) is owned by
 * the caller and released with free(). */
#ifndef LLMPROF_VENDOR_NSYS_CONFIG_H
#define LLMPROF_VENDOR_NSYS_CONFIG_H

#include "config/config.h"
#include "nsight/nsys.h"

/* Sets nsys (pipeline.nsys.path as configured, NULL = search), trace,
 * sample, capture_range, capture_range_end, nvtx_capture, gating_nvtx,
 * cuda_graph_trace and extra_args; leaves output_base, split, known ranges
 * and the target to the caller. 0, or -1 with err when a value is invalid
 * (nsys_options_check's messages, without the output/target checks). */
int nsys_options_from_config(const struct config *cfg, struct nsys_options *o, const char ***extra,
			     struct strbuf *err);

#endif
