#!/usr/bin/env bash
# tracer-cost-inproc.sh: the builtin tracer's cost on an eager transformers
# decode against CUPTI's floors, each measured inside one process
# (bench/tracer/inproc_ab.py: the tracer switched off and on between reps),
# in one GPU call of about 5 minutes on one H200.
#   bash bench/tracer/tracer-cost-inproc.sh BIN OUT
# BIN holds libllmprof_tracer.so and libcupti_floor.so (a staged build's
# gpu-bin). Variants, rotated over IP_ROUNDS rounds (default 2), one process
# each: untraced (the method's noise), floor (CONCURRENT_KERNEL only),
# floor_launch (the floor plus CUPTI's launch records, what NVTX attribution
# needs), builtin (the defaults, LLMPROF_TRACE_BENCH=pausable). OUT gets
# each process's output (<variant>-<round>.txt) and summary.txt: each
# variant's in-process ratio per round, and the builtin's distance to each
# floor, round by round.
set -u
bin=$(cd "${1:?BIN}" && pwd); out=${2:?OUT}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${IP_ROUNDS:-2} pairs=${IP_PAIRS:-12}
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
	"${env[@]}" python3 "$here/inproc_ab.py" "${lib[@]}" --pairs "$pairs" >"$out/$v-$r.txt" 2>&1 ||
		echo "$v round $r failed: $(tail -n 2 "$out/$v-$r.txt")" >>"$out/summary.txt"
}
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2 3; do # a rotating start
		run "${variants[$(((i + r) % 4))]}" "$r"
	done
done
python3 - "$out" "$rounds" <<'PY' >>"$out/summary.txt"
import re, sys
out, rounds = sys.argv[1], int(sys.argv[2])
val = {}
for v in ("untraced", "floor", "floor_launch", "builtin"):
    for r in range(1, rounds + 1):
        try:
            s = open("%s/%s-%d.txt" % (out, v, r)).read()
        except OSError:
            continue
        m = re.search(r"inproc_ab .*ratio_median (\S+) q1 (\S+) q3 (\S+) boot90 (\S+) (\S+) "
                      r"off_median_s (\S+) on_median_s (\S+) cost_per_step_us (\S+)", s)
        if m:
            val[v, r] = [float(x) for x in m.groups()]
            print("%-13s round %d: on/off x%.4f [q %.4f %.4f] boot90 [%.4f %.4f], off %.4f s, "
                  "on %.4f s, %+.1f us a step" % ((v, r) + tuple(val[v, r])))
for r in range(1, rounds + 1):
    b = val.get(("builtin", r))
    for f in ("floor", "floor_launch"):
        if b and (f, r) in val:
            print("round %d: builtin - %s = %+.4f (ratio), %+.1f us a step" % (
                r, f, b[0] - val[f, r][0], b[7] - val[f, r][7]))
PY
cat "$out/summary.txt"
