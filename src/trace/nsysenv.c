/* nsysenv.c: see nsysenv.h. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nsysdb.h"
#include "trace/nsysenv.h"
#include "core/banned.h"

static void split(struct nsys_env *e)
{
	size_t alloc = 0;
	char *p = e->buf;

	while (p && *p) {
		char *end = strchr(p, ';');

		if (end)
			*end = '\0';
		if (strchr(p, '=')) {
			ALLOC_GROW(e->vars, e->n + 1, alloc);
			e->vars[e->n++] = p;
		}
		p = end ? end + 1 : NULL;
	}
}

int nsys_env_load(struct trace *t, struct nsys_env *e, struct strbuf *err)
{
	static const char *const cols[] = {"!name", "!value"};
	sqlite3_stmt *st = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	if (!t->db || !trace_has_table(t, "TARGET_INFO_SYSTEM_ENV"))
		return 0;
	if (nsysdb_select(t->db, "TARGET_INFO_SYSTEM_ENV", cols, ARRAY_SIZE(cols), &st, err))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *value = (const char *)sqlite3_column_text(st, 1);

		if (!e->buf && name && value && !strcmp(name, "DeviceEnvironment"))
			e->buf = xstrdup(value);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		nsys_env_free(e);
		return nsysdb_error(t->db, err, "TARGET_INFO_SYSTEM_ENV");
	}
	split(e);
	return 0;
}

void nsys_env_free(struct nsys_env *e)
{
	free(e->buf);
	free(e->vars);
	memset(e, 0, sizeof(*e));
}

const char *nsys_env_get(const char *name, void *ctx)
{
	const struct nsys_env *e = ctx;
	size_t len = strlen(name);

	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->vars[i], name, len) && e->vars[i][len] == '=')
			return e->vars[i] + len + 1;
	return NULL;
}
