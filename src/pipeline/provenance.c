/* provenance.c: see provenance.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/provenance.h"
#include "version.h"
#include "core/banned.h"

extern char **environ;

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string_lossy(s) : json_null();
}

int provenance_env_allowed(const char *name, size_t len)
{
	static const char *const exact[] = {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "LC_ALL",
					    "OMP_NUM_THREADS"};
	static const char *const prefix[] = {"CUDA_",	    "NVIDIA_", "NSYS_",	 "NCU_",
					     "NCCL_",	    "NVTX_",   "CUPTI_", "LLMPROF_",
					     "TORCH_CUDA_", "PYTORCH_"};
	static const char *const secret[] = {"TOKEN", "SECRET",	    "PASSWORD", "PASSWD",
					     "KEY",   "CREDENTIAL", "AUTH"};
	struct strbuf n = STRBUF_INIT;
	int ok = 0;

	strbuf_add(&n, name, len);
	for (size_t i = 0; i < ARRAY_SIZE(exact) && !ok; i++)
		ok = !strcmp(n.buf, exact[i]);
	for (size_t i = 0; i < ARRAY_SIZE(prefix) && !ok; i++)
		ok = starts_with(n.buf, prefix[i]);
	for (size_t i = 0; i < ARRAY_SIZE(secret) && ok; i++)
		if (strstr(n.buf, secret[i]))
			ok = 0;
	strbuf_release(&n);
	return ok;
}

char *provenance_parse_os_release(const char *buf, size_t len)
{
	const char *end = buf + len;

	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end;

		if ((size_t)(le - line) > 12 && !strncmp(line, "PRETTY_NAME=", 12)) {
			const char *v = line + 12, *ve = le;
			if (ve > v && (*v == '"' || *v == '\'') && ve[-1] == *v && ve - v >= 2) {
				v++;
				ve--;
			}
			return xstrndup(v, (size_t)(ve - v));
		}
		line = nl ? nl + 1 : end;
	}
	return NULL;
}

static char *cpu_model(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *ret = NULL, *p;

	if (strbuf_read_file(&sb, "/proc/cpuinfo"))
		goto out;
	p = strstr(sb.buf, "model name");
	if (p) {
		char *colon = strchr(p, ':'), *nl;
		if (colon) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			nl = strchr(colon, '\n');
			ret = xstrndup(colon, nl ? (size_t)(nl - colon) : strlen(colon));
		}
	}
out:
	strbuf_release(&sb);
	return ret;
}

static uint64_t mem_total_bytes(void)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t v = 0;
	char *p;

	if (!strbuf_read_file(&sb, "/proc/meminfo") && (p = strstr(sb.buf, "MemTotal:")))
		v = strtoull(p + 9, NULL, 10) * 1024ull;
	strbuf_release(&sb);
	return v;
}

json_t *provenance_gpu_json(const struct gpu_probe *p)
{
	json_t *o = json_object(), *arr = json_array();
	struct strbuf sb = STRBUF_INIT;

	json_object_set_new(o, "source", json_string(p->source));
	json_object_set_new(o, "note", p->note.len ? json_string_lossy(p->note.buf) : json_null());
	json_object_set_new(o, "driver_version", jstr_or_null(p->driver_version));
	if (p->cuda_driver_version) {
		gpu_format_cuda_version(&sb, p->cuda_driver_version);
		json_object_set_new(o, "cuda_driver_version", json_string(sb.buf));
	} else {
		json_object_set_new(o, "cuda_driver_version", json_null());
	}
	for (size_t i = 0; i < p->nr; i++) {
		const struct gpu_info *g = &p->gpus[i];
		json_t *j = json_object();

		json_object_set_new(j, "index", json_integer(g->index));
		json_object_set_new(j, "name", jstr_or_null(g->name));
		json_object_set_new(j, "uuid", jstr_or_null(g->uuid));
		json_object_set_new(j, "pci_bus_id", jstr_or_null(g->pci_bus_id));
		if (g->cc_major >= 0) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%d.%d", g->cc_major, g->cc_minor);
			json_object_set_new(j, "compute_capability", json_string(sb.buf));
		} else {
			json_object_set_new(j, "compute_capability", json_null());
		}
		json_object_set_new(j, "sm_count",
				    g->sm_count >= 0 ? json_integer(g->sm_count) : json_null());
		json_object_set_new(j, "memory_total_bytes",
				    g->mem_total ? json_integer((json_int_t)g->mem_total)
						 : json_null());
#define MHZ(key, v) json_object_set_new(j, key, (v) ? json_integer(v) : json_null())
		MHZ("max_sm_clock_mhz", g->max_sm_clock_mhz);
		MHZ("max_mem_clock_mhz", g->max_mem_clock_mhz);
		MHZ("sm_clock_mhz", g->sm_clock_mhz);
		MHZ("mem_clock_mhz", g->mem_clock_mhz);
#undef MHZ
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "gpus", arr);
	strbuf_release(&sb);
	return o;
}

static json_t *tool_json(const char *name, const char *configured)
{
	struct tool_info t = TOOL_INFO_INIT;
	json_t *o = json_object();

	tool_probe(&t, name, configured);
	json_object_set_new(o, "path", jstr_or_null(t.path));
	json_object_set_new(o, "version", jstr_or_null(t.version));
	json_object_set_new(o, "note", t.note.len ? json_string_lossy(t.note.buf) : json_null());
	tool_info_release(&t);
	return o;
}

json_t *provenance_env_json(const struct provenance_opts *o)
{
	json_t *root = json_object(), *j, *gpu, *env;
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	struct cuda_toolkit tk;
	char host[256];
	char *s, *cwd;
	cpu_set_t set;

	j = json_object();
	json_object_set_new(j, "version", json_string(LLMPROF_VERSION));
	json_object_set_new(j, "git_commit", json_string(LLMPROF_GIT_COMMIT));
	json_object_set_new(root, "llmprof", j);

	j = json_array();
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(j, json_string_lossy(o->argv[i]));
	json_object_set_new(root, "argv", j);
	cwd = getcwd(NULL, 0);
	json_object_set_new(root, "cwd", jstr_or_null(cwd));
	free(cwd);

	j = json_object();
	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	json_object_set_new(j, "hostname", json_string_lossy(host));
	if (!strbuf_read_file(&sb, "/etc/os-release") &&
	    (s = provenance_parse_os_release(sb.buf, sb.len))) {
		json_object_set_new(j, "os", json_string_lossy(s));
		free(s);
	} else {
		json_object_set_new(j, "os", json_null());
	}
	if (!uname(&u)) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
		json_object_set_new(j, "uname", json_string_lossy(sb.buf));
		json_object_set_new(j, "kernel", json_string_lossy(u.release));
		json_object_set_new(j, "arch", json_string_lossy(u.machine));
	}
	json_object_set_new(root, "host", j);

	j = json_object();
	s = cpu_model();
	json_object_set_new(j, "model", jstr_or_null(s));
	free(s);
	json_object_set_new(j, "online_cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	CPU_ZERO(&set);
	json_object_set_new(
	    j, "usable_cpus",
	    sched_getaffinity(0, sizeof(set), &set) ? json_null() : json_integer(CPU_COUNT(&set)));
	json_object_set_new(root, "cpu", j);
	j = json_object();
	json_object_set_new(j, "total_bytes", json_integer((json_int_t)mem_total_bytes()));
	json_object_set_new(root, "memory", j);

	gpu = provenance_gpu_json(o->gpus);
	json_object_set_new(root, "gpu_probe",
			    json_pack("{s:O,s:O}", "source", json_object_get(gpu, "source"), "note",
				      json_object_get(gpu, "note")));
	json_object_set(root, "driver_version", json_object_get(gpu, "driver_version"));
	json_object_set(root, "cuda_driver_version", json_object_get(gpu, "cuda_driver_version"));
	json_object_set(root, "gpus", json_object_get(gpu, "gpus"));
	json_decref(gpu);

	cuda_toolkit_probe(&tk);
	j = json_object();
	json_object_set_new(j, "root", jstr_or_null(tk.root));
	json_object_set_new(j, "version", jstr_or_null(tk.version));
	json_object_set_new(j, "version_source", jstr_or_null(tk.version_source));
	json_object_set_new(j, "cupti", jstr_or_null(tk.cupti));
	json_object_set_new(j, "note", tk.note.len ? json_string_lossy(tk.note.buf) : json_null());
	json_object_set_new(root, "cuda_toolkit", j);
	cuda_toolkit_release(&tk);

	j = json_object();
	json_object_set_new(j, "nsys", tool_json("nsys", o->nsys_path));
	json_object_set_new(j, "ncu", tool_json("ncu", o->ncu_path));
	json_object_set_new(root, "tools", j);

	env = json_object();
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || !provenance_env_allowed(*e, (size_t)(eq - *e)))
			continue;
		strbuf_reset(&sb);
		strbuf_add(&sb, *e, (size_t)(eq - *e));
		json_object_set_new(env, sb.buf, json_string_lossy(eq + 1));
	}
	json_object_set_new(root, "environment", env);
	strbuf_release(&sb);
	return root;
}

void yaml_add_quoted(struct strbuf *out, const char *s)
{
	struct strbuf clean = STRBUF_INIT;

	utf8_sanitize(&clean, s, strlen(s));
	strbuf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)clean.buf; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(out, "\\%c", *p);
		else if (*p == '\n')
			strbuf_addstr(out, "\\n");
		else if (*p == '\t')
			strbuf_addstr(out, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(out, "\\x%02x", *p);
		else
			strbuf_addch(out, *p);
	}
	strbuf_addch(out, '"');
	strbuf_release(&clean);
}

void provenance_inputs_yaml(const struct run_inputs *in, struct strbuf *out)
{
	strbuf_addf(out,
		    "# What this run executed (llmprof %s; docs/run-bundle.md).\n"
		    "# Exact argv bytes: ",
		    bundle_art(BA_INPUTS));
	bundle_art_fill(out, BA_LOG_ARGV, "workload");
	strbuf_addstr(out, ".\n");
	strbuf_addstr(out, "workload:\n  kind: ");
	yaml_add_quoted(out, workload_kind_names[in->kind]);
	strbuf_addstr(out, "\n  program: ");
	yaml_add_quoted(out, in->argv && in->argv[0] ? in->argv[0] : "");
	if (in->program_path) {
		strbuf_addstr(out, "\n  path: ");
		yaml_add_quoted(out, in->program_path);
	}
	strbuf_addstr(out, "\n  argv:\n");
	for (const char *const *a = in->argv; a && *a; a++) {
		strbuf_addstr(out, "    - ");
		yaml_add_quoted(out, *a);
		strbuf_addch(out, '\n');
	}
	if (!in->argv || !in->argv[0])
		strbuf_addstr(out, "    []\n");
	if (in->device) {
		strbuf_addstr(out, "device: ");
		yaml_add_quoted(out, in->device);
		strbuf_addch(out, '\n');
	}
	if (in->model_name) {
		strbuf_addstr(out, "model:\n  name: ");
		yaml_add_quoted(out, in->model_name);
		strbuf_addch(out, '\n');
	}
	if (in->model_json) {
		strbuf_addstr(out, "model:\n  config_json: ");
		yaml_add_quoted(out, in->model_json);
		strbuf_addch(out, '\n');
	}
	if (in->prompt_len >= 0) {
		strbuf_addf(out,
			    "infer:\n  prompt_len: %lld\n  max_new_tokens: %lld\n"
			    "  batch_size: %lld\n",
			    (long long)in->prompt_len, (long long)in->max_new_tokens,
			    (long long)in->batch_size);
		strbuf_addstr(out, "  dtype: ");
		yaml_add_quoted(out, infer_dtype_names[in->dtype]);
		strbuf_addch(out, '\n');
		if (in->cuda_graph >= 0)
			strbuf_addf(out, "  cuda_graph: %s\n", in->cuda_graph ? "true" : "false");
		if (in->warmup >= 0)
			strbuf_addf(out, "  warmup: %lld\n", (long long)in->warmup);
		if (in->seed >= 0)
			strbuf_addf(out, "  seed: %lld\n", (long long)in->seed);
	}
}
