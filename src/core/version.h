/* version.h: the year-based versions of NVIDIA's tools ("2025.3.1.0",
 * "2023.4.4.54-234433681190v0") as `--version` prints them, read and
 * compared. Pure functions: nsight/tools.h uses them to judge a tool, and
 * analysis/nsysstats.h to spell report text as the nsys that wrote an
 * export. */
#ifndef LLMPROF_VERSION_H
#define LLMPROF_VERSION_H

#include <stddef.h>

/* The version text in `--version` output: the last line containing
 * "version" (any case), with text before "version " dropped. Returns an
 * owned string or NULL. */
char *version_parse(const char *out, size_t len);

/* Is version ("2022.4.2.1-..." or "2019.1.0 (build 1234)": YYYY.M first)
 * older than major.minor? 1 older, 0 not, -1 when it does not start with
 * YYYY.M. */
int version_older(const char *version, int major, int minor);

#endif
