/* symbolize.h: addresses of a traced process's CPU samples to library and
 * function, offline, from the objects the tracer recorded as loaded
 * (TLOG_MODULE: path, load bias, address range) and each object's ELF
 * symbol tables (.symtab, else .dynsym), read from the file at that path.
 *
 * An address no object covers is "(unknown)"; one in an object whose file
 * cannot be read or has no symbol there is "LIB+0xOFFSET" (the offset in
 * the file's addresses), except inside the Python interpreter (libpython*,
 * a python* executable), which is "Python interpreter": llmprof never
 * guesses a Python source line. C++ names are demangled (libstdc++'s
 * __cxa_demangle, when it loads) and lose their parameter list.
 *
 * struct symbolizer owns everything; symbolizer_release frees it. */
#ifndef LLMPROF_SYMBOLIZE_H
#define LLMPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct sym_object;
struct sym_cache_ent;

struct symbolizer {
	struct sym_object *obj;
	size_t nobj, aobj;
	struct sym_cache_ent *cache; /* address -> answer */
	size_t ncache, capcache;
};

/* One answer: borrowed from the symbolizer, valid until it is released. */
struct sym_answer {
	const char *library;  /* file name without folders, or "(unknown)" */
	const char *function; /* see above */
	const char *category; /* sample_category() */
	int named;	      /* function is a symbol's name or "Python interpreter" */
};

/* Records a loaded object (a later record of the same range replaces it). */
void symbolizer_add(struct symbolizer *s, uint64_t base, uint64_t lo, uint64_t hi,
		    const char *path);
/* The answer for addr; return_address: addr is a caller's return address
 * (looked up at addr - 1, inside the call instruction). */
struct sym_answer symbolizer_lookup(struct symbolizer *s, uint64_t addr, int return_address);
void symbolizer_release(struct symbolizer *s);

/* The category of a frame in library lib (a file name): "CUDA driver" (libcuda), "CUDA libraries"
 * (libcudart, cuBLAS, cuDNN, NCCL, ...), "PyTorch" (libtorch*, libc10*), "Python interpreter",
 * "libc/kernel" (libc, libm, the loader, the vDSO, libstdc++, libgcc_s),
 * "llmprof tracer", or "other". Static strings. */
const char *sample_category(const char *lib);

/* How far sample_attribute climbs for a named function above the frame it
 * attributes a sample to. */
#define SAMPLE_NAME_CLIMB 16

/* Which frames of a stack f[0..n) (the interrupted one first) a sample is
 * attributed to: returns the frame that gives its library and category,
 * the first from the leaf up outside the system ("libc/kernel") and the
 * llmprof tracer, else the leaf; *fn is the frame that gives its function,
 * the first named one (a symbol, or the interpreter) of that frame's
 * library at most SAMPLE_NAME_CLIMB frames above it, system frames between
 * passed over and any other library stopping the climb; else that frame
 * itself. n = 0: returns 0, *fn = 0. */
size_t sample_attribute(const struct sym_answer *f, size_t n, size_t *fn);

#endif
