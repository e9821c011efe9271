/* ncu_config.c: pipeline.ncu.* -> struct ncu_options; see ncu_config.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_config.h"
#include "core/banned.h"

/* A list key as ncu_options wants it: NULL when empty or null. */
static const char *const *list(const struct config_strlist *l, size_t *n)
{
	*n = l->nr;
	return l->nr ? l->v : NULL;
}

void ncu_options_from_config(const struct config_ncu_cli *c, struct ncu_options *o)
{
	o->target_processes = ncu_target_processes_names[c->target_processes];
	o->replay_mode = ncu_replay_mode_names[c->replay_mode];
	o->nvtx_include = list(&c->nvtx.include, &o->nr_nvtx_include);
	o->nvtx_exclude = list(&c->nvtx.exclude, &o->nr_nvtx_exclude);
	o->set = c->set;
	o->sections = list(&c->sections, &o->nr_sections);
	o->metrics = list(&c->metrics, &o->nr_metrics);
	o->kernel_name = c->kernel_name;
	o->kernel_name_base = ncu_kernel_name_base_names[c->kernel_name_base];
	o->kernel_id = c->kernel_id;
	o->launch_skip = c->launch_skip ? *c->launch_skip : -1;
	o->launch_count = c->launch_count ? *c->launch_count : -1;
	o->clock_control = ncu_clock_control_names[c->clock_control];
	o->cache_control = ncu_cache_control_names[c->cache_control];
	o->force_overwrite = c->force_overwrite;
}

int ncu_options_range(const struct ncu_options *o)
{
	return o->replay_mode &&
	       (!strcmp(o->replay_mode, "range") || !strcmp(o->replay_mode, "app-range"));
}

int ncu_options_explicit(const struct ncu_options *o)
{
	return o->kernel_name || o->kernel_id || o->launch_skip >= 0 || ncu_options_range(o);
}

void ncu_options_light(struct ncu_options *o)
{
	static const char *const light[] = {"SpeedOfLight", "Occupancy"};

	o->set = NULL;
	o->sections = light;
	o->nr_sections = ARRAY_SIZE(light);
}

void ncu_options_for_kernel(struct ncu_options *o, const char *kernel_name, const char *base,
			    long long skip, long long count)
{
	o->nvtx = 0;
	o->nvtx_include = o->nvtx_exclude = NULL;
	o->nr_nvtx_include = o->nr_nvtx_exclude = 0;
	o->kernel_id = NULL;
	o->kernel_name = kernel_name;
	o->kernel_name_base = base;
	o->launch_skip = skip;
	o->launch_count = count;
}

void ncu_options_for_pass(struct ncu_options *o, const char *kernel_name, const char *base,
			  long long skip_before, long long count)
{
	ncu_options_for_kernel(o, kernel_name, base, -1, count);
	o->filter_mode = "per-launch-config";
	o->launch_skip_before_match = skip_before;
}

/* Capture i's report in the bundle ("ncu/k0.ncu-rep"; i may be "<i>"),
 * appended to rep, and its path in run_dir without the extension (what
 * ncu's --export is given), appended to base. */
static void capture_paths(const char *run_dir, const char *i, struct strbuf *rep,
			  struct strbuf *base)
{
	struct strbuf stem = STRBUF_INIT;
	size_t start = rep->len;
	const char *slash, *dot;

	bundle_art_fill(rep, BA_NCU_CAPTURE, i);
	slash = strrchr(rep->buf + start, '/');
	dot = strrchr(slash ? slash : rep->buf + start, '.');
	strbuf_add(&stem, rep->buf + start,
		   dot ? (size_t)(dot - rep->buf - start) : rep->len - start);
	path_join(base, run_dir, stem.buf);
	strbuf_release(&stem);
}

int ncu_plan_describe(const struct ncu_options *o, enum run_mode mode, const char *run_dir,
		      struct strbuf *out, struct strbuf *err)
{
	struct ncu_options t = *o;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf path = STRBUF_INIT, rep = STRBUF_INIT;
	int light = mode == RUN_MODE_LIGHT, ret;

	if (light)
		ncu_options_light(&t);
	if (ncu_options_explicit(o)) {
		capture_paths(run_dir, "0", &rep, &path);
		strbuf_addf(out,
			    "one ncu run with the configured filters "
			    "(pipeline.ncu.ncu_cli) -> %s, %s:\n    ",
			    rep.buf, bundle_art(BA_NCU_RAW));
	} else {
		capture_paths(run_dir, "0", &rep, &path);
		strbuf_addf(out,
			    "one ncu run over the kernels select picks (%s; %s ncu_pass): a "
			    "window of their launches, as below, or --filter-mode "
			    "per-launch-config --launch-skip-before-match, whichever asks "
			    "for fewer results (one run per kernel where ncu lacks the "
			    "latter) -> %s, %s, %s:\n    ",
			    light ? "run.mode=light: at most 5, SpeedOfLight + Occupancy"
				  : "until run.coverage, at most run.top_n_kernels",
			    bundle_art(BA_NCU_SELECTION), rep.buf, bundle_art(BA_NCU_RAW),
			    bundle_art(BA_NCU_MEASURED));
		ncu_options_for_kernel(&t, "<regex:^(names of the selected kernels)$>",
				       o->kernel_name_base, 0, 1);
	}
	t.output = path.buf;
	t.force_overwrite = 1;
	ret = ncu_capture_argv(&t, &cmd, err);
	if (!ret && (t.nr_sections || t.nr_metrics)) {
		/* the check cmd-profile runs before the first capture */
		strbuf_addf(out, "once, before any capture: %s --list-sections -> %s",
			    t.ncu ? t.ncu : "ncu", bundle_art(BA_NCU_SECTIONS));
		if (t.nr_metrics)
			strbuf_addf(out, ", %s --query-metrics -> %s", t.ncu ? t.ncu : "ncu",
				    bundle_art(BA_NCU_METRICS));
		strbuf_addstr(out, "; a requested section or metric this GPU lacks fails the step "
				   "there\n    ");
	}
	if (!ret) {
		struct strbuf line = STRBUF_INIT;
		const char *p;

		ncu_cmd_format(&cmd, &line);
		/* skip and count come from the plan */
		p = ncu_options_explicit(o) ? NULL
					    : strstr(line.buf, "--launch-skip 0 --launch-count 1 ");
		if (p) {
			strbuf_add(out, line.buf, (size_t)(p - line.buf));
			strbuf_addstr(out, "--launch-skip '<K>' --launch-count '<C>' ");
			strbuf_addstr(out, p + strlen("--launch-skip 0 --launch-count 1 "));
		} else {
			strbuf_addstr(out, line.buf);
		}
		strbuf_addf(out,
			    "\n    then: ncu --import <rep> --csv --page raw --print-units "
			    "base, merged into %s",
			    bundle_art(BA_NCU_RAW));
		strbuf_release(&line);
	}
	ncu_cmd_release(&cmd);
	strbuf_release(&path);
	strbuf_release(&rep);
	return ret;
}
