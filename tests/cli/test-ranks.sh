#!/usr/bin/env bash
# Ranks as first-class, from synthetic tracer logs (trace-tool synth-ranks):
# 1, 2 and 8 ranks under torchrun with one rank's kernels made slower. The
# identity comes back from trace.sqlite (LLMPROF_PROCESSES), each rank's
# stage numbers are the ones the generator planted, the slowest rank is
# named, and a one-process report has no per-rank view, only its identity
# in the environment.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
tool=$b/tests/trace-tool
[ -x "$tool" ] || { echo "SKIP: trace-tool not built (needs the CUDA toolkit headers)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

run() { # NAME RANKS SLOW_RANK SLOW_NS: 4 steps of 3 kernels per rank
	mkdir -p "$t/$1/log"
	"$tool" synth-ranks "$t/$1/log" "$2" 4 3 "$3" "$4"
	"$tool" convert "$t/$1/log" "$t/$1/trace.sqlite" >/dev/null
	"$LLMPROF" report --trace "$t/$1/trace.sqlite" -o "$t/$1/out" >/dev/null 2>"$t/$1/err" ||
		{ cat "$t/$1/err"; exit 1; }
}
run one 1 -1 0
run two 2 1 5000
run eight 8 5 20000
# "two" again with an operator range "attn" around each decode step's launches
python3 - "$t/two/trace.sqlite" <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[1] + ".ops")
db = sqlite3.connect(sys.argv[1] + ".ops")
for s, e, tid, dom in db.execute("SELECT start, end, globalTid, domainId FROM NVTX_EVENTS "
                                 "WHERE text = 'decode_step'").fetchall():
    db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
               "VALUES (?, ?, 59, 'attn', ?, ?)", (s + 1, e - 1, tid, dom))
db.commit()
PY
"$LLMPROF" report --trace "$t/two/trace.sqlite.ops" -o "$t/ops" >/dev/null

python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]

def planted(slow):
    # per step: kernels of 1000 + 10 i + slow ns (i < 3), a 500 ns memcpy and a
    # 200 ns memset, each op 104 ns after the previous one (tlogsynth.h)
    busy = sum(1000 + 10 * i + slow for i in range(3)) + 700
    return busy + 4 * 104, busy

one = json.load(open(f"{t}/one/out/metrics.json"))
assert "ranks" not in one and "cross_rank" not in one, "one process: no ranks"
assert "## Ranks" not in open(f"{t}/one/out/stakeholder_summary.md").read()
assert "## Per Rank" not in open(f"{t}/one/out/kernels.md").read()
assert ">GPU 0 stream 7</text>" in open(f"{t}/one/out/charts/timeline.svg").read()
# ... but its rank identity (torchrun --nproc-per-node 1) is in the environment
assert one["environment"]["rank"] == {"rank": 0, "local_rank": 0, "world_size": 1,
    "launcher": "torchrun", "source": "RANK", "host": "node0", "from": "trace"}, one["environment"]
assert "| Rank | 0 of 1 (torchrun, local rank 0) |" in open(f"{t}/one/out/report.md").read()
assert "<td>0 of 1 (torchrun, local rank 0)</td>" in open(f"{t}/one/out/report.html").read()

for name, n, slow_rank, slow_ns in (("two", 2, 1, 5000), ("eight", 8, 5, 20000)):
    m = json.load(open(f"{t}/{name}/out/metrics.json"))
    ranks = m["ranks"]
    assert len(ranks) == n, len(ranks)
    for i, r in enumerate(ranks):
        assert r["rank"] == i and r["label"] == f"rank {i}", r["label"]
        assert r["pid"] == 5000 + i and r["local_rank"] == i % 8
        assert r["world_size"] == n and r["launcher"] == "torchrun"
        assert r["host"] == f"node{i // 8}" and r["gpu"] == "GPU 0"
        proj, busy = planted(slow_ns if i == slow_rank else 0)
        d, p = r["decode"], r["prefill"]
        assert d["instances"] == 1 and d["steps"] == 4 and d["kernels"] == 12, d
        assert abs(d["step_p50_ms"] - proj / 1e6) < 1e-9, (d["step_p50_ms"], proj)
        assert abs(d["step_max_ms"] - proj / 1e6) < 1e-9
        assert abs(p["gpu_ms"] - proj / 1e6) < 1e-9 and abs(p["gpu_busy_ms"] - busy / 1e6) < 1e-9
        assert p["instances"] == 1 and p["kernels"] == 3
        assert r["kernels"] == 15
        assert r["slowest"] == (i == slow_rank)
    assert m["environment"]["rank"] is None  # several: ranks[] names them
    c = m["cross_rank"]
    assert c["processes"] == n and c["identified"] is True
    assert c["slowest"] == f"rank {slow_rank}" and c["slowest_by"] == "decode GPU span"
    assert c["decode_step_p50"]["max_on"] == f"rank {slow_rank}"
    assert abs(c["decode_step_p50"]["min_ms"] - planted(0)[0] / 1e6) < 1e-9
    # the merged view is still there, its instances one per process
    dec = [s for s in m["stages"] if s["name"] == "decode"][0]
    assert dec["instances"] == n, dec["instances"]
    s = open(f"{t}/{name}/out/stakeholder_summary.md").read()
    assert "## Ranks" in s and f"Slowest: rank {slow_rank} by decode GPU span" in s
    assert f"{n} processes ran kernels" in s
    assert "## Per Rank" in open(f"{t}/{name}/out/kernels.md").read()
    assert "Per-rank stages" in open(f"{t}/{name}/out/report.md").read()
    h = open(f"{t}/{name}/out/report.html").read()
    assert "<h3>Ranks</h3>" in h
    # the timeline: one GPU lane per rank (their streams share ids), no merged lane
    for svg in (h, open(f"{t}/{name}/out/charts/timeline.svg").read()):
        assert all(f">rank {i} GPU 0</text>" in svg for i in range(n)), name
        assert "stream 7</text>" not in svg
# per-rank operators: each rank's attn holds its own 4 steps x 3 kernels
m = json.load(open(f"{t}/ops/metrics.json"))
for i, slow in ((0, 0), (1, 5000)):
    (op,) = m["ranks"][i]["operators"]
    want = 4 * sum(1000 + 10 * k + slow for k in range(3)) / 1e6
    assert op["name"] == "attn" and op["stage"] == "decode" and op["calls"] == 4, op
    assert abs(op["gpu_ms"] - want) < 1e-9, (op, want)
o = open(f"{t}/ops/operators.md").read()
assert "## Per Rank" in o and "| attn | 0.012 | 0.072 |" in o, o
print("ok")
PY
