#!/usr/bin/env bash
# llmprof report --trace FILE -o DIR: stages, operators and kernel tables from nsys
# exports; "no GPU work captured" said loudly; a kernel-summary CSV as degraded input;
# a run bundle as input.
set -u
data=${LLMPROF_SOURCE_DIR:?}/tests/data
fx=$data/nsys
[ -f "$fx/nvtx-probe-h100-nsys2025.3.sqlite" ] || { echo "FAIL: fixtures missing in $fx"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { grep -q -- "$2" "$1" || { echo "FAIL: $1 lacks: $2"; sed -n 1,40p "$1"; fail=1; }; }

"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" -o "$tmp/probe" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: probe: $(cat "$tmp/err")"; fail=1; }
check "$tmp/out" "^report: $tmp/probe$"
for f in report.md kernels.md operators.md metrics.json stakeholder_summary.md report.html charts/timeline.svg; do [ -s "$tmp/probe/$f" ] || { echo "FAIL: no $f"; fail=1; }; done
# numbers cross-checked with nsys stats nvtx_gpu_proj_sum on the same file:
# LLM:prefill projects to 25952 ns, LLM:decode_all to 56673 ns, 4 decode steps 43200 ns
# (4 decode steps: mean 10.800 us = 43200 / 4)
check "$tmp/probe/report.md" "^| prefill | prefill | 1 | 0.218 | 0.026 | 0.011 | 0.015 |"
check "$tmp/probe/report.md" "^| decode | decode | 1 | 0.077 | 0.057 |"
# TPOT (wall per step): the prefill's GPU work ends at 622938907 ns, after the
# first step's range starts (622935581), so the decode starts there; the last
# step's last kernel ends at 623015997: 77090 ns / 4 steps (sqlite3 on the file)
check "$tmp/probe/report.md" "^| decode | 4 | 0.019 | 0.011 | 0.010 | 0.012 | 0.013 |"
check "$tmp/probe/metrics.json" '"tpot_ms": 0.0192725,'
check "$tmp/probe/metrics.json" '"wall_ms": 0.07709$'
check "$tmp/probe/metrics.json" '"gpu_ms": 0.025952,'
check "$tmp/probe/metrics.json" '"gpu_ms": 0.056673,'
check "$tmp/probe/metrics.json" '"mean_ms": 0.0108,'
check "$tmp/probe/report.md" "3 of 14 kernels ran outside every stage"
check "$tmp/err" "3 of 14 kernels ran outside every stage"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/probe/metrics.json" 2>/dev/null || { command -v python3 >/dev/null && { echo "FAIL: metrics.json is not JSON"; fail=1; }; }

# TensorRT: per-layer ranges are operators
"$LLMPROF" report --trace "$fx/trt-resnet-rtx3090-nsys2023.1.sqlite" -o "$tmp/trt" >/dev/null 2>&1 || fail=1
check "$tmp/trt/operators.md" "^| /conv1/Conv + /relu/Relu | (none) | 1 | 0.855 |"
check "$tmp/trt/report.md" "No NVTX range matched a stage"

# nothing captured: a finding, loud on stderr, still exit 0 with reports
"$LLMPROF" report --trace "$fx/nokernels-rtx5060ti-nsys2025.1.sqlite" -o "$tmp/nok" >/dev/null 2>"$tmp/err" || fail=1
check "$tmp/err" "The trace holds no GPU kernels"
check "$tmp/nok/report.md" "no-gpu-work"

# degraded input: nsys stats kernel CSV
csv=$fx/stats-csv/dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv
if [ -f "$csv" ]; then
	"$LLMPROF" report --trace "$csv" -o "$tmp/csv" >/dev/null 2>&1 || fail=1
	check "$tmp/csv/report.md" "kernel summary (CSV), not a trace"
	check "$tmp/csv/kernels.md" "| 16448 | 61.602 | 0.004 | 34.4 |"
fi

# a run bundle
mkdir -p "$tmp/run/nsys"
cp "$fx/nvtx-probe-h100-nsys2025.3.sqlite" "$tmp/run/nsys/run.sqlite"
"$LLMPROF" report "$tmp/run" >/dev/null 2>&1 || fail=1
[ -s "$tmp/run/report.md" ] || { echo "FAIL: bundle report"; fail=1; }
"$LLMPROF" report "$tmp/nonexistent" >/dev/null 2>"$tmp/err"; [ $? -eq 5 ] || { echo "FAIL: bundle without trace"; fail=1; }
"$LLMPROF" report --trace "$fx/trt-resnet-rtx3090-nsys2023.1.sqlite" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: --trace without -o"; fail=1; }
"$LLMPROF" report --trace "$tmp/nonexistent.sqlite" -o "$tmp/x" >/dev/null 2>"$tmp/err"; [ $? -eq 5 ] || { echo "FAIL: missing trace"; fail=1; }
# a file that is not a trace: exit 5, and the reports say analyze failed
printf 'not sqlite' >"$tmp/bad.sqlite"
"$LLMPROF" report --trace "$tmp/bad.sqlite" -o "$tmp/bad" >/dev/null 2>"$tmp/err"; [ $? -eq 5 ] || { echo "FAIL: bad trace exit"; fail=1; }
check "$tmp/bad/report.md" "^# Profiling report: INCOMPLETE (step 'analyze' failed)"
# regenerating from the same input is byte-identical
"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" -o "$tmp/probe2" >/dev/null 2>&1
diff -r "$tmp/probe" "$tmp/probe2" >/dev/null || { echo "FAIL: regenerated reports differ"; diff -r "$tmp/probe" "$tmp/probe2" | head; fail=1; }
# join with ncu's raw page of the same program (nvtx-probe-program.cu): the
# duration-weighted means cross-checked with python over the CSV
ncu=$data/ncu/nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv
"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" --ncu-csv "$ncu" -o "$tmp/join" >/dev/null 2>"$tmp/err" || { echo "FAIL: join: $(cat "$tmp/err")"; fail=1; }
check "$tmp/join/kernels.md" '^| 1 | `add(float \*, const float \*, int)` | GPU 0 | 8 | 0.029 | 0.004 | 57.6 | mixed | 21.8 | 42.0 | 42.0 | 73.4 |'
check "$tmp/join/kernels.md" '^| 2 | `scale(float \*, float, int)` | GPU 0 | 6 | 0.022 | 0.004 | 42.4 | decode | 19.7 | 25.8 |'
check "$tmp/join/report.md" "^| join | ok |"
check "$tmp/join/metrics.json" '"profiled_launches": 4'
check "$tmp/join/metrics.json" '"duration_ns": 5992.0,'
check "$tmp/join/report.md" "^The pipeline finished; every report below is complete."
# a result no trace kernel fits (its grid changed, another named): listed
# with its reason, a warning, and the reports say incomplete, never complete
python3 - "$ncu" "$tmp/miss.raw.csv" <<'EOF2' || fail=1
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
rows[2][h.index("Grid Size")] = "(7, 1, 1)"
rows[3][h.index("Kernel Name")] = "void nowhere<(int)1>(float *)"
csv.writer(open(sys.argv[2], "w", newline=""), quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
EOF2
"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" --ncu-csv "$tmp/miss.raw.csv" -o "$tmp/miss" >/dev/null 2>"$tmp/err" || { echo "FAIL: miss: $(cat "$tmp/err")"; fail=1; }
check "$tmp/miss/report.md" "^# Profiling report: INCOMPLETE (2 of 8 counter results unmatched)"
check "$tmp/miss/report.md" "^The pipeline finished; incomplete: 2 of 8 counter results unmatched"
check "$tmp/miss/report.md" "^| join | ok | incomplete: 2 of 8 counter results unmatched; "
check "$tmp/miss/report.md" '^- \*\*warning\*\* `counters-unmatched`: Incomplete: 2 of 8 Nsight Compute results matched no kernel'
check "$tmp/miss/report.md" "^## Counter results not joined"
check "$tmp/miss/kernels.md" "^## Counter results not joined"
check "$tmp/miss/kernels.md" '^| 0 | `scale(float \*, float, int)` | (7,1,1) x (256,1,1) | name matches scale(float \\\*, float, int) but grid/block differ: ncu (7,1,1)x(256,1,1), trace (4096,1,1)x(256,1,1) |'
check "$tmp/miss/kernels.md" '^| 1 | `void nowhere<(int)1>(float \*)` | (4096,1,1) x (256,1,1) | no trace kernel with this normalised name |'
grep -q "every report below is complete" "$tmp/miss/report.md" && { echo "FAIL: report.md says complete"; fail=1; }
check "$tmp/miss/metrics.json" '"state": "incomplete"'
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["run"]["counter_join"]; assert (j["results"], j["joined"], len(j["unmatched"])) == (8, 6, 2), j' "$tmp/miss/metrics.json" || { echo "FAIL: counter_join"; fail=1; }
printf 'not,a\nraw,page\n' >"$tmp/bad.csv"
"$LLMPROF" report --trace "$fx/nvtx-probe-h100-nsys2025.3.sqlite" --ncu-csv "$tmp/bad.csv" -o "$tmp/badj" >/dev/null 2>&1
[ $? -eq 5 ] || { echo "FAIL: broken ncu csv: exit not 5"; fail=1; }
check "$tmp/badj/report.md" "^| join | failed |"
exit $fail
