/* test-nsys-diag.c: failure-mode recognition on real nsys 2023.4.4 outputs
 * (tests/data/nsys/, captured by scripts/nsys/capture-test-data.sh) and on
 * real nsys SQLite exports (the .sqlite files of tests/data/nsys/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/strbuf.h"
#include "nsight/nsys.h"
#include "nsight/nsys_diag.h"

/* The NVTX ranges nvtx-cpu-prog.c emits (what `llmprof nvtx` would list). */
static const struct nsys_nvtx_range prog_ranges[] = {
    {"LLM", "prefill"},
    {"LLM", "decode_all"},
    {"LLM", "decode_step"},
    {NULL, "A"},
};

struct capture {
	struct strbuf out, err, cmd;
	struct nsys_args argv;
	int exit_code;
	size_t n_rep, n_qdstrm;
};

static void read_data(const char *name, const char *ext, struct strbuf *sb)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s/tests/data/nsys/%s.%s", LLMPROF_SOURCE_DIR, name, ext);
	if (strbuf_read_file(sb, p.buf))
		fail_msg("cannot read %s", p.buf);
	strbuf_release(&p);
}

/* Loads <name>.{stdout,stderr,cmd}: argv from line 1 (split on spaces: the
 * captured commands have no quoted arguments), exit status, files left. */
static void load(const char *name, struct capture *c)
{
	char *line, *save = NULL, *tok;

	memset(c, 0, sizeof(*c));
	strbuf_init(&c->out, 0);
	strbuf_init(&c->err, 0);
	strbuf_init(&c->cmd, 0);
	read_data(name, "stdout", &c->out);
	read_data(name, "stderr", &c->err);
	read_data(name, "cmd", &c->cmd);
	line = strtok_r(c->cmd.buf, "\n", &save);
	for (char *s2 = NULL, *t = strtok_r(line, " ", &s2); t; t = strtok_r(NULL, " ", &s2))
		nsys_args_push(&c->argv, t);
	line = strtok_r(NULL, "\n", &save);
	assert_int_equal(sscanf(line, "exit %d", &c->exit_code), 1);
	line = strtok_r(NULL, "\n", &save);
	if (line && (line = strchr(line, ':'))) {
		char *s3 = NULL;
		for (tok = strtok_r(line + 1, " ", &s3); tok; tok = strtok_r(NULL, " ", &s3)) {
			size_t n = strlen(tok);
			if (n > 9 && !strcmp(tok + n - 9, ".nsys-rep"))
				c->n_rep++;
			if (n > 7 && !strcmp(tok + n - 7, ".qdstrm"))
				c->n_qdstrm++;
		}
	}
}

static void release(struct capture *c)
{
	strbuf_release(&c->out);
	strbuf_release(&c->err);
	strbuf_release(&c->cmd);
	nsys_args_release(&c->argv);
}

static void diagnose(const struct capture *c, const struct nsys_nvtx_range *known, size_t nk,
		     const char *importer_text, struct nsys_diag *d)
{
	struct nsys_profile_outcome o = {
	    .argv = (const char *const *)c->argv.v,
	    .exited = 1,
	    .exit_code = c->exit_code,
	    .out = c->out.buf,
	    .out_len = c->out.len,
	    .err = c->err.buf,
	    .err_len = c->err.len,
	    .n_reports = c->n_rep,
	    .n_qdstrm = c->n_qdstrm,
	    .known = known,
	    .n_known = nk,
	    .importer_text = importer_text,
	    .importer_len = importer_text ? strlen(importer_text) : 0,
	};
	nsys_diag_profile(&o, d);
}

static const struct nsys_finding *only(const struct nsys_diag *d, enum nsys_diag_code code)
{
	const struct nsys_finding *f = nsys_diag_find(d, code);

	if (!f || d->nr != 1) {
		for (size_t i = 0; i < d->nr; i++)
			print_message("finding %s: %s\n", nsys_diag_code_name(d->items[i].code),
				      d->items[i].explain.buf);
		fail_msg("expected exactly one finding %s, got %zu", nsys_diag_code_name(code),
			 d->nr);
	}
	assert_true(f->explain.len > 0 && f->fix.len > 0);
	assert_null(strchr(f->explain.buf, '\n'));
	assert_null(strchr(f->fix.buf, '\n'));
	return f;
}

static void test_importer_missing(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("importer-missing", &c);
	assert_int_equal(c.n_qdstrm, 1);
	diagnose(&c, NULL, 0, NULL, &d);
	f = only(&d, NSYS_DIAG_IMPORTER_MISSING);
	assert_non_null(strstr(f->explain.buf, "\"Importer error status: The importer binary "
					       "and its dependencies were not found.\""));
	assert_non_null(strstr(f->fix.buf, "QdstrmImporter"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_importer_cannot_start(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	struct strbuf imp = STRBUF_INIT;
	const struct nsys_finding *f;

	load("importer-cannot-start", &c);
	read_data("importer-version-nolib", "txt", &imp);
	diagnose(&c, NULL, 0, imp.buf, &d);
	f = only(&d, NSYS_DIAG_IMPORTER_FAILED);
	assert_non_null(strstr(f->explain.buf, "An unknown error occurred."));
	assert_non_null(strstr(f->explain.buf, "(the importer needs libssh.so)"));
	assert_non_null(strstr(f->fix.buf, "put libssh.so on LD_LIBRARY_PATH"));
	nsys_diag_release(&d);
	/* without nsys's message: the .qdstrm alone is enough */
	strbuf_reset(&c.err);
	diagnose(&c, NULL, 0, imp.buf, &d);
	f = only(&d, NSYS_DIAG_IMPORTER_FAILED);
	assert_non_null(strstr(f->explain.buf, "a .qdstrm was left and no .nsys-rep"));
	nsys_diag_release(&d);
	strbuf_release(&imp);
	release(&c);
}

static void test_gate_unregistered(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("gate-unregistered", &c);
	assert_int_equal(c.n_rep + c.n_qdstrm, 0);
	/* with the program's ranges: the name is right, the env var is missing */
	diagnose(&c, prog_ranges, 4, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "'prefill@LLM'"));
	assert_non_null(strstr(f->explain.buf, "unregistered string"));
	assert_non_null(strstr(f->fix.buf, "NSYS_NVTX_PROFILER_REGISTER_ONLY=0"));
	nsys_diag_release(&d);
	/* without them: still names the env var */
	diagnose(&c, NULL, 0, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(
	    strstr(f->explain.buf, "NSYS_NVTX_PROFILER_REGISTER_ONLY=0 was not passed"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_gate_ncu_order(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("gate-ncu-order", &c);
	diagnose(&c, prog_ranges, 4, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "reads 'LLM@prefill' as range 'LLM' in domain "
					       "'prefill'"));
	assert_non_null(strstr(f->fix.buf, "--nvtx-capture=prefill@LLM"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_gate_default_domain(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("gate-default-domain", &c);
	diagnose(&c, prog_ranges, 4, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "range 'decode_all' in the default domain"));
	assert_non_null(strstr(f->explain.buf, "emits 'decode_all' only as 'decode_all@LLM'"));
	assert_non_null(strstr(f->fix.buf, "--nvtx-capture=decode_all@LLM"));
	nsys_diag_release(&d);
	/* a name the program does not emit at all */
	assert_string_equal(c.argv.v[8], "-p");
	c.argv.v[9][0] = 'X'; /* -p decode_all -> Xecode_all */
	diagnose(&c, prog_ranges, 4, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "emits no NVTX range 'Xecode_all'"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_gate_ok(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	/* stop-shutdown: report written, program killed with SIGTERM -> 143 */
	load("gate-ok-stop-shutdown", &c);
	assert_int_equal(c.exit_code, 143);
	diagnose(&c, prog_ranges, 4, NULL, &d);
	f = only(&d, NSYS_DIAG_KILLED_AT_RANGE_END);
	assert_non_null(strstr(f->fix.buf, "--capture-range-end=stop"));
	nsys_diag_release(&d);
	release(&c);
	/* stop: clean */
	load("gate-ok-stop", &c);
	diagnose(&c, prog_ranges, 4, NULL, &d);
	assert_int_equal(d.nr, 0);
	release(&c);
	load("gate-repeat", &c);
	assert_int_equal(c.n_rep, 2);
	diagnose(&c, prog_ranges, 4, NULL, &d);
	assert_int_equal(d.nr, 0);
	release(&c);
}

/* nsys 2025.3.1 on the H100 (scripts/gpu/validate-nsys.sh): a bare
 * "decode_all" (default domain) never opens; decode_all@LLM does. */
static void test_h100_2025(void **state)
{
	static const struct nsys_nvtx_range probe[] = {
	    {"LLM", "prefill"}, {"LLM", "decode_all"}, {"LLM", "decode_step"},
	    {NULL, "A"},	{NULL, "A::A1"},       {NULL, "B"},
	};
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("h100-nsys2025.3-gate-default-domain", &c);
	assert_non_null(strstr(c.out.buf, "Generated:\n\tNo reports were generated"));
	diagnose(&c, probe, 6, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->fix.buf, "--nvtx-capture=decode_all@LLM"));
	assert_null(strstr(f->explain.buf, "no report files were found"));
	nsys_diag_release(&d);
	release(&c);
	load("h100-nsys2025.3-gate-ok", &c);
	assert_int_equal(c.n_rep, 1);
	diagnose(&c, probe, 6, NULL, &d);
	assert_int_equal(d.nr, 0);
	/* the same text without the report file: missing report noticed */
	c.n_rep = 0;
	diagnose(&c, probe, 6, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "(no report files were found)"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_cuda_profiler_api(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("cuda-profiler-api", &c);
	diagnose(&c, NULL, 0, NULL, &d);
	f = only(&d, NSYS_DIAG_NO_REPORT_GATED);
	assert_non_null(strstr(f->explain.buf, "never called cudaProfilerStart()"));
	nsys_diag_release(&d);
	release(&c);
}

static void test_rejected_commands(void **state)
{
	static const struct {
		const char *name;
		enum nsys_diag_code code;
		const char *text;
	} cases[] = {
	    {"bad-capture-range", NSYS_DIAG_BAD_OPTION, "Illegal --capture-range argument: range."},
	    {"bad-capture-range-end", NSYS_DIAG_BAD_OPTION,
	     "Illegal --capture-range-end argument: bogus."},
	    {"double-dash", NSYS_DIAG_BAD_OPTION, "option is ambiguous"},
	    {"program-not-found", NSYS_DIAG_PROGRAM_NOT_FOUND,
	     "Executable not found in current directory or standard search paths"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct capture c;
		struct nsys_diag d = NSYS_DIAG_INIT;
		const struct nsys_finding *f;

		load(cases[i].name, &c);
		assert_int_equal(c.exit_code, 1);
		diagnose(&c, NULL, 0, NULL, &d);
		f = only(&d, cases[i].code);
		assert_non_null(strstr(f->explain.buf, cases[i].text));
		nsys_diag_release(&d);
		release(&c);
	}
}

/* CI saw nsys 2023.4.4 stop with exit 1, nothing on stdout and only "End of
 * file" on stderr, on a gated run: nsys failed, the gate is not to blame. */
static void test_nsys_stopped_early(void **state)
{
	static const char *const argv[] = {
	    "nsys", "profile", "--capture-range=nvtx", "--nvtx-capture=decode_all@LLM", "-o", "r",
	    "./p",  NULL};
	struct nsys_profile_outcome o = {
	    .argv = argv, .exited = 1, .exit_code = 1, .out = "", .err = "End of file\n"};
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	o.err_len = strlen(o.err);
	nsys_diag_profile(&o, &d);
	f = only(&d, NSYS_DIAG_NSYS_FAILED);
	assert_string_equal(f->explain.buf, "nsys exited with status 1 before listing any report, "
					    "so nothing was recorded; its last message: \"End of "
					    "file\"");
	nsys_diag_release(&d);
	/* the same status after nsys's own "Generated:" list is the program's:
	 * the gate never opened */
	o.out = "Generated:\n";
	o.out_len = strlen(o.out);
	nsys_diag_profile(&o, &d);
	assert_non_null(only(&d, NSYS_DIAG_NO_REPORT_GATED));
	nsys_diag_release(&d);
	/* and exit 0 without the list is not a failure of nsys either */
	o.out = "";
	o.out_len = 0;
	o.exit_code = 0;
	nsys_diag_profile(&o, &d);
	assert_non_null(only(&d, NSYS_DIAG_NO_REPORT_GATED));
	nsys_diag_release(&d);
	/* a signal ends nsys early too */
	o.exited = 0;
	o.signaled = 1;
	o.term_signal = 9;
	nsys_diag_profile(&o, &d);
	f = only(&d, NSYS_DIAG_NSYS_FAILED);
	assert_non_null(strstr(f->explain.buf, "nsys was ended by signal 9"));
	nsys_diag_release(&d);
}

static void test_output_dir_missing(void **state)
{
	struct capture c;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	load("output-dir-missing", &c);
	diagnose(&c, NULL, 0, NULL, &d);
	f = nsys_diag_find(&d, NSYS_DIAG_OUTPUT_DIR);
	assert_non_null(f);
	assert_non_null(strstr(f->explain.buf, "Failed to create '/TMP/nodir/output-dir-missing."
					       "nsys-rep': No such file or directory."));
	/* and no report where we look for it */
	assert_non_null(nsys_diag_find(&d, NSYS_DIAG_NO_REPORT));
	nsys_diag_release(&d);
	release(&c);
}

static void test_cupti_conflict_text(void **state)
{
	/* NVIDIA/TensorRT-LLM#9073: Kineto (torch profiler) inside nsys */
	static const char kineto[] = "WARNING:2025-11-11 06:36:11 2047:2047 init.cpp:174] function "
				     "cbapi->getCuptiStatus() failed with error "
				     "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)\n";
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;
	static const char *const argv[] = {"nsys", "profile", "-o", "r", "./p", NULL};
	struct nsys_profile_outcome o = {
	    .argv = argv,
	    .exited = 1,
	    .out = kineto,
	    .out_len = sizeof(kineto) - 1,
	    .err = "",
	    .n_reports = 1,
	};

	nsys_diag_profile(&o, &d);
	f = only(&d, NSYS_DIAG_CUPTI_CONFLICT);
	assert_non_null(strstr(f->explain.buf, "cbapi->getCuptiStatus() failed"));
	assert_non_null(strstr(f->fix.buf, "torch.profiler"));
	nsys_diag_release(&d);
	{
		/* EnzymeAD/Enzyme-JAX#1438: XLA's profiler under another CUPTI client */
		static const char xla[] = "cupti_error_manager.cc:221] cuptiSubscribe: error 39: "
					  "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
		nsys_diag_export_text(xla, strlen(xla), &d);
	}
	assert_non_null(nsys_diag_find(&d, NSYS_DIAG_CUPTI_CONFLICT));
	nsys_diag_release(&d);
	nsys_diag_export_text("Exportation error: Report was created in Nsight Systems version "
			      "(2026.1.2.63-1), newer than your current version "
			      "(2023.4.4.54-234433681190v0)",
			      141, &d);
	f = only(&d, NSYS_DIAG_REPORT_TOO_NEW);
	assert_non_null(strstr(f->explain.buf, "2026.1.2.63"));
	nsys_diag_release(&d);
}

static void fixture(const char *name, struct strbuf *p)
{
	strbuf_addf(p, "%s/tests/data/nsys/%s", LLMPROF_SOURCE_DIR, name);
	if (access(p->buf, R_OK))
		fail_msg("fixture %s missing", p->buf);
}

static void test_sqlite_no_kernels(void **state)
{
	struct strbuf p = STRBUF_INIT, err = STRBUF_INIT;
	struct nsys_diag d = NSYS_DIAG_INIT;
	const struct nsys_finding *f;

	/* nsys 2025.1.3 on an RTX 5060 Ti: runtime rows, no kernel table */
	fixture("nokernels-rtx5060ti-nsys2025.1.sqlite", &p);
	assert_int_equal(nsys_diag_sqlite(p.buf, &d, &err), 0);
	f = only(&d, NSYS_DIAG_NO_KERNELS);
	assert_non_null(strstr(f->explain.buf, "no CUPTI_ACTIVITY_KIND_KERNEL table"));
	assert_non_null(strstr(f->explain.buf, "CUDA API calls were"));
	nsys_diag_release(&d);
	strbuf_reset(&p);
	/* kernels present: nothing to say */
	fixture("trt-resnet-rtx3090-nsys2023.1.sqlite", &p);
	assert_int_equal(nsys_diag_sqlite(p.buf, &d, &err), 0);
	assert_int_equal(d.nr, 0);
	strbuf_reset(&p);
	fixture("nvtx-probe-h100-nsys2025.3.sqlite", &p);
	assert_int_equal(nsys_diag_sqlite(p.buf, &d, &err), 0);
	assert_int_equal(d.nr, 0);
	/* not SQLite */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/tests/data/nsys/nvtx-cpu-prog.c", LLMPROF_SOURCE_DIR);
	assert_int_equal(nsys_diag_sqlite(p.buf, &d, &err), -1);
	assert_non_null(strstr(err.buf, "is not a readable SQLite database"));
	strbuf_release(&p);
	strbuf_release(&err);
}

/* No public export with --cuda-graph-trace=graph was at hand, so this builds
 * the two tables the check reads, with the column names nsys uses
 * (CUPTI_ACTIVITY_KIND_GRAPH_TRACE: start, end, graphId, graphExecId,
 * correlationId -- as read by public nsys analyzers; runtime rows name
 * cudaGraphLaunch_v10000 through StringIds). */
static void test_sqlite_graphs(void **state)
{
	char path[] = "/tmp/llmprof-graph-XXXXXX";
	int fd = mkstemp(path);
	sqlite3 *db;
	struct nsys_diag d = NSYS_DIAG_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct nsys_finding *f;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(
		db,
		"CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO StringIds VALUES(1,'cudaGraphLaunch_v10000'),(2,'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT,"
		" globalTid INT, correlationId INT, nameId INT, returnValue INT, callchainId INT);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1,2,1,1,10,1,0,NULL),"
		"(3,4,1,1,11,1,0,NULL);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, correlationId INT,"
		" shortName INT, graphNodeId INT);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(5,6,1,2,NULL);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE(start INT, end INT, deviceId INT,"
		" graphId INT, graphExecId INT, correlationId INT);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
		"VALUES(7,9,0,1,1,10),(10,12,0,1,1,11);",
		NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(nsys_diag_sqlite(path, &d, &err), 0);
	f = only(&d, NSYS_DIAG_GRAPHS_NOT_NODES);
	assert_non_null(
	    strstr(f->explain.buf, "2 CUDA graph launches were traced as single items"));
	assert_non_null(strstr(f->fix.buf, "cuda_graph_trace=node"));
	nsys_diag_release(&d);
	/* older nsys: no GRAPH_TRACE table, graph launches, no kernel with a node id */
	assert_int_equal(
	    sqlite3_exec(db, "DROP TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(nsys_diag_sqlite(path, &d, &err), 0);
	f = only(&d, NSYS_DIAG_GRAPHS_NOT_NODES);
	assert_non_null(strstr(f->explain.buf, "2 CUDA graph launches but no kernel carries"));
	nsys_diag_release(&d);
	/* node tracing: kernels carry graph node ids -> fine */
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
				      "(7,8,10,2,42)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(nsys_diag_sqlite(path, &d, &err), 0);
	assert_int_equal(d.nr, 0);
	sqlite3_close(db);
	unlink(path);
	strbuf_release(&err);
}

static void test_expr_split(void **state)
{
	struct strbuf r = STRBUF_INIT, dm = STRBUF_INIT;

	nsys_nvtx_expr_split("decode_all@LLM", &r, &dm);
	assert_string_equal(r.buf, "decode_all");
	assert_string_equal(dm.buf, "LLM");
	strbuf_reset(&r);
	strbuf_reset(&dm);
	nsys_nvtx_expr_split("a@b@c", &r, &dm); /* the last '@' counts */
	assert_string_equal(r.buf, "a@b");
	assert_string_equal(dm.buf, "c");
	strbuf_reset(&r);
	strbuf_reset(&dm);
	nsys_nvtx_expr_split("LLM\\@prefill", &r, &dm);
	assert_string_equal(r.buf, "LLM@prefill");
	assert_string_equal(dm.buf, "");
	strbuf_release(&r);
	strbuf_release(&dm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_importer_missing),
	    cmocka_unit_test(test_importer_cannot_start),
	    cmocka_unit_test(test_gate_unregistered),
	    cmocka_unit_test(test_gate_ncu_order),
	    cmocka_unit_test(test_gate_default_domain),
	    cmocka_unit_test(test_gate_ok),
	    cmocka_unit_test(test_h100_2025),
	    cmocka_unit_test(test_cuda_profiler_api),
	    cmocka_unit_test(test_rejected_commands),
	    cmocka_unit_test(test_output_dir_missing),
	    cmocka_unit_test(test_cupti_conflict_text),
	    cmocka_unit_test(test_nsys_stopped_early),
	    cmocka_unit_test(test_sqlite_no_kernels),
	    cmocka_unit_test(test_sqlite_graphs),
	    cmocka_unit_test(test_expr_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
