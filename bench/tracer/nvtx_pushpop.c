/* nvtx_pushpop.c: the cost of one NVTX push/pop pair through whatever tool
 * NVTX_INJECTION64_PATH names (bench/tracer/compare-tracers.sh). Needs no
 * GPU: prints the mean ns per pair over 2 M pairs, after 100k warm-up. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b;
	nvtxDomainHandle_t d = nvtxDomainCreateA("bench");
	nvtxEventAttributes_t at = {0};
	at.version = NVTX_VERSION;
	at.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	at.messageType = NVTX_MESSAGE_TYPE_ASCII;
	at.message.ascii = "op";
	for (int i = 0; i < 100000; i++) {
		nvtxDomainRangePushEx(d, &at);
		nvtxDomainRangePop(d);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 2000000; i++) {
		nvtxDomainRangePushEx(d, &at);
		nvtxDomainRangePop(d);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 2e6);
	return 0;
}
