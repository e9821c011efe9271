#!/usr/bin/env bash
# Benchmark: `llmprof diff A B -o DIR` on two synthetic nsys exports of
# KERNELS kernels each (bench/gen-nsys-trace.py --regular; B with a 10 %
# slower nvjet family and another jitter seed): wall time and peak RSS (GNU
# time), best of 3, page cache warm. Target: <= 5 s for 1M kernels.
#
# usage: bench/run-diff-bench.sh [LLMPROF] [KERNELS] [RESULT.md]
#   defaults: build/llmprof, 1000000, bench/results/diff.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
llmprof=${1:-$root/build/llmprof}
kernels=${2:-1000000}
result=${3:-$here/results/diff.md}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
gen="--regular --kernels $kernels --threads 4 --gpus 2 --steps 16 --jitter 2"
python3 "$here/gen-nsys-trace.py" "$work/a.sqlite" $gen --seed 1 >/dev/null
python3 "$here/gen-nsys-trace.py" "$work/b.sqlite" $gen --seed 2 --slow nvjet:10 >/dev/null
cat "$work/a.sqlite" "$work/b.sqlite" >/dev/null
times=()
rss=0
for i in 1 2 3; do
	/usr/bin/time -f "%e %M" -o "$work/time" "$llmprof" diff "$work/a.sqlite" "$work/b.sqlite" \
		-o "$work/out" >"$work/stdout"
	read -r t r <"$work/time"
	times+=("$t")
	[ "$r" -gt "$rss" ] && rss=$r
done
best=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mkdir -p "$(dirname "$result")"
cat >"$result" <<MD
# llmprof diff: two traces of $kernels kernels

- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), llmprof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
- inputs: \`bench/gen-nsys-trace.py $gen --seed 1\` and the same with
  \`--seed 2 --slow nvjet:10\` ($(( $(stat -c %s "$work/a.sqlite") / 1048576 )) MiB each)
- command: \`bench/run-diff-bench.sh\`, which runs \`llmprof diff A.sqlite B.sqlite -o DIR\`

| wall time (s), best of 3 (${times[*]}) | peak RSS (MB) | target |
|---:|---:|---|
| $best | $((rss / 1024)) | <= 5 s |

What it printed:

\`\`\`text
$(cat "$work/stdout" | sed "s|$work/||")
\`\`\`
MD
cat "$result"
