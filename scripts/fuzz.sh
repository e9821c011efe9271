#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets of tests/fuzz (clang, ASan+UBSan,
# in build-fuzz/) and runs each for a while.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    default: 20 s, every target
#   FUZZ_RUNS=N scripts/fuzz.sh 0 sqlite     stop after N executions (and
#                                            after SECONDS too, unless 0)
#
# Each target starts from tests/fuzz/corpus/<target>/ (read only) and its
# regression inputs, keeps what it learns in build-fuzz/corpus/<target>/,
# uses tests/fuzz/fuzz-<target>.dict when there is one, and writes a crash
# to build-fuzz/crashes/<target>/. Copy a crash into
# tests/fuzz/regressions/<target>/ once it is fixed: ctest replays it.
# Exit: 0 when no target crashed; 1 otherwise (the log names the input).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
CC=${CC:-$(command -v clang-14 || command -v clang || true)}
if [ -z "$CC" ]; then
	echo "fuzz.sh: clang not found (apt-get install clang-14)" >&2
	exit 2
fi
B=${FUZZ_BUILD:-build-fuzz}
cmake -S . -B "$B" -G Ninja -DCMAKE_C_COMPILER="$CC" -DLLMPROF_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMPROF_CUDA=OFF >/dev/null
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz-*.c; do
		t=${f#tests/fuzz/fuzz-}
		targets+=("${t%.c}")
	done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fail=0
for t in "${targets[@]}"; do
	bin=$B/fuzz/fuzz-$t
	[ -x "$bin" ] || { echo "fuzz.sh: no target '$t'" >&2; exit 2; }
	mkdir -p "$B/corpus/$t" "$B/crashes/$t"
	args=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1
		-artifact_prefix="$B/crashes/$t/")
	[ -f "tests/fuzz/fuzz-$t.dict" ] && args+=(-dict="tests/fuzz/fuzz-$t.dict")
	[ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
	[ "$secs" != 0 ] && args+=(-max_total_time="$secs")
	seeds=()
	for d in "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"; do
		[ -d "$d" ] && seeds+=("$d")
	done
	log=$B/fuzz-$t.log
	echo "fuzz.sh: $t (${FUZZ_RUNS:+$FUZZ_RUNS runs, }$secs s), log $log"
	if ! "$bin" "${args[@]}" "$B/corpus/$t" "${seeds[@]}" >"$log" 2>&1; then
		echo "fuzz.sh: $t FAILED:" >&2
		grep -E "ERROR|SUMMARY|Test unit written|runtime error" "$log" | head -20 >&2
		fail=1
	else
		grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|cov:" "$log" |
			tail -3 | sed "s/^/  $t: /"
	fi
done
exit $fail
