/* tosqlite_row.c: the pure record -> row functions of the log -> SQLite
 * converter (tosqlite.h): each takes a log record and returns the column
 * values nsys would write, so tests check them with records they build. */
#include <stdlib.h>
#include <string.h>

#include "trace/tosqlite.h"
#include "trace/tosqlite_internal.h"
#include "core/banned.h"

int64_t tosqlite_global_pid(uint32_t pid)
{
	return VM_ID | ((int64_t)(pid & 0xffffff) << 24);
}

int64_t tosqlite_global_tid(uint32_t pid, uint32_t tid)
{
	return tosqlite_global_pid(pid) | (int64_t)(tid & 0xffffff);
}

int tosqlite_mem_kind(uint8_t k)
{
	return k == 0 || k > 7 ? 7 : k - 1;
}

int tosqlite_launch_type(uint8_t t)
{
	return t <= 2 ? t + 1 : 0;
}

/* Timestamps relative to the session start. A damaged log can hold any
 * 64-bit value: the arithmetic wraps (unsigned) instead of overflowing. */
static int64_t rel_ts(const struct tosqlite_ctx *c, int64_t t)
{
	return (int64_t)((uint64_t)t - (uint64_t)c->t0);
}

static int64_t gpu_ts(const struct tosqlite_ctx *c, uint64_t t)
{
	return (int64_t)(t + (uint64_t)c->gpu_shift - (uint64_t)c->t0);
}

void tosqlite_kernel_row(struct kernel_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_kernel *k, const int64_t names[3], uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, k->start);
	r->end = gpu_ts(c, k->end);
	r->deviceId = k->device;
	r->contextId = k->context;
	r->greenContextId = 0;
	r->streamId = k->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->demangledName = names[0];
	r->shortName = names[1];
	r->mangledName = names[2];
	r->launchType = tosqlite_launch_type(k->launch_type);
	r->cacheConfig = k->cache_config;
	r->registersPerThread = k->registers;
	r->gridX = k->grid[0];
	r->gridY = k->grid[1];
	r->gridZ = k->grid[2];
	r->blockX = k->block[0];
	r->blockY = k->block[1];
	r->blockZ = k->block[2];
	r->staticSharedMemory = k->static_smem;
	r->dynamicSharedMemory = k->dynamic_smem;
	r->localMemoryPerThread = k->local_per_thread;
	r->localMemoryTotal = k->local_total;
	r->gridId = k->grid_id;
	r->sharedMemoryExecuted = k->smem_executed;
	r->graphNodeId = (int64_t)k->graph_node_id;
	r->graphNodeId_null = k->graph_node_id == 0;
	r->sharedMemoryLimitConfig = k->smem_limit_config;
}

void tosqlite_memcpy_row(struct memcpy_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memcpy *m, uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, m->start);
	r->end = gpu_ts(c, m->end);
	r->deviceId = m->device;
	r->contextId = m->context;
	r->streamId = m->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->bytes = (int64_t)m->bytes;
	r->copyKind = m->copy_kind; /* CUPTI and nsys agree on 0..10 */
	r->srcKind = tosqlite_mem_kind(m->src_kind);
	r->dstKind = tosqlite_mem_kind(m->dst_kind);
	r->srcDeviceId = m->src_device;
	r->srcContextId = m->src_context;
	r->dstDeviceId = m->dst_device;
	r->dstContextId = m->dst_context;
	r->graphNodeId = (int64_t)m->graph_node_id;
	r->graphNodeId_null = m->graph_node_id == 0;
}

void tosqlite_memset_row(struct memset_row *r, const struct tosqlite_ctx *c,
			 const struct tlog_memset *m, uint32_t corr)
{
	memset(r, 0, sizeof(*r));
	r->start = gpu_ts(c, m->start);
	r->end = gpu_ts(c, m->end);
	r->deviceId = m->device;
	r->contextId = m->context;
	r->streamId = m->stream;
	r->correlationId = corr;
	r->globalPid = tosqlite_global_pid(c->pid);
	r->value = m->value;
	r->bytes = (int64_t)m->bytes;
	r->graphNodeId = (int64_t)m->graph_node_id;
	r->graphNodeId_null = m->graph_node_id == 0;
	r->memKind = tosqlite_mem_kind(m->mem_kind);
}

void tosqlite_runtime_row(struct runtime_row *r, const struct tosqlite_ctx *c,
			  const struct tlog_api *a, uint32_t tid, int64_t name_id)
{
	int64_t shift = 0;

	if (a->h.type == TLOG_API_ACT) {
		tid = a->tid;
		shift = c->gpu_shift;
	}
	r->start = rel_ts(c, (int64_t)((uint64_t)a->start + (uint64_t)shift));
	r->end = rel_ts(c, (int64_t)((uint64_t)a->end + (uint64_t)shift));
	r->eventClass = a->h.aux == TLOG_API_DRIVER ? 1 : 0; /* ENUM_NSYS_EVENT_CLASS */
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	r->correlationId = a->corr;
	r->nameId = name_id;
	r->returnValue = a->ret;
}

static int cmp_span(const void *pa, const void *pb)
{
	const struct api_span *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->driver != b->driver) /* the runtime call encloses, so first */
		return a->driver ? 1 : -1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

void tosqlite_api_nest(struct api_span *v, size_t n)
{
	const struct api_span *rt = NULL; /* latest runtime call of this thread */
	size_t i;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_span);
	for (i = 0; i < n; i++) {
		struct api_span *s = &v[i];
		if (rt && rt->tid != s->tid)
			rt = NULL;
		s->parent = 0;
		if (!s->driver) {
			rt = s; /* runtime calls do not nest in each other */
			continue;
		}
		if (rt && s->start >= rt->start && s->end <= rt->end)
			s->parent = rt->corr;
	}
}

static void nvtx_attrs(struct nvtx_row *r, const struct tlog_nvtx_event *e, int64_t text_id)
{
	r->domainId = (int64_t)e->domain;
	if (e->category) {
		r->category = e->category;
		r->has_category = 1;
	}
	if (e->has_color) {
		r->color = e->color;
		r->has_color = 1;
	}
	if (e->h.aux == TLOG_MSG_REGISTERED && text_id >= 0) {
		r->textId = text_id;
		r->has_textId = 1;
	} else if (e->h.aux == TLOG_MSG_TEXT) {
		r->text = tlog_rec_string(&e->h, sizeof(*e), e->len);
		r->has_text = 1;
	}
	r->payload_type = e->payload_type;
	r->payload = e->payload;
}

void tosqlite_nvtx_range_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			     const struct tlog_nvtx_event *b, uint32_t begin_tid, int64_t end_ts,
			     uint32_t end_tid, int64_t text_id)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)b->ts);
	if (end_ts >= 0) {
		r->end = rel_ts(c, end_ts);
		r->has_end = 1;
	}
	r->eventType = b->h.type == TLOG_NVTX_PUSH ? 59 : 60;
	r->globalTid = tosqlite_global_tid(c->pid, begin_tid);
	if (b->h.type == TLOG_NVTX_START) {
		r->rangeId = (int64_t)b->id;
		r->has_rangeId = 1;
		/* Like nsys: set only when the range ended on another thread. */
		if (end_ts >= 0 && end_tid != begin_tid) {
			r->endGlobalTid = tosqlite_global_tid(c->pid, end_tid);
			r->has_endGlobalTid = 1;
		}
	}
	nvtx_attrs(r, b, text_id);
}

void tosqlite_nvtx_mark_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			    const struct tlog_nvtx_event *m, uint32_t tid, int64_t text_id)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)m->ts);
	r->eventType = 34;
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	nvtx_attrs(r, m, text_id);
}

void tosqlite_nvtx_def_row(struct nvtx_row *r, const struct tosqlite_ctx *c,
			   const struct tlog_nvtx_def *d, uint32_t tid)
{
	memset(r, 0, sizeof(*r));
	r->start = rel_ts(c, (int64_t)d->ts);
	r->globalTid = tosqlite_global_tid(c->pid, tid);
	r->text = tlog_rec_string(&d->h, sizeof(*d), d->len);
	r->has_text = 1;
	if (d->h.type == TLOG_NVTX_DOMAIN) {
		r->eventType = 75;
		r->domainId = (int64_t)d->id;
	} else {
		r->eventType = 33;
		r->category = (int64_t)d->id;
		r->has_category = 1;
		r->domainId = (int64_t)d->ref;
	}
}
