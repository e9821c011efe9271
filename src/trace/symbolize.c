/* symbolize.c: CPU-sample addresses to library and function (symbolize.h),
 * reading each object's ELF symbols once, when an address first needs it. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "trace/symbolize.h"
#include "core/banned.h"

#define SYM_NAME_MAX 160 /* longer function names are cut, with "..." */

struct sym {
	uint64_t lo, size;
	size_t name; /* offset of its NUL-terminated name in the mapped file */
};

struct sym_object {
	uint64_t base, lo, hi;
	char *path;
	const char *file; /* inside path */
	int loaded;	  /* its symbols were read (or could not be) */
	int python;
	struct sym *syms;
	size_t nsyms;
	/* the file, mapped read-only while the symbolizer lives: names are
	 * read from it, not copied (a libtorch has a million symbols) */
	const unsigned char *map;
	size_t maplen;
};

struct sym_cache_ent {
	uint64_t addr; /* the address looked up */
	uint8_t ret;   /* as a return address */
	uint8_t used;  /* 0: an empty slot (every address and both ways are keys) */
	size_t obj;    /* index + 1, 0 = none */
	char *function;
	int named; /* function is a symbol's name (or the interpreter's) */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *sample_category(const char *lib)
{
	static const char *const cudalibs[] = {
	    "libcudart",   "libcublas", "libcudnn",	"libnccl",     "libnvrtc",     "libcufft",
	    "libcusparse", "libcurand", "libnvJitLink", "libcusolver", "libnvToolsExt"};
	static const char *const sys[] = {"libc.so",  "libc-",	    "libm.so",	 "libpthread",
					  "ld-linux", "linux-vdso", "libstdc++", "libgcc_s",
					  "libdl.so", "librt.so",   "libgomp"};

	if (!lib)
		return "other";
	if (has_prefix(lib, "libcuda.so") || has_prefix(lib, "libcuda-"))
		return "CUDA driver";
	for (size_t i = 0; i < sizeof(cudalibs) / sizeof(cudalibs[0]); i++)
		if (has_prefix(lib, cudalibs[i]))
			return "CUDA libraries";
	if (has_prefix(lib, "libtorch") || has_prefix(lib, "libc10"))
		return "PyTorch";
	if (has_prefix(lib, "libpython") || has_prefix(lib, "python"))
		return "Python interpreter";
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (has_prefix(lib, sys[i]))
			return "libc/kernel";
	if (has_prefix(lib, "libllmprof_tracer"))
		return "llmprof tracer";
	return "other";
}

static int is_system(const struct sym_answer *x)
{
	return !strcmp(x->category, "libc/kernel") || !strcmp(x->category, "llmprof tracer");
}

size_t sample_attribute(const struct sym_answer *f, size_t n, size_t *fn)
{
	size_t a = 0;

	*fn = 0;
	while (a < n && is_system(&f[a]))
		a++;
	if (a == n)
		a = 0; /* all system: the leaf */
	*fn = a;
	for (size_t i = a; i < n && i <= a + SAMPLE_NAME_CLIMB; i++) {
		if (strcmp(f[i].library, f[a].library)) {
			if (is_system(&f[i]))
				continue;
			break;
		}
		if (f[i].named) {
			*fn = i;
			break;
		}
	}
	return a;
}

void symbolizer_add(struct symbolizer *s, uint64_t base, uint64_t lo, uint64_t hi, const char *path)
{
	struct sym_object *o = NULL;

	for (size_t i = 0; i < s->nobj && !o; i++)
		if (s->obj[i].lo == lo && s->obj[i].hi == hi && !strcmp(s->obj[i].path, path))
			return; /* the same object again (a later module list) */
	ALLOC_GROW(s->obj, s->nobj + 1, s->aobj);
	o = &s->obj[s->nobj++];
	memset(o, 0, sizeof(*o));
	o->base = base;
	o->lo = lo;
	o->hi = hi;
	o->path = xstrdup(path);
	o->file = base_name(o->path);
	o->python = !strcmp(sample_category(o->file), "Python interpreter");
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The function symbols of one symbol table section sh (entries checked
 * against the file's size). */
static void read_table(struct sym_object *o, const unsigned char *f, size_t len,
		       const Elf64_Shdr *sh, const Elf64_Shdr *strsh)
{
	size_t alloc = o->nsyms;
	size_t n;

	if (sh->sh_offset > len || sh->sh_size > len - sh->sh_offset || strsh->sh_offset > len ||
	    strsh->sh_size > len - strsh->sh_offset || sh->sh_entsize != sizeof(Elf64_Sym))
		return;
	n = sh->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym y;
		const char *name;
		size_t nl;

		memcpy(&y, f + sh->sh_offset + i * sizeof(y), sizeof(y));
		if ((ELF64_ST_TYPE(y.st_info) != STT_FUNC &&
		     ELF64_ST_TYPE(y.st_info) != STT_GNU_IFUNC) ||
		    y.st_shndx == SHN_UNDEF || !y.st_value || y.st_name >= strsh->sh_size)
			continue;
		name = (const char *)f + strsh->sh_offset + y.st_name;
		nl = strnlen(name, strsh->sh_size - y.st_name);
		if (!nl || nl == strsh->sh_size - y.st_name)
			continue;
		ALLOC_GROW(o->syms, o->nsyms + 1, alloc);
		o->syms[o->nsyms].lo = y.st_value;
		o->syms[o->nsyms].size = y.st_size;
		o->syms[o->nsyms].name = (size_t)(name - (const char *)f);
		o->nsyms++;
	}
}

/* Reads o's .symtab (else .dynsym) from its file, mapped read-only. */
static void load_object(struct sym_object *o)
{
	struct stat st;
	struct strbuf err = STRBUF_INIT;
	const unsigned char *f;
	Elf64_Ehdr eh;
	int fd;

	o->loaded = 1;
	/* a path from a log: never block on a FIFO, never read a device */
	fd = open_regular_file(o->path, SIZE_MAX, NULL, &err);
	strbuf_release(&err);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(eh)) {
		close(fd);
		return;
	}
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return;
	memcpy(&eh, f, sizeof(eh));
	if (!memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shoff < (uint64_t)st.st_size &&
	    (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) <= (uint64_t)st.st_size - eh.e_shoff) {
		const unsigned char *sh = f + eh.e_shoff;
		uint32_t want[2] = {SHT_SYMTAB, SHT_DYNSYM};

		/* copied out, not cast: e_shoff need not be aligned */
		for (int k = 0; k < 2 && !o->nsyms; k++)
			for (unsigned i = 0; i < eh.e_shnum; i++) {
				Elf64_Shdr h, link;

				memcpy(&h, sh + i * sizeof(h), sizeof(h));
				if (h.sh_type != want[k] || h.sh_link >= eh.e_shnum)
					continue;
				memcpy(&link, sh + h.sh_link * sizeof(link), sizeof(link));
				read_table(o, f, (size_t)st.st_size, &h, &link);
			}
	}
	if (o->nsyms) {
		o->map = f;
		o->maplen = (size_t)st.st_size;
	} else {
		munmap((void *)f, (size_t)st.st_size);
	}
	if (o->nsyms > 1)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++'s demangler, loaded once (NULL when absent). */
static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static int tried;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		tried = 1;
		if (h)
			fn = (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* name demangled, without its parameter list, cut at SYM_NAME_MAX. */
static char *pretty(const char *name)
{
	demangle_fn dm = name[0] == '_' && name[1] == 'Z' ? demangler() : NULL;
	char *d = NULL;
	int status = -1;
	struct strbuf sb = STRBUF_INIT;

	if (dm)
		d = dm(name, NULL, NULL, &status);
	if (d && status == 0) {
		size_t n = strlen(d);
		int depth = 0;
		/* drop " const" and the outermost trailing "(...)" */
		if (n > 6 && !strcmp(d + n - 6, " const"))
			n -= 6;
		if (n && d[n - 1] == ')') {
			size_t i = n;
			while (i > 0) {
				i--;
				if (d[i] == ')')
					depth++;
				else if (d[i] == '(' && --depth == 0)
					break;
			}
			if (depth == 0 && i > 0)
				n = i;
		}
		strbuf_add(&sb, d, n);
	} else {
		strbuf_addstr(&sb, name);
	}
	free(d);
	if (sb.len > SYM_NAME_MAX) {
		strbuf_setlen(&sb, SYM_NAME_MAX - 3);
		strbuf_addstr(&sb, "...");
	}
	return strbuf_detach(&sb, NULL);
}

static char *function_of(struct sym_object *o, uint64_t addr, int *named)
{
	uint64_t v = addr - o->base;
	size_t lo = 0, hi;
	struct strbuf sb = STRBUF_INIT;

	if (!o->loaded)
		load_object(o);
	hi = o->nsyms;
	while (lo < hi) { /* first symbol above v */
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].lo <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const struct sym *y = &o->syms[lo - 1];
		if (!y->size || v < y->lo + y->size) {
			*named = 1;
			return pretty((const char *)o->map + y->name);
		}
	}
	*named = o->python;
	if (o->python)
		return xstrdup("Python interpreter");
	strbuf_addf(&sb, "%s+0x%llx", o->file, (unsigned long long)v);
	return strbuf_detach(&sb, NULL);
}

/* The first slot to probe for (addr, ret). */
static size_t cache_slot(const struct symbolizer *s, uint64_t addr, uint8_t ret)
{
	uint64_t h = (addr ^ ((uint64_t)ret << 63)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 20) & (s->capcache - 1);
}

static void cache_grow(struct symbolizer *s)
{
	struct sym_cache_ent *old = s->cache;
	size_t oldcap = s->capcache;

	s->capcache = oldcap ? oldcap * 2 : 1024;
	s->cache = xcalloc(s->capcache, sizeof(*s->cache));
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;
		if (!old[i].used)
			continue;
		for (j = cache_slot(s, old[i].addr, old[i].ret); s->cache[j].used;
		     j = (j + 1) & (s->capcache - 1))
			;
		s->cache[j] = old[i];
	}
	free(old);
}

struct sym_answer symbolizer_lookup(struct symbolizer *s, uint64_t addr, int return_address)
{
	uint64_t a = return_address && addr ? addr - 1 : addr;
	uint8_t ret = return_address != 0;
	struct sym_answer ans = {"(unknown)", "(unknown)", "other", 0};
	struct sym_cache_ent *e;
	size_t j;

	if ((s->ncache + 1) * 2 > s->capcache)
		cache_grow(s);
	for (j = cache_slot(s, addr, ret);
	     s->cache[j].used && (s->cache[j].addr != addr || s->cache[j].ret != ret);
	     j = (j + 1) & (s->capcache - 1))
		;
	e = &s->cache[j];
	if (!e->used) {
		e->used = 1;
		e->addr = addr;
		e->ret = ret;
		s->ncache++;
		/* the latest object recorded at that address */
		for (size_t i = s->nobj; i > 0 && !e->obj; i--)
			if (a >= s->obj[i - 1].lo && a < s->obj[i - 1].hi)
				e->obj = i;
		if (e->obj)
			e->function = function_of(&s->obj[e->obj - 1], a, &e->named);
	}
	if (e->obj) {
		ans.library = s->obj[e->obj - 1].file;
		ans.function = e->function;
		ans.category = sample_category(ans.library);
		ans.named = e->named;
	}
	return ans;
}

void symbolizer_release(struct symbolizer *s)
{
	for (size_t i = 0; i < s->nobj; i++) {
		free(s->obj[i].path);
		free(s->obj[i].syms);
		if (s->obj[i].map)
			munmap((void *)s->obj[i].map, s->obj[i].maplen);
	}
	free(s->obj);
	for (size_t i = 0; i < s->capcache; i++)
		free(s->cache[i].function);
	free(s->cache);
	memset(s, 0, sizeof(*s));
}
