/* nvtx_filter.c: NVTX filter syntax for ncu and nsys, and the checker. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "nsight/nvtx_filter.h"
#include "core/banned.h"

int nvtx_spec_parse(const char *user, struct nvtx_spec *spec, struct strbuf *err)
{
	struct strbuf dom = STRBUF_INIT, cur = STRBUF_INIT;
	int have_dom = 0;
	size_t n = strlen(user);

	memset(spec, 0, sizeof(*spec));
	if (n && user[n - 1] == '/' && (n < 2 || user[n - 2] != '\\'))
		n--; /* ncu's push/pop form */
	for (size_t i = 0; i < n; i++) {
		if (user[i] == '\\' && i + 1 < n) {
			strbuf_addch(&cur, user[++i]);
		} else if (user[i] == '@' && !have_dom) {
			strbuf_add(&dom, cur.buf, cur.len);
			strbuf_reset(&cur);
			have_dom = 1;
		} else {
			strbuf_addch(&cur, user[i]);
		}
	}
	/* ncu reads an expression starting "regex:" as a regular expression
	 * whatever we escape, so such a name cannot be written as one range */
	if (starts_with(have_dom ? dom.buf : cur.buf, "regex:")) {
		strbuf_release(&dom);
		strbuf_release(&cur);
		return error_set(err,
				 "'%s' is an ncu regex, not an NVTX range name (want RANGE or "
				 "DOMAIN@RANGE)",
				 user);
	}
	if (!cur.len || (have_dom && !dom.len)) {
		strbuf_release(&dom);
		strbuf_release(&cur);
		return error_set(err, "'%s' is not an NVTX range name (want RANGE or DOMAIN@RANGE)",
				 user);
	}
	spec->domain = have_dom ? strbuf_detach(&dom, NULL) : NULL;
	spec->range = strbuf_detach(&cur, NULL);
	strbuf_release(&dom);
	return 0;
}

void nvtx_spec_release(struct nvtx_spec *spec)
{
	FREE_AND_NULL(spec->domain);
	FREE_AND_NULL(spec->range);
}

/* ncu's escapes: '\' before @ , [ ] / * + and '\'. */
static void ncu_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("@,[]/*+\\", *s))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
}

void nvtx_ncu_expr(const struct nvtx_spec *spec, enum ncu_nvtx_style style, struct strbuf *out)
{
	if (spec->domain) {
		ncu_escape(out, spec->domain);
		strbuf_addch(out, '@');
	}
	ncu_escape(out, spec->range);
	if (style == NCU_NVTX_PUSHPOP)
		strbuf_addch(out, '/');
}

int nvtx_nsys_capture(const struct nvtx_spec *spec, struct strbuf *out, struct strbuf *err)
{
	if (strchr(spec->range, '@') || (spec->domain && strchr(spec->domain, '@')))
		return error_set(err,
				 "nsys --nvtx-capture cannot name a range or domain "
				 "containing '@' ('%s')",
				 spec->range);
	strbuf_addstr(out, spec->range);
	if (spec->domain) {
		strbuf_addch(out, '@');
		strbuf_addstr(out, spec->domain);
	}
	return 0;
}

/* ------------------------------------------------------------------ checker */

struct ncu_expr {
	int regex;
	char *domain; /* NULL: default domain */
	char **parts; /* range names (or patterns); "*" and "+" are wildcards */
	size_t nr, alloc;
	enum ncu_nvtx_style style;
};

static void expr_release(struct ncu_expr *e)
{
	free(e->domain);
	for (size_t i = 0; i < e->nr; i++)
		free(e->parts[i]);
	free(e->parts);
	memset(e, 0, sizeof(*e));
}

static void expr_push(struct ncu_expr *e, struct strbuf *cur)
{
	ALLOC_GROW(e->parts, e->nr + 1, e->alloc);
	e->parts[e->nr++] = strbuf_detach(cur, NULL);
}

/* Splits an ncu NVTX expression. Push/pop: [Domain@][[]A/B/.../[Z]]] with a
 * trailing '/' for a single range; start/end: [Domain@]A[,B...]. */
static int expr_parse(const char *s, struct ncu_expr *e, struct strbuf *why)
{
	struct strbuf cur = STRBUF_INIT;
	int have_dom = 0, slash = 0, comma = 0;

	memset(e, 0, sizeof(*e));
	if (starts_with(s, "regex:")) {
		e->regex = 1;
		s += 6;
	}
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];

		if (c == '\\' && s[i + 1]) {
			if (e->regex)
				strbuf_addch(&cur, c); /* keep regex escapes */
			strbuf_addch(&cur, s[++i]);
		} else if (c == '@' && !have_dom && !slash && !comma) {
			e->domain = strbuf_detach(&cur, NULL);
			have_dom = 1;
		} else if (c == '/') {
			slash = 1;
			if (cur.len)
				expr_push(e, &cur);
		} else if (c == ',') {
			comma = 1;
			if (cur.len)
				expr_push(e, &cur);
		} else if ((c == '[' && !cur.len &&
			    (i == 0 || s[i - 1] == '@' || s[i - 1] == ':')) ||
			   (c == ']' && !s[i + 1])) {
			/* stack-bottom / stack-top anchors: no name of their own */
		} else {
			strbuf_addch(&cur, c);
		}
	}
	if (cur.len)
		expr_push(e, &cur);
	strbuf_release(&cur);
	if (slash && comma) {
		expr_release(e);
		return error_set(why, "'%s' mixes push/pop '/' and start/end ','", s);
	}
	if (!e->nr || (have_dom && !e->domain[0])) {
		expr_release(e);
		return error_set(why, "'%s' names no range", s);
	}
	e->style = slash ? NCU_NVTX_PUSHPOP : NCU_NVTX_STARTEND;
	return 0;
}

static int name_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* glibc's regcomp copies a repeated subexpression once per repetition, so
 * stacked quantifiers ("a++++") or nested bounds ("((a{99}){99}){99}") take
 * memory exponential in the pattern's length. ncu's own regex engine
 * rejects stacked quantifiers; we refuse both before compiling. */
static int re_too_costly(const char *p)
{
	double product = 1;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (strchr("*+?}", *p) && p[1] && strchr("*+?{", p[1]))
			return 1;
		if (*p == '{') {
			unsigned long hi = 0;

			for (p++; *p && *p != '}'; p++)
				if (*p >= '0' && *p <= '9')
					hi = hi * 10 + (unsigned long)(*p - '0') < 100000
						 ? hi * 10 + (unsigned long)(*p - '0')
						 : 100000;
				else if (*p == ',')
					hi = 0; /* the upper bound counts */
			product *= hi ? (double)hi : 1;
			if (product > 1000 || !*p)
				return 1;
		}
	}
	return 0;
}

static int re_match(const char *pattern, const char *s)
{
	regex_t re;
	int ok;

	if (re_too_costly(pattern) || regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return 0;
	ok = !regexec(&re, s, 0, NULL, 0);
	regfree(&re);
	return ok;
}

static int part_seen(const struct ncu_expr *e, const char *part, const struct nvtx_seen *seen,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (seen[i].style != e->style)
			continue;
		if (e->regex) {
			if (e->domain ? !seen[i].domain || !re_match(e->domain, seen[i].domain)
				      : seen[i].domain != NULL)
				continue;
			if (re_match(part, seen[i].name))
				return 1;
		} else if (name_eq(e->domain, seen[i].domain) && !strcmp(part, seen[i].name)) {
			return 1;
		}
	}
	return 0;
}

int nvtx_ncu_expr_matches(const char *expr, const struct nvtx_seen *seen, size_t n,
			  struct strbuf *why)
{
	struct ncu_expr e;
	int ok = 1;

	if (expr_parse(expr, &e, why))
		return -1;
	for (size_t i = 0; i < e.nr; i++) {
		if (!strcmp(e.parts[i], "*") || !strcmp(e.parts[i], "+"))
			continue;
		if (part_seen(&e, e.parts[i], seen, n))
			continue;
		if (ok && why)
			strbuf_addf(why, "'%s': ", expr);
		else if (why)
			strbuf_addstr(why, "; ");
		if (why)
			strbuf_addf(why, "no %s range '%s' in %s%s%s",
				    e.style == NCU_NVTX_PUSHPOP ? "push/pop" : "start/end",
				    e.parts[i], e.domain ? "domain '" : "the default domain",
				    e.domain ? e.domain : "", e.domain ? "'" : "");
		ok = 0;
	}
	expr_release(&e);
	return ok;
}

static const char *style_name(enum ncu_nvtx_style s)
{
	return s == NCU_NVTX_PUSHPOP ? "push/pop" : "start/end";
}

void nvtx_ncu_suggest(const char *expr, const struct nvtx_seen *seen, size_t n, struct strbuf *out)
{
	struct ncu_expr e;
	struct strbuf tmp = STRBUF_INIT;
	const struct nvtx_seen *best = NULL;
	size_t best_d = (size_t)-1;
	const char *want;

	if (expr_parse(expr, &e, &tmp)) {
		strbuf_release(&tmp);
		return;
	}
	want = e.parts[e.nr - 1];
	/* Same name elsewhere (another domain, or the other style), or the
	 * user wrote nsys's "range@domain" order. */
	for (size_t i = 0; i < n && !best; i++) {
		if (!strcmp(seen[i].name, want))
			best = &seen[i];
		else if (e.domain && e.nr == 1 && seen[i].domain &&
			 !strcmp(seen[i].name, e.domain) && !strcmp(seen[i].domain, want))
			best = &seen[i];
	}
	if (!best) {
		for (size_t i = 0; i < n; i++) {
			size_t d = edit_distance(want, seen[i].name);

			if (!name_eq(e.domain, seen[i].domain))
				d += 1; /* prefer the same domain */
			if (d < best_d) {
				best_d = d;
				best = &seen[i];
			}
		}
		if (best && best_d > strlen(want) / 2 + 2 && !strstr(best->name, want) &&
		    !strstr(want, best->name))
			best = NULL; /* nothing close */
	}
	if (best) {
		struct nvtx_spec s = {(char *)best->domain, (char *)best->name};

		nvtx_ncu_expr(&s, best->style, out);
	}
	strbuf_release(&tmp);
	expr_release(&e);
}

void nvtx_diagnose(const char *const *exprs, size_t nexprs, const struct nvtx_seen *seen, size_t n,
		   struct strbuf *out)
{
	for (size_t i = 0; i < nexprs; i++) {
		struct strbuf why = STRBUF_INIT, sug = STRBUF_INIT;
		int m = nvtx_ncu_expr_matches(exprs[i], seen, n, &why);

		strbuf_addf(out, "--nvtx-include '%s': ", exprs[i]);
		if (m > 0) {
			strbuf_addstr(out, "matches ranges the trace saw\n");
		} else {
			strbuf_addf(out, "%s\n",
				    m < 0 ? why.buf : "matches no range the trace saw");
			if (m == 0)
				strbuf_addf(out, "  (%s)\n", why.buf);
			nvtx_ncu_suggest(exprs[i], seen, n, &sug);
			if (sug.len)
				strbuf_addf(out, "  the expression that would match: '%s'\n",
					    sug.buf);
		}
		strbuf_release(&why);
		strbuf_release(&sug);
	}
	if (!n) {
		strbuf_addstr(out, "the trace saw no NVTX ranges at all (is the program "
				   "annotated, and was NVTX tracing on?)\n");
		return;
	}
	strbuf_addstr(out, "ranges the trace saw:\n");
	for (size_t i = 0; i < n; i++) {
		struct nvtx_spec s = {(char *)seen[i].domain, (char *)seen[i].name};

		strbuf_addf(out, "  %s%s%s (%s) -> ncu '", seen[i].domain ? seen[i].domain : "",
			    seen[i].domain ? "@" : "", seen[i].name, style_name(seen[i].style));
		nvtx_ncu_expr(&s, seen[i].style, out);
		strbuf_addstr(out, "'\n");
	}
}
