/* ncu_argv.h: the exact ncu command lines llmprof runs, as pure functions
 * from plain option structs to argv arrays (never a shell string).
 *
 * Capture emission order (seed-system.md 2.4, extended): --target-processes,
 * --set, --replay-mode, --metrics, --section..., -o, --nvtx,
 * --nvtx-include..., --nvtx-exclude..., --filter-mode, --kernel-name-base,
 * --kernel-name | --kernel-id, --launch-skip-before-match, --launch-skip,
 * --launch-count, --clock-control,
 * --cache-control, --force-overwrite, then the program and its arguments.
 * Environment additions: LC_ALL=C (stable number format). --print-units base
 * belongs to the import (ncu_import_argv), not to the capture.
 *
 * Ownership: struct ncu_cmd owns argv/env strings and arrays; free with
 * ncu_cmd_release(). struct ncu_options only borrows. */
#ifndef LLMPROF_NCU_ARGV_H
#define LLMPROF_NCU_ARGV_H

#include <stddef.h>

#include "core/strbuf.h"

/* Mirrors pipeline.ncu.ncu_cli (SCHEMA.md); NULL / -1 = not set. */
struct ncu_options {
	const char *ncu;		 /* executable; "ncu" when NULL */
	const char *target_processes;	 /* all | application-only */
	const char *replay_mode;	 /* kernel | application | range | app-range */
	int nvtx;			 /* --nvtx even without include/exclude */
	const char *const *nvtx_include; /* ncu syntax already (see nvtx_filter.h) */
	size_t nr_nvtx_include;
	const char *const *nvtx_exclude;
	size_t nr_nvtx_exclude;
	const char *set;
	const char *const *sections;
	size_t nr_sections;
	const char *const *metrics;
	size_t nr_metrics;
	const char *kernel_name;	    /* exact, or "regex:<pattern>" */
	const char *kernel_name_base;	    /* function | demangled | mangled */
	const char *kernel_id;		    /* context:stream:[regex:]name:invocation */
	const char *filter_mode;	    /* global | per-gpu | per-launch-config */
	long long launch_skip_before_match; /* >= 0, or -1: counts every launch */
	long long launch_skip;		    /* >= 0, or -1 */
	long long launch_count;		    /* >= 1, or -1 */
	const char *clock_control;	    /* none | base */
	const char *cache_control;	    /* all | none */
	int force_overwrite;
	const char *output;	    /* -o base path (ncu adds .ncu-rep) */
	const char *const *program; /* the workload argv */
	size_t nr_program;
};
#define NCU_OPTIONS_INIT                                                                           \
	{                                                                                          \
		.launch_skip_before_match = -1, .launch_skip = -1, .launch_count = -1              \
	}

struct ncu_cmd {
	char **argv; /* NULL-terminated */
	size_t argc;
	char **env; /* "NAME=value" additions, NULL-terminated */
	size_t nenv;
};
#define NCU_CMD_INIT                                                                               \
	{                                                                                          \
		NULL, 0, NULL, 0                                                                   \
	}

/* Builds the capture command. 0, or -1 with err naming the bad option
 * (unknown enum value, launch_count < 1, kernel_name and kernel_id both
 * set, empty regex, no output, no program, a program starting with '-'). */
int ncu_capture_argv(const struct ncu_options *o, struct ncu_cmd *cmd, struct strbuf *err);
/* ncu --import REP --csv --page PAGE --print-units base */
void ncu_import_argv(const char *ncu, const char *rep, const char *page, struct ncu_cmd *cmd);
/* ncu --import REP --csv --page raw --print-units base --print-kernel-base
 * BASE --metrics gpu__time_duration.sum: every result's name as BASE
 * (function | demangled | mangled) spells it, with the same IDs as the full
 * raw page, in a page small enough to read at once. */
void ncu_import_names_argv(const char *ncu, const char *rep, const char *base, struct ncu_cmd *cmd);
/* ncu --help */
void ncu_help_argv(const char *ncu, struct ncu_cmd *cmd);
/* 1 when `ncu --help` text offers --filter-mode per-launch-config: one ncu
 * run can then measure the first launches of every selected kernel and
 * configuration (ncu 2024.1.1 and 2025.3.1 have it). */
int ncu_help_has_per_launch_config(const char *text, size_t len);
/* ncu --import REP --page details [--section S]... : the human-readable
 * per-kernel section tables for ncu/sections_report.txt (ncu's own units). */
void ncu_sections_report_argv(const char *ncu, const char *rep, const char *const *sections,
			      size_t nr_sections, struct ncu_cmd *cmd);
/* ncu --list-sections */
void ncu_list_sections_argv(const char *ncu, struct ncu_cmd *cmd);
/* ncu --query-metrics: the base metric names of the GPU ncu finds (needs
 * the driver; without a GPU it fails) */
void ncu_query_metrics_argv(const char *ncu, struct ncu_cmd *cmd);
void ncu_cmd_release(struct ncu_cmd *cmd);
/* Appends argv as one line, shell-quoted where needed (for cmd.txt and
 * --dry-run; never executed through a shell). */
void ncu_cmd_format(const struct ncu_cmd *cmd, struct strbuf *out);

/* `ncu --list-sections` output -> section identifiers (owned array of
 * owned strings in *ids). */
void ncu_sections_parse(const char *text, size_t len, char ***ids, size_t *n);
/* `ncu --query-metrics` output -> base metric names. */
void ncu_metrics_parse(const char *text, size_t len, char ***names, size_t *n);
void ncu_names_free(char **names, size_t n);
/* Tensor-pipe op counters (sm__ops_path_tensor_*, sm__pipe_tensor_*, ...)
 * are named per GPU generation: sm__ops_path_tensor_src_fp16 exists on an
 * H100 (gh100) but not on an A100 (ga100) or an RTX 4090 (ad102). The
 * presets ask for them; a GPU without one loses that FLOP path, not the run.
 * 1 for such a metric. */
int ncu_metric_optional(const char *m);

/* Removes from m[0..n) the optional metrics not in the offered list,
 * naming them in dropped ("a, b"). Returns how many are kept (m[kept] is
 * then NULL). */
size_t ncu_drop_unoffered_optional(const char **m, size_t n, char **metrics, size_t nmetrics,
				   struct strbuf *dropped);

/* Checks requested sections and metrics against what the GPU offers; -1
 * with err naming every unknown one (and the closest known name). A metric
 * is known when its name, or a prefix of it cut at a '.', is a base name
 * ("sm__throughput.avg.pct_of_peak_sustained_elapsed" -> "sm__throughput"). */
int ncu_check_requested(const struct ncu_options *o, char **sections, size_t nsections,
			char **metrics, size_t nmetrics, struct strbuf *err);

#endif
