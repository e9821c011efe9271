#!/usr/bin/env bash
# GPU validation of `llmprof profile` with the ncu capture (run on the H100
# from a staged tree, see stage.sh):
#  a. profile model=llama-3.2-1b, deep mode: builtin tracer, then one ncu run
#     per selected decode kernel; the ncu step's time from status.json;
#  b. the naive alternative: one ncu over the whole decode range
#     (--nvtx-include 'LLM@decode_all/') with the same sections and metrics on
#     the same workload argv, capped by `timeout 240`; when capped, the
#     total is extrapolated from kernels profiled per second (said so);
#  c. the bundle's stakeholder_summary.md, report.md, ncu/selection.json.
# Every command is logged; a failure is reported and the script goes on.
# Usage: validate-profile.sh STAGE_DIR OUT_DIR   (writes <= 8 files to OUT_DIR)
set -u
stage=${1:?usage: validate-profile.sh STAGE_DIR OUT_DIR}
out=${2:?usage: validate-profile.sh STAGE_DIR OUT_DIR}
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
CAP=${NAIVE_TIMEOUT_S:-150}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
log() { echo "== $*"; }
run() { echo "+ $*"; "$@"; local rc=$?; [ $rc -eq 0 ] || echo "!! exit $rc: $*"; return $rc; }
now() { date +%s.%N; }
calc() { python3 -c "print(round($1, 3))"; }
{
log env
run nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
run "$NCU" --version
run "$B/llmprof" --version

log "a. llmprof profile, deep mode (builtin tracer + ncu per selected kernel)"
t0=$(now)
run "$B/llmprof" profile artifacts.root="$w/runs" model=llama-3.2-1b infer.prompt_len=128 \
	infer.max_new_tokens=32 run.mode=deep pipeline.trace.backend=builtin \
	pipeline.ncu.path="$NCU" >"$w/profile.out" 2>"$w/profile.err"
t1=$(now)
cat "$w/profile.out"; tail -n 40 "$w/profile.err"
run_dir=$(sed -n 's/^run: //p' "$w/profile.out" | tail -n 1)
echo "profile wall: $(calc "$t1 - $t0") s; bundle: ${run_dir:-none}"
if [ -n "$run_dir" ] && [ -f "$run_dir/status.json" ]; then
	python3 - "$run_dir" <<'PY'
import json, sys, os
d = sys.argv[1]
st = json.load(open(os.path.join(d, "status.json")))
for s in st.get("steps", []):
    print("step %-12s %-8s %s" % (s.get("name"), s.get("state"), (s.get("message") or "")[:300]))
    for k in ("start", "end", "duration_s", "wall_s"):
        if k in s:
            print("     %s: %s" % (k, s[k]))
m = os.path.join(d, "ncu", "measured.json")
if os.path.exists(m):
    j = json.load(open(m))
    print("ncu: %s of %d runs measured, %.1f s of ncu" % (j.get("measured"), len(j.get("runs", [])), j.get("ncu_wall_s", 0)))
    for r in j.get("runs", []):
        print("  #%s %-60.60s measured=%s %.1f s %s" % (r.get("rank"), r.get("name", ""), r.get("measured"), r.get("ncu_wall_s", 0), r.get("why", "")))
PY
	run cp "$run_dir/ncu/selection.json" "$out/selection.json"
	run cp "$run_dir/ncu/measured.json" "$out/measured.json"
	run cp "$run_dir/status.json" "$out/status.json"
	run cp "$run_dir/ncu/cmd.txt" "$out/ncu-cmd.txt"
	run head -c 2000 "$run_dir/ncu/raw.csv"; echo
fi

log "b. naive: one ncu over LLM@decode_all/ with the same sections and metrics"
if [ -n "$run_dir" ] && [ -f "$run_dir/logs/workload.argv" ]; then
	mapfile -t wl <"$run_dir/logs/workload.argv"
	# the same collection flags the profile's first ncu run used
	first=$(head -n 1 "$run_dir/ncu/cmd.txt" 2>/dev/null)
	echo "profile's first ncu command: $first"
	flags=(--target-processes all --set roofline --replay-mode kernel
		--metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
		--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats
		--clock-control none --cache-control all)
	t0=$(now)
	echo "+ timeout $CAP $NCU ${flags[*]} --nvtx --nvtx-include LLM@decode_all/ -o $w/naive -f ${wl[*]}"
	LC_ALL=C timeout "$CAP" "$NCU" "${flags[@]}" --nvtx --nvtx-include 'LLM@decode_all/' \
		-o "$w/naive" -f "${wl[@]}" >"$w/naive.log" 2>&1
	rc=$?
	t1=$(now)
	el=$(calc "$t1 - $t0")
	n=$(grep -c '==PROF== Profiling' "$w/naive.log")
	total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("stage_launches", 0))' \
		"$run_dir/ncu/selection.json" 2>/dev/null || echo 0)
	echo "naive ncu: exit $rc after $el s, $n kernels profiled; decode launches in the trace: $total"
	if [ "$rc" = 124 ] && [ "$n" -gt 0 ] && [ "$total" -gt 0 ]; then
		echo "naive ncu hit the ${CAP} s cap: EXTRAPOLATED total $(calc "$el * $total / $n") s" \
			"for $total kernels at $(calc "$el / $n") s per kernel (estimate, not measured)"
	fi
	tail -n 30 "$w/naive.log" >"$out/naive-ncu-tail.log"
	tail -n 10 "$w/naive.log"
else
	echo "!! no bundle or workload argv: naive comparison skipped"
fi

log "c. the bundle's reports"
for f in stakeholder_summary.md report.md ncu/selection.json; do
	echo "---- $f"
	[ -n "$run_dir" ] && cat "$run_dir/$f"
done

log "d. another program: a transformers Llama with default-domain prefill/decode ranges"
if [ -f "$stage/examples/hf_llama.py" ]; then
	run "$B/llmprof" profile artifacts.root="$w/runs" model=llama-3.2-1b infer.prompt_len=128 \
		infer.max_new_tokens=32 pipeline.trace.backend=builtin pipeline.ncu.enable=false \
		-- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 \
		>"$w/hf.out" 2>"$w/hf.err"
	cat "$w/hf.out"; tail -n 20 "$w/hf.err"
	hf_dir=$(sed -n 's/^run: //p' "$w/hf.out" | tail -n 1)
	if [ -n "$hf_dir" ]; then
		cat "$hf_dir/logs/workload.out" | tail -n 2
		cp "$hf_dir/stakeholder_summary.md" "$out/hf-stakeholder_summary.md"
		head -n 60 "$hf_dir/report.md"
	fi
fi
} 2>&1 | tee "$out/validate-profile.log"
[ -n "${KEEP:-}" ] || rm -rf "$w"
