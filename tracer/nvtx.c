/* nvtx.c: NVTX v3 injection. NVTX dlopens NVTX_INJECTION64_PATH at the first
 * NVTX call and calls InitializeInjectionNvtx2, which fills NVTX's function
 * tables with the handlers below; each handler appends one record to the
 * calling thread's buffer. Domain and string handles are small integers
 * disguised as pointers (NULL = default domain), so no lookup is needed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "cost.h"
#include "tracer.h"
#include "trace/tracer_env.h"

/* NVTX_PAYLOAD_TYPE_EXT of nvToolsExtPayload.h (not included here: it
 * would define the extension's API in the tracer) */
#define NVTX_PAYLOAD_TYPE_EXT_VALUE ((int32_t)0xDFBD0009)

static uint64_t g_next_domain = 1;
static uint64_t g_next_string = 1;
static uint64_t g_next_range = 1;
static __thread int tl_depth;

/* UTF-32 (Linux wchar_t) to UTF-8; returns bytes written (<= cap-1). */
static size_t wide_to_utf8(const wchar_t *w, char *out, size_t cap)
{
	size_t n = 0;

	for (; w && *w; w++) {
		uint32_t c = (uint32_t)*w;
		unsigned char t[4];
		size_t k;

		if (c < 0x80) {
			t[0] = (unsigned char)c;
			k = 1;
		} else if (c < 0x800) {
			t[0] = (unsigned char)(0xc0 | (c >> 6));
			t[1] = (unsigned char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			if (c >= 0xd800 && c <= 0xdfff)
				c = 0xfffd;
			t[0] = (unsigned char)(0xe0 | (c >> 12));
			t[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
			t[2] = (unsigned char)(0x80 | (c & 0x3f));
			k = 3;
		} else if (c < 0x110000) {
			t[0] = (unsigned char)(0xf0 | (c >> 18));
			t[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
			t[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
			t[3] = (unsigned char)(0x80 | (c & 0x3f));
			k = 4;
		} else {
			t[0] = 0xef, t[1] = 0xbf, t[2] = 0xbd; /* U+FFFD */
			k = 3;
		}
		if (n + k >= cap)
			break;
		memcpy(out + n, t, k);
		n += k;
	}
	out[n] = '\0';
	return n;
}

static uint64_t domain_id(nvtxDomainHandle_t d)
{
	return (uint64_t)(uintptr_t)d;
}

/* One event (push/start/mark) with an ASCII text, a wide text, or from
 * event attributes. */
static void event_timed(uint16_t type, uint64_t range_id, uint64_t domain,
			const nvtxEventAttributes_t *a, const char *text, const wchar_t *wtext);

/* Every recorded NVTX event, timed (cost.c). */
static void event(uint16_t type, uint64_t range_id, uint64_t domain, const nvtxEventAttributes_t *a,
		  const char *text, const wchar_t *wtext)
{
	uint64_t t0 = cost_ticks();

	event_timed(type, range_id, domain, a, text, wtext);
	cost_add(COST_NVTX, t0);
}

static void event_timed(uint16_t type, uint64_t range_id, uint64_t domain,
			const nvtxEventAttributes_t *a, const char *text, const wchar_t *wtext)
{
	struct tlog_nvtx_event *e;
	char wbuf[1024];
	size_t n = 0;
	uint32_t msg = TLOG_MSG_NONE;

	if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII)
		text = a->message.ascii;
	else if (a && a->messageType == NVTX_MESSAGE_TYPE_UNICODE)
		wtext = a->message.unicode;
	if (wtext) {
		n = wide_to_utf8(wtext, wbuf, sizeof(wbuf));
		text = wbuf;
	} else if (text) {
		n = strnlen(text, TRACER_MAX_STR);
	}
	sample_thread_start();
	if (text)
		msg = TLOG_MSG_TEXT;
	else if (a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
		msg = TLOG_MSG_REGISTERED;
	e = tracer_reserve(TLOG_ALIGN8(sizeof(*e) + n + 1));
	if (!e)
		return;
	e->h.type = type;
	e->h.size = (uint16_t)TLOG_ALIGN8(sizeof(*e) + n + 1);
	e->h.aux = msg;
	e->ts = tracer_now();
	e->id = range_id;
	e->domain = domain;
	if (msg == TLOG_MSG_REGISTERED)
		e->string_id = (uint64_t)(uintptr_t)a->message.registered;
	if (a) {
		e->category = a->category;
		if (a->colorType == NVTX_COLOR_ARGB) {
			e->color = a->color;
			e->has_color = 1;
		}
		switch (a->payloadType) {
		case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
			e->payload_type = TLOG_PAYLOAD_U64;
			e->payload = a->payload.ullValue;
			break;
		case NVTX_PAYLOAD_TYPE_INT64:
			e->payload_type = TLOG_PAYLOAD_I64;
			memcpy(&e->payload, &a->payload.llValue, 8);
			break;
		case NVTX_PAYLOAD_TYPE_DOUBLE:
			e->payload_type = TLOG_PAYLOAD_DOUBLE;
			memcpy(&e->payload, &a->payload.dValue, 8);
			break;
		case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
			e->payload_type = TLOG_PAYLOAD_U32;
			e->payload = a->payload.uiValue;
			break;
		case NVTX_PAYLOAD_TYPE_INT32:
			e->payload_type = TLOG_PAYLOAD_I32;
			e->payload = (uint64_t)(uint32_t)a->payload.iValue;
			break;
		case NVTX_PAYLOAD_TYPE_FLOAT: {
			uint32_t bits;
			memcpy(&bits, &a->payload.fValue, 4);
			e->payload_type = TLOG_PAYLOAD_FLOAT;
			e->payload = bits;
			break;
		}
		default:
			break;
		}
	}
	e->len = (uint32_t)n;
	if (n)
		memcpy(e + 1, text, n);
	tracer_commit();
}

static void end_event(uint16_t type, uint64_t id, uint64_t domain)
{
	struct tlog_nvtx_end e;
	uint64_t t0 = cost_ticks();

	sample_thread_start();
	memset(&e, 0, sizeof(e));
	e.h.type = type;
	e.h.size = sizeof(e);
	e.ts = tracer_now();
	e.id = id;
	e.domain = domain;
	tracer_append(&e, sizeof(e));
	cost_add(COST_NVTX, t0);
}

static void def(uint16_t type, uint64_t id, uint64_t ref, const char *s, const wchar_t *ws)
{
	struct tlog_nvtx_def d;
	char wbuf[1024];
	size_t n;

	if (ws) {
		n = wide_to_utf8(ws, wbuf, sizeof(wbuf));
		s = wbuf;
	} else {
		n = s ? strnlen(s, TRACER_MAX_STR) : 0;
	}
	memset(&d, 0, sizeof(d));
	d.h.type = type;
	d.ts = tracer_now();
	d.id = id;
	d.ref = ref;
	d.len = (uint32_t)n;
	tracer_write_def(&d, sizeof(d), s, n, NULL, 0);
}

/* ---- core module ---- */
static void NVTX_API mark_ex(const nvtxEventAttributes_t *a)
{
	event(TLOG_NVTX_MARK, 0, 0, a, NULL, NULL);
}
static void NVTX_API mark_a(const char *m)
{
	event(TLOG_NVTX_MARK, 0, 0, NULL, m ? m : "", NULL);
}
static void NVTX_API mark_w(const wchar_t *m)
{
	event(TLOG_NVTX_MARK, 0, 0, NULL, m ? NULL : "", m);
}
static nvtxRangeId_t next_range(void)
{
	return __atomic_fetch_add(&g_next_range, 1, __ATOMIC_RELAXED);
}
static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a)
{
	nvtxRangeId_t id = next_range();
	event(TLOG_NVTX_START, id, 0, a, NULL, NULL);
	return id;
}
static nvtxRangeId_t NVTX_API start_a(const char *m)
{
	nvtxRangeId_t id = next_range();
	event(TLOG_NVTX_START, id, 0, NULL, m ? m : "", NULL);
	return id;
}
static nvtxRangeId_t NVTX_API start_w(const wchar_t *m)
{
	nvtxRangeId_t id = next_range();
	event(TLOG_NVTX_START, id, 0, NULL, m ? NULL : "", m);
	return id;
}
static void NVTX_API range_end(nvtxRangeId_t id)
{
	end_event(TLOG_NVTX_END, id, 0);
}
/* The payloads of an EXT payload (nvToolsExtPayload.h: ullValue points to
 * an nvtxPayloadData_t array, reserved0 is its length). */
static void ext_payload(uint64_t domain, const nvtxEventAttributes_t *a)
{
	if (a && a->payloadType == NVTX_PAYLOAD_TYPE_EXT_VALUE && a->reserved0 > 0)
		tracer_nvtx_payload(domain, (const void *)(uintptr_t)a->payload.ullValue,
				    (size_t)a->reserved0);
}
static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
	event(TLOG_NVTX_PUSH, 0, 0, a, NULL, NULL);
	ext_payload(0, a);
	return tl_depth++;
}
static int NVTX_API push_a(const char *m)
{
	event(TLOG_NVTX_PUSH, 0, 0, NULL, m ? m : "", NULL);
	return tl_depth++;
}
static int NVTX_API push_w(const wchar_t *m)
{
	event(TLOG_NVTX_PUSH, 0, 0, NULL, m ? NULL : "", m);
	return tl_depth++;
}
static int NVTX_API range_pop(void)
{
	end_event(TLOG_NVTX_POP, 0, 0);
	return tl_depth > 0 ? --tl_depth : -1;
}
static void NVTX_API name_category_a(uint32_t cat, const char *name)
{
	def(TLOG_NVTX_CATEGORY, cat, 0, name, NULL);
}
static void NVTX_API name_category_w(uint32_t cat, const wchar_t *name)
{
	def(TLOG_NVTX_CATEGORY, cat, 0, NULL, name);
}
static void thread_name(uint32_t tid, const char *s, const wchar_t *ws)
{
	struct tlog_thread_name t;
	char wbuf[1024];
	size_t n;

	if (ws) {
		n = wide_to_utf8(ws, wbuf, sizeof(wbuf));
		s = wbuf;
	} else {
		n = s ? strnlen(s, TRACER_MAX_STR) : 0;
	}
	memset(&t, 0, sizeof(t));
	t.h.type = TLOG_THREAD_NAME;
	t.tid = tid;
	t.len = (uint32_t)n;
	tracer_write_def(&t, sizeof(t), s, n, NULL, 0);
}
static void NVTX_API name_thread_a(uint32_t tid, const char *name)
{
	thread_name(tid, name, NULL);
}
static void NVTX_API name_thread_w(uint32_t tid, const wchar_t *name)
{
	thread_name(tid, NULL, name);
}

/* ---- core2 module (domains) ---- */
static void NVTX_API d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	event(TLOG_NVTX_MARK, 0, domain_id(d), a, NULL, NULL);
}
static nvtxRangeId_t NVTX_API d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	nvtxRangeId_t id = next_range();
	event(TLOG_NVTX_START, id, domain_id(d), a, NULL, NULL);
	return id;
}
static void NVTX_API d_range_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	end_event(TLOG_NVTX_END, id, domain_id(d));
}
static int NVTX_API d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	event(TLOG_NVTX_PUSH, 0, domain_id(d), a, NULL, NULL);
	ext_payload(domain_id(d), a);
	return tl_depth++;
}
/* nvtxRangePushPayload: a range with no message; nvtxRangePopPayload: the
 * payloads go to the innermost open range of the domain, then it ends. */
int tracer_nvtx_push_payload(void *d, const void *data, size_t count)
{
	event(TLOG_NVTX_PUSH, 0, domain_id(d), NULL, NULL, NULL);
	tracer_nvtx_payload(domain_id(d), data, count);
	return tl_depth++;
}
int tracer_nvtx_pop_payload(void *d, const void *data, size_t count)
{
	tracer_nvtx_payload(domain_id(d), data, count);
	end_event(TLOG_NVTX_POP, 0, domain_id(d));
	return tl_depth > 0 ? --tl_depth : -1;
}
static int NVTX_API d_pop(nvtxDomainHandle_t d)
{
	end_event(TLOG_NVTX_POP, 0, domain_id(d));
	return tl_depth > 0 ? --tl_depth : -1;
}
static void NVTX_API d_name_category_a(nvtxDomainHandle_t d, uint32_t cat, const char *name)
{
	def(TLOG_NVTX_CATEGORY, cat, domain_id(d), name, NULL);
}
static void NVTX_API d_name_category_w(nvtxDomainHandle_t d, uint32_t cat, const wchar_t *name)
{
	def(TLOG_NVTX_CATEGORY, cat, domain_id(d), NULL, name);
}
static nvtxStringHandle_t NVTX_API d_register_a(nvtxDomainHandle_t d, const char *s)
{
	uint64_t id = __atomic_fetch_add(&g_next_string, 1, __ATOMIC_RELAXED);
	def(TLOG_NVTX_STRING, id, domain_id(d), s ? s : "", NULL);
	return (nvtxStringHandle_t)(uintptr_t)id;
}
static nvtxStringHandle_t NVTX_API d_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	uint64_t id = __atomic_fetch_add(&g_next_string, 1, __ATOMIC_RELAXED);
	def(TLOG_NVTX_STRING, id, domain_id(d), s ? NULL : "", s);
	return (nvtxStringHandle_t)(uintptr_t)id;
}
static nvtxDomainHandle_t NVTX_API d_create_a(const char *name)
{
	uint64_t id = __atomic_fetch_add(&g_next_domain, 1, __ATOMIC_RELAXED);
	def(TLOG_NVTX_DOMAIN, id, 0, name ? name : "", NULL);
	return (nvtxDomainHandle_t)(uintptr_t)id;
}
static nvtxDomainHandle_t NVTX_API d_create_w(const wchar_t *name)
{
	uint64_t id = __atomic_fetch_add(&g_next_domain, 1, __ATOMIC_RELAXED);
	def(TLOG_NVTX_DOMAIN, id, 0, name ? NULL : "", name);
	return (nvtxDomainHandle_t)(uintptr_t)id;
}
static void NVTX_API d_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* ids are never reused, so nothing to forget */
}
static void NVTX_API initialize(const void *reserved)
{
	(void)reserved;
}

struct slot {
	unsigned cbid;
	NvtxFunctionPointer fn;
};

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

static int fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule mod,
		const struct slot *slots, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;
	size_t i;

	if (!cb->GetModuleFunctionTable(mod, &table, &size) || !table)
		return -1;
	for (i = 0; i < n; i++)
		if (slots[i].cbid < size && table[slots[i].cbid])
			*table[slots[i].cbid] = slots[i].fn;
	return 0;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	static const struct slot core[] = {
	    {NVTX_CBID_CORE_MarkEx, FN(mark_ex)},
	    {NVTX_CBID_CORE_MarkA, FN(mark_a)},
	    {NVTX_CBID_CORE_MarkW, FN(mark_w)},
	    {NVTX_CBID_CORE_RangeStartEx, FN(start_ex)},
	    {NVTX_CBID_CORE_RangeStartA, FN(start_a)},
	    {NVTX_CBID_CORE_RangeStartW, FN(start_w)},
	    {NVTX_CBID_CORE_RangeEnd, FN(range_end)},
	    {NVTX_CBID_CORE_RangePushEx, FN(push_ex)},
	    {NVTX_CBID_CORE_RangePushA, FN(push_a)},
	    {NVTX_CBID_CORE_RangePushW, FN(push_w)},
	    {NVTX_CBID_CORE_RangePop, FN(range_pop)},
	    {NVTX_CBID_CORE_NameCategoryA, FN(name_category_a)},
	    {NVTX_CBID_CORE_NameCategoryW, FN(name_category_w)},
	    {NVTX_CBID_CORE_NameOsThreadA, FN(name_thread_a)},
	    {NVTX_CBID_CORE_NameOsThreadW, FN(name_thread_w)},
	};
	static const struct slot core2[] = {
	    {NVTX_CBID_CORE2_DomainMarkEx, FN(d_mark_ex)},
	    {NVTX_CBID_CORE2_DomainRangeStartEx, FN(d_start_ex)},
	    {NVTX_CBID_CORE2_DomainRangeEnd, FN(d_range_end)},
	    {NVTX_CBID_CORE2_DomainRangePushEx, FN(d_push_ex)},
	    {NVTX_CBID_CORE2_DomainRangePop, FN(d_pop)},
	    {NVTX_CBID_CORE2_DomainNameCategoryA, FN(d_name_category_a)},
	    {NVTX_CBID_CORE2_DomainNameCategoryW, FN(d_name_category_w)},
	    {NVTX_CBID_CORE2_DomainRegisterStringA, FN(d_register_a)},
	    {NVTX_CBID_CORE2_DomainRegisterStringW, FN(d_register_w)},
	    {NVTX_CBID_CORE2_DomainCreateA, FN(d_create_a)},
	    {NVTX_CBID_CORE2_DomainCreateW, FN(d_create_w)},
	    {NVTX_CBID_CORE2_DomainDestroy, FN(d_destroy)},
	    {NVTX_CBID_CORE2_Initialize, FN(initialize)},
	};
	const NvtxExportTableCallbacks *cb;
	const NvtxExportTableVersionInfo *vi;

	if (!get || tracer_env_u64(TRACER_ENV_NVTX, 1, 1) == 0)
		return 0;
	if (tracer_init(TLOG_F_NVTX) < 0)
		return 0; /* 0 = NVTX stays a no-op in this process */
	cb = get(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof(*cb)) {
		tracer_diag(TLOG_DIAG_ERROR, TLOG_DIAG_GENERIC,
			    "NVTX export table missing: NVTX calls are not recorded");
		return 0;
	}
	if (fill(cb, NVTX_CB_MODULE_CORE, core, sizeof(core) / sizeof(core[0])) < 0 ||
	    fill(cb, NVTX_CB_MODULE_CORE2, core2, sizeof(core2) / sizeof(core2[0])) < 0) {
		tracer_diag(TLOG_DIAG_ERROR, TLOG_DIAG_GENERIC,
			    "NVTX function tables unavailable: NVTX calls are not recorded");
		return 0;
	}
	vi = get(NVTX_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof(*vi) && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(2);
	return 1;
}

/* NVTX finds its entry points with dlsym() on the injection library's
 * handle, a search that also walks that library's dependencies: every name
 * this library does not define itself resolves to libcupti's definition,
 * which expects CUPTI's own NVTX support to be set up and crashes when it is
 * not (every NCCL program died in ncclGetUniqueId: NCCL registers payload
 * schemas through the extension). So the tracer defines each name NVTX
 * looks up. The payload module is taken by nvtx_payload.c (NCCL's message
 * sizes); the others (counters, memory) are not recorded: returning 0
 * makes NVTX turn their calls into no-ops. NVTX v1's
 * entry point is declined the same way (core ranges arrive through
 * InitializeInjectionNvtx2). */
__attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(void *module_info);
__attribute__((visibility("default"))) int InitializeInjectionNvtx(void *get_export_table);

int InitializeInjectionNvtxExtension(void *module_info)
{
	if (tracer_env_u64(TRACER_ENV_NVTX, 1, 1) == 0)
		return 0;
	return tracer_nvtx_ext_init(module_info);
}

int InitializeInjectionNvtx(void *get_export_table)
{
	(void)get_export_table;
	return 0;
}
