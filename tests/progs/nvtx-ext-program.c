/* nvtx-ext-program: NVTX's extension modules used the way NCCL 2.28 uses
 * them (a "NCCL" domain, a registered function name, a static payload schema
 * registered once, ranges carrying binary payloads through the event
 * attributes), plus the payload extension's own range calls. NVTX resolves
 * the extension entry point InitializeInjectionNvtxExtension with dlsym() on
 * the injection library, which also searches that library's dependencies:
 * without the tracer's own definition it found CUPTI's, which crashed every
 * NCCL program under the builtin tracer. test-tracer-nvtx-ext.sh runs this
 * under the tracer; it must finish, print its line and keep the ranges. */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

struct coll_params {
	size_t bytes;
	int op;
	int root;
};

int main(void)
{
	static const nvtxPayloadSchemaEntry_t entries[] = {
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", NULL, 0,
	     offsetof(struct coll_params, bytes), NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "Reduction operation", NULL, 0,
	     offsetof(struct coll_params, op), NULL, NULL},
	    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "Root", NULL, 0, offsetof(struct coll_params, root),
	     NULL, NULL},
	};
	nvtxPayloadSchemaAttr_t attr = {0};
	nvtxDomainHandle_t dom = nvtxDomainCreateA("NCCL");
	nvtxStringHandle_t fn = nvtxDomainRegisterStringA(dom, "ncclAllReduce");
	uint64_t schema;
	int i;

	attr.fieldMask =
	    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
	    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
	    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
	attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
	attr.entries = entries;
	attr.numEntries = sizeof(entries) / sizeof(entries[0]);
	attr.payloadStaticSize = sizeof(struct coll_params);
	attr.schemaId = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1;
	schema = nvtxPayloadSchemaRegister(dom, &attr);

	nvtxRangePushA("decode");
	for (i = 0; i < 3; i++) {
		struct coll_params p = {4096u << i, 0, -1};
		nvtxPayloadData_t pd[] = {{attr.schemaId, sizeof(p), &p}};
		nvtxEventAttributes_t ev = {0};

		ev.version = NVTX_VERSION;
		ev.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		ev.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		ev.message.registered = fn;
		/* NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE spelled out: the C branch of
		 * NVTX_POINTER_AS_PAYLOAD_ULLVALUE in CUDA 13's header has an
		 * unbalanced parenthesis */
		ev.payloadType = NVTX_PAYLOAD_TYPE_EXT;
		ev.reserved0 = 1;
		ev.payload.ullValue = (uint64_t)(uintptr_t)pd;
		nvtxDomainRangePushEx(dom, &ev);
		nvtxRangePushPayload(dom, pd, 1);
		nvtxRangePopPayload(dom, pd, 1);
		nvtxDomainRangePop(dom);
	}
	nvtxRangePop();
	printf("nvtx-ext-program: done (schema %s)\n", schema ? "registered" : "not registered");
	return 0;
}
