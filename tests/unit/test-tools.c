/* test-tools.c: tool_find (nsight/tools.h), the one place llmprof finds nsys,
 * ncu, the tracer library, the built-in workloads and llmprof-calibrate:
 * the explicit setting and its errors, PATH, the known locations under
 * $LLMPROF_SYSROOT (newest version first), the checks that reject a
 * candidate, and the candidates passed over. Fake tools are shell scripts
 * in a temporary folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "nsight/tools.h"

static char tmpl[] = "/tmp/llmprof-tools-XXXXXX";
static const char *dir;
static char *saved_path; /* PATH before the tests replaced it */

/* Writes an executable script rel (under dir) with body. */
static void script(const char *rel, const char *body)
{
	struct strbuf p = STRBUF_INIT, d = STRBUF_INIT, err = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s/%s", dir, rel);
	strbuf_add(&d, p.buf, (size_t)(strrchr(p.buf, '/') - p.buf));
	assert_int_equal(mkdir_p(d.buf, &err), 0);
	f = fopen(p.buf, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(p.buf, 0755), 0);
	strbuf_release(&p);
	strbuf_release(&d);
	strbuf_release(&err);
}

static const char nsys_ok[] = "echo 'NVIDIA Nsight Systems version 2025.3.1.90-253135822126v0'";
static const char nsys_old[] = "echo 'NVIDIA Nsight Systems version 2019.5.1.58-abcdef'";
static const char ncu_ok[] = "echo 'Version 2025.3.1.0 (build 36398880) (public-release)'";

static int setup(void **state)
{
	(void)state;
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	/* nothing on PATH, nothing known, unless a test puts it there */
	saved_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", "/nonexistent-llmprof", 1);
	setenv("LLMPROF_SYSROOT", dir, 1);
	unsetenv("LLMPROF_TRACER_LIB");
	unsetenv("LLMPROF_TRACER");
	unsetenv("LLMPROF_CALIBRATE");
	return 0;
}

static int teardown(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	setenv("PATH", saved_path, 1);
	free(saved_path);
	strbuf_addf(&sb, "rm -rf '%s'", dir);
	assert_int_equal(system(sb.buf), 0);
	strbuf_release(&sb);
	return 0;
}

static void test_not_found(void **state)
{
	struct tool_found f;
	struct strbuf want = STRBUF_INIT;

	(void)state;
	tool_find(TOOL_NSYS, NULL, &f);
	assert_int_equal(f.problem, TOOL_NOT_FOUND);
	assert_null(f.path);
	strbuf_addf(&want,
		    "nsys not found on PATH nor at %s/opt/nvidia/nsight-systems/*/bin/nsys, "
		    "%s/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys, "
		    "%s/usr/local/cuda/bin/nsys",
		    dir, dir, dir);
	assert_string_equal(f.why.buf, want.buf);
	assert_non_null(strstr(f.fix.buf, "pipeline.nsys.path"));
	tool_found_release(&f);
	strbuf_release(&want);
}

static void test_explicit(void **state)
{
	struct tool_found f;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* a wrong setting is the only candidate, and the error names it */
	tool_find(TOOL_NCU, "/nonexistent/ncu", &f);
	assert_int_equal(f.problem, TOOL_NOT_FOUND);
	assert_string_equal(f.why.buf,
			    "pipeline.ncu.path='/nonexistent/ncu' is not an executable file");
	assert_string_equal(f.fix.buf,
			    "set pipeline.ncu.path to the ncu executable, or null to search PATH");
	tool_found_release(&f);
	tool_find(TOOL_NSYS, dir, &f);
	assert_int_equal(f.problem, TOOL_NOT_RUNNABLE);
	strbuf_addf(&sb,
		    "pipeline.nsys.path='%s' is a directory; give the nsys file (e.g. %s/nsys)",
		    dir, dir);
	assert_string_equal(f.why.buf, sb.buf);
	tool_found_release(&f);
	tool_find(TOOL_NSYS, "nsys-llmprof-none", &f);
	assert_string_equal(f.why.buf, "pipeline.nsys.path='nsys-llmprof-none' is not on PATH");
	tool_found_release(&f);
	/* not NVIDIA's nsys: --version prints nothing, or fails */
	script("x/true", "exit 0");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/x/true", dir);
	tool_find(TOOL_NSYS, sb.buf, &f);
	assert_int_equal(f.problem, TOOL_NOT_RUNNABLE);
	assert_non_null(strstr(f.why.buf, "--version' printed no version"));
	tool_found_release(&f);
	/* ncu goes on without a version: the capture will say */
	tool_find(TOOL_NCU, sb.buf, &f);
	assert_int_equal(f.problem, TOOL_OK);
	assert_non_null(strstr(f.note.buf, "--version' printed no version"));
	tool_found_release(&f);
	script("x/fail", "exit 3");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/x/fail", dir);
	tool_find(TOOL_NCU, sb.buf, &f);
	assert_int_equal(f.problem, TOOL_NOT_RUNNABLE);
	strbuf_addstr(&sb, " --version' exited with status 3");
	assert_string_equal(f.why.buf + 1, sb.buf);
	tool_found_release(&f);
	/* the tracer's variable: a missing file, and the deprecated name */
	setenv("LLMPROF_TRACER_LIB", "/nonexistent.so", 1);
	tool_find(TOOL_TRACER, NULL, &f);
	assert_string_equal(f.why.buf,
			    "LLMPROF_TRACER_LIB='/nonexistent.so' is not a readable file");
	assert_int_equal(f.deprecated.len, 0);
	tool_found_release(&f);
	unsetenv("LLMPROF_TRACER_LIB");
	setenv("LLMPROF_TRACER", "/etc/hostname", 1);
	tool_find(TOOL_TRACER, NULL, &f);
	assert_int_equal(f.problem, TOOL_OK);
	assert_string_equal(f.path, "/etc/hostname");
	assert_string_equal(f.source, "LLMPROF_TRACER");
	assert_string_equal(f.deprecated.buf,
			    "LLMPROF_TRACER is deprecated; set LLMPROF_TRACER_LIB instead");
	tool_found_release(&f);
	unsetenv("LLMPROF_TRACER");
	strbuf_release(&sb);
}

static void test_known_locations(void **state)
{
	struct tool_found f;
	struct strbuf want = STRBUF_INIT, path = STRBUF_INIT;

	(void)state;
	/* two Nsight Compute versions, each with an nsys: the newest first;
	 * 2025.10 is newer than 2025.9 */
	script("opt/nvidia/nsight-compute/2025.9.0/host/target-linux-x64/nsys", nsys_ok);
	script("opt/nvidia/nsight-compute/2025.9.0/host/linux-desktop-glibc_2_11_3-x64/"
	       "QdstrmImporter",
	       "exit 0");
	script("opt/nvidia/nsight-compute/2025.10.0/host/target-linux-x64/nsys", nsys_ok);
	tool_find(TOOL_NSYS, NULL, &f);
	/* the newest has no importer: passed over for the older one */
	assert_int_equal(f.problem, TOOL_OK);
	strbuf_addf(&want, "%s/opt/nvidia/nsight-compute/2025.9.0/host/target-linux-x64/nsys", dir);
	assert_string_equal(f.path, want.buf);
	assert_string_equal(f.source, "known location");
	assert_string_equal(f.version, "2025.3.1.90-253135822126v0");
	assert_non_null(strstr(f.importer, "/linux-desktop-glibc_2_11_3-x64/QdstrmImporter"));
	assert_non_null(strstr(f.passed_over.buf, "2025.10.0/host/target-linux-x64/nsys (nsys "
						  "2025.3.1.90-253135822126v0 has no "
						  "QdstrmImporter next to it"));
	strbuf_reset(&want);
	tool_found_describe(&f, &want);
	assert_true(strstr(want.buf, "/2025.9.0/host/target-linux-x64/nsys (2025.3.1.90-"
				     "253135822126v0); passed over ") != NULL);
	tool_found_release(&f);

	/* PATH comes before the known locations, even when both work; an
	 * explicit setting before PATH */
	script("bin/nsys", nsys_ok);
	script("bin/QdstrmImporter", "exit 0");
	strbuf_addf(&path, "%s/bin", dir);
	setenv("PATH", path.buf, 1);
	tool_find(TOOL_NSYS, NULL, &f);
	assert_int_equal(f.problem, TOOL_OK);
	assert_string_equal(f.source, "PATH");
	assert_string_equal(f.passed_over.buf, "");
	tool_found_release(&f);

	/* too old on PATH: rejected, the known one used, the old one named */
	script("bin/nsys", nsys_old);
	tool_find(TOOL_NSYS, NULL, &f);
	assert_int_equal(f.problem, TOOL_OK);
	assert_string_equal(f.source, "known location");
	assert_non_null(strstr(f.passed_over.buf, "bin/nsys (nsys 2019.5.1.58-abcdef is older than "
						  "2023.1, the oldest llmprof supports"));
	tool_found_release(&f);
	/* and with pipeline.nsys.path, nothing else is tried */
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/bin/nsys", dir);
	tool_find(TOOL_NSYS, want.buf, &f);
	assert_int_equal(f.problem, TOOL_TOO_OLD);
	assert_string_equal(f.source, "pipeline.nsys.path");
	assert_non_null(strstr(f.fix.buf, "install Nsight Systems 2023.1 or newer"));
	tool_found_release(&f);

	/* ncu: /usr/local/cuda/bin/ncu under the sysroot */
	setenv("PATH", "/nonexistent-llmprof", 1);
	script("usr/local/cuda/bin/ncu", ncu_ok);
	tool_find(TOOL_NCU, NULL, &f);
	assert_int_equal(f.problem, TOOL_OK);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/usr/local/cuda/bin/ncu", dir);
	assert_string_equal(f.path, want.buf);
	assert_string_equal(f.version, "2025.3.1.0 (build 36398880) (public-release)");
	tool_found_release(&f);
	strbuf_release(&want);
	strbuf_release(&path);
}

static void test_importer_broken(void **state)
{
	struct tool_found f;
	struct strbuf p = STRBUF_INIT;

	(void)state;
	/* the importer starts but a library is missing (its real message) */
	script("imp/target/nsys", nsys_ok);
	script("imp/target/QdstrmImporter",
	       "echo \"$0: error while loading shared libraries: libdw.so.1: cannot open shared "
	       "object file: No such file or directory\" >&2; exit 127");
	strbuf_addf(&p, "%s/imp/target/nsys", dir);
	tool_find(TOOL_NSYS, p.buf, &f);
	assert_int_equal(f.problem, TOOL_IMPORTER_BROKEN);
	assert_string_equal(f.why.buf, "nsys's importer cannot start: libdw.so.1 is missing, so "
				       "nsys leaves a .qdstrm and no report");
	assert_non_null(strstr(f.fix.buf, "put libdw.so.1 on LD_LIBRARY_PATH"));
	tool_found_release(&f);
	strbuf_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_not_found),
	    cmocka_unit_test(test_explicit),
	    cmocka_unit_test(test_known_locations),
	    cmocka_unit_test(test_importer_broken),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
