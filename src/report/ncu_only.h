/* ncu_only.h: reports from an Nsight Compute raw-page export alone
 * (`llmprof report --ncu-csv RAW.csv -o DIR`, no trace): kernels.md and
 * kernels.json (every kernel, or a last row summing the rest, so Calls and
 * Total add up to the export's), and regions/ (which says plainly when the
 * export has no NVTX ranges). */
#ifndef LLMPROF_REPORT_NCU_ONLY_H
#define LLMPROF_REPORT_NCU_ONLY_H

#include <stddef.h>

#include "core/strbuf.h"

struct ncu_only_result {
	size_t launches, kernels, regions;
	double total_ms;
	struct strbuf note; /* e.g. why there are no regions; may be empty */
};

/* Reads csv_path, writes the reports into out_dir (created if needed).
 * max_rows caps the kernel table (0 = all). Returns 0, or an exit code
 * (EXIT_BAD_INPUT, EXIT_IO) with the message in err. res->note is owned by
 * the caller: strbuf_release(&res->note). */
int ncu_only_report(const char *csv_path, const char *out_dir, size_t max_rows,
		    struct ncu_only_result *res, struct strbuf *err);

#endif
