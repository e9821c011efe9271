/* trace_input.h: what `report` and `diff` read beside their inputs, and what
 * `stats` shares with them: the KEY=VALUE overrides and --conf-dir (or
 * $LLMPROF_CONF_DIR) that `profile` takes, the configuration a trace with
 * no bundle is analysed with, and an nsys report (.nsys-rep, .qdrep)
 * exported with the user's nsys to the SQLite file llmprof reads.
 *
 * Every function prints its own error (cmd/ is the layer that prints) and
 * returns 0 or the exit code (core/error.h). */
#ifndef LLMPROF_CMD_TRACE_INPUT_H
#define LLMPROF_CMD_TRACE_INPUT_H

#include <stddef.h>

#include "cmd/cmd.h"
#include "config/config.h"

/* A command's positional arguments, split: an argument that names an
 * existing file or folder is an input; else one with '=' or a leading '~'
 * is an override. Both arrays borrow from ctx (struct owns the arrays:
 * trace_args_release()). */
struct trace_args {
	const char *cmd;      /* "report", "diff": the prefix of every message */
	const char *conf_dir; /* --conf-dir, or NULL: $LLMPROF_CONF_DIR, else llmprof's conf/ */
	const char **inputs, **ov;
	size_t ninputs, nov;
	const char *run_stage; /* the value of a run.stage=... override, or NULL */
};
void trace_args_split(struct trace_args *a, const char *cmd, const char *conf_dir,
		      const struct cmd_ctx *ctx);
void trace_args_release(struct trace_args *a);

/* The configuration a trace with no bundle is analysed with: the conf/
 * folder, workload=command (the trace is a user's program, whatever
 * conf/ says), then the overrides. *cfg is NULL when no conf/ folder is
 * found and no override or --conf-dir was given (the defaults then).
 * 0, or EXIT_CONFIG after the error. Caller owns *cfg (config_free()). */
int trace_args_loose_config(const struct trace_args *a, struct config **cfg);

/* A bundle's config.yaml with the overrides applied (keys only: a bundle
 * holds no conf/ groups), or the loose configuration when it has none.
 * 0, or the exit code (EXIT_BAD_INPUT for a damaged config.yaml,
 * EXIT_CONFIG for a wrong override) after the error. */
int trace_args_bundle_config(const struct trace_args *a, const char *run_dir, struct config **cfg);

/* 1 when path names an nsys report (.nsys-rep, or .qdrep before 2021). */
int trace_input_is_report(const char *path);

/* How long `nsys export` may take on a large report. */
#define TRACE_INPUT_EXPORT_TIMEOUT_MS (30ull * 60 * 1000)

/* The SQLite export of report rep, as `nsys stats` makes it: X.nsys-rep ->
 * X.sqlite beside it, reused while at least as new as the report, else
 * exported with the user's nsys (at most TRACE_INPUT_EXPORT_TIMEOUT_MS).
 * When that folder is not writable, the export goes to a temporary folder
 * (*tmpdir, removed by trace_input_export_done()). Sets *sqlite (owned).
 * 0, or an exit code after the error: 5 no report, 4 no nsys, 6 the
 * export failed or timed out, 7 cannot write. */
int trace_input_export(const char *cmd, const char *rep, char **sqlite, char **tmpdir);
/* Removes a temporary export (and its folder), frees both; NULLs them. */
void trace_input_export_done(char **sqlite, char **tmpdir);

#endif
