/* nvtx_shim.c: see nvtx_shim.h. */
#include <stddef.h>

#include "nvtx_shim.h"

#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#define LLMPROF_HAVE_NVTX 1
#include <nvtx3/nvToolsExt.h>
#endif
#endif

#include "core/banned.h"

static int enabled = 1;

#ifdef LLMPROF_HAVE_NVTX
static nvtxDomainHandle_t domain;

void nvtx_domain(const char *name)
{
	domain = name ? nvtxDomainCreateA(name) : NULL;
}

void nvtx_push(const char *name)
{
	nvtxEventAttributes_t a = {0};

	if (!enabled)
		return;
	if (!domain) {
		nvtxRangePushA(name);
		return;
	}
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	nvtxDomainRangePushEx(domain, &a);
}

void nvtx_pop(void)
{
	if (!enabled)
		return;
	if (domain)
		nvtxDomainRangePop(domain);
	else
		nvtxRangePop();
}

int nvtx_available(void)
{
	return 1;
}
#else
void nvtx_domain(const char *name)
{
	(void)name;
}

void nvtx_push(const char *name)
{
	(void)name;
}

void nvtx_pop(void)
{
}

int nvtx_available(void)
{
	return 0;
}
#endif

void nvtx_enable(int on)
{
	enabled = on;
}
