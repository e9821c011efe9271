/* report_ncu.h: `llmprof report --ncu-csv RAW.csv -o DIR` with no trace,
 * kept apart from cmd-report.c's argument handling: reports from an Nsight
 * Compute raw-page export alone. kernels.md and kernels.json (every kernel,
 * or a last row summing the rest, so Calls and Total add up to the
 * export's), and regions/ (which says plainly when the export has no NVTX
 * ranges). */
#ifndef LLMPROF_CMD_REPORT_NCU_H
#define LLMPROF_CMD_REPORT_NCU_H

#include <stddef.h>

/* Reads csv_path and writes the reports into out_dir (created if needed);
 * max_rows caps the kernel table (0 = all). Prints what it wrote on stdout,
 * or the error on stderr, and returns the exit code: EXIT_OK,
 * EXIT_BAD_INPUT (an export it cannot read) or EXIT_IO. */
int report_ncu_csv_only(const char *csv_path, const char *out_dir, size_t max_rows);

#endif
