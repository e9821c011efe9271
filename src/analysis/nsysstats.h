/* nsysstats.h: the reports of `nsys stats` (2023.4.4), computed from a
 * loaded trace: cuda_gpu_kern_sum, nvtx_sum, nvtx_gpu_proj_sum,
 * nvtx_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum,
 * osrt_sum.
 * Same columns, rows, order and numbers as nsys; docs/stats.md explains
 * each. */
#ifndef LLMPROF_NSYSSTATS_H
#define LLMPROF_NSYSSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "model/table.h"
#include "trace/trace.h"

/* NULL-terminated list of the report names we implement. */
extern const char *const nsysstats_reports[];
int nsysstats_known(const char *name);

/* Its title in nsys's column output ("CUDA GPU Kernel Summary"), or NULL
 * for an unknown report. */
const char *nsysstats_title(const char *name);

/* How nsys spells NVTX range names in nvtx_sum, nvtx_gpu_proj_sum and
 * nvtx_kern_sum. Up to 2023.4 a default-domain range is its bare message
 * ("decode"); from 2024.1 the reports build every name as
 * "<domain>:<message>", so it reads ":decode". Named domains print
 * "LLM:decode" in both. */
enum nsys_spelling { NSYS_SPELL_2023 = 0, NSYS_SPELL_2024 = 1 };
/* The spelling of nsys version ("2025.3.2.0", "2023.4"), or -1 when it does
 * not start with YYYY.M. Pure. */
int nsysstats_spelling(const char *version);

/* How the nsys of that version rounds its Avg, Med, StdDev and Time (%)
 * columns: the rule of the SQLite it bundles. nsys 2023.4.4 bundles SQLite
 * 3.42.0 (its libsqlite3 says so); nsys 2025.3.1 rounds the double's own
 * digits (51,679 ns / 20 prints 2583.9, where 3.42 prints 2584.0). The
 * versions between were not measured: from 2024.1 on llmprof takes the
 * newer rule, the release where nsys's range names changed too
 * (docs/stats.md). -1 when version does not start with YYYY.M. Pure. */
int nsysstats_rounding(const char *version);

struct nsysstats_opts {
	enum nsys_spelling spelling;
	enum nsys_round_rule rounding;
	/* when not NULL: a line for each thing in the rows a report read that
	 * nsys would sum without a word (an end before its start, a zero
	 * timestamp), "warning: ..." without a newline; the numbers stay as
	 * nsys prints them */
	struct strbuf *warn;
	/* when not NULL: nvtx_gpu_proj_sum's projection, started by
	 * nsysstats_ahead(); the report takes it (once) */
	struct nvtx_proj_ahead *ahead;
};

/* Builds report name from t into tbl (initialised here; caller releases
 * it unless the return is not 0), spelled as opts says (NULL: 2023.4).
 * Returns 0, 1 when nsys would print "SKIPPED: <msg>" (msg set, tbl
 * untouched), or -1 on a read error (err). */
int nsysstats_build(struct trace *t, const char *name, const struct nsysstats_opts *opts,
		    struct table *tbl, struct strbuf *msg, struct strbuf *err);
/* The parts of t (enum trace_part) nsysstats_build() loads for report
 * name: 0 when it reads none, or would print SKIPPED. A caller running
 * several reports loads their union first, in one trace_load(), which
 * reads the tables side by side. */
unsigned nsysstats_parts(const struct trace *t, const char *name);

struct nvtx_proj_ahead;
/* Starts nvtx_gpu_proj_sum's NVTX projection on a thread of its own when
 * list (report names, comma-separated) runs that report after another
 * and t has loaded every part the list's reports read: those before it
 * run meanwhile, and none of them then writes what the projection reads.
 * Returns 1 when started (then set opts->ahead = a, and call
 * nsysstats_ahead_end() before closing t), else 0. */
int nsysstats_ahead(const struct trace *t, const char *list, struct nvtx_proj_ahead *a);
/* Waits for a projection that no report took, and releases it. */
void nsysstats_ahead_end(struct nvtx_proj_ahead *a);

#endif
