/* tools.c: see tools.h. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "run/proc.h"
#include "run/tools.h"
#include "core/banned.h"

static const char *find_ci(const char *hay, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = hay; p + n <= end; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

int tool_version_older(const char *version, int major, int minor)
{
	long y = 0, m = 0;
	const char *p = version;
	int digits = 0;

	if (!p)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	for (; isdigit((unsigned char)*p) && digits < 5; p++, digits++)
		y = y * 10 + (*p - '0');
	if (digits != 4 || *p != '.' || !isdigit((unsigned char)p[1]))
		return -1;
	for (p++, digits = 0; isdigit((unsigned char)*p) && digits < 4; p++, digits++)
		m = m * 10 + (*p - '0');
	return y < major || (y == major && m < minor);
}

char *tool_too_old(const char *name, const char *version)
{
	int nsys = !strcmp(name, "nsys");
	int major = nsys ? TOOL_NSYS_MIN_MAJOR : TOOL_NCU_MIN_MAJOR;
	int minor = nsys ? TOOL_NSYS_MIN_MINOR : TOOL_NCU_MIN_MINOR;
	struct strbuf sb = STRBUF_INIT;

	if (tool_version_older(version, major, minor) != 1)
		return NULL;
	strbuf_addf(&sb, "%s %s is older than %d.%d, the oldest llmprof supports", name, version,
		    major, minor);
	return strbuf_detach(&sb, NULL);
}

char *tool_parse_version(const char *out, size_t len)
{
	const char *best = NULL, *best_end = NULL, *end = out + len;

	for (const char *line = out; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end, *v = find_ci(line, le, "version");

		if (v) {
			v += 7;
			while (v < le && (*v == ' ' || *v == ':'))
				v++;
			best = v;
			best_end = le;
		}
		line = nl ? nl + 1 : end;
	}
	if (!best)
		return NULL;
	while (best_end > best && isspace((unsigned char)best_end[-1]))
		best_end--;
	return best_end > best ? xstrndup(best, (size_t)(best_end - best)) : NULL;
}

void tool_probe(struct tool_info *info, const char *name, const char *configured)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, d = STRBUF_INIT;
	const char *argv[] = {NULL, "--version", NULL};
	struct proc_spec spec = {.argv = argv, .stdin_null = 1, .timeout_s = 15, .grace_s = 1};
	struct proc_result res;

	info->path = find_in_path(configured ? configured : name);
	if (!info->path) {
		if (configured)
			strbuf_addf(&info->note, "'%s' (from config) is not an executable file",
				    configured);
		else
			strbuf_addf(&info->note, "'%s' not found on PATH", name);
		goto out;
	}
	argv[0] = info->path;
	spec.out.buf = &out;
	spec.err.buf = &out;
	if (proc_run(&spec, &res, &err)) {
		strbuf_addf(&info->note, "cannot run '%s --version': %s", info->path, err.buf);
		goto out;
	}
	if (res.outcome != PROC_EXITED || res.exit_status) {
		proc_result_describe(&res, &spec, &d);
		strbuf_addf(&info->note, "'%s --version' %s", info->path, d.buf);
		goto out;
	}
	info->version = tool_parse_version(out.buf, out.len);
	if (!info->version)
		strbuf_addf(&info->note, "'%s --version' printed no version", info->path);
out:
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&d);
}

void tool_info_release(struct tool_info *info)
{
	FREE_AND_NULL(info->path);
	FREE_AND_NULL(info->version);
	strbuf_release(&info->note);
}

static char *version_from_json(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *v;
	char *ret = NULL;

	if (!root)
		return NULL;
	v = json_object_get(json_object_get(root, "cuda"), "version");
	if (json_is_string(v))
		ret = xstrdup(json_string_value(v));
	json_decref(root);
	return ret;
}

/* "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88" */
static char *version_from_nvcc(const char *nvcc)
{
	const char *argv[] = {nvcc, "--version", NULL};
	struct proc_spec spec = {.argv = argv, .stdin_null = 1, .timeout_s = 15, .grace_s = 1};
	struct strbuf out = STRBUF_INIT;
	struct proc_result res;
	char *ret = NULL, *v;

	spec.out.buf = &out;
	if (proc_run(&spec, &res, NULL) || res.outcome != PROC_EXITED || res.exit_status)
		goto out;
	v = strstr(out.buf, ", V");
	if (v) {
		size_t n = strspn(v + 3, "0123456789.");
		if (n)
			ret = xstrndup(v + 3, n);
	}
out:
	strbuf_release(&out);
	return ret;
}

/* "#define CUDART_VERSION 13000" -> "13.0" */
static char *version_from_header(const char *path)
{
	struct strbuf sb = STRBUF_INIT, v = STRBUF_INIT;
	const char *p;
	char *ret = NULL;

	if (strbuf_read_file(&sb, path))
		goto out;
	p = strstr(sb.buf, "#define CUDART_VERSION");
	if (p) {
		long n = strtol(p + 22, NULL, 10);
		if (n > 0) {
			strbuf_addf(&v, "%ld.%ld", n / 1000, n % 1000 / 10);
			ret = strbuf_detach(&v, NULL);
		}
	}
out:
	strbuf_release(&sb);
	strbuf_release(&v);
	return ret;
}

void cuda_toolkit_probe(struct cuda_toolkit *tk)
{
	static const char *const cupti_rel[] = {
	    "lib64/libcupti.so",
	    "extras/CUPTI/lib64/libcupti.so",
	    "targets/x86_64-linux/lib/libcupti.so",
	    "targets/sbsa-linux/lib/libcupti.so",
	};
	struct strbuf p = STRBUF_INIT;
	const char *env = getenv("CUDA_HOME");

	memset(tk, 0, sizeof(*tk));
	strbuf_init(&tk->note, 0);
	if (!env || !*env)
		env = getenv("CUDA_PATH");
	if (env && *env) {
		if (!path_is_dir(env)) {
			strbuf_addf(&tk->note, "CUDA_HOME/CUDA_PATH '%s' is not a directory", env);
			goto out;
		}
		tk->root = xstrdup(env);
	} else if (path_is_dir("/usr/local/cuda")) {
		tk->root = xstrdup("/usr/local/cuda");
	} else {
		strbuf_addstr(&tk->note, "no CUDA toolkit: CUDA_HOME unset and no /usr/local/cuda");
		goto out;
	}
	path_join(&p, tk->root, "version.json");
	if ((tk->version = version_from_json(p.buf))) {
		tk->version_source = "version.json";
	} else {
		strbuf_reset(&p);
		path_join(&p, tk->root, "bin/nvcc");
		if (path_is_executable_file(p.buf) && (tk->version = version_from_nvcc(p.buf))) {
			tk->version_source = "nvcc";
		} else {
			strbuf_reset(&p);
			path_join(&p, tk->root, "include/cuda_runtime_api.h");
			if ((tk->version = version_from_header(p.buf)))
				tk->version_source = "cuda_runtime_api.h";
			else
				strbuf_addf(&tk->note, "cannot tell the CUDA version of '%s'",
					    tk->root);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(cupti_rel) && !tk->cupti; i++) {
		strbuf_reset(&p);
		path_join(&p, tk->root, cupti_rel[i]);
		if (path_exists(p.buf))
			tk->cupti = strbuf_detach(&p, NULL);
	}
	if (!tk->cupti)
		strbuf_addf(&tk->note, "%sno libcupti.so under '%s'", tk->note.len ? "; " : "",
			    tk->root);
out:
	strbuf_release(&p);
}

void cuda_toolkit_release(struct cuda_toolkit *tk)
{
	free(tk->root);
	free(tk->version);
	free(tk->cupti);
	strbuf_release(&tk->note);
	memset(tk, 0, sizeof(*tk));
}
