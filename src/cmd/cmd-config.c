/* cmd-config.c: placeholder until the foundation lands. */
#include <stdio.h>
#include "cmd/cmd.h"
#include "core/error.h"

static int cmd_config_exec(struct cmd_ctx *ctx)
{
	error_print("'config' is not built yet");
	return EXIT_INTERNAL;
}

static const struct opt opts[] = { OPT_END_MARK };

const struct cmd_entry cmd_config_entry = {
	.name = "config", .usage = "", .summary = "config", .opts = opts, .exec = cmd_config_exec,
};
