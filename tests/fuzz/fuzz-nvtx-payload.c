/* fuzz-nvtx-payload.c: libFuzzer target for reading NVTX extended payload
 * blobs (src/trace/nvtxpayload.c), the binaryData NCCL's API ranges carry
 * in a trace: u64 count; count x {u64 schemaId, u64 size, u64 offset};
 * data. Any count, size and offset, and schemas whose entries have any
 * type and offset, are read without a read outside the blob.
 *
 *   scripts/fuzz.sh 60 nvtx-payload
 *
 * Input: 64 bytes that give the schemas (four entries of schema 1 as NCCL
 * names them, each a u64 type then a u64 offset; an entry whose type is
 * enum schema 0x1000001 reads through it), then the blob. The blob is
 * copied into a buffer of exactly its size, so ASan sees any byte read past
 * it. Properties besides memory safety: a value read the same way twice is
 * the same; an enum value's name, when given, is one of that enum's names. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "trace/nvtxpayload.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD 64
#define DOMAIN 7

static const char *const names[] = {"NCCL communicator ID", "Message size [bytes]",
				    "Reduction operation", "No. of ranks"};
static const char *const ops[] = {"Sum", "Prod", "Max", "Min"};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvtx_pl_entry e[4];
	struct nvtx_pl_enum_value ev[4];
	struct nvtx_pl_schema s = {DOMAIN, 1, 0, e, 4};
	struct nvtx_pl_enum en = {DOMAIN, NVTX_PL_STATIC_START + 1, 4, ev, 4};
	struct nvtx_payloads p = {1, &s, 1, &en, 1};
	unsigned char *blob;
	size_t len;

	if (size < HEAD)
		return 0;
	for (int i = 0; i < 4; i++) {
		e[i].name = (char *)names[i];
		e[i].type = le64(data + 16 * i);
		e[i].offset = le64(data + 16 * i + 8);
		ev[i].name = (char *)ops[i];
		ev[i].value = i;
	}
	/* a few types as NCCL registers them, whatever the input says: the
	 * low bits pick one when the input's type is out of the usual range */
	if (e[2].type > 64 && e[2].type < NVTX_PL_STATIC_START)
		e[2].type = NVTX_PL_STATIC_START + 1;
	en.size = data[HEAD - 1] % 9;
	len = size - HEAD;
	blob = xmalloc(len ? len : 1);
	memcpy(blob, data + HEAD, len);
	for (int i = 0; i < 5; i++) {
		struct nvtx_pl_value a, b;
		const char *name = i < 4 ? names[i] : "not an entry";
		int ra = nvtx_payload_get(&p, DOMAIN, blob, len, name, &a);
		int rb = nvtx_payload_get(&p, DOMAIN, blob, len, name, &b);

		if (ra != rb || (ra && (a.i != b.i || a.enum_name != b.enum_name))) {
			fprintf(stderr, "nvtx-payload: '%s' read twice differs\n", name);
			abort();
		}
		if (ra && a.enum_name && (a.i < 0 || a.i > 3 || strcmp(a.enum_name, ops[a.i]))) {
			fprintf(stderr, "nvtx-payload: '%s' = %lld named '%s'\n", name,
				(long long)a.i, a.enum_name);
			abort();
		}
		/* another domain has no schemas: nothing is found */
		if (nvtx_payload_get(&p, DOMAIN + 1, blob, len, name, &b)) {
			fprintf(stderr, "nvtx-payload: '%s' found in a domain without schemas\n",
				name);
			abort();
		}
	}
	free(blob);
	return 0;
}
