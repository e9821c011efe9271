#!/usr/bin/env bash
# NCCL collectives across the ranks of one trace (trace-tool synth-ranks
# ... nccl): 2, 8 and 16 ranks (16: two hosts) where prefill and every
# decode step end with an AllReduce, and one rank's kernels are slower, so
# the others start their AllReduce earlier and end it with the slow one.
# The generator plants the answer (tlogsynth.h): per collective, a rank
# waits KPS * SLOW_NS for the slow rank, which waits 0; every call then moves
# data for TLOGSYNTH_NCCL_TRANSFER_NS (2000 ns). Tolerance: 1 ns per
# collective (the times are exact integers; the slack covers the ms floats
# of metrics.json). A one-process trace with the same AllReduce, and one
# without, get no collectives across ranks (the one with NCCL's NVTX ranges
# still lists its NCCL calls and their bytes). Each rank's NCCL calls carry
# the generator's message size, and their bandwidths follow from the
# AllReduce kernel time: algbw = bytes / time, busbw = algbw x 2(n-1)/n.
# trace.json names each rank's process.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
tool=$b/tests/trace-tool
[ -x "$tool" ] || { echo "SKIP: trace-tool not built (needs the CUDA toolkit headers)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

run() { # NAME RANKS SLOW_RANK SLOW_NS [nccl]: 4 decode steps of 3 kernels per rank
	mkdir -p "$t/$1/log"
	"$tool" synth-ranks "$t/$1/log" "$2" 4 3 "$3" "$4" ${5:+"$5"}
	"$tool" convert "$t/$1/log" "$t/$1/trace.sqlite" >/dev/null
	"$LLMPROF" report --trace "$t/$1/trace.sqlite" -o "$t/$1/out" >/dev/null 2>"$t/$1/err" ||
		{ cat "$t/$1/err"; exit 1; }
}
run one 1 -1 0 nccl
run plain 2 1 5000
run two 2 1 5000 nccl
run eight 8 5 20000 nccl
run sixteen 16 12 10000 nccl

python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]
KPS, STEPS, TRANSFER = 3, 4, 2000
CALLS = STEPS + 1  # prefill's AllReduce and one per decode step

def near(a, b, calls=CALLS):
    return abs(a - b) <= 1e-6 * calls + 1e-12  # ms: 1 ns per collective

BYTES = 1 << 20  # TLOGSYNTH_NCCL_BYTES per AllReduce

for name in ("one", "plain"):
    m = json.load(open(f"{t}/{name}/out/metrics.json"))
    assert "collectives" not in m, name
    assert not [f for f in m["findings"] if f["code"].startswith("collective")], name
    r = open(f"{t}/{name}/out/report.md").read()
    assert "Stragglers" not in r and "| Rank | Collective |" not in r, name
    assert "Straggler" not in open(f"{t}/{name}/out/report.html").read()
    s = open(f"{t}/{name}/out/stakeholder_summary.md").read()
    assert "NCCL collective kernels ran" not in s, name
    if name == "plain":
        assert "nccl_calls" not in m and "## Collectives" not in r
        continue
    (a,) = m["nccl_calls"]["by_process"]  # one process: its calls and bytes all the same
    assert (a["type"], a["calls"], a["bytes"], a["ranks"], a["launched_calls"]) == (
        "AllReduce", CALLS, CALLS * BYTES, 1, CALLS), a

for name, n, slow, slow_ns in (("two", 2, 1, 5000), ("eight", 8, 5, 20000),
                               ("sixteen", 16, 12, 10000)):
    m = json.load(open(f"{t}/{name}/out/metrics.json"))
    c = m["collectives"]
    late = KPS * slow_ns
    assert c["calls"] == n * CALLS and c["matched"] == CALLS, (c["calls"], c["matched"])
    assert len(c["ranks"]) == n and c["mismatches"] == []
    for i, r in enumerate(c["ranks"]):
        assert r["label"] == f"rank {i}"
        wait = 0 if i == slow else late
        assert r["calls"] == CALLS and r["unmatched"] == 0
        (ar,) = r["by_type"]
        assert ar["type"] == "AllReduce" and ar["calls"] == CALLS and ar["matched"] == CALLS
        assert near(ar["wait_ms"], CALLS * wait / 1e6), (name, i, ar["wait_ms"], wait)
        assert near(ar["transfer_ms"], CALLS * TRANSFER / 1e6), (name, i, ar)
        assert near(ar["time_ms"], CALLS * (wait + TRANSFER) / 1e6)
        assert near(r["wait_ms"], ar["wait_ms"]) and near(r["exposed_ms"], ar["time_ms"])
        st = {s["stage"]: s for s in r["stages"]}
        # nothing overlaps the AllReduce: all of it is exposed, STEPS of it in decode
        assert st["decode"]["windows"] == 1 and st["prefill"]["windows"] == 1
        assert near(st["decode"]["exposed_ms"], STEPS * (wait + TRANSFER) / 1e6, STEPS)
        assert near(st["prefill"]["exposed_ms"], (wait + TRANSFER) / 1e6, 1)
        assert r["clock_offset_ms"] == 0
    # bytes per call from NCCL's payloads, per rank, and the bandwidths
    nc = m["nccl_calls"]
    assert nc["bytes_unknown_why"] is None and len(nc["by_process"]) == n, nc
    for i, a in enumerate(nc["by_process"]):
        ar = c["ranks"][i]["by_type"][0]
        assert a["process"] == f"rank {i}" and a["type"] == "AllReduce", a
        assert (a["calls"], a["sized_calls"], a["launched_calls"], a["kernels"]) == (
            CALLS, CALLS, CALLS, CALLS), a
        assert a["bytes"] == CALLS * BYTES and a["bytes_per_call"] == BYTES and a["ranks"] == n
        assert near(a["kernel_time_ms"], ar["time_ms"]), (a, ar)
        algbw = CALLS * BYTES / (ar["time_ms"] * 1e6)
        assert abs(a["algbw_gbps"] - algbw) <= 1e-6 * algbw, (a, algbw)
        assert abs(a["busbw_gbps"] - algbw * 2 * (n - 1) / n) <= 1e-6 * algbw, a
    assert f"| rank {slow} | AllReduce | {CALLS} | {BYTES} | {CALLS * BYTES} |" in \
        open(f"{t}/{name}/out/report.md").read()
    (s,) = c["stragglers"]
    assert s["rank"] == f"rank {slow}" and s["last"] == CALLS and s["share"] == 1.0
    assert near(s["mean_late_ms"], late / 1e6, 1), (s["mean_late_ms"], late)
    hosts = c["hosts"]
    assert [h["host"] for h in hosts] == [f"node{h}" for h in range((n + 7) // 8)]
    assert all(h["aligned"] and h["offset_ms"] == 0 for h in hosts)
    assert c["clock_residual"]["median_ms"] == 0
    assert m["cross_rank"]["slowest"] == f"rank {slow}"
    assert m["cross_rank"]["slowest_by"] == "last arrival at collectives"
    codes = [f["code"] for f in m["findings"]]
    (f,) = [f for f in m["findings"] if f["code"] == "collective-straggler"]
    assert f["severity"] == "warning"
    assert f["text"].startswith(f"Rank {slow} "), f["text"]
    assert f"by {late / 1e3:.1f} us at p50" in f["text"], f["text"]
    # the synthetic job slows the rank's kernels (tlogsynth.c): a GPU cause
    assert "Cause: **GPU**" in f["text"], f["text"]
    assert "collective-exposed" in codes
    r = open(f"{t}/{name}/out/report.md").read()
    assert "## Collectives" in r and f"| rank {slow} | {CALLS} | 100.0% |" in r
    assert ("Clocks: each host's offset" in r) == (n > 8)
    s = open(f"{t}/{name}/out/stakeholder_summary.md").read()
    assert f"Straggler: rank {slow} arrives last at {CALLS} of them" in s, name
    assert f"Slowest: rank {slow} by last arrival at collectives" in s
    h = open(f"{t}/{name}/out/report.html").read()
    assert "<h3>Collectives</h3>" in h and f"Straggler: rank {slow} arrives last" in h
    # trace.json: each rank's CPU tracks under "rank N (pid P)"
    tj = open(f"{t}/{name}/out/trace.json").read()
    for i in range(n):
        assert f'"name":"rank {i} (pid {5000 + i})"' in tj, (name, i)
print("ok")
PY
