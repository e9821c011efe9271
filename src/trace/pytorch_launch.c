/* pytorch_launch.c: is a program Python, and the environment that gives it
 * llmprof's PyTorch startup module; see pytorch_launch.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/pytorch_launch.h"
#include "core/banned.h"

#define SHEBANG_BYTES 512

/* python, python3, python3.11, python3.13t, python3.11d: "python", digits
 * and dots, then at most two lower-case letters. */
static int python_name(const char *path, size_t len)
{
	const char *base = path, *end = path + len, *p;
	size_t letters = 0;

	for (p = path; p < end; p++)
		if (*p == '/')
			base = p + 1;
	if ((size_t)(end - base) < 6 || memcmp(base, "python", 6))
		return 0;
	for (p = base + 6; p < end && (isdigit((unsigned char)*p) || *p == '.'); p++)
		;
	for (; p < end && islower((unsigned char)*p) && letters < 2; p++)
		letters++;
	return p == end;
}

/* The file PATH would run for name (absolute or as found), owned; NULL
 * when none is an executable file. */
static char *lookup(const char *name, const char *path_env)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";

	if (!*name)
		return NULL;
	if (strchr(name, '/'))
		return path_is_executable_file(name) ? xstrdup(name) : NULL;
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		strbuf_reset(&sb);
		if (len)
			strbuf_add(&sb, p, len);
		else
			strbuf_addch(&sb, '.');
		strbuf_addf(&sb, "/%s", name);
		if (path_is_executable_file(sb.buf))
			return strbuf_detach(&sb, NULL);
		p += len + (colon ? 1 : 0);
	}
	strbuf_release(&sb);
	return NULL;
}

/* The next word of [*s, end): skips blanks, returns its start and sets
 * *len; NULL at the end. */
static const char *word(const char **s, const char *end, size_t *len)
{
	const char *p = *s, *w;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end)
		return NULL;
	w = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - w);
	*s = p;
	return w;
}

/* The interpreter a script's first bytes name: the "#!" line's program, or
 * through env its first word that is not an option or NAME=VALUE; for
 * pip's "#!/bin/sh" launcher, the quoted path of its "'''exec'" line.
 * Copies it into out (cap bytes); 0 when there is none. */
static int interpreter(const char *buf, size_t n, char *out, size_t cap)
{
	const char *end = memchr(buf, '\n', n), *s = buf + 2, *w;
	size_t len;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	if (!end)
		end = buf + n;
	if (!(w = word(&s, end, &len)))
		return 0;
	if (len >= 3 && !memcmp(w + len - 3, "env", 3) && (len == 3 || w[len - 4] == '/')) {
		while ((w = word(&s, end, &len)) && (*w == '-' || memchr(w, '=', len)))
			;
	} else if (len == 7 && !memcmp(w, "/bin/sh", 7) && end + 1 < buf + n) {
		/* pip: #!/bin/sh, then '''exec' "/long/path/python" "$0" "$@" */
		const char *l2 = end + 1, *e2 = memchr(l2, '\n', (size_t)(buf + n - l2));
		const char *q;

		if (!e2)
			e2 = buf + n;
		if ((size_t)(e2 - l2) < 9 || memcmp(l2, "'''exec' ", 9))
			return 0;
		w = l2 + 9;
		if (*w == '"' || *w == '\'') {
			q = memchr(w + 1, *w, (size_t)(e2 - w - 1));
			if (!q)
				return 0;
			w++;
			len = (size_t)(q - w);
		} else {
			s = w;
			if (!(w = word(&s, e2, &len)))
				return 0;
		}
	}
	if (!w || !len || len >= cap)
		return 0;
	memcpy(out, w, len);
	out[len] = '\0';
	if (len && out[len - 1] == '\r')
		out[len - 1] = '\0';
	return 1;
}

int pytorch_is_python(const char *const *argv, const char *path_env, struct strbuf *why)
{
	const char *prog;
	char *file = NULL, buf[SHEBANG_BYTES], interp[SHEBANG_BYTES];
	struct strbuf err = STRBUF_INIT;
	ssize_t n = 0;
	int fd, yes = 0;

	if (!argv || !argv[0])
		return 0;
	prog = argv[0];
	if (python_name(prog, strlen(prog))) {
		if (why)
			strbuf_addf(why, "%s is a Python interpreter", prog);
		return 1;
	}
	if (!strcmp(prog, "env") || ends_with(prog, "/env")) {
		size_t i = 1;

		/* env's own options and assignments, then the command */
		while (argv[i] && (argv[i][0] == '-' || strchr(argv[i], '='))) {
			if (!strcmp(argv[i], "-u") || !strcmp(argv[i], "-C"))
				i += argv[i + 1] ? 1 : 0;
			i++;
		}
		return argv[i] ? pytorch_is_python(argv + i, path_env, why) : 0;
	}
	if (!(file = lookup(prog, path_env)))
		return 0;
	fd = open_regular_file(file, SIZE_MAX, NULL, &err);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n > 0 && interpreter(buf, (size_t)n, interp, sizeof(interp)) &&
	    python_name(interp, strlen(interp))) {
		yes = 1;
		if (why)
			strbuf_addf(why, "%s runs %s", prog, interp);
	}
	free(file);
	strbuf_release(&err);
	return yes;
}

enum trace_pytorch pytorch_resolve(enum trace_pytorch asked, int is_python)
{
	if (asked == TRACE_PYTORCH_AUTO)
		return is_python ? TRACE_PYTORCH_AUTO : TRACE_PYTORCH_NONE;
	return asked;
}

static char *kv(const char *k, const char *v)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s=%s", k, v);
	return strbuf_detach(&sb, NULL);
}

void pytorch_env_build(char *env[PYTORCH_ENV_MAX], const struct pytorch_env_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	char depth[32], budget[32];
	int i = 0;

	memset(env, 0, sizeof(char *) * PYTORCH_ENV_MAX);
	if (o->mode != TRACE_PYTORCH_MODULES && o->mode != TRACE_PYTORCH_OPS &&
	    o->mode != TRACE_PYTORCH_AUTO)
		return;
	/* ours first, so site.py finds this sitecustomize; the program's own
	 * entries after it, in their order (the module runs the next
	 * sitecustomize on sys.path itself) */
	strbuf_addf(&sb, "PYTHONPATH=%s", o->dir);
	if (o->user_pythonpath && *o->user_pythonpath)
		strbuf_addf(&sb, ":%s", o->user_pythonpath);
	env[i++] = strbuf_detach(&sb, NULL);
	env[i++] = kv(PYTORCH_ENV_MODE, trace_pytorch_names[o->mode]);
	snprintf(depth, sizeof(depth), "%lld", (long long)o->depth);
	env[i++] = kv(PYTORCH_ENV_DEPTH, depth);
	if (o->mode == TRACE_PYTORCH_OPS)
		env[i++] = kv(PYTORCH_ENV_SHAPES, o->shapes ? "1" : "0");
	if (o->mode == TRACE_PYTORCH_AUTO) {
		snprintf(budget, sizeof(budget), "%g", o->budget_pct);
		env[i++] = kv(PYTORCH_ENV_BUDGET, budget);
	}
	if (o->lib)
		env[i++] = kv(PYTORCH_ENV_LIB, o->lib);
	if (o->log)
		env[i++] = kv(PYTORCH_ENV_LOG, o->log);
}

void pytorch_env_free(char *env[PYTORCH_ENV_MAX])
{
	for (int i = 0; i < PYTORCH_ENV_MAX; i++)
		FREE_AND_NULL(env[i]);
}
