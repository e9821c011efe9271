/* cmd-config.c: `llmprof config show [KEY=VALUE ...]` prints the resolved
 * configuration as YAML; `llmprof config keys [--markdown]` lists the schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "config/config.h"
#include "core/error.h"
#include "core/xalloc.h"
#include "model/table.h"
#include "core/banned.h"

static const char *conf_dir_opt;
static int markdown;

static const struct opt opts[] = {
    {"conf-dir", 0, OPT_STRING, &conf_dir_opt, "DIR",
     "read config.yaml and its groups from DIR (default: $LLMPROF_CONF_DIR, else llmprof's conf/)"},
    {"markdown", 0, OPT_BOOL, &markdown, NULL,
     "with 'keys': print the table as Markdown, as in docs/configuration.md"},
    OPT_END_MARK,
};

static int config_show(int argc, const char **argv)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct config *cfg = NULL;
	char *dir = conf_dir_opt ? xstrdup(conf_dir_opt) : config_find_conf_dir();
	int code = EXIT_CONFIG;

	if (!dir) {
		error_print("cannot find the conf/ directory; use --conf-dir DIR or set "
			    "LLMPROF_CONF_DIR");
		goto out;
	}
	if (config_load(&cfg, dir, (size_t)argc, argv, &err)) {
		error_print("%s", err.buf);
		goto out;
	}
	config_to_yaml(cfg, &out);
	fwrite(out.buf, 1, out.len, stdout);
	code = EXIT_OK;
out:
	config_free(cfg);
	free(dir);
	strbuf_release(&err);
	strbuf_release(&out);
	return code;
}

/* The schema as a Markdown table (docs/configuration.md embeds it): a
 * key's type says "(required)" when it has no default. */
static void keys_markdown(const struct config_key *keys, size_t n, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	table_init(&t, "clcll", "Key", "Type", "Default", "Range", "Description", NULL);
	for (size_t i = 0; i < n; i++) {
		table_add_str(&t, keys[i].key);
		config_key_type_format(&keys[i], &sb);
		if (!keys[i].def)
			strbuf_addstr(&sb, " (required)");
		table_add_sb(&t, &sb);
		table_add_str(&t, keys[i].def);
		config_key_range_format(&keys[i], &sb);
		table_add_sb(&t, &sb);
		table_add_str(&t, keys[i].help);
	}
	table_write_md(&t, out);
	table_release(&t);
	strbuf_release(&sb);
}

static int config_keys(void)
{
	const struct config_key *keys;
	struct strbuf sb = STRBUF_INIT, t = STRBUF_INIT;
	size_t n;

	keys = config_schema(&n);
	if (markdown) {
		keys_markdown(keys, n, &sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
		return EXIT_OK;
	}
	printf("%-40s %-16s %-12s %-14s %s\n", "KEY", "TYPE", "DEFAULT", "RANGE", "MEANING");
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&t);
		strbuf_reset(&sb);
		config_key_type_format(&keys[i], &t);
		config_key_range_format(&keys[i], &sb);
		printf("%-40s %-16s %-12s %-14s %s\n", keys[i].key, t.buf,
		       keys[i].def ? keys[i].def : "(required)", sb.len ? sb.buf : "-",
		       keys[i].help);
	}
	strbuf_release(&t);
	strbuf_release(&sb);
	return EXIT_OK;
}

static int cmd_config_exec(struct cmd_ctx *ctx)
{
	const char *sub = ctx->argc ? ctx->argv[0] : NULL;

	if (!sub) {
		error_print("config: expected 'show' or 'keys' (see 'llmprof config --help')");
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "show")) {
		if (markdown) {
			error_print("config show: '--markdown' belongs to 'config keys'");
			return EXIT_USAGE;
		}
		return config_show(ctx->argc - 1, ctx->argv + 1);
	}
	if (!strcmp(sub, "keys")) {
		if (ctx->argc > 1) {
			error_print("config keys: unexpected argument '%s'", ctx->argv[1]);
			return EXIT_USAGE;
		}
		return config_keys();
	}
	error_print("config: unknown subcommand '%s'; expected 'show' or 'keys'", sub);
	return EXIT_USAGE;
}

const struct cmd_entry cmd_config_entry = {
    .name = "config",
    .usage = "show [--conf-dir DIR] [KEY=VALUE ...] | keys [--markdown]",
    .summary = "print the resolved configuration, or the list of config keys",
    .description = "'config show' composes conf/config.yaml with its defaults list, applies the\n"
		   "overrides (a.b=v, +a.b=v, ++a.b=v, ~a.b, group=option, group@pkg=option),\n"
		   "resolves ${...} and prints the result as YAML. 'config keys' lists every key\n"
		   "with its type, default and meaning. Config errors exit with 3.\n"
		   "docs/configuration.md has the grammar and the full table.",
    .opts = opts,
    .exec = cmd_config_exec,
};
