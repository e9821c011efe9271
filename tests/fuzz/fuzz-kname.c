/* fuzz-kname.c: libFuzzer target for the kernel-name module
 * (src/trace/kname.c): every operation on one name, as a trace, an ncu CSV
 * or a tracer log may carry it (anything, up to its first NUL).
 *
 *   scripts/fuzz.sh 60 kname
 *
 * Properties besides memory safety: the parts kname_parse() finds lie in
 * the name and in order (scope, base, template list, parameter list);
 * kname_base() is a piece of the name; kname_display() keeps to its
 * length limit; kname_targs() counts the same whatever room it is given,
 * and the arguments lie inside the template list. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xalloc.h"
#include "trace/kname.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void check(int ok, const char *what, const char *name)
{
	if (!ok) {
		fprintf(stderr, "kname: %s: '%s'\n", what, name);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = xmalloc(size + 1);
	const char *end;
	struct strbuf sb = STRBUF_INIT;
	struct str args[8];
	struct kname k;
	size_t n, len;

	memcpy(name, data, size);
	name[size] = '\0';
	len = strlen(name);
	end = name + len;

	kname_parse(&k, name, len);
	check(k.scope.p >= name && k.scope.p + k.scope.len <= end, "scope outside", name);
	check(k.base.p >= k.scope.p + k.scope.len && k.base.p + k.base.len <= end, "base", name);
	check(k.targs.p >= k.base.p + k.base.len && k.targs.p + k.targs.len <= end, "targs", name);
	check(k.params.p >= k.targs.p + k.targs.len && k.params.p + k.params.len <= end, "params",
	      name);
	check(!len || k.base.len, "an empty base of a name", name);

	kname_base(&sb, name);
	check(sb.len == k.base.len && !memcmp(sb.buf, k.base.p, sb.len), "base differs from parse",
	      name);

	for (unsigned flags = 0; flags < 8; flags++) {
		strbuf_reset(&sb);
		kname_display(&sb, name, flags, 44);
		check(utf8_chars(sb.buf) <= 44, "display over its limit", name);
		check(sb.len > 0, "empty display", name);
	}

	n = kname_targs(name, args, 8);
	check(kname_targs(name, NULL, 0) == n, "targs count depends on room", name);
	for (size_t i = 0; i < n && i < 8; i++) {
		check(args[i].p > k.targs.p && args[i].p + args[i].len < k.targs.p + k.targs.len,
		      "argument outside the template list", name);
		strbuf_reset(&sb);
		kname_key_arg(&sb, args[i]);
	}

	strbuf_reset(&sb);
	kname_key(&sb, name);
	check(sb.len >= k.base.len && !memcmp(sb.buf, k.base.p, k.base.len),
	      "key does not start with the base", name);

	strbuf_release(&sb);
	free(name);
	return 0;
}
