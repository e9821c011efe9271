/* cmd.c: command table, dispatch, option parsing and generated --help. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "version.h"
#include "core/banned.h"

const struct cmd_entry *const cmd_table[] = {
    &cmd_profile_entry,	  &cmd_report_entry,
    &cmd_merge_entry,	  &cmd_diff_entry,
    &cmd_stats_entry,	  &cmd_nvtx_entry,
    &cmd_config_entry,	  &cmd_doctor_entry,
    &cmd_calibrate_entry, NULL,
};

static const struct cmd_entry *cmd_find(const char *name)
{
	for (size_t i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->name, name))
			return cmd_table[i];
	return NULL;
}

const char cmd_about[] =
    "llmprof profiles LLM inference on NVIDIA GPUs: per-stage and per-operator\n"
    "time, the kernels that dominate and what limits them, MFU and bandwidth use.";

static void print_main_usage(FILE *fp)
{
	fprintf(fp,
		"usage: llmprof <command> [options] [KEY=VALUE ...] [-- PROGRAM [ARGS...]]\n\n"
		"%s\n\ncommands:\n",
		cmd_about);
	for (size_t i = 0; cmd_table[i]; i++)
		fprintf(fp, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(fp,
		"\n'llmprof <command> --help' describes a command; docs/user-guide.md has more.\n"
		"options: -h, --help; -V, --version\n");
}

void cmd_print_help(const struct cmd_entry *cmd, FILE *fp)
{
	fprintf(fp, "usage: llmprof %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	if (cmd->description)
		fprintf(fp, "\n%s\n", cmd->description);
	fprintf(fp, "\noptions:\n");
	for (const struct opt *o = cmd->opts; o && o->type != OPT_END; o++) {
		char left[128];
		const char *argh = o->type == OPT_BOOL ? NULL : (o->argh ? o->argh : "VALUE");

		if (o->short_name && argh)
			snprintf(left, sizeof(left), "-%c, --%s %s", o->short_name, o->long_name,
				 argh);
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (argh)
			snprintf(left, sizeof(left), "    --%s %s", o->long_name, argh);
		else
			snprintf(left, sizeof(left), "    --%s", o->long_name);
		if (strlen(left) > 28)
			fprintf(fp, "  %s\n  %-28s %s\n", left, "", o->help);
		else
			fprintf(fp, "  %-28s %s\n", left, o->help);
	}
	fprintf(fp, "  %-28s %s\n", "-h, --help", "show this help and exit");
}

static const struct opt *opt_find_long(const struct opt *opts, const char *name, size_t len)
{
	for (const struct opt *o = opts; o && o->type != OPT_END; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct opt *opt_find_short(const struct opt *opts, int c)
{
	for (const struct opt *o = opts; o && o->type != OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

static int opt_assign(const struct cmd_entry *cmd, const struct opt *o, const char *val)
{
	struct strbuf err = STRBUF_INIT;
	int64_t v;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = val;
		return 0;
	case OPT_INT:
		if (parse_i64(val, o->min, o->max, &v, &err)) {
			error_print("%s: option '--%s': %s", cmd->name, o->long_name, err.buf);
			strbuf_release(&err);
			return EXIT_USAGE;
		}
		*(int64_t *)o->value = v;
		return 0;
	case OPT_END:
		break;
	}
	BUG("bad option type");
}

int cmd_parse(const struct cmd_entry *cmd, int argc, const char **argv, struct cmd_ctx *ctx,
	      int *done)
{
	int i;

	*done = 0;
	memset(ctx, 0, sizeof(*ctx));
	ctx->cmd = cmd;
	ctx->argv = xcalloc((size_t)argc + 1, sizeof(*ctx->argv));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o;
		const char *val = NULL;

		if (!strcmp(a, "--")) {
			if (!(cmd->flags & CMD_TAKES_PROGRAM)) {
				error_print("'%s' does not run a program; unexpected '--'",
					    cmd->name);
				return EXIT_USAGE;
			}
			ctx->has_program = 1;
			ctx->prog_argc = argc - i - 1;
			ctx->prog_argv = argv + i + 1;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cmd_print_help(cmd, stdout);
			*done = 1;
			return EXIT_OK;
		}
		if (a[0] != '-' || a[1] == '\0') {
			ctx->argv[ctx->argc++] = a;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			o = opt_find_long(cmd->opts, name, len);
			if (!o) {
				error_print("%s: unknown option '%s' (see 'llmprof %s --help')",
					    cmd->name, a, cmd->name);
				return EXIT_USAGE;
			}
			if (o->type == OPT_BOOL && eq) {
				error_print("%s: option '--%s' takes no value", cmd->name,
					    o->long_name);
				return EXIT_USAGE;
			}
			if (o->type != OPT_BOOL)
				val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		} else {
			o = opt_find_short(cmd->opts, a[1]);
			if (!o) {
				error_print("%s: unknown option '%s' (see 'llmprof %s --help')",
					    cmd->name, a, cmd->name);
				return EXIT_USAGE;
			}
			if (o->type == OPT_BOOL && a[2]) {
				error_print("%s: option '-%c' takes no value", cmd->name, a[1]);
				return EXIT_USAGE;
			}
			if (o->type != OPT_BOOL)
				val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
		}
		if (o->type != OPT_BOOL && !val) {
			error_print("%s: option '--%s' needs a value", cmd->name, o->long_name);
			return EXIT_USAGE;
		}
		if (opt_assign(cmd, o, val))
			return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int suggest_command(const char *name)
{
	size_t best = (size_t)-1;
	const char *cand = NULL;

	for (size_t i = 0; cmd_table[i]; i++) {
		size_t d = edit_distance(name, cmd_table[i]->name);
		if (d < best) {
			best = d;
			cand = cmd_table[i]->name;
		}
	}
	if (cand && (best <= 2 || starts_with(cand, name)))
		error_print("unknown command '%s'; did you mean '%s'?", name, cand);
	else
		error_print("unknown command '%s' (see 'llmprof --help')", name);
	return EXIT_USAGE;
}

static int close_stdout(int code)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			error_print("cannot write to standard output: %s", strerror(errno));
		return code ? code : EXIT_IO;
	}
	return code;
}

int cmd_main(int argc, const char **argv)
{
	const struct cmd_entry *cmd;
	struct cmd_ctx ctx;
	int done, code;

	/* a reader that left (`llmprof stats | head`) is a write error, exit 7
	 * (close_stdout()), not death by SIGPIPE; a child gets SIGPIPE back
	 * (proc.h) */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		print_main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		/* hidden: what the build installs as llmprof.1 and the
		 * bash completion (gendoc.c) */
		if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--man")) {
			cmd_write_man(stdout);
			return close_stdout(EXIT_OK);
		}
		if (argc == 3 && !strcmp(argv[1], "help") &&
		    !strcmp(argv[2], "--bash-completion")) {
			cmd_write_bash_completion(stdout);
			return close_stdout(EXIT_OK);
		}
		/* hidden: the table of docs/run-bundle.md (bundle/layout.h) */
		if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--bundle-files")) {
			struct strbuf sb = STRBUF_INIT;

			bundle_layout_markdown(&sb);
			fwrite(sb.buf, 1, sb.len, stdout);
			strbuf_release(&sb);
			return close_stdout(EXIT_OK);
		}
		if (argc > 3) {
			error_print(
			    "%s takes at most one command name: '%s' (see 'llmprof --help')",
			    argv[1], argv[3]);
			return EXIT_USAGE;
		}
		if (argc > 2 && (cmd = cmd_find(argv[2]))) {
			cmd_print_help(cmd, stdout);
			return close_stdout(EXIT_OK);
		}
		/* "--help --bogus", "help nosuch": not the main help, exit 0 */
		if (argc > 2 && argv[2][0] == '-') {
			error_print("unknown option '%s' (see 'llmprof --help')", argv[2]);
			return EXIT_USAGE;
		}
		if (argc > 2)
			return suggest_command(argv[2]);
		print_main_usage(stdout);
		return close_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version")) {
		if (argc > 2) {
			error_print("%s takes no arguments: '%s' (see 'llmprof --help')", argv[1],
				    argv[2]);
			return EXIT_USAGE;
		}
		printf("llmprof %s (%s)\n", LLMPROF_VERSION, LLMPROF_GIT_COMMIT);
		return close_stdout(EXIT_OK);
	}
	if (argv[1][0] == '-') {
		error_print("unknown option '%s' (see 'llmprof --help')", argv[1]);
		return EXIT_USAGE;
	}
	cmd = cmd_find(argv[1]);
	if (!cmd)
		return suggest_command(argv[1]);
	code = cmd_parse(cmd, argc - 1, argv + 1, &ctx, &done);
	if (!code && !done) {
		ctx.orig_argc = argc;
		ctx.orig_argv = argv;
		code = cmd->exec(&ctx);
	}
	free(ctx.argv);
	return close_stdout(code);
}
