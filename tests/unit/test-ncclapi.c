/* test-ncclapi.c: bytes per NCCL call from NVTX extended payloads
 * (analysis/ncclapi.h, trace/nvtxpayload.h) on a synthetic two-rank trace
 * written as nsys exports it with --include-blobs: the schemas, the blobs,
 * the kernels and their launch calls. The bandwidths are checked against
 * numbers worked out by hand; malformed blobs must decode to nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "analysis/collectives.h"
#include "analysis/ncclapi.h"
#include "model/model.h"
#include "trace/nvtxpayload.h"
#include "trace/trace.h"

#define S (1u << 24)
#define PID1 16777216LL /* globalPid of pid 1; its thread 11: PID1 + 11 */
#define PID2 33554432LL
#define COMM 0xC0FFEEull

static void le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* One payload of schema sid: data[0..n) in nsys's blob layout. */
static size_t blob(unsigned char *b, uint64_t sid, const unsigned char *data, size_t n)
{
	le(b, 1, 8);
	le(b + 8, sid, 8);
	le(b + 16, n, 8);
	le(b + 24, 32, 8);
	memcpy(b + 32, data, n);
	return 32 + n;
}

static void exec(sqlite3 *db, const char *sql)
{
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* An NCCL range of text id fn on thread gtid with bytes (schema sid) or,
 * for an init range (sid S + 2), nranks | rank << 32 in place of the size. */
static void range(sqlite3 *db, int64_t gtid, int64_t start, int64_t end, int fn, uint64_t sid,
		  uint64_t value)
{
	unsigned char data[24] = {0}, b[64];
	sqlite3_stmt *st;
	size_t n;

	le(data, COMM, 8);
	le(data + 8, value, 8); /* init: nranks, then the rank in the high half */
	n = blob(b, sid, data, 24);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "INSERT INTO NVTX_EVENTS (start, end, eventType, "
					    "globalTid, textId, domainId, binaryData) VALUES "
					    "(?, ?, 59, ?, ?, 1, ?)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	sqlite3_bind_int64(st, 3, gtid);
	sqlite3_bind_int64(st, 4, fn);
	if (sid)
		sqlite3_bind_blob(st, 5, b, (int)n, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void launch(sqlite3 *db, int64_t gtid, int64_t at, int corr, int kname, int64_t ks,
		   int64_t ke)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%lld, %lld, %lld, %d, 9);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, correlationId, globalPid,"
		 " demangledName, shortName, deviceId, streamId) VALUES (%lld, %lld, %d, %lld, %d,"
		 " %d, 0, 7);",
		 (long long)at, (long long)at + 5, (long long)gtid, corr, (long long)ks,
		 (long long)ke, corr, (long long)(gtid & TRACE_GPID_MASK), kname, kname);
	exec(db, sql);
}

/* Rank 0 (pid 1): two AllReduce of 1e6 bytes whose kernels take 1000 and
 * 2000 ns (the second one not named ncclDevKernel_*; a GEMM launched
 * between them belongs to neither), one AllGather of 5e5 bytes per rank (500 ns), one AllReduce of
 * 4096 bytes that launched nothing (its kernel came from ncclGroupEnd,
 * outside the range); rank 1 (pid 2): one AllReduce of 2e6 bytes (4000 ns).
 * The communicator has 4 ranks (its init ranges). */
static void write_trace(const char *path, uint64_t rank2)
{
	sqlite3 *db;
	const int64_t t0 = PID1 + 11, t1 = PID2 + 21;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db,
	     "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
	     "INSERT INTO StringIds VALUES (1, 'ncclAllReduce'), (2, 'ncclAllGather'),"
	     " (3, 'ncclCommInitRankConfig'), (4, 'ncclGroupEnd'),"
	     " (5, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),"
	     " (6, 'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),"
	     " (7, 'void <unnamed>::oneRankReduce<FuncPreMulSum<__nv_bfloat16>>(...)'),"
	     " (8, 'ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn'),"
	     " (9, 'cudaLaunchKernelExC_v11060');"
	     "CREATE TABLE NVTX_EVENTS(start INT NOT NULL, end INT, eventType INT NOT NULL,"
	     " text TEXT, globalTid INT, endGlobalTid INT, textId INT, domainId INT,"
	     " binaryData TEXT);"
	     "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES"
	     " (1, 75, 'NCCL', 16777227, 1), (1, 75, 'NCCL', 33554453, 1);"
	     "CREATE TABLE NVTX_PAYLOAD_SCHEMAS(domainId INT, schemaId INT, name TEXT, type INT,"
	     " flags INT, numEntries INT, payloadSize INT, alignTo INT);"
	     "INSERT INTO NVTX_PAYLOAD_SCHEMAS (domainId, schemaId, type, numEntries,"
	     " payloadSize) VALUES (1, 16777218, 1, 4, 24), (1, 16777221, 1, 3, 24),"
	     " (1, 16777219, 1, 2, 16);"
	     "CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES(domainId INT, schemaId INT, idx INT,"
	     " flags INT, type INT, name TEXT, description TEXT, arrayOrUnionDetail INT,"
	     " offset INT);"
	     "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId, schemaId, idx, type, name,"
	     " offset) VALUES (1, 16777218, 0, 18, 'NCCL communicator ID', NULL),"
	     " (1, 16777218, 1, 5, 'No. of ranks', 8), (1, 16777218, 2, 5, 'Rank', 12),"
	     " (1, 16777218, 3, 5, 'CUDA device', 16),"
	     " (1, 16777221, 0, 18, 'NCCL communicator ID', NULL),"
	     " (1, 16777221, 1, 22, 'Message size [bytes]', 8),"
	     " (1, 16777221, 2, 16777236, 'Reduction operation', 16),"
	     " (1, 16777219, 0, 18, 'NCCL communicator ID', NULL),"
	     " (1, 16777219, 1, 22, 'Message size [bytes]', 8);"
	     "CREATE TABLE NVTX_PAYLOAD_ENUMS(domainId INT, schemaId INT, name TEXT,"
	     " numEntries INT, size INT);"
	     "INSERT INTO NVTX_PAYLOAD_ENUMS VALUES (1, 16777236, NULL, 2, 4);"
	     "CREATE TABLE NVTX_PAYLOAD_ENUM_ENTRIES(domainId INT, schemaId INT, idx INT,"
	     " name TEXT, value INT, isFlag INT);"
	     "INSERT INTO NVTX_PAYLOAD_ENUM_ENTRIES VALUES (1, 16777236, 0, 'Sum', NULL, NULL),"
	     " (1, 16777236, 1, 'Product', 1, NULL);"
	     "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT NOT NULL, end INT NOT NULL,"
	     " globalTid INT, correlationId INT, nameId INT);"
	     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT NOT NULL, end INT NOT NULL,"
	     " correlationId INT, globalPid INT, demangledName INT, shortName INT, deviceId INT,"
	     " streamId INT);");
	range(db, t0, 10, 20, 3, S + 2, 4);
	range(db, t1, 10, 20, 3, S + 2, 4 | rank2 << 32);
	range(db, t0, 100, 200, 1, S + 5, 1000000);
	launch(db, t0, 150, 1, 5, 1000, 2000);
	launch(db, t0, 250, 5, 8, 2500, 2900); /* a GEMM between the calls: not NCCL's */
	range(db, t0, 300, 400, 1, S + 5, 1000000);
	/* an AVG all_reduce at world size 1 runs oneRankReduce: counted too */
	launch(db, t0, 350, 2, 7, 3000, 5000);
	range(db, t0, 500, 600, 2, S + 3, 500000);
	launch(db, t0, 550, 3, 6, 6000, 6500);
	range(db, t0, 700, 800, 1, S + 5, 4096);
	range(db, t0, 850, 950, 4, 0, 0); /* ncclGroupEnd: no collective */
	launch(db, t0, 900, 4, 5, 7000, 9000);
	range(db, t1, 100, 200, 1, S + 5, 2000000);
	launch(db, t1, 150, 1, 5, 1000, 5000); /* same corr as rank 0's: another process */
	sqlite3_close(db);
}

static const struct report_nccl_api *row(const struct report_model *m, const char *label,
					 const char *type)
{
	for (size_t i = 0; i < m->ranks.coll.nr_api; i++)
		if (!strcmp(m->ranks.coll.api[i].label, label) &&
		    !strcmp(m->ranks.coll.api[i].type, type))
			return &m->ranks.coll.api[i];
	fail_msg("no row %s %s", label, type);
	return NULL;
}

static void test_two_ranks(void **state)
{
	char path[] = "/tmp/llmprof-test-ncclapi-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	const struct report_nccl_api *r;
	struct report_model m;
	struct trace t;
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	write_trace(path, 0);
	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, TRACE_KERNELS | TRACE_CALLS | TRACE_NVTX, &err), 0);
	report_model_init(&m);
	nccl_api_fill(&m, &t);
	assert_null(m.ranks.coll.bytes_why);
	assert_int_equal(m.ranks.coll.nr_api, 3);
	/* pid order, then type order */
	assert_string_equal(m.ranks.coll.api[0].type, "AllReduce");
	assert_string_equal(m.ranks.coll.api[1].type, "AllGather");
	assert_string_equal(m.ranks.coll.api[2].label, "pid 2");

	r = row(&m, "pid 1", "AllReduce");
	assert_int_equal(r->calls, 3);
	assert_int_equal(r->sized, 3);
	assert_int_equal(r->bytes, 2004096);
	assert_int_equal(r->launched, 2);
	assert_int_equal(r->kernels, 2);
	assert_int_equal(r->kernel_ns, 3000);
	assert_int_equal(r->nranks, 4);
	assert_string_equal(r->op, "Sum");
	/* algbw: 2e6 bytes in 3000 ns = 666.67 GB/s; busbw x 2(4-1)/4 = 1000 */
	assert_true(r->algbw_gbs.available && r->busbw_gbs.available);
	assert_float_equal(r->algbw_gbs.v, 2e6 / 3000, 1e-9);
	assert_float_equal(r->busbw_gbs.v, 1000.0, 1e-9);

	r = row(&m, "pid 1", "AllGather");
	assert_int_equal(r->bytes, 500000);
	assert_int_equal(r->kernel_ns, 500);
	assert_null(r->op);
	/* algbw: 4 x 5e5 bytes in 500 ns = 4000 GB/s; busbw x 3/4 = 3000 */
	assert_float_equal(r->algbw_gbs.v, 4000.0, 1e-9);
	assert_float_equal(r->busbw_gbs.v, 3000.0, 1e-9);

	r = row(&m, "pid 2", "AllReduce");
	assert_int_equal(r->calls, 1);
	assert_int_equal(r->bytes, 2000000);
	assert_int_equal(r->kernel_ns, 4000);
	/* 2e6 / 4000 = 500 GB/s; busbw 750 */
	assert_float_equal(r->algbw_gbs.v, 500.0, 1e-9);
	assert_float_equal(r->busbw_gbs.v, 750.0, 1e-9);

	report_model_release(&m);
	trace_close(&t);

	/* the same trace with its blobs dropped: the calls, no bytes, the reason */
	{
		sqlite3 *db;

		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		exec(db, "UPDATE NVTX_EVENTS SET binaryData = NULL");
		sqlite3_close(db);
	}
	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, TRACE_KERNELS | TRACE_CALLS | TRACE_NVTX, &err), 0);
	report_model_init(&m);
	nccl_api_fill(&m, &t);
	assert_string_equal(m.ranks.coll.bytes_why, "nsys export without --include-blobs");
	r = row(&m, "pid 1", "AllReduce");
	assert_int_equal(r->calls, 3);
	assert_int_equal(r->sized, 0);
	assert_int_equal(r->launched, 2);
	assert_false(r->algbw_gbs.available);
	assert_int_equal(r->nranks, 0);
	report_model_release(&m);
	trace_close(&t);
	strbuf_release(&err);
	unlink(path);
}

/* Ranks from the communicator-init payloads: both processes say rank 0 of
 * 4 (the caller then keeps pids), then pid 2 says rank 3; without blobs,
 * none. */
static void test_comm_idents(void **state)
{
	char path[] = "/tmp/llmprof-test-ncclapi-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct nccl_ident *id;
	struct trace t;
	size_t n;
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	for (uint64_t r2 = 0; r2 <= 3; r2 += 3) {
		unlink(path);
		write_trace(path, r2);
		assert_int_equal(trace_open(&t, path, &err), 0);
		assert_int_equal(trace_load(&t, TRACE_KERNELS | TRACE_CALLS | TRACE_NVTX, &err), 0);
		assert_int_equal(nccl_comm_idents(&t, &id, &n, &err), 0);
		assert_int_equal(n, 2);
		assert_true(id[0].gpid == PID1 && id[1].gpid == PID2);
		assert_int_equal(id[0].rank, 0);
		assert_int_equal(id[1].rank, (int)r2);
		assert_true(id[0].nranks == 4 && id[1].nranks == 4);
		assert_int_equal(id[1].device, 0);
		free(id);
		trace_close(&t);
	}
	{
		sqlite3 *db;

		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		exec(db, "UPDATE NVTX_EVENTS SET binaryData = NULL");
		sqlite3_close(db);
	}
	assert_int_equal(trace_open(&t, path, &err), 0);
	assert_int_equal(trace_load(&t, TRACE_KERNELS | TRACE_CALLS | TRACE_NVTX, &err), 0);
	assert_int_equal(nccl_comm_idents(&t, &id, &n, &err), 0);
	assert_int_equal(n, 0);
	free(id);
	trace_close(&t);
	strbuf_release(&err);
	unlink(path);
}

/* NCCL's factors (nccl-tests' doc/PERFORMANCE.md). */
static void test_factors(void **state)
{
	(void)state;
	assert_float_equal(nccl_busbw_factor(COLL_ALLREDUCE, 8), 1.75, 1e-12);
	assert_float_equal(nccl_busbw_factor(COLL_ALLREDUCE, 1), 0.0, 1e-12);
	assert_float_equal(nccl_busbw_factor(COLL_ALLGATHER, 8), 0.875, 1e-12);
	assert_float_equal(nccl_busbw_factor(COLL_REDUCESCATTER, 2), 0.5, 1e-12);
	assert_float_equal(nccl_busbw_factor(COLL_BROADCAST, 0), 1.0, 1e-12);
	assert_float_equal(nccl_busbw_factor(COLL_REDUCE, 0), 1.0, 1e-12);
	assert_true(nccl_busbw_factor(COLL_ALLREDUCE, 0) < 0);
	assert_true(nccl_busbw_factor(COLL_ALLTOALL, 8) < 0);
	assert_float_equal(nccl_algbw_scale(COLL_ALLGATHER, 8), 8.0, 1e-12);
	assert_true(nccl_algbw_scale(COLL_REDUCESCATTER, 0) < 0);
	assert_float_equal(nccl_algbw_scale(COLL_ALLREDUCE, 0), 1.0, 1e-12);
}

/* Blobs a damaged file could hold decode to nothing, never past the blob. */
static void test_malformed_blobs(void **state)
{
	struct nvtx_pl_entry e[2] = {{(char *)"NCCL communicator ID", 18, 0},
				     {(char *)"Message size [bytes]", 22, 8}};
	struct nvtx_pl_schema s = {1, S + 5, 16, e, 2};
	struct nvtx_payloads p = {1, &s, 1, NULL, 0};
	unsigned char data[16] = {0}, b[64];
	struct nvtx_pl_value v;
	size_t n;
	(void)state;

	le(data + 8, 131072, 8);
	n = blob(b, S + 5, data, 16);
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Message size [bytes]", &v), 1);
	assert_int_equal(v.i, 131072);
	assert_int_equal(nvtx_payload_get(&p, 2, b, n, "Message size [bytes]", &v), 0); /* domain */
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Root", &v), 0);
	assert_int_equal(nvtx_payload_get(&p, 1, b, n - 1, "Message size [bytes]", &v), 0);
	assert_int_equal(nvtx_payload_get(&p, 1, b, 7, "Message size [bytes]", &v), 0);
	assert_int_equal(nvtx_payload_get(&p, 1, NULL, 0, "Message size [bytes]", &v), 0);
	le(b + 16, 12, 8); /* payload shorter than the entry's end */
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Message size [bytes]", &v), 0);
	le(b + 16, 16, 8);
	le(b + 24, (uint64_t)-8, 8); /* offset wrapping around */
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Message size [bytes]", &v), 0);
	le(b + 24, 32, 8);
	le(b, (uint64_t)1 << 60, 8); /* count beyond the blob */
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Message size [bytes]", &v), 0);
	le(b, 1, 8);
	e[1].offset = (uint64_t)-4; /* an entry offset past everything */
	assert_int_equal(nvtx_payload_get(&p, 1, b, n, "Message size [bytes]", &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_ranks),
	    cmocka_unit_test(test_comm_idents),
	    cmocka_unit_test(test_factors),
	    cmocka_unit_test(test_malformed_blobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
