/* nvtx_shim.c: see nvtx_shim.h. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvtx_shim.h"

#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#define LLMPROF_HAVE_NVTX 1
#include <nvtx3/nvToolsExt.h>
#endif
#endif

#include "core/banned.h"

static int enabled = 1;

/* LLMPROF_NVTX_LOG=FILE also writes every push as "<depth> <domain>@<name>"
 * (default domain: "@<name>"), so tests can check the range structure on
 * builds and machines without NVTX or a tracer. */
static FILE *range_log;
static int log_depth, log_checked;
static const char *log_domain = "";

static void log_push(const char *name)
{
	if (!log_checked) {
		const char *path = getenv("LLMPROF_NVTX_LOG");
		log_checked = 1;
		if (path && *path)
			range_log = fopen(path, "w");
	}
	if (range_log) {
		fprintf(range_log, "%d %s@%s\n", log_depth, log_domain, name);
		fflush(range_log);
	}
	log_depth++;
}

static void log_pop(void)
{
	if (log_depth > 0)
		log_depth--;
}

#ifdef LLMPROF_HAVE_NVTX
static nvtxDomainHandle_t domain;

void nvtx_domain(const char *name)
{
	domain = name ? nvtxDomainCreateA(name) : NULL;
	log_domain = name ? name : "";
}

void nvtx_push(const char *name)
{
	nvtxEventAttributes_t a = {0};

	if (!enabled)
		return;
	log_push(name);
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
	log_pop();
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
	log_domain = name ? name : "";
}

void nvtx_push(const char *name)
{
	if (enabled)
		log_push(name);
}

void nvtx_pop(void)
{
	if (enabled)
		log_pop();
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
