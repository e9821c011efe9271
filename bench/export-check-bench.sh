#!/usr/bin/env bash
# Benchmark: what checking that an export is whole costs on a big one
# (bench/gen-nsys-trace.py --kernels N --threads 4 --gpus 2 --steps 16).
# llmprof compares the file's size with the page count in its SQLite
# header (src/trace/sqlite_open.c: one 100-byte read); SQLite's own
# `PRAGMA quick_check` reads every page. Prints the wall time of
# `stats -r cuda_gpu_kern_sum` (which includes llmprof's check) and of
# `sqlite3 ... 'PRAGMA quick_check'`, best of 3 each, and their ratio.
#
# usage: bench/export-check-bench.sh [LLMPROF] [KERNELS] [RESULT.md] [EXPORT.sqlite]
#   defaults: build/llmprof, 1000000, bench/results/export-check.md, generated
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"
llmprof=${1:-$root/build/llmprof}
kernels=${2:-1000000}
result=${3:-$here/results/export-check.md}
db=${4:-}
command -v sqlite3 >/dev/null || { echo "sqlite3 (the shell) is needed" >&2; exit 1; }
gen="--kernels $kernels --threads 4 --gpus 2 --steps 16"
if [ -z "$db" ]; then
	db=$work/bench.sqlite
	python3 "$here/gen-nsys-trace.py" "$db" $gen >/dev/null
fi
cat "$db" >/dev/null # page cache warm for both

best() { # best CMD...: the lowest wall time of 3 runs, in seconds
	local b=
	for _ in 1 2 3; do
		/usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1
		t=$(cat "$work/t")
		[ -z "$b" ] || awk "BEGIN{exit !($t < $b)}" && b=$t
	done
	echo "$b"
}
s=$(best "$llmprof" stats -r cuda_gpu_kern_sum -f csv "$db")
q=$(best sqlite3 "file:$db?immutable=1" 'PRAGMA quick_check')
ratio=$(awk "BEGIN{printf \"%.2f\", $q / $s}")
bench_head "$result" '# What checking that an export is whole costs' "$llmprof"
cat >>"$result" <<MD
- input: \`bench/gen-nsys-trace.py OUT $gen\` ($(($(stat -c %s "$db") / 1048576)) MiB)
- command: \`bench/export-check-bench.sh $llmprof $kernels\`, best of 3 each

| what | wall (s) |
|---|---:|
| \`llmprof stats -r cuda_gpu_kern_sum\` (header check included) | $s |
| \`PRAGMA quick_check\` alone | $q |
| quick_check / the whole stats run | $ratio |
MD
tail -n 9 "$result"
