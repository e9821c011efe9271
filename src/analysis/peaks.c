/* peaks.c: config overrides + calibration + datasheet -> m->peaks. */
#include <math.h>

#include "analysis/calibration.h"
#include "analysis/peaks.h"
#include "core/banned.h"

/* v: the key's value, NULL when null. NaN (".nan") reads as unset too. */
static struct rnum positive_key(const double *v, const char *key, struct report_model *m)
{
	if (!v || isnan(*v))
		return RNUM_NONE;
	if (!(*v > 0) || !isfinite(*v)) {
		report_model_add_note(m, "%s = %g ignored: it must be a positive number", key, *v);
		return RNUM_NONE;
	}
	return rnum_of(*v);
}

void peaks_overrides_from_config(const struct config *cfg, struct hw_overrides *ov,
				 struct report_model *m)
{
	const struct config_hardware *h;

	ov->peak_tflops = ov->peak_gbs = ov->measured_tflops = ov->measured_gbs = RNUM_NONE;
	if (!cfg)
		return;
	h = &config_typed(cfg)->hardware;
	ov->peak_tflops = positive_key(h->peak_tflops, "hardware.peak_tflops", m);
	ov->peak_gbs = positive_key(h->peak_bandwidth_gbs, "hardware.peak_bandwidth_gbs", m);
	ov->measured_tflops = positive_key(h->measured_tflops, "hardware.measured_tflops", m);
	ov->measured_gbs =
	    positive_key(h->measured_bandwidth_gbs, "hardware.measured_bandwidth_gbs", m);
}

void peaks_load(struct report_model *m, const struct config *cfg, double mem_bw_gbs)
{
	struct hw_overrides ov;
	struct calibration cal;
	struct strbuf err = STRBUF_INIT;
	int have = 0;

	peaks_overrides_from_config(cfg, &ov, m);
	if (m->env.gpu_name) {
		have = calibration_load(m->env.gpu_name, &cal, &err);
		if (have < 0) {
			report_model_add_note(m, "calibration not used: %s", err.buf);
			have = 0;
		}
	}
	hw_peaks_resolve(m, &ov, have ? &cal : NULL, mem_bw_gbs);
	if (have)
		calibration_release(&cal);
	strbuf_release(&err);
}
