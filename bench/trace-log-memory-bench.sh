#!/usr/bin/env bash
# Benchmark: peak RSS (GNU time) and wall time of the builtin tracer's log
# -> SQLite conversion (the `trace` step of `profile`, trace_convert()) on
# synthetic logs of growing size (tests/support/tlogsynth.h through
# `trace-tool synth`: one process, 100 kernels per step, each launched by
# cudaLaunchKernel, every second one's driver call aliased; a memcpy and a
# memset per step). Target: a 10 GiB log converted within 1 GB, the memory
# flat in the log's size.
#
# usage: bench/trace-log-memory-bench.sh [BUILD] [RESULT.md] [GIB...]
#   defaults: build, bench/results/trace-log-memory.md, 1 4 10.
#   MODE=activity: launch calls as the activity source writes them (the
#   tracer's default; TLOG_API_ACT records, nested driver calls).
#   Each size needs its log and its database on disk at once (~2.2x the
#   log); both are deleted after each size. The result file is appended to.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
result=${2:-$here/results/trace-log-memory.md}
shift $(($# > 2 ? 2 : $#))
sizes=${*:-1 4 10}
mode=${MODE:-callback}
tool=$build/tests/trace-tool
[ -x "$tool" ] || { echo "no $tool (make first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) missing" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tlog-bench.XXXXXX"); trap 'rm -rf "$work"' EXIT
kps=100
synth_mode=()
[ "$mode" = callback ] || synth_mode=(activity)

# bytes per step, from a 1,000-step log
mkdir -p "$work/logs"
"$tool" synth "$work/logs" 1000 $kps "${synth_mode[@]}"
per_step=$(($(stat -c %s "$work/logs/trace-4242.bin") / 1000))
rm -f "$work/logs"/*

{
	echo
	echo "## $(git -C "$root" rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%M:%SZ), $mode source"
	echo
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM"
	echo "- input: \`trace-tool synth DIR STEPS $kps ${synth_mode[*]}\`, $per_step bytes per step"
	echo "- command: \`/usr/bin/time -f '%e %M' trace-tool convert DIR OUT.sqlite\`, one run each"
	echo
	echo "| log (GiB) | steps | kernels | wall (s) | peak RSS (MB) | database (GiB) |"
	echo "|---:|---:|---:|---:|---:|---:|"
} >>"$result"

for g in $sizes; do
	steps=$(awk -v g="$g" -v p="$per_step" 'BEGIN { printf "%d", g * 1073741824 / p }')
	"$tool" synth "$work/logs" "$steps" $kps "${synth_mode[@]}"
	log=$(stat -c %s "$work/logs/trace-4242.bin")
	/usr/bin/time -f '%e %M' -o "$work/time" "$tool" convert "$work/logs" "$work/out.sqlite" \
		>"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	read -r wall kb <"$work/time"
	db=$(stat -c %s "$work/out.sqlite")
	printf '| %.2f | %d | %d | %s | %d | %.2f |\n' "$(echo "$log / 1073741824" | bc -l)" \
		"$steps" $((steps * kps)) "$wall" $((kb / 1024)) "$(echo "$db / 1073741824" | bc -l)" |
		tee -a "$result"
	rm -f "$work/logs"/* "$work/out.sqlite"
done
