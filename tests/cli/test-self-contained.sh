#!/usr/bin/env bash
# A clone of the repository is all the build and the tests need: no test,
# build or CI file refers to a `shared` folder beside the checkout or to the
# environment variable that once pointed at it (fixtures live in
# tests/data/, NVIDIA's CLIs come from scripts/nsight-cli-oracle.sh). Files
# checked: tests/, every CMakeLists.txt, Makefile, scripts/ (but
# scripts/gpu/: the GPU validation scripts may use the GPU machine's own
# tools) and .ci/. And the product names only what it ships: no message,
# comment or page of src/, docs/, README.md, conf/, tracer/, pytorch/,
# workloads/, examples/, calibrate/ or cmake/ points at such a folder
# (a fix a user cannot follow). Every tests/data/ path the tests name exists.
# .ci/run proves the whole claim by running `make test` in a fresh clone.
set -u
src=${LLMPROF_SOURCE_DIR:?}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$src" || fail "cannot enter $src"

# what a reference outside the clone looks like (spelt so that this file
# does not match itself)
refs() { grep -InE -e '\.\./shared\b' -e 'LLMPROF_SHARED[_]DIR' -e '\bshared/(fixtures|tools)/' "$@"; }

# the check must see each form
printf '%s\n' 'x=/src/..''/sha''red/fixtures/a.sqlite' 'LLMPROF_SHARED''_DIR=/x' \
	'bash shared''/tools/x.sh' 'launch__shared_mem_per_block' 'shared memory/tools' >"$tmp/probe"
[ "$(refs "$tmp/probe" | wc -l)" -eq 3 ] || fail "the check does not see each form: $(refs "$tmp/probe")"

# the files: tracked ones in a git checkout, else all of them
product="src docs README.md conf tracer pytorch workloads examples calibrate cmake"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -- tests Makefile scripts .ci ':(glob)**/CMakeLists.txt' $product >"$tmp/files"
else
	find tests scripts .ci Makefile $product -type f >"$tmp/files" 2>/dev/null
	find . -name CMakeLists.txt -not -path './build*' | sed 's|^\./||' >>"$tmp/files"
fi
grep -v '^scripts/gpu/' "$tmp/files" | sort -u >"$tmp/checked"
grep -qx tests/CMakeLists.txt "$tmp/checked" || fail "tests/CMakeLists.txt is not among the files checked"
grep -qx .ci/run "$tmp/checked" || fail ".ci/run is not among the files checked"
for f in src/nsight/nsys_diag.c docs/nsys.md docs/user-guide.md README.md; do
	grep -qx "$f" "$tmp/checked" || fail "$f is not among the files checked"
done
n=0
while IFS= read -r f; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	refs "$f" | sed "s|^|$f:|"
done <"$tmp/checked" >"$tmp/found"
[ ! -s "$tmp/found" ] || fail "$(printf 'these lines need what a clone does not have:\n%s' "$(cat "$tmp/found")")"

# every tests/data path named by a test is there (a fixture used but never
# added fails in a fresh clone only); a name cut short (a C string split in
# two, a printf format) must begin some file
grep -ohE 'tests/data/[A-Za-z0-9_./+-]*[A-Za-z0-9_/+-]' tests/cli/*.sh tests/unit/*.c tests/fuzz/*.sh |
	sort -u >"$tmp/named"
[ -s "$tmp/named" ] || fail "no tests/data path found in the tests"
while IFS= read -r p; do
	[ -e "$p" ] || compgen -G "$p*" >/dev/null || fail "a test names $p, which is not in the repository"
done <"$tmp/named"
echo "ok: $n files checked, $(wc -l <"$tmp/named") tests/data paths found"
