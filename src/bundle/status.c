/* status.c: see status.h. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/proc.h"
#include "bundle/status.h"
#include "core/banned.h"

void run_status_init(struct run_status *st, const char *run_id, const char *version,
		     const char *path)
{
	memset(st, 0, sizeof(*st));
	st->run_id = xstrdup(run_id);
	st->version = xstrdup(version);
	st->path = path ? xstrdup(path) : NULL;
	st->state = RUN_RUNNING;
	st->started_ns = clock_wall_ns();
	st->exit_code = -1;
	st->trust = -1;
}

void run_status_release(struct run_status *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		free(st->steps[i].name);
		free(st->steps[i].message);
	}
	free(st->steps);
	free(st->run_id);
	free(st->version);
	free(st->path);
	memset(st, 0, sizeof(*st));
}

size_t run_status_add(struct run_status *st, const char *name)
{
	struct status_step *s;

	ALLOC_GROW(st->steps, st->nr + 1, st->alloc);
	s = &st->steps[st->nr];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->state = STEP_PENDING;
	s->exit_status = -1;
	return st->nr++;
}

long run_status_find(const struct run_status *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		if (!strcmp(st->steps[i].name, name))
			return (long)i;
	return -1;
}

void run_status_start(struct run_status *st, size_t i)
{
	st->steps[i].state = STEP_RUNNING;
	st->steps[i].start_ns = clock_wall_ns();
}

static char *one_line(const char *msg)
{
	char *s;

	if (!msg)
		return NULL;
	s = xstrdup(msg);
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return s;
}

void run_status_end(struct run_status *st, size_t i, enum step_state state, int exit_status,
		    int signal, const char *message)
{
	struct status_step *s = &st->steps[i];

	s->state = state;
	s->end_ns = clock_wall_ns();
	if (!s->start_ns)
		s->start_ns = s->end_ns;
	s->exit_status = exit_status;
	s->signal = signal;
	free(s->message);
	s->message = one_line(message);
}

void run_status_finish(struct run_status *st, enum run_state state, int exit_code, const char *why)
{
	for (size_t i = 0; i < st->nr; i++) {
		if (st->steps[i].state != STEP_PENDING)
			continue;
		st->steps[i].state = STEP_SKIPPED;
		free(st->steps[i].message);
		st->steps[i].message = one_line(why);
	}
	st->state = state;
	st->exit_code = exit_code;
	st->ended_ns = clock_wall_ns();
}

const char *run_state_name(enum run_state s)
{
	static const char *const names[] = {"running", "ok", "failed", "interrupted", "timeout"};
	return names[s];
}

static json_t *json_time(uint64_t ns)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	if (!ns)
		return json_null();
	format_iso8601(&sb, ns);
	j = json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

void run_status_to_json(const struct run_status *st, struct strbuf *out)
{
	json_t *root = json_object(), *steps = json_array();
	char *text;

	json_object_set_new(root, "run_id", json_string_lossy(st->run_id));
	json_object_set_new(root, "llmprof_version", json_string_lossy(st->version));
	json_object_set_new(root, "state", json_string(run_state_name(st->state)));
	json_object_set_new(root, "started", json_time(st->started_ns));
	json_object_set_new(root, "ended", json_time(st->ended_ns));
	json_object_set_new(root, "exit_code",
			    st->exit_code < 0 ? json_null() : json_integer(st->exit_code));
	if (st->trust >= 0)
		json_object_set_new(root, "trust", json_integer(st->trust));
	for (size_t i = 0; i < st->nr; i++) {
		const struct status_step *s = &st->steps[i];
		json_t *j = json_object();

		json_object_set_new(j, "name", json_string_lossy(s->name));
		json_object_set_new(j, "state", json_string(step_state_name(s->state)));
		json_object_set_new(j, "start", json_time(s->start_ns));
		json_object_set_new(j, "end", json_time(s->end_ns));
		if (s->exit_status >= 0)
			json_object_set_new(j, "exit_status", json_integer(s->exit_status));
		if (s->signal) {
			json_object_set_new(j, "signal", json_integer(s->signal));
			json_object_set_new(j, "signal_name",
					    json_string(proc_signal_name(s->signal)));
		}
		if (s->message)
			json_object_set_new(j, "message", json_string_lossy(s->message));
		json_array_append_new(steps, j);
	}
	json_object_set_new(root, "steps", steps);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text)
		BUG("cannot serialize status");
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
	json_decref(root);
}

int run_status_write(const struct run_status *st, const struct bundle_dir *bd, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!st->path)
		return 0;
	run_status_to_json(st, &sb);
	ret = bundle_dir_write(bd, st->path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}
