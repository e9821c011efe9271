/* live.c: see live.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/live.h"
#include "core/banned.h"

#define LIVE_DETAIL_MAX 160
#define TAIL_LINE_MAX 300

/* Appends s[0..n) without escape sequences; other control characters
 * become repl (dropped when repl is 0), a tab a space. At most max bytes,
 * never cutting a UTF-8 sequence. */
static void add_printable(struct strbuf *out, const char *s, size_t n, size_t max, char repl)
{
	size_t start = out->len;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x1b) {
			if (i + 1 < n && s[i + 1] == '[') { /* CSI: up to a final byte */
				for (i += 2; i < n && !((unsigned char)s[i] >= 0x40 &&
							(unsigned char)s[i] <= 0x7e);
				     i++)
					;
			} else if (i + 1 < n && s[i + 1] == ']') { /* OSC: to BEL or ESC \ */
				for (i += 2; i < n && s[i] != '\a' && s[i] != 0x1b; i++)
					;
				if (i + 1 < n && s[i] == 0x1b)
					i++;
			} else {
				i++;
			}
			continue;
		}
		if (out->len - start >= max)
			break;
		if (c == '\t')
			strbuf_addch(out, ' ');
		else if (c < 0x20 || c == 0x7f) {
			if (repl)
				strbuf_addch(out, repl);
		} else
			strbuf_addch(out, (char)c);
	}
	if (out->len - start > max)
		strbuf_setlen(out, start + max);
	/* a cut multi-byte character goes whole */
	if (out->len - start == max && out->len > start) {
		size_t e = out->len;

		while (e > start && ((unsigned char)out->buf[e - 1] & 0xc0) == 0x80)
			e--;
		if (e > start && ((unsigned char)out->buf[e - 1] & 0x80))
			strbuf_setlen(out, e - 1);
	}
}

void live_init(struct live *l, FILE *fp, int enabled, int tty, int width, uint64_t now_ns)
{
	memset(l, 0, sizeof(*l));
	l->fp = fp;
	l->enabled = enabled;
	l->tty = tty;
	l->width = width;
	l->run_start_ns = l->step_start_ns = l->last_line_ns = now_ns;
	strbuf_init(&l->name, 0);
	strbuf_init(&l->detail, 0);
}

void live_release(struct live *l)
{
	strbuf_release(&l->name);
	strbuf_release(&l->detail);
}

void live_step(struct live *l, size_t step, size_t nsteps, const char *name, uint64_t now_ns)
{
	l->step = step;
	l->nsteps = nsteps;
	strbuf_reset(&l->name);
	strbuf_addstr(&l->name, name);
	strbuf_reset(&l->detail);
	l->step_start_ns = l->last_line_ns = now_ns;
}

void live_set_detail(struct live *l, const char *detail)
{
	strbuf_reset(&l->detail);
	if (detail)
		add_printable(&l->detail, detail, strlen(detail), LIVE_DETAIL_MAX, 0);
}

void live_format_duration(double s, struct strbuf *out)
{
	long long t = s < 0 ? 0 : (long long)s;

	if (t < 60)
		strbuf_addf(out, "%lld s", t);
	else if (t < 3600)
		strbuf_addf(out, "%lldm%02llds", t / 60, t % 60);
	else
		strbuf_addf(out, "%lldh%02lldm", t / 3600, t % 3600 / 60);
}

void live_format(const struct live *l, uint64_t now_ns, struct strbuf *out)
{
	double step = now_ns > l->step_start_ns ? (double)(now_ns - l->step_start_ns) / 1e9 : 0;
	double run = now_ns > l->run_start_ns ? (double)(now_ns - l->run_start_ns) / 1e9 : 0;

	strbuf_addf(out, "llmprof: step %zu/%zu %s, ", l->step, l->nsteps, l->name.buf);
	live_format_duration(step, out);
	strbuf_addstr(out, " (total ");
	live_format_duration(run, out);
	strbuf_addch(out, ')');
	if (l->detail.len)
		strbuf_addf(out, ": %s", l->detail.buf);
}

/* Cuts line to fit cols - 1 terminal columns (a full last column would
 * wrap on some terminals and break the redraw). */
static void fit_width(struct strbuf *line, int cols)
{
	size_t col = 0;

	if (cols <= 1)
		return;
	for (size_t i = 0; i < line->len; i++) {
		if (((unsigned char)line->buf[i] & 0xc0) == 0x80)
			continue;
		if (++col > (size_t)cols - 1) {
			strbuf_setlen(line, i);
			return;
		}
	}
}

void live_tick(struct live *l, uint64_t now_ns)
{
	struct strbuf line = STRBUF_INIT;

	if (!l->enabled || !l->fp)
		return;
	if (!l->tty && now_ns - l->last_line_ns < (uint64_t)LIVE_PLAIN_EVERY_S * 1000000000ull)
		return;
	live_format(l, now_ns, &line);
	if (l->tty) {
		fit_width(&line, l->width);
		fprintf(l->fp, "\r\033[K%s", line.buf);
		l->drawn = 1;
	} else {
		fprintf(l->fp, "%s\n", line.buf);
		l->last_line_ns = now_ns;
	}
	fflush(l->fp);
	strbuf_release(&line);
}

void live_printed(struct live *l, uint64_t now_ns)
{
	l->last_line_ns = now_ns;
}

void live_clear(struct live *l)
{
	if (!l->drawn)
		return;
	fputs("\r\033[K", l->fp);
	fflush(l->fp);
	l->drawn = 0;
}

void live_last_line(const char *buf, size_t len, size_t max, struct strbuf *out)
{
	size_t end = len, start;

	for (;;) {
		while (end && (buf[end - 1] == '\n' || buf[end - 1] == '\r' ||
			       buf[end - 1] == ' ' || buf[end - 1] == '\t'))
			end--;
		if (!end)
			return;
		start = end;
		while (start && buf[start - 1] != '\n' && buf[start - 1] != '\r')
			start--;
		{
			size_t b = start;

			while (b < end && (buf[b] == ' ' || buf[b] == '\t'))
				b++;
			size_t before = out->len;

			add_printable(out, buf + b, end - b, max, 0);
			/* a line of escape sequences only says nothing: look further up */
			while (out->len > before && out->buf[out->len - 1] == ' ')
				strbuf_setlen(out, out->len - 1);
			if (out->len > before)
				return;
		}
		end = start;
	}
}

int live_file_tail(const char *path, size_t max_lines, size_t max_bytes, const char *indent,
		   struct strbuf *out)
{
	struct strbuf buf = STRBUF_INIT;
	struct stat sbuf;
	size_t start, end, nlines = 0;
	const char *lines[64];
	size_t lens[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	off_t off;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sbuf)) {
		close(fd);
		return -1;
	}
	if (max_lines > 64)
		max_lines = 64;
	off = sbuf.st_size > (off_t)max_bytes ? sbuf.st_size - (off_t)max_bytes : 0;
	strbuf_grow(&buf, (size_t)(sbuf.st_size - off));
	for (;;) {
		char chunk[8192];
		ssize_t r = pread(fd, chunk, sizeof(chunk), off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(&buf, chunk, (size_t)r);
		off += r;
		if (buf.len >= max_bytes)
			break;
	}
	close(fd);
	/* a cut first line is dropped, unless it is the only one */
	start = 0;
	if (sbuf.st_size > (off_t)max_bytes) {
		const char *nl = memchr(buf.buf, '\n', buf.len);

		if (nl && (size_t)(nl - buf.buf) + 1 < buf.len)
			start = (size_t)(nl - buf.buf) + 1;
	}
	end = buf.len;
	while (end > start && (buf.buf[end - 1] == '\n' || buf.buf[end - 1] == '\r'))
		end--;
	/* walk back max_lines lines */
	while (end > start && nlines < max_lines) {
		size_t b = end;

		while (b > start && buf.buf[b - 1] != '\n')
			b--;
		lines[nlines] = buf.buf + b;
		lens[nlines] = end - b;
		nlines++;
		end = b ? b - 1 : b;
		if (b == start)
			break;
	}
	for (size_t i = nlines; i-- > 0;) {
		const char *l = lines[i];
		size_t len = lens[i];

		/* a progress bar redraws with '\r': show what a terminal would */
		while (len && l[len - 1] == '\r')
			len--;
		for (size_t j = len; j-- > 0;) {
			if (l[j] == '\r') {
				len -= j + 1;
				l += j + 1;
				break;
			}
		}
		strbuf_addstr(out, indent);
		add_printable(out, l, len, TAIL_LINE_MAX, '?');
		strbuf_addch(out, '\n');
		n++;
	}
	strbuf_release(&buf);
	return n;
}
