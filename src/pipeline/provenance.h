/* provenance.h: env.json (where and with what a run happened) and
 * inputs.yaml (what ran). Schemas: docs/run-bundle.md. */
#ifndef LLMPROF_PROVENANCE_H
#define LLMPROF_PROVENANCE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "config/typed.h"
#include "core/strbuf.h"
#include "nsight/gpu.h"
#include "nsight/tools.h"

/* What ran, as inputs.yaml records it. All strings borrowed. */
struct run_inputs {
	enum workload_kind kind;
	const char *const *argv;  /* the workload's exact argv */
	const char *program_path; /* argv[0] as found on PATH, NULL = not resolved */
	const char *device;	  /* NULL for kind=command */
	/* built-in workloads only: */
	const char *model_name;
	int64_t prompt_len, max_new_tokens, batch_size, warmup, seed; /* -1 = n/a */
	enum infer_dtype dtype;					      /* with prompt_len */
	int cuda_graph;						      /* -1 = n/a */
	/* kind=command: the transformers config.json the model.* keys came
	 * from (model_json.h), NULL = none */
	const char *model_json;
};

struct provenance_opts {
	int argc;
	const char *const *argv;	  /* llmprof's own command line */
	const char *nsys_path, *ncu_path; /* configured paths, NULL = PATH */
	const struct gpu_probe *gpus;	  /* borrowed, already probed */
};

/* Builds env.json. Runs `nsys --version`, `ncu --version` and reads /proc,
 * /etc/os-release and the CUDA toolkit. Caller owns the reference. */
json_t *provenance_env_json(const struct provenance_opts *o);

/* 1 when an environment variable may be recorded in env.json: the GPU and
 * toolchain ones (CUDA_*, NVIDIA_*, NSYS_*, NCU_*, NCCL_*, NVTX_*, CUPTI_*,
 * LLMPROF_*, TORCH_CUDA_*, PYTORCH_*, PATH, LD_LIBRARY_PATH, LD_PRELOAD,
 * LC_ALL, OMP_NUM_THREADS), never names that look like secrets. Pure. */
int provenance_env_allowed(const char *name, size_t len);

/* PRETTY_NAME from /etc/os-release text; owned or NULL. Pure. */
char *provenance_parse_os_release(const char *buf, size_t len);

/* Renders inputs.yaml. Pure. */
void provenance_inputs_yaml(const struct run_inputs *in, struct strbuf *out);

/* Appends s as a YAML double-quoted scalar (invalid UTF-8 -> U+FFFD). */
void yaml_add_quoted(struct strbuf *out, const char *s);

/* The GPU part of env.json: {"source","note","driver_version",
 * "cuda_driver_version","gpus":[...]}, so doctor can print the same. */
json_t *provenance_gpu_json(const struct gpu_probe *p);

#endif
