/* rank_summary.c: see rank_summary.h. Names and hosts are written with
 * tabs and line ends replaced by spaces, so one record stays one line. */
#include <inttypes.h>
#include <string.h>

#include "analysis/rank_summary.h"
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

static void add_window(struct strbuf *out, const char *stage, int64_t start, int64_t end)
{
	strbuf_addstr(out, "window");
	add_field(out, stage);
	strbuf_addf(out, "\t%" PRId64 "\t%" PRId64 "\n", start, end);
}

static void add_kernel(struct strbuf *out, int64_t start, int64_t end, int dev, int stream,
		       const char *name)
{
	strbuf_addf(out, "kernel\t%" PRId64 "\t%" PRId64 "\t%d\t%d", start, end, dev, stream);
	add_field(out, name);
	strbuf_addch(out, '\n');
}

static void add_windows(struct strbuf *out, const struct trace *t, const struct stage_config *sc,
			int64_t origin)
{
	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		const char *text = strtab_str(&t->strs, r->text);
		const char *dom = strtab_str(&t->strs, r->domain);

		for (int s = STAGE_PREFILL; text && s <= STAGE_DECODE; s++) {
			int hit = 0;

			for (size_t j = 0; j < sc->stages[s].nnames && !hit; j++)
				hit = stage_name_matches(sc->stages[s].names[j], text, dom);
			if (!hit || trace_range_end(t, r) < r->start)
				continue;
			add_window(out, stage_role_name(s), r->start + origin,
				   trace_range_end(t, r) + origin);
			break;
		}
	}
}

size_t rank_summary_format_trace(const struct trace *t, const struct stage_config *sc,
				 const char *host, const struct rank_clock *c, struct strbuf *out)
{
	struct strbuf k = STRBUF_INIT;
	int64_t origin = c && c->source ? c->origin_ns : 0;
	struct coll_name cn;
	size_t n = 0;

	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *kr = &t->kernels[i];
		const struct trace_ksig *sig = trace_ksig(t, kr);
		const char *name = strtab_str(&t->strs, sig->name);

		if (!name || !coll_parse_name(name, &cn))
			continue;
		add_kernel(&k, kr->start + origin, kr->end + origin, (int)sig->device,
			   (int)sig->stream, name);
		n++;
	}
	if (n) {
		add_head(out, host, c);
		add_windows(out, t, sc, origin);
		strbuf_add(out, k.buf, k.len);
	}
	strbuf_release(&k);
	return n;
}

size_t rank_summary_format_kernels(const struct coll_kernel *k, size_t nk,
				   const struct coll_window *w, size_t nw, const char *host,
				   const struct rank_clock *c, struct strbuf *out)
{
	struct strbuf ks = STRBUF_INIT;
	struct coll_name cn;
	size_t n = 0;

	for (size_t i = 0; i < nk; i++) {
		if (!k[i].name || !coll_parse_name(k[i].name, &cn))
			continue;
		add_kernel(&ks, k[i].start, k[i].end, k[i].device, k[i].stream, k[i].name);
		n++;
	}
	if (n) {
		add_head(out, host, c);
		for (size_t i = 0; i < nw; i++)
			add_window(out, w[i].stage, w[i].start, w[i].end);
		strbuf_add(out, ks.buf, ks.len);
	}
	strbuf_release(&ks);
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
