/* collectives_priv.h: the builder's state, shared by collectives.c (name
 * parsing, one rank's exposure) and collectives_match.c (matching, clocks,
 * stragglers). Not for use outside those files. */
#ifndef LLMPROF_COLLECTIVES_PRIV_H
#define LLMPROF_COLLECTIVES_PRIV_H

#include <stdint.h>

#include "analysis/collectives.h"

/* One NCCL kernel of a rank, kept until matching: 24 bytes, so that 256
 * ranks x 10k collectives stay near 60 MB. The name's fields are indices
 * into the static tables of collectives.c (0 = not said). */
struct coll_rec {
	int64_t start, end;
	uint16_t ord; /* the rank's NCCL stream ordinal */
	uint8_t type, op, dtype, algo, proto;
};

struct coll_brank {
	struct coll_rank info; /* what add_rank can know: ids, calls, exposure, stages */
	struct coll_rec *recs; /* sorted by (ord, type, start); owned */
	size_t nrecs;
};

struct coll_builder {
	struct coll_brank *ranks;
	size_t nranks, alloc;
};

/* The static strings behind coll_rec's name fields (NULL for 0). */
const char *coll_field_op(unsigned i);
const char *coll_field_dtype(unsigned i);
const char *coll_field_algo(unsigned i);
const char *coll_field_proto(unsigned i);

/* Median of v[0..n) (reorders v); the mean of the two middle values when n is
 * even; 0 when n is 0. In collectives_match.c, its one user. */
int64_t coll_median(int64_t *v, size_t n);

#endif
