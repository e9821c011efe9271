/* tlogsynth.c: synthetic builtin-tracer logs (see tlogsynth.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "support/tlogsynth.h"
#include "trace/tracelog.h"
#include "trace/tracer_env.h"
#include "core/banned.h"

struct out {
	struct strbuf file;  /* whole log, or what is not yet written to fd1 - 1 */
	struct strbuf chunk; /* current chunk payload */
	uint32_t tid;
	int fd1;    /* the log's temporary file + 1 while it is written as it grows, else 0 */
	int errnum; /* the first write's errno */
};

/* Writes what o->file holds to the temporary file once it is big: a
 * log of any size takes a few MiB here (bench/trace-log-memory-bench.sh). */
static void spill(struct out *o, size_t at_least)
{
	size_t done = 0;

	if (!o->fd1 || o->file.len < at_least)
		return;
	while (done < o->file.len && !o->errnum) {
		ssize_t n = write(o->fd1 - 1, o->file.buf + done, o->file.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->errnum = n < 0 ? errno : ENOSPC;
		else
			done += (size_t)n;
	}
	strbuf_reset(&o->file);
}

static void *rec(struct out *o, uint16_t type, size_t fixed, const char *s1, size_t n1,
		 const char *s2, size_t n2)
{
	size_t size = TLOG_ALIGN8(fixed + (s1 ? n1 + 1 : 0) + (s2 ? n2 + 1 : 0));
	size_t at = o->chunk.len;
	struct tlog_rec *h;

	strbuf_grow(&o->chunk, size);
	memset(o->chunk.buf + at, 0, size);
	if (s1)
		memcpy(o->chunk.buf + at + fixed, s1, n1);
	if (s2)
		memcpy(o->chunk.buf + at + fixed + n1 + 1, s2, n2);
	strbuf_setlen(&o->chunk, at + size);
	h = (struct tlog_rec *)(void *)(o->chunk.buf + at);
	h->type = type;
	h->size = (uint16_t)size;
	return h;
}

static void flush_chunk(struct out *o)
{
	struct tlog_chunk_header ch = {TLOG_CHUNK_MAGIC, (uint32_t)o->chunk.len, o->tid, 0};
	if (!o->chunk.len)
		return;
	strbuf_add(&o->file, &ch, sizeof(ch));
	strbuf_add(&o->file, o->chunk.buf, o->chunk.len);
	strbuf_reset(&o->chunk);
}

/* With nccl: domain "NCCL" (id 2) and the two payload schemas NCCL
 * registers that the synthetic job uses (tlogsynth.h), as the tracer
 * records them. */
static void put_nccl_defs(struct out *o, uint64_t base)
{
	static const char coll[] = "NCCL communicator ID\0Message size [bytes]";
	static const char init[] = "NCCL communicator ID\0No. of ranks";
	struct tlog_nvtx_def *d = rec(o, TLOG_NVTX_DOMAIN, sizeof(*d), "NCCL", 4, NULL, 0);
	const size_t fixed =
	    sizeof(struct tlog_nvtx_pl_schema) + 2 * sizeof(struct tlog_nvtx_pl_entry);

	d->ts = base + 11;
	d->id = 2;
	d->len = 4;
	for (int k = 0; k < 2; k++) {
		struct tlog_nvtx_pl_schema *sc =
		    rec(o, TLOG_NVTX_PL_SCHEMA, fixed, k ? init : coll,
			(k ? sizeof(init) : sizeof(coll)) - 1, NULL, 0);
		struct tlog_nvtx_pl_entry *e = (void *)(sc + 1);

		sc->ts = base + 12;
		sc->domain = 2;
		sc->id = k ? TLOGSYNTH_SID_INIT : TLOGSYNTH_SID_ALLREDUCE;
		sc->type = 1; /* NVTX_PAYLOAD_SCHEMA_TYPE_STATIC */
		sc->size = 16;
		sc->n = 2;
		e[0].type = 18;		/* UINT64 */
		e[1].type = k ? 5 : 22; /* INT, SIZE */
		e[1].offset = 8;
	}
}

/* A range of domain NCCL on the thread [ts, end) named fn, with a payload
 * of schema sid: the communicator and value (bytes, or ranks for init). */
static void put_nccl_range(struct out *o, uint64_t ts, uint64_t end, const char *fn, uint64_t sid,
			   uint64_t value)
{
	struct tlog_nvtx_event *e = rec(o, TLOG_NVTX_PUSH, sizeof(*e), fn, strlen(fn), NULL, 0);
	struct tlog_nvtx_payload *p;
	struct tlog_nvtx_pl_data *x;
	struct tlog_nvtx_end *q;

	e->h.aux = TLOG_MSG_TEXT;
	e->ts = ts;
	e->domain = 2;
	e->len = (uint32_t)strlen(fn);
	p = rec(o, TLOG_NVTX_PAYLOAD, sizeof(*p) + sizeof(*x) + 16, NULL, 0, NULL, 0);
	p->h.aux = 1;
	p->ts = ts;
	p->domain = 2;
	x = (void *)(p + 1);
	x->schema_id = sid;
	x->kept = 16;
	memcpy(x + 1, &(uint64_t[2]){TLOGSYNTH_NCCL_COMM, value}, 16);
	q = rec(o, TLOG_NVTX_POP, sizeof(*q), NULL, 0, NULL, 0);
	q->ts = end;
	q->domain = 2;
}

/* The file header and the definitions: process, domain "LLM", API names,
 * two kernel names (three with nccl: id 3 is NCCL's), one H100. */
static void put_definitions(struct out *o, uint32_t pid, uint64_t base,
			    const struct tlogsynth_rank *rk, int all)
{
	static const char *const mangled[3] = {
	    "_Z10gemv_bf16PKfS0_Pfi", "_ZN3llm8rmsnormILi128EEEvPf",
	    "_Z40ncclDevKernel_AllReduce_Sum_bf16_RING_LL24ncclDevKernelArgsStorageILm4096EE"};
	static const char *const demangled[3] = {
	    "gemv_bf16(const float *, const float *, float *, int)",
	    "void llm::rmsnorm<128>(float *)",
	    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
	struct tlog_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TLOG_MAGIC, 8);
	h.version = TLOG_VERSION;
	h.header_size = sizeof(h);
	h.pid = pid;
	h.ppid = 1;
	h.start_ns = base;
	h.flags = TLOG_F_NVTX | TLOG_F_CUDA;
	strbuf_add(&o->file, &h, sizeof(h));

	{ /* definitions */
		struct tlog_process *p = rec(o, TLOG_PROCESS, sizeof(*p), "synth --x", 9, NULL, 0);
		p->ts = base;
		p->pid = pid;
		p->ppid = 1;
		p->len = 9;
	}
	if (rk) {
		size_t n = rk->host ? strlen(rk->host) : 0;
		struct tlog_rank *r =
		    rec(o, TLOG_RANK, sizeof(*r), rk->host ? rk->host : "", n, NULL, 0);
		r->rank = rk->rank;
		r->local_rank = rk->local_rank;
		r->world_size = rk->world_size;
		r->launcher = rk->launcher;
		r->source = rk->rank >= 0 ? 1 : 0; /* RANK_SOURCE_RANK */
		r->len = (uint32_t)n;
	}
	{
		struct tlog_nvtx_def *d = rec(o, TLOG_NVTX_DOMAIN, sizeof(*d), "LLM", 3, NULL, 0);
		d->ts = base + 10;
		d->id = 1;
		d->len = 3;
	}
	{
		struct tlog_api_name *a =
		    rec(o, TLOG_API_NAME, sizeof(*a), "cudaLaunchKernel_v7000", 22, NULL, 0);
		a->cbid = 211;
		a->len = 22;
		a = rec(o, TLOG_API_NAME, sizeof(*a), "cudaMemcpyAsync_v3020", 21, NULL, 0);
		a->cbid = 41;
		a->len = 21;
		a = rec(o, TLOG_API_NAME, sizeof(*a), "cudaMemsetAsync_v3020", 21, NULL, 0);
		a->cbid = 51;
		a->len = 21;
		if (all) { /* only here, so other logs convert as before */
			a = rec(o, TLOG_API_NAME, sizeof(*a), "cudaStreamSynchronize_v3020", 27,
				NULL, 0);
			a->cbid = 131;
			a->len = 27;
			a = rec(o, TLOG_API_NAME, sizeof(*a), "cuModuleLoadData", 16, NULL, 0);
			a->h.aux = 1; /* driver */
			a->cbid = 30;
			a->len = 16;
			a = rec(o, TLOG_API_NAME, sizeof(*a), "cuStreamSynchronize", 19, NULL, 0);
			a->h.aux = 1;
			a->cbid = 308;
			a->len = 19;
		}
	}
	if (rk && rk->nccl)
		put_nccl_defs(o, base);
	/* NCCL's name only where it runs, so other logs convert as before */
	for (int k = 0; k < (rk && rk->nccl ? 3 : 2); k++) {
		struct tlog_kernel_name *n =
		    rec(o, TLOG_KERNEL_NAME, sizeof(*n), mangled[k], strlen(mangled[k]),
			demangled[k], strlen(demangled[k]));
		n->id = (uint32_t)k + 1;
		n->mangled_len = (uint32_t)strlen(mangled[k]);
		n->demangled_len = (uint32_t)strlen(demangled[k]);
	}
	{
		struct tlog_device *d =
		    rec(o, TLOG_DEVICE, sizeof(*d), "NVIDIA H100 80GB HBM3", 21, NULL, 0);
		d->id = 0;
		d->sm_count = 132;
		d->core_clock_khz = 1980000;
		d->global_memory_bandwidth_kbs = 3352320000ull;
		d->global_memory_size = 85017493504ull;
		d->l2_cache_size = 52428800;
		d->cc_major = 9;
		d->threads_per_warp = 32;
		d->len = 21;
	}
	flush_chunk(o);
}

/* Call i of a step: its runtime call (and with api_activity the driver
 * call inside every other one), as callback records in o or activity
 * records in gpu. Returns the correlation id its GPU record carries. */
static uint32_t put_call(struct out *o, struct out *gpu, uint32_t pid, uint64_t *t, uint32_t corr,
			 uint32_t i, uint32_t kps, int api_activity)
{
	struct tlog_api *a;
	uint32_t gcorr = corr;

	if (api_activity && i % 2 == 1) {
		/* the nested driver call ends first, so comes first */
		a = rec(gpu, TLOG_API_ACT, sizeof(*a), NULL, 0, NULL, 0);
		a->h.aux = TLOG_API_DRIVER;
		a->start = *t + 2;
		a->end = *t + 3;
		a->corr = corr + 1000000;
		a->cbid = 307;
		a->tid = pid;
	}
	a = api_activity ? rec(gpu, TLOG_API_ACT, sizeof(*a), NULL, 0, NULL, 0)
			 : rec(o, TLOG_API, sizeof(*a), NULL, 0, NULL, 0);
	a->h.aux = TLOG_API_RUNTIME;
	a->start = *t + 1;
	a->end = *t + 3;
	a->corr = corr;
	a->cbid = i < kps ? 211 : i == kps ? 41 : 51;
	a->tid = api_activity ? pid : 0;
	*t += 4;
	if (i % 2 == 1) { /* GPU record carries the driver call's id */
		if (!api_activity) {
			struct tlog_corr_alias *al =
			    rec(o, TLOG_CORR_ALIAS, sizeof(*al), NULL, 0, NULL, 0);
			al->from = corr + 1000000;
			al->to = corr;
		}
		gcorr = corr + 1000000;
	}
	return gcorr;
}

/* A kernel of the step work: on device 0, stream 7, 132 blocks of 128
 * threads, 32 registers; from 100 ns after *t for dur ns, *t moved to its
 * end. Returned for the fields that differ. */
static struct tlog_kernel *put_kernel(struct out *gpu, uint64_t *t, uint32_t corr, uint32_t name_id,
				      uint64_t dur)
{
	struct tlog_kernel *k = rec(gpu, TLOG_KERNEL, sizeof(*k), NULL, 0, NULL, 0);

	k->start = *t + 100;
	k->end = *t + 100 + dur;
	k->device = 0;
	k->context = 1;
	k->stream = 7;
	k->corr = corr;
	k->grid[0] = 132, k->grid[1] = 1, k->grid[2] = 1;
	k->block[0] = 128, k->block[1] = 1, k->block[2] = 1;
	k->registers = 32;
	k->name_id = name_id;
	*t = k->end;
	return k;
}

/* The GPU record of call i: kps kernels, then a memcpy, then a memset. */
static void put_gpu_op(struct out *gpu, uint64_t *t, uint32_t corr, uint32_t gcorr, uint32_t i,
		       uint32_t kps, uint64_t slow)
{
	if (i < kps) {
		put_kernel(gpu, t, gcorr, i % 2 + 1, 1000 + i * 10 + slow)->grid_id = corr;
	} else if (i == kps) {
		struct tlog_memcpy *m = rec(gpu, TLOG_MEMCPY, sizeof(*m), NULL, 0, NULL, 0);
		m->start = *t + 100;
		m->end = *t + 600;
		m->bytes = 4096;
		m->stream = 7;
		m->context = 1;
		m->corr = gcorr;
		m->copy_kind = 1;
		m->src_kind = 1; /* CUPTI pageable */
		m->dst_kind = 3; /* CUPTI device */
		*t = m->end;
	} else {
		struct tlog_memset *m = rec(gpu, TLOG_MEMSET, sizeof(*m), NULL, 0, NULL, 0);
		m->start = *t + 100;
		m->end = *t + 300;
		m->bytes = 8192;
		m->stream = 7;
		m->context = 1;
		m->corr = gcorr;
		m->mem_kind = 3;
		*t = m->end;
	}
}

static void put_nvtx(struct out *o, uint16_t type, uint64_t ts, const char *text)
{
	if (type == TLOG_NVTX_PUSH) {
		struct tlog_nvtx_event *e =
		    rec(o, TLOG_NVTX_PUSH, sizeof(*e), text, strlen(text), NULL, 0);
		e->h.aux = TLOG_MSG_TEXT;
		e->ts = ts;
		e->domain = 1;
		e->len = (uint32_t)strlen(text);
	} else {
		struct tlog_nvtx_end *p = rec(o, TLOG_NVTX_POP, sizeof(*p), NULL, 0, NULL, 0);
		p->ts = ts;
		p->domain = 1;
	}
}

/* One activity API record in gpu: [start, end) on thread pid. */
static void put_api_act(struct out *gpu, uint32_t pid, int driver, uint32_t cbid, uint32_t corr,
			uint64_t start, uint64_t end)
{
	struct tlog_api *a = rec(gpu, TLOG_API_ACT, sizeof(*a), NULL, 0, NULL, 0);

	a->h.aux = driver ? TLOG_API_DRIVER : TLOG_API_RUNTIME;
	a->start = start;
	a->end = end;
	a->corr = corr;
	a->cbid = cbid;
	a->tid = pid;
}

/* One step's launches and GPU work: kps kernels, a memcpy, a memset. */
static void put_step_work(struct out *o, struct out *gpu, uint32_t pid, uint64_t *t, uint32_t *corr,
			  uint32_t kps, int api_activity, uint64_t slow)
{
	for (uint32_t i = 0; i < kps + 2; i++) {
		uint32_t gcorr = put_call(o, gpu, pid, t, *corr, i, kps, api_activity);

		put_gpu_op(gpu, t, *corr, gcorr, i, kps, slow);
		(*corr)++;
		if (o->chunk.len > (60u << 10))
			flush_chunk(o);
		if (gpu->chunk.len > (60u << 10))
			flush_chunk(gpu), strbuf_add(&o->file, gpu->file.buf, gpu->file.len),
			    strbuf_reset(&gpu->file);
		spill(o, 8u << 20);
	}
}

/* The step's AllReduce (tlogsynth.h): launched now, on the GPU once the
 * launch is through, ending TLOGSYNTH_NCCL_TRANSFER_NS after the slowest
 * rank arrives; t0 is when the step's work began on every rank. */
static void put_allreduce(struct out *o, struct out *gpu, uint64_t *t, uint32_t *corr, uint64_t t0,
			  uint32_t kps, const struct tlogsynth_rank *rk)
{
	struct tlog_api *a;
	struct tlog_kernel *k;
	uint64_t work = 0;

	/* NCCL's range around the call: it holds the launch (tlogsynth.h) */
	put_nccl_range(o, *t + 1, *t + 3, "ncclAllReduce", TLOGSYNTH_SID_ALLREDUCE,
		       TLOGSYNTH_NCCL_BYTES);
	a = rec(o, TLOG_API, sizeof(*a), NULL, 0, NULL, 0);
	a->h.aux = TLOG_API_RUNTIME;
	a->start = *t + 1;
	a->end = *t + 3;
	a->corr = *corr;
	a->cbid = 211;
	/* the slowest rank's step work, launches and gaps as put_step_work lays them out */
	for (uint32_t i = 0; i < kps; i++)
		work += 4 + 100 + 1000 + i * 10 + rk->world_slow_ns;
	work += 4 + 600 + 4 + 300;
	k = rec(gpu, TLOG_KERNEL, sizeof(*k), NULL, 0, NULL, 0);
	k->start = *t + 4 + 100;
	k->end = t0 + work + 4 + 100 + TLOGSYNTH_NCCL_TRANSFER_NS;
	k->device = 0;
	k->context = 1;
	k->stream = 13;
	k->corr = *corr;
	k->grid[0] = 1, k->grid[1] = 1, k->grid[2] = 1;
	k->block[0] = 640, k->block[1] = 1, k->block[2] = 1;
	k->registers = 96;
	k->grid_id = *corr;
	k->name_id = 3;
	*t = k->end;
	(*corr)++;
}

/* One step of a rank: its work, then with nccl its AllReduce. */
static void put_rank_step(struct out *o, struct out *gpu, uint32_t pid, uint64_t *t, uint32_t *corr,
			  uint32_t kps, uint64_t slow, const struct tlogsynth_rank *rk)
{
	uint64_t t0 = *t;

	if (rk && rk->slow_on_host) { /* the host late, the same kernels */
		*t += (uint64_t)kps * slow;
		slow = 0;
	}
	put_step_work(o, gpu, pid, t, corr, kps, 0, slow);
	if (rk && rk->nccl)
		put_allreduce(o, gpu, t, corr, t0, kps, rk);
}

/* Makes o write the log <dir>/trace-<pid>.bin to its temporary file as
 * it grows (spill(); finish_log() renames it). 0, or -1 with err set. */
static int open_spill(struct out *o, const char *dir, uint32_t pid, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;

	strbuf_addf(&tmp, "%s/" TRACER_LOG_PREFIX "%u" TRACER_LOG_SUFFIX ".tmp", dir, pid);
	o->fd1 = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) + 1;
	if (!o->fd1)
		error_errno(err, "cannot create '%s'", tmp.buf);
	strbuf_release(&tmp);
	return o->fd1 ? 0 : -1;
}

/* Flushes both chunks, writes <dir>/trace-<pid>.bin (the GPU chunks after
 * the thread's, as the tracer leaves them) and frees both. 0, or -1 with err. */
static int finish_log(struct out *o, struct out *gpu, const char *dir, uint32_t pid,
		      struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	flush_chunk(o);
	flush_chunk(gpu);
	strbuf_add(&o->file, gpu->file.buf, gpu->file.len);
	strbuf_addf(&path, "%s/" TRACER_LOG_PREFIX "%u" TRACER_LOG_SUFFIX, dir, pid);
	if (o->fd1) {
		struct strbuf tmp = STRBUF_INIT;

		spill(o, 0);
		strbuf_addf(&tmp, "%s.tmp", path.buf);
		ret = 0;
		if (close(o->fd1 - 1) && !o->errnum)
			o->errnum = errno;
		if (o->errnum || rename(tmp.buf, path.buf)) {
			ret = error_set(err, "cannot write '%s': %s", tmp.buf,
					strerror(o->errnum ? o->errnum : errno));
			unlink(tmp.buf);
		}
		strbuf_release(&tmp);
	} else {
		ret = write_file_atomic(path.buf, o->file.buf, o->file.len, err);
	}
	strbuf_release(&path);
	strbuf_release(&o->file);
	strbuf_release(&o->chunk);
	strbuf_release(&gpu->file);
	strbuf_release(&gpu->chunk);
	return ret;
}

static int write_log(const char *dir, uint32_t pid, uint64_t base, uint32_t steps, uint32_t kps,
		     int api_activity, const struct tlogsynth_rank *rk, struct strbuf *err)
{
	struct out o = {STRBUF_INIT, STRBUF_INIT, pid};
	/* GPU records go to their own chunk (tid 0), as in the tracer. */
	struct out gpu = {STRBUF_INIT, STRBUF_INIT, 0};
	uint64_t t = base + 1000, slow = rk ? rk->slow_ns : 0;
	uint32_t corr = 1;
	int all = api_activity == TLOGSYNTH_API_ALL;

	/* written as it grows (spill()): the bench makes logs of 10 GiB */
	if (open_spill(&o, dir, pid, err) < 0)
		return -1;
	put_definitions(&o, pid, base, rk, all);
	if (rk && rk->nccl) /* the communicator's init, its size given at the pop */
		put_nccl_range(&o, t - 500, t - 400, "ncclCommInitRankConfig", TLOGSYNTH_SID_INIT,
			       (uint64_t)(rk->world_size > 0 ? rk->world_size : 0));
	if (rk) {
		put_nvtx(&o, TLOG_NVTX_PUSH, t, "prefill");
		put_rank_step(&o, &gpu, pid, &t, &corr, kps, slow, rk);
		put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	}
	put_nvtx(&o, TLOG_NVTX_PUSH, rk ? ++t : t, "decode_all");
	if (all) { /* a module load of 100 us */
		put_api_act(&gpu, pid, 1, 30, corr++, t + 1, t + 100001);
		t += 100002;
	}
	for (uint32_t s = 0; s < steps; s++) {
		put_nvtx(&o, TLOG_NVTX_PUSH, ++t, rk ? "decode_step" : "step");
		if (all) { /* a 5 us synchronisation, its driver call inside */
			put_api_act(&gpu, pid, 1, 308, corr + 1000000, t + 2, t + 5000);
			put_api_act(&gpu, pid, 0, 131, corr++, t + 1, t + 5001);
			t += 5002;
		}
		if (rk)
			put_rank_step(&o, &gpu, pid, &t, &corr, kps, slow, rk);
		else
			put_step_work(&o, &gpu, pid, &t, &corr, kps, api_activity, slow);
		put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	}
	put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	return finish_log(&o, &gpu, dir, pid, err);
}

int tlogsynth_write_open(const char *dir, uint32_t pid, uint64_t base, uint32_t n,
			 struct strbuf *err)
{
	struct out o = {STRBUF_INIT, STRBUF_INIT, pid};
	struct out gpu = {STRBUF_INIT, STRBUF_INIT, 0};

	if (open_spill(&o, dir, pid, err) < 0)
		return -1;
	put_definitions(&o, pid, base, NULL, 0);
	for (uint32_t i = 0; i < n; i++) {
		put_nvtx(&o, TLOG_NVTX_PUSH, base + 1000 + i, "open");
		if (o.chunk.len > (60u << 10))
			flush_chunk(&o);
		spill(&o, 1u << 20);
	}
	return finish_log(&o, &gpu, dir, pid, err);
}

int tlogsynth_write(const char *dir, uint32_t pid, uint64_t base, uint32_t steps, uint32_t kps,
		    int api_activity, struct strbuf *err)
{
	return write_log(dir, pid, base, steps, kps, api_activity, NULL, err);
}

int tlogsynth_write_rank(const char *dir, uint32_t pid, uint64_t base, uint32_t steps, uint32_t kps,
			 const struct tlogsynth_rank *rank, struct strbuf *err)
{
	return write_log(dir, pid, base, steps, kps, 0, rank, err);
}

/* One launch call (callback source) on the main thread. */
static void put_launch(struct out *o, uint64_t *t, uint32_t corr, uint32_t cbid)
{
	struct tlog_api *a = rec(o, TLOG_API, sizeof(*a), NULL, 0, NULL, 0);

	a->h.aux = TLOG_API_RUNTIME;
	a->start = *t + 1;
	a->end = *t + 3;
	a->corr = corr;
	a->cbid = cbid;
	*t += 4;
}

/* Kernel k (0: gemv_bf16 in "attn", 1: rmsnorm in "mlp") of one step:
 * 1000 and 3000 ns, carrying graph node node (0 = eager). */
static void put_graph_kernel(struct out *gpu, uint64_t *t, uint32_t corr, int k, uint64_t node)
{
	struct tlog_kernel *x = put_kernel(gpu, t, corr, (uint32_t)k + 1, k ? 3000 : 1000);

	x->graph_node_id = node;
	x->graph_id = node ? 2 : 0;
}

static void put_graph_node(struct out *o, uint64_t ts, uint64_t node, uint64_t original)
{
	struct tlog_graph_node *n = rec(o, TLOG_GRAPH_NODE, sizeof(*n), NULL, 0, NULL, 0);

	n->h.aux = 1; /* CU_GRAPH_NODE_TYPE_KERNEL */
	n->ts = ts;
	n->node_id = node;
	n->original_id = original;
	n->graph_id = original ? 2 : 1;
}

int tlogsynth_write_graph(const char *dir, uint32_t pid, uint64_t base, uint32_t steps, int graph,
			  struct strbuf *err)
{
	static const char *const op[3] = {"attn", "mlp", "out"};
	int nk = graph == 2 ? 3 : 2;
	struct out o = {STRBUF_INIT, STRBUF_INIT, pid};
	struct out gpu = {STRBUF_INIT, STRBUF_INIT, 0};
	uint64_t t = base + 1000;
	uint32_t corr = 1;

	put_definitions(&o, pid, base, NULL, 0);
	{
		struct tlog_api_name *a =
		    rec(&o, TLOG_API_NAME, sizeof(*a), "cudaGraphLaunch_v10000", 22, NULL, 0);
		a->cbid = 311;
		a->len = 22;
	}
	if (graph == 1) {
		/* capture: the ranges are pushed once, each launch makes a node
		 * (11, 12) and runs nothing; instantiation clones them (21, 22) */
		put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "layer0");
		for (int k = 0; k < 2; k++) {
			put_nvtx(&o, TLOG_NVTX_PUSH, ++t, op[k]);
			put_launch(&o, &t, corr++, 211);
			put_graph_node(&o, t - 2, 11 + (uint64_t)k, 0);
			put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
		}
		put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
		for (int k = 0; k < 2; k++)
			put_graph_node(&o, t += 10, 21 + (uint64_t)k, 11 + (uint64_t)k);
	}
	put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "decode_all");
	for (uint32_t s = 0; s < steps; s++) {
		put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "step");
		if (graph == 1) {
			uint32_t c = corr++;

			put_launch(&o, &t, c, 311);
			for (int k = 0; k < 2; k++)
				put_graph_kernel(&gpu, &t, c, k, 21 + (uint64_t)k);
		} else {
			put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "layer0");
			for (int k = 0; k < nk; k++) {
				uint32_t c = corr++;

				put_nvtx(&o, TLOG_NVTX_PUSH, ++t, op[k]);
				put_launch(&o, &t, c, 211);
				/* "out": gemv_bf16 again, one configuration */
				put_graph_kernel(&gpu, &t, c, k % 2, 0);
				put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
			}
			put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
		}
		put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	}
	put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	return finish_log(&o, &gpu, dir, pid, err);
}

/* The objects and sampler settings of tlogsynth_write_setup (tlogsynth.h). */
static void put_sampling(struct out *o, uint64_t base)
{
	static const char *const path[4] = {
	    "/nonexistent/libcuda.so.1", "/nonexistent/libpython3.11.so.1.0",
	    "/nonexistent/libtorch_cpu.so", "/nonexistent/libc.so.6"};
	struct tlog_cpu_sampling *c = rec(o, TLOG_CPU_SAMPLING, sizeof(*c), NULL, 0, NULL, 0);

	c->ts = base + 20;
	c->period_ns = 1000000;
	c->signo = 41;
	c->method = TLOG_UNWIND_LIBUNWIND;
	for (uint64_t k = 0; k < 4; k++) {
		struct tlog_module *m =
		    rec(o, TLOG_MODULE, sizeof(*m), path[k], strlen(path[k]), NULL, 0);
		m->base = m->lo = (k + 1) << 28;
		m->hi = m->lo + (1u << 24);
		m->len = (uint32_t)strlen(path[k]);
	}
	flush_chunk(o);
}

/* What tracing cost the process, as the tracer writes it at exit: 5 ms in
 * 40 hooks (3 ms CUDA API callbacks, 0.5 ms resource, 1.5 ms NVTX), 1 ms
 * on its own threads (0.25 ms in 2 buffers, 0.75 ms in 3 flushes), of
 * 200 ms CPU time in 250 ms. */
static void put_cost(struct out *o, uint64_t ts)
{
	struct tlog_cost *c = rec(o, TLOG_COST, sizeof(*c), NULL, 0, NULL, 0);

	c->ts = ts;
	c->wall_ns = 250000000;
	c->cpu_ns = 200000000;
	c->api_ns = 3000000;
	c->api_n = 30;
	c->resource_ns = 500000;
	c->resource_n = 2;
	c->nvtx_ns = 1500000;
	c->nvtx_n = 8;
	c->buffer_ns = 250000;
	c->buffer_n = 2;
	c->flush_ns = 750000;
	c->flush_n = 3;
}

/* The sampler's totals at exit: n samples, 20 us each in its handler; old:
 * in the record as it was before the handler's time was added. */
static void put_sampler_totals(struct out *o, uint64_t ts, uint64_t n, int old)
{
	struct tlog_cpu_sampling *c = rec(
	    o, TLOG_CPU_SAMPLING, old ? TLOG_CPU_SAMPLING_MIN_SIZE : sizeof(*c), NULL, 0, NULL, 0);

	c->h.aux = 1;
	c->ts = ts;
	c->period_ns = 1000000;
	c->signo = 41;
	c->method = TLOG_UNWIND_LIBUNWIND;
	c->samples = n;
	c->threads = 1;
	if (old)
		return;
	c->handler_ns = n * 20000;
	c->handler_calls = n;
}

/* One sample at ts: its first frame in object k (put_sampling's order) at
 * offset off, then a caller: in the Python interpreter, or (ck > 0) at
 * offset coff of object ck - 1. */
static void put_sample_in(struct out *o, uint64_t ts, uint64_t k, uint64_t off, uint64_t ck,
			  uint64_t coff)
{
	struct tlog_cpu_sample *s = rec(o, TLOG_CPU_SAMPLE, sizeof(*s) + 16, NULL, 0, NULL, 0);
	uint64_t frames[2] = {((k + 1) << 28) + off, ck ? (ck << 28) + coff : (2u << 28) + 0x500};

	s->h.aux = TLOG_UNWIND_LIBUNWIND;
	s->ts = ts;
	s->nframes = 2;
	memcpy(s + 1, frames, sizeof(frames));
}

static void put_sample(struct out *o, uint64_t ts, uint64_t k, uint64_t off)
{
	put_sample_in(o, ts, k, off, 0, 0);
}

int tlogsynth_write_setup(const char *dir, uint32_t pid, uint64_t base, int samples,
			  struct strbuf *err)
{
	struct out o = {STRBUF_INIT, STRBUF_INIT, pid};
	struct out gpu = {STRBUF_INIT, STRBUF_INIT, 0};
	uint64_t t = base + 1000;
	uint32_t corr = 1;

	put_definitions(&o, pid, base, NULL, TLOGSYNTH_API_ALL);
	if (samples)
		put_sampling(&o, base);
	put_nvtx(&o, TLOG_NVTX_PUSH, t, "prefill");
	/* 60 ms loading a module, sampled in libcuda */
	put_api_act(&gpu, pid, 1, 30, corr++, t + 1, t + 60000001);
	for (uint64_t k = 0; k < 60 && samples; k++)
		put_sample(&o, t + 500000 + k * 1000000, 0, 0x100);
	t += 60000002;
	/* 40 ms of host code: 24 samples in Python, 10 in PyTorch, 6 in libc:
	 * 4 called from PyTorch (its return address 0x1001 is in +0x1000),
	 * 2 from libc itself */
	for (uint64_t k = 0; k < 40 && samples; k++)
		put_sample_in(&o, t + 500000 + k * 1000000,
			      k < 24   ? 1
			      : k < 34 ? 2
				       : 3,
			      k < 24   ? 0x300
			      : k < 34 ? 0x1000
				       : 0x2000,
			      k < 34   ? 0
			      : k < 38 ? 3
				       : 4,
			      k < 38 ? 0x1001 : 0x2101);
	t += 40000000;
	put_step_work(&o, &gpu, pid, &t, &corr, 2, 1, 0);
	put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	if (samples) /* between the stages: no stage's */
		put_sample(&o, t + 10, 1, 0x300);
	t += 20;
	put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "decode_all");
	for (int s = 0; s < 4; s++) {
		put_nvtx(&o, TLOG_NVTX_PUSH, ++t, "decode_step");
		if (samples) /* one PyTorch sample a step, outside its calls */
			put_sample(&o, t, 2, 0x1800);
		put_step_work(&o, &gpu, pid, &t, &corr, 4, 1, 0);
		put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	}
	put_nvtx(&o, TLOG_NVTX_POP, ++t, NULL);
	if (samples)
		put_sampler_totals(&o, ++t, 105, samples == 2);
	put_cost(&o, ++t);
	return finish_log(&o, &gpu, dir, pid, err);
}
