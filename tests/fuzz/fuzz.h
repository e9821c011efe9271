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
#include <stdlib.h>
#include <sys/mman.h>

#if defined(LLMPROF_FUZZ_PICK) && defined(FUZZ_SQLITE_PLAIN_HEAP)
/*
 * SQLite's own heap outside ASan, for a target that only writes through
 * SQLite (fuzz-tracelog: the converter binds values and never reads SQLite
 * memory back). There, three quarters of an execution was SQLite creating
 * and parsing the nsys schema through ASan's allocator and its 64 KiB page
 * fills, and none of it checked our code. SQLite is not instrumented, so
 * ASan saw only its block bounds; our code stays fully instrumented.
 * What LSan would have caught (a connection or statement we forget to
 * close) is checked more strictly instead: the blocks live after an
 * execution must be those live before it (fuzz_sqlite_heap_live()).
 * Replay builds (ctest, ASan, valgrind) keep the ordinary heap, and so
 * does a fuzz run with FUZZ_SQLITE_ASAN_HEAP=1 in its environment.
 *
 * Power-of-two classes of 32 B to 1 MiB, carved from 64 MiB mappings and
 * recycled through free lists; larger blocks come from malloc. A 16-byte
 * header holds the class and the size asked for.
 */
#define FUZZ_HEAP_MIN 5
#define FUZZ_HEAP_MAX 20
#define FUZZ_HEAP_ARENA ((size_t)64 << 20)

struct fuzz_heap_hdr {
	int cls, size;
	long pad;
};

static void *fuzz_heap_free_list[FUZZ_HEAP_MAX + 1];
static char *fuzz_heap_next, *fuzz_heap_end;
static size_t fuzz_heap_nlive;

static int fuzz_heap_class(int n)
{
	int c = FUZZ_HEAP_MIN;

	while (c <= FUZZ_HEAP_MAX && ((size_t)1 << c) < (size_t)n + sizeof(struct fuzz_heap_hdr))
		c++;
	return c;
}

static void *fuzz_heap_malloc(int n)
{
	int c = fuzz_heap_class(n);
	struct fuzz_heap_hdr *h;

	if (c > FUZZ_HEAP_MAX) {
		h = malloc((size_t)n + sizeof(*h));
	} else if (fuzz_heap_free_list[c]) {
		h = fuzz_heap_free_list[c];
		fuzz_heap_free_list[c] = *(void **)h;
	} else {
		if ((size_t)(fuzz_heap_end - fuzz_heap_next) < ((size_t)1 << c)) {
			/* the old arena's tail is abandoned: at most 1 MiB */
			fuzz_heap_next = mmap(NULL, FUZZ_HEAP_ARENA, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (fuzz_heap_next == MAP_FAILED)
				abort();
			fuzz_heap_end = fuzz_heap_next + FUZZ_HEAP_ARENA;
		}
		h = (struct fuzz_heap_hdr *)fuzz_heap_next;
		fuzz_heap_next += (size_t)1 << c;
	}
	if (!h)
		return NULL;
	h->cls = c;
	h->size = n;
	fuzz_heap_nlive++;
	return h + 1;
}

static void fuzz_heap_free(void *p)
{
	struct fuzz_heap_hdr *h = (struct fuzz_heap_hdr *)p - 1;
	int c;

	if (!p)
		return;
	fuzz_heap_nlive--;
	c = h->cls;
	if (c > FUZZ_HEAP_MAX) {
		free(h);
		return;
	}
	/* the link overwrites the header */
	*(void **)h = fuzz_heap_free_list[c];
	fuzz_heap_free_list[c] = h;
}

static int fuzz_heap_size(void *p)
{
	return ((struct fuzz_heap_hdr *)p - 1)->size;
}

static void *fuzz_heap_realloc(void *p, int n)
{
	struct fuzz_heap_hdr *h = (struct fuzz_heap_hdr *)p - 1;
	void *q;

	if (h->cls <= FUZZ_HEAP_MAX && h->cls == fuzz_heap_class(n)) {
		h->size = n;
		return p;
	}
	q = fuzz_heap_malloc(n);
	if (q) {
		memcpy(q, p, (size_t)(h->size < n ? h->size : n));
		fuzz_heap_free(p);
	}
	return q;
}

static int fuzz_heap_roundup(int n)
{
	return (n + 7) & ~7;
}

static int fuzz_heap_init(void *arg)
{
	(void)arg;
	return 0;
}

static void fuzz_heap_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods fuzz_heap_methods = {
    fuzz_heap_malloc,  fuzz_heap_free, fuzz_heap_realloc,  fuzz_heap_size,
    fuzz_heap_roundup, fuzz_heap_init, fuzz_heap_shutdown, NULL,
};

static inline size_t fuzz_sqlite_heap_live(void)
{
	return fuzz_heap_nlive;
}
#else
static inline size_t fuzz_sqlite_heap_live(void)
{
	return 0;
}
#endif

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
#if defined(LLMPROF_FUZZ_PICK) && defined(FUZZ_SQLITE_PLAIN_HEAP)
	/* FUZZ_SQLITE_ASAN_HEAP=1 keeps ASan's heap (bench/fuzz-tracelog-heap.sh) */
	if (!getenv("FUZZ_SQLITE_ASAN_HEAP"))
		sqlite3_config(SQLITE_CONFIG_MALLOC, &fuzz_heap_methods);
#endif
	return 0;
}
#endif

#endif
