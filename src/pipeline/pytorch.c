/* pytorch.c: the PyTorch startup module's mode and environment for a run;
 * see pytorch.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "config/config.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "nsight/tools.h"
#include "pipeline/pytorch.h"
#include "trace/pytorch_launch.h"
#include "core/banned.h"

void run_pytorch_choose(struct run_ctx *rc)
{
	struct run_params *p = &rc->params;
	const struct config_trace *c = &config_typed(rc->cfg)->pipeline.trace;
	const char *asked = trace_pytorch_names[c->pytorch];
	struct strbuf why = STRBUF_INIT, err = STRBUF_INIT, lib = STRBUF_INIT;
	int command =
	    p->pp.workload_kind == WORKLOAD_KIND_COMMAND && p->program_argv && p->program_argv[0];
	int python;
	enum trace_pytorch m;
	char *dir;

	p->pytorch = TRACE_PYTORCH_NONE;
	p->pytorch_depth = c->pytorch_depth;
	p->pytorch_shapes = c->pytorch_shapes;
	p->pytorch_budget_pct = c->pytorch_budget_pct;
	FREE_AND_NULL(p->pytorch_dir);
	/* the built-in workloads are C; without a trace no range is recorded */
	if (!command || p->pp.trace == PLAN_TRACE_OFF || c->pytorch == TRACE_PYTORCH_NONE)
		return;
	python = pytorch_is_python(p->program_argv, getenv("PATH"), &why);
	m = pytorch_resolve(c->pytorch, python);
	if (m == TRACE_PYTORCH_NONE) /* auto, and not Python: nothing to say */
		goto out;
	dir = tool_pytorch_dir(&err);
	if (!dir) {
		strbuf_addf(&p->trace_reason, "; pipeline.trace.pytorch=%s: no PyTorch ranges (%s)",
			    asked, err.buf);
		if (!p->pp.dry_run)
			run_warning(rc, "no PyTorch module ranges: %s", err.buf);
		goto out;
	}
	/* absolute: the program may change its directory before it imports */
	p->pytorch_dir = realpath(dir, NULL);
	if (!p->pytorch_dir)
		p->pytorch_dir = xstrdup(dir);
	free(dir);
	p->pytorch = m;
	if (m == TRACE_PYTORCH_AUTO)
		strbuf_addf(&p->trace_reason,
			    "; pipeline.trace.pytorch=auto: modules, off above an estimated "
			    "%g %% slowdown",
			    p->pytorch_budget_pct);
	else
		strbuf_addf(&p->trace_reason, "; pipeline.trace.pytorch=%s: %s", asked,
			    trace_pytorch_names[m]);
	if (why.len)
		strbuf_addf(&p->trace_reason, " (%s)", why.buf);
	path_join(&lib, p->pytorch_dir, PYTORCH_NVTX_LIB_NAME);
	if (access(lib.buf, R_OK))
		strbuf_addf(&p->trace_reason,
			    ", in NVTX's default domain (no %s: built only with the CUDA "
			    "toolkit)",
			    PYTORCH_NVTX_LIB_NAME);
out:
	p->pp.trace_reason = p->trace_reason.buf;
	strbuf_release(&why);
	strbuf_release(&err);
	strbuf_release(&lib);
}

void run_pytorch_env(struct run_params *p, const char *run_dir)
{
	struct strbuf log = STRBUF_INIT, lib = STRBUF_INIT;
	struct pytorch_env_opts o;

	pytorch_env_free(p->pytorch_env);
	p->pp.pytorch_env = NULL;
	if (p->pytorch == TRACE_PYTORCH_NONE || !p->pytorch_dir)
		return;
	path_join(&log, run_dir, bundle_art(BA_LOG_PYTORCH));
	path_join(&lib, p->pytorch_dir, PYTORCH_NVTX_LIB_NAME);
	memset(&o, 0, sizeof(o));
	o.mode = p->pytorch;
	o.dir = p->pytorch_dir;
	o.lib = access(lib.buf, R_OK) ? NULL : lib.buf;
	o.log = log.buf;
	o.depth = p->pytorch_depth;
	o.shapes = p->pytorch_shapes;
	o.budget_pct = p->pytorch_budget_pct;
	o.user_pythonpath = getenv("PYTHONPATH");
	pytorch_env_build(p->pytorch_env, &o);
	p->pp.pytorch_env = (const char *const *)p->pytorch_env;
	strbuf_release(&log);
	strbuf_release(&lib);
}
