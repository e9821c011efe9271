/* nsys_config.c: see nsys_config.h. */
#include <string.h>

#include "core/xalloc.h"
#include "nsight/nsys_config.h"
#include "core/banned.h"

int nsys_options_from_config(const struct config *cfg, struct nsys_options *o, const char ***extra,
			     struct strbuf *err)
{
	static const char *const dummy_argv[] = {"program"};
	struct nsys_options check;
	size_t n = config_list_len(cfg, "pipeline.nsys.extra_args");

	memset(o, 0, sizeof(*o));
	*extra = NULL;
	o->nsys = config_get_string(cfg, "pipeline.nsys.path");
	o->trace = config_get_string(cfg, "pipeline.nsys.trace");
	o->sample = config_get_string(cfg, "pipeline.nsys.sample");
	o->capture_range = config_get_string(cfg, "pipeline.nsys.capture_range");
	o->capture_range_end = config_get_string(cfg, "pipeline.nsys.capture_range_end");
	o->nvtx_capture = config_get_string(cfg, "pipeline.nsys.nvtx_capture");
	o->gating_nvtx = config_get_bool(cfg, "pipeline.nsys.gating_nvtx", 0);
	o->cuda_graph_trace = config_get_string(cfg, "pipeline.nsys.cuda_graph_trace");
	if (n) {
		*extra = xcalloc(n, sizeof(**extra));
		for (size_t i = 0; i < n; i++)
			(*extra)[i] = config_list_item(cfg, "pipeline.nsys.extra_args", i);
	}
	o->extra_args = *extra;
	o->n_extra = n;
	/* validate the configured values now, with a stand-in output and program */
	check = *o;
	check.output_base = "nsys/run";
	check.target_argv = dummy_argv;
	check.target_argc = 1;
	if (nsys_options_check(&check, err)) {
		FREE_AND_NULL(*extra);
		o->extra_args = NULL;
		return -1;
	}
	return 0;
}
