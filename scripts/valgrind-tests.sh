#!/usr/bin/env bash
# valgrind-tests.sh: the whole test suite under valgrind memcheck.
#
#   scripts/valgrind-tests.sh [CTEST-REGEX]
#
# Builds build-valgrind/ (no sanitizers, -O1 -g), then runs every ctest
# test with llmprof, the unit tests and the fuzz replays under
#   valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
# (CLI tests get a wrapper as $LLMPROF, so the llmprof processes they start
# are checked; the shells, python and the workloads they start are not).
# Each process writes build-valgrind/vg/<pid>.log; the script fails when a
# test fails or any log reports an error or a definite/indirect leak.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
B=${VALGRIND_BUILD:-build-valgrind}
command -v valgrind >/dev/null || { echo "valgrind-tests.sh: valgrind not installed" >&2; exit 2; }
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-O1 -g" \
	-DLLMPROF_SANITIZE= >/dev/null || exit 2
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null || exit 2
vg=$src/$B/vg
rm -rf "$vg" && mkdir -p "$vg/bin"
opts="--leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
opts="$opts --track-fds=no --num-callers=30 --log-file=$vg/%p.log"
cat >"$vg/bin/llmprof" <<WRAP
#!/bin/sh
exec valgrind $opts "$src/$B/llmprof" "\$@"
WRAP
chmod +x "$vg/bin/llmprof"
for f in "$src/$B"/llmprof-*; do # tests find helpers next to $LLMPROF
	[ -e "$f" ] && ln -sf "$f" "$vg/bin/"
done
# ctest runs unit tests and fuzz replays through valgrind itself, and the
# CLI tests through the wrapper (LLMPROF_TEST_LLMPROF overrides $LLMPROF)
cmake -S . -B "$B" -DLLMPROF_TEST_LLMPROF="$vg/bin/llmprof" >/dev/null || exit 2
cd "$B" || exit 2
export LLMPROF_UNDER_VALGRIND=1 # tests skip their RSS and wall-clock bounds
ctest -LE gpu -j "$(nproc 2>/dev/null || echo 2)" --timeout 1800 \
	-R "^(unit|fuzz)/${1:+.*($1)}" -T memcheck \
	--overwrite MemoryCheckCommand="$(command -v valgrind)" \
	--overwrite MemoryCheckCommandOptions="$opts" \
	--output-on-failure >"$vg/ctest.log" 2>&1
rc=$?
ctest -LE gpu -j "$(nproc 2>/dev/null || echo 2)" --timeout 1800 \
	-R "^cli/${1:+.*($1)}" --output-on-failure >>"$vg/ctest.log" 2>&1
rc=$((rc | $?))
cd "$src" || exit 2
grep -E "tests passed|tests failed|Failed|\*\*\*" "$vg/ctest.log" | tail -20
bad=$(grep -lE "ERROR SUMMARY: [1-9]|definitely lost: [1-9]|indirectly lost: [1-9]" "$vg"/*.log 2>/dev/null)
nlogs=$(ls "$vg"/*.log 2>/dev/null | grep -vc ctest.log)
echo "valgrind-tests.sh: $nlogs processes checked"
if [ -n "$bad" ]; then
	echo "valgrind-tests.sh: errors or leaks in:" >&2
	for f in $bad; do
		echo "== $f" >&2
		grep -E "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)|ERROR SUMMARY|definitely lost|indirectly lost|Command:" "$f" | head -12 >&2
	done
	exit 1
fi
[ $rc -eq 0 ] || { echo "valgrind-tests.sh: ctest failed (see $vg/ctest.log)" >&2; exit 1; }
echo "valgrind-tests.sh: clean"
