/* ncu_config.h: fills struct ncu_options (nsight/ncu_argv.h) from the
 * resolved config's pipeline.ncu.* keys, finds the ncu executable, and
 * says whether the user chose the kernels or ranges themselves.
 *
 * Ownership: strings and list arrays in *o are borrowed from the typed
 * config (config/typed.h) they were read from. */
#ifndef LLMPROF_VENDOR_NCU_CONFIG_H
#define LLMPROF_VENDOR_NCU_CONFIG_H

#include "config/typed.h"
#include "nsight/ncu_argv.h"

/* Sets every pipeline.ncu.ncu_cli key (set, sections, metrics, replay
 * mode, filters, clocks, caches, nvtx include/exclude as written); leaves
 * ncu, output and program to the caller. Never fails: ncu_capture_argv
 * validates. */
void ncu_options_from_config(const struct config_ncu_cli *c, struct ncu_options *o);

/* 1 when the user picked what ncu measures (kernel_name, kernel_id,
 * launch_skip or replay_mode range|app-range): then profile runs ncu once
 * with those filters instead of once per selected kernel. launch_count
 * alone is not: it is the launches measured per selected kernel. */
int ncu_options_explicit(const struct ncu_options *o);
/* 1 for replay_mode range or app-range. */
int ncu_options_range(const struct ncu_options *o);

/* run.mode=light: the reduced counter set (docs/ncu.md "Light mode"): no
 * --set, sections SpeedOfLight and Occupancy, the configured metrics. */
void ncu_options_light(struct ncu_options *o);

/* One selected kernel's run: -k kernel_name with --kernel-name-base base,
 * --launch-skip skip --launch-count count, and no NVTX filter (the
 * selection counts launches over the whole run, analysis/select.h). */
void ncu_options_for_kernel(struct ncu_options *o, const char *kernel_name, const char *base,
			    long long skip, long long count);

/* The one pass over every selected kernel (analysis/select.h): -k
 * kernel_name (an alternation) with --kernel-name-base base,
 * --filter-mode per-launch-config, --launch-skip-before-match skip_before
 * and --launch-count count per name and configuration; no NVTX filter. */
void ncu_options_for_pass(struct ncu_options *o, const char *kernel_name, const char *base,
			  long long skip_before, long long count);

/* The ncu step's --dry-run text: how many runs, then the shell-quoted argv
 * template, placeholders standing for what the select step decides. o has
 * ncu and program set. 0, or -1 with err (ncu_capture_argv's). */
int ncu_plan_describe(const struct ncu_options *o, enum run_mode mode, const char *run_dir,
		      struct strbuf *out, struct strbuf *err);

#endif
