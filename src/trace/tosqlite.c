/* tosqlite.c: builtin tracer logs -> nsys-schema SQLite (see tosqlite.h):
 * finding the logs and reading each through a window, then the steps in
 * order. The parts are
 * named in tosqlite_internal.h: rows (tosqlite_row.c), the database
 * (tosqlite_db.c) and each process's two passes (tosqlite_pass.c). */
#include <dirent.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/perfetto.h"
#include "trace/tosqlite.h"
#include "trace/tosqlite_internal.h"
#include "trace/tracer_env.h"
#include "core/banned.h"

void trace_convert_stats_init(struct trace_convert_stats *st)
{
	memset(st, 0, sizeof(*st));
	strbuf_init(&st->diags, 0);
}

void trace_convert_stats_release(struct trace_convert_stats *st)
{
	strbuf_release(&st->diags);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of log files in dir; returns count or -1. */
static int list_logs(const char *dir, char ***out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	if (!d)
		return error_errno(err, "cannot open trace log directory '%s'", dir);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), pl = strlen(TRACER_LOG_PREFIX),
		       sl = strlen(TRACER_LOG_SUFFIX);
		if (len <= pl + sl || strncmp(e->d_name, TRACER_LOG_PREFIX, pl) ||
		    strcmp(e->d_name + len - sl, TRACER_LOG_SUFFIX))
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (int)n;
}

/* The logs of one conversion: names and which are readable. Each is read
 * through a window (tracelog.h), one at a time, never whole. */
struct logs {
	char **files;  /* sorted names */
	int *readable; /* indices into files of the logs whose header reads */
	int nfiles, nread;
};

/* A log that cannot be read is a problem (in problems, st->problems), not a
 * failure, while another one is readable. */
static void log_problem(struct strbuf *problems, struct trace_convert_stats *st, struct strbuf *err)
{
	strbuf_addf(problems, "%s\n", err->buf);
	strbuf_reset(err);
	st->problems++;
}

/* Lists the logs of log_dir and reads each one's header; *t0 = the
 * earliest start. 0 or -1 (err set). */
static int logs_read(struct logs *l, const char *log_dir, int64_t *t0,
		     struct trace_convert_stats *st, struct strbuf *problems, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;

	l->nfiles = list_logs(log_dir, &l->files, err);
	if (l->nfiles < 0) {
		l->nfiles = 0;
		return -1;
	}
	if (l->nfiles == 0) {
		return error_set(err,
				 "no trace logs (" TRACER_LOG_PREFIX "*" TRACER_LOG_SUFFIX
				 ") in '%s': the tracer was not loaded, or LLMPROF_TRACE_OUT was "
				 "not set",
				 log_dir);
	}
	l->readable = xcalloc((size_t)l->nfiles, sizeof(*l->readable));
	*t0 = INT64_MAX;
	for (int i = 0; i < l->nfiles; i++) {
		struct tlog_reader r;

		strbuf_reset(&path);
		path_join(&path, log_dir, l->files[i]);
		/* a header that does not read (e.g. killed before it was written)
		 * is a problem, and the other processes are kept; a file that
		 * cannot be opened (not a regular file, no permission) fails */
		if (tlog_reader_open(&r, path.buf, l->files[i], err) < 0) {
			if (r.fd < 0) {
				tlog_reader_release(&r);
				strbuf_release(&path);
				return -1;
			}
			log_problem(problems, st, err);
		} else {
			if ((int64_t)r.hdr.start_ns < *t0)
				*t0 = (int64_t)r.hdr.start_ns;
			l->readable[l->nread++] = i;
		}
		tlog_reader_release(&r);
	}
	strbuf_release(&path);
	st->files = (uint64_t)l->nfiles;
	if (!l->nread)
		return error_set(err, "no readable trace log in '%s':\n%s", log_dir, problems->buf);
	return 0;
}

/* Converts the readable logs one at a time. */
static void logs_convert(struct conv *c, const struct logs *l, const char *log_dir,
			 struct strbuf *problems)
{
	struct strbuf path = STRBUF_INIT;

	for (int k = 0; k < l->nread && !c->failed; k++) {
		const char *name = l->files[l->readable[k]];
		struct tlog_reader r;

		strbuf_reset(&path);
		path_join(&path, log_dir, name);
		if (tlog_reader_open(&r, path.buf, name, c->err) < 0)
			log_problem(problems, c->stats, c->err); /* gone since it was listed */
		else
			conv_process(c, &r, problems);
		tlog_reader_release(&r);
	}
	strbuf_release(&path);
}

static void logs_release(struct logs *l)
{
	for (int i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l->readable);
}

int trace_convert(const char *log_dir, const struct bundle_dir *bd, const char *sqlite_path,
		  const char *json_path, struct trace_convert_stats *st_out, struct strbuf *err)
{
	struct trace_convert_stats st_local;
	struct trace_convert_stats *st = st_out;
	struct conv c;
	struct logs logs;
	int ret = -1, fd, cannot_write = 0;
	struct strbuf tmp = STRBUF_INIT, tmp_path = STRBUF_INIT, problems = STRBUF_INIT;
	struct strbuf shown = STRBUF_INIT;
	uint64_t t_begin = clock_mono_ns();

	if (!st) {
		trace_convert_stats_init(&st_local);
		st = &st_local;
	}
	memset(&c, 0, sizeof(c));
	memset(&logs, 0, sizeof(logs));
	c.stats = st;
	c.err = err;
	c.interrupts0 = proc_interrupt_count();
	if (logs_read(&logs, log_dir, &c.t0, st, &problems, err) < 0)
		goto out;
	/* from here on a failure of our own calls is a write's (exit 7); SQLite's
	 * says which in c.cannot_write */
	cannot_write = 1;
	/* an empty file of our own (never a planted symlink) that SQLite fills */
	fd = bundle_dir_temp_file(bd, sqlite_path, &tmp, err);
	if (fd < 0)
		goto out;
	close(fd);
	/* SQLite opens files by name and, told NOFOLLOW, refuses a symlink
	 * anywhere on the way: the temporary file's path beneath the root's
	 * real path (a symlink above or at the root is the user's and fine,
	 * one inside the bundle is refused) */
	bundle_dir_path(bd, tmp.buf, &shown);
	if (bundle_dir_real_path(bd, tmp.buf, &tmp_path, err) < 0 ||
	    conv_open(&c, tmp_path.buf, shown.buf) < 0)
		goto out;
	cannot_write = 0;
	logs_convert(&c, &logs, log_dir, &problems);
	if (c.failed || conv_interrupted_now(&c) || conv_finish(&c) < 0)
		goto out;
	cannot_write = 1;
	if (bundle_dir_rename(bd, tmp.buf, sqlite_path, err) < 0)
		goto out;
	strbuf_reset(&tmp_path);
	bundle_dir_path(bd, sqlite_path, &tmp_path);
	if (json_path) {
		int pw = perfetto_write(tmp_path.buf, bd, json_path, 0, &st->json_events,
					&st->json_merged, err);

		cannot_write = pw == PERFETTO_CANNOT_WRITE;
		if (pw < 0)
			goto out;
	}
	ret = 0;
	if (st->problems) {
		error_set(err, "trace log damaged (kept everything readable): %.*s",
			  (int)(problems.len && problems.buf[problems.len - 1] == '\n'
				    ? problems.len - 1
				    : problems.len),
			  problems.buf);
		ret = TRACE_CONVERT_PARTIAL;
	}
out:
	if (ret == -1 && c.interrupted)
		ret = TRACE_CONVERT_INTERRUPTED;
	else if (ret == -1 && (cannot_write || c.cannot_write))
		ret = TRACE_CONVERT_CANNOT_WRITE;
	st->seconds = (double)(clock_mono_ns() - t_begin) / 1e9;
	conv_release(&c, bd, tmp.buf);
	logs_release(&logs);
	strbuf_release(&tmp);
	strbuf_release(&tmp_path);
	strbuf_release(&shown);
	strbuf_release(&problems);
	if (st == &st_local)
		trace_convert_stats_release(&st_local);
	return ret;
}
