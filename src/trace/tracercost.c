/* tracercost.c: LLMPROF_TRACER_COST summed (tracercost.h). */
#include <string.h>

#include <sqlite3.h>

#include "trace/nsysdb.h"
#include "trace/tracercost.h"
#include "core/banned.h"

void trace_cost_load(struct trace *t, struct trace_cost *out)
{
	static const char q[] =
	    "SELECT count(*), total(apiCalls) + total(resourceCalls) + total(nvtxCalls), "
	    "total(buffers) + total(flushes), total(apiNs) + total(resourceNs) + total(nvtxNs), "
	    "total(bufferNs) + total(flushNs), total(cpuNs), total(wallNs), total(apiNs), "
	    "total(nvtxNs) FROM LLMPROF_TRACER_COST";
	sqlite3_stmt *s = NULL;
	int llmprof = t->producer && strstr(t->producer, "llmprof");

	memset(out, 0, sizeof(*out));
	if (!t->db)
		return;
	if (trace_has_table(t, "LLMPROF_TRACER_COST") &&
	    sqlite3_prepare_v2(t->db->db, q, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int64(s, 0) > 0) {
		double v[8];
		int ok = 1;

		for (int i = 0; i < 8; i++) {
			v[i] = sqlite3_column_double(s, i + 1);
			ok &= v[i] >= 0 && v[i] < 9e18; /* a damaged table: none */
		}
		if (ok) {
			out->basis = TRACE_COST_MEASURED;
			out->processes = (uint64_t)sqlite3_column_int64(s, 0);
			out->hooks = (uint64_t)v[0];
			out->background = (uint64_t)v[1];
			out->hooks_ns = (int64_t)v[2];
			out->background_ns = (int64_t)v[3];
			out->cpu_ns = (int64_t)v[4];
			out->wall_ns = (int64_t)v[5];
			out->api_ns = (int64_t)v[6];
			out->nvtx_ns = (int64_t)v[7];
		}
	}
	sqlite3_finalize(s);
	if (out->basis == TRACE_COST_MEASURED)
		return;
	/* an export llmprof did not write is nsys's (older ones name no producer) */
	out->basis = llmprof ? TRACE_COST_NOT_RECORDED : TRACE_COST_NSYS;
}
