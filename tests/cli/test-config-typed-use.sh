#!/usr/bin/env bash
# Code outside src/config/ reads the resolved config through its typed
# struct (config_typed(), config/typed.h), never a key by its name: a key
# misspelled in a string is only found at run time, and a getter's fallback
# restates the schema's default. The string-keyed getters are declared in
# config/internal.h; this fails when a source file outside src/config/ calls
# one, includes config/internal.h, or compares run.mode as a string. tests/
# may use what they need. A probe tree checks the checker first.
set -u
src=${LLMPROF_SOURCE_DIR:?}
fail=0

# check ROOT: prints "FILE:LINE: text" for every breach under ROOT/src
check() {
	local root=$1
	(cd "$root" && grep -rnE --include='*.c' --include='*.h' \
		'config_get_(string|int|double|bool)|config_list_(len|item)|"config/internal\.h"|strcmp\([^;]*"(light|deep)"' \
		src | grep -v '^src/config/')
}

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/src/config" "$probe/src/pipeline"
printf 'int x(void) { return (int)config_get_int(cfg, "run.top_n_kernels", 30); }\n' \
	>"$probe/src/config/ok.c"
if [ -n "$(check "$probe")" ]; then
	echo "FAIL: the checker flags a getter inside src/config/"
	fail=1
fi
printf 'int y(void) { return (int)config_get_int(cfg, "run.top_n_kernels", 30); }\n' \
	>"$probe/src/pipeline/bad.c"
printf 'int z(const char *m) { return !strcmp(m, "light"); }\n' >"$probe/src/pipeline/mode.c"
printf '#include "config/internal.h"\n' >"$probe/src/pipeline/inc.h"
for f in bad.c mode.c inc.h; do
	if ! check "$probe" | grep -q "^src/pipeline/$f:"; then
		echo "FAIL: the checker misses src/pipeline/$f"
		fail=1
	fi
done

out=$(check "$src")
if [ -n "$out" ]; then
	echo "FAIL: string-keyed config reads outside src/config/ (use config_typed()):"
	echo "$out"
	fail=1
fi
[ "$fail" = 0 ] && echo "ok: config is read through its typed struct outside src/config/"
exit "$fail"
