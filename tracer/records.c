/* records.c: pure conversions from CUPTI activity records to log records.
 * No CUPTI calls here, so tests can feed records built by hand (CUPTI's
 * activity API cannot run without a driver). */
#include <stdint.h>
#include <string.h>

#include "records.h"
#include "trace/apiname.h"

void rec_from_kernel(struct tlog_kernel *k, const CUpti_ActivityKernel10 *a, uint32_t name_id)
{
	memset(k, 0, sizeof(*k));
	k->h.type = TLOG_KERNEL;
	k->h.size = sizeof(*k);
	k->start = a->start;
	k->end = a->end;
	k->grid_id = a->gridId;
	k->graph_node_id = a->graphNodeId;
	k->device = a->deviceId;
	k->context = a->contextId;
	k->stream = a->streamId;
	k->corr = a->correlationId;
	k->grid[0] = a->gridX;
	k->grid[1] = a->gridY;
	k->grid[2] = a->gridZ;
	k->block[0] = a->blockX;
	k->block[1] = a->blockY;
	k->block[2] = a->blockZ;
	k->static_smem = a->staticSharedMemory;
	k->dynamic_smem = a->dynamicSharedMemory;
	k->local_per_thread = a->localMemoryPerThread;
	k->local_total = a->localMemoryTotal;
	k->smem_executed = a->sharedMemoryExecuted;
	k->graph_id = a->graphId;
	k->name_id = name_id;
	k->registers = a->registersPerThread;
	k->launch_type = a->launchType;
	k->cache_config = a->cacheConfig.config.executed;
	k->smem_limit_config = (uint8_t)a->shmemLimitConfig;
	k->is_device_launched = a->isDeviceLaunched;
}

void rec_from_memcpy(struct tlog_memcpy *m, const CUpti_ActivityMemcpy6 *a)
{
	memset(m, 0, sizeof(*m));
	m->h.type = TLOG_MEMCPY;
	m->h.size = sizeof(*m);
	m->start = a->start;
	m->end = a->end;
	m->bytes = a->bytes;
	m->graph_node_id = a->graphNodeId;
	m->device = a->deviceId;
	m->context = a->contextId;
	m->stream = a->streamId;
	/* The runtime call is what nsys shows and what NVTX attribution joins;
	 * use its id when CUPTI knows it, else the driver call's. */
	m->corr = a->runtimeCorrelationId ? a->runtimeCorrelationId : a->correlationId;
	m->src_device = a->deviceId;
	m->src_context = a->contextId;
	m->dst_device = a->deviceId;
	m->dst_context = a->contextId;
	m->copy_kind = a->copyKind;
	m->src_kind = a->srcKind;
	m->dst_kind = a->dstKind;
}

void rec_from_memcpy2(struct tlog_memcpy *m, const CUpti_ActivityMemcpyPtoP4 *a)
{
	memset(m, 0, sizeof(*m));
	m->h.type = TLOG_MEMCPY;
	m->h.size = sizeof(*m);
	m->start = a->start;
	m->end = a->end;
	m->bytes = a->bytes;
	m->graph_node_id = a->graphNodeId;
	m->device = a->deviceId;
	m->context = a->contextId;
	m->stream = a->streamId;
	m->corr = a->correlationId;
	m->src_device = a->srcDeviceId;
	m->src_context = a->srcContextId;
	m->dst_device = a->dstDeviceId;
	m->dst_context = a->dstContextId;
	m->copy_kind = a->copyKind;
	m->src_kind = a->srcKind;
	m->dst_kind = a->dstKind;
}

void rec_from_memset(struct tlog_memset *m, const CUpti_ActivityMemset4 *a)
{
	memset(m, 0, sizeof(*m));
	m->h.type = TLOG_MEMSET;
	m->h.size = sizeof(*m);
	m->start = a->start;
	m->end = a->end;
	m->bytes = a->bytes;
	m->graph_node_id = a->graphNodeId;
	m->device = a->deviceId;
	m->context = a->contextId;
	m->stream = a->streamId;
	m->corr = a->correlationId;
	m->value = a->value;
	m->mem_kind = (uint8_t)a->memoryKind;
}

void rec_from_device(struct tlog_device *d, const CUpti_ActivityDevice5 *a)
{
	memset(d, 0, sizeof(*d));
	d->h.type = TLOG_DEVICE;
	d->global_memory_bandwidth_kbs = a->globalMemoryBandwidth;
	d->global_memory_size = a->globalMemorySize;
	d->id = a->id;
	d->sm_count = a->numMultiprocessors;
	d->core_clock_khz = a->coreClockRate;
	d->l2_cache_size = a->l2CacheSize;
	d->max_threads_per_block = a->maxThreadsPerBlock;
	d->max_block_dim[0] = a->maxBlockDimX;
	d->max_block_dim[1] = a->maxBlockDimY;
	d->max_block_dim[2] = a->maxBlockDimZ;
	d->max_grid_dim[0] = a->maxGridDimX;
	d->max_grid_dim[1] = a->maxGridDimY;
	d->max_grid_dim[2] = a->maxGridDimZ;
	d->max_regs_per_block = a->maxRegistersPerBlock;
	d->max_shmem_per_block = a->maxSharedMemoryPerBlock;
	d->max_shmem_per_sm = a->maxSharedMemoryPerMultiprocessor;
	d->max_regs_per_sm = a->maxRegistersPerMultiprocessor;
	d->max_warps_per_sm = a->maxWarpsPerMultiprocessor;
	d->max_blocks_per_sm = a->maxBlocksPerMultiprocessor;
	d->cc_major = a->computeCapabilityMajor;
	d->cc_minor = a->computeCapabilityMinor;
	d->threads_per_warp = a->numThreadsPerWarp;
	d->memcpy_engines = a->numMemcpyEngines;
	d->constant_memory = a->constantMemorySize;
	memcpy(d->uuid, a->uuid.bytes, 16);
}

void rec_from_api(struct tlog_api *r, const CUpti_ActivityAPI *a, int driver)
{
	memset(r, 0, sizeof(*r));
	r->h.type = TLOG_API_ACT;
	r->h.size = sizeof(*r);
	r->h.aux = driver ? TLOG_API_DRIVER : TLOG_API_RUNTIME;
	r->start = a->start;
	r->end = a->end;
	r->corr = a->correlationId;
	r->cbid = a->cbid;
	r->ret = (int32_t)a->returnValue;
	r->tid = a->threadId;
}

int rec_api_selected(int driver, const char *name, int memops, int all)
{
	if (!name)
		return 0;
	if (all)
		return 1;
	/* a runtime name in the driver domain (or the reverse) is not ours */
	if ((strncmp(name, "cuda", 4) == 0) == (driver != 0))
		return 0;
	return api_name_is_launch(name, memops);
}

static size_t name_slot(const char *name)
{
	return ((uintptr_t)name >> 3) & (REC_NAME_CACHE - 1);
}

uint32_t rec_name_cache_get(const struct rec_name_cache *c, const char *name)
{
	size_t i = name_slot(name);

	if (!name || c->ptr[i] != name || strcmp(c->kept[i], name) != 0)
		return 0;
	return c->id[i];
}

void rec_name_cache_put(struct rec_name_cache *c, const char *name, const char *kept, uint32_t id)
{
	size_t i = name_slot(name);

	if (!name || !kept)
		return;
	c->ptr[i] = name;
	c->kept[i] = kept;
	c->id[i] = id;
}
