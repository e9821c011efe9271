#!/usr/bin/env bash
# report --trace on a bare nsys export (no env.json): the GPU comes from the
# export's TARGET_INFO_GPU, so the H100 gets its datasheet peaks (MFU, MBU,
# roofline) instead of "unknown GPU"; a GPU the peak table lacks still gets the
# bandwidth the export records; with several GPUs, the one the kernels ran on.
set -u
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
data=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
report() { # report NAME FILE
	"$LLMPROF" report --trace "$2" -o "$tmp/$1" >"$tmp/$1.out" 2>"$tmp/$1.err" ||
		{ echo "FAIL: report --trace $2: $(cat "$tmp/$1.err")"; fail=1; }
}
has() { # has FILE FIXED-STRING
	grep -qF -- "$2" "$1" || { echo "FAIL: $(basename "$(dirname "$1")")/$(basename "$1") lacks '$2'"; fail=1; }
}
report h100 "$data/nvtx-probe-h100-nsys2025.3.sqlite"
has "$tmp/h100/report.md" "| GPU | NVIDIA H100 80GB HBM3 |"
has "$tmp/h100/report.md" "| Peak table entry | H100 SXM5 80GB |"
has "$tmp/h100/report.md" "| Dense bf16 tensor (TFLOP/s) | 989.4 | n/a |"
has "$tmp/h100/report.md" "| DRAM bandwidth (GB/s) | 3350 | n/a |"
has "$tmp/h100/report.md" "GPU from the trace's TARGET_INFO_GPU (no env.json names one)"
has "$tmp/h100/report.md" "![Roofline](charts/roofline.svg)"
grep -qi "unknown GPU" "$tmp/h100/report.md" "$tmp/h100/stakeholder_summary.md" &&
	{ echo "FAIL: the H100 export still reads as an unknown GPU"; fail=1; }
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["peaks"]; assert p["device_key"]=="H100 SXM5 80GB" and p["datasheet_tflops"]==989.4 and p["datasheet_gbs"]==3350.0, p' \
	"$tmp/h100/metrics.json" || { echo "FAIL: metrics.json peaks"; fail=1; }
# not in the peak table: name, memory and the export's bandwidth
report a4500 "$data/vectoradd-um-a4500-nsys2026.1.sqlite"
has "$tmp/a4500/report.md" "| GPU | NVIDIA RTX A4500 |"
# ... labelled an estimate, never a bare datasheet figure, and listed under Trust
has "$tmp/a4500/report.md" "| Ceiling | Datasheet or ESTIMATE | Measured |"
has "$tmp/a4500/report.md" "| DRAM bandwidth (GB/s) | 640 (estimate) | n/a |"
has "$tmp/a4500/report.md" "| Source | bandwidth: estimate (no datasheet): the bandwidth nsys reports (TARGET_INFO_GPU) | none |"
has "$tmp/a4500/report.md" "| peak estimated by llmprof, not from a datasheet (GPU not in the peak table): DRAM 640 GB/s | 1 |"
grep -q "Nothing found that would make these numbers wrong" "$tmp/a4500/report.md" &&
	{ echo "FAIL: a4500 trust section says nothing is wrong beside an estimated peak"; fail=1; }
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["peaks"]; assert p["datasheet_gbs_estimated"] is True and p["datasheet_tflops_estimated"] is False, p' \
	"$tmp/a4500/metrics.json" || { echo "FAIL: a4500 metrics.json estimate flags"; fail=1; }
# two GPUs: an A100 with the lower id, the kernels on the H100 (id 5)
python3 - "$data/nvtx-probe-h100-nsys2025.3.sqlite" "$tmp/two.sqlite" <<'PY' || { echo "FAIL: cannot build the two-GPU export"; exit 1; }
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("UPDATE TARGET_INFO_GPU SET id = 5")
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 5")
db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount, clockRate, memoryBandwidth, totalMemory) "
           "VALUES (0, 0, 'NVIDIA A100-SXM4-80GB', 108, 1410000000, 2039000000000, 85899345920)")
db.commit()
PY
report two "$tmp/two.sqlite"
has "$tmp/two/report.md" "| GPU | NVIDIA H100 80GB HBM3 |"
has "$tmp/two/report.md" "TARGET_INFO_GPU (no env.json names one): the one its kernels ran on"
exit $fail
