#!/usr/bin/env bash
# fuzz-tracelog-heap.sh: what SQLite's plain heap (tests/fuzz/fuzz.h,
# FUZZ_SQLITE_PLAIN_HEAP) saves per fuzz-tracelog execution. One binary,
# the same inputs, the two heaps taken in turn within one run:
#   A: SQLite on ASan's heap (FUZZ_SQLITE_ASAN_HEAP=1), as before
#   B: SQLite on the plain heap (the default)
# Prints CPU time (user + sys) per execution of each round and the ratio
# of the medians.
#
#   bench/fuzz-tracelog-heap.sh [ROUNDS] [INPUT_DIR]
#
# INPUT_DIR defaults to build-fuzz/corpus/tracelog (grown by scripts/fuzz.sh)
# or else the seed corpus; every input runs REPEAT times (default 10) per
# round, as libFuzzer's replay mode (no mutation, no coverage feedback).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
dir=${2:-build-fuzz/corpus/tracelog}
[ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] || dir=tests/fuzz/corpus/tracelog
repeat=${REPEAT:-10}
CC=${CC:-$(command -v clang-14 || command -v clang || true)}
[ -n "$CC" ] || { echo "fuzz-tracelog-heap.sh: clang not found" >&2; exit 2; }
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER="$CC" -DLLMPROF_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMPROF_CUDA=OFF >/dev/null
cmake --build build-fuzz --target fuzz-tracelog >/dev/null
bin=build-fuzz/fuzz/fuzz-tracelog
inputs=()
for ((i = 0; i < repeat; i++)); do inputs+=("$dir"/*); done
n=${#inputs[@]}
t=$(mktemp)
trap 'rm -f "$t"' EXIT
cpu() { # asan|plain -> CPU seconds for one pass over the inputs
	local e=(-u FUZZ_SQLITE_ASAN_HEAP)
	[ "$1" = asan ] && e=(FUZZ_SQLITE_ASAN_HEAP=1)
	env "${e[@]}" /usr/bin/time -o "$t" -f "%U %S" "$bin" "${inputs[@]}" >/dev/null 2>&1
	if grep -q -E "exited|terminated" "$t"; then
		echo "fuzz-tracelog-heap.sh: the target failed on the $1 heap: $(head -1 "$t")" >&2
		return 1
	fi
	awk '{ print $1 + $2 }' "$t"
}
echo "inputs: $n executions per round from $dir; $rounds rounds; $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p')"
a=() b=()
for ((r = 1; r <= rounds; r++)); do
	v=$(cpu asan) || exit 1
	a+=("$v")
	v=$(cpu plain) || exit 1
	b+=("$v")
	echo "round $r: asan heap ${a[-1]} s, plain heap ${b[-1]} s"
done
python3 - "$n" "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
n = int(sys.argv[1])
a = statistics.median(map(float, sys.argv[2].split()))
b = statistics.median(map(float, sys.argv[3].split()))
print(f"median CPU per execution: asan heap {a / n * 1e3:.2f} ms, plain heap {b / n * 1e3:.2f} ms")
print(f"executions per CPU second: asan heap {n / a:.0f}, plain heap {n / b:.0f}; ratio {a / b:.2f}x")
PY
