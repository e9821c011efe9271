#!/usr/bin/env bash
# bench/ncu-deep-time.sh: deep mode's Nsight Compute time on the
# transformers Llama program (examples/hf_llama.py: 1B shape, random
# weights, prompt 128, 32 new tokens, NVTX prefill/decode/decode_step),
# against the issue's target: <= 60 s of ncu at >= 95 % decode coverage,
# every result joined to its trace launch. One call on one GPU, in a staged
# tree (scripts/gpu/stage.sh), within BUDGET_S:
#   0. on the filter probe (STAGE/gpu-bin/ncu_filter_probe, one kernel a
#      collection, a few seconds each): the replay passes ncu takes for
#      the old and the new default collection and for each of their parts
#      (passes.tsv); and the one pass's window form, checked against the
#      probe's known launch order (window.txt: the first step's kA(small)
#      kB kA(large) kC<4> kC<8>, the large kA by its duration);
#   1. llmprof profile run.mode=deep with the defaults (the new collection:
#      SpeedOfLight, Occupancy, LaunchStats and the metrics; the plan with
#      fewer results; run.top_n_kernels 100, run.coverage 0.95);
#   2. the same with the sections the default asked for before
#      (SpeedOfLight, MemoryWorkloadAnalysis, Occupancy, SchedulerStats),
#      when time is left: what those sections cost at the same selection;
#   3. the same with run.top_n_kernels=30 (the old cap), when time is left.
# For each profile it prints the ncu step's seconds and what ncu spent them
# on (ncu/measured.json ncu_time: results, replay passes, before the first
# result / profiling / after the last), the decode coverage and classes
# selected (ncu/selection.json), the plan's form and what it expected
# beyond one result per class, results joined (measured.json results with
# a trace launch, and the join step's message), and the whole profile's
# wall time. OUT/summary.tsv, OUT/summary.txt, OUT/passes.tsv,
# OUT/window.txt, and each bundle's status.json, ncu/{measured,selection}.json,
# ncu/cmd.txt, report.md and ncu logs come back under OUT/.
# Usage: bench/ncu-deep-time.sh STAGE OUT   (STAGE absolute)
# NCU (default /usr/local/cuda/bin/ncu), BUDGET_S (default 480): a profile
# starts only when 170 s of the budget are left.
set -u
stage=${1:?usage: ncu-deep-time.sh STAGE OUT} out=${2:?usage: ncu-deep-time.sh STAGE OUT}
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
BUDGET=${BUDGET_S:-480}
PROBE=${PROBE:-$stage/gpu-bin/ncu_filter_probe}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
start=$(date +%s)
now() { date +%s.%N; }
left_s() { echo $((BUDGET - ($(date +%s) - start))); }
{
	echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
	echo "ncu: $("$NCU" --version | tail -n 1)"
	echo "llmprof: $("$B/llmprof" --version | head -n 1), staged commit $(cat "$stage/commit" 2>/dev/null)"
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>&1 | tail -n 1
} | tee "$out/env.txt"

# --- 0. replay passes per collection, and the window form, on the probe
M_OLD=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
M_SOL=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
M_SASS=sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum
M_TENSOR=sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
M_DRAM=dram__bytes_read.sum,dram__bytes_write.sum
S_OLD=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats)
S_NEW=(--section SpeedOfLight --section Occupancy --section LaunchStats)
# one probe collection: NAME then ncu's collection flags; the passes of the
# first kA launch, as ncu's progress line says ("- 15 passes")
passes() {
	local name=$1 n
	shift
	timeout 60 "$NCU" --target-processes all --replay-mode kernel --clock-control none \
		--cache-control all "$@" -k regex:kA --launch-count 1 -o "$w/p-$name" -f "$PROBE" \
		>"$w/p-$name.log" 2>&1
	n=$(grep -o -- '- [0-9]* pass' "$w/p-$name.log" | head -n 1 | grep -o '[0-9]*')
	printf '%s\t%s\t%s\n' "$name" "${n:-?}" "$*" | tee -a "$out/passes.tsv"
}
if [ -x "$PROBE" ]; then
	echo "=== 0. replay passes a result, by collection (the probe's first kA)"
	printf 'collection\tpasses\tflags\n' >"$out/passes.tsv"
	passes old-default "${S_OLD[@]}" --metrics "$M_OLD"
	passes new-default "${S_NEW[@]}" --metrics "$M_OLD"
	passes old-roofline --set roofline "${S_OLD[@]}" --metrics "$M_OLD"
	passes new-sections "${S_NEW[@]}"
	passes metrics-only --metrics "$M_OLD"
	for s in SpeedOfLight MemoryWorkloadAnalysis Occupancy SchedulerStats LaunchStats; do
		passes "section-$s" --section "$s"
	done
	passes metrics-sol --metrics "$M_SOL"
	passes metrics-sass --metrics "$M_SASS"
	passes metrics-tensor --metrics "$M_TENSOR"
	passes metrics-dram --metrics "$M_DRAM"
	passes metrics-duration --metrics gpu__time_duration.sum
	cp "$w"/p-*.log "$out/" 2>/dev/null

	echo "=== 0. the window form on the probe: -k of kA|kB|kC, --launch-skip 6 --launch-count 5"
	timeout 60 "$NCU" --clock-control none --metrics gpu__time_duration.sum \
		--kernel-name-base mangled --kernel-name 'regex:^(_Z2kAPfi|_Z2kBPfi|_Z2kCPfi)$' \
		--launch-skip 6 --launch-count 5 -o "$w/window" -f "$PROBE" >"$w/window.log" 2>&1
	"$NCU" --import "$w/window.ncu-rep" --csv --page raw --print-units base \
		--print-kernel-base mangled --metrics gpu__time_duration.sum >"$w/window.csv" 2>&1
	python3 - "$w/window.csv" <<'PY' | tee "$out/window.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))[1:]
got = [(r["Kernel Name"], r["Grid Size"].replace(" ", ""),
        float(r["gpu__time_duration.sum"].replace(",", "")))
       for r in rows]
for g in got:
    print("  %-10s grid=%-9s ns=%.0f" % g)
want = [("_Z2kAPfi", "(4,1,1)"), ("_Z2kBPfi", "(4,1,1)"), ("_Z2kAPfi", "(4,1,1)"),
        ("_Z2kCPfi", "(4,1,1)"), ("_Z2kCPfi", "(8,1,1)")]
ok = [g[:2] for g in got] == want and got[2][2] > 5 * got[0][2]
print("window form:", "as planned (kA small, kB, kA large, kC<4>, kC<8>)" if ok
      else "NOT as planned: want %s" % want)
PY
	cp "$w/window.log" "$out/"
else
	echo "=== 0. skipped: no probe at $PROBE (scripts/gpu/stage.sh builds it)"
fi

# --- 1-3. the transformers program under llmprof profile, deep mode
summary=$out/summary.tsv
printf 'collection\tncu_s\tresults\treplay_passes\tpasses_per_result\tbefore_first_s\tprofiling_s\tafter_last_s\tcoverage\tselected\tstop\tplan\texpected\trepeats\tother_classes\tother_form_expected\tjoined\tprofile_wall_s\n' >"$summary"

profile() { # profile NAME [KEY=VALUE...]
	local name=$1 left dir rc t0 t1
	shift
	left=$(left_s)
	echo "=== $name ($* ; ${left} s of the budget left)"
	t0=$(now)
	timeout $((left > 250 ? 250 : left)) "$B/llmprof" profile artifacts.root="$w/runs" \
		run.mode=deep pipeline.trace.backend=builtin pipeline.ncu.path="$NCU" "$@" \
		model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 \
		-- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 \
		>"$w/$name.out" 2>"$w/$name.err"
	rc=$?
	t1=$(now)
	dir=$(sed -n 's/^run: //p' "$w/$name.out" | tail -n 1)
	echo "exit $rc, bundle ${dir:-none}"
	tail -n 6 "$w/$name.err"
	mkdir -p "$out/$name"
	cp "$w/$name.out" "$w/$name.err" "$out/$name/"
	[ -n "$dir" ] && [ -f "$dir/status.json" ] || return 0
	for f in status.json report.md ncu/measured.json ncu/selection.json ncu/cmd.txt \
		logs/ncu-k0.out logs/ncu-k0.err; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$out/$name/$(echo "$f" | tr / _)"
	done
	python3 "$(dirname "$0")/ncu_deep_time_row.py" "$dir" "$name" "$t0" "$t1" >>"$summary"
}

enough() { [ "$(left_s)" -ge 170 ] || { echo "=== $1: left out, under 170 s of the budget left"; return 1; }; }
enough default && profile default
enough old-sections && profile old-sections \
	'pipeline.ncu.ncu_cli.sections=[SpeedOfLight,MemoryWorkloadAnalysis,Occupancy,SchedulerStats]'
enough top-n-30 && profile top-n-30 run.top_n_kernels=30

echo "=== summary (target: ncu_s <= 60 at coverage >= 0.95, every result joined)"
{ column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"; } | tee "$out/summary.txt"
[ -f "$out/passes.tsv" ] && { column -t -s $'\t' "$out/passes.tsv" 2>/dev/null || cat "$out/passes.tsv"; }
exit 0
