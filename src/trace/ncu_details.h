/* ncu_details.h: ncu's details page (`ncu --csv`, its default page: one
 * row per metric, units in their own column, each value scaled to a unit
 * of its own) turned into the raw page llmprof reads (`--page raw
 * --print-units base`: one row per result, one column per metric), so
 * that every reader of ncu_csv.h takes either page.
 *
 * Only the metrics the details page shows under a stable label become
 * columns (the table in ncu_details.c: duration, the SpeedOfLight
 * throughputs, registers, shared memory, occupancy); each value is
 * rescaled to the base unit by moving its decimal point, so "33.28" us
 * becomes exactly 33280 nsecond, never 33279.999... The details page
 * rounds what it prints (two decimals of the unit it picked, 12.83 us for
 * 12832 ns): the raw page's value of
 * the same result is equal to it at that precision. Every column left of
 * "Section Name" (ID, process, kernel name, launch configuration, NVTX)
 * is kept as it is. */
#ifndef LLMPROF_NCU_DETAILS_H
#define LLMPROF_NCU_DETAILS_H

#include <stddef.h>

#include "core/strbuf.h"

/* 1 when the header (the first record that is no ncu log line) names
 * the details page's columns (Metric Name, Metric Value). */
int ncu_csv_is_details(const char *buf, size_t len);

/* The raw page of the details page buf, appended to out as CSV (header,
 * units row, one row per result). source names the input in errors. 0,
 * or -1 with "source:line: ..." in err. */
int ncu_details_to_raw(const char *buf, size_t len, const char *source, struct strbuf *out,
		       struct strbuf *err);

#endif
