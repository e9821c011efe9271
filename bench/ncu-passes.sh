#!/usr/bin/env bash
# bench/ncu-passes.sh: how many replay passes ncu needs, and what a result
# costs, for growing subsets of deep mode's collection, on one GPU: six
# consecutive launches (a bf16 GEMM and elementwise kernels) of a small torch
# program, per collection. Answers whether the counters the report reads
# could come from one pass (kernel replay saves and restores memory only
# when a result needs two or more: bench/ncu-cost-parts.sh).
#   bench/ncu-passes.sh OUT     (NCU: default /usr/local/cuda/bin/ncu)
# OUT/passes.tsv: collection, passes, results, seconds a result (between
# consecutive results), ncu's exit status.
set -u
out=${1:?usage: ncu-passes.sh OUT}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
console=$(cd "$(dirname "$0")" && pwd)/ncu_console.py
mkdir -p "$out"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cat >"$w/prog.py" <<'PY'
import torch
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(20):
    c = (a @ b) * 0.5 + 1.0
torch.cuda.synchronize()
print("prog done", float(c.float().sum()))
PY
T=gpu__time_duration.sum
BYTES=dram__bytes_read.sum,dram__bytes_write.sum
TENSOR=sm__ops_path_tensor_src_bf16_dst_fp32.sum
SOL=sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
OCC=sm__warps_active.avg.pct_of_peak_sustained_active
SASS=sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum
printf 'collection\tpasses\tresults\ts_per_result\trc\n' >"$out/passes.tsv"
probe() { # NAME ncu-collection-args...
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	timeout 120 "$NCU" --clock-control none --replay-mode kernel --launch-skip 12 --launch-count 6 "$@" \
		-o "$w/$name" -f python3 "$w/prog.py" 2>&1 | python3 -u "$console" stamp "$t0" >"$w/$name.log"
	local rc=${PIPESTATUS[0]}
	python3 "$console" times "$w/$name.log" |
		awk -F'\t' -v OFS='\t' -v name="$name" -v rc="$rc" '{ print name, $2, $1, $4, rc }' >>"$out/passes.tsv"
	tail -n 1 "$out/passes.tsv"
}
probe time --metrics "$T"
probe time_bytes --metrics "$T,$BYTES"
probe time_bytes_tensor --metrics "$T,$BYTES,$TENSOR"
probe plus_fp16_tensor --metrics "$T,$BYTES,$TENSOR,sm__ops_path_tensor_src_fp16.sum"
probe plus_launchstats --section LaunchStats --metrics "$T,$BYTES,$TENSOR"
probe no_cache_flush --cache-control none --metrics "$T,$BYTES,$TENSOR,sm__ops_path_tensor_src_fp16.sum"
probe plus_sol_pct --metrics "$T,$BYTES,$TENSOR,$SOL"
probe plus_occupancy --metrics "$T,$BYTES,$TENSOR,$SOL,$OCC"
probe plus_sass_flops --metrics "$T,$BYTES,$TENSOR,$SOL,$OCC,$SASS"
probe default --section SpeedOfLight --section Occupancy --section LaunchStats --metrics "$T,$BYTES,$TENSOR,$SOL,$SASS"
tar -czf "$out/logs.tgz" -C "$w" $(cd "$w" && ls *.log)
