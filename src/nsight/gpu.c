/* gpu.c: see gpu.h. The NVML prototypes below are declared by hand from
 * NVIDIA's nvml.h (stable ABI, versioned symbol names), so building
 * llmprof needs no NVIDIA headers. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/gpu.h"
#include "core/proc.h"
#include "core/banned.h"

typedef int nvml_ret;		      /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_dev *nvml_device; /* nvmlDevice_t, opaque */
struct nvml_memory {		      /* nvmlMemory_t */
	unsigned long long total, free, used;
};
struct nvml_attributes { /* nvmlDeviceAttributes_t */
	unsigned multiprocessor_count, shared_copy_engines, shared_decoders, shared_encoders,
	    shared_jpegs, shared_ofas, gpu_instance_slices, compute_instance_slices;
	unsigned long long memory_size_mb;
};
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

struct nvml {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*driver_version)(char *, unsigned);
	nvml_ret (*cuda_driver_version)(int *);
	nvml_ret (*count)(unsigned *);
	nvml_ret (*handle)(unsigned, nvml_device *);
	nvml_ret (*name)(nvml_device, char *, unsigned);
	nvml_ret (*uuid)(nvml_device, char *, unsigned);
	nvml_ret (*cc)(nvml_device, int *, int *);
	nvml_ret (*memory)(nvml_device, struct nvml_memory *);
	nvml_ret (*max_clock)(nvml_device, int, unsigned *);
	nvml_ret (*clock)(nvml_device, int, unsigned *);
	nvml_ret (*attributes)(nvml_device, struct nvml_attributes *);
};

static const char *nvml_err(const struct nvml *n, nvml_ret r)
{
	return n->error_string ? n->error_string(r) : "unknown NVML error";
}

#define NVML_SYM(field, name) (*(void **)(&n->field) = dlsym(n->lib, name))

static int nvml_open(struct nvml *n, const char *libname, struct strbuf *note)
{
	memset(n, 0, sizeof(*n));
	n->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *e = dlerror();
		strbuf_addf(note, "NVML: cannot load %s: %s", libname, e ? e : "unknown error");
		return -1;
	}
	NVML_SYM(init, "nvmlInit_v2");
	NVML_SYM(shutdown, "nvmlShutdown");
	NVML_SYM(error_string, "nvmlErrorString");
	NVML_SYM(driver_version, "nvmlSystemGetDriverVersion");
	if (!NVML_SYM(cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2"))
		NVML_SYM(cuda_driver_version, "nvmlSystemGetCudaDriverVersion");
	NVML_SYM(count, "nvmlDeviceGetCount_v2");
	NVML_SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
	NVML_SYM(name, "nvmlDeviceGetName");
	NVML_SYM(uuid, "nvmlDeviceGetUUID");
	NVML_SYM(cc, "nvmlDeviceGetCudaComputeCapability");
	NVML_SYM(memory, "nvmlDeviceGetMemoryInfo");
	NVML_SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
	NVML_SYM(clock, "nvmlDeviceGetClockInfo");
	NVML_SYM(attributes, "nvmlDeviceGetAttributes_v2");
	if (!n->init || !n->shutdown || !n->count || !n->handle) {
		strbuf_addf(note, "NVML: %s lacks nvmlInit_v2/nvmlDeviceGetCount_v2", libname);
		dlclose(n->lib);
		n->lib = NULL;
		return -1;
	}
	return 0;
}

static struct gpu_info *gpu_add(struct gpu_probe *p)
{
	struct gpu_info *g;

	ALLOC_GROW(p->gpus, p->nr + 1, p->alloc);
	g = &p->gpus[p->nr++];
	memset(g, 0, sizeof(*g));
	g->cc_major = g->cc_minor = g->sm_count = -1;
	return g;
}

static int probe_nvml(struct gpu_probe *p, const char *libname)
{
	struct nvml n;
	unsigned count = 0;
	char buf[256];
	nvml_ret r;
	int sm_missing = 0;

	if (nvml_open(&n, libname, &p->note))
		return -1;
	r = n.init();
	if (r) {
		strbuf_addf(&p->note, "NVML: nvmlInit failed: %s", nvml_err(&n, r));
		dlclose(n.lib);
		return -1;
	}
	if (n.driver_version && !n.driver_version(buf, sizeof(buf)))
		p->driver_version = xstrdup(buf);
	if (n.cuda_driver_version)
		n.cuda_driver_version(&p->cuda_driver_version);
	r = n.count(&count);
	if (r) {
		strbuf_addf(&p->note, "NVML: cannot count GPUs: %s", nvml_err(&n, r));
		count = 0;
	}
	for (unsigned i = 0; i < count; i++) {
		struct gpu_info *g;
		nvml_device d;
		struct nvml_memory mem;
		struct nvml_attributes attr;

		if (n.handle(i, &d)) {
			strbuf_addf(&p->note, "%sNVML: GPU %u is not accessible",
				    p->note.len ? "; " : "", i);
			continue;
		}
		g = gpu_add(p);
		g->index = i;
		if (n.name && !n.name(d, buf, sizeof(buf)))
			g->name = xstrdup(buf);
		if (n.uuid && !n.uuid(d, buf, sizeof(buf)))
			g->uuid = xstrdup(buf);
		if (n.cc)
			n.cc(d, &g->cc_major, &g->cc_minor);
		if (n.memory && !n.memory(d, &mem))
			g->mem_total = mem.total;
		if (n.max_clock) {
			n.max_clock(d, NVML_CLOCK_SM, &g->max_sm_clock_mhz);
			n.max_clock(d, NVML_CLOCK_MEM, &g->max_mem_clock_mhz);
		}
		if (n.clock) {
			n.clock(d, NVML_CLOCK_SM, &g->sm_clock_mhz);
			n.clock(d, NVML_CLOCK_MEM, &g->mem_clock_mhz);
		}
		memset(&attr, 0, sizeof(attr));
		/* NVML documents this for MIG handles; on whole GPUs it may
		 * be unsupported, and then the SM count stays unknown */
		if (n.attributes && !n.attributes(d, &attr) && attr.multiprocessor_count)
			g->sm_count = (int)attr.multiprocessor_count;
		else
			sm_missing = 1;
	}
	if (sm_missing)
		strbuf_addf(&p->note, "%sNVML does not report the SM count of whole GPUs here",
			    p->note.len ? "; " : "");
	n.shutdown();
	dlclose(n.lib);
	p->source = "nvml";
	return 0;
}

/* Next comma-separated field of line, trimmed; advances *pos. */
static char *next_field(const char *line, size_t len, size_t *pos)
{
	size_t s = *pos, e;

	while (s < len && line[s] == ' ')
		s++;
	e = s;
	while (e < len && line[e] != ',')
		e++;
	*pos = e < len ? e + 1 : e;
	while (e > s && (line[e - 1] == ' ' || line[e - 1] == '\r'))
		e--;
	return xstrndup(line + s, e - s);
}

static int smi_unknown(const char *v)
{
	return !*v || starts_with(v, "[N/A]") || starts_with(v, "N/A") ||
	       starts_with(v, "[Not Supported]") || starts_with(v, "[Unknown");
}

static unsigned smi_uint(const char *v)
{
	uint64_t u;
	return smi_unknown(v) || parse_u64(v, 0, UINT32_MAX, &u, NULL) ? 0 : (unsigned)u;
}

int gpu_parse_smi_csv(struct gpu_probe *p, const char *buf, size_t len, struct strbuf *err)
{
	size_t start = 0, lineno = 0;

	while (start < len) {
		const char *line = buf + start;
		const char *nl = memchr(line, '\n', len - start);
		size_t llen = nl ? (size_t)(nl - line) : len - start, pos = 0;
		char *f[11];
		size_t nf = 0;
		struct gpu_info *g;
		uint64_t u;

		lineno++;
		start += llen + (nl ? 1 : 0);
		if (!llen || (llen == 1 && line[0] == '\r'))
			continue;
		while (nf < ARRAY_SIZE(f) && pos < llen)
			f[nf++] = next_field(line, llen, &pos);
		if (nf != ARRAY_SIZE(f) || pos < llen) {
			for (size_t i = 0; i < nf; i++)
				free(f[i]);
			return error_set(err, "nvidia-smi output line %zu: expected %zu fields",
					 lineno, ARRAY_SIZE(f));
		}
		g = gpu_add(p);
		if (parse_u64(f[0], 0, 1024, &u, NULL)) {
			p->nr--;
			for (size_t i = 0; i < nf; i++)
				free(f[i]);
			return error_set(err, "nvidia-smi output line %zu: bad GPU index", lineno);
		}
		g->index = (unsigned)u;
		if (!smi_unknown(f[1]))
			g->name = xstrdup(f[1]);
		if (!smi_unknown(f[2]))
			g->uuid = xstrdup(f[2]);
		if (!smi_unknown(f[3]))
			g->pci_bus_id = xstrdup(f[3]);
		if (!smi_unknown(f[4])) {
			char *dot = strchr(f[4], '.');
			int64_t a, b;
			if (dot) {
				*dot = '\0';
				if (!parse_i64(f[4], 0, 99, &a, NULL) &&
				    !parse_i64(dot + 1, 0, 99, &b, NULL)) {
					g->cc_major = (int)a;
					g->cc_minor = (int)b;
				}
			}
		}
		g->mem_total = (uint64_t)smi_uint(f[5]) * 1024 * 1024; /* MiB with nounits */
		g->max_sm_clock_mhz = smi_uint(f[6]);
		g->max_mem_clock_mhz = smi_uint(f[7]);
		g->sm_clock_mhz = smi_uint(f[8]);
		g->mem_clock_mhz = smi_uint(f[9]);
		if (!p->driver_version && !smi_unknown(f[10]))
			p->driver_version = xstrdup(f[10]);
		for (size_t i = 0; i < nf; i++)
			free(f[i]);
	}
	return 0;
}

static int probe_smi(struct gpu_probe *p, const char *smi)
{
	const char *argv[] = {smi, "--query-gpu=" GPU_SMI_FIELDS, "--format=csv,noheader,nounits",
			      NULL};
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_spec spec = {.argv = argv, .stdin_null = 1, .timeout_s = 20};
	struct proc_result res;
	int ret = -1;

	spec.out.buf = &out;
	spec.out.buf_max = 1 << 20;
	spec.err.buf = &errout;
	if (proc_run(&spec, &res, &err)) {
		strbuf_addf(&p->note, "%snvidia-smi: %s", p->note.len ? "; " : "", err.buf);
		goto out;
	}
	if (res.outcome != PROC_EXITED || res.exit_status) {
		struct strbuf d = STRBUF_INIT;
		proc_result_describe(&res, &spec, &d);
		strbuf_trim(&errout);
		strbuf_trim(&out);
		strbuf_addf(&p->note, "%snvidia-smi %s: %s", p->note.len ? "; " : "", d.buf,
			    errout.len ? errout.buf : out.buf);
		strbuf_release(&d);
		goto out;
	}
	if (gpu_parse_smi_csv(p, out.buf, out.len, &err)) {
		strbuf_addf(&p->note, "%s%s", p->note.len ? "; " : "", err.buf);
		goto out;
	}
	p->source = "nvidia-smi";
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&errout);
	strbuf_release(&err);
	return ret;
}

void gpu_probe_run(struct gpu_probe *p)
{
	const char *lib = getenv("LLMPROF_NVML_LIBRARY");
	const char *smi_env = getenv("LLMPROF_NVIDIA_SMI");
	char *smi = NULL;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->note, 0);
	p->source = "none";
	if (!lib)
		lib = "libnvidia-ml.so.1";
	if (*lib && !probe_nvml(p, lib))
		return;
	if (!*lib)
		strbuf_addstr(&p->note, "NVML: skipped (LLMPROF_NVML_LIBRARY is empty)");
	if (smi_env && !*smi_env) {
		strbuf_addstr(&p->note, "; nvidia-smi: skipped (LLMPROF_NVIDIA_SMI is empty)");
		return;
	}
	smi = find_in_path(smi_env ? smi_env : "nvidia-smi");
	if (!smi) {
		strbuf_addf(&p->note, "; nvidia-smi: not found%s", smi_env ? "" : " on PATH");
		return;
	}
	probe_smi(p, smi);
	free(smi);
}

void gpu_probe_release(struct gpu_probe *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->gpus[i].name);
		free(p->gpus[i].uuid);
		free(p->gpus[i].pci_bus_id);
	}
	free(p->gpus);
	free(p->driver_version);
	strbuf_release(&p->note);
	memset(p, 0, sizeof(*p));
}

void gpu_format_cuda_version(struct strbuf *sb, int v)
{
	strbuf_addf(sb, "%d.%d", v / 1000, v % 1000 / 10);
}
