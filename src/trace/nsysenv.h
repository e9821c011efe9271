/* nsysenv.h: the environment an nsys export recorded (TARGET_INFO_SYSTEM_ENV,
 * name "DeviceEnvironment": "K=V;K=V;..."): the environment of the nsys
 * command itself. Under a launcher that runs one nsys per rank (srun nsys
 * profile ..., mpirun nsys profile ...) it holds that rank's launcher
 * variables; around torchrun it holds none of the ranks' own. */
#ifndef LLMPROF_NSYSENV_H
#define LLMPROF_NSYSENV_H

#include <stddef.h>

#include "core/strbuf.h"
#include "trace/trace.h"

/* The recorded variables, each "K=V" NUL-terminated. Owned: nsys_env_free(). */
struct nsys_env {
	char *buf;   /* the value, its ';' turned into NULs */
	char **vars; /* into buf */
	size_t n;
};

/* Fills *e (zeroed first; n = 0 without the table or the row). 0, or -1
 * with err on a read error. */
int nsys_env_load(struct trace *t, struct nsys_env *e, struct strbuf *err);
void nsys_env_free(struct nsys_env *e);
/* A rank_getenv_fn (trace/rankid.h) over ctx, a struct nsys_env: the value
 * of name, or NULL. */
const char *nsys_env_get(const char *name, void *ctx);

#endif
