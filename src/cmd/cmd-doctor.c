/* cmd-doctor.c: placeholder until the foundation lands. */
#include <stdio.h>
#include "cmd/cmd.h"
#include "core/error.h"

static int cmd_doctor_exec(struct cmd_ctx *ctx)
{
	error_print("'doctor' is not built yet");
	return EXIT_INTERNAL;
}

static const struct opt opts[] = { OPT_END_MARK };

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor", .usage = "", .summary = "doctor", .opts = opts, .exec = cmd_doctor_exec,
};
