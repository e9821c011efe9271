/* fuzz-elf-symbols.c: libFuzzer target for the ELF symbol reading of the
 * CPU-sample symbolizer (src/trace/symbolize.c): the input is the file a
 * tracer log names as a loaded object (any bytes: a truncated, hostile or
 * non-ELF file at that path), looked up at addresses it gives.
 *
 *   scripts/fuzz.sh 60 elf-symbols
 *
 * The input is written to one temporary file per process (the symbolizer
 * maps files by path), recorded as an object covering every address, and
 * looked up at its entry point, at each of the first 16 u64 words after
 * the ELF header (as addresses, plain and as return addresses) and at 0.
 * Properties besides memory safety: every answer names the object and a
 * function, the same address answers the same twice (the cache), and a
 * function that is not a symbol is "<file>+0x<offset>". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/symbolize.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[] = "/tmp/llmprof-fuzz-elf-XXXXXX";
static int made;

static void remove_file(void)
{
	unlink(path);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void check(struct symbolizer *s, uint64_t addr, int ret)
{
	struct sym_answer a, b;
	const char *file = strrchr(path, '/') + 1;

	/* the object covers [0, UINT64_MAX): the last address, looked up as
	 * itself (not as a return address, which looks one byte before), lies
	 * past its end and is rightly in no object */
	if (!ret && addr == UINT64_MAX)
		return;
	a = symbolizer_lookup(s, addr, ret);
	b = symbolizer_lookup(s, addr, ret);
	if (strcmp(a.library, file) || !a.function || !*a.function ||
	    strcmp(a.function, b.function) || a.named != b.named ||
	    (!a.named && strncmp(a.function, file, strlen(file)))) {
		fprintf(stderr, "elf-symbols: 0x%llx: '%s' in '%s'\n", (unsigned long long)addr,
			a.function ? a.function : "(null)", a.library);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolizer s = {0};
	FILE *fp;

	if (!made) {
		int fd = mkstemp(path);

		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_file);
		made = 1;
	}
	fp = fopen(path, "wb");
	if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp))
		abort();
	symbolizer_add(&s, 0, 0, UINT64_MAX, path);
	check(&s, 0, 0);
	if (size >= 32)
		check(&s, le64(data + 24), 0); /* e_entry */
	for (size_t off = 64; off + 8 <= size && off < 64 + 16 * 8; off += 8) {
		check(&s, le64(data + off), 0);
		check(&s, le64(data + off), 1);
	}
	symbolizer_release(&s);
	return 0;
}
