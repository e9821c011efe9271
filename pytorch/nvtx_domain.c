/* nvtx_domain.c: libllmprof_nvtx.so, the NVTX calls of llmprof's PyTorch
 * startup module (pytorch/_llmprof_pytorch.py calls it through ctypes).
 *
 * torch.cuda.nvtx pushes into NVTX's default domain only, with a plain
 * message each time. Module ranges go to a domain of their own (so they
 * never mix with the program's own default-domain ranges, which name the
 * stages and which ncu's and nsys's default-domain filters read), each
 * module path is registered once (a registered string: the tool copies no
 * text per call) and the module's class is the range's category, named
 * once per class (docs/pytorch.md, "Range names").
 *
 * NVTX 3 is header-only: the first call here loads whatever tool
 * NVTX_INJECTION64_PATH names (llmprof's tracer, nsys, ncu), so the same
 * library serves every backend; with no tool each call goes through a
 * no-op pointer. Nothing here allocates, locks or fails: a tool that
 * declines a call returns 0 or NULL, which is passed back as it is.
 *
 * Exports only the llmprof_nvtx_* functions (the rest is hidden). */
#include <stdint.h>

#include <nvtx3/nvToolsExt.h>

#define EXPORT __attribute__((visibility("default")))

/* Set once by llmprof_nvtx_init, before any other call (the startup module
 * calls it while installing its hooks, before the first push). */
static nvtxDomainHandle_t g_domain;

EXPORT int llmprof_nvtx_version(void);
EXPORT int llmprof_nvtx_init(const char *domain);
EXPORT void *llmprof_nvtx_register(const char *text);
EXPORT void llmprof_nvtx_category(uint32_t id, const char *name);
EXPORT int llmprof_nvtx_push(void *registered, uint32_t category);
EXPORT int llmprof_nvtx_push_ascii(const char *text, uint32_t category);
EXPORT int llmprof_nvtx_pop(void);

/* The calling convention of the functions below; the startup module
 * refuses a library with another one. */
int llmprof_nvtx_version(void)
{
	return 1;
}

/* Creates the domain. 1 when a tool returned a handle (one is attached),
 * 0 when none is (the calls below then do nothing). */
int llmprof_nvtx_init(const char *domain)
{
	g_domain = nvtxDomainCreateA(domain);
	return g_domain != NULL;
}

/* A registered string for text, or NULL when the tool keeps none (then
 * push the text with llmprof_nvtx_push_ascii). */
void *llmprof_nvtx_register(const char *text)
{
	return (void *)nvtxDomainRegisterStringA(g_domain, text);
}

/* Names category id (>= 1) in the domain. */
void llmprof_nvtx_category(uint32_t id, const char *name)
{
	nvtxDomainNameCategoryA(g_domain, id, name);
}

static void attributes(nvtxEventAttributes_t *a, uint32_t category)
{
	*a = (nvtxEventAttributes_t){0};
	a->version = NVTX_VERSION;
	a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a->category = category;
}

/* Pushes a range named by a registered string, in category. Returns NVTX's
 * depth (negative: no tool, or an error the tool reported). */
int llmprof_nvtx_push(void *registered, uint32_t category)
{
	nvtxEventAttributes_t a;

	attributes(&a, category);
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = (nvtxStringHandle_t)registered;
	return nvtxDomainRangePushEx(g_domain, &a);
}

/* The same with the text itself. */
int llmprof_nvtx_push_ascii(const char *text, uint32_t category)
{
	nvtxEventAttributes_t a;

	attributes(&a, category);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = text;
	return nvtxDomainRangePushEx(g_domain, &a);
}

/* Ends the innermost range of the domain on the calling thread. */
int llmprof_nvtx_pop(void)
{
	return nvtxDomainRangePop(g_domain);
}
