/* nvtx_shim.h: NVTX ranges for the built-in workloads. With the nvtx3
 * headers (CUDA toolkit) these are real push/pop ranges; without them they
 * compile to nothing, so the CPU build needs no CUDA at all.
 *
 * The LLM uses domain "LLM" (nvtx_push/nvtx_pop after nvtx_domain("LLM"));
 * the dummy model uses the default domain (nvtx_domain(NULL)). */
#ifndef LLMPROF_WORKLOADS_NVTX_SHIM_H
#define LLMPROF_WORKLOADS_NVTX_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Selects the domain for later pushes; NULL = the default domain. */
void nvtx_domain(const char *name);
/* 0 turns pushes and pops into no-ops (warm-up runs stay unranged). */
void nvtx_enable(int on);
void nvtx_push(const char *name);
void nvtx_pop(void);
/* 1 when built with real NVTX. */
int nvtx_available(void);

#ifdef __cplusplus
}
#endif
#endif
