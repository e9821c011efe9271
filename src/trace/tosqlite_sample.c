/* tosqlite_sample.c: the tracer's CPU samples to LLMPROF_CPU_SAMPLES rows,
 * symbolized here, offline, from the objects each process recorded as
 * loaded (trace/symbolize.h). docs/tracer.md "CPU samples" has the table. */
#include <string.h>

#include "trace/tosqlite_internal.h"
#include "core/banned.h"

#define STACK_TEXT_MAX 4000 /* the stack column is cut there, with "; ..." */

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
		const struct tlog_cpu_sampling *k = (const void *)h;

		if (k->period_ns)
			sp->period_ns = k->period_ns;
		if (h->aux == 1 && k->dropped)
			strbuf_addf(&c->stats->diags,
				    "pid %u: info: CPU sampling: %llu of %llu samples dropped (the "
				    "signal arrived while the thread was inside the tracer)\n",
				    pid, (unsigned long long)k->dropped,
				    (unsigned long long)(k->samples + k->dropped));
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
	struct sym_answer leaf = {"(unknown)", "(unknown)", "other"};
	uint32_t n = s->nframes;

	if ((size_t)n > (h->size - sizeof(*s)) / 8)
		n = (uint32_t)((h->size - sizeof(*s)) / 8); /* damaged: what fits */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a;
		struct sym_answer x;

		memcpy(&a, fr + (size_t)i * 8, 8);
		x = symbolizer_lookup(&sp->sym, a, i > 0);
		if (i == 0)
			leaf = x;
		if (stack.len > STACK_TEXT_MAX) {
			strbuf_addstr(&stack, "; ...");
			break;
		}
		strbuf_addf(&stack, "%s%s (%s)", i ? "; " : "", x.function, x.library);
	}
	sqlite3_bind_int64(st, 1, gtid);
	sqlite3_bind_int64(st, 2, ts);
	/* a timer that expired again while its signal was pending: one sample
	 * for all those periods (the kernel checks CPU-time timers at its tick) */
	sqlite3_bind_int64(st, 3, (int64_t)(sp->period_ns * (1 + (uint64_t)s->overrun)));
	bind_str(st, 4, h->aux == TLOG_UNWIND_LIBUNWIND ? "libunwind" : "leaf");
	bind_str(st, 5, leaf.library);
	bind_str(st, 6, leaf.function);
	bind_str(st, 7, leaf.category);
	bind_str(st, 8, stack.buf);
	if (conv_step(c, S_CPUSAMPLE) == 0)
		c->stats->cpu_samples++;
	strbuf_release(&stack);
}

void conv_sample_release(struct sample_proc *sp)
{
	symbolizer_release(&sp->sym);
}
