/* cmd.h: the subcommand table and the generic option parser.
 *
 * Each src/cmd/cmd-<name>.c exports one `const struct cmd_entry
 * cmd_<name>_entry` and nothing else; cmd.c lists them in cmd_table[].
 *
 * How to add a subcommand:
 *   1. write src/cmd/cmd-<name>.c with a static opts[] table (every option
 *      has help text) and an exec function;
 *   2. declare its entry below and add it to cmd_table[] in cmd.c;
 *   3. add it to docs/user-guide.md; tests/cli/test-help.sh checks --help.
 * The man page and the bash completion are generated from the table
 * (gendoc.c); tests/cli/test-install.sh checks they cover it. */
#ifndef LLMPROF_CMD_H
#define LLMPROF_CMD_H

#include <stdint.h>

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,   /* int *: set to 1 */
	OPT_STRING, /* const char **: borrowed from argv */
	OPT_INT,    /* int64_t *: range [min, max] */
};

struct opt {
	const char *long_name;
	int short_name;
	enum opt_type type;
	void *value;
	const char *argh; /* argument name in --help, e.g. "DIR" */
	const char *help;
	int64_t min, max;
};
#define OPT_END_MARK                                                                               \
	{                                                                                          \
		NULL, 0, OPT_END, NULL, NULL, NULL, 0, 0                                           \
	}

/* What a command receives after option parsing. All strings are borrowed
 * from the process argv. */
struct cmd_ctx {
	const struct cmd_entry *cmd;
	int argc; /* positional arguments (before "--") */
	const char **argv;
	int has_program; /* a "--" was given */
	int prog_argc;	 /* everything after "--" */
	const char **prog_argv;
	const char *argv0_full; /* the whole original command line is in orig_argv */
	int orig_argc;
	const char **orig_argv;
};

enum cmd_flags {
	CMD_TAKES_PROGRAM = (1 << 0), /* accepts "-- PROGRAM ARGS..." */
};

struct cmd_entry {
	const char *name;
	const char *usage;	 /* after "llmprof <name> " */
	const char *summary;	 /* one line */
	const char *description; /* paragraph for --help, may be NULL */
	const struct opt *opts;
	unsigned flags;
	int (*exec)(struct cmd_ctx *ctx);
};

extern const struct cmd_entry cmd_profile_entry;
extern const struct cmd_entry cmd_config_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_stats_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_calibrate_entry;
extern const struct cmd_entry cmd_nvtx_entry;
extern const struct cmd_entry cmd_merge_entry;
/* cmd-merge.c: after one rank of `profile --rank-dir RUN` has ended: when
 * every rank of world_size has, RUN/merged as `llmprof merge RUN` writes
 * it, and one line on stderr (unless quiet); a failure is a warning. The
 * rank's exit code is not changed. */
void merge_after_rank(const char *run_dir, int world_size, int quiet);
extern const struct cmd_entry cmd_diff_entry;

extern const struct cmd_entry *const cmd_table[];

/* Dispatches argv[1] to a command; returns the process exit code. */
int cmd_main(int argc, const char **argv);

/* Parses options of cmd from argv (argv[0] is the command name). Returns 0,
 * or an exit code after printing an error (EXIT_USAGE) or help (EXIT_OK with
 * *done set). Exposed for tests. */
int cmd_parse(const struct cmd_entry *cmd, int argc, const char **argv, struct cmd_ctx *ctx,
	      int *done);

/* Writes the generated --help text of cmd to fp. */
#include <stdio.h>
void cmd_print_help(const struct cmd_entry *cmd, FILE *fp);

/* What llmprof is, in a paragraph (--help, the man page). */
extern const char cmd_about[];

/* The man page, llmprof.1 in roff, from cmd_table[] (gendoc.c). Hidden:
 * `llmprof help --man`. */
void cmd_write_man(FILE *fp);
/* The bash completion script, from cmd_table[] and the config schema
 * (gendoc.c). Hidden: `llmprof help --bash-completion`. */
void cmd_write_bash_completion(FILE *fp);

#endif
