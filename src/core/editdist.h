/* editdist.h: edit_distance() (core/util.h) bounded by a limit, for callers
 * that only want to know whether two strings are close: "did you mean"
 * compares a key with every known key, and an unknown key (one typed, or
 * one from a fuzzer) is usually far from all of them. */
#ifndef LLMPROF_EDITDIST_H
#define LLMPROF_EDITDIST_H

#include <stddef.h>

/* edit_distance(a, b) when it is at most max; otherwise some value above
 * max, found without computing the distance in full (strings whose lengths
 * differ by more than max cost nothing). Allocates only when b is longer
 * than 127 bytes. */
size_t edit_distance_max(const char *a, const char *b, size_t max);

#endif
