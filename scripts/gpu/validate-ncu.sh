#!/usr/bin/env bash
# GPU validation of the Nsight Compute import (run on the H100 from a staged
# tree, see stage.sh):
#  1. calibrate: measured bf16 GEMM and copy ceilings;
#  2. FLOP count: one 4096^3 bf16 GEMM under ncu; llmprof's FLOPs must be
#     2*M*N*K = 137438953472 within 1%;
#  3. regions: the dummy model's nested default-domain ranges under kernel
#     replay (NVTX include) and range replay, imported as regions.
# Usage: validate-ncu.sh STAGE_DIR OUT_DIR
set -u
stage=$1 out=$2
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LC_ALL=C
w=$(mktemp -d)
log() { echo "== $*"; }
{
log env
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
$NCU --version | tail -1
$B/llmprof --version

log calibrate
time LLMPROF_CALIBRATION_DIR=$w/cal $B/llmprof calibrate; cat $w/cal/*.json

log gemm 4096 under ncu
$NCU --clock-control none --target-processes all -k 'regex:gemm|sm90|xmma|cutlass' -c 1 \
	--section SpeedOfLight --section SpeedOfLight_RooflineChart --section SpeedOfLight_HierarchicalTensorRooflineChart \
	--metrics sm__inst_executed_pipe_tensor.sum,smsp__inst_executed_pipe_tensor.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,gpu__time_duration.sum \
	-o $w/gemm -f $B/llmprof-calibrate --gemm-size 4096 --gemm-iters 1 --copy-iters 1
$NCU --import $w/gemm.ncu-rep --csv --page raw --print-units base > $out/gemm-raw.csv
$B/llmprof report --ncu-csv $out/gemm-raw.csv -o $w/gemmrep && cat $w/gemmrep/kernels.md
python3 - "$w/gemmrep/kernels.json" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
print(json.dumps(d, indent=1)[:3000])
PY
$NCU --query-metrics --chip gh100 2>/dev/null | grep -i 'ops_path_tensor\|pipe_tensor' | head -40

log dummy kernel replay with NVTX include
$NCU --clock-control none --target-processes all --nvtx --nvtx-include 'stem/' --nvtx-include 'residual/' \
	--nvtx-include 'head/' --nvtx-include 'A/' --nvtx-include 'B/' --set basic \
	-o $w/dummy-k -f $B/workloads/llmprof-dummy --device cuda --warmup 0
$NCU --import $w/dummy-k.ncu-rep --csv --page raw --print-units base > $out/dummy-kernel-raw.csv
$B/llmprof report --ncu-csv $out/dummy-kernel-raw.csv -o $w/dk && cat $w/dk/regions/report.md

log dummy range replay
$NCU --clock-control none --target-processes all --replay-mode range --nvtx --nvtx-include 'stem/' \
	--nvtx-include 'residual/' --nvtx-include 'head/' --nvtx-include 'A/' --nvtx-include 'B/' --set basic \
	-o $w/dummy-r -f $B/workloads/llmprof-dummy --device cuda --warmup 0
$NCU --import $w/dummy-r.ncu-rep --csv --page raw --print-units base > $out/dummy-range-raw.csv
$B/llmprof report --ncu-csv $out/dummy-range-raw.csv -o $w/dr && cat $w/dr/regions/report.md
} 2>&1 | tee $out/validate-ncu.log
