/* format.c: number formatting and text escaping shared by all writers. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "core/banned.h"

/* How many decimals a positive value may gain so that it does not print as
 * 0: enough for 1 ns in ms, 1 MB/s in GB/s. Smaller values are rounding
 * residue of differences, not measurements. */
#define FMT_MAX_EXTRA_DECIMALS 6

void fmt_fixed(struct strbuf *sb, struct rnum v, int decimals)
{
	if (!v.available || !isfinite(v.v)) {
		strbuf_addstr(sb, FMT_NA);
		return;
	}
	if (v.v > 0 && v.v < 0.5 * pow(10, -decimals)) {
		/* two significant digits, trailing zeros dropped: 0.47 GB/s is
		 * "0.47", not "0" (a measured number never reads as 0) */
		int keep = (int)ceil(-log10(v.v)) + 1;

		if (keep <= decimals + FMT_MAX_EXTRA_DECIMALS) {
			size_t start = sb->len;

			strbuf_addf(sb, "%.*f", keep, v.v);
			while (sb->len > start && sb->buf[sb->len - 1] == '0')
				strbuf_setlen(sb, sb->len - 1);
			return;
		}
	}
	/* never print "-0.000" */
	if (fabs(v.v) < 0.5 * pow(10, -decimals))
		v.v = 0;
	strbuf_addf(sb, "%.*f", decimals, v.v);
}

void fmt_ms(struct strbuf *sb, struct rnum ms)
{
	fmt_fixed(sb, ms, 3);
}

void fmt_ns_as_ms(struct strbuf *sb, double ns)
{
	fmt_fixed(sb, rnum_of(ns / 1e6), 3);
}

void fmt_frac_pct(struct strbuf *sb, struct rnum frac)
{
	if (!frac.available || !isfinite(frac.v)) {
		strbuf_addstr(sb, FMT_NA);
		return;
	}
	fmt_fixed(sb, rnum_of(frac.v * 100), fabs(frac.v) < 0.01 && frac.v != 0 ? 2 : 1);
	strbuf_addch(sb, '%');
}

void fmt_pct(struct strbuf *sb, struct rnum pct)
{
	fmt_fixed(sb, pct, 1);
}

void fmt_tflops(struct strbuf *sb, struct rnum tflops)
{
	/* decode-sized numbers are well below 1 TFLOP/s: keep 3 significant digits */
	if (tflops.available && fabs(tflops.v) < 1 && tflops.v != 0)
		fmt_fixed(sb, tflops, 3);
	else
		fmt_fixed(sb, tflops, 1);
}

void fmt_gbs(struct strbuf *sb, struct rnum gbs)
{
	fmt_fixed(sb, gbs, 0);
}

void fmt_si(struct strbuf *sb, struct rnum v, const char *unit)
{
	static const struct {
		double scale;
		const char *prefix;
	} pre[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
	double a;

	if (!v.available || !isfinite(v.v)) {
		strbuf_addstr(sb, FMT_NA);
		return;
	}
	a = fabs(v.v);
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (a >= pre[i].scale) {
			strbuf_addf(sb, "%.3g %s%s", v.v / pre[i].scale, pre[i].prefix, unit);
			return;
		}
	strbuf_addf(sb, "%.3g %s", v.v, unit);
}

/* GFM never reads an underscore between two alphanumerics as emphasis, so
 * "mlp.up_gate" stays readable in the raw file. */
/* Length of the valid UTF-8 sequence at p (1-4), or 0 when p does not start
 * one (stray continuation byte, overlong form, surrogate, > U+10FFFF). */
static size_t utf8_seq_len(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2, cp = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3, cp = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80) /* also stops at NUL */
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* Bytes xml_text copies as they are: printable ASCII but &<>"', and \n \t. */
static int xml_plain(unsigned char c)
{
	switch (c) {
	case '&':
	case '<':
	case '>':
	case '"':
	case '\'':
		return 0;
	}
	return (c >= 0x20 && c < 0x80) || c == '\n' || c == '\t';
}

void xml_text(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		const unsigned char *run = p;

		while (xml_plain(*p))
			p++;
		if (p > run) {
			strbuf_add(sb, run, (size_t)(p - run));
			p--;
			continue;
		}
		if (*p >= 0x80) {
			size_t n = utf8_seq_len(p);

			if (!n) {
				strbuf_addstr(sb, "\xEF\xBF\xBD");
			} else {
				strbuf_add(sb, p, n);
				p += n - 1;
			}
			continue;
		}
		switch (*p) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			if (*p < 0x20 && *p != '\n' && *p != '\t')
				strbuf_addstr(sb, "\xEF\xBF\xBD");
			else
				strbuf_addch(sb, *p);
		}
	}
}

void fmt_ellipsize(struct strbuf *sb, const char *s, size_t max)
{
	size_t chars = 0, i, cut = 0;

	if (!s)
		return;
	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (chars == (max > 3 ? max - 3 : 0))
				cut = i;
			chars++;
		}
	}
	if (chars <= max) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_add(sb, s, cut);
	strbuf_addstr(sb, "...");
}
