/* strbuf.h: the one owned, growable, always NUL-terminated string type, and
 * struct str, a borrowed slice for zero-copy parsing.
 *
 * A strbuf owns buf; release it with strbuf_release() or take it with
 * strbuf_detach(). buf is never NULL, even when empty. */
#ifndef LLMPROF_STRBUF_H
#define LLMPROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT                                                                                \
	{                                                                                          \
		0, 0, strbuf_slopbuf                                                               \
	}

/* A borrowed slice: p is not NUL-terminated and not owned. */
struct str {
	const char *p;
	size_t len;
};

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Returns the buffer (caller owns; free()) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_trim(struct strbuf *sb);

/* Reads all of fd/path into sb; returns 0 or -1 with errno set. */
int strbuf_read_fd(struct strbuf *sb, int fd);
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
