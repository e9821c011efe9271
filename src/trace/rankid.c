/* rankid.c: the rank of a process from its environment (see rankid.h).
 * Compiled into the tracer too, so it uses only the C library and runs at
 * tracer start: getenv and a hand-written parser, no allocation. */
#include <stddef.h>

#include "trace/rankid.h"
#include "core/banned.h"

int32_t rank_parse(const char *s)
{
	int64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return -1;
	}
	return (int32_t)v;
}

/* The first of names[] whose value parses; *which = its index, -1 if none. */
static int32_t first_valid(const char *const *names, int n, rank_getenv_fn get, void *ctx,
			   int *which)
{
	for (int i = 0; i < n; i++) {
		int32_t v = rank_parse(get(names[i], ctx));

		if (v >= 0) {
			if (which)
				*which = i;
			return v;
		}
	}
	if (which)
		*which = -1;
	return -1;
}

static int is_set(const char *name, rank_getenv_fn get, void *ctx)
{
	const char *v = get(name, ctx);

	return v && *v;
}

static const char *const rank_vars[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};

int rank_env_invalid(rank_getenv_fn get, void *ctx, const char **name, const char **value)
{
	if (first_valid(rank_vars, 4, get, ctx, NULL) >= 0)
		return 0;
	for (int i = 0; i < 4; i++) {
		const char *v = get(rank_vars[i], ctx);

		if (v) {
			*name = rank_vars[i];
			*value = v;
			return 1;
		}
	}
	return 0;
}

void rank_ident_from_env(struct rank_ident *id, rank_getenv_fn get, void *ctx)
{
	static const char *const local_vars[] = {"LOCAL_RANK", "SLURM_LOCALID",
						 "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"};
	static const char *const size_vars[] = {"WORLD_SIZE", "SLURM_NTASKS",
						"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
	/* torchrun's agent sets these in every worker; any one names it */
	static const char *const torch_vars[] = {
	    "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
	    "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE"};
	int which;

	id->rank = first_valid(rank_vars, 4, get, ctx, &which);
	id->source = which < 0 ? RANK_SOURCE_NONE : (uint32_t)which + 1;
	id->local_rank = first_valid(local_vars, 4, get, ctx, NULL);
	id->world_size = first_valid(size_vars, 4, get, ctx, NULL);
	id->launcher = RANK_LAUNCHER_NONE;
	for (size_t i = 0; i < sizeof(torch_vars) / sizeof(torch_vars[0]); i++)
		if (is_set(torch_vars[i], get, ctx))
			id->launcher = RANK_LAUNCHER_TORCHRUN;
	if (id->launcher == RANK_LAUNCHER_NONE) {
		if (is_set("SLURM_JOB_ID", get, ctx))
			id->launcher = RANK_LAUNCHER_SLURM;
		else if (is_set("OMPI_COMM_WORLD_RANK", get, ctx) ||
			 is_set("OMPI_COMM_WORLD_SIZE", get, ctx))
			id->launcher = RANK_LAUNCHER_OPENMPI;
		else if (is_set("PMI_RANK", get, ctx))
			id->launcher = RANK_LAUNCHER_PMI;
	}
}

const char *rank_launcher_name(uint32_t launcher)
{
	static const char *const names[] = {"none", "torchrun", "slurm", "openmpi", "pmi"};

	return launcher < 5 ? names[launcher] : "none";
}

const char *rank_source_name(uint32_t source)
{
	static const char *const names[] = {"pid", "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
					    "PMI_RANK"};

	return source < 5 ? names[source] : "pid";
}
