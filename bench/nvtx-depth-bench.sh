#!/usr/bin/env bash
# Benchmark: `llmprof stats -r nvtx_gpu_proj_sum` against NVTX nesting depth
# (bench/gen-nsys-trace.py --nested N: N push/pop ranges each inside the
# last, one kernel launched at every level). Wall time and peak RSS (GNU
# time) at depths 10k, 40k and 200k, and the ratio of times between depths
# (5x deeper: ~5x = linear, ~25x = quadratic). A second binary (e.g. a build
# of the parent commit) runs the depths up to BASELINE_MAX (default 40000)
# on the same files, in the same run.
#
# usage: bench/nvtx-depth-bench.sh [LLMPROF] [BASELINE_LLMPROF] [RESULT.md]
#   defaults: build/llmprof, none, bench/results/nvtx-depth.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
baseline=${2:-}
result=${3:-$here/results/nvtx-depth.md}
baseline_max=${BASELINE_MAX:-40000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
depths="10000 40000 200000"
for d in $depths; do
	python3 "$here/gen-nsys-trace.py" "$work/n$d.sqlite" --nested "$d" >/dev/null
done

measure() { # measure BIN DEPTH -> "wall rss_kb"
	cat "$work/n$2.sqlite" >/dev/null
	/usr/bin/time -f "%e %M" -o "$work/time" "$1" stats -f csv -r nvtx_gpu_proj_sum \
		"$work/n$2.sqlite" >"$work/out.$2" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	cat "$work/time"
}

rows() { # rows NAME BIN MAXDEPTH
	local name=$1 bin=$2 max=$3 prev="" t m
	for d in $depths; do
		[ "$d" -le "$max" ] || continue
		read -r t m < <(measure "$bin" "$d")
		if [ -n "$prev" ]; then
			ratio=$(python3 -c "print(f'{$t / max($prev, 0.01):.1f}x')")
		else
			ratio=""
		fi
		echo "| $name | $d | $t | $((m / 1024)) | $ratio |"
		prev=$t
	done
}

table=$(rows "llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$llmprof" 200000)
cp "$work/out.200000" "$work/new.200000" 2>/dev/null || true
if [ -n "$baseline" ]; then
	cp "$work/out.40000" "$work/new.40000"
	table="$(rows baseline "$baseline" "$baseline_max")
$table"
	if cmp -s "$work/out.40000" "$work/new.40000"; then same="yes, byte for byte (depth 40,000)"; else same="NO"; fi
fi
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof stats -r nvtx_gpu_proj_sum against NVTX nesting depth

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
- input: \`bench/gen-nsys-trace.py OUT --nested N\` (N ranges nested N deep, N kernels)
- command: \`bench/nvtx-depth-bench.sh ${1:-build/llmprof} ${2:-}\`, each
  \`/usr/bin/time -f "%e %M" llmprof stats -f csv -r nvtx_gpu_proj_sum FILE\`, one run each;
  target: depth 200,000 in <= 5 s
${baseline:+- same output as the baseline: $same}

| binary | depth | wall (s) | peak RSS (MB) | time vs the depth before |
|---|---:|---:|---:|---:|
$table
MD
cat "$result"
