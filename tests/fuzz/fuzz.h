/* fuzz.h: what the fuzz targets share.
 *
 * A target whose input drives several expensive operations (the seven nsys
 * stats reports, the log converter's passes, the report renderers) runs one
 * of them per execution in the libFuzzer build: about as many executions
 * per operation as before, and many more executions in all. Which one is a
 * function of the whole input (FNV-1a of its bytes), not of one byte: in an
 * SQLite file or a tracer log no byte is both free and reached often by
 * mutations, and a hash gives every mutant of a corpus unit a fresh draw.
 * The same input always picks the same operation, so a crash replays.
 *
 * Every other build (replay-main.c under ctest: gcc, ASan/UBSan, valgrind)
 * runs every operation on every input, so the seed corpus and each
 * regression input still check all of them. */
#ifndef LLMPROF_FUZZ_H
#define LLMPROF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_ALL (~0u)

#if defined(__clang__) && defined(LLMPROF_FUZZ_PICK)
/* no coverage callbacks in the hash loop, which cost more than the hash
 * (noinline: inlined, the loop would take its caller's instrumentation) */
#define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#else
#define FUZZ_NO_COVERAGE
#endif

/* The operation (< nops) this input runs, or FUZZ_ALL outside libFuzzer. */
FUZZ_NO_COVERAGE static inline unsigned fuzz_pick(const uint8_t *data, size_t size, unsigned nops)
{
#ifdef LLMPROF_FUZZ_PICK
	uint64_t h = 14695981039346656037ull;
	size_t i = 0;

	/* a word at a time: inputs reach 100 KB */
	for (; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, data + i, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; i < size; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	h ^= h >> 32;
	return (unsigned)(h % nops);
#else
	(void)data;
	(void)size;
	(void)nops;
	return FUZZ_ALL;
#endif
}

static inline int fuzz_runs(unsigned pick, unsigned op)
{
	return pick == FUZZ_ALL || pick == op;
}

#endif
