/* gpu.h: what NVIDIA GPUs this machine has, for env.json and `doctor`.
 *
 * Probing order: NVML, loaded at run time with dlopen("libnvidia-ml.so.1")
 * (llmprof links no NVIDIA library), then `nvidia-smi --query-gpu` when it
 * is on PATH, else no GPUs with a note saying why. Probing never fails: an
 * unusable probe is data, recorded in gpu_probe.note.
 *
 * For tests and odd installs, LLMPROF_NVML_LIBRARY names another NVML
 * library and LLMPROF_NVIDIA_SMI another nvidia-smi; set to "" to skip that
 * probe. */
#ifndef LLMPROF_GPU_H
#define LLMPROF_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

struct gpu_info {
	unsigned index;
	char *name; /* owned; NULL = unknown (same for all strings) */
	char *uuid;
	char *pci_bus_id;
	int cc_major, cc_minor;			      /* compute capability, -1 = unknown */
	int sm_count;				      /* -1 = unknown */
	uint64_t mem_total;			      /* bytes, 0 = unknown */
	unsigned max_sm_clock_mhz, max_mem_clock_mhz; /* 0 = unknown */
	unsigned sm_clock_mhz, mem_clock_mhz;	      /* at probe time, 0 = unknown */
};

struct gpu_probe {
	const char *source;	 /* static: "nvml", "nvidia-smi" or "none" */
	char *driver_version;	 /* owned, NULL = unknown */
	int cuda_driver_version; /* e.g. 12040 = 12.4; 0 = unknown */
	struct gpu_info *gpus;
	size_t nr, alloc;
	struct strbuf note; /* why a probe failed or a field is missing */
};

/* Fills p (release with gpu_probe_release). Never fails. */
void gpu_probe_run(struct gpu_probe *p);
void gpu_probe_release(struct gpu_probe *p);

/* Parses the output of
 *   nvidia-smi --query-gpu=GPU_SMI_FIELDS --format=csv,noheader,nounits
 * into p->gpus (appending) and p->driver_version. Pure; 0, or -1 with err
 * naming the line. */
#define GPU_SMI_FIELDS                                                                             \
	"index,name,uuid,pci.bus_id,compute_cap,memory.total,"                                     \
	"clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,driver_version"
int gpu_parse_smi_csv(struct gpu_probe *p, const char *buf, size_t len, struct strbuf *err);

/* "12.4" from 12040 into sb. */
void gpu_format_cuda_version(struct strbuf *sb, int v);

#endif
