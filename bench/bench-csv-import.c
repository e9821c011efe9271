/* bench-csv-import.c: throughput of the ncu CSV import.
 *
 * usage: bench-csv-import [RAW.csv [MB [REPEAT]]]
 * Builds an in-memory export of about MB megabytes (default 128) by
 * repeating the data rows of RAW.csv (default: the H100 nested-NVTX
 * base-unit fixture, 614 columns), then times, best of REPEAT (default 3):
 *   tokenize  csv_reader_next over every record
 *   raw       ncu_raw_parse (tokenize + cell table + units row)
 *   records   ncu_raw_parse + ncu_kernels_from_raw (numbers converted
 *             for the ~40 metrics a kernel record uses, NVTX parsed, groups)
 * and prints MB/s (1 MB = 1e6 bytes) for each, by wall time and by the CPU
 * time of the same run. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/util.h"
#include "trace/csv.h"
#include "trace/ncu_csv.h"
#include "analysis/ncu_kernel.h"
#include "core/banned.h"

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best wall time; *cpu gets the CPU time of that same run (on a loaded
 * machine wall time includes waiting for a core, CPU time does not). */
static double best_of(int repeat, int what, const struct strbuf *buf, size_t *rows, double *cpu)
{
	double best = 1e30;

	for (int i = 0; i < repeat; i++) {
		struct strbuf err = STRBUF_INIT;
		uint64_t t0 = clock_mono_ns(), t1;
		double c0 = cpu_ns();

		if (what == 0) {
			struct csv_reader r;
			size_t n = 0;

			csv_reader_init(&r, buf->buf, buf->len, "bench");
			while (csv_reader_next(&r, &err) == 1)
				n++;
			csv_reader_release(&r);
			*rows = n;
		} else {
			struct ncu_raw raw;
			struct ncu_kernel_table t;

			if (ncu_raw_parse(buf->buf, buf->len, "bench", &raw, &err)) {
				fprintf(stderr, "%s\n", err.buf);
				exit(1);
			}
			*rows = raw.nrows;
			if (what == 2) {
				if (ncu_kernels_from_raw(&raw, &t, &err)) {
					fprintf(stderr, "%s\n", err.buf);
					exit(1);
				}
				ncu_kernel_table_release(&t);
			}
			ncu_raw_release(&raw);
		}
		t1 = clock_mono_ns();
		if ((double)(t1 - t0) < best) {
			best = (double)(t1 - t0);
			*cpu = cpu_ns() - c0;
		}
		strbuf_release(&err);
	}
	return best;
}

int main(int argc, char **argv)
{
	const char *path =
	    argc > 1 && argv[1][0] ? argv[1]
				   : LLMPROF_SOURCE_DIR
		"/tests/data/ncu/nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv";
	double mb = argc > 2 ? strtod(argv[2], NULL) : 128;
	int repeat = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 3;
	struct strbuf in = STRBUF_INIT, buf = STRBUF_INIT;
	const char *names[] = {"tokenize", "raw", "records"};
	const char *body;
	size_t rows = 0;

	if (strbuf_read_file(&in, path)) {
		perror(path);
		return 1;
	}
	/* Header and units row, then the data rows again and again. */
	body = in.buf;
	for (int nl = 0; nl < 2 && body; nl++) {
		body = strchr(body, '\n');
		if (body)
			body++;
	}
	if (!body || !*body) {
		fprintf(stderr, "%s: need a header, a units row and data rows\n", path);
		return 1;
	}
	strbuf_add(&buf, in.buf, (size_t)(body - in.buf));
	while (buf.len < (size_t)(mb * 1e6))
		strbuf_addstr(&buf, body);
	printf("input: %s repeated to %.1f MB\n", path, (double)buf.len / 1e6);
	for (int what = 0; what < 3; what++) {
		double cpu = 0, ns = best_of(repeat, what, &buf, &rows, &cpu);

		printf("%-9s %8.1f MB/s wall %8.1f MB/s cpu  (%zu rows, %.3f s wall, %.3f s cpu, "
		       "best of %d)\n",
		       names[what], (double)buf.len / 1e6 / (ns / 1e9),
		       (double)buf.len / 1e6 / (cpu / 1e9), rows, ns / 1e9, cpu / 1e9, repeat);
	}
	strbuf_release(&in);
	strbuf_release(&buf);
	return 0;
}
