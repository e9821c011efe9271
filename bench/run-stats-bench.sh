#!/usr/bin/env bash
# Benchmark: `llmprof stats -r cuda_gpu_kern_sum,nvtx_gpu_proj_sum` against NVIDIA's
# `nsys stats` (2023.4.4) on the same synthetic export, in the same run: wall time and
# peak RSS (GNU time), and a byte-for-byte check that both print the same CSV.
#
# usage: bench/run-stats-bench.sh [LLMPROF] [KERNELS] [RESULT.md]
#   defaults: build/llmprof, 1000000, bench/results/stats-1m.md
# Needs python3 (generator), /usr/bin/time, and nsys from scripts/nsight-cli-oracle.sh.
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

measure() { # measure NAME CMD... -> "wall rss_kb"
	local name=$1; shift
	/usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
	cat "$work/$name.time"
}
# warm the page cache once so that neither tool pays the first read
cat "$db" >/dev/null
read -r l1 r1 < <(measure ours1 "$llmprof" stats -f csv -r $reports "$db")
read -r l2 r2 < <(measure ours2 "$llmprof" stats -f csv -r $reports "$db")
read -r l3 r3 < <(measure ours3 "$llmprof" stats -f csv -r $reports "$db")
read -r n1 nr1 < <(measure nsys "$NSYS" stats -f csv -r $reports -o "$work/nsys" "$db")
best=$(printf '%s\n' "$l1" "$l2" "$l3" | sort -n | head -1)
rss=$(printf '%s\n' "$r1" "$r2" "$r3" | sort -n | tail -1)

# same numbers? nsys -o writes one file per report; we print them separated by a blank line
{ cat "$work/nsys_cuda_gpu_kern_sum.csv"; echo; cat "$work/nsys_nvtx_gpu_proj_sum.csv"; } >"$work/nsys.csv"
if cmp -s "$work/nsys.csv" "$work/ours1.out"; then same="yes, byte for byte"; else same="NO"; fi
speedup=$(python3 -c "print(f'{$n1 / $best:.1f}')")

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof stats vs nsys stats: $kernels kernels

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
- machine: $cpu, $cores cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
- input: \`bench/gen-nsys-trace.py --kernels $kernels --threads 4 --gpus 2 --steps 16\`
  ($gen_out; $((size / 1048576)) MiB)
- command: \`llmprof stats -f csv -r $reports FILE\` vs
  \`nsys stats -f csv -r $reports -o BASE FILE\` (nsys 2023.4.4, Debian nsight-systems-target)

| tool | wall time (s) | peak RSS (MB) |
|---|---:|---:|
| llmprof (best of 3: $l1, $l2, $l3) | $best | $((rss / 1024)) |
| nsys stats | $n1 | $((nr1 / 1024)) |

- speed-up: **${speedup}x** (target >= 10x); peak RSS target <= 500 MB
- same output as nsys: $same
MD
cat "$result"
