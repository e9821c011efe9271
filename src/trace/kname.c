/* kname.c: a kernel's name taken apart (kname.h).
 *
 * One parser, from the end of the name: the declaration ends in its
 * parameter list, which ends the name, so reading backwards from it finds
 * the template list and the base name without knowing how a return type or
 * a template argument is spelled; reading forwards would have to, and
 * stops at the first '<' of "at::native::<unnamed>::k<...>" or the first
 * '(' of "(anonymous namespace)::k(...)". */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"
#include "model/format.h"
#include "trace/kname.h"
#include "core/banned.h"

/* How the demanglers spell an anonymous namespace: NVIDIA's (nsys, ncu),
 * the C++ runtime's, and the older GNU one. */
static const char *const anon_spell[] = {"<unnamed>", "(anonymous namespace)", "{anonymous}"};

/* Launcher templates whose first template argument is the kernel: CUTLASS
 * 2 (Kernel, Kernel2), CUTLASS 3 (device_kernel), cuDNN's runtime-compiled
 * kernels (kernel_entry). */
static const char *const wrappers[] = {"Kernel", "Kernel2", "device_kernel", "kernel_entry"};

/* Characters of a base name: bytes of UTF-8 characters too, as a name
 * with one (or with a byte that is not UTF-8) stays whole; '.' and '$' for
 * the names compilers make ("k.constprop.0", mangled names); '~' for a
 * destructor. */
static int ident(int c)
{
	return isalnum(c) || c >= 0x80 || c == '_' || c == '$' || c == '~' || c == '.';
}

static size_t anon_len(const char *p, const char *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(anon_spell); i++) {
		size_t n = strlen(anon_spell[i]);

		if ((size_t)(end - p) >= n && !memcmp(p, anon_spell[i], n))
			return n;
	}
	return 0;
}

/* Index of the bracket that opens the one closing at p[i], or SIZE_MAX
 * when unbalanced. Only that kind of bracket counts: a '(' inside a
 * template list ("k<(int)4>") does not end it. */
static size_t open_of(const char *p, size_t i)
{
	char close = p[i];
	char open = close == ')' ? '(' : close == '>' ? '<' : close == ']' ? '[' : '{';
	size_t depth = 0;

	for (size_t j = i + 1; j > 0; j--) {
		if (p[j - 1] == close)
			depth++;
		else if (p[j - 1] == open && --depth == 0)
			return j - 1;
	}
	return SIZE_MAX;
}

static size_t trim_end(const char *p, size_t e)
{
	while (e && p[e - 1] == ' ')
		e--;
	return e;
}

/* The end of the declaration in p[0, e): without the C++ runtime's "[clone
 * .constprop.0]" suffixes and what follows the parameter list (" const",
 * " &"). A name that ends in its template list has no parameter list: the
 * ')' of a "(int)4" inside it is no parameter list's end. */
static size_t decl_end(const char *p, size_t e)
{
	e = trim_end(p, e);
	while (e && p[e - 1] == ']') {
		size_t o = open_of(p, e - 1);

		if (o == SIZE_MAX || strncmp(p + o, "[clone ", 7))
			break;
		e = trim_end(p, o);
	}
	if (e && p[e - 1] != ')' && p[e - 1] != '>') {
		size_t rp = e;

		while (rp && p[rp - 1] != ')')
			rp--;
		if (rp)
			e = rp;
	}
	return e;
}

/* Where the scope before a base name starting at b begins: back over
 * "comp::" pieces, a piece being a name, a name with its template list
 * ("Foo<int>"), or a bracketed anonymous namespace. */
static size_t scope_start(const char *p, size_t b)
{
	while (b >= 2 && p[b - 1] == ':' && p[b - 2] == ':') {
		size_t c = b - 2;

		if (c && (p[c - 1] == '>' || p[c - 1] == ')' || p[c - 1] == '}')) {
			size_t o = open_of(p, c - 1);

			if (o == SIZE_MAX)
				break;
			c = o;
		}
		while (c && ident((unsigned char)p[c - 1]))
			c--;
		if (c == b - 2) { /* "::k": the global namespace */
			b = c;
			break;
		}
		b = c;
	}
	return b;
}

void kname_parse(struct kname *k, const char *name, size_t len)
{
	size_t e = decl_end(name, len), b;

	k->params = (struct str){name + e, 0};
	if (e && name[e - 1] == ')') {
		size_t o = open_of(name, e - 1);

		if (o != SIZE_MAX) {
			k->params = (struct str){name + o, e - o};
			e = o;
		}
	}
	e = trim_end(name, e);
	k->targs = (struct str){name + e, 0};
	if (e && name[e - 1] == '>') {
		size_t o = open_of(name, e - 1);

		if (o != SIZE_MAX) {
			k->targs = (struct str){name + o, e - o};
			e = o;
		}
	}
	b = e;
	while (b && ident((unsigned char)name[b - 1]))
		b--;
	if (b == e) { /* no C++ base name ("range", "(unnamed)"): all of it */
		k->scope = (struct str){name, 0};
		k->base = (struct str){name, len};
		k->targs = k->params = (struct str){name + len, 0};
		return;
	}
	k->base = (struct str){name + b, e - b};
	e = scope_start(name, b);
	k->scope = (struct str){name + e, b - e};
}

void kname_base(struct strbuf *out, const char *name)
{
	struct kname k;

	if (!name)
		return;
	kname_parse(&k, name, strlen(name));
	strbuf_add(out, k.base.p, k.base.len);
}

/* The scope s without its anonymous-namespace pieces. */
static void add_scope(struct strbuf *out, struct str s)
{
	const char *p = s.p, *end = s.p + s.len;

	while (p < end) {
		const char *q = p;
		size_t n = anon_len(p, end);
		int depth = 0;

		if (n && p + n + 2 <= end && p[n] == ':' && p[n + 1] == ':') {
			p += n + 2;
			continue;
		}
		/* one piece, through its "::" */
		for (; q < end; q++) {
			if (*q == '<' || *q == '(' || *q == '{')
				depth++;
			else if ((*q == '>' || *q == ')' || *q == '}') && depth)
				depth--;
			else if (!depth && *q == ':' && q + 1 < end && q[1] == ':') {
				q += 2;
				break;
			}
		}
		strbuf_add(out, p, (size_t)(q - p));
		p = q;
	}
}

static int is_wrapper(struct str base)
{
	for (size_t i = 0; i < ARRAY_SIZE(wrappers); i++)
		if (strlen(wrappers[i]) == base.len && !memcmp(base.p, wrappers[i], base.len))
			return 1;
	return 0;
}

void kname_display(struct strbuf *out, const char *name, unsigned flags, size_t max)
{
	struct strbuf tmp = STRBUF_INIT;
	struct kname k;

	if (!name || !*name) {
		strbuf_addstr(out, "(unnamed)");
		return;
	}
	kname_parse(&k, name, strlen(name));
	if ((flags & KNAME_KEEP_SHORT) && !k.params.len) {
		fmt_ellipsize(out, name, max);
		return;
	}
	if ((flags & KNAME_UNWRAP) && k.targs.len && is_wrapper(k.base)) {
		struct str arg;

		if (kname_targs(name, &arg, 1) && arg.len)
			kname_parse(&k, arg.p, arg.len);
	}
	if (flags & KNAME_SCOPE)
		add_scope(&tmp, k.scope);
	strbuf_add(&tmp, k.base.p, k.base.len);
	fmt_ellipsize(out, tmp.buf, max);
	strbuf_release(&tmp);
}

size_t kname_targs(const char *name, struct str *args, size_t max)
{
	struct kname k;
	const char *p, *end;
	size_t n = 0;

	if (!name)
		return 0;
	kname_parse(&k, name, strlen(name));
	if (k.targs.len < 2)
		return 0;
	p = k.targs.p + 1;
	end = k.targs.p + k.targs.len - 1;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return 0;
	for (;;) {
		const char *q = p, *e;
		int depth = 0;

		for (; q < end && (depth || *q != ','); q++) {
			if (strchr("<([{", *q))
				depth++;
			else if (strchr(">)]}", *q) && depth)
				depth--;
		}
		for (e = q; e > p && e[-1] == ' '; e--)
			;
		if (n < max)
			args[n] = (struct str){p, (size_t)(e - p)};
		n++;
		if (q >= end)
			return n;
		for (p = q + 1; p < end && *p == ' '; p++)
			;
	}
}

/* A cast the demanglers put before an integer argument: "(int)", "(unsigned
 * long)", "(bool)": words in parentheses followed by a digit or '-'.
 * Returns its length at p, or 0. */
static size_t cast_len(const char *p, const char *end)
{
	const char *q = p + 1;

	if (*p != '(')
		return 0;
	while (q < end && (isalpha((unsigned char)*q) || *q == '_' || *q == ' '))
		q++;
	if (q == p + 1 || q >= end || *q != ')' || q + 1 >= end)
		return 0;
	if (!isdigit((unsigned char)q[1]) && q[1] != '-')
		return 0;
	return (size_t)(q + 1 - p);
}

static int key_char(int c)
{
	return isalnum(c) || c >= 0x80 || c == '_' || c == '$';
}

/* A "::" ends a qualified-name component in out, begun at comp: after a
 * plain identifier (a namespace, most likely) or an anonymous namespace the
 * component goes; after anything else ("Foo<int>::") it stays. */
static void key_scope(struct strbuf *out, size_t comp)
{
	int plain = 1;

	for (size_t i = comp; i < out->len; i++)
		plain &=
		    key_char((unsigned char)out->buf[i]) && !isdigit((unsigned char)out->buf[comp]);
	if (plain)
		strbuf_setlen(out, comp);
	else
		strbuf_addstr(out, "::");
}

void kname_key_arg(struct strbuf *out, struct str arg)
{
	const char *p = arg.p, *end = arg.p + arg.len;
	size_t comp = out->len;

	while (p < end) {
		size_t n;

		if (*p == ' ') {
			p++;
		} else if ((n = anon_len(p, end))) {
			p += n; /* nothing to keep; the "::" after it goes too */
		} else if ((n = cast_len(p, end))) {
			p += n;
		} else if (p + 1 < end && p[0] == ':' && p[1] == ':') {
			key_scope(out, comp);
			comp = out->len;
			p += 2;
		} else if (isdigit((unsigned char)*p)) {
			while (p < end && (isalnum((unsigned char)*p) || *p == '.')) {
				/* integer suffixes: 2ul, 1u, 3LL */
				if (!strchr("uUlL", *p))
					strbuf_addch(out, *p);
				p++;
			}
		} else if (key_char((unsigned char)*p)) {
			const char *s = p;

			while (p < end && key_char((unsigned char)*p))
				p++;
			if (p - s == 4 && !memcmp(s, "true", 4))
				strbuf_addch(out, '1');
			else if (p - s == 5 && !memcmp(s, "false", 5))
				strbuf_addch(out, '0');
			else if (!(p - s == 5 && !memcmp(s, "const", 5)))
				strbuf_add(out, s, (size_t)(p - s));
		} else {
			strbuf_addch(out, *p++);
			comp = out->len;
		}
	}
}

void kname_key(struct strbuf *out, const char *name)
{
	struct kname k;

	if (!name)
		return;
	kname_parse(&k, name, strlen(name));
	strbuf_add(out, k.base.p, k.base.len);
	kname_key_arg(out, k.targs);
}
