#!/usr/bin/env bash
# GPU validation of `llmprof profile` with the ncu capture (run on the H100
# from a staged tree, see stage.sh):
#  a. profile model=llama-3.2-1b, deep mode: builtin tracer, then one ncu run
#     per selected decode kernel; the ncu step's time from status.json;
#  b. the naive alternative: one ncu over the whole decode range
#     (--nvtx-include 'LLM@decode_all/') with the same sections and metrics on
#     the same workload argv, capped by `timeout 240`; when capped, the
#     total is extrapolated from kernels profiled per second (said so);
#  c. the bundle's stakeholder_summary.md, report.md, ncu/selection.json;
#  d. a transformers program (examples/hf_llama.py) in deep mode;
#  e. the nsys backend (whole run, and gated on LLM@decode_all) against the
#     builtin tracer: kernels and GPU busy time per stage from metrics.json.
# The bundles of a, d and e come back in OUT_DIR/bundles.tgz.
# Every command is logged; a failure is reported and the script goes on.
# Usage: validate-profile.sh STAGE_DIR OUT_DIR   (writes <= 9 files to OUT_DIR)
# PARTS (default "a b c d e") picks parts; E_MODES (default "builtin nsys
# nsys-gated") the runs of part e. The traces (trace.sqlite, nsys/run.sqlite)
# come back in OUT_DIR/traces.tgz, so reports can be regenerated offline.
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
PARTS=${PARTS:-a b c d e}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
log() { echo "== $*"; }
run() { echo "+ $*"; "$@"; local rc=$?; [ $rc -eq 0 ] || echo "!! exit $rc: $*"; return $rc; }
now() { date +%s.%N; }
calc() { python3 -c "print(round($1, 3))"; }
{
log env
run nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
run "$NCU" --version
run "$B/llmprof" --version

run_dir=
if part a; then
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
	cp -r "$run_dir" "$w/keep-deep-llm"
	run cp "$run_dir/ncu/selection.json" "$out/selection.json"
	run cp "$run_dir/ncu/measured.json" "$out/measured.json"
	run cp "$run_dir/status.json" "$out/status.json"
	run cp "$run_dir/ncu/cmd.txt" "$out/ncu-cmd.txt"
	run head -c 2000 "$run_dir/ncu/raw.csv"; echo
fi
fi

log "b. naive: one ncu over LLM@decode_all/ with the same sections and metrics"
if ! part b; then
	echo "(not in PARTS)"
elif [ -n "$run_dir" ] && [ -f "$run_dir/logs/workload.argv" ]; then
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

log "d. another program: a transformers Llama with default-domain prefill/decode ranges, deep mode"
if part d && [ -f "$stage/examples/hf_llama.py" ]; then
	run timeout "${HF_TIMEOUT_S:-240}" "$B/llmprof" profile artifacts.root="$w/runs" \
		model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 \
		pipeline.trace.backend=builtin run.mode=deep run.top_n_kernels="${HF_TOP_N:-4}" \
		pipeline.ncu.path="$NCU" \
		-- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 \
		>"$w/hf.out" 2>"$w/hf.err"
	cat "$w/hf.out"; tail -n 20 "$w/hf.err"
	hf_dir=$(sed -n 's/^run: //p' "$w/hf.out" | tail -n 1)
	if [ -n "$hf_dir" ]; then
		tail -n 2 "$hf_dir/logs/workload.out"
		cp -r "$hf_dir" "$w/keep-hf"
		head -n 60 "$hf_dir/report.md"
	fi
fi

log "e. the nsys backend against the builtin tracer (same workload, ncu off)"
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
common=(artifacts.root="$w/runs" model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32
	pipeline.ncu.enable=false)
part e || E_MODES=" "
for mode in ${E_MODES:-builtin nsys nsys-gated}; do
	case $mode in
	builtin) extra=(pipeline.trace.backend=builtin) ;;
	nsys) extra=(pipeline.trace.backend=nsys pipeline.nsys.path="$NSYS") ;;
	nsys-gated) extra=(pipeline.trace.backend=nsys pipeline.nsys.path="$NSYS"
		pipeline.nsys.gating_nvtx=true pipeline.nsys.capture_range=nvtx
		pipeline.nsys.nvtx_capture=LLM@decode_all) ;;
	esac
	[ "$mode" = nsys-gated ] && run "$B/llmprof" profile --dry-run "${common[@]}" "${extra[@]}" | grep -i nsys
	run timeout 300 "$B/llmprof" profile "${common[@]}" "${extra[@]}" >"$w/$mode.out" 2>"$w/$mode.err"
	tail -n 5 "$w/$mode.err"
	d=$(sed -n 's/^run: //p' "$w/$mode.out" | tail -n 1)
	echo "$mode bundle: ${d:-none}"
	[ -n "$d" ] && ls "$d" "$d/nsys" 2>/dev/null | tr '\n' ' ' && echo && cp -r "$d" "$w/keep-$mode"
done
python3 - "$w/keep-builtin" "$w/keep-nsys" "$w/keep-nsys-gated" <<'PY'
import json, os, sys
def load(d):
    p = os.path.join(d, "metrics.json")
    return json.load(open(p)) if os.path.exists(p) else None
ms = [(os.path.basename(d)[5:], load(d)) for d in sys.argv[1:]]
for name, m in ms:
    if not m:
        print(f"{name}: no metrics.json"); continue
    print(f"{name}:")
    for st in m.get("stages", []):
        tot = sum(k["total_ns"] for k in m.get("kernels", []) if k.get("stage") == st["name"])
        print(f"  stage {st['name']:<12} kernels {st.get('kernels')} busy_ms {st.get('busy_ms')} "
              f"kernel_total_ms {tot/1e6:.3f}")
    print("  kernel names:", len(m.get("kernels", [])), " all kernel ms:",
          round(sum(k["total_ns"] for k in m.get("kernels", [])) / 1e6, 3))
if ms[0][1] and ms[1][1]:
    b = {s["name"]: s for s in ms[0][1]["stages"]}
    for s in ms[1][1]["stages"]:
        if s["name"] in b and b[s["name"]].get("busy_ms") and s.get("busy_ms"):
            r = s["busy_ms"] / b[s["name"]]["busy_ms"] - 1
            print(f"nsys vs builtin, stage {s['name']}: kernels {s['kernels']} vs {b[s['name']]['kernels']}, "
                  f"busy {s['busy_ms']:.3f} vs {b[s['name']]['busy_ms']:.3f} ms ({100*r:+.2f} %)")
PY
} 2>&1 | tee "$out/validate-profile.log"
tar -C "$w" -czf "$out/bundles.tgz" --exclude='*.ncu-rep' --exclude='*.sqlite' --exclude='*.bin' \
	--exclude='trace.json' --exclude='*.nsys-rep' --exclude='*.qdstrm' \
	$(cd "$w" && ls -d keep-* 2>/dev/null) 2>/dev/null
(cd "$w" && find keep-* \( -name trace.sqlite -o -name run.sqlite \) 2>/dev/null) >"$w/traces.list"
[ -s "$w/traces.list" ] && tar -C "$w" -czf "$out/traces.tgz" -T "$w/traces.list"
[ -n "${KEEP:-}" ] || rm -rf "$w"
