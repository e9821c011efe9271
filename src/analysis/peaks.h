/* peaks.h: the one call the pipeline makes to give the report its peaks:
 * overrides from the config (hardware.*), the stored calibration for the
 * device (analysis/calibration.h) and the datasheet table (analysis/hw.h).
 * Problems (bad override, unreadable calibration) become notes in
 * m->peaks.notes, never a failed report. */
#ifndef LLMPROF_PEAKS_H
#define LLMPROF_PEAKS_H

#include "analysis/hw.h"
#include "config/config.h"
#include "model/model.h"

/* Reads hardware.peak_tflops, hardware.peak_bandwidth_gbs,
 * hardware.measured_tflops and hardware.measured_bandwidth_gbs (null =
 * unset). A value that is not positive is ignored with a note in m. cfg may
 * be NULL (no overrides). */
void peaks_overrides_from_config(const struct config *cfg, struct hw_overrides *ov,
				 struct report_model *m);

/* Fills m->peaks for m->env's GPU: overrides from cfg (may be NULL), the
 * calibration stored for m->env.gpu_name (if any), the datasheet table.
 * mem_bw_gbs: the trace's TARGET_INFO_GPU bandwidth, or 0. */
void peaks_load(struct report_model *m, const struct config *cfg, double mem_bw_gbs);

#endif
