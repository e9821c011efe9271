/* cupti_floor.c: the least a CUPTI-based kernel tracer can do, as a yardstick
 * for the builtin tracer's overhead (bench/tracer/overhead-matrix.sh,
 * variant "cupti-floor"). Loaded through CUDA_INJECTION64_PATH, it enables
 * CONCURRENT_KERNEL activity only, hands CUPTI recycled 8 MiB buffers, counts
 * the kernel records it gets back and throws them away. No NVTX, no launch
 * calls, no log. At exit it writes "kernels N dropped D" to the file named
 * by CUPTI_FLOOR_OUT (stderr when unset), so the matrix can check that it
 * saw every kernel.
 *
 * Buffers are handed to CUPTI already zeroed (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_
 * ACTIVITY_BUFFER) and zeroed again on CUPTI's worker thread when they come
 * back, as the builtin tracer does: otherwise CUPTI zeroes each buffer on
 * the launching thread, which is no part of a floor. CUPTI_FLOOR_ZEROED=0
 * leaves that to CUPTI (the floor as first measured).
 *
 * CUPTI_FLOOR_LAUNCH=1 adds what NVTX attribution needs from CUPTI: RUNTIME
 * and DRIVER activity records, with OS thread ids, for the launch-type calls
 * the builtin tracer records by default (the same selection,
 * src/trace/apiname.h: launches, memcpy and memset calls), counted and
 * thrown away too; the line then ends "api A". That is CUPTI's floor for a
 * tracer that attributes kernels to NVTX ranges: what the builtin costs
 * above it is its own.
 *
 * llmprof_bench_trace(0|1), exported, switches all of it off and on in the
 * running process, as the builtin tracer's does with
 * LLMPROF_TRACE_BENCH=pausable (bench/tracer/inproc_ab.py), and
 * cupti_floor_kernels() flushes CUPTI's buffers and says how many kernel
 * records came back so far, so that a benchmark can check the switch did
 * reach what it times (a CUDA graph's replays).
 *
 *   cc -shared -fPIC -O2 -I/usr/local/cuda/include bench/tracer/cupti_floor.c \
 *      -L/usr/local/cuda/lib64 -lcupti -o libcupti_floor.so
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "../../src/trace/apiname.h"

#define BUF_SIZE (8u << 20)
#define POOL 64

static uint8_t *pool[POOL];
static int pool_n;
static int zeroed = 1; /* buffers are handed out zeroed (CUPTI_FLOOR_ZEROED) */
static unsigned long long kernels, api;
static int launch;  /* CUPTI_FLOOR_LAUNCH */
static int started; /* InitializeInjection enabled it: this copy is the one CUDA loaded */
static size_t dropped;

/* CUPTI calls both from its own thread, one at a time per buffer; the pool
 * is only touched under this lock. */
static volatile int lock;
static void pool_lock(void)
{
	while (__sync_lock_test_and_set(&lock, 1))
		;
}
static void pool_unlock(void)
{
	__sync_lock_release(&lock);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pool_lock();
	if (pool_n)
		b = pool[--pool_n];
	pool_unlock();
	if (!b)
		b = zeroed ? calloc(1, BUF_SIZE) : aligned_alloc(8, BUF_SIZE);
	*buf = b;
	*size = b ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t n = 0;
	unsigned long long k = 0, a = 0;

	(void)ctx, (void)stream, (void)size;
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		k += rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		a += rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
		     rec->kind == CUPTI_ACTIVITY_KIND_DRIVER;
	}
	cuptiActivityGetNumDroppedRecords(ctx, stream, &n);
	if (zeroed) /* the whole buffer: CUPTI may have begun a record past valid */
		memset(buf, 0, BUF_SIZE);
	pool_lock();
	kernels += k;
	api += a;
	dropped += n;
	if (pool_n < POOL) {
		pool[pool_n++] = buf;
		buf = NULL;
	}
	pool_unlock();
	free(buf);
}

static void at_exit(void)
{
	const char *path = getenv("CUPTI_FLOOR_OUT");
	FILE *f = path ? fopen(path, "w") : NULL;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (launch)
		fprintf(f ? f : stderr, "kernels %llu dropped %zu api %llu\n", kernels, dropped,
			api);
	else
		fprintf(f ? f : stderr, "kernels %llu dropped %zu\n", kernels, dropped);
	if (f)
		fclose(f);
}

/* The launch-type calls of one domain as activity records (enable 0: off
 * again); how many. */
static int enable_launch_api(CUpti_CallbackDomain dom, uint32_t size, int driver, uint8_t enable)
{
	int n = 0;

	for (uint32_t cbid = 1; cbid < size; cbid++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name ||
		    (strncmp(name, "cuda", 4) == 0) == (driver != 0) ||
		    !api_name_is_launch(name, 1))
			continue;
		n += (driver ? cuptiActivityEnableDriverApi(cbid, enable)
			     : cuptiActivityEnableRuntimeApi(cbid, enable)) == CUPTI_SUCCESS;
	}
	return n;
}

__attribute__((visibility("default"))) int llmprof_bench_trace(int on);

/* As the builtin tracer's (LLMPROF_TRACE_BENCH=pausable): what the floor
 * enabled, off (on = 0) or back on, for bench/tracer/inproc_ab.py. 0, or
 * -1 in a copy CUDA did not start. */
int llmprof_bench_trace(int on)
{
	uint8_t e = on != 0;

	if (!started)
		return -1;
	if (launch) {
		enable_launch_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0, e);
		enable_launch_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1, e);
	}
	if (e)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	else
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	return 0;
}

__attribute__((visibility("default"))) unsigned long long cupti_floor_kernels(void);

/* Kernel records so far, every buffer flushed first (forced: the ones CUPTI
 * is still filling too), so that what a synchronized loop launched is in. */
unsigned long long cupti_floor_kernels(void)
{
	unsigned long long k;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pool_lock();
	k = kernels;
	pool_unlock();
	return k;
}

__attribute__((visibility("default"))) int InitializeInjection(void);

int InitializeInjection(void)
{
	const char *z = getenv("CUPTI_FLOOR_ZEROED");
	uint8_t on = 1;
	size_t osz = sizeof(on);

	zeroed = !(z && strcmp(z, "0") == 0);
	if (zeroed) {
		/* before the callbacks are registered, as CUPTI asks */
		if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &osz,
					      &on) != CUPTI_SUCCESS)
			zeroed = 0;
		/* two buffers touched now, so the first records fault no pages in */
		for (int i = 0; zeroed && i < 2; i++) {
			uint8_t *b = calloc(1, BUF_SIZE);
			if (b) {
				memset(b, 0, BUF_SIZE);
				pool[pool_n++] = b;
			}
		}
	}
	if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
		fprintf(stderr, "cupti_floor: CUPTI could not be enabled\n");
		return 1; /* the program runs untraced; the matrix sees no count */
	}
	/* in the builtin tracer's order: thread ids, launch calls, kernels */
	launch = (z = getenv("CUPTI_FLOOR_LAUNCH")) && strcmp(z, "1") == 0;
	if (launch &&
	    (cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS ||
	     !enable_launch_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0, 1) ||
	     !enable_launch_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1, 1)))
		fprintf(stderr, "cupti_floor: launch records could not all be enabled\n");
	if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
		fprintf(stderr, "cupti_floor: CUPTI could not be enabled\n");
		return 1;
	}
	atexit(at_exit);
	started = 1;
	return 1;
}
