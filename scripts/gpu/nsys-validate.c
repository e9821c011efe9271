/* nsys-validate.c: drives nsys through llmprof's own nsys module on a GPU
 * machine (scripts/gpu/validate-nsys.sh builds and runs it): the usability
 * probe, then for each case `nsys profile` as nsys_build_profile writes it,
 * the outcome as nsys_diag reads it, and the export and stats steps.
 *
 * Usage: nsys-validate NSYS OUTDIR PROGRAM [ARGS...]
 * Writes OUTDIR/<case>/ (nsys files, nsys.stdout, nsys.stderr, cmd.txt) and
 * prints a summary. Exit 0 when every case behaved as expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "nsight/tools.h"
#include "nsight/nsys.h"
#include "nsight/nsys_diag.h"
#include "nsight/nsys_exec.h"

/* The ranges nvtx-probe-program.cu emits (as `llmprof nvtx` would list them). */
static const struct nsys_nvtx_range probe_ranges[] = {
    {"LLM", "prefill"}, {"LLM", "decode_all"}, {"LLM", "decode_step"},
    {NULL, "A"},	{NULL, "A::A1"},       {NULL, "B"},
};

struct vcase {
	const char *name;
	int gating;
	const char *capture; /* llmprof stage name */
	int use_known;	     /* resolve against probe_ranges */
	int expect_report;
	const char *expect_kern_instances; /* sum of Instances in kern_sum, or NULL */
};

static int write_text(const char *dir, const char *name, const struct strbuf *sb)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	int ret;

	path_join(&p, dir, name);
	ret = write_file_atomic(p.buf, sb->buf, sb->len, &err);
	if (ret)
		fprintf(stderr, "%s\n", err.buf);
	strbuf_release(&p);
	strbuf_release(&err);
	return ret;
}

/* Sum of the Instances column (3rd) of a cuda_gpu_kern_sum CSV. */
static long kern_instances(const char *csv_path)
{
	struct strbuf sb = STRBUF_INIT;
	long total = 0;
	char *line, *save = NULL;

	if (strbuf_read_file(&sb, csv_path))
		return -1;
	line = strtok_r(sb.buf, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		if (c2)
			total += strtol(c2 + 1, NULL, 10);
	}
	strbuf_release(&sb);
	return total;
}

static int run_case(const char *nsys, const char *outdir, const struct vcase *c,
		    const char *const *prog, size_t nprog)
{
	struct nsys_options o;
	struct nsys_args argv = NSYS_ARGS_INIT, reps = NSYS_ARGS_INIT;
	struct nsys_exec_result res = NSYS_EXEC_RESULT_INIT;
	struct strbuf dir = STRBUF_INIT, base = STRBUF_INIT, err = STRBUF_INIT, sb = STRBUF_INIT;
	struct strbuf db = STRBUF_INIT, sum = STRBUF_INIT, csv = STRBUF_INIT;
	struct nsys_diag d = NSYS_DIAG_INIT;
	struct nsys_profile_outcome out;
	struct nsys_step s = NSYS_STEP_INIT;
	uint64_t t0;
	int good = 1;

	path_join(&dir, outdir, c->name);
	if (mkdir_p(dir.buf, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		return 0;
	}
	strbuf_addf(&base, "%s/run", dir.buf);
	memset(&o, 0, sizeof(o));
	o.nsys = nsys;
	o.gating_nvtx = c->gating;
	o.capture_range = c->gating ? "nvtx" : "none";
	o.nvtx_capture = c->capture;
	o.known_ranges = c->use_known ? probe_ranges : NULL;
	o.n_known = c->use_known ? sizeof(probe_ranges) / sizeof(*probe_ranges) : 0;
	o.output_base = base.buf;
	o.target_argv = prog;
	o.target_argc = nprog;
	if (nsys_build_profile(&o, &argv, &err)) {
		printf("[%s] build failed: %s\n", c->name, err.buf);
		return 0;
	}
	nsys_args_join(&argv, &sb);
	strbuf_addch(&sb, '\n');
	write_text(dir.buf, "cmd.txt", &sb);
	printf("[%s] %s", c->name, sb.buf);
	t0 = clock_mono_ns();
	if (nsys_exec_run((const char *const *)argv.v, NULL, NULL, 240000, &res, &err)) {
		printf("[%s] cannot run nsys: %s\n", c->name, err.buf);
		return 0;
	}
	strbuf_reset(&sb);
	nsys_exec_describe(&res, 240000, &sb);
	printf("[%s] nsys profile: %s in %.1f s\n", c->name, sb.buf,
	       (double)(clock_mono_ns() - t0) / 1e9);
	write_text(dir.buf, "nsys.stdout", &res.out);
	write_text(dir.buf, "nsys.stderr", &res.err);

	memset(&out, 0, sizeof(out));
	out.argv = (const char *const *)argv.v;
	out.exited = res.exited;
	out.exit_code = res.exit_code;
	out.signaled = res.signaled;
	out.term_signal = res.term_signal;
	out.out = res.out.buf;
	out.out_len = res.out.len;
	out.err = res.err.buf;
	out.err_len = res.err.len;
	out.n_reports = nsys_list_reports(dir.buf, "run", &reps);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/run.qdstrm", dir.buf);
	out.n_qdstrm = path_exists(sb.buf);
	out.known = probe_ranges;
	out.n_known = sizeof(probe_ranges) / sizeof(*probe_ranges);
	nsys_diag_profile(&out, &d);
	printf("[%s] reports: %zu, qdstrm: %zu\n", c->name, out.n_reports, out.n_qdstrm);
	for (size_t i = 0; i < d.nr; i++)
		printf("[%s] diag %s: %s | fix: %s\n", c->name,
		       nsys_diag_code_name(d.items[i].code), d.items[i].explain.buf,
		       d.items[i].fix.buf);
	if ((out.n_reports > 0) != c->expect_report) {
		printf("[%s] UNEXPECTED: report %s\n", c->name,
		       out.n_reports ? "written" : "missing");
		good = 0;
	}
	if (out.n_reports) {
		strbuf_addf(&db, "%s/run.sqlite", dir.buf);
		t0 = clock_mono_ns();
		if (nsys_step_export(nsys, reps.v[0], db.buf, 240000, &s, &err) || !s.ok) {
			printf("[%s] export FAILED: %s%s\n", c->name, err.buf, s.message.buf);
			good = 0;
			goto out;
		}
		printf("[%s] export ok in %.1f s\n", c->name, (double)(clock_mono_ns() - t0) / 1e9);
		nsys_step_release(&s);
		memset(&s, 0, sizeof(s));
		strbuf_addf(&sum, "%s/summary", dir.buf);
		if (nsys_step_stats(nsys, db.buf, sum.buf, 240000, &s, &err) || !s.ok) {
			printf("[%s] stats FAILED: %s%s\n", c->name, err.buf, s.message.buf);
			good = 0;
			goto out;
		}
		strbuf_addf(&csv, "%s_cuda_gpu_kern_sum.csv", sum.buf);
		printf("[%s] stats ok: %s, kernel instances %ld\n", c->name, csv.buf,
		       kern_instances(csv.buf));
		if (c->expect_kern_instances &&
		    kern_instances(csv.buf) != strtol(c->expect_kern_instances, NULL, 10)) {
			printf("[%s] UNEXPECTED: expected %s kernel instances\n", c->name,
			       c->expect_kern_instances);
			good = 0;
		}
		nsys_diag_release(&d);
		if (nsys_diag_sqlite(db.buf, &d, &err) == 0)
			for (size_t i = 0; i < d.nr; i++)
				printf("[%s] sqlite diag %s: %s\n", c->name,
				       nsys_diag_code_name(d.items[i].code),
				       d.items[i].explain.buf);
	}
out:
	nsys_step_release(&s);
	nsys_diag_release(&d);
	nsys_args_release(&argv);
	nsys_args_release(&reps);
	nsys_exec_result_release(&res);
	strbuf_release(&dir);
	strbuf_release(&base);
	strbuf_release(&err);
	strbuf_release(&sb);
	strbuf_release(&db);
	strbuf_release(&sum);
	strbuf_release(&csv);
	return good;
}

int main(int argc, char **argv)
{
	static const struct vcase cases[] = {
	    /* whole program: 14 kernels (3 prefill, 8 decode, 2 in A, 1 in B) */
	    {"all", 0, NULL, 0, 1, "14"},
	    /* llmprof's stage name, translated to decode_all@LLM: 8 decode kernels */
	    {"gated-decode_all", 1, "LLM@decode_all", 1, 1, "8"},
	    /* a bare name means the default domain: the gate never opens */
	    {"gated-default-domain", 1, "decode_all", 0, 0, NULL},
	};
	struct tool_found p;
	int good = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: nsys-validate NSYS OUTDIR PROGRAM [ARGS...]\n");
		return 2;
	}
	tool_find(TOOL_NSYS, argv[1], &p);
	printf("probe: ok=%d path=%s version=%s importer=%s\n", !p.problem, p.path ? p.path : "-",
	       p.version ? p.version : "-", p.importer ? p.importer : "-");
	if (p.problem)
		printf("probe: reason: %s | fix: %s\n", p.why.buf, p.fix.buf);
	if (getenv("NSYS_VALIDATE_PROBE_ONLY"))
		return p.problem ? 1 : 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		good &= run_case(argv[1], argv[2], &cases[i], (const char *const *)argv + 3,
				 (size_t)argc - 3);
	tool_found_release(&p);
	printf("result: %s\n", good ? "all cases as expected" : "SOME CASES UNEXPECTED");
	return good ? 0 : 1;
}
