/* trace-tool: test driver for the builtin tracer's converter and NVTX
 * listing (a test helper, not a user command).
 *   trace-tool convert LOG_DIR OUT.sqlite [OUT.json [MAX_JSON_BYTES]]
 *   trace-tool nvtx TRACE.sqlite
 *   trace-tool synth DIR STEPS KERNELS_PER_STEP [activity|all]   (synthetic GPU
 *       log, pid 4242; activity: launch calls as the activity source writes
 *       them; all: also non-launch calls, as LLMPROF_TRACE_API_CALLS=all
 *       records them, tlogsynth.h)
 * convert prints "api N" (launch calls) and, when there are any,
 * "api_other N" (the other CUDA API calls).
 *   trace-tool synth-ranks DIR RANKS STEPS KERNELS_PER_STEP SLOW_RANK SLOW_NS
 *       [nccl|nccl-host]
 *       (RANKS logs, pid 5000+r, rank r of RANKS under torchrun, 8 ranks a
 *       host "node<r/8>"; SLOW_RANK's kernels last SLOW_NS longer; SLOW_RANK
 *       -1 = none; nccl: every step ends with an NCCL AllReduce that the
 *       other ranks wait in for SLOW_RANK, tlogsynth.h; nccl-host: the same,
 *       SLOW_RANK's host late by KERNELS_PER_STEP x SLOW_NS at each step's
 *       start instead, its kernels as long as the others')
 *   trace-tool synth-rank DIR STEPS KERNELS_PER_STEP SLOW_NS WORLD_SLOW_NS HOST
 *       (one rank's log, the rank from the environment as the tracer reads
 *       it, pid 5000+rank, every step ending with an NCCL AllReduce whose
 *       end waits for a rank WORLD_SLOW_NS slower: what one rank of an
 *       mpirun job leaves under --rank-dir)
 *   trace-tool synth-open DIR N  (N nested NVTX pushes never popped, pid 4242:
 *       tlogsynth_write_open)
 *   trace-tool synth-graph DIR STEPS graph|eager|shared  (a decode loop
 *       replayed from a CUDA graph, or the same steps run eagerly, or eagerly
 *       with one kernel serving two operators: tlogsynth_write_graph)
 *   trace-tool split-ranks TRACE.sqlite RUN [RANK SHIFT_NS HOST]
 *       (what each process of a multi-process trace would have written under
 *       `profile --rank-dir RUN`: RUN/ranks/<r>/collectives.tsv through the
 *       product's writer, in the trace's clock, with a rank.json, an "ok"
 *       status.json and a metrics.json without stages. r: the recorded rank
 *       when every process has a distinct one, else the index in (rank,
 *       pid) order, as the single-trace analysis numbers them. RANK SHIFT_NS
 *       HOST: that rank moved to another host whose clock is SHIFT_NS ahead,
 *       for the simulated-hosts tests; never a product option)
 * Exit: 0 ok, 5 damaged input (outputs still written), 1 other failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rank_summary.h"
#include "analysis/ranks.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/nvtxlist.h"
#include "trace/perfetto.h"
#include "trace/rankid.h"
#include "support/tlogsynth.h"
#include "trace/tosqlite.h"
#include "core/banned.h"

static int do_convert(int argc, char **argv)
{
	struct trace_convert_stats st;
	struct strbuf err = STRBUF_INIT;
	int rc;

	trace_convert_stats_init(&st);
	rc = trace_convert(argv[2], NULL, argv[3], argc > 4 ? argv[4] : NULL, &st, &err);
	if (rc == 0 || rc == TRACE_CONVERT_PARTIAL) {
		double recs = (double)st.records;
		printf("files %llu processes %llu records %llu nvtx %llu kernels %llu memcpy %llu "
		       "memset %llu api %llu",
		       (unsigned long long)st.files, (unsigned long long)st.processes,
		       (unsigned long long)st.records, (unsigned long long)st.nvtx_rows,
		       (unsigned long long)st.kernels, (unsigned long long)st.memcpys,
		       (unsigned long long)st.memsets, (unsigned long long)st.api_calls);
		if (st.api_other) /* LLMPROF_TRACE_API_CALLS=all */
			printf(" api_other %llu", (unsigned long long)st.api_other);
		putchar('\n');
		printf("open_ranges %llu unmatched_ends %llu unattributed %llu dropped_cupti %llu "
		       "dropped_tracer %llu problems %llu\n",
		       (unsigned long long)st.open_ranges, (unsigned long long)st.unmatched_ends,
		       (unsigned long long)st.unattributed, (unsigned long long)st.dropped_cupti,
		       (unsigned long long)st.dropped_tracer, (unsigned long long)st.problems);
		printf("seconds %.3f records_per_s %.0f json_events %llu json_merged %llu\n",
		       st.seconds, st.seconds > 0 ? recs / st.seconds : 0.0,
		       (unsigned long long)st.json_events, (unsigned long long)st.json_merged);
		if (st.diags.len)
			fputs(st.diags.buf, stdout);
	}
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	trace_convert_stats_release(&st);
	strbuf_release(&err);
	return rc == 0 ? 0 : rc == TRACE_CONVERT_PARTIAL ? EXIT_BAD_INPUT : 1;
}

static int do_json(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t max = 0, ev = 0, merged = 0;
	int rc;

	if (argc > 4 && parse_u64(argv[4], 1, UINT64_MAX, &max, &err) < 0) {
		fprintf(stderr, "trace-tool: %s\n", err.buf);
		return 2;
	}
	rc = perfetto_write(argv[2], NULL, argv[3], max, &ev, &merged, &err);
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	else
		printf("events %llu merged %llu\n", (unsigned long long)ev,
		       (unsigned long long)merged);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

static int do_nvtx(char **argv)
{
	struct nvtx_list l;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int rc;

	nvtx_list_init(&l);
	rc = nvtx_list_load(&l, argv[2], &err);
	if (rc == 0) {
		nvtx_list_format(&l, &out);
		fputs(out.buf, stdout);
	} else {
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	}
	nvtx_list_release(&l);
	strbuf_release(&err);
	strbuf_release(&out);
	return rc < 0 ? 1 : 0;
}

static int do_synth_setup(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	int samples = argc == 3 ? 1 : !strcmp(argv[3], "oldtotals") ? 2 : 0;
	int rc = tlogsynth_write_setup(argv[2], 4343, 1700000000000000000ull, samples, &err);

	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

static int do_synth(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t steps, kps;
	int rc = -1;

	if (parse_u64(argv[3], 1, 10000000, &steps, &err) == 0 &&
	    parse_u64(argv[4], 1, 100000, &kps, &err) == 0)
		rc = tlogsynth_write(
		    argv[2], 4242, 1700000000000000000ull, (uint32_t)steps, (uint32_t)kps,
		    argc > 5 ? (strcmp(argv[5], "all") ? 1 : TLOGSYNTH_API_ALL) : 0, &err);
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

static int do_synth_ranks(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, host = STRBUF_INIT;
	uint64_t n, steps, kps, slow_ns;
	int64_t slow_rank;
	int rc = -1;

	if (parse_u64(argv[3], 1, 4096, &n, &err) || parse_u64(argv[4], 1, 1000000, &steps, &err) ||
	    parse_u64(argv[5], 1, 100000, &kps, &err) ||
	    parse_i64(argv[6], -1, 4096, &slow_rank, &err) ||
	    parse_u64(argv[7], 0, 1000000000, &slow_ns, &err))
		goto out;
	for (uint64_t r = 0; r < n; r++) {
		struct tlogsynth_rank rk = {
		    (int32_t)r, (int32_t)(r % 8), (int32_t)n, RANK_LAUNCHER_TORCHRUN, NULL, 0};

		strbuf_reset(&host);
		strbuf_addf(&host, "node%llu", (unsigned long long)(r / 8));
		rk.host = host.buf;
		rk.slow_ns = (int64_t)r == slow_rank ? slow_ns : 0;
		rk.nccl = argc > 8;
		rk.slow_on_host = argc > 8 && !strcmp(argv[8], "nccl-host");
		rk.world_slow_ns = slow_rank >= 0 && (uint64_t)slow_rank < n ? slow_ns : 0;
		if (tlogsynth_write_rank(argv[2], 5000 + (uint32_t)r, 1700000000000000000ull,
					 (uint32_t)steps, (uint32_t)kps, &rk, &err))
			goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	strbuf_release(&host);
	return rc < 0 ? 1 : 0;
}

static const char *env_get(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static int do_synth_rank(char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct rank_ident id;
	uint64_t steps, kps, slow_ns, world_slow;
	int rc = -1;

	rank_ident_from_env(&id, env_get, NULL);
	if (id.rank < 0)
		error_set(&err, "no rank in the environment");
	else if (!parse_u64(argv[3], 1, 1000000, &steps, &err) &&
		 !parse_u64(argv[4], 1, 100000, &kps, &err) &&
		 !parse_u64(argv[5], 0, 1000000000, &slow_ns, &err) &&
		 !parse_u64(argv[6], slow_ns, 1000000000, &world_slow, &err)) {
		struct tlogsynth_rank rk = {id.rank,	 id.local_rank, id.world_size,
					    id.launcher, argv[7],	slow_ns,
					    1,		 world_slow};

		rc = tlogsynth_write_rank(argv[2], 5000 + (uint32_t)id.rank, 1700000000000000000ull,
					  (uint32_t)steps, (uint32_t)kps, &rk, &err);
	}
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

static int do_synth_graph(char **argv)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t steps;
	int rc = -1;

	if (parse_u64(argv[3], 1, 10000000, &steps, &err) == 0)
		rc = tlogsynth_write_graph(argv[2], 4242, 1700000000000000000ull, (uint32_t)steps,
					   !strcmp(argv[4], "graph")	? 1
					   : !strcmp(argv[4], "shared") ? 2
									: 0,
					   &err);
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

static int do_synth_open(char **argv)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t n;
	int rc = -1;

	if (parse_u64(argv[3], 1, 100000000, &n, &err) == 0)
		rc = tlogsynth_write_open(argv[2], 4242, 1700000000000000000ull, (uint32_t)n, &err);
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

struct split_part {
	const struct trace *view;
	int64_t gpid, pid;
	int rank;
	const char *host;
};

static int cmp_split(const void *pa, const void *pb)
{
	const struct split_part *a = pa, *b = pb;

	if ((a->rank < 0) != (b->rank < 0))
		return a->rank < 0 ? 1 : -1;
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* One rank's folder: collectives.tsv and the three JSON files merge reads. */
static int split_write(const char *run, int id, size_t world, const char *host,
		       const struct trace *view, const struct rank_clock *c, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, p = STRBUF_INIT, sb = STRBUF_INIT;
	struct stage_config sc;
	int rc = -1;

	stage_config_default(&sc);
	strbuf_addf(&dir, "%s/ranks/%d", run, id);
	if (mkdir_p(dir.buf, err))
		goto out;
	rank_summary_format_trace(view, &sc, host, c, &sb);
	strbuf_addf(&p, "%s/collectives.tsv", dir.buf);
	if (write_file_atomic(p.buf, sb.buf, sb.len, err))
		goto out;
	strbuf_reset(&sb);
	strbuf_reset(&p);
	strbuf_addf(&sb, "{\"rank\": %d, \"world_size\": %zu, \"host\": \"%s\"}\n", id, world,
		    host);
	strbuf_addf(&p, "%s/rank.json", dir.buf);
	if (write_file_atomic(p.buf, sb.buf, sb.len, err))
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/status.json", dir.buf);
	if (write_file_atomic(p.buf, "{\"state\": \"ok\"}\n", 16, err))
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/metrics.json", dir.buf);
	rc = write_file_atomic(p.buf, "{\"stages\": []}\n", 15, err);
out:
	strbuf_release(&dir);
	strbuf_release(&p);
	strbuf_release(&sb);
	return rc;
}

static int do_split_ranks(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct trace t;
	struct trace_process *procs = NULL;
	struct rank_part *parts = NULL;
	struct split_part *sp = NULL;
	size_t nparts = 0, nprocs = 0;
	int64_t shift_rank = -1, shift_ns = 0;
	int rc = -1, by_rank = 1;

	memset(&t, 0, sizeof(t));
	if (argc == 7 && (parse_i64(argv[4], 0, INT32_MAX, &shift_rank, &err) ||
			  parse_i64(argv[5], INT32_MIN, INT32_MAX, &shift_ns, &err)))
		goto out;
	if (trace_open(&t, argv[2], &err) ||
	    trace_load(&t, TRACE_KERNELS | TRACE_MEMOPS | TRACE_CALLS | TRACE_NVTX, &err) ||
	    trace_processes(&t, &procs, &nprocs, &err))
		goto out;
	parts = rank_parts_split(&t, &nparts);
	sp = xcalloc(nparts + 1, sizeof(*sp));
	for (size_t i = 0; i < nparts; i++) {
		sp[i] = (struct split_part){parts ? &parts[i].view : &t, 0, 0, -1, ""};
		sp[i].gpid = parts
				 ? parts[i].gpid
				 : (int64_t)(trace_ksig(&t, &t.kernels[0])->gpid & TRACE_GPID_MASK);
		sp[i].pid = trace_pid(sp[i].gpid);
		for (size_t k = 0; k < nprocs; k++)
			if ((int64_t)(procs[k].gpid & TRACE_GPID_MASK) == sp[i].gpid) {
				sp[i].rank = procs[k].rank;
				sp[i].host = procs[k].host ? procs[k].host : "";
			}
	}
	qsort(sp, nparts, sizeof(*sp), cmp_split);
	for (size_t i = 0; i < nparts; i++)
		by_rank &= sp[i].rank >= 0 && (!i || sp[i].rank != sp[i - 1].rank);
	for (size_t i = 0; i < nparts; i++) {
		int id = by_rank ? sp[i].rank : (int)i;
		struct rank_clock c;

		rank_clock_of_trace(&t, sp[i].host, "split-ranks", &c);
		if (id == shift_rank) {
			c.host = argv[6];
			c.origin_ns += shift_ns;
		}
		if (split_write(argv[3], id, nparts, id == shift_rank ? argv[6] : sp[i].host,
				sp[i].view, &c, &err))
			goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "trace-tool: %s\n", err.buf);
	free(sp);
	rank_parts_free(parts, nparts);
	trace_processes_free(procs, nprocs);
	trace_close(&t);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "synth-graph") == 0 &&
	    (!strcmp(argv[4], "graph") || !strcmp(argv[4], "eager") || !strcmp(argv[4], "shared")))
		return do_synth_graph(argv);
	if (argc == 4 && strcmp(argv[1], "synth-open") == 0)
		return do_synth_open(argv);
	if ((argc == 8 ||
	     (argc == 9 && (!strcmp(argv[8], "nccl") || !strcmp(argv[8], "nccl-host")))) &&
	    strcmp(argv[1], "synth-ranks") == 0)
		return do_synth_ranks(argc, argv);
	if (argc == 8 && strcmp(argv[1], "synth-rank") == 0)
		return do_synth_rank(argv);
	if ((argc == 5 ||
	     (argc == 6 && (strcmp(argv[5], "activity") == 0 || strcmp(argv[5], "all") == 0))) &&
	    strcmp(argv[1], "synth") == 0)
		return do_synth(argc, argv);
	if ((argc == 3 ||
	     (argc == 4 && (!strcmp(argv[3], "nosamples") || !strcmp(argv[3], "oldtotals")))) &&
	    strcmp(argv[1], "synth-setup") == 0)
		return do_synth_setup(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "convert") == 0)
		return do_convert(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "json") == 0)
		return do_json(argc, argv);
	if (argc == 3 && strcmp(argv[1], "nvtx") == 0)
		return do_nvtx(argv);
	if ((argc == 4 || argc == 7) && strcmp(argv[1], "split-ranks") == 0)
		return do_split_ranks(argc, argv);
	fputs("usage: trace-tool convert LOG_DIR OUT.sqlite [OUT.json]\n"
	      "       trace-tool json TRACE.sqlite OUT.json [MAX_EVENTS]\n"
	      "       trace-tool nvtx TRACE.sqlite\n"
	      "       trace-tool synth DIR STEPS KERNELS_PER_STEP [activity|all]\n"
	      "       trace-tool synth-ranks DIR RANKS STEPS KERNELS_PER_STEP SLOW_RANK SLOW_NS "
	      "[nccl|nccl-host]\n"
	      "       trace-tool synth-rank DIR STEPS KERNELS_PER_STEP SLOW_NS WORLD_SLOW_NS HOST\n"
	      "       trace-tool synth-graph DIR STEPS graph|eager|shared\n"
	      "       trace-tool synth-setup DIR [nosamples|oldtotals]\n"
	      "       trace-tool synth-open DIR N\n"
	      "       trace-tool split-ranks TRACE.sqlite RUN [RANK SHIFT_NS HOST]\n",
	      stderr);
	return 2;
}
