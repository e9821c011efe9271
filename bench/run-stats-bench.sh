#!/usr/bin/env bash
# Benchmark: `llmprof stats -r cuda_gpu_kern_sum,nvtx_gpu_proj_sum` against NVIDIA's
# `nsys stats` (2023.4.4) on the same synthetic export, in the same run: wall time and
# peak RSS (GNU time), and a byte-for-byte check that both print the same CSV.
#
# Beside them, in the same run: the floor, sqlite3's own shell reading the
# columns llmprof reads (the export read and nothing else), and, with
# BASELINE=path/to/llmprof, another build (best of 3 each). CPU time (user +
# sys) is printed beside wall time: on a shared machine it varies less.
# llmprof reads the kernels and the API calls on threads of their own, so
# its wall time can be below its CPU time where there are cores to spare;
# the load average at the start and the end says whether there were.
#
# usage: bench/run-stats-bench.sh [LLMPROF] [KERNELS] [RESULT.md]
#   defaults: build/llmprof, 1000000, bench/results/stats-1m.md
# Needs python3 (generator), /usr/bin/time, sqlite3, and nsys from
# scripts/nsight-cli-oracle.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
kernels=${2:-1000000}
result=${3:-$here/results/stats-1m.md}
eval "$(bash "$root/scripts/nsight-cli-oracle.sh")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
db=$work/bench.sqlite
reports=cuda_gpu_kern_sum,nvtx_gpu_proj_sum

gen_out=$(python3 "$here/gen-nsys-trace.py" "$db" --kernels "$kernels" --threads 4 --gpus 2 --steps 16 | sed "s|^.*: ||")
size=$(stat -c %s "$db")

measure() { # measure NAME CMD... -> "wall rss_kb cpu"
	local name=$1; shift
	/usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
	awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$work/$name.time"
}
best3() { # best3 NAME CMD... -> "best_wall max_rss best_cpu all_walls"
	local name=$1 w r c ws="" rs="" cs=""; shift
	for i in 1 2 3; do
		read -r w r c < <(measure "$name$i" "$@")
		ws="$ws $w" rs="$rs $r" cs="$cs $c"
	done
	echo "$(printf '%s\n' $ws | sort -n | head -1) $(printf '%s\n' $rs | sort -n | tail -1)" \
		"$(printf '%s\n' $cs | sort -n | head -1) $(echo $ws | tr ' ' ,)"
}
# the columns trace.c reads for these two reports, summed by sqlite3 itself
floor_sql="SELECT total(start), total(end), total(correlationId), total(globalPid),
 total(demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL;
SELECT total(start), total(end), total(globalTid), total(correlationId), total(nameId)
 FROM CUPTI_ACTIVITY_KIND_RUNTIME;
SELECT total(rowid), total(start), total(end), total(eventType), total(globalTid),
 total(endGlobalTid), max(text), total(textId), total(domainId), total(category) FROM NVTX_EVENTS;"
load=$(cut -d' ' -f1-3 /proc/loadavg) # other work on a shared machine
# warm the page cache once so that neither tool pays the first read
cat "$db" >/dev/null
read -r fl _ fc fls < <(best3 floor sqlite3 "$db" "$floor_sql")
read -r best rss cpu_s walls < <(best3 ours "$llmprof" stats -f csv -r $reports "$db")
base_row=""
if [ -n "${BASELINE:-}" ]; then
	read -r bb br bc bws < <(best3 base "$BASELINE" stats -f csv -r $reports "$db")
	cmp -s "$work/base1.out" "$work/ours1.out" || echo "baseline output differs" >&2
	base_row="| llmprof baseline $(git -C "$root" rev-parse --short "${BASELINE_REV:-HEAD}" 2>/dev/null) (best of 3: $bws) | $bb | $bc | $((br / 1024)) |"
fi
read -r n1 nr1 nc1 < <(measure nsys "$NSYS" stats -f csv -r $reports -o "$work/nsys" "$db")
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# same numbers? nsys -o writes one file per report; we print them separated by a blank line
{ cat "$work/nsys_cuda_gpu_kern_sum.csv"; echo; cat "$work/nsys_nvtx_gpu_proj_sum.csv"; } >"$work/nsys.csv"
if cmp -s "$work/nsys.csv" "$work/ours1.out"; then same="yes, byte for byte"; else same="NO"; fi
speedup=$(python3 -c "print(f'{$n1 / $best:.1f}')")
cpu_speedup=$(python3 -c "print(f'{$nc1 / $cpu_s:.1f}')")
over_floor=$(python3 -c "print(f'{$best / $fl:.1f}x wall, {$cpu_s / $fc:.1f}x CPU')")

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof stats vs nsys stats: $kernels kernels

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
- machine: $cpu, $cores cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm, load average $load at the start, $load_end at the end
- input: \`bench/gen-nsys-trace.py --kernels $kernels --threads 4 --gpus 2 --steps 16\`
  ($gen_out; $((size / 1048576)) MiB)
- command: \`llmprof stats -f csv -r $reports FILE\` vs
  \`nsys stats -f csv -r $reports -o BASE FILE\` (nsys 2023.4.4, Debian nsight-systems-target)

| tool | wall time (s) | CPU time (s) | peak RSS (MB) |
|---|---:|---:|---:|
| llmprof (best of 3: $walls) | $best | $cpu_s | $((rss / 1024)) |
${base_row:+$base_row
}| nsys stats | $n1 | $nc1 | $((nr1 / 1024)) |
| floor: sqlite3 reading the same columns (best of 3: $fls) | $fl | $fc | |

- speed-up: **${speedup}x** wall, ${cpu_speedup}x CPU (issue 33 target >= 25x); peak RSS target <= 500 MB
- llmprof against the floor: ${over_floor}
- same output as nsys: $same
MD
cat "$result"
