/* rank_summary.c: see rank_summary.h. Names and hosts are written with
 * tabs and line ends replaced by spaces, so one record stays one line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rank_summary.h"
#include "analysis/ranks.h"
#include "analysis/session.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "core/banned.h"

static void add_field(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\t');
	for (; s && *s; s++)
		strbuf_addch(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void rank_boot_id(struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;

	strbuf_reset(out);
	if (read_regular_file("/proc/sys/kernel/random/boot_id", 4096, out, &err))
		strbuf_reset(out);
	strbuf_trim(out);
	strbuf_release(&err);
}

void rank_clock_of_trace(struct trace *t, const char *host, const char *boot_id,
			 struct rank_clock *out)
{
	struct strbuf err = STRBUF_INIT;
	int64_t t0;

	memset(out, 0, sizeof(*out));
	out->host = host ? host : "";
	out->boot_id = boot_id ? boot_id : "";
	if (trace_session_start(t, &t0, &err) == 1) {
		/* the builtin tracer's times are CLOCK_REALTIME - its earliest
		 * log start; nsys's are its session's, whose start it states in
		 * UTC */
		out->source =
		    t->producer && strstr(t->producer, "llmprof") ? "realtime" : "nsys-utc";
		out->origin_ns = t0;
	}
	strbuf_release(&err);
}

/* The recorded host of the first process with one, else fallback. The
 * tracer records it per process; a --rank-dir bundle has one process
 * running NCCL, whichever it is. */
static const char *recorded_host(struct trace *t, const char *fallback, struct strbuf *keep)
{
	struct strbuf err = STRBUF_INIT;
	struct trace_process *p = NULL;
	size_t n = 0;

	strbuf_addstr(keep, fallback ? fallback : "");
	if (!trace_processes(t, &p, &n, &err))
		for (size_t i = 0; i < n; i++)
			if (p[i].host && *p[i].host) {
				strbuf_reset(keep);
				strbuf_addstr(keep, p[i].host);
				break;
			}
	trace_processes_free(p, n);
	strbuf_release(&err);
	return keep->buf;
}

static void add_head(struct strbuf *out, const char *host, const struct rank_clock *c)
{
	strbuf_addstr(out, RANK_SUMMARY_MAGIC "\nhost");
	add_field(out, host);
	strbuf_addch(out, '\n');
	if (c && c->source) {
		strbuf_addstr(out, "clock");
		add_field(out, c->source);
		add_field(out, c->host && *c->host ? c->host : host);
		add_field(out, c->boot_id);
		strbuf_addch(out, '\n');
	}
}

static void add_window(struct strbuf *out, const char *rec, const char *stage, int64_t start,
		       int64_t end)
{
	strbuf_addstr(out, rec);
	if (stage)
		add_field(out, stage);
	strbuf_addf(out, "\t%" PRId64 "\t%" PRId64 "\n", start, end);
}

/* A time field: "-" for none (unknown launch, no previous NCCL kernel). */
static void add_time(struct strbuf *out, int known, int64_t v)
{
	if (known)
		strbuf_addf(out, "\t%" PRId64, v);
	else
		strbuf_addstr(out, "\t-");
}

static void add_kernel(struct strbuf *out, const struct coll_kernel *k, const struct coll_gap *g,
		       int64_t origin)
{
	int gap = g->prev_end != COLL_GAP_NONE;

	strbuf_addf(out, "kernel\t%" PRId64 "\t%" PRId64 "\t%d\t%d", k->start + origin,
		    k->end + origin, (int)k->device, (int)k->stream);
	add_time(out, g->launch >= 0, g->launch + origin);
	add_time(out, gap, g->prev_end + origin);
	add_time(out, gap, g->busy_ns);
	add_time(out, gap, g->kernels);
	add_field(out, k->name);
	strbuf_addch(out, '\n');
}

/* What one rank's summary holds: a part (ranks.h), borrowed. */
struct part_view {
	const struct coll_kernel *k;
	const struct coll_gap *gaps; /* parallel to k */
	size_t nk;
	const struct coll_window *w, *steps;
	size_t nw, nsteps;
};

/* The summary of a part, every time moved by origin. */
static size_t format_part(const struct part_view *p, const char *host, const struct rank_clock *c,
			  int64_t origin, struct strbuf *out)
{
	struct strbuf ks = STRBUF_INIT;
	struct coll_name cn;
	size_t n = 0;

	for (size_t i = 0; i < p->nk; i++) {
		if (!p->k[i].name || !coll_parse_name(p->k[i].name, &cn))
			continue;
		add_kernel(&ks, &p->k[i], &p->gaps[i], origin);
		n++;
	}
	if (n) {
		add_head(out, host, c);
		for (size_t i = 0; i < p->nw; i++)
			add_window(out, "window", p->w[i].stage, p->w[i].start + origin,
				   p->w[i].end + origin);
		for (size_t i = 0; i < p->nsteps; i++)
			add_window(out, "step", NULL, p->steps[i].start + origin,
				   p->steps[i].end + origin);
		strbuf_add(out, ks.buf, ks.len);
	}
	strbuf_release(&ks);
	return n;
}

size_t rank_summary_format_trace(const struct trace *t, const struct stage_config *sc,
				 const char *host, const struct rank_clock *c, struct strbuf *out)
{
	struct coll_part p;
	struct part_view v;
	size_t n;

	coll_part_of_trace(t, sc, &p);
	v = (struct part_view){p.k, p.gaps, p.nk, p.w, p.steps, p.nw, p.nsteps};
	n = format_part(&v, host, c, c && c->source ? c->origin_ns : 0, out);
	coll_part_release(&p);
	return n;
}

size_t rank_summary_format_kernels(const struct coll_kernel *k, const int64_t *launch, size_t nk,
				   const struct coll_window *w, size_t nw,
				   const struct coll_window *steps, size_t nsteps, const char *host,
				   const struct rank_clock *c, struct strbuf *out)
{
	struct coll_gap *gaps = xmalloc(st_mult(nk + 1, sizeof(*gaps)));
	struct part_view v = {k, gaps, nk, w, steps, nw, nsteps};
	size_t n;

	coll_gaps_compute(k, nk, launch, gaps);
	n = format_part(&v, host, c, 0, out);
	free(gaps);
	return n;
}

size_t rank_summary_format(struct report_analysis *a, const char *host, struct strbuf *out)
{
	struct strbuf h = STRBUF_INIT, boot = STRBUF_INIT;
	struct rank_clock c;
	size_t n;

	if (!a->have_trace)
		return 0;
	recorded_host(&a->trace, host, &h);
	rank_boot_id(&boot);
	rank_clock_of_trace(&a->trace, h.buf, boot.buf, &c);
	n = rank_summary_format_trace(&a->trace, &a->stages, h.buf, &c, out);
	strbuf_release(&boot);
	strbuf_release(&h);
	return n;
}
