#!/usr/bin/env bash
# Per-rank MFU/MBU, through the real pipeline: two synthetic ranks (trace-tool
# synth-ranks, rank 1's kernels slower) profiled as an external program with
# the llama-3.2-1b preset (its analytic FLOPs/bytes) and peaks set by
# hardware.*. How the model's work is shared is read from the collectives
# and stated:
#  1. no NCCL: replicas, each rank's work is the model's per instance;
#  2. every AllReduce matched: one model-parallel group, each rank's work
#     (and the merged stages') is the model's / 2;
#  3. one rank short of one AllReduce: unknown, per-rank MFU/MBU n/a and the
#     merged work left whole;
#  4. no model preset: no per-rank work, no basis.
# Each rank's MFU/MBU is its work / its own stage GPU span / the peak.
set -euo pipefail
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "SKIP: trace-tool not built (needs the CUDA toolkit headers)"; exit 77; }
t=$(mktemp -d /tmp/llmprof-cli-ranks-util.XXXXXX)
trap 'rm -rf "$t"' EXIT
export TOOL=$tool

run() { # NAME [nccl] [KEY=VALUE ...]: 2 ranks, 4 decode steps of 3 kernels
	local name=$1 nccl=$2
	shift 2
	"$LLMPROF" profile -q artifacts.root="$t/$name" pipeline.ncu.enable=false \
		pipeline.trace.backend=builtin hardware.peak_tflops=1000 \
		hardware.peak_bandwidth_gbs=3000 "$@" -- \
		sh -c "exec \"\$TOOL\" synth-ranks \"\$LLMPROF_TRACE_OUT\" 2 4 3 1 5000 $nccl" \
		>"$t/$name.out" 2>"$t/$name.err" || { cat "$t/$name.err"; exit 1; }
	sed -n 's/^run: //p' "$t/$name.out" >"$t/$name.dir"
}
model=(model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=5)
run replicas "" "${model[@]}"
run group nccl "${model[@]}"
run short nccl "${model[@]}"
run nomodel nccl
# rank 1 (pid 5001) misses its last AllReduce; the reports are made again
short=$(cat "$t/short.dir")
python3 - "$short/trace/trace.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("""DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = (
    SELECT k.rowid FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
    WHERE s.value LIKE 'ncclDevKernel%' AND (k.globalPid >> 24) % 16777216 = 5001
    ORDER BY k.start DESC LIMIT 1)""")
assert db.total_changes == 1
db.commit()
PY
"$LLMPROF" report "$short" >/dev/null 2>&1 || true

python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]
TF, GBS = 1000e12, 3000e9

def load(name):
    d = open(f"{t}/{name}.dir").read().strip()
    return d, json.load(open(f"{d}/metrics.json")), open(f"{d}/report.md").read()

def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b)

for name, split, div in (("replicas", "replicas", 1), ("group", "model-parallel", 2)):
    d, m, md = load(name)
    a = json.load(open(f"{d}/workload/analytic.json"))
    u = m["cross_rank"]["utilization"]
    assert u["split"] == split and u["divisor"] == div, u
    assert u["basis"] in md, "report.md states the basis"
    stages = {s["role"]: s for s in m["stages"]}
    for role in ("prefill", "decode"):
        # the merged stage: 2 instances (one per rank) of the model's work, / div
        assert close(stages[role]["utilization"]["flops"], 2 * a[role]["flops"] / div), (name, role)
        mbu = []
        for r in m["ranks"]:
            s = r[role]
            assert close(s["flops"], a[role]["flops"] / div) and close(s["bytes"], a[role]["bytes"] / div)
            sec = s["gpu_ms"] / 1e3
            assert close(s["mfu_datasheet"], s["flops"] / sec / TF), (name, role, s)
            assert close(s["mbu_datasheet"], s["bytes"] / sec / GBS), (name, role, s)
            assert s["mfu_measured"] is None  # no calibration
            mbu.append(s["mbu_datasheet"])
        if name == "replicas":  # rank 1 is slower, so it reaches less
            assert mbu[1] < mbu[0], (role, mbu)
    assert ("divided by 2" in md) == (div == 2)
    row = [l for l in md.splitlines() if l.startswith("| rank 1 | decode |")][0]
    assert row.endswith(f"| MBU {100 * m['ranks'][1]['decode']['mbu_datasheet']:.1f}% |"), row

d, m, md = load("short")
a = json.load(open(f"{d}/workload/analytic.json"))
u = m["cross_rank"]["utilization"]
assert u["split"] == "unknown" and u["divisor"] is None and u["basis"] in md, u
assert m["collectives"]["mismatches"], "the missing call is a mismatch"
for r in m["ranks"]:
    for role in ("prefill", "decode"):
        assert r[role]["flops"] is None and r[role]["mbu_datasheet"] is None
# (decode's merged work is unknown: the short step has fewer kernels)
pre = [s for s in m["stages"] if s["role"] == "prefill"][0]
assert close(pre["utilization"]["flops"], 2 * a["prefill"]["flops"]), "merged work not divided"
assert "| rank 1 | decode |" in md and [l for l in md.splitlines()
    if l.startswith("| rank 1 | decode |")][0].endswith("| n/a |")

d, m, md = load("nomodel")
assert m["cross_rank"]["utilization"] is None
assert all(r["decode"]["flops"] is None for r in m["ranks"])
assert "Per-rank MFU/MBU" not in md
print("ok")
PY
