/* test-symbolize.c: CPU-sample addresses to library and function
 * (trace/symbolize.h), on this test's own executable and libc as loaded:
 * a known function by its address and by a return address inside it,
 * demangled names, an address no object covers, the categories. */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "trace/symbolize.h"

__attribute__((noinline)) int symbolize_probe_fn(int x);
__attribute__((noinline)) int symbolize_probe_fn(int x)
{
	return x * 3 + 1;
}

/* The objects of this process, as the tracer writes them. */
static int add_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct symbolizer *s = arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	char exe[4096];
	const char *path = info->dlpi_name;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (!path || !*path) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		path = exe;
	}
	if (hi > lo)
		symbolizer_add(s, info->dlpi_addr, lo, hi, path);
	return 0;
}

static void test_own_function(void **state)
{
	struct symbolizer s;
	struct sym_answer a;
	uint64_t fn = (uint64_t)(uintptr_t)&symbolize_probe_fn;

	(void)state;
	memset(&s, 0, sizeof(s));
	dl_iterate_phdr(add_cb, &s);
	a = symbolizer_lookup(&s, fn, 0);
	assert_string_equal(a.function, "symbolize_probe_fn");
	assert_string_equal(a.library, "test-symbolize");
	assert_string_equal(a.category, "other");
	/* a return address just past a call at the function's end is looked
	 * up one byte earlier: fn + 1 as a return address is fn itself */
	a = symbolizer_lookup(&s, fn + 1, 1);
	assert_string_equal(a.function, "symbolize_probe_fn");
	/* cached answers are the same */
	a = symbolizer_lookup(&s, fn, 0);
	assert_string_equal(a.function, "symbolize_probe_fn");
	/* libc's exported strlen */
	a = symbolizer_lookup(&s, (uint64_t)(uintptr_t)&getpid, 0);
	assert_string_equal(a.category, "libc/kernel");
	assert_non_null(strstr(a.library, "libc"));
	/* nothing there */
	a = symbolizer_lookup(&s, 16, 0);
	assert_string_equal(a.library, "(unknown)");
	assert_string_equal(a.function, "(unknown)");
	symbolizer_release(&s);
	assert_int_equal(symbolize_probe_fn(1), 4);
}

/* An object whose file cannot be read: LIB+0xOFFSET; in the Python
 * interpreter: "Python interpreter". */
static void test_unreadable(void **state)
{
	struct symbolizer s;
	struct sym_answer a;

	(void)state;
	memset(&s, 0, sizeof(s));
	symbolizer_add(&s, 0x10000, 0x10000, 0x20000, "/nonexistent/libfoo.so.1");
	symbolizer_add(&s, 0x30000, 0x30000, 0x40000, "/nonexistent/libpython3.11.so.1.0");
	a = symbolizer_lookup(&s, 0x12345, 0);
	assert_string_equal(a.library, "libfoo.so.1");
	assert_string_equal(a.function, "libfoo.so.1+0x2345");
	a = symbolizer_lookup(&s, 0x30010, 1);
	assert_string_equal(a.function, "Python interpreter");
	assert_string_equal(a.category, "Python interpreter");
	/* a log naming a FIFO: read as unreadable, never waited on */
	{
		char dir[] = "/tmp/test-symbolize-XXXXXX", path[64];
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/libfifo.so", dir);
		assert_int_equal(mkfifo(path, 0600), 0);
		symbolizer_add(&s, 0x50000, 0x50000, 0x60000, path);
		a = symbolizer_lookup(&s, 0x50010, 0);
		assert_string_equal(a.function, "libfifo.so+0x10");
		unlink(path);
		rmdir(dir);
	}
	/* the same object again changes nothing */
	symbolizer_add(&s, 0x10000, 0x10000, 0x20000, "/nonexistent/libfoo.so.1");
	assert_int_equal(s.nobj, 3);
	symbolizer_release(&s);
}

static void test_categories(void **state)
{
	(void)state;
	assert_string_equal(sample_category("libcuda.so.1"), "CUDA driver");
	assert_string_equal(sample_category("libcudart.so.12"), "CUDA libraries");
	assert_string_equal(sample_category("libcublasLt.so.12"), "CUDA libraries");
	assert_string_equal(sample_category("libcudnn_graph.so.9"), "CUDA libraries");
	assert_string_equal(sample_category("libtorch_cpu.so"), "PyTorch");
	assert_string_equal(sample_category("libc10.so"), "PyTorch");
	assert_string_equal(sample_category("libpython3.11.so.1.0"), "Python interpreter");
	assert_string_equal(sample_category("python3.11"), "Python interpreter");
	assert_string_equal(sample_category("libc.so.6"), "libc/kernel");
	assert_string_equal(sample_category("linux-vdso.so.1"), "libc/kernel");
	assert_string_equal(sample_category("ld-linux-x86-64.so.2"), "libc/kernel");
	assert_string_equal(sample_category("libllmprof_tracer.so"), "llmprof tracer");
	assert_string_equal(sample_category("libfoo.so"), "other");
	assert_string_equal(sample_category(NULL), "other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_own_function),
	    cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_categories),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
