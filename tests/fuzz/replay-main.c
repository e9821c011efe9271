/* replay-main.c: runs a fuzz target's LLVMFuzzerTestOneInput on files
 * without libFuzzer, so regression inputs and the seed corpus are replayed
 * by ctest in every build (gcc, ASan/UBSan, valgrind).
 *
 *   replay-fuzz-<target> FILE|DIR...
 *
 * Directories are read one level deep, entries in name order. Exits 0 when
 * every input ran (a crash is the failure: abort, sanitizer report, signal),
 * 2 on a usage error or when no input was found. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	uint8_t *copy;

	if (strbuf_read_file(&sb, path)) {
		perror(path);
		strbuf_release(&sb);
		return -1;
	}
	/* an exact-size heap copy, so ASan sees reads past the end */
	copy = xmalloc(sb.len ? sb.len : 1);
	memcpy(copy, sb.buf, sb.len);
	LLVMFuzzerTestOneInput(copy, sb.len);
	free(copy);
	strbuf_release(&sb);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	size_t ran = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;
		char **names = NULL;
		size_t n = 0, alloc = 0;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]))
				return 2;
			ran++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			perror(argv[i]);
			return 2;
		}
		while ((e = readdir(d))) {
			struct strbuf p = STRBUF_INIT;

			if (e->d_name[0] == '.')
				continue; /* ., .., .gitkeep */
			strbuf_addf(&p, "%s/%s", argv[i], e->d_name);
			if (stat(p.buf, &st) || !S_ISREG(st.st_mode)) {
				strbuf_release(&p);
				continue;
			}
			ALLOC_GROW(names, n + 1, alloc);
			names[n++] = strbuf_detach(&p, NULL);
		}
		closedir(d);
		if (n)
			qsort(names, n, sizeof(*names), cmp_names);
		for (size_t j = 0; j < n; j++) {
			if (run_file(names[j]))
				return 2;
			ran++;
			free(names[j]);
		}
		free(names);
	}
	printf("replay: %zu input(s) ran\n", ran);
	return ran ? 0 : 2;
}
