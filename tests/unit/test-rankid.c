/* test-rankid.c: the environment -> rank rule (trace/rankid.h): the order of
 * the variables, invalid values skipped, the launcher, and the identity read
 * back from a converted synthetic trace (LLMPROF_PROCESSES). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "core/fsutil.h"
#include "trace/rankid.h"
#include "support/tlogsynth.h"
#include "trace/tosqlite.h"
#include "trace/trace.h"

/* A NULL-terminated list of "NAME=value". */
static const char *table_get(const char *name, void *ctx)
{
	const char *const *env = ctx;
	size_t n = strlen(name);

	for (; *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static struct rank_ident ident(const char *const *env)
{
	struct rank_ident id;

	rank_ident_from_env(&id, table_get, (void *)env);
	return id;
}

static void test_parse(void **state)
{
	(void)state;
	assert_int_equal(rank_parse("0"), 0);
	assert_int_equal(rank_parse("17"), 17);
	assert_int_equal(rank_parse("2147483647"), 2147483647);
	assert_int_equal(rank_parse("2147483648"), -1);
	assert_int_equal(rank_parse("abc"), -1);
	assert_int_equal(rank_parse("-1"), -1);
	assert_int_equal(rank_parse("+1"), -1);
	assert_int_equal(rank_parse(" 1"), -1);
	assert_int_equal(rank_parse("1x"), -1);
	assert_int_equal(rank_parse(""), -1);
	assert_int_equal(rank_parse(NULL), -1);
}

static void test_order(void **state)
{
	static const char *const all[] = {"PMI_RANK=4", "OMPI_COMM_WORLD_RANK=3", "SLURM_PROCID=2",
					  "RANK=1", NULL};
	static const char *const no_rank[] = {"PMI_RANK=4", "OMPI_COMM_WORLD_RANK=3",
					      "SLURM_PROCID=2", NULL};
	static const char *const bad[] = {"RANK=abc", "SLURM_PROCID=", "OMPI_COMM_WORLD_RANK=-3",
					  "PMI_RANK=5", NULL};
	static const char *const none[] = {"HOME=/", "RANK=x", NULL};
	struct rank_ident id;
	(void)state;

	id = ident(all);
	assert_int_equal(id.rank, 1);
	assert_int_equal(id.source, RANK_SOURCE_RANK);
	id = ident(no_rank);
	assert_int_equal(id.rank, 2);
	assert_int_equal(id.source, RANK_SOURCE_SLURM_PROCID);
	id = ident(bad); /* invalid values fall through to the next variable */
	assert_int_equal(id.rank, 5);
	assert_int_equal(id.source, RANK_SOURCE_PMI_RANK);
	assert_string_equal(rank_source_name(id.source), "PMI_RANK");
	id = ident(none);
	assert_int_equal(id.rank, -1);
	assert_int_equal(id.source, RANK_SOURCE_NONE);
	assert_int_equal(id.local_rank, -1);
	assert_int_equal(id.world_size, -1);
	assert_int_equal(id.launcher, RANK_LAUNCHER_NONE);
	assert_string_equal(rank_source_name(id.source), "pid");
}

static void test_launcher(void **state)
{
	static const char *const torch[] = {"SLURM_JOB_ID=9", "TORCHELASTIC_RUN_ID=x", "RANK=3",
					    "LOCAL_RANK=1",   "WORLD_SIZE=4",	       NULL};
	static const char *const slurm[] = {"SLURM_JOB_ID=9", "SLURM_PROCID=5", "SLURM_LOCALID=1",
					    "SLURM_NTASKS=8", NULL};
	static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=4",
					   "OMPI_COMM_WORLD_LOCAL_RANK=0", NULL};
	static const char *const pmi[] = {"PMI_RANK=1", "PMI_SIZE=2", NULL};
	static const char *const other_torch[] = {"TORCHELASTIC_RESTART_COUNT=0", NULL};
	struct rank_ident id;
	(void)state;

	id = ident(torch);
	assert_int_equal(id.launcher, RANK_LAUNCHER_TORCHRUN);
	assert_int_equal(id.rank, 3);
	assert_int_equal(id.local_rank, 1);
	assert_int_equal(id.world_size, 4);
	assert_string_equal(rank_launcher_name(id.launcher), "torchrun");
	id = ident(slurm);
	assert_int_equal(id.launcher, RANK_LAUNCHER_SLURM);
	assert_int_equal(id.rank, 5);
	assert_int_equal(id.local_rank, 1);
	assert_int_equal(id.world_size, 8);
	id = ident(ompi);
	assert_int_equal(id.launcher, RANK_LAUNCHER_OPENMPI);
	assert_int_equal(id.rank, 2);
	assert_int_equal(id.local_rank, 0);
	assert_int_equal(id.world_size, 4);
	assert_string_equal(rank_launcher_name(id.launcher), "openmpi");
	id = ident(pmi);
	assert_int_equal(id.launcher, RANK_LAUNCHER_PMI);
	assert_int_equal(id.world_size, 2);
	id = ident(other_torch);
	assert_int_equal(id.launcher, RANK_LAUNCHER_TORCHRUN);
	assert_string_equal(rank_launcher_name(99), "none");
}

/* Two synthetic ranks and one log without a rank record converted: the
 * identity comes back from LLMPROF_PROCESSES; the old log has no row. */
static void test_read_back(void **state)
{
	char dir[] = "/tmp/llmprof-rankid-XXXXXX";
	struct strbuf err = STRBUF_INIT, db = STRBUF_INIT;
	struct trace_convert_stats st;
	struct trace t;
	struct trace_process *p = NULL;
	size_t n = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	for (int r = 0; r < 2; r++) {
		struct tlogsynth_rank rk = {r, r, 2, RANK_LAUNCHER_SLURM, r ? "hostb" : "hosta", 0};
		assert_int_equal(
		    tlogsynth_write_rank(dir, 100 + (uint32_t)r, 1000000, 2, 2, &rk, &err), 0);
	}
	assert_int_equal(tlogsynth_write(dir, 300, 1000000, 1, 1, 0, &err), 0);
	strbuf_addf(&db, "%s/trace.sqlite", dir);
	trace_convert_stats_init(&st);
	assert_int_equal(trace_convert(dir, NULL, db.buf, NULL, &st, &err), 0);
	assert_int_equal(trace_open(&t, db.buf, &err), 0);
	assert_int_equal(trace_processes(&t, &p, &n, &err), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		int r = p[i].pid == 101;

		assert_true(p[i].pid == 100 || p[i].pid == 101);
		assert_int_equal(p[i].rank, r);
		assert_int_equal(p[i].local_rank, r);
		assert_int_equal(p[i].world_size, 2);
		assert_string_equal(p[i].host, r ? "hostb" : "hosta");
		assert_string_equal(p[i].launcher, "slurm");
		assert_string_equal(p[i].source, "RANK");
		assert_int_equal((p[i].gpid >> 24) & 0xFFFFFF, p[i].pid);
	}
	trace_processes_free(p, n);
	trace_close(&t);
	trace_convert_stats_release(&st);
	unlink(db.buf);
	for (int pid = 100; pid <= 300; pid++) {
		strbuf_reset(&db);
		strbuf_addf(&db, "%s/trace-%d.bin", dir, pid);
		unlink(db.buf);
	}
	rmdir(dir);
	strbuf_release(&err);
	strbuf_release(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_launcher),
	    cmocka_unit_test(test_read_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
