/* cpusamples.c: LLMPROF_CPU_SAMPLES into memory (cpusamples.h). */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/xalloc.h"
#include "trace/cpusamples.h"
#include "core/banned.h"

static int cmp_sample(const void *a, const void *b)
{
	const struct trace_cpu_sample *x = a, *y = b;

	if (x->gtid != y->gtid)
		return x->gtid < y->gtid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int32_t col_str(struct trace *t, sqlite3_stmt *s, int col, const char *dflt)
{
	const unsigned char *p = sqlite3_column_text(s, col);
	const char *v = p ? (const char *)p : dflt;

	return strtab_intern(&t->strs, v, strlen(v));
}

void trace_cpu_samples_load(struct trace *t, struct trace_cpu_samples *out)
{
	static const char q[] = "SELECT globalTid, timestamp, periodNs, library, function, "
				"category FROM LLMPROF_CPU_SAMPLES";
	sqlite3_stmt *s;
	int rc;

	if (!t->db || !trace_has_table(t, "LLMPROF_CPU_SAMPLES"))
		return;
	/* a damaged table costs the samples, not the report: the trust
	 * report says so (trace_note_unreadable) */
	if (sqlite3_prepare_v2(t->db->db, q, -1, &s, NULL) != SQLITE_OK) {
		trace_note_unreadable(t, "LLMPROF_CPU_SAMPLES", sqlite3_errmsg(t->db->db));
		return;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct trace_cpu_sample *c;
		int64_t period = sqlite3_column_int64(s, 2);

		if (period <= 0)
			continue;
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		c = &out->v[out->n++];
		c->gtid = sqlite3_column_int64(s, 0);
		c->ts = sqlite3_column_int64(s, 1);
		c->period_ns = period;
		c->library = col_str(t, s, 3, "(unknown)");
		c->function = col_str(t, s, 4, "(unknown)");
		c->category = col_str(t, s, 5, "other");
	}
	if (rc != SQLITE_DONE) { /* cut short: none rather than some */
		trace_note_unreadable(t, "LLMPROF_CPU_SAMPLES", sqlite3_errmsg(t->db->db));
		FREE_AND_NULL(out->v);
		out->n = out->alloc = 0;
	}
	sqlite3_finalize(s);
	if (t->strs.rank) /* ids added: keep the byte order right */
		strtab_rank(&t->strs);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_sample);
}

void trace_cpu_sampler_load(struct trace *t, struct trace_cpu_sampler *out)
{
	static const char q[] = "SELECT count(*), total(handlerCalls), total(handlerNs), "
				"total(sampledNs) FROM LLMPROF_CPU_SAMPLER WHERE handlerNs IS NOT "
				"NULL AND handlerCalls IS NOT NULL";
	sqlite3_stmt *s;

	memset(out, 0, sizeof(*out));
	if (!t->db || !trace_has_table(t, "LLMPROF_CPU_SAMPLER"))
		return;
	if (sqlite3_prepare_v2(t->db->db, q, -1, &s, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(s) == SQLITE_ROW) {
		double calls = sqlite3_column_double(s, 1);
		double hns = sqlite3_column_double(s, 2);
		double sns = sqlite3_column_double(s, 3);

		/* negative or absurd sums from a damaged table: none */
		if (calls >= 0 && hns >= 0 && sns >= 0 && sns < 9e18 && hns < 9e18 &&
		    calls < 9e18) {
			out->processes = (uint64_t)sqlite3_column_int64(s, 0);
			out->calls = (uint64_t)calls;
			out->handler_ns = (int64_t)hns;
			out->sampled_ns = (int64_t)sns;
		}
	}
	sqlite3_finalize(s);
}

void trace_cpu_samples_release(struct trace_cpu_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
