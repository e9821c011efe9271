/* ncu_units.h: numbers and units as Nsight Compute's CSV pages print them
 * (ncu_units.c): a cell parsed in the file's number format, a unit scaled
 * to ncu's base units. Pure; used by both page readers (ncu_csv.h,
 * ncu_details.h). */
#ifndef LLMPROF_NCU_UNITS_H
#define LLMPROF_NCU_UNITS_H

#include <stddef.h>

#include "core/strbuf.h"

enum ncu_num {
	NCU_NUM_OK = 0,
	NCU_NUM_EMPTY, /* empty cell: the metric was not collected */
	NCU_NUM_NA,    /* "n/a", or an instance list with no aggregate */
	NCU_NUM_BAD,   /* not a number in this file's format */
};

/* Parses one cell as a number. decimal is '.' or ','; the other of the two,
 * and space, apostrophe, U+00A0, U+2009 and U+202F, are group separators
 * (accepted only between digits of the integer part, in groups of 3). A
 * leading aggregate followed by an instance list ("158 (0: 158)") yields
 * the aggregate. */
enum ncu_num ncu_parse_number(const char *p, size_t len, char decimal, double *out);

/* Scales a unit as ncu prints it to ncu's base units: *scale multiplies a
 * value in `unit` to give the value in *base (time -> nsecond, per-time ->
 * /second, bytes -> byte, frequency -> hz). Unknown units keep scale 1 and
 * their own name and make the function return -1 (no message). base is
 * appended to (may be NULL). */
int ncu_unit_scale(const char *unit, size_t len, double *scale, struct strbuf *base);

#endif
