/* cmd-profile.c: placeholder until the foundation lands. */
#include <stdio.h>
#include "cmd/cmd.h"
#include "core/error.h"

static int cmd_profile_exec(struct cmd_ctx *ctx)
{
	error_print("'profile' is not built yet");
	return EXIT_INTERNAL;
}

static const struct opt opts[] = { OPT_END_MARK };

const struct cmd_entry cmd_profile_entry = {
	.name = "profile", .usage = "", .summary = "profile", .opts = opts, .exec = cmd_profile_exec,
};
