#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <unistd.h>
/* decode_all lasts ~300 ms: nsys needs time after the range opens before it
 * records, and on a loaded machine a short range ends before capture starts */
static void spin(int ms)
{
	usleep(ms * 1000);
}
int main(void)
{
	nvtxDomainHandle_t d = nvtxDomainCreateA("LLM");
	nvtxEventAttributes_t a = {0};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "prefill";
	nvtxDomainRangePushEx(d, &a);
	spin(20);
	nvtxDomainRangePop(d);
	a.message.ascii = "decode_all";
	nvtxDomainRangePushEx(d, &a);
	for (int i = 0; i < 3; i++) {
		a.message.ascii = "decode_step";
		nvtxDomainRangePushEx(d, &a);
		spin(100);
		nvtxDomainRangePop(d);
	}
	nvtxDomainRangePop(d);
	nvtxRangePushA("A");
	spin(5);
	nvtxRangePop();
	printf("done\n");
	return 0;
}
