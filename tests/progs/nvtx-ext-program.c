/* nvtx-ext-program: NVTX's payload extension used the way NCCL 2.28 uses
 * it: a "NCCL" domain, function names as registered strings, static payload
 * schemas registered once (communicator, message size, an enum reduction
 * op), ncclCommInitRankConfig's payload given at its pop
 * (nvtxRangePopPayload), each ncclAllReduce's on its push (an EXT payload in
 * the event attributes), and the extension's own range calls; then inputs
 * a careless caller could give (NULL data, no payloads, an unknown schema,
 * a size of 0, a huge size, more payloads than kept). NVTX resolves the
 * extension entry point InitializeInjectionNvtxExtension with dlsym() on the
 * injection library, which also searches that library's dependencies:
 * without the tracer's own definition it found CUPTI's, which crashed every
 * NCCL program under the builtin tracer. test-tracer-nvtx-ext.sh runs this
 * under the tracer; it must finish, print its line and keep the ranges and
 * the payloads. */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#define SID(n) (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + (n))

struct coll_params { /* NCCL's NcclNvtxParamsAllReduce */
	uint64_t comm;
	size_t bytes;
	int op;
};

struct init_params { /* NCCL's NcclNvtxParamsCommInitRank */
	uint64_t comm;
	int nranks, rank, cuda_dev;
};

/* Zeroed padding, so that the bytes the tracer copies are known (set in
 * place: a struct copy need not copy its padding). */
static void coll(struct coll_params *p, size_t bytes, int op)
{
	memset(p, 0, sizeof(*p));
	p->comm = 0x68D0C2D9DE8A3A2Dull;
	p->bytes = bytes;
	p->op = op;
}

static uint64_t register_schemas(nvtxDomainHandle_t dom)
{
	static const nvtxPayloadEnum_t ops[] = {
	    {"Sum", 0, 0}, {"Product", 1, 0}, {"Max", 2, 0}, {"Min", 3, 0}, {"Avg", 4, 0}};
	static const nvtxPayloadSchemaEntry_t coll[] = {
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", NULL, 0, 0, NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", NULL, 0,
	     offsetof(struct coll_params, bytes), NULL, NULL},
	    {0, SID(20), "Reduction operation", NULL, 0, offsetof(struct coll_params, op), NULL,
	     NULL},
	};
	static const nvtxPayloadSchemaEntry_t init[] = {
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", NULL, 0, 0, NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "No. of ranks", NULL, 0,
	     offsetof(struct init_params, nranks), NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "Rank", NULL, 0, offsetof(struct init_params, rank),
	     NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "CUDA device", NULL, 0,
	     offsetof(struct init_params, cuda_dev), NULL, NULL},
	};
	nvtxPayloadEnumAttr_t ea = {0};
	nvtxPayloadSchemaAttr_t a = {0};
	uint64_t ok;

	ea.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
		       NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
		       NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
	ea.entries = ops;
	ea.numEntries = 5;
	ea.sizeOfEnum = sizeof(int);
	ea.schemaId = SID(20);
	ok = nvtxPayloadEnumRegister(dom, &ea);
	a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
		      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
		      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE |
		      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
	a.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
	a.entries = coll;
	a.numEntries = 3;
	a.payloadStaticSize = sizeof(struct coll_params);
	a.schemaId = SID(5);
	ok = ok && nvtxPayloadSchemaRegister(dom, &a);
	a.entries = init;
	a.numEntries = 4;
	a.payloadStaticSize = sizeof(struct init_params);
	a.schemaId = SID(2);
	ok = ok && nvtxPayloadSchemaRegister(dom, &a);
	a.schemaId = SID(2); /* again, as a second communicator's init would */
	nvtxPayloadSchemaRegister(dom, &a);
	nvtxPayloadSchemaRegister(dom, NULL);
	return ok;
}

/* A push of fn with payloads pd[0..n) in the event attributes. */
static void push_ext(nvtxDomainHandle_t dom, nvtxStringHandle_t fn, const void *pd, int32_t n)
{
	nvtxEventAttributes_t ev = {0};

	ev.version = NVTX_VERSION;
	ev.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	ev.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	ev.message.registered = fn;
	/* NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE spelled out: the C branch of
	 * NVTX_POINTER_AS_PAYLOAD_ULLVALUE in CUDA 13's header has an
	 * unbalanced parenthesis */
	ev.payloadType = NVTX_PAYLOAD_TYPE_EXT;
	ev.reserved0 = n;
	ev.payload.ullValue = (uint64_t)(uintptr_t)pd;
	nvtxDomainRangePushEx(dom, &ev);
}

static void init_range(nvtxDomainHandle_t dom)
{
	nvtxStringHandle_t fn = nvtxDomainRegisterStringA(dom, "ncclCommInitRankConfig");
	struct init_params ip;
	nvtxPayloadData_t pd[] = {{SID(2), sizeof(ip), &ip}};
	nvtxEventAttributes_t ev = {0};

	memset(&ip, 0, sizeof(ip));
	ip.comm = 0x68D0C2D9DE8A3A2Dull;
	ip.nranks = 2;

	ev.version = NVTX_VERSION;
	ev.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	ev.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	ev.message.registered = fn;
	nvtxDomainRangePushEx(dom, &ev);
	nvtxRangePopPayload(dom, pd, 1);
}

/* What a careless caller could pass: each must be survived and leave its
 * range without bytes (or with the bytes a valid payload beside it has). */
static void bogus(nvtxDomainHandle_t dom, nvtxStringHandle_t fn)
{
	struct coll_params p;
	nvtxPayloadData_t unknown[] = {{SID(40), sizeof(p), &p}};
	nvtxPayloadData_t null_data[] = {{SID(5), sizeof(p), NULL}};
	nvtxPayloadData_t empty[] = {{SID(5), 0, &p}};
	nvtxPayloadData_t huge[] = {{SID(5), (size_t)1 << 40, &p}};
	nvtxPayloadData_t three[] = {
	    {SID(5), sizeof(p), &p}, {SID(5), sizeof(p), &p}, {SID(5), sizeof(p), &p}};

	coll(&p, 512, 0);
	push_ext(dom, fn, NULL, 1); /* NULL array */
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, unknown, 0); /* no payloads */
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, unknown, 1); /* a schema never registered */
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, null_data, 1);
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, empty, 1);
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, huge, 1); /* kept: the schema's 24 bytes */
	nvtxDomainRangePop(dom);
	push_ext(dom, fn, three, 3); /* kept: the first two */
	nvtxDomainRangePop(dom);
	nvtxRangePopPayload(dom, NULL, 0); /* a pop with nothing open */
}

int main(void)
{
	nvtxDomainHandle_t dom = nvtxDomainCreateA("NCCL");
	nvtxStringHandle_t fn = nvtxDomainRegisterStringA(dom, "ncclAllReduce");
	uint64_t schema = register_schemas(dom);
	int i;

	init_range(dom);
	nvtxRangePushA("decode");
	for (i = 0; i < 3; i++) {
		struct coll_params p;
		nvtxPayloadData_t pd[] = {{SID(5), sizeof(p), &p}};

		coll(&p, (size_t)4096 << i, i == 2 ? 2 : 0);

		push_ext(dom, fn, pd, 1);
		nvtxRangePushPayload(dom, pd, 1);
		nvtxRangePopPayload(dom, pd, 1);
		nvtxDomainRangePop(dom);
	}
	nvtxRangePop();
	bogus(dom, fn);
	printf("nvtx-ext-program: done (schema %s)\n", schema ? "registered" : "not registered");
	return 0;
}
