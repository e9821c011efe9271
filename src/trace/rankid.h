/* rankid.h: which rank a traced process is, from the environment its
 * launcher gave it. Shared by the builtin tracer (which records it at process
 * start as a TLOG_RANK record, tracelog.h) and llmprof (tests, names).
 *
 * Plain C99 with no llmprof dependency: libllmprof_tracer.so compiles
 * rankid.c itself. Nothing here allocates, prints or fails: a variable that
 * is missing or not a plain non-negative decimal is skipped. */
#ifndef LLMPROF_RANKID_H
#define LLMPROF_RANKID_H

#include <stdint.h>

/* The launcher the environment points to (tlog_rank.launcher). */
enum rank_launcher {
	RANK_LAUNCHER_NONE = 0,
	RANK_LAUNCHER_TORCHRUN = 1, /* TORCHELASTIC_RUN_ID or another TORCHELASTIC_* */
	RANK_LAUNCHER_SLURM = 2,    /* SLURM_JOB_ID */
	RANK_LAUNCHER_OPENMPI = 3,  /* OMPI_COMM_WORLD_* */
	RANK_LAUNCHER_PMI = 4,	    /* PMI_RANK (MPICH, Intel MPI, Hydra) */
};

/* The variable the rank came from (tlog_rank.source). */
enum rank_source {
	RANK_SOURCE_NONE = 0, /* no rank: the pid identifies the process */
	RANK_SOURCE_RANK = 1,
	RANK_SOURCE_SLURM_PROCID = 2,
	RANK_SOURCE_OMPI_COMM_WORLD_RANK = 3,
	RANK_SOURCE_PMI_RANK = 4,
};

/* -1 = not set. */
struct rank_ident {
	int32_t rank, local_rank, world_size;
	uint32_t launcher; /* enum rank_launcher */
	uint32_t source;   /* enum rank_source */
};

/* getenv, or a test's table: returns the value or NULL. */
typedef const char *(*rank_getenv_fn)(const char *name, void *ctx);

/* The rank: RANK, else SLURM_PROCID, else OMPI_COMM_WORLD_RANK, else
 * PMI_RANK (the first that holds a valid value wins, so RANK=abc falls
 * through to the next); local rank: LOCAL_RANK, SLURM_LOCALID,
 * OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID; world size: WORLD_SIZE,
 * SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE; the launcher as enum
 * rank_launcher says, in that order. */
void rank_ident_from_env(struct rank_ident *id, rank_getenv_fn get, void *ctx);
/* When no rank variable holds a valid rank: the first one that is set
 * (RANK=abc), its name in *name and value in *value (borrowed from get),
 * and 1; 0 when none is set. */
int rank_env_invalid(rank_getenv_fn get, void *ctx, const char **name, const char **value);
/* A non-negative decimal int32 ("0", "17"), or -1 (NULL, empty, sign,
 * trailing characters, overflow). */
int32_t rank_parse(const char *s);
/* "torchrun", "slurm", "openmpi", "pmi", "none". Static strings. */
const char *rank_launcher_name(uint32_t launcher);
/* "RANK", "SLURM_PROCID", ...; "pid" for RANK_SOURCE_NONE. Static strings. */
const char *rank_source_name(uint32_t source);

#endif
