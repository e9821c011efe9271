/* nvtxproj_join.h: the join of the NVTX projection, internal to
 * nvtxproj.c and nvtxproj_join.c.
 *
 * The GPU ops sorted by (process, correlationId, op) are 4-byte op indices
 * (op < nkernels: a kernel; else a memop), read through the trace; a group
 * of them (one (process, correlationId)) is ops[glo[g]..glo[g + 1]). */
#ifndef LLMPROF_NVTXPROJ_JOIN_H
#define LLMPROF_NVTXPROJ_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/nvtxproj.h"
#include "trace/trace.h"

/* One launch call with the group of GPU ops it launched: 8 bytes. */
struct launch {
	uint32_t call;
	uint32_t group : 31; /* distinct (process, correlationId) */
	uint32_t solo : 1;   /* the only launch call of its group */
};

/* A GPU op's or a launch call's (process, correlationId), read once, and
 * its index. */
struct join_key {
	int64_t g, c;
	uint32_t i;
};

typedef void (*join_key_fn)(const struct trace *, uint32_t, int64_t *, int64_t *);

/* The join key of GPU op op, and of API call c. */
void nvtx_op_key(const struct trace *t, uint32_t op, int64_t *gpid, int64_t *corr);
void nvtx_call_key(const struct trace *t, uint32_t c, int64_t *gpid, int64_t *corr);

/* The join keys of indices 0..n) by (process, correlationId, index): NULL
 * when the indices are in that order already (exports list rows mostly
 * in correlationId order), read then through the trace again, not copied
 * into an array of 24 bytes each that must be paged in; else the keys,
 * sorted (caller frees, or hands them to join_launches()). */
struct join_key *join_keys(const struct trace *t, size_t n, join_key_fn key);

/* GPU ops (sorted into ops) joined with their launch calls on (process,
 * correlationId), ok and ck their join_keys() (freed here); one struct
 * launch per (op group, call), group numbered per (process,
 * correlationId), its ops ops[glo[g]..glo[g + 1]). Ops without a launch
 * call are counted in p (and paired with no range under
 * NVTX_PROJ_PAIRS). Returns the launches (*nl_out; caller frees) and the
 * groups' starts (*glo_out; caller frees). */
struct launch *join_launches(struct nvtx_proj *p, const struct trace *t, unsigned flags,
			     struct join_key *ok, struct join_key *ck, uint32_t *ops,
			     size_t *nl_out, uint32_t **glo_out);

/* The launches by (thread, call start, group, call), in a new array
 * (*launches freed): counted into their threads, then each thread's
 * sorted unless in order already (where its calls' correlationIds grow
 * with their start times: every export). Returns the threads' ends,
 * end[b] one past thread b's last launch (*nthreads of them, in gtid
 * order; caller frees). */
size_t *sort_launches(const struct trace *t, struct launch **launches, size_t nl, size_t *nthreads);

/* A pair (op, range, call) as p is to receive it (nvtxproj.c). */
void nvtx_proj_add_pair(struct nvtx_proj *p, uint32_t op, int32_t range, int32_t call);

#endif
