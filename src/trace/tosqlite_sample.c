/* tosqlite_sample.c: the tracer's CPU samples to LLMPROF_CPU_SAMPLES rows,
 * symbolized here, offline, from the objects each process recorded as
 * loaded (trace/symbolize.h), each attributed to the frame
 * sample_attribute() picks; with the sampler's totals per process in
 * LLMPROF_CPU_SAMPLER. docs/tracer.md "CPU samples" has the tables. */
#include <string.h>

#include "core/util.h"
#include "trace/tosqlite_internal.h"
#include "core/banned.h"

#define STACK_TEXT_MAX 4000 /* the stack column is cut there, with "; ..." */
#define ATTR_FRAMES 64	    /* frames a sample's attribution looks at */

void conv_sample_def(struct conv *c, struct sample_proc *sp, uint32_t pid, const struct tlog_rec *h)
{
	if (h->type == TLOG_MODULE) {
		const struct tlog_module *m = (const void *)h;
		struct str s = tlog_rec_string(h, sizeof(*m), m->len);
		struct strbuf path = STRBUF_INIT;

		if (!s.len || m->hi <= m->lo)
			return;
		strbuf_add(&path, s.p, s.len);
		symbolizer_add(&sp->sym, m->base, m->lo, m->hi, path.buf);
		strbuf_release(&path);
		return;
	}
	if (h->type == TLOG_CPU_SAMPLING) {
		struct tlog_cpu_sampling k;

		/* a record from before handler_ns existed reads 0 there */
		memset(&k, 0, sizeof(k));
		memcpy(&k, h, h->size < sizeof(k) ? h->size : sizeof(k));
		if (k.period_ns)
			sp->period_ns = k.period_ns;
		if (h->aux == 1) {
			sp->totals = 1;
			sp->cost_known = h->size >= sizeof(k);
			sp->method = k.method;
			sp->threads = k.threads;
			sp->samples = k.samples;
			sp->dropped = k.dropped;
			sp->handler_ns = k.handler_ns;
			sp->handler_calls = k.handler_calls;
		}
		if (h->aux == 1 && k.dropped)
			strbuf_addf(&c->stats->diags,
				    "pid %u: info: CPU sampling: %llu of %llu samples dropped (the "
				    "signal arrived while the thread was inside the tracer)\n",
				    pid, (unsigned long long)k.dropped,
				    (unsigned long long)(k.samples + k.dropped));
	}
}

static void bind_str(sqlite3_stmt *st, int col, const char *s)
{
	sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
}

void conv_put_sample(struct conv *c, struct sample_proc *sp, int64_t gtid, int64_t ts,
		     const struct tlog_rec *h)
{
	const struct tlog_cpu_sample *s = (const void *)h;
	const unsigned char *fr = (const unsigned char *)(s + 1);
	sqlite3_stmt *st = c->st[S_CPUSAMPLE];
	struct strbuf stack = STRBUF_INIT;
	struct sym_answer f[ATTR_FRAMES];
	struct sym_answer none = {"(unknown)", "(unknown)", "other", 0};
	uint32_t n = s->nframes;
	size_t nf = 0, at = 0, fn = 0;
	int64_t period;

	if ((size_t)n > (h->size - sizeof(*s)) / 8)
		n = (uint32_t)((h->size - sizeof(*s)) / 8); /* damaged: what fits */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a;
		struct sym_answer x;

		memcpy(&a, fr + (size_t)i * 8, 8);
		x = symbolizer_lookup(&sp->sym, a, i > 0);
		if (nf < ATTR_FRAMES)
			f[nf++] = x;
		if (stack.len > STACK_TEXT_MAX) {
			strbuf_addstr(&stack, "; ...");
			break;
		}
		strbuf_addf(&stack, "%s%s (%s)", i ? "; " : "", x.function, x.library);
	}
	if (nf)
		at = sample_attribute(f, nf, &fn);
	else
		f[0] = none;
	sqlite3_bind_int64(st, 1, gtid);
	sqlite3_bind_int64(st, 2, ts);
	/* a timer that expired again while its signal was pending: one sample
	 * for all those periods (the kernel checks CPU-time timers at its tick) */
	period = (int64_t)(sp->period_ns * (1 + (uint64_t)s->overrun));
	sqlite3_bind_int64(st, 3, period);
	bind_str(st, 4, h->aux == TLOG_UNWIND_LIBUNWIND ? "libunwind" : "leaf");
	bind_str(st, 5, f[at].library);
	bind_str(st, 6, f[fn].function);
	bind_str(st, 7, f[at].category);
	bind_str(st, 8, stack.buf);
	if (conv_step(c, S_CPUSAMPLE) == 0) {
		c->stats->cpu_samples++;
		sp->sampled_ns = i64_sat_add(sp->sampled_ns, period);
	}
	strbuf_release(&stack);
}

static const char *method_name(uint32_t m)
{
	return m == TLOG_UNWIND_LIBUNWIND ? "libunwind" : "leaf";
}

void conv_put_sampler(struct conv *c, struct sample_proc *sp, uint32_t pid)
{
	sqlite3_stmt *st = c->st[S_CPUSAMPLER];

	if (!sp->totals)
		return;
	sqlite3_bind_int64(st, 1, tosqlite_global_pid(pid));
	sqlite3_bind_int64(st, 2, (int64_t)sp->period_ns);
	bind_str(st, 3, method_name(sp->method));
	sqlite3_bind_int64(st, 4, (int64_t)sp->samples);
	sqlite3_bind_int64(st, 5, (int64_t)sp->dropped);
	sqlite3_bind_int64(st, 6, (int64_t)sp->threads);
	if (sp->cost_known) {
		sqlite3_bind_int64(st, 7, (int64_t)sp->handler_ns);
		sqlite3_bind_int64(st, 8, (int64_t)sp->handler_calls);
	} else { /* a tracer that did not time its handler */
		sqlite3_bind_null(st, 7);
		sqlite3_bind_null(st, 8);
	}
	sqlite3_bind_int64(st, 9, sp->sampled_ns);
	conv_step(c, S_CPUSAMPLER);
}

void conv_sample_release(struct sample_proc *sp)
{
	symbolizer_release(&sp->sym);
}
