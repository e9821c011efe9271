/* nvtxnow.c: see nvtxnow.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxnow.h"
#include "trace/tracelog.h"
#include "core/banned.h"

/* Deeper ranges are counted, not kept: the answer needs the outer ones. */
#define NOW_MAX_DEPTH 16
/* At most this much of one file per poll: a poll stays cheap, and a
 * program writing faster is followed with a lag. */
#define NOW_MAX_READ (16u << 20)

struct id_name {
	uint64_t id;
	char *name;
};

struct level {
	char *name; /* owned; NULL = none */
	unsigned long count;
};

struct thread {
	uint32_t tid;
	size_t depth;			  /* open ranges, also past NOW_MAX_DEPTH */
	struct level open[NOW_MAX_DEPTH]; /* the open ranges, outermost first */
	struct level last[NOW_MAX_DEPTH]; /* the last range pushed at each depth */
	uint64_t seq;			  /* when it last pushed or popped */
};

struct file {
	char *name;
	off_t off;	       /* bytes read so far */
	int broken;	       /* not a log, or damaged: left alone */
	unsigned char hdr[64]; /* the file header, once read */
	size_t hdr_len;
	struct strbuf pending;	 /* read bytes after the header, not yet a whole chunk */
	struct id_name *strings; /* registered strings */
	size_t nr_strings, alloc_strings;
	struct thread *threads;
	size_t nr_threads, alloc_threads;
};

struct nvtx_now {
	char *dir;
	struct file *files;
	size_t nr, alloc;
	uint64_t seq; /* event counter across files: which thread was active last */
};

struct nvtx_now *nvtx_now_new(const char *log_dir)
{
	struct nvtx_now *n = xcalloc(1, sizeof(*n));

	n->dir = xstrdup(log_dir ? log_dir : "");
	return n;
}

static char *dupz(const char *p, size_t len)
{
	char *s = xmalloc(len + 1);

	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

static void level_set(struct level *l, const char *name, size_t len, unsigned long count)
{
	free(l->name);
	l->name = dupz(name, len);
	l->count = count;
}

static void level_clear(struct level *l)
{
	free(l->name);
	l->name = NULL;
	l->count = 0;
}

static void file_release(struct file *f)
{
	free(f->name);
	strbuf_release(&f->pending);
	for (size_t i = 0; i < f->nr_strings; i++)
		free(f->strings[i].name);
	free(f->strings);
	for (size_t i = 0; i < f->nr_threads; i++) {
		for (size_t d = 0; d < NOW_MAX_DEPTH; d++) {
			level_clear(&f->threads[i].open[d]);
			level_clear(&f->threads[i].last[d]);
		}
	}
	free(f->threads);
}

void nvtx_now_free(struct nvtx_now *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		file_release(&n->files[i]);
	free(n->files);
	free(n->dir);
	free(n);
}

static struct file *file_get(struct nvtx_now *n, const char *name)
{
	struct file *f;

	for (size_t i = 0; i < n->nr; i++)
		if (!strcmp(n->files[i].name, name))
			return &n->files[i];
	ALLOC_GROW(n->files, n->nr + 1, n->alloc);
	f = &n->files[n->nr++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	strbuf_init(&f->pending, 0);
	return f;
}

static struct thread *thread_get(struct file *f, uint32_t tid)
{
	struct thread *t;

	for (size_t i = 0; i < f->nr_threads; i++)
		if (f->threads[i].tid == tid)
			return &f->threads[i];
	ALLOC_GROW(f->threads, f->nr_threads + 1, f->alloc_threads);
	t = &f->threads[f->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static const char *string_find(const struct file *f, uint64_t id)
{
	for (size_t i = f->nr_strings; i-- > 0;)
		if (f->strings[i].id == id)
			return f->strings[i].name;
	return NULL;
}

static void push(struct nvtx_now *n, struct file *f, uint32_t tid, const char *name, size_t len)
{
	struct thread *t = thread_get(f, tid);
	size_t d = t->depth++;

	t->seq = ++n->seq;
	if (d >= NOW_MAX_DEPTH)
		return;
	/* the Nth range of this name in a row at this depth */
	if (t->last[d].name && strlen(t->last[d].name) == len &&
	    !memcmp(t->last[d].name, name, len))
		t->last[d].count++;
	else
		level_set(&t->last[d], name, len, 1);
	level_set(&t->open[d], name, len, t->last[d].count);
	/* a new range starts its children's counts over */
	if (d + 1 < NOW_MAX_DEPTH)
		level_clear(&t->last[d + 1]);
}

static void pop(struct nvtx_now *n, struct file *f, uint32_t tid)
{
	struct thread *t = thread_get(f, tid);

	t->seq = ++n->seq;
	if (!t->depth)
		return; /* a pop of a range pushed before the log began */
	t->depth--;
	if (t->depth < NOW_MAX_DEPTH)
		level_clear(&t->open[t->depth]);
}

static void record(struct nvtx_now *n, struct file *f, const struct tlog_item *it)
{
	const struct tlog_rec *rec = it->rec;

	if (rec->type == TLOG_NVTX_STRING) {
		const struct tlog_nvtx_def *d = (const void *)rec;
		struct str s = tlog_rec_string(rec, sizeof(*d), d->len);

		ALLOC_GROW(f->strings, f->nr_strings + 1, f->alloc_strings);
		f->strings[f->nr_strings].id = d->id;
		f->strings[f->nr_strings++].name = dupz(s.p, s.len);
	} else if (rec->type == TLOG_NVTX_PUSH) {
		const struct tlog_nvtx_event *e = (const void *)rec;
		const char *name = NULL;
		size_t len = 0;

		if (rec->aux == TLOG_MSG_TEXT) {
			struct str s = tlog_rec_string(rec, sizeof(*e), e->len);

			name = s.p;
			len = s.len;
		} else if (rec->aux == TLOG_MSG_REGISTERED &&
			   (name = string_find(f, e->string_id))) {
			len = strlen(name);
		}
		if (!name || !len) {
			name = "(unnamed)";
			len = strlen(name);
		}
		push(n, f, it->tid, name, len);
	} else if (rec->type == TLOG_NVTX_POP) {
		pop(n, f, it->tid);
	}
}

/* Takes the whole chunks off f->pending and follows their records. */
static void file_consume(struct nvtx_now *n, struct file *f)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
	struct tlog_reader r;
	struct tlog_item it;
	size_t used = 0;

	strbuf_add(&buf, f->hdr, f->hdr_len);
	while (f->pending.len - used >= sizeof(struct tlog_chunk_header)) {
		struct tlog_chunk_header ch;

		memcpy(&ch, f->pending.buf + used, sizeof(ch));
		if (ch.magic != TLOG_CHUNK_MAGIC || ch.size > TLOG_MAX_CHUNK || ch.size % 8) {
			f->broken = 1;
			break;
		}
		if (ch.size > f->pending.len - used - sizeof(ch))
			break; /* still being written */
		/* thread 0's chunks are the GPU's records: no NVTX there */
		if (ch.tid)
			strbuf_add(&buf, f->pending.buf + used, sizeof(ch) + ch.size);
		used += sizeof(ch) + ch.size;
	}
	if (!used)
		goto out;
	if (!tlog_reader_init(&r, buf.buf, buf.len, f->name, &err)) {
		while (tlog_next(&r, &it))
			record(n, f, &it);
	} else {
		f->broken = 1;
	}
	tlog_reader_release(&r);
	memmove(f->pending.buf, f->pending.buf + used, f->pending.len - used);
	strbuf_setlen(&f->pending, f->pending.len - used);
out:
	strbuf_release(&buf);
	strbuf_release(&err);
}

void nvtx_now_feed(struct nvtx_now *n, const char *name, const void *buf, size_t len)
{
	struct file *f = file_get(n, name);
	const unsigned char *p = buf;

	f->off += (off_t)len;
	if (f->broken)
		return;
	if (f->hdr_len < sizeof(f->hdr)) {
		size_t k = sizeof(f->hdr) - f->hdr_len;

		if (k > len)
			k = len;
		memcpy(f->hdr + f->hdr_len, p, k);
		f->hdr_len += k;
		p += k;
		len -= k;
		if (f->hdr_len < sizeof(f->hdr))
			return;
		if (memcmp(f->hdr, TLOG_MAGIC, 8)) {
			f->broken = 1;
			return;
		}
	}
	strbuf_add(&f->pending, p, len);
	file_consume(n, f);
}

void nvtx_now_describe(const struct nvtx_now *n, size_t levels, struct strbuf *out)
{
	const struct thread *best = NULL;

	for (size_t i = 0; i < n->nr; i++)
		for (size_t j = 0; j < n->files[i].nr_threads; j++) {
			const struct thread *t = &n->files[i].threads[j];

			if (t->depth && t->open[0].name && (!best || t->seq > best->seq))
				best = t;
		}
	if (!best)
		return;
	for (size_t d = 0; d < levels && d < best->depth && d < NOW_MAX_DEPTH; d++) {
		const struct level *l = &best->open[d];

		if (!l->name)
			break;
		strbuf_addf(out, "%s%s", d ? " > " : "", l->name);
		if ((d + 1 == levels || d + 1 == best->depth) && l->count > 1)
			strbuf_addf(out, " #%lu", l->count);
	}
}

/* Reads what path gained since the last poll (at most NOW_MAX_READ). */
static void file_poll(struct nvtx_now *n, const char *name, const char *path)
{
	struct file *f = file_get(n, name);
	struct stat st;
	char *buf;
	size_t want, got = 0;
	int fd;

	if (f->broken || stat(path, &st) || st.st_size <= f->off)
		return;
	want = (size_t)(st.st_size - f->off);
	if (want > NOW_MAX_READ)
		want = NOW_MAX_READ;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = xmalloc(want);
	while (got < want) {
		ssize_t r = pread(fd, buf + got, want - got, f->off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got)
		nvtx_now_feed(n, name, buf, got);
	free(buf);
}

void nvtx_now_poll(struct nvtx_now *n, size_t levels, struct strbuf *out)
{
	DIR *d = opendir(n->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		struct strbuf p = STRBUF_INIT;

		if (!starts_with(e->d_name, "trace-") || !ends_with(e->d_name, ".bin"))
			continue;
		path_join(&p, n->dir, e->d_name);
		file_poll(n, e->d_name, p.buf);
		strbuf_release(&p);
	}
	if (d)
		closedir(d);
	nvtx_now_describe(n, levels, out);
}
