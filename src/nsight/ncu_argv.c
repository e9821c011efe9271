/* ncu_argv.c: ncu command lines; see ncu_argv.h. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "config/typed.h"
#include "core/error.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/ncu_argv.h"
#include "core/banned.h"

static void push(struct ncu_cmd *cmd, size_t *alloc, const char *s)
{
	ALLOC_GROW(cmd->argv, cmd->argc + 2, *alloc);
	cmd->argv[cmd->argc++] = xstrdup(s);
	cmd->argv[cmd->argc] = NULL;
}

static void push2(struct ncu_cmd *cmd, size_t *alloc, const char *flag, const char *val)
{
	push(cmd, alloc, flag);
	push(cmd, alloc, val);
}

static int one_of(const char *v, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(v, *allowed))
			return 1;
	return 0;
}

static int check_enum(const char *key, const char *v, const char *const *allowed,
		      struct strbuf *err)
{
	if (!v || one_of(v, allowed))
		return 0;
	error_set(err, "pipeline.ncu.ncu_cli.%s: '%s' is not one of", key, v);
	for (const char *const *a = allowed; *a; a++)
		strbuf_addf(err, "%s%s", a == allowed ? " " : "|", *a);
	return -1;
}

static int validate(const struct ncu_options *o, struct strbuf *err)
{
	/* the values the config schema allows (config/typed.h) */
	if (check_enum("target_processes", o->target_processes, ncu_target_processes_names, err) ||
	    check_enum("replay_mode", o->replay_mode, ncu_replay_mode_names, err) ||
	    check_enum("kernel_name_base", o->kernel_name_base, ncu_kernel_name_base_names, err) ||
	    check_enum("clock_control", o->clock_control, ncu_clock_control_names, err) ||
	    check_enum("cache_control", o->cache_control, ncu_cache_control_names, err))
		return -1;
	if (o->launch_skip < -1)
		return error_set(err, "pipeline.ncu.ncu_cli.launch_skip: %lld is below 0",
				 o->launch_skip);
	if (o->launch_skip_before_match < -1)
		return error_set(err, "--launch-skip-before-match: %lld is below 0",
				 o->launch_skip_before_match);
	if (o->filter_mode && strcmp(o->filter_mode, "global") &&
	    strcmp(o->filter_mode, "per-gpu") && strcmp(o->filter_mode, "per-launch-config"))
		return error_set(err,
				 "--filter-mode: '%s' is not one of "
				 "global|per-gpu|per-launch-config",
				 o->filter_mode);
	if (o->launch_count == 0 || o->launch_count < -1)
		return error_set(err, "pipeline.ncu.ncu_cli.launch_count: %lld is below 1",
				 o->launch_count);
	if (o->kernel_name && !o->kernel_name[0])
		return error_set(err, "pipeline.ncu.ncu_cli.kernel_name is empty");
	if (o->kernel_name && !strcmp(o->kernel_name, "regex:"))
		return error_set(err, "pipeline.ncu.ncu_cli.kernel_name: 'regex:' needs a pattern");
	if (o->kernel_name && o->kernel_id)
		return error_set(err, "pipeline.ncu.ncu_cli.kernel_name and kernel_id are "
				      "exclusive: ncu takes one kernel filter");
	for (size_t i = 0; i < o->nr_nvtx_include; i++)
		if (!o->nvtx_include[i] || !o->nvtx_include[i][0])
			return error_set(err, "pipeline.ncu.ncu_cli.nvtx.include[%zu] is empty", i);
	for (size_t i = 0; i < o->nr_nvtx_exclude; i++)
		if (!o->nvtx_exclude[i] || !o->nvtx_exclude[i][0])
			return error_set(err, "pipeline.ncu.ncu_cli.nvtx.exclude[%zu] is empty", i);
	if (!o->output || !o->output[0])
		return error_set(err, "ncu needs an output path (-o)");
	if (!o->nr_program || !o->program[0] || !o->program[0][0])
		return error_set(err, "ncu needs a program to profile");
	if (o->program[0][0] == '-')
		return error_set(err,
				 "the program '%s' starts with '-': ncu would read it as "
				 "an option",
				 o->program[0]);
	return 0;
}

/* ncu's text (units, thousands separators, decimal points) in the C
 * locale, whatever the user's: every ncu command llmprof runs gets it. */
static void env_c_locale(struct ncu_cmd *cmd)
{
	cmd->env = xcalloc(2, sizeof(*cmd->env));
	cmd->env[0] = xstrdup("LC_ALL=C");
	cmd->nenv = 1;
}

int ncu_capture_argv(const struct ncu_options *o, struct ncu_cmd *cmd, struct strbuf *err)
{
	size_t alloc = 0;
	char buf[32];

	memset(cmd, 0, sizeof(*cmd));
	if (validate(o, err))
		return -1;
	push(cmd, &alloc, o->ncu ? o->ncu : "ncu");
	if (o->target_processes)
		push2(cmd, &alloc, "--target-processes", o->target_processes);
	if (o->set)
		push2(cmd, &alloc, "--set", o->set);
	if (o->replay_mode)
		push2(cmd, &alloc, "--replay-mode", o->replay_mode);
	if (o->nr_metrics) {
		struct strbuf m = STRBUF_INIT;

		for (size_t i = 0; i < o->nr_metrics; i++)
			strbuf_addf(&m, "%s%s", i ? "," : "", o->metrics[i]);
		push2(cmd, &alloc, "--metrics", m.buf);
		strbuf_release(&m);
	}
	for (size_t i = 0; i < o->nr_sections; i++)
		push2(cmd, &alloc, "--section", o->sections[i]);
	push2(cmd, &alloc, "-o", o->output);
	if (o->nvtx || o->nr_nvtx_include || o->nr_nvtx_exclude)
		push(cmd, &alloc, "--nvtx");
	/* Repeated flags: includes OR together (one value holding two ranges
	 * matches nothing). */
	for (size_t i = 0; i < o->nr_nvtx_include; i++)
		push2(cmd, &alloc, "--nvtx-include", o->nvtx_include[i]);
	for (size_t i = 0; i < o->nr_nvtx_exclude; i++)
		push2(cmd, &alloc, "--nvtx-exclude", o->nvtx_exclude[i]);
	if (o->filter_mode)
		push2(cmd, &alloc, "--filter-mode", o->filter_mode);
	if ((o->kernel_name || o->kernel_id) && o->kernel_name_base)
		push2(cmd, &alloc, "--kernel-name-base", o->kernel_name_base);
	if (o->kernel_name)
		push2(cmd, &alloc, "--kernel-name", o->kernel_name);
	if (o->kernel_id)
		push2(cmd, &alloc, "--kernel-id", o->kernel_id);
	if (o->launch_skip_before_match >= 0) {
		snprintf(buf, sizeof(buf), "%lld", o->launch_skip_before_match);
		push2(cmd, &alloc, "--launch-skip-before-match", buf);
	}
	if (o->launch_skip >= 0) {
		snprintf(buf, sizeof(buf), "%lld", o->launch_skip);
		push2(cmd, &alloc, "--launch-skip", buf);
	}
	if (o->launch_count >= 1) {
		snprintf(buf, sizeof(buf), "%lld", o->launch_count);
		push2(cmd, &alloc, "--launch-count", buf);
	}
	if (o->clock_control)
		push2(cmd, &alloc, "--clock-control", o->clock_control);
	if (o->cache_control)
		push2(cmd, &alloc, "--cache-control", o->cache_control);
	if (o->force_overwrite)
		push(cmd, &alloc, "--force-overwrite");
	for (size_t i = 0; i < o->nr_program; i++)
		push(cmd, &alloc, o->program[i]);
	env_c_locale(cmd);
	return 0;
}

void ncu_import_argv(const char *ncu, const char *rep, const char *page, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push2(cmd, &alloc, "--import", rep);
	push(cmd, &alloc, "--csv");
	push2(cmd, &alloc, "--page", page ? page : "raw");
	push2(cmd, &alloc, "--print-units", "base");
	env_c_locale(cmd);
}

void ncu_import_names_argv(const char *ncu, const char *rep, const char *base, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push2(cmd, &alloc, "--import", rep);
	push(cmd, &alloc, "--csv");
	push2(cmd, &alloc, "--page", "raw");
	push2(cmd, &alloc, "--print-units", "base");
	push2(cmd, &alloc, "--print-kernel-base", base);
	/* one metric keeps the page small: the names are what is wanted */
	push2(cmd, &alloc, "--metrics", "gpu__time_duration.sum");
	env_c_locale(cmd);
}

void ncu_help_argv(const char *ncu, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push(cmd, &alloc, "--help");
	env_c_locale(cmd);
}

int ncu_help_has_per_launch_config(const char *text, size_t len)
{
	static const char flag[] = "--filter-mode", mode[] = "per-launch-config";

	return memmem(text, len, flag, sizeof(flag) - 1) &&
	       memmem(text, len, mode, sizeof(mode) - 1);
}

void ncu_sections_report_argv(const char *ncu, const char *rep, const char *const *sections,
			      size_t nr_sections, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push2(cmd, &alloc, "--import", rep);
	push2(cmd, &alloc, "--page", "details");
	for (size_t i = 0; i < nr_sections; i++)
		push2(cmd, &alloc, "--section", sections[i]);
	env_c_locale(cmd);
}

void ncu_list_sections_argv(const char *ncu, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push(cmd, &alloc, "--list-sections");
	env_c_locale(cmd);
}

void ncu_query_metrics_argv(const char *ncu, struct ncu_cmd *cmd)
{
	size_t alloc = 0;

	memset(cmd, 0, sizeof(*cmd));
	push(cmd, &alloc, ncu ? ncu : "ncu");
	push(cmd, &alloc, "--query-metrics");
	env_c_locale(cmd);
}

void ncu_cmd_release(struct ncu_cmd *cmd)
{
	for (size_t i = 0; i < cmd->argc; i++)
		free(cmd->argv[i]);
	for (size_t i = 0; i < cmd->nenv; i++)
		free(cmd->env[i]);
	free(cmd->argv);
	free(cmd->env);
	memset(cmd, 0, sizeof(*cmd));
}

void ncu_cmd_format(const struct ncu_cmd *cmd, struct strbuf *out)
{
	for (size_t i = 0; i < cmd->nenv; i++) {
		proc_quote_shell_bytes(out, cmd->env[i]);
		strbuf_addch(out, ' ');
	}
	for (size_t i = 0; i < cmd->argc; i++) {
		if (i)
			strbuf_addch(out, ' ');
		proc_quote_shell_bytes(out, cmd->argv[i]);
	}
}

/* ---------------------------------------------------- sections and metrics */

/* First whitespace-separated token of each line that is a table row (not a
 * rule, not the header, not blank). */
static void first_tokens(const char *text, size_t len, const char *header, char ***out, size_t *n)
{
	size_t alloc = 0, i = 0;

	*out = NULL;
	*n = 0;
	while (i < len) {
		size_t e = i, t;

		while (e < len && text[e] != '\n')
			e++;
		t = i;
		while (t < e && !isspace((unsigned char)text[t]))
			t++;
		if (t > i && text[i] != '-' && text[i] != '=' &&
		    !(t - i == strlen(header) && !memcmp(text + i, header, t - i)) &&
		    !(t - i == 4 && !memcmp(text + i, "Chip", 4))) {
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = xstrndup(text + i, t - i);
		}
		i = e + 1;
	}
}

void ncu_sections_parse(const char *text, size_t len, char ***ids, size_t *n)
{
	first_tokens(text, len, "Identifier", ids, n);
}

void ncu_metrics_parse(const char *text, size_t len, char ***names, size_t *n)
{
	first_tokens(text, len, "Metric", names, n);
}

void ncu_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int in_list(const char *s, size_t len, char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], s, len))
			return 1;
	return 0;
}

/* The suggestion for an unknown name: the shortest known name that extends
 * it at a '_' (chips name typed variants: ga100 has no
 * sm__ops_path_tensor_src_fp16 but ..._fp16_dst_fp16), else the nearest by
 * edit distance when near enough. */
static const char *closest(const char *s, char **list, size_t n)
{
	size_t best = (size_t)-1, len = strlen(s);
	const char *cand = NULL;

	for (size_t i = 0; len >= 4 && i < n; i++)
		if (!strncmp(list[i], s, len) && list[i][len] == '_' &&
		    (!cand || strlen(list[i]) < strlen(cand)))
			cand = list[i];
	if (cand)
		return cand;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, list[i]);

		if (d < best) {
			best = d;
			cand = list[i];
		}
	}
	return best <= strlen(s) / 3 + 2 ? cand : NULL;
}

/* m is offered when it, or its base name (ncu lists dram__bytes_read, a run
 * asks for dram__bytes_read.sum), is in the list; prefixes ncu expands
 * itself (regex:, group:, ...) are not checked. */
static int metric_offered(const char *m, char **metrics, size_t nmetrics)
{
	size_t len = strlen(m);

	if (starts_with(m, "regex:") || starts_with(m, "group:") || starts_with(m, "breakdown:") ||
	    starts_with(m, "pmsampling:"))
		return 1;
	for (;;) {
		const char *dot = NULL;

		if (in_list(m, len, metrics, nmetrics))
			return 1;
		for (size_t k = len; k > 0; k--)
			if (m[k - 1] == '.') {
				dot = m + k - 1;
				break;
			}
		if (!dot)
			return 0;
		len = (size_t)(dot - m);
	}
}

int ncu_metric_optional(const char *m)
{
	static const char *const families[] = {"sm__ops_path_tensor_", "sm__pipe_tensor_",
					       "sm__inst_executed_pipe_tensor_"};

	for (size_t i = 0; i < sizeof(families) / sizeof(*families); i++)
		if (starts_with(m, families[i]))
			return 1;
	return 0;
}

size_t ncu_drop_unoffered_optional(const char **m, size_t n, char **metrics, size_t nmetrics,
				   struct strbuf *dropped)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		if (ncu_metric_optional(m[i]) && !metric_offered(m[i], metrics, nmetrics)) {
			strbuf_addf(dropped, "%s%s", dropped->len ? ", " : "", m[i]);
			continue;
		}
		m[kept++] = m[i];
	}
	if (kept < n)
		m[kept] = NULL;
	return kept;
}

int ncu_check_requested(const struct ncu_options *o, char **sections, size_t nsections,
			char **metrics, size_t nmetrics, struct strbuf *err)
{
	size_t bad = 0;

	for (size_t i = 0; sections && i < o->nr_sections; i++) {
		const char *s = o->sections[i], *c;

		if (starts_with(s, "regex:") || in_list(s, strlen(s), sections, nsections))
			continue;
		strbuf_addf(err, "%sunknown section '%s'", bad++ ? "; " : "", s);
		if ((c = closest(s, sections, nsections)))
			strbuf_addf(err, " (did you mean '%s'?)", c);
	}
	for (size_t i = 0; metrics && i < o->nr_metrics; i++) {
		const char *m = o->metrics[i], *c;

		if (metric_offered(m, metrics, nmetrics))
			continue;
		strbuf_addf(err, "%sunknown metric '%s'", bad++ ? "; " : "", m);
		{
			char *base = xstrndup(m, strcspn(m, "."));

			if ((c = closest(base, metrics, nmetrics)))
				strbuf_addf(err, " (did you mean '%s'?)", c);
			free(base);
		}
	}
	if (bad) {
		strbuf_addf(err, ": not offered by this GPU/ncu (see %s, %s)",
			    bundle_art(BA_NCU_SECTIONS), bundle_art(BA_NCU_METRICS));
		return -1;
	}
	return 0;
}
