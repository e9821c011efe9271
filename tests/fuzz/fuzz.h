/* fuzz.h: what the fuzz targets share.
 *
 * A target whose input drives several expensive operations (sqlite: the
 * seven nsys stats reports and the timeline analysis; report: the
 * renderers; ncu-csv: the raw page, the details page, the progress parser)
 * runs one of them per execution in the libFuzzer build: each operation
 * runs about as often per second as before, and the target does many more
 * executions. Which one is a function of the whole input (an FNV-1a-style
 * hash of its 8-byte words), not of one byte: in an SQLite file or an ncu
 * CSV no byte is both free and often reached by mutations, and a hash
 * gives every mutant of a corpus unit a fresh draw. The same input always
 * picks the same operation, so a crash replays with the fuzz binary.
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

#ifdef SQLITE_VERSION
/* For targets that include <sqlite3.h> first (fuzz.h is included by one
 * file per target). Before SQLite's first use; neither setting changes what
 * SQLite reads or stores: no memory statistics (a global mutex and a
 * malloc_usable_size() on every allocation, both slow under ASan), and no
 * bulk page-cache allocation per connection (20 pages at once: 1.3 MB with
 * the converter's 64 KiB pages, fresh memory on every input while ASan's
 * quarantine holds the last). Each page becomes a heap block of its own,
 * which ASan sees better. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	return 0;
}
#endif

#endif
