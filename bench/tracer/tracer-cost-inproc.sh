#!/usr/bin/env bash
# tracer-cost-inproc.sh: the builtin tracer's cost on a decode against
# CUPTI's floors, each measured inside one process (bench/tracer/inproc_ab.py:
# the tracer switched off and on between reps), in one GPU call of about 5
# minutes on one H200. IP_PROGRAM (default eager) picks inproc_ab.py's
# program: eager (a transformers decode) or compile (reduce-overhead
# torch.compile: CUDA-graph replays).
#   bash bench/tracer/tracer-cost-inproc.sh BIN OUT
# BIN holds libllmprof_tracer.so and libcupti_floor.so (a staged build's
# gpu-bin). Variants, rotated over IP_ROUNDS rounds (default 2), one process
# each: untraced (the method's noise), floor (CONCURRENT_KERNEL only),
# floor_launch (the floor plus CUPTI's launch records, what NVTX attribution
# needs), builtin (the defaults, LLMPROF_TRACE_BENCH=pausable). OUT gets
# each process's output (<variant>-<round>.txt) and summary.txt: each
# variant's in-process ratio per round, and the builtin's distance to each
# floor, round by round (bench/tracer/inproc_summary.py). No process starts
# after IP_BUDGET_S seconds (default 420) less a minute.
set -u
bin=$(cd "${1:?BIN}" && pwd); out=${2:?OUT}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${IP_ROUNDS:-2} pairs=${IP_PAIRS:-12} budget=${IP_BUDGET_S:-420}
program=${IP_PROGRAM:-eager}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
variants=(untraced floor floor_launch builtin)
run() { # VARIANT ROUND
	local v=$1 r=$2 env=(env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH) lib=()
	case $v in
	floor) env+=(CUDA_INJECTION64_PATH="$bin/libcupti_floor.so" CUPTI_FLOOR_OUT="$tmp/floor")
	       lib=(--lib "$bin/libcupti_floor.so") ;;
	floor_launch) env+=(CUDA_INJECTION64_PATH="$bin/libcupti_floor.so" CUPTI_FLOOR_LAUNCH=1
	                    CUPTI_FLOOR_OUT="$tmp/floor") lib=(--lib "$bin/libcupti_floor.so") ;;
	builtin) mkdir -p "$tmp/log-$r"
	         env+=(CUDA_INJECTION64_PATH="$bin/libllmprof_tracer.so" LLMPROF_TRACE_OUT="$tmp/log-$r"
	               LLMPROF_TRACE_BENCH=pausable) lib=(--lib "$bin/libllmprof_tracer.so") ;;
	esac
	"${env[@]}" python3 "$here/inproc_ab.py" "${lib[@]}" --program "$program" --pairs "$pairs" >"$out/$v-$r.txt" 2>&1 ||
		echo "$v round $r failed: $(tail -n 2 "$out/$v-$r.txt")" >>"$out/summary.txt"
}
t0=$SECONDS
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2 3; do # a rotating start
		# a process takes about 45 s on an H200 host: none starts that
		# could not end within the budget, so the summary is written
		[ $((SECONDS - t0 + 60)) -le "$budget" ] || continue
		run "${variants[$(((i + r) % 4))]}" "$r"
	done
done
python3 "$here/inproc_summary.py" "$out" "$rounds" >>"$out/summary.txt"
cat "$out/summary.txt"
