/* nsys_config.c: see nsys_config.h. */
#include <string.h>

#include "core/xalloc.h"
#include "nsight/nsys_config.h"
#include "core/banned.h"

int nsys_options_from_config(const struct config *cfg, struct nsys_options *o, const char ***extra,
			     struct strbuf *err)
{
	static const char *const dummy_argv[] = {"program"};
	const struct config_nsys *c = &config_typed(cfg)->pipeline.nsys;
	struct nsys_options check;
	size_t n = c->extra_args.nr;

	memset(o, 0, sizeof(*o));
	*extra = NULL;
	o->nsys = c->path;
	o->trace = c->trace;
	o->sample = c->sample;
	o->capture_range = nsys_capture_range_names[c->capture_range];
	o->capture_range_end = c->capture_range_end;
	o->nvtx_capture = c->nvtx_capture;
	o->gating_nvtx = c->gating_nvtx;
	o->cuda_graph_trace = nsys_cuda_graph_trace_names[c->cuda_graph_trace];
	if (n) {
		/* a copy the caller owns, as nsys_config.h promises */
		*extra = xcalloc(n, sizeof(**extra));
		for (size_t i = 0; i < n; i++)
			(*extra)[i] = c->extra_args.v[i];
	}
	o->extra_args = *extra;
	o->n_extra = n;
	/* validate the configured values now, with a stand-in output and program */
	check = *o;
	check.output_base = "stand-in";
	check.target_argv = dummy_argv;
	check.target_argc = 1;
	if (nsys_options_check(&check, err)) {
		FREE_AND_NULL(*extra);
		o->extra_args = NULL;
		return -1;
	}
	return 0;
}
