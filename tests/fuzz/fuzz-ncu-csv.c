/* fuzz-ncu-csv.c: libFuzzer target for the CSV tokenizer and the ncu raw /
 * details page parsers, the kernel records, the regions and the writers.
 * Seeds: tests/fuzz/corpus/ncu-csv/ (small ncu fixtures, make-corpus.sh).
 * Under libFuzzer an execution drives one of four parts (fuzz.h): the
 * tokenizer with the cell and NVTX-cell parsers, the raw page with what is
 * built on it, the details page, or the progress parser; replay drives all.
 *
 *   scripts/fuzz.sh 60 ncu-csv
 *
 * ctest replays the corpus and tests/fuzz/regressions/ncu-csv/ in every
 * build (tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "report/ncu_regions.h"
#include "core/strbuf.h"
#include "analysis/ncu_export.h"
#include "report/kernels_json.h"
#include "report/report.h"
#include "trace/csv.h"
#include "trace/ncu_csv.h"
#include "analysis/ncu_kernel.h"
#include "nsight/ncu_progress.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The raw page, its numbers, the kernel records and regions built from it,
 * and their writers. */
static void run_raw(const char *buf, size_t size, struct strbuf *err, struct strbuf *out)
{
	struct ncu_raw raw;
	double v;

	if (!ncu_raw_parse(buf, size, "fuzz", &raw, err)) {
		struct ncu_kernel_table t;
		struct regions rg;

		for (size_t row = 0; row < raw.nrows; row++)
			for (size_t c = 0; c < raw.ncols; c++)
				ncu_raw_number(&raw, row, c, &v);
		if (!ncu_kernels_from_raw(&raw, &t, err)) {
			struct report_model m;

			report_model_init(&m);
			report_model_from_ncu(&m, &t, 3);
			report_render_kernels_md(&m, out);
			report_model_release(&m);
			kernels_json_render(&t, out);
			ncu_kernel_table_release(&t);
		}
		if (!regions_build(&raw, &rg, err)) {
			regions_render_md(&rg, &raw, out);
			regions_render_json(&rg, &raw, out);
			for (size_t i = 0; i < rg.nr; i++)
				regions_render_metrics(&rg, i, &raw, out);
			regions_release(&rg);
		}
		ncu_raw_release(&raw);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	/* 0: tokenizer, cells, NVTX cell; 1: raw page and all built on it;
	 * 2: details page; 3: progress parser (fuzz.h) */
	unsigned pick = fuzz_pick(data, size, 4);

	if (fuzz_runs(pick, 0)) {
		struct csv_reader r;
		double v;

		csv_reader_init(&r, buf, size, "fuzz");
		while (csv_reader_next(&r, &err) == 1)
			for (size_t i = 0; i < r.nr; i++)
				csv_field_unescape(&r.fields[i], &out);
		csv_reader_release(&r);

		/* Each cell-sized prefix as a number and as a unit. */
		ncu_parse_number(buf, size < 64 ? size : 64, '.', &v);
		ncu_parse_number(buf, size < 64 ? size : 64, ',', &v);
		ncu_unit_scale(buf, size < 32 ? size : 32, &v, &out);
	}
	if (fuzz_runs(pick, 1))
		run_raw(buf, size, &err, &out);
	if (fuzz_runs(pick, 2)) {
		struct ncu_details d;
		double v;

		if (!ncu_details_parse(buf, size, "fuzz", &d, &err)) {
			if (d.nr)
				ncu_details_metric(&d, d.rows[0].id, "Duration", &v);
			ncu_details_release(&d);
		}
	}
	if (fuzz_runs(pick, 0)) {
		struct ncu_nvtx_stack st = {0};

		ncu_nvtx_parse_cell(buf, size, NCU_NVTX_PUSHPOP, &st, &err);
		ncu_nvtx_stack_release(&st);
	}
	if (fuzz_runs(pick, 3)) {
		struct ncu_progress p;

		/* 7-byte reads: lines and "\r\n" split everywhere */
		ncu_progress_init(&p);
		for (size_t i = 0; i < size; i += 7)
			ncu_progress_feed(&p, buf + i, size - i < 7 ? size - i : 7);
		ncu_progress_format(&p, 3, 1.0, &out);
		ncu_progress_release(&p);
	}
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}
