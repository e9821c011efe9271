/* Unit tests for tracer/records.c: CUPTI records built by hand (CUPTI's
 * activity API cannot run without a driver) -> log records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "records.h"

static void test_kernel(void **state)
{
	CUpti_ActivityKernel10 a;
	struct tlog_kernel k;
	(void)state;
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	a.start = 1000;
	a.end = 2500;
	a.deviceId = 1;
	a.contextId = 2;
	a.streamId = 7;
	a.correlationId = 42;
	a.gridX = 128, a.gridY = 2, a.gridZ = 1;
	a.blockX = 256, a.blockY = 1, a.blockZ = 1;
	a.registersPerThread = 40;
	a.staticSharedMemory = 1024;
	a.dynamicSharedMemory = 4096;
	a.localMemoryPerThread = 8;
	a.localMemoryTotal = 1 << 20;
	a.gridId = 99;
	a.sharedMemoryExecuted = 32768;
	a.graphNodeId = 5;
	a.graphId = 3;
	a.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
	a.cacheConfig.config.executed = 2;
	a.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
	rec_from_kernel(&k, &a, 17);
	assert_int_equal(k.h.type, TLOG_KERNEL);
	assert_int_equal(k.h.size, sizeof(k));
	assert_int_equal(k.h.size % 8, 0);
	assert_int_equal(k.start, 1000);
	assert_int_equal(k.end, 2500);
	assert_int_equal(k.device, 1);
	assert_int_equal(k.context, 2);
	assert_int_equal(k.stream, 7);
	assert_int_equal(k.corr, 42);
	assert_int_equal(k.grid[0], 128);
	assert_int_equal(k.grid[1], 2);
	assert_int_equal(k.block[0], 256);
	assert_int_equal(k.registers, 40);
	assert_int_equal(k.static_smem, 1024);
	assert_int_equal(k.dynamic_smem, 4096);
	assert_int_equal(k.local_per_thread, 8);
	assert_int_equal(k.local_total, 1 << 20);
	assert_int_equal(k.grid_id, 99);
	assert_int_equal(k.smem_executed, 32768);
	assert_int_equal(k.graph_node_id, 5);
	assert_int_equal(k.graph_id, 3);
	assert_int_equal(k.name_id, 17);
	assert_int_equal(k.cache_config, 2);
	assert_int_equal(k.smem_limit_config, 1);
}

static void test_memcpy_prefers_runtime_corr(void **state)
{
	CUpti_ActivityMemcpy6 a;
	struct tlog_memcpy m;
	(void)state;
	memset(&a, 0, sizeof(a));
	a.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	a.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	a.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	a.bytes = 4096;
	a.start = 10;
	a.end = 20;
	a.correlationId = 8;
	a.runtimeCorrelationId = 7;
	a.streamId = 13;
	rec_from_memcpy(&m, &a);
	assert_int_equal(m.corr, 7);
	assert_int_equal(m.copy_kind, 1);
	assert_int_equal(m.src_kind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
	assert_int_equal(m.dst_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	assert_int_equal(m.bytes, 4096);
	assert_int_equal(m.stream, 13);
	a.runtimeCorrelationId = 0; /* driver-only copy */
	rec_from_memcpy(&m, &a);
	assert_int_equal(m.corr, 8);
}

static void test_memset(void **state)
{
	CUpti_ActivityMemset4 a;
	struct tlog_memset m;
	(void)state;
	memset(&a, 0, sizeof(a));
	a.value = 0xab;
	a.bytes = 1 << 22;
	a.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	a.correlationId = 120;
	rec_from_memset(&m, &a);
	assert_int_equal(m.h.type, TLOG_MEMSET);
	assert_int_equal(m.value, 0xab);
	assert_int_equal(m.bytes, 1 << 22);
	assert_int_equal(m.mem_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	assert_int_equal(m.corr, 120);
}

static void test_api_activity(void **state)
{
	CUpti_ActivityAPI a;
	struct tlog_api r;
	(void)state;
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 211; /* cudaLaunchKernel_v7000 */
	a.start = 1700000000123456789ull;
	a.end = 1700000000123460000ull;
	a.processId = 4242;
	a.threadId = 4250;
	a.correlationId = 77;
	a.returnValue = 0;
	memset(&r, 0xff, sizeof(r)); /* every field must be written */
	rec_from_api(&r, &a, 0);
	assert_int_equal(r.h.type, TLOG_API_ACT);
	assert_int_equal(r.h.size, sizeof(r));
	assert_int_equal(r.h.aux, TLOG_API_RUNTIME);
	assert_int_equal(r.start, 1700000000123456789ull);
	assert_int_equal(r.end, 1700000000123460000ull);
	assert_int_equal(r.corr, 77);
	assert_int_equal(r.cbid, 211);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.tid, 4250);

	a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	a.cbid = 307;
	a.correlationId = 78;
	a.returnValue = 1; /* CUDA_ERROR_INVALID_VALUE */
	rec_from_api(&r, &a, 1);
	assert_int_equal(r.h.aux, TLOG_API_DRIVER);
	assert_int_equal(r.corr, 78);
	assert_int_equal(r.ret, 1);
}

static void test_api_selection(void **state)
{
	(void)state;
	assert_true(rec_api_selected(0, "cudaLaunchKernel_v7000", 0, 0));
	assert_true(rec_api_selected(1, "cuGraphLaunch", 0, 0));
	assert_false(rec_api_selected(0, "cudaMemcpyAsync_v3020", 0, 0));
	assert_false(rec_api_selected(1, "cuMemsetD8Async", 0, 0));
	assert_true(rec_api_selected(0, "cudaLaunchKernel_v7000", 1, 0));
	assert_true(rec_api_selected(0, "cudaGraphLaunch_v10000", 1, 0));
	assert_true(rec_api_selected(0, "cudaMemcpyAsync_v3020", 1, 0));
	assert_true(rec_api_selected(0, "cudaMemsetAsync_v3020", 1, 0));
	assert_false(rec_api_selected(0, "cudaMalloc_v3020", 1, 0));
	assert_false(rec_api_selected(0, "cudaStreamSynchronize_v3020", 1, 0));
	assert_true(rec_api_selected(1, "cuLaunchKernelEx", 1, 0));
	assert_true(rec_api_selected(1, "cuMemcpyHtoDAsync_v2", 1, 0));
	assert_false(rec_api_selected(1, "cuCtxSynchronize", 1, 0));
	assert_false(rec_api_selected(1, "cudaLaunchKernel", 1, 0));
	assert_false(rec_api_selected(0, NULL, 1, 0));
	/* LLMPROF_TRACE_API_CALLS=all: every named call, memops or not */
	assert_true(rec_api_selected(0, "cudaMalloc_v3020", 0, 1));
	assert_true(rec_api_selected(1, "cuModuleLoadData", 0, 1));
	assert_true(rec_api_selected(1, "cuCtxSynchronize", 1, 1));
	assert_true(rec_api_selected(0, "cudaLaunchKernel_v7000", 0, 1));
	assert_false(rec_api_selected(1, NULL, 1, 1));
}

/* The name cache finds an id by CUPTI's pointer, never by a pointer whose
 * text changed, and a slot taken by another name forgets the first. */
static void test_name_cache(void **state)
{
	static struct rec_name_cache c; /* zeroed: empty */
	char cupti[2][64] = {"_Z6kernelPf", "_Z5otherv"};
	char kept[2][64] = {"_Z6kernelPf", "_Z5otherv"};
	char same_text[64] = "_Z6kernelPf"; /* another string, same text */
	(void)state;

	assert_int_equal(rec_name_cache_get(&c, cupti[0]), 0);
	assert_int_equal(rec_name_cache_get(&c, NULL), 0);
	rec_name_cache_put(&c, cupti[0], kept[0], 7);
	rec_name_cache_put(&c, cupti[1], kept[1], 8);
	assert_int_equal(rec_name_cache_get(&c, cupti[0]), 7);
	assert_int_equal(rec_name_cache_get(&c, cupti[1]), 8);
	/* the same text at another address is a miss: the caller hashes it */
	if (((uintptr_t)same_text >> 3) % REC_NAME_CACHE !=
	    ((uintptr_t)cupti[0] >> 3) % REC_NAME_CACHE)
		assert_int_equal(rec_name_cache_get(&c, same_text), 0);
	/* CUPTI's string freed and reused for another kernel: a miss */
	strcpy(cupti[0], "_Z3newv");
	assert_int_equal(rec_name_cache_get(&c, cupti[0]), 0);
	/* put again: the slot now holds the new kernel */
	rec_name_cache_put(&c, cupti[0], "_Z3newv", 9);
	assert_int_equal(rec_name_cache_get(&c, cupti[0]), 9);
	/* a pointer of the same slot replaces the entry; the first then misses */
	{
		static char big[8 * REC_NAME_CACHE + 64];
		char *a = big, *b = big + 8 * REC_NAME_CACHE;
		strcpy(a, "_Z1av");
		strcpy(b, "_Z1bv");
		rec_name_cache_put(&c, a, "_Z1av", 1);
		assert_int_equal(rec_name_cache_get(&c, a), 1);
		rec_name_cache_put(&c, b, "_Z1bv", 2);
		assert_int_equal(rec_name_cache_get(&c, b), 2);
		assert_int_equal(rec_name_cache_get(&c, a), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel),
	    cmocka_unit_test(test_memcpy_prefers_runtime_corr),
	    cmocka_unit_test(test_memset),
	    cmocka_unit_test(test_api_activity),
	    cmocka_unit_test(test_api_selection),
	    cmocka_unit_test(test_name_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
