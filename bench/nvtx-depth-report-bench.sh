#!/usr/bin/env bash
# Benchmark: `llmprof report --trace`, `llmprof diff` and `llmprof stats -r
# nvtx_kern_sum` against NVTX nesting
# depth (bench/gen-nsys-trace.py --nested N: N push/pop ranges each inside
# the last, one kernel launched at every level). Wall time, CPU time
# (user + sys: the number to read on a shared machine) and peak RSS (GNU
# time) at depths 3k, 30k, 100k and 300k, and the ratio of CPU times between
# depths (3.3x deeper: ~3.3x = linear, ~11x = quadratic). A second binary
# (e.g. a build of the parent commit) runs the depths up to BASELINE_MAX
# (default 6000) on the same files, in the same run.
#
# usage: bench/nvtx-depth-report-bench.sh [LLMPROF] [BASELINE_LLMPROF] [RESULT.md]
#   defaults: build/llmprof, none, bench/results/nvtx-depth-report.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
baseline=${2:-}
result=${3:-$here/results/nvtx-depth-report.md}
baseline_max=${BASELINE_MAX:-6000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
depths="3000 30000 100000 300000"
for d in $depths; do
	python3 "$here/gen-nsys-trace.py" "$work/n$d.sqlite" --nested "$d" >/dev/null
done

measure() { # measure BIN DEPTH WHAT -> "wall cpu rss_kb"
	local f=$work/n$2.sqlite
	cat "$f" >/dev/null
	case $3 in
	report) set -- "$1" report --trace "$f" -o "$work/r.$2" ;;
	diff) set -- "$1" diff "$f" "$f" ;;
	kern) set -- "$1" stats -f csv -r nvtx_kern_sum "$f" ;;
	esac
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time"
}

rows() { # rows NAME BIN MAXDEPTH
	local name=$1 bin=$2 max=$3 what d prev t c m ratio
	for what in report diff kern; do
		prev=""
		for d in $depths; do
			[ "$d" -le "$max" ] || continue
			read -r t c m < <(measure "$bin" "$d" "$what")
			ratio=""
			[ -z "$prev" ] || ratio=$(python3 -c "print(f'{$c / max($prev, 0.01):.1f}x')")
			echo "| $name | $what | $d | $t | $c | $((m / 1024)) | $ratio |"
			prev=$c
		done
	done
}

table=$(rows "llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$llmprof" 300000)
if [ -n "$baseline" ]; then
	table="$(rows baseline "$baseline" "$baseline_max")
$table"
fi
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof report --trace, diff and stats -r nvtx_kern_sum against NVTX nesting depth

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm,
  load average $(cut -d' ' -f1 /proc/loadavg) while it ran
- input: \`bench/gen-nsys-trace.py OUT --nested N\` (N ranges nested N deep, N kernels)
- command: \`bench/nvtx-depth-report-bench.sh ${1:-build/llmprof} ${2:-}\`, each
  \`/usr/bin/time llmprof report --trace FILE -o DIR\`, \`llmprof diff FILE FILE\` and
  \`llmprof stats -f csv -r nvtx_kern_sum FILE\` (kern), one run each; target: depth 300,000
  in <= 5 s

| binary | command | depth | wall (s) | CPU (s) | peak RSS (MB) | CPU vs the depth before |
|---|---|---:|---:|---:|---:|---:|
$table
MD
cat "$result"
