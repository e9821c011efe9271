#!/usr/bin/env bash
# collectives-scale.sh: the collectives analysis at 64 and 256 ranks x
# KERNELS kernels each (default 100000), in two processes so that each peak
# RSS is its own; prints both runs, the time ratio 256/64 by wall and by
# CPU time (linear in ranks: about 4) and fails when a peak RSS exceeds 1 GB. Results:
# bench/results/collectives-scale.md.
# usage: bench/collectives-scale.sh [BUILD_DIR [KERNELS]]
set -euo pipefail
build=${1:-build}
kernels=${2:-100000}
bin=$build/bench/bench-collectives-scale
[ -x "$bin" ] || { echo "collectives-scale: $bin missing: run make first" >&2; exit 2; }
declare -A secs cpu
for ranks in 64 256; do
	out=$("$bin" "$ranks" "$kernels")
	printf '%s\n' "$out"
	secs[$ranks]=$(printf '%s\n' "$out" | awk '/^analysis_s/ { print $2 }')
	cpu[$ranks]=$(printf '%s\n' "$out" | awk '/^analysis_s/ { print $8 }')
	rss=$(printf '%s\n' "$out" | awk '/^analysis_s/ { print $6 }')
	awk -v r="$rss" 'BEGIN { exit !(r <= 1024) }' ||
		{ echo "collectives-scale: peak RSS ${rss} MB > 1 GB at $ranks ranks" >&2; exit 1; }
done
awk -v a="${secs[64]}" -v b="${secs[256]}" -v c="${cpu[64]}" -v d="${cpu[256]}" \
	'BEGIN { printf "time ratio 256/64: %.2f wall, %.2f CPU (linear: 4)\n", b / a, d / c }'
