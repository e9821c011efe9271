#!/usr/bin/env bash
# CPU cost of llmprof's PyTorch module ranges (no GPU, no torch needed):
# bench/pytorch/nvtx_cost.py with no NVTX tool and with the builtin tracer's
# NVTX injection (records written to a temporary folder), interleaved
# ROUNDS times; then the start-up cost of a Python program that never
# imports torch: the startup module's own import time, compiled at each
# start (an installed, read-only tree) and from __pycache__.
# Usage: bench/pytorch/nvtx-cost.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/../.."
b=${1:-build}
mod=$(cd "$b/pytorch" && pwd)
so=$(cd "$b/tracer" && pwd)/libllmprof_tracer.so
rounds=${ROUNDS:-2}
t=$(mktemp -d)
py=$(python3 -c "import sys; print(sys.executable)") # the interpreter itself, not a launcher script
trap 'rm -rf "$t"' EXIT
python3 --version
nproc
for r in $(seq "$rounds"); do
	echo "== round $r: no NVTX tool"
	env -u NVTX_INJECTION64_PATH python3 bench/pytorch/nvtx_cost.py "$mod"
	echo "== round $r: builtin tracer, NVTX only"
	rm -rf "$t/log" && mkdir "$t/log"
	NVTX_INJECTION64_PATH=$so LLMPROF_TRACE_OUT=$t/log LLMPROF_TRACE_CUDA=0 \
		python3 bench/pytorch/nvtx_cost.py "$mod"
	ls -s "$t/log"
done
# instructions per call (callgrind: N calls minus none, over N), which no
# other load on the machine moves
if command -v valgrind >/dev/null && [ "${CALLGRIND:-1}" = 1 ]; then
	echo "== instructions per call (callgrind, N=20000)"
	ins() { # NAME N then env assignments
		local name=$1 n=$2
		shift 2
		rm -f "$t/cg.out"
		env "$@" ONLY="$name" N="$n" valgrind --tool=callgrind --callgrind-out-file="$t/cg.out" \
			"$py" bench/pytorch/nvtx_cost.py "$mod" >/dev/null 2>&1
		sed -n 's/^summary: //p' "$t/cg.out"
	}
	for what in "lib push+pop" "hooks pre+post" "hooks, deeper than the limit" "hooks, compiling"; do
		for tool in none tracer; do
			if [ $tool = none ]; then set -- -u NVTX_INJECTION64_PATH; else
				rm -rf "$t/log" && mkdir "$t/log"
				set -- NVTX_INJECTION64_PATH="$so" LLMPROF_TRACE_OUT="$t/log" LLMPROF_TRACE_CUDA=0
			fi
			a=$(ins "$what" 20000 "$@")
			z=$(ins "$what" 0 "$@")
			printf '%-34s %-7s %8.0f instructions\n' "$what" "$tool" "$(echo "($a - $z) / 20000" | bc -l)"
		done
	done
fi
echo "== start-up: the startup module's own import time (python -X importtime, sitecustomize"
echo "   cumulative, median of 15 starts of 'python3 -c pass' that never imports torch)"
cp "$mod"/*.py "$t/"
startup() { # LABEL then env assignments
	local label=$1
	shift
	for _ in $(seq 15); do
		env "$@" PYTHONPATH="$t" LLMPROF_PYTORCH=modules python3 -X importtime -c pass 2>&1 |
			sed -n 's/^import time: *[0-9]* | *\([0-9]*\) | *sitecustomize$/\1/p'
	done | sort -n | awk -v l="$label" '{ v[NR] = $1 } END { printf "%-44s %6d us\n", l, v[int((NR + 1) / 2)] }'
}
startup "compiled at each start (no __pycache__)" PYTHONDONTWRITEBYTECODE=1
env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$t" python3 -c pass # writes __pycache__
startup "from __pycache__" -u PYTHONDONTWRITEBYTECODE
