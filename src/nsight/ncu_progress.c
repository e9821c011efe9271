/* ncu_progress.c: ncu's "==PROF== Profiling" lines -> progress; see
 * ncu_progress.h. */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "core/util.h"
#include "nsight/ncu_progress.h"
#include "core/banned.h"

void ncu_progress_init(struct ncu_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->current_id = -1;
	strbuf_init(&p->line, 0);
}

void ncu_progress_release(struct ncu_progress *p)
{
	strbuf_release(&p->line);
}

/* memmem is a GNU extension; memchr on the first byte is as good here. */
static const char *find(const char *s, size_t n, const char *what)
{
	size_t w = strlen(what);
	const char *end = s + n, *q = s;

	while (w && (size_t)(end - q) >= w && (q = memchr(q, what[0], (size_t)(end - q) - w + 1))) {
		if (!memcmp(q, what, w))
			return q;
		q++;
	}
	return NULL;
}

/* " - N pass" / " - N passes" anywhere in s: the end of a result. */
static int find_passes(const char *s, size_t n, int *passes)
{
	for (const char *q = find(s, n, " - "); q;
	     q = find(q + 1, n - (size_t)(q + 1 - s), " - ")) {
		const char *d = q + 3, *end = s + n;
		long v = 0;

		if (d >= end || !isdigit((unsigned char)*d))
			continue;
		while (d < end && isdigit((unsigned char)*d) && v < 1000000)
			v = v * 10 + (*d++ - '0');
		if ((size_t)(end - d) >= 5 && !memcmp(d, " pass", 5)) {
			*passes = (int)v;
			return 1;
		}
	}
	return 0;
}

/* Parses one (possibly unfinished) line; returns 1 on a state change. */
static int parse_line(struct ncu_progress *p, const char *s, size_t n, int complete)
{
	static const char tag[] = "==PROF== Profiling \"";
	const char *t = find(s, n, tag), *end = s + n;
	int passes, changed = 0;

	if (complete) {
		if (find(s, n, "No kernels were profiled"))
			p->no_kernels = changed = 1;
		if (find(s, n, "No ranges were profiled"))
			p->no_ranges = changed = 1;
		if (find(s, n, "==ERROR=="))
			p->errors++, changed = 1;
		if (find(s, n, "==PROF== Connected to process "))
			p->connected++, changed = 1;
		if ((t = find(s, n, "==PROF== Report: "))) {
			size_t l = (size_t)(end - t) - 17;

			if (l >= sizeof(p->report))
				l = sizeof(p->report) - 1;
			memcpy(p->report, t + 17, l);
			p->report[l] = '\0';
			return 1;
		}
		t = find(s, n, tag);
	}
	if (t) {
		const char *name = t + sizeof(tag) - 1,
			   *q = memchr(name, '"', (size_t)(end - name));
		const char *c;
		int pct = 0;
		long long id = -1;
		size_t l;

		if (!q)
			return changed;
		l = (size_t)(q - name) < sizeof(p->name) - 1 ? (size_t)(q - name)
							     : sizeof(p->name) - 1;
		c = q + 1;
		if (end - c >= 3 && !memcmp(c, " - ", 3)) {
			c += 3;
			id = 0;
			/* past 18 digits it is not ncu's id: saturate, do not overflow */
			for (; c < end && isdigit((unsigned char)*c); c++)
				if (id < LLONG_MAX / 10)
					id = id * 10 + (*c - '0');
		}
		if (c < end && *c == ':')
			c++;
		while (c < end && *c == ' ')
			c++;
		/* 0%....50%....100%: milestones and one '.' per 10 %. */
		while (c < end) {
			if (*c == '.') {
				pct += 10;
				c++;
			} else if (end - c >= 4 && !memcmp(c, "100%", 4)) {
				pct = 100;
				c += 4;
			} else if (end - c >= 3 && !memcmp(c, "50%", 3)) {
				pct = 50;
				c += 3;
			} else if (end - c >= 2 && !memcmp(c, "0%", 2)) {
				pct = 0;
				c += 2;
			} else {
				break;
			}
		}
		if (pct > 100)
			pct = 100;
		if (!p->in_progress || p->current_id != id || p->pct != pct ||
		    strncmp(p->name, name, l) || p->name[l]) {
			memcpy(p->name, name, l);
			p->name[l] = '\0';
			p->current_id = id;
			p->pct = pct;
			p->in_progress = 1;
			changed = 1;
		}
		s = c;
		n = (size_t)(end - c);
	}
	if (complete && p->in_progress && find_passes(s, n, &passes)) {
		p->passes = passes;
		p->passes_total += passes;
		if (!p->passes_min || passes < p->passes_min)
			p->passes_min = passes;
		if (passes > p->passes_max)
			p->passes_max = passes;
		p->pct = 100;
		p->in_progress = 0;
		p->done++;
		changed = 1;
	}
	return changed;
}

int ncu_progress_feed(struct ncu_progress *p, const char *buf, size_t len)
{
	int changed = 0;
	size_t start = 0, from = p->line.len; /* the kept part has no newline */

	strbuf_add(&p->line, buf, len);
	for (size_t i = from; i < p->line.len; i++) {
		if (p->line.buf[i] != '\n' && p->line.buf[i] != '\r')
			continue;
		changed |= parse_line(p, p->line.buf + start, i - start, 1);
		start = i + 1;
	}
	if (start) {
		memmove(p->line.buf, p->line.buf + start, p->line.len - start);
		strbuf_setlen(&p->line, p->line.len - start);
	}
	/* The growing "0%....50%" line has no newline yet. It is short (tag,
	 * a name of at most ~100 characters, the dots); a long unfinished
	 * line is the program's output and is not rescanned on every read. */
	if (p->line.len && p->line.len <= 1024)
		changed |= parse_line(p, p->line.buf, p->line.len, 0);
	if (p->line.len > 65536) /* a program printing without newlines */
		strbuf_reset(&p->line);
	return changed;
}

void ncu_progress_format(const struct ncu_progress *p, size_t expected, double elapsed_s,
			 struct strbuf *out)
{
	long long k = p->in_progress ? p->done + 1 : p->done;

	strbuf_addf(out, "ncu: kernel %lld", k);
	if (expected)
		strbuf_addf(out, " of %zu", expected);
	if (p->name[0])
		strbuf_addf(out, " \"%s\"", p->name);
	if (p->in_progress) {
		if (p->passes)
			strbuf_addf(out, ": pass ~%d of %d (%d%%)", (p->pct * p->passes + 50) / 100,
				    p->passes, p->pct);
		else
			strbuf_addf(out, ": %d%% of its passes", p->pct);
	} else if (p->done) {
		strbuf_addf(out, ": done (%d pass%s)", p->passes, p->passes == 1 ? "" : "es");
	}
	if (elapsed_s >= 0)
		strbuf_addf(out, ", %.1f s elapsed", elapsed_s);
}
