/* cupti.c: CUDA injection. The driver loads CUDA_INJECTION64_PATH at cuInit
 * and calls InitializeInjection, before any context exists, so buffer
 * attributes set here apply. GPU work comes from CUPTI's activity API
 * (concurrent kernels, memcpy, memset, devices). Launch-type API calls (with
 * LLMPROF_TRACE_API_CALLS=all, every API call) come, per LLMPROF_TRACE_API,
 * either from CUPTI's RUNTIME/DRIVER activity records enabled for just those
 * cbids (CUPTI buffers them; thread ids are gettid() like ours, so NVTX
 * ranges and launches share thread ids), or from CUPTI callbacks on those
 * cbids, timed with the tracer's clock on the calling thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "records.h"
#include "cost.h"
#include "tracer.h"
#include "trace/tracer_env.h"

static CUpti_SubscriberHandle g_sub;
static size_t g_cupti_buf = 8u << 20;
static int g_active;

/* Recycled CUPTI buffers, handed out already zeroed. CUPTI otherwise zeroes
 * each new buffer itself on the thread that asked for it, which is the
 * program's launching thread (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER);
 * here the zeroing happens in buffer_completed, on CUPTI's worker thread. */
#define POOL_MAX 64
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static int g_pool_n;
static int g_pool_on;

enum api_mode { API_ACTIVITY, API_CALLBACK, API_NONE };

/* Benchmark-only switches (TRACER_ENV_BENCH; src/trace/tracer_env.h): each
 * turns one part off or swaps it, so bench/tracer/tracer-cost.sh can price
 * the parts alone. Zero in every run llmprof makes. */
enum {
	BENCH_NO_SUBSCRIBE = 1u << 0,
	BENCH_DISCARD = 1u << 1,
	BENCH_TID_DEFAULT = 1u << 2,
	BENCH_API_RUNTIME = 1u << 3,
	BENCH_API_DRIVER = 1u << 4,
	BENCH_KERNEL_SERIAL = 1u << 5,
	BENCH_GRAPH_LEVEL = 1u << 6,
	BENCH_NO_DEVICE = 1u << 7,
	BENCH_STATS = 1u << 8,	    /* nothing off: the counts below, written at exit */
	BENCH_OVERHEAD = 1u << 9,   /* CUPTI's OVERHEAD records, summed by kind */
	BENCH_NAME_HASH = 1u << 10, /* every kernel's name hashed, no pointer cache */
	BENCH_PAUSABLE = 1u << 11,  /* llmprof_bench_trace() may switch recording off */
};
/* What recording enabled, for llmprof_bench_trace() to switch off and on
 * again: the activity kinds (DEVICE aside: enabling it writes the devices'
 * records again) and the launch-type API ids (driver << 31 | cbid). */
static CUpti_ActivityKind g_kinds[16];
static int g_nkinds;
static uint32_t g_api_ids[1024];
static int g_napi;
static enum api_mode g_api_mode;

static unsigned g_bench;
static uint32_t g_init_tid; /* the thread that ran InitializeInjection */
#define BENCH_OVH_KINDS 10  /* CUpti_ActivityOverheadKind >> 16, the last one for any larger */
/* What buffer_completed saw while g_bench is set (records under the GPU
 * lock; buffers and their time atomically: CUPTI may complete buffers on
 * more than one thread). */
static struct {
	uint64_t kernels, graphs, buffers, ns;
	/* on the thread that initialised CUDA (the launching thread of the
	 * benchmark programs): completions, and CUPTI's requests for a buffer
	 * there and anywhere, and those the pool could not serve */
	uint64_t done_init, req, req_init, req_miss;
	uint64_t ovh_n[BENCH_OVH_KINDS], ovh_ns[BENCH_OVH_KINDS];
} g_bs;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Counts rec for the benchmark switches; nonzero when it is to be skipped. */
static int bench_record(const CUpti_Activity *rec)
{
	g_bs.kernels += rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
			rec->kind == CUPTI_ACTIVITY_KIND_KERNEL;
	g_bs.graphs += rec->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
	if (rec->kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
		const CUpti_ActivityOverhead3 *o = (const void *)rec;
		unsigned k = (unsigned)o->overheadKind >> 16;
		if (k >= BENCH_OVH_KINDS)
			k = BENCH_OVH_KINDS - 1;
		g_bs.ovh_n[k]++;
		if (o->end > o->start)
			g_bs.ovh_ns[k] += o->end - o->start;
		free(o->overheadData); /* the client's to free (cupti_activity.h) */
		return 1;
	}
	return (g_bench & BENCH_DISCARD) && rec->kind != CUPTI_ACTIVITY_KIND_DEVICE;
}

/* Per-thread state of the API call in progress (runtime calls may nest a
 * driver call; a runtime call inside a runtime call does not happen, but a
 * small stack keeps us safe if it ever does). */
#define API_STACK 4
static __thread struct {
	int depth;
	uint64_t start[API_STACK];
	uint32_t corr[API_STACK];
	uint64_t drv_start;
} tl_api;

static const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* ---- kernel name table: mangled name -> id, written once per name ---- */
struct name_ent {
	char *name;
	uint64_t hash;
	uint32_t id;
};
static struct name_ent *g_names;
static size_t g_names_cap, g_names_n;
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn g_demangle;
static int g_demangle_tried;

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void write_name(uint32_t id, const char *mangled)
{
	struct tlog_kernel_name n;
	char *dem = NULL;
	size_t ml = strnlen(mangled, TRACER_MAX_STR), dl;
	int status = -1;

	if (!g_demangle_tried) {
		g_demangle_tried = 1;
		g_demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!g_demangle) {
			void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
			if (h)
				g_demangle = (demangle_fn)dlsym(h, "__cxa_demangle");
		}
	}
	if (g_demangle && mangled[0] == '_' && mangled[1] == 'Z')
		dem = g_demangle(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(dem);
		dem = NULL;
	}
	dl = dem ? strnlen(dem, TRACER_MAX_STR) : ml;
	memset(&n, 0, sizeof(n));
	n.h.type = TLOG_KERNEL_NAME;
	n.id = id;
	n.mangled_len = (uint32_t)(ml > TRACER_MAX_STR ? TRACER_MAX_STR : ml);
	n.demangled_len = (uint32_t)(dl > TRACER_MAX_STR ? TRACER_MAX_STR : dl);
	tracer_write_def(&n, sizeof(n), mangled, ml, dem ? dem : mangled, dl);
	free(dem);
}

/* The table's entry for name, made (and its definition written) at the
 * first sight; NULL when out of memory. Caller holds the GPU lock. Entries
 * move when the table grows; their strings do not. */
static const struct name_ent *name_ent_of(const char *name)
{
	uint64_t h;
	size_t i;

	h = fnv1a(name);
	if (g_names_n * 2 >= g_names_cap) {
		size_t ncap = g_names_cap ? g_names_cap * 2 : 1024;
		struct name_ent *nt = calloc(ncap, sizeof(*nt));
		if (!nt)
			return NULL;
		for (i = 0; i < g_names_cap; i++) {
			size_t j;
			if (!g_names[i].name)
				continue;
			for (j = g_names[i].hash & (ncap - 1); nt[j].name; j = (j + 1) & (ncap - 1))
				;
			nt[j] = g_names[i];
		}
		free(g_names);
		g_names = nt;
		g_names_cap = ncap;
	}
	for (i = h & (g_names_cap - 1); g_names[i].name; i = (i + 1) & (g_names_cap - 1))
		if (g_names[i].hash == h && strcmp(g_names[i].name, name) == 0)
			return &g_names[i];
	g_names[i].name = strdup(name);
	if (!g_names[i].name)
		return NULL;
	g_names[i].hash = h;
	g_names[i].id = (uint32_t)++g_names_n;
	write_name(g_names[i].id, name);
	return &g_names[i];
}

static struct rec_name_cache g_name_cache; /* under the GPU lock */

/* A kernel name's id, 0 when out of memory. Caller holds the GPU lock. */
static uint32_t name_id(const char *name)
{
	const struct name_ent *e;
	uint32_t id;

	if (!name)
		name = "<unknown>";
	if (!(g_bench & BENCH_NAME_HASH) && (id = rec_name_cache_get(&g_name_cache, name)))
		return id;
	e = name_ent_of(name);
	if (!e)
		return 0;
	rec_name_cache_put(&g_name_cache, name, e->name, e->id);
	return e->id;
}

/* ---- activity buffers ---- */
/* a fork() while another thread held the lock would leave the child's copy
 * locked forever */
static void pool_fork_child(void)
{
	pthread_mutex_init(&g_pool_lock, NULL);
}

static uint8_t *pool_get(void)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&g_pool_lock);
	if (g_pool_n)
		b = g_pool[--g_pool_n];
	pthread_mutex_unlock(&g_pool_lock);
	return b ? b : calloc(1, g_cupti_buf);
}

/* Takes a buffer CUPTI has finished with; 'used' bytes need zeroing. */
static void pool_put(uint8_t *b, size_t used)
{
	(void)used; /* the whole buffer: CUPTI may have begun a record past it */
	memset(b, 0, g_cupti_buf);
	pthread_mutex_lock(&g_pool_lock);
	if (g_pool_n < POOL_MAX) {
		g_pool[g_pool_n++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&g_pool_lock);
	free(b);
}

/* Where CUPTI asks for buffers, for the benchmark counts. */
static void bench_request(int missed)
{
	__atomic_fetch_add(&g_bs.req, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&g_bs.req_miss, (uint64_t)missed, __ATOMIC_RELAXED);
	if (tracer_tid() == g_init_tid)
		__atomic_fetch_add(&g_bs.req_init, 1, __ATOMIC_RELAXED);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	if (g_bench) {
		int missed = 1;
		if (g_pool_on) {
			pthread_mutex_lock(&g_pool_lock);
			missed = !g_pool_n;
			pthread_mutex_unlock(&g_pool_lock);
		}
		bench_request(missed);
	}
	*buf = g_pool_on ? pool_get() : aligned_alloc(8, g_cupti_buf);
	*size = *buf ? g_cupti_buf : 0;
	*max_records = 0;
}

static void device_record(const CUpti_ActivityDevice5 *a)
{
	struct tlog_device d;
	const char *name = a->name ? a->name : "";

	rec_from_device(&d, a);
	d.len = (uint32_t)strnlen(name, 256);
	tracer_write_def(&d, sizeof(d), name, d.len, NULL, 0);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	CUpti_Activity *rec = NULL;
	CUptiResult r;
	size_t dropped = 0;
	uint64_t t0 = g_bench ? mono_ns() : 0, c0 = cost_ticks();

	tracer_gpu_lock();
	for (;;) {
		r = cuptiActivityGetNextRecord(buf, valid, &rec);
		if (r != CUPTI_SUCCESS)
			break;
		if (g_bench && bench_record(rec))
			continue;
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		case CUPTI_ACTIVITY_KIND_KERNEL: {
			const CUpti_ActivityKernel10 *a = (const void *)rec;
			uint32_t id = name_id(a->name);
			struct tlog_kernel *k = tracer_gpu_reserve(sizeof(*k));
			if (k)
				rec_from_kernel(k, a, id);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY: {
			struct tlog_memcpy *m = tracer_gpu_reserve(sizeof(*m));
			if (m)
				rec_from_memcpy(m, (const void *)rec);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY2: {
			struct tlog_memcpy *m = tracer_gpu_reserve(sizeof(*m));
			if (m)
				rec_from_memcpy2(m, (const void *)rec);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMSET: {
			struct tlog_memset *m = tracer_gpu_reserve(sizeof(*m));
			if (m)
				rec_from_memset(m, (const void *)rec);
			break;
		}
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER: {
			struct tlog_api *a = tracer_gpu_reserve(sizeof(*a));
			if (a)
				rec_from_api(a, (const void *)rec,
					     rec->kind == CUPTI_ACTIVITY_KIND_DRIVER);
			break;
		}
		case CUPTI_ACTIVITY_KIND_DEVICE:
			device_record((const void *)rec);
			break;
		default:
			break;
		}
	}
	tracer_gpu_unlock();
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		tracer_diag(TLOG_DIAG_ERROR, TLOG_DIAG_CUPTI_CALL,
			    "cuptiActivityGetNextRecord: %s; rest of buffer lost", cupti_err(r));
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
		struct tlog_dropped d;
		memset(&d, 0, sizeof(d));
		d.h.type = TLOG_DROPPED;
		d.h.size = sizeof(d);
		d.ts = tracer_now();
		d.count = dropped;
		d.stream = stream;
		tracer_write_now(&d, sizeof(d));
	}
	if (g_pool_on)
		pool_put(buf, valid);
	else
		free(buf);
	(void)size;
	cost_add(COST_BUFFER, c0);
	if (g_bench) {
		__atomic_fetch_add(&g_bs.buffers, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&g_bs.ns, mono_ns() - t0, __ATOMIC_RELAXED);
		if (tracer_tid() == g_init_tid)
			__atomic_fetch_add(&g_bs.done_init, 1, __ATOMIC_RELAXED);
	}
}

/* ---- API callbacks ---- */
static void api_record(int domain, uint32_t cbid, uint64_t start, uint32_t corr, int32_t ret)
{
	struct tlog_api a;

	memset(&a, 0, sizeof(a));
	a.h.type = TLOG_API;
	a.h.size = sizeof(a);
	a.h.aux = (uint32_t)domain;
	a.start = start;
	a.end = tracer_now();
	a.corr = corr;
	a.cbid = cbid;
	a.ret = ret;
	tracer_append(&a, sizeof(a));
}

static void alias_record(uint32_t from, uint32_t to)
{
	struct tlog_corr_alias a;

	memset(&a, 0, sizeof(a));
	a.h.type = TLOG_CORR_ALIAS;
	a.h.size = sizeof(a);
	a.from = from;
	a.to = to;
	tracer_append(&a, sizeof(a));
}

/* A graph node made (capture, cudaGraphAdd*Node) or cloned (instantiation),
 * on the thread that made it: the NVTX ranges open there say which
 * operator its replays belong to (docs/tracer.md, "CUDA graphs"). Only at
 * capture and instantiation: replays cost nothing more. */
static void graph_node_record(const void *data, int cloned)
{
	const CUpti_ResourceData *rd = data;
	const CUpti_GraphData *g = rd ? rd->resourceDescriptor : NULL;
	struct tlog_graph_node n;
	uint64_t id = 0, orig = 0;
	uint32_t gid = 0;

	if (!g || !g->node || cuptiGetGraphNodeId(g->node, &id) != CUPTI_SUCCESS)
		return;
	if (cloned &&
	    (!g->originalNode || cuptiGetGraphNodeId(g->originalNode, &orig) != CUPTI_SUCCESS))
		return;
	if (g->graph)
		cuptiGetGraphId(g->graph, &gid);
	memset(&n, 0, sizeof(n));
	n.h.type = TLOG_GRAPH_NODE;
	n.h.size = sizeof(n);
	n.h.aux = (uint32_t)g->nodeType;
	n.ts = tracer_now();
	n.node_id = id;
	n.original_id = orig;
	n.graph_id = gid;
	tracer_append(&n, sizeof(n));
}

static void on_callback_timed(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data);

/* Every callback, timed (cost.c): API callbacks and the rest apart. */
static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
				 const void *data)
{
	uint64_t t0 = cost_ticks();

	(void)ud;
	on_callback_timed(dom, cbid, data);
	cost_add(dom == CUPTI_CB_DOMAIN_RUNTIME_API || dom == CUPTI_CB_DOMAIN_DRIVER_API
		     ? COST_API
		     : COST_RESOURCE,
		 t0);
}

static void on_callback_timed(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API || dom == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cb = data;
		int32_t ret = 0;

		sample_thread_start();

		if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
			if (cb->callbackSite == CUPTI_API_ENTER) {
				int d = tl_api.depth++;
				if (d < API_STACK) {
					tl_api.corr[d] = cb->correlationId;
					tl_api.start[d] = tracer_now();
				}
				return;
			}
			if (tl_api.depth <= 0)
				return;
			tl_api.depth--;
			if (tl_api.depth >= API_STACK)
				return;
			if (cb->functionReturnValue)
				ret = *(const int32_t *)cb->functionReturnValue;
			api_record(TLOG_API_RUNTIME, cbid, tl_api.start[tl_api.depth],
				   tl_api.corr[tl_api.depth], ret);
			return;
		}
		/* Driver call. Inside a runtime call it is the runtime's helper:
		 * remember only its correlation id if it differs. */
		if (tl_api.depth > 0) {
			int d = tl_api.depth - 1;
			if (cb->callbackSite == CUPTI_API_EXIT && d < API_STACK &&
			    cb->correlationId != tl_api.corr[d])
				alias_record(cb->correlationId, tl_api.corr[d]);
			return;
		}
		if (cb->callbackSite == CUPTI_API_ENTER) {
			tl_api.drv_start = tracer_now();
			return;
		}
		if (cb->functionReturnValue)
			ret = *(const int32_t *)cb->functionReturnValue;
		api_record(TLOG_API_DRIVER, cbid, tl_api.drv_start, cb->correlationId, ret);
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_RESOURCE &&
	    cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
		/* Records still in the dying context's buffers would be lost. */
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	}
	if (dom == CUPTI_CB_DOMAIN_RESOURCE && (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED ||
						cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED))
		graph_node_record(data, cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
}

/* One launch-type API id on (on = 1) or off, as mode records it: a
 * callback, or an activity record of its domain. */
static CUptiResult switch_api(int driver, uint32_t cbid, enum api_mode mode, int on)
{
	if (mode == API_CALLBACK)
		return cuptiEnableCallback(
		    (uint32_t)on, g_sub,
		    driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
	return driver ? cuptiActivityEnableDriverApi(cbid, (uint8_t)on)
		      : cuptiActivityEnableRuntimeApi(cbid, (uint8_t)on);
}

/* Enables the launch-type cbids of one domain (with all, every cbid) as
 * callbacks or as activity records; returns how many. */
static int enable_api(CUpti_CallbackDomain dom, uint32_t size, int driver, enum api_mode mode,
		      int memops, int all)
{
	uint32_t cbid;
	int n = 0;

	for (cbid = 1; cbid < size; cbid++) {
		const char *name = NULL;
		struct tlog_api_name an;
		CUptiResult r;

		if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name)
			continue;
		if (!rec_api_selected(driver, name, memops, all))
			continue;
		r = switch_api(driver, cbid, mode, 1);
		if (r != CUPTI_SUCCESS)
			continue;
		if (g_napi < (int)(sizeof(g_api_ids) / sizeof(g_api_ids[0])))
			g_api_ids[g_napi++] = (uint32_t)driver << 31 | cbid;
		memset(&an, 0, sizeof(an));
		an.h.type = TLOG_API_NAME;
		an.h.aux = (uint32_t)driver;
		an.cbid = cbid;
		an.len = (uint32_t)strlen(name);
		tracer_write_def(&an, sizeof(an), name, an.len, NULL, 0);
		n++;
	}
	return n;
}

/* The benchmark counts, as one info diagnostic. */
static void bench_diag(void)
{
	static const char *const ovh[BENCH_OVH_KINDS] = {
	    "compiler",	    "buffer_flush", "instrumentation", "resource", "module_loading",
	    "lazy_loading", "cmdbuf_full",  "buffer_request",  "uvm_init", "other"};
	char o[320];
	size_t n = 0;

	tracer_gpu_lock();
	o[0] = '\0';
	for (int k = 0; k < BENCH_OVH_KINDS; k++)
		if (g_bs.ovh_n[k] && n < sizeof(o))
			n += (size_t)snprintf(o + n, sizeof(o) - n, " %s %llu/%.3f ms", ovh[k],
					      (unsigned long long)g_bs.ovh_n[k],
					      (double)g_bs.ovh_ns[k] / 1e6);
	tracer_diag(TLOG_DIAG_INFO, TLOG_DIAG_GENERIC,
		    "benchmark switches 0x%x: kernel records %llu, graph records %llu%s, buffers "
		    "%llu in %.3f ms (%llu completed on the thread that initialised CUDA; "
		    "requested %llu, %llu there, %llu not from the pool); overhead records:%s",
		    g_bench, (unsigned long long)g_bs.kernels, (unsigned long long)g_bs.graphs,
		    (g_bench & BENCH_DISCARD) ? " (discarded)" : "",
		    (unsigned long long)__atomic_load_n(&g_bs.buffers, __ATOMIC_RELAXED),
		    (double)__atomic_load_n(&g_bs.ns, __ATOMIC_RELAXED) / 1e6,
		    (unsigned long long)__atomic_load_n(&g_bs.done_init, __ATOMIC_RELAXED),
		    (unsigned long long)__atomic_load_n(&g_bs.req, __ATOMIC_RELAXED),
		    (unsigned long long)__atomic_load_n(&g_bs.req_init, __ATOMIC_RELAXED),
		    (unsigned long long)__atomic_load_n(&g_bs.req_miss, __ATOMIC_RELAXED),
		    n ? o : " none");
	tracer_gpu_unlock();
}

static void at_exit_cuda(void)
{
	if (!g_active)
		return;
	/* Forced: also returns records of kernels still in flight. */
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (g_bench)
		bench_diag();
	tracer_flush_all();
}

/* TRACER_ENV_BENCH's value as switches; an unknown one is a warning. */
static unsigned bench_of(const char *v)
{
	static const struct {
		const char *name;
		unsigned bit;
	} sw[] = {{"no-subscribe", BENCH_NO_SUBSCRIBE},
		  {"discard", BENCH_DISCARD},
		  {"tid-default", BENCH_TID_DEFAULT},
		  {"api-runtime", BENCH_API_RUNTIME},
		  {"api-driver", BENCH_API_DRIVER},
		  {"kernel-serial", BENCH_KERNEL_SERIAL},
		  {"graph-level", BENCH_GRAPH_LEVEL},
		  {"no-device", BENCH_NO_DEVICE},
		  {"stats", BENCH_STATS},
		  {"overhead", BENCH_OVERHEAD},
		  {"name-hash", BENCH_NAME_HASH},
		  {"pausable", BENCH_PAUSABLE}};
	unsigned bits = 0;

	while (v && *v) {
		size_t n = strcspn(v, ","), i;
		for (i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
			if (strlen(sw[i].name) == n && strncmp(v, sw[i].name, n) == 0)
				break;
		if (i < sizeof(sw) / sizeof(sw[0]))
			bits |= sw[i].bit;
		else if (n)
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
				    "%s: unknown switch '%.*s'", TRACER_ENV_BENCH, (int)n, v);
		v += n + (v[n] == ',');
	}
	return bits;
}

static int enable_kind(CUpti_ActivityKind kind, const char *what, int level)
{
	CUptiResult r = cuptiActivityEnable(kind);
	if (r == CUPTI_SUCCESS) {
		if (kind != CUPTI_ACTIVITY_KIND_DEVICE &&
		    g_nkinds < (int)(sizeof(g_kinds) / sizeof(g_kinds[0])))
			g_kinds[g_nkinds++] = kind;
		return 0;
	}
	tracer_diag(level,
		    r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? TLOG_DIAG_CUPTI_BUSY
		    : r == CUPTI_ERROR_NOT_INITIALIZED || r == CUPTI_ERROR_NOT_SUPPORTED ||
			    r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
			? TLOG_DIAG_CUPTI_UNSUPPORTED
			: TLOG_DIAG_CUPTI_CALL,
		    "cuptiActivityEnable(%s): %s", what, cupti_err(r));
	return -1;
}

/* CUPTI's buffer attributes from the environment, and the pool of zeroed
 * buffers. Set before the buffer callbacks are registered, as CUPTI
 * requires for the per-thread one. */
static void set_buffer_attributes(void)
{
	CUptiResult r;
	uint64_t v;

	g_cupti_buf = (size_t)tracer_env_u64(TRACER_ENV_CUPTI_BUFFER_MB, 8, 1024) << 20;
	if (g_cupti_buf < (1u << 20))
		g_cupti_buf = 1u << 20;
	v = tracer_env_u64(TRACER_ENV_DEVICE_BUFFER_MB, 0, 4096);
	if (v) {
		size_t sz = (size_t)v << 20, szsz = sizeof(sz);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &szsz, &sz);
		if (r != CUPTI_SUCCESS)
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
				    "device buffer size %llu MiB not set: %s",
				    (unsigned long long)v, cupti_err(r));
	}

	v = tracer_env_u64(TRACER_ENV_DEVICE_BUFFERS, 0, 64);
	if (v) {
		size_t n = (size_t)v, nsz = sizeof(n);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE,
					      &nsz, &n);
		if (r != CUPTI_SUCCESS)
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
				    "%llu pre-allocated device buffers not set: %s",
				    (unsigned long long)v, cupti_err(r));
	}
	/* Set before the buffer callbacks are registered, as CUPTI requires. */
	v = tracer_env_u64(TRACER_ENV_PER_THREAD_BUFFERS, 2, 2);
	if (v < 2) {
		uint8_t on = (uint8_t)v;
		size_t osz = sizeof(on);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &osz,
					      &on);
		if (r != CUPTI_SUCCESS)
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
				    "per-thread activity buffers not set to %u: %s", on,
				    cupti_err(r));
	}
	v = tracer_env_u64(TRACER_ENV_CUPTI_POOL, 2, 16);
	if (v) {
		uint8_t on = 1;
		size_t osz = sizeof(on);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &osz,
					      &on);
		if (r == CUPTI_SUCCESS) {
			g_pool_on = 1;
			pthread_atfork(NULL, NULL, pool_fork_child);
			/* touched now, so the first records fault no pages in */
			for (; v && g_pool_n < POOL_MAX; v--) {
				uint8_t *b = malloc(g_cupti_buf);
				if (!b)
					break;
				memset(b, 0, g_cupti_buf);
				g_pool[g_pool_n++] = b;
			}
		} else {
			tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
				    "zeroed activity buffers not accepted: %s", cupti_err(r));
		}
	}
}

/* How launch calls are recorded, from api = TRACER_ENV_API's value
 * (activity when unset or not understood). */
static enum api_mode api_mode_of(const char *api)
{
	enum api_mode mode = API_ACTIVITY;

	if (api && *api) {
		if (strcmp(api, "none") == 0)
			mode = API_NONE;
		else if (strcmp(api, "callback") == 0 || strcmp(api, "launch") == 0)
			mode = API_CALLBACK;
		else if (strcmp(api, "activity") != 0)
			tracer_diag(
			    TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
			    "%s=%s not understood (activity, callback or none): using activity",
			    TRACER_ENV_API, api);
	}
	return mode;
}

/* Whether every CUDA API call is recorded, from TRACER_ENV_API_CALLS's
 * value (launches when unset or not understood). */
static int api_all_of(const char *v)
{
	if (!v || !*v || strcmp(v, "launches") == 0)
		return 0;
	if (strcmp(v, "all") == 0)
		return 1;
	tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_GENERIC,
		    "%s=%s not understood (launches or all): using launches", TRACER_ENV_API_CALLS,
		    v);
	return 0;
}

/* The TLOG_CLOCK record: both clocks back to back, so llmprof can check
 * that they agree. */
static void write_clock(void)
{
	uint64_t t0, tc = 0;
	struct tlog_clock clk;

	t0 = tracer_now();
	cuptiGetTimestamp(&tc);
	memset(&clk, 0, sizeof(clk));
	clk.h.type = TLOG_CLOCK;
	clk.h.size = sizeof(clk);
	clk.tracer_ns = t0;
	clk.cupti_ns = tc;
	tracer_write_now(&clk, sizeof(clk));
}

/* The subscriber and its resource callbacks; 0, or -1 when CUPTI is taken or
 * unusable (a diagnostic says which). */
static int subscribe(void)
{
	CUptiResult r = cuptiSubscribe(&g_sub, (CUpti_CallbackFunc)on_callback, NULL);

	if (r != CUPTI_SUCCESS) {
		tracer_diag(TLOG_DIAG_ERROR,
			    r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
				? TLOG_DIAG_CUPTI_BUSY
				: TLOG_DIAG_CUPTI_UNSUPPORTED,
			    "cuptiSubscribe: %s%s", cupti_err(r),
			    r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
				? " (another CUPTI client such as nsys, ncu or the PyTorch "
				  "profiler is active)"
				: "");
		return -1;
	}
	cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
			    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	if (tracer_env_u64(TRACER_ENV_GRAPH_NODES, 1, 1)) {
		cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
				    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
		cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
				    CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
	}
	return 0;
}

/* The launch-type API ids of both domains (benchmark switches may keep
 * one), as mode says. */
static void enable_launch_api(enum api_mode mode, int memops, int all)
{
	/* Both domains, even if one fails: direct driver launches
	 * (cuLaunchKernel from libraries) need the driver ids. */
	int nrt = (g_bench & BENCH_API_DRIVER)
		      ? -1
		      : enable_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0,
				   mode, memops, all);
	int ndrv = (g_bench & BENCH_API_RUNTIME)
		       ? -1
		       : enable_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1,
				    mode, memops, all);
	if (!nrt || !ndrv)
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
			    "no %s launch API %s enabled: GPU work cannot be attributed to "
			    "NVTX ranges",
			    !nrt ? "runtime" : "driver",
			    mode == API_CALLBACK ? "callbacks" : "activity records");
}

/* The GPU activity kinds; -1 when kernels cannot be traced. */
static int enable_gpu_kinds(int memops)
{
	if (g_bench & BENCH_KERNEL_SERIAL) {
		if (enable_kind(CUPTI_ACTIVITY_KIND_KERNEL, "KERNEL", TLOG_DIAG_ERROR) < 0)
			return -1;
	} else if (enable_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL",
			       TLOG_DIAG_ERROR) < 0) {
		return -1;
	}
	if (g_bench & BENCH_GRAPH_LEVEL)
		enable_kind(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "GRAPH_TRACE", TLOG_DIAG_WARNING);
	if (memops) {
		enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", TLOG_DIAG_ERROR);
		enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", TLOG_DIAG_WARNING);
		enable_kind(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", TLOG_DIAG_ERROR);
	}
	if (!(g_bench & BENCH_NO_DEVICE))
		enable_kind(CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", TLOG_DIAG_WARNING);
	if (g_bench & BENCH_OVERHEAD)
		enable_kind(CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", TLOG_DIAG_WARNING);
	return 0;
}

__attribute__((visibility("default"))) int llmprof_bench_trace(int on);

/* For benchmarks only (TRACER_ENV_BENCH=pausable): switches every activity
 * kind and launch record InitializeInjection enabled off (on = 0) or back
 * on, so that one process times the same loop traced and not, on the same
 * CPU at the same speed (bench/tracer/inproc_ab.py, which calls it through
 * ctypes). The subscriber and its resource callbacks stay. 0, or -1 without
 * the switch or before the tracer started. */
int llmprof_bench_trace(int on)
{
	if (!(g_bench & BENCH_PAUSABLE) || !g_active)
		return -1;
	on = on != 0;
	for (int i = 0; i < g_nkinds; i++)
		(void)(on ? cuptiActivityEnable(g_kinds[i]) : cuptiActivityDisable(g_kinds[i]));
	for (int i = 0; i < g_napi; i++)
		(void)switch_api((int)(g_api_ids[i] >> 31), g_api_ids[i] & 0x7fffffffu, g_api_mode,
				 on);
	return 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void);

int InitializeInjection(void)
{
	CUptiResult r;
	uint64_t v;
	const char *api = getenv(TRACER_ENV_API);
	enum api_mode mode;
	int memops, all;

	if (tracer_env_u64(TRACER_ENV_CUDA, 1, 1) == 0)
		return 1;
	if (tracer_init(TLOG_F_CUDA) < 0)
		return 1;      /* never fail the program's cuInit */
	sample_thread_start(); /* the thread that initialises CUDA launches */
	g_bench = bench_of(getenv(TRACER_ENV_BENCH));
	g_init_tid = tracer_tid();

	set_buffer_attributes();
	if (!(g_bench & BENCH_NO_SUBSCRIBE) && subscribe() < 0)
		return 1;

	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		tracer_diag(TLOG_DIAG_ERROR, TLOG_DIAG_CUPTI_UNSUPPORTED,
			    "cuptiActivityRegisterCallbacks: %s", cupti_err(r));
		return 1;
	}
	mode = api_mode_of(api);
	if (mode == API_CALLBACK && (g_bench & BENCH_NO_SUBSCRIBE))
		mode = API_ACTIVITY; /* callbacks need the subscriber */
	/* Activity records must name the OS thread (gettid), as NVTX records
	 * do; CUPTI's default is pthread_self(). Without it, fall back. */
	if (mode == API_ACTIVITY && !(g_bench & BENCH_TID_DEFAULT) &&
	    (r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS) {
		tracer_diag(TLOG_DIAG_WARNING, TLOG_DIAG_CUPTI_CALL,
			    "cuptiSetThreadIdType(SYSTEM): %s; launch calls recorded by callbacks",
			    cupti_err(r));
		mode = (g_bench & BENCH_NO_SUBSCRIBE) ? API_NONE : API_CALLBACK;
	}
	memops = (int)tracer_env_u64(TRACER_ENV_MEMOPS, 1, 1);
	all = api_all_of(getenv(TRACER_ENV_API_CALLS));
	g_api_mode = mode;
	if (mode != API_NONE)
		enable_launch_api(mode, memops, all);
	if (enable_gpu_kinds(memops) < 0)
		return 1;
	v = tracer_env_u64(TRACER_ENV_FLUSH_MS, 0, 3600000);
	if (v)
		cuptiActivityFlushPeriod((uint32_t)v);

	write_clock();
	g_active = 1;
	atexit(at_exit_cuda);
	return 1;
}
