/* ncclapi.h: NCCL API calls and their message sizes, from the NVTX ranges
 * NCCL (2.19 on) pushes on domain "NCCL" around every API call, named by
 * the function (ncclAllReduce, ...), with an extended payload
 * (trace/nvtxpayload.h) giving the communicator, "Message size [bytes]"
 * and the reduction operation; ncclCommInit* ranges give the
 * communicator's "No. of ranks". docs/collectives.md "Bytes" has the
 * method.
 *
 * Attribution: an NCCL kernel (collectives.h's name rule) belongs to the
 * NCCL range of its launch call: the call (by correlation id, in the
 * kernel's process) starts inside the range, on the range's thread; of
 * nested ranges, the innermost. A call launching no kernel (world size 1,
 * or a grouped call whose kernel ncclGroupEnd launches) still counts, with
 * its bytes.
 *
 * Bandwidth, as nccl-tests defines it (its doc/PERFORMANCE.md), over the
 * calls with both a size and a kernel: algbw = S / t, with t their kernels'
 * summed time and S the message size, times n for AllGather and
 * ReduceScatter (NCCL records their per-rank size); busbw = algbw x
 * 2(n-1)/n for AllReduce, (n-1)/n for AllGather and ReduceScatter, 1 for
 * Broadcast, Reduce, Send and Recv, where n is the communicator's ranks;
 * n/a where n is needed and unknown, and for the other types. */
#ifndef LLMPROF_ANALYSIS_NCCLAPI_H
#define LLMPROF_ANALYSIS_NCCLAPI_H

#include "core/strbuf.h"
#include "model/model.h"
#include "trace/trace.h"

/* Bus bandwidth factor of a collective type over n ranks (see above);
 * a negative value when there is none or n is needed and unknown (n < 1).
 * type is enum coll_type. */
double nccl_busbw_factor(int type, int n);
/* How many times NCCL's recorded size the algorithm bandwidth moves: n for
 * AllGather and ReduceScatter (negative when n < 1), else 1. */
double nccl_algbw_scale(int type, int n);

/* Fills m->ranks.coll.api, nr_api and bytes_why from t (kernels, calls and
 * NVTX ranges loaded; its database is read for the payloads). Labels the
 * processes as ranks_fill() did: call it after. A read error becomes a
 * note. */
void nccl_api_fill(struct report_model *m, struct trace *t);

/* A process's rank as NCCL's communicator-init ranges say it (their
 * payload's "Rank", "No. of ranks" and "CUDA device", NCCL 2.19 on): the
 * rank in its widest communicator, the first initialised among equally
 * wide ones. What names ranks under nsys, which records no environment per
 * process. */
struct nccl_ident {
	int64_t gpid;
	int32_t rank, nranks; /* rank < nranks */
	int32_t device;	      /* its CUDA device ordinal; -1 not recorded */
};

/* One entry per process with a decoded init range, into *out (owned,
 * free()); none without NCCL ranges or payloads. 0, or -1 with err on a
 * read error (then nothing). */
int nccl_comm_idents(struct trace *t, struct nccl_ident **out, size_t *n, struct strbuf *err);

#endif
