#!/usr/bin/env bash
# Benchmark: `llmprof report --ncu-csv RAW.csv -o DIR` alone on synthetic
# raw-page exports of 1,000 and 8,000 rows (bench/gen-ncu-csv.py: the H100
# kernel-replay fixture's rows repeated, one NVTX region holding them all),
# and 8,000 rows in 8,000 regions with 8,000 kernel names. Wall time and peak
# RSS (GNU time) of each, per row, and the 8k/1k ratio of the per-row figures
# (1.0 = linear). With a second binary (e.g. a build of the parent commit)
# the same inputs are run with it too, in the same run.
#
# usage: bench/ncu-only-bench.sh [LLMPROF] [BASELINE_LLMPROF] [RESULT.md]
#   defaults: build/llmprof, none, bench/results/ncu-only.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
baseline=${2:-}
result=${3:-$here/results/ncu-only.md}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

python3 "$here/gen-ncu-csv.py" "$work/r1k.csv" --rows 1000 >/dev/null
python3 "$here/gen-ncu-csv.py" "$work/r8k.csv" --rows 8000 >/dev/null
python3 "$here/gen-ncu-csv.py" "$work/r8k-regions.csv" --rows 8000 --regions 8000 --names 8000 >/dev/null

measure() { # measure BIN CSV -> "wall rss_kb"
	rm -rf "$work/out"
	cat "$2" >/dev/null
	/usr/bin/time -f "%e %M" -o "$work/time" "$1" report --ncu-csv "$2" -o "$work/out" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	cat "$work/time"
}

rows() { # rows NAME BIN -> markdown rows
	local name=$1 bin=$2 t1 m1 t8 m8 tr mr
	read -r t1 m1 < <(measure "$bin" "$work/r1k.csv")
	read -r t8 m8 < <(measure "$bin" "$work/r8k.csv")
	read -r tr mr < <(measure "$bin" "$work/r8k-regions.csv")
	python3 - "$name" "$t1" "$m1" "$t8" "$m8" "$tr" "$mr" <<'PY'
import sys
n, t1, m1, t8, m8, tr, mr = sys.argv[1], *map(float, sys.argv[2:])
print(f"| {n} | 1,000 rows, 1 region | {t1:.2f} | {m1/1024:.0f} | {t1/1000*1e3:.3f} | {m1/1000:.1f} |")
print(f"| {n} | 8,000 rows, 1 region | {t8:.2f} | {m8/1024:.0f} | {t8/8000*1e3:.3f} | {m8/8000:.1f} |")
print(f"| {n} | 8,000 rows, 8,000 regions | {tr:.2f} | {mr/1024:.0f} | {tr/8000*1e3:.3f} | {mr/8000:.1f} |")
print(f"| {n} | ratio per row, 8k/1k (1 region) | {t8/8/t1:.2f}x | {m8/8/m1:.2f}x | | |")
PY
}

table=$(rows "llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$llmprof")
[ -z "$baseline" ] || table="$(rows baseline "$baseline")
$table"
size1=$(stat -c %s "$work/r1k.csv") size8=$(stat -c %s "$work/r8k.csv")
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof report --ncu-csv alone: time and memory per row

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
- input: \`bench/gen-ncu-csv.py OUT --rows 1000|8000 [--regions 8000 --names 8000]\`
  (568 columns; $((size1 / 1024)) KiB and $((size8 / 1048576)) MiB)
- command: \`bench/ncu-only-bench.sh ${1:-build/llmprof} ${2:-}\`, each
  \`/usr/bin/time -f "%e %M" llmprof report --ncu-csv FILE -o DIR\`, one run each

| binary | input | wall (s) | peak RSS (MB) | ms per row | KB per row |
|---|---|---:|---:|---:|---:|
$table
MD
cat "$result"
