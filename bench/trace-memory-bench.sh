#!/usr/bin/env bash
# Benchmark: peak RSS (GNU time) of the reports on one big synthetic export
# (bench/gen-nsys-trace.py --kernels N --threads 4 --gpus 2 --steps 16):
# `report --trace`, `stats` (its default reports) and `stats -r
# nvtx_gpu_proj_sum,nvtx_kern_sum`, one run each, with bytes per kernel;
# target: every one within 1 GB at 8 M kernels.
#
# usage: bench/trace-memory-bench.sh [LLMPROF] [KERNELS] [RESULT.md] [EXPORT.sqlite]
#   defaults: build/llmprof, 8000000, bench/results/trace-memory.md, generated
#   (an 8 M-kernel export takes a few minutes to generate and ~900 MB: pass
#   one to reuse it). The result file is appended to, one table per run, so
#   that a run of an older build can sit beside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
kernels=${2:-8000000}
result=${3:-$here/results/trace-memory.md}
db=${4:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
gen="--kernels $kernels --threads 4 --gpus 2 --steps 16"
if [ -z "$db" ]; then
	db=$work/bench.sqlite
	python3 "$here/gen-nsys-trace.py" "$db" $gen >/dev/null
fi

measure() { # measure NAME CMD... -> "| NAME | wall | MB | bytes/kernel |"
	local name=$1 t m
	shift
	cat "$db" >/dev/null
	rm -rf "$work/out"
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	read -r t m <"$work/time"
	echo "| $name | $t | $((m / 1024)) | $((m * 1024 / kernels)) |"
}

rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
rows=$(
	measure "report --trace" "$llmprof" report --trace "$db" -o "$work/out"
	measure "stats" "$llmprof" stats -f csv "$db"
	measure "stats -r nvtx_gpu_proj_sum,nvtx_kern_sum" "$llmprof" stats -f csv \
		-r nvtx_gpu_proj_sum,nvtx_kern_sum "$db"
)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mkdir -p "$(dirname "$result")"
[ -s "$result" ] || printf '# Peak memory of the reports on one big export\n' >"$result"
cat >>"$result" <<MD

## $llmprof ($rev), $(date -u +%Y-%m-%dT%H:%M:%SZ)

- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
- input: \`bench/gen-nsys-trace.py OUT $gen\` ($(($(stat -c %s "$db") / 1048576)) MiB)
- command: \`bench/trace-memory-bench.sh $llmprof $kernels\`, one run each; target <= 1 GB

| command | wall (s) | peak RSS (MB) | bytes per kernel |
|---|---:|---:|---:|
$rows
MD
tail -n 12 "$result"
