/* rank_summary.c: see rank_summary.h. Names and hosts are written with
 * tabs and line ends replaced by spaces, so one record stays one line. */
#include <inttypes.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/rank_summary.h"
#include "analysis/session.h"
#include "core/xalloc.h"
#include "core/banned.h"

static void add_field(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\t');
	for (; s && *s; s++)
		strbuf_addch(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* The recorded host of the first process with one, else fallback. The
 * tracer records it per process; a --rank-dir bundle has one process
 * running NCCL, whichever it is. */
static void add_host(struct strbuf *out, struct trace *t, const char *fallback)
{
	struct strbuf err = STRBUF_INIT;
	struct trace_process *p = NULL;
	size_t n = 0;
	const char *host = fallback;

	if (!trace_processes(t, &p, &n, &err))
		for (size_t i = 0; i < n && host == fallback; i++)
			if (p[i].host && *p[i].host)
				host = p[i].host;
	strbuf_addstr(out, "host");
	add_field(out, host);
	strbuf_addch(out, '\n');
	trace_processes_free(p, n);
	strbuf_release(&err);
}

static void add_windows(struct strbuf *out, const struct trace *t, const struct stage_config *sc)
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
			strbuf_addstr(out, "window");
			add_field(out, stage_role_name(s));
			strbuf_addf(out, "\t%" PRId64 "\t%" PRId64 "\n", r->start,
				    trace_range_end(t, r));
			break;
		}
	}
}

size_t rank_summary_format(struct report_analysis *a, const char *host, struct strbuf *out)
{
	const struct trace *t = &a->trace;
	struct strbuf k = STRBUF_INIT;
	struct coll_name cn;
	size_t n = 0;

	if (!a->have_trace)
		return 0;
	for (size_t i = 0; i < t->nkernels; i++) {
		const struct trace_kernel *kr = &t->kernels[i];
		const struct trace_ksig *sig = trace_ksig(t, kr);
		const char *name = strtab_str(&t->strs, sig->name);

		if (!name || !coll_parse_name(name, &cn))
			continue;
		strbuf_addf(&k, "kernel\t%" PRId64 "\t%" PRId64 "\t%d\t%d", kr->start, kr->end,
			    (int)sig->device, (int)sig->stream);
		add_field(&k, name);
		strbuf_addch(&k, '\n');
		n++;
	}
	if (n) {
		strbuf_addstr(out, RANK_SUMMARY_MAGIC "\n");
		add_host(out, &a->trace, host);
		add_windows(out, t, &a->stages);
		strbuf_add(out, k.buf, k.len);
	}
	strbuf_release(&k);
	return n;
}
