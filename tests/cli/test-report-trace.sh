#!/usr/bin/env bash
# llmprof report --trace FILE -o DIR: stages, operators and kernel tables from nsys
# exports; "no GPU work captured" said loudly; a kernel-summary CSV as degraded input;
# a run bundle as input.
set -u
shared=${LLMPROF_SHARED_DIR:?}
fx=$shared/fixtures/nsys
[ -d "$fx" ] || { echo "skip: no fixtures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { grep -q -- "$2" "$1" || { echo "FAIL: $1 lacks: $2"; sed -n 1,40p "$1"; fail=1; }; }

"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" -o "$tmp/probe" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: probe: $(cat "$tmp/err")"; fail=1; }
check "$tmp/out" "^report: $tmp/probe$"
for f in report.md kernels.md operators.md metrics.json; do [ -s "$tmp/probe/$f" ] || { echo "FAIL: no $f"; fail=1; }; done
# numbers cross-checked with nsys stats nvtx_gpu_proj_sum on the same file:
# LLM:prefill projects to 25952 ns, LLM:decode_all to 56673 ns, 4 decode steps 43200 ns
check "$tmp/probe/report.md" "^| prefill | 1 | 0.218 | 0.026 |"
check "$tmp/probe/metrics.json" '"gpu_projected_ns": 25952,'
check "$tmp/probe/metrics.json" '"gpu_projected_ns": 56673,'
check "$tmp/probe/metrics.json" '"gpu_projected_ns": 43200,'
check "$tmp/probe/metrics.json" '"outside_stages": 3,'
check "$tmp/err" "3 of 14 kernels ran outside every stage"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/probe/metrics.json" 2>/dev/null || { command -v python3 >/dev/null && { echo "FAIL: metrics.json is not JSON"; fail=1; }; }

# TensorRT: per-layer ranges are operators
"$LLMPROF" report --trace "$fx/trt-resnet-rtx3090-nsys2023.1.sqlite" -o "$tmp/trt" >/dev/null 2>&1 || fail=1
check "$tmp/trt/operators.md" "^| /conv1/Conv + /relu/Relu | TensorRT |  | 1 | 0.855 | 1 |"
check "$tmp/trt/report.md" "No NVTX range matched a stage"

# nothing captured: a finding, loud on stderr, still exit 0 with reports
"$LLMPROF" report --trace "$fx/nokernels-rtx5060ti-nsys2025.1.sqlite" -o "$tmp/nok" >/dev/null 2>"$tmp/err" || fail=1
check "$tmp/err" "No GPU work captured"
check "$tmp/nok/report.md" "No GPU work captured"

# degraded input: nsys stats kernel CSV
csv=$fx/stats-csv/dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv
if [ -f "$csv" ]; then
	"$LLMPROF" report --trace "$csv" -o "$tmp/csv" >/dev/null 2>&1 || fail=1
	check "$tmp/csv/report.md" "kernel summary (CSV), not a trace"
	check "$tmp/csv/kernels.md" "| 16448 | 61.602 | 3.745 |"
fi

# a run bundle
mkdir -p "$tmp/run/nsys"
cp "$fx/nvtx-probe-h100-nsys2025.3.sqlite" "$tmp/run/nsys/run.sqlite"
"$LLMPROF" report "$tmp/run" >/dev/null 2>&1 || fail=1
[ -s "$tmp/run/report.md" ] || { echo "FAIL: bundle report"; fail=1; }
"$LLMPROF" report "$tmp/nonexistent" >/dev/null 2>"$tmp/err"; [ $? -eq 5 ] || { echo "FAIL: bundle without trace"; fail=1; }
"$LLMPROF" report --trace "$fx/trt-resnet-rtx3090-nsys2023.1.sqlite" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: --trace without -o"; fail=1; }
exit $fail
