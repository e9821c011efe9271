/* ranks_util.c: per-rank MFU/MBU from the model's work (see ranks.h).
 *
 * The model's FLOPs and bytes (config model.*, workload/analytic.json)
 * describe one instance of each stage of the program. The merged stage
 * holds them times its instances, one per process that ran the stage. How
 * a process's share relates to that depends on the parallelism, which no
 * trace states; it is read from the NCCL collectives and said in
 * report_ranks.util_basis, never assumed silently:
 *   - no rank ran an NCCL kernel: the processes are replicas (data
 *     parallel, or independent workers), each running the whole model on
 *     its own requests: a rank's work is the model's per instance times
 *     its instances, as in the merged view;
 *   - every collective matched across all ranks (no mismatch, no rank
 *     without one): the ranks are one model-parallel group (tensor
 *     parallel) sharing each forward: a rank's work is 1/nr of it. The
 *     merged stage's work is divided by nr too, so the merged MFU/MBU is
 *     the mean per GPU rather than nr times it;
 *   - otherwise (subgroups, point-to-point pipelines): unknown, n/a.
 * Each rank is then judged in its own stage time, by the same derivation
 * as a stage (report_stage_derive). */
#include <string.h>

#include "analysis/ranks.h"
#include "core/strbuf.h"
#include "core/banned.h"

static enum report_rank_split split_of(const struct report_ranks *rs)
{
	if (!rs->coll.available)
		return RANK_SPLIT_REPLICA;
	if (!rs->coll.instances || rs->coll.nr_mismatches)
		return RANK_SPLIT_UNKNOWN;
	for (size_t i = 0; i < rs->nr; i++)
		if (!rs->v[i].coll.calls || rs->v[i].coll.unmatched)
			return RANK_SPLIT_UNKNOWN;
	return RANK_SPLIT_GROUP;
}

static int has_work(const struct report_stage *st)
{
	return st && st->instances && (st->flops.available || st->bytes.available);
}

static struct rnum share(struct rnum total, uint64_t instances, uint64_t mine, size_t div)
{
	if (!total.available)
		return RNUM_NONE;
	return rnum_of(total.v / (double)instances * (double)mine / (double)div);
}

static void rank_stage_util(struct report_rank_stage *rs, const struct report_stage *st, size_t div,
			    const struct report_peaks *p)
{
	struct report_stage s;

	if (!rs->found || !rs->instances)
		return;
	memset(&s, 0, sizeof(s));
	s.role = st->role;
	s.gpu_ms = rs->gpu_ms;
	s.cpu_ms = rs->cpu_ms;
	s.flops = rs->flops = share(st->flops, st->instances, rs->instances, div);
	s.bytes = rs->bytes = share(st->bytes, st->instances, rs->instances, div);
	report_stage_derive(&s, p);
	rs->mfu_datasheet = s.mfu_datasheet;
	rs->mfu_measured = s.mfu_measured;
	rs->mbu_datasheet = s.mbu_datasheet;
	rs->mbu_measured = s.mbu_measured;
}

static void set_basis(struct report_ranks *rs)
{
	struct strbuf sb = STRBUF_INIT;

	switch (rs->util_split) {
	case RANK_SPLIT_REPLICA:
		strbuf_addstr(&sb,
			      "no NCCL collectives ran between the processes, so each is "
			      "taken as a replica running the whole model on its own requests: "
			      "a rank's model work is the model's per stage instance times its "
			      "instances");
		break;
	case RANK_SPLIT_GROUP:
		strbuf_addf(&sb,
			    "every NCCL collective matched across all %zu ranks, so they are "
			    "taken as one model-parallel (tensor-parallel) group sharing each "
			    "forward: a rank's model work is the model's divided by %zu, and so "
			    "is the merged stages' (their MFU/MBU is the mean per GPU)",
			    rs->nr, rs->nr);
		break;
	case RANK_SPLIT_UNKNOWN:
		strbuf_addstr(&sb,
			      "the NCCL collectives do not match across all ranks "
			      "(subgroups or point-to-point), so how the model's work is shared "
			      "is unknown: per-rank MFU/MBU are n/a");
		break;
	case RANK_SPLIT_NONE:
		break;
	}
	if (sb.len)
		report_set_str(&rs->util_basis, sb.buf);
	strbuf_release(&sb);
}

void ranks_utilization(struct report_model *m)
{
	struct report_ranks *rs = &m->ranks;
	struct report_stage *st[REPORT_ROLE_OTHER];
	size_t div;
	int any = 0;

	if (rs->nr < 2)
		return;
	for (int role = 0; role < REPORT_ROLE_OTHER; role++) {
		st[role] =
		    (struct report_stage *)report_model_stage_by_role(m, (enum report_role)role);
		any |= has_work(st[role]);
	}
	if (!any)
		return;
	rs->util_split = split_of(rs);
	set_basis(rs);
	if (rs->util_split == RANK_SPLIT_UNKNOWN)
		return;
	div = rs->util_split == RANK_SPLIT_GROUP ? rs->nr : 1;
	for (int role = 0; role < REPORT_ROLE_OTHER; role++) {
		if (!has_work(st[role]))
			continue;
		for (size_t i = 0; i < rs->nr; i++)
			rank_stage_util(&rs->v[i].stages[role], st[role], div, &m->peaks);
		if (div > 1) {
			if (st[role]->flops.available)
				st[role]->flops.v /= (double)div;
			if (st[role]->bytes.available)
				st[role]->bytes.v /= (double)div;
		}
	}
	if (div > 1)
		report_model_add_note(m,
				      "model FLOPs and bytes of the stages divided by %zu: the %zu "
				      "ranks are taken as one model-parallel group (every NCCL "
				      "collective matched across all of them)",
				      div, div);
}
