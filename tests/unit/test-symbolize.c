/* test-symbolize.c: CPU-sample addresses to library and function
 * (trace/symbolize.h), on this test's own executable and libc as loaded:
 * a known function by its address and by a return address inside it,
 * demangled names, an address no object covers, the categories, and
 * which frame of a stack a sample is attributed to. */
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
	assert_int_equal(a.named, 1);
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
	assert_int_equal(a.named, 0);
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
	assert_int_equal(a.named, 0);
	a = symbolizer_lookup(&s, 0x30010, 1);
	assert_string_equal(a.function, "Python interpreter");
	assert_int_equal(a.named, 1);
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

/* The lookup cache keys each (address, as a return address) exactly: two
 * addresses that differ only in the top bit are two answers, and the
 * highest address as a return address is cached like any other (it once
 * hashed to the empty-slot key: a leak and a second lookup each time). */
static void test_cache_keys(void **state)
{
	struct symbolizer s;
	struct sym_answer a;

	(void)state;
	memset(&s, 0, sizeof(s));
	symbolizer_add(&s, 0, 0, UINT64_MAX, "/nonexistent/libwide.so");
	a = symbolizer_lookup(&s, 0x10, 0);
	assert_string_equal(a.function, "libwide.so+0x10");
	a = symbolizer_lookup(&s, 0x8000000000000010ull, 0);
	assert_string_equal(a.function, "libwide.so+0x8000000000000010");
	a = symbolizer_lookup(&s, 0x10, 0);
	assert_string_equal(a.function, "libwide.so+0x10");
	a = symbolizer_lookup(&s, UINT64_MAX, 1);
	assert_string_equal(a.function, "libwide.so+0xfffffffffffffffe");
	a = symbolizer_lookup(&s, UINT64_MAX, 1);
	assert_string_equal(a.function, "libwide.so+0xfffffffffffffffe");
	assert_int_equal(s.ncache, 3);
	/* past the object's end: in none */
	a = symbolizer_lookup(&s, UINT64_MAX, 0);
	assert_string_equal(a.library, "(unknown)");
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

/* A frame of library lib: function fn, named unless it reads LIB+0x... */
static struct sym_answer fr(const char *lib, const char *fn)
{
	struct sym_answer a = {lib, fn, sample_category(lib), strstr(fn, "+0x") == NULL};
	return a;
}

/* Stacks as the H100 recorded them: a system call or libc routine made by
 * libcuda is the driver's, named by the driver entry point above it. */
static void test_attribute(void **state)
{
	struct sym_answer f[40];
	size_t n = 0, at, fn;
	char name[32][32];

	(void)state;
	/* ioctl <- 9 unnamed libcuda frames <- cuInit <- libcudart */
	f[n++] = fr("libc.so.6", "ioctl");
	for (int i = 0; i < 9; i++) {
		snprintf(name[i], sizeof(name[i]), "libcuda.so.1+0x48bc%02x", i);
		f[n++] = fr("libcuda.so.1", name[i]);
	}
	f[n++] = fr("libcuda.so.1", "cuInit");
	f[n++] = fr("libcudart.so.13", "cudaGetDeviceCount");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 1);
	assert_string_equal(f[at].category, "CUDA driver");
	assert_string_equal(f[fn].function, "cuInit");
	assert_string_equal(f[fn].library, "libcuda.so.1");

	/* the same without the name: the first driver frame */
	n = 10;
	f[n++] = fr("libcudart.so.13", "cudaGetDeviceCount");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 1);
	assert_int_equal(fn, 1);
	assert_string_equal(f[fn].function, "libcuda.so.1+0x48bc00");

	/* libc frames and the tracer between are passed over; libcudart's
	 * own entry point above pthread_once names it */
	n = 0;
	f[n++] = fr("linux-vdso.so.1", "linux-vdso.so.1+0xb66");
	f[n++] = fr("libcudart.so.13", "libcudart.so.13+0x36844");
	f[n++] = fr("libc.so.6", "__pthread_once_slow");
	f[n++] = fr("libllmprof_tracer.so", "tracer_api_enter");
	f[n++] = fr("libcudart.so.13", "cudaGetDeviceCount");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 1);
	assert_int_equal(fn, 4);
	assert_string_equal(f[at].category, "CUDA libraries");

	/* another library stops the climb: PyTorch's unnamed frame stays */
	n = 0;
	f[n++] = fr("libc.so.6", "memcpy");
	f[n++] = fr("libtorch_cpu.so", "libtorch_cpu.so+0x1000");
	f[n++] = fr("libpython3.11.so.1.0", "Python interpreter");
	f[n++] = fr("libtorch_cpu.so", "at::empty");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 1);
	assert_int_equal(fn, 1);
	assert_string_equal(f[at].category, "PyTorch");

	/* the climb stops SAMPLE_NAME_CLIMB frames up */
	n = 0;
	for (int i = 0; i <= SAMPLE_NAME_CLIMB; i++) {
		snprintf(name[i], sizeof(name[i]), "libcuda.so.1+0x%x", 0x100 + i);
		f[n++] = fr("libcuda.so.1", name[i]);
	}
	f[n++] = fr("libcuda.so.1", "cuLaunchKernel");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 0);
	assert_int_equal(fn, 0);
	/* one unnamed frame fewer: the name SAMPLE_NAME_CLIMB frames up */
	memmove(&f[1], &f[2], (n - 2) * sizeof(f[0]));
	n--;
	at = sample_attribute(f, n, &fn);
	assert_int_equal(fn, (size_t)SAMPLE_NAME_CLIMB);
	assert_string_equal(f[fn].function, "cuLaunchKernel");

	/* a system-only stack is libc/kernel, at its leaf */
	n = 0;
	f[n++] = fr("libc.so.6", "libc.so.6+0x1a1efa");
	f[n++] = fr("libc.so.6", "_IO_file_fopen");
	f[n++] = fr("ld-linux-x86-64.so.2", "_dl_catch_exception");
	f[n++] = fr("libllmprof_tracer.so", "tracer_flush");
	at = sample_attribute(f, n, &fn);
	assert_int_equal(at, 0);
	assert_string_equal(f[at].category, "libc/kernel");
	assert_string_equal(f[fn].function, "_IO_file_fopen");

	/* the leaf only, and nothing */
	at = sample_attribute(f, 1, &fn);
	assert_int_equal(at, 0);
	assert_int_equal(fn, 0);
	at = sample_attribute(f, 0, &fn);
	assert_int_equal(at, 0);
	assert_int_equal(fn, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_own_function), cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_cache_keys),	 cmocka_unit_test(test_categories),
	    cmocka_unit_test(test_attribute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
