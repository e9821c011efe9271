/* format.h: how every report prints numbers and escapes text, so the
 * Markdown, HTML and SVG outputs show identical figures.
 *
 * Conventions: times in ms with 3 decimals; shares as percentages with 1
 * decimal; TFLOP/s with 1 decimal; GB/s with 0 decimals; FLOP and byte
 * counts with SI prefixes and 3 significant digits; an unavailable number
 * prints as "n/a". A positive number too small for its decimals keeps two
 * significant digits ("0.47" GB/s, "0.0004" ms), so a measured value never
 * reads as 0. All functions append to sb. */
#ifndef LLMPROF_REPORT_FORMAT_H
#define LLMPROF_REPORT_FORMAT_H

#include <stdint.h>

#include "core/strbuf.h"
#include "model/model.h"

#define FMT_NA "n/a"

void fmt_fixed(struct strbuf *sb, struct rnum v, int decimals);
void fmt_ms(struct strbuf *sb, struct rnum ms);
void fmt_ns_as_ms(struct strbuf *sb, double ns);
/* fraction 0..1 -> "38.2%"; below 1% two decimals ("0.03%") so small
 * utilisations never read as 0 */
void fmt_frac_pct(struct strbuf *sb, struct rnum frac);
/* already a percentage -> "38.2" (no sign; table headers say %) */
void fmt_pct(struct strbuf *sb, struct rnum pct);
void fmt_tflops(struct strbuf *sb, struct rnum tflops);
void fmt_gbs(struct strbuf *sb, struct rnum gbs);
/* 1.23e12 with unit "FLOP" -> "1.23 TFLOP"; "B" -> "1.23 TB" */
void fmt_si(struct strbuf *sb, struct rnum v, const char *unit);

/* XML/HTML text and attribute escaping (& < > " '); control characters
 * other than tab/newline, which XML forbids, and bytes that are not valid
 * UTF-8 become U+FFFD. */
void xml_text(struct strbuf *sb, const char *s);

/* Shortens s to at most max characters (UTF-8 aware), ending in "..."
 * when cut. Appends to sb. */
void fmt_ellipsize(struct strbuf *sb, const char *s, size_t max);

#endif
