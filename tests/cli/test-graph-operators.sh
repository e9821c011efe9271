#!/usr/bin/env bash
# Operators of a CUDA-graph decode loop: a synthetic builtin-tracer log of
# a step captured once (NVTX "attn", "mlp" inside "layer0" pushed only at
# capture; graph nodes 11, 12 made there, cloned to 21, 22 at
# instantiation) and replayed 4 times, against the same steps run eagerly
# (trace-tool synth-graph). The operator table of the graph run must equal
# the eager run's for calls, GPU time, mean and share of the stage; without
# the graph-node table (an nsys export has none) the replays have no
# operator. Also: ranges named without a dot ("attn") are operators when no
# range matches stages.operator_pattern.
set -u
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "no trace-tool built"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-graphops.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
ops() { # the attn and mlp rows without the CPU column
	grep -E '^\| (attn|mlp) \|' "$1/operators.md" | awk -F'|' '{print $2 $3 $4 $5 $6 $7 $9}'
}
for m in graph eager; do
	mkdir -p "$m"
	"$tool" synth-graph "$m" 4 "$m" || fail "synth $m"
	"$tool" convert "$m" "$m.sqlite" >/dev/null || fail "convert $m"
	"$LLMPROF" report --trace "$m.sqlite" -o "r-$m" >/dev/null 2>err || fail "report $m: $(cat err)"
done
[ "$(ops r-eager | wc -l)" -eq 2 ] || fail "eager operators: $(cat r-eager/operators.md)"
ops r-eager | grep -q "mlp  decode  4  0.012  0.003  0.012  75.0%" || fail "eager mlp row: $(ops r-eager)"
[ "$(ops r-graph)" = "$(ops r-eager)" ] ||
	fail "graph and eager operators differ: graph $(ops r-graph) / eager $(ops r-eager)"
# the same trace without the graph-node table: the replays have no operator
python3 - graph.sqlite nodes.sqlite <<'PY' || fail "cannot drop the table"
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("DROP TABLE LLMPROF_GRAPH_NODES")
db.commit()
PY
"$LLMPROF" report --trace nodes.sqlite -o r-nodes >/dev/null 2>err || fail "report nodes: $(cat err)"
[ -z "$(ops r-nodes | grep -v 'n/a')" ] || fail "replays got operators without the table: $(ops r-nodes)"
# and the report says why, once; the graph run with the table says nothing
grep -q "graph-kernels-no-operator\`: 8 kernels were replayed from CUDA graphs and have no operator" \
	r-nodes/report.md || fail "no graph-kernels-no-operator finding: $(grep -n info r-nodes/report.md)"
grep -q "graph-kernels-no-operator" r-graph/report.md && fail "finding on the graph run with its table"

# The same on real traces: examples/graph_decode.py --steps 8 (8 layers of
# attn and mlp, decode step captured with torch.cuda.graph) and --eager, under
# the builtin tracer on an H100 (tests/data/tracer/README.md). CUPTI reports
# each instantiated node both made and cloned; the operators of the 8
# replays must be the eager run's: the same calls, shares within 5 points.
h100=${LLMPROF_SOURCE_DIR:?}/tests/data/tracer/graph-decode-h100
for m in graph eager; do
	mkdir -p "h100-$m"
	xz -dc "$h100/$m.bin.xz" >"h100-$m/trace-1.bin" || fail "unpack $m"
	"$tool" convert "h100-$m" "h100-$m.sqlite" >/dev/null || fail "convert h100 $m"
	"$LLMPROF" report --trace "h100-$m.sqlite" -o "rh-$m" >/dev/null 2>err ||
		fail "report h100 $m: $(cat err)"
done
python3 - rh-eager/metrics.json rh-graph/metrics.json <<'PY' || fail "h100 graph vs eager operators"
import json, sys
def ops(p):
    return {o["name"]: o for o in json.load(open(p))["operators"] if o.get("stage") == "decode"}
e, g = ops(sys.argv[1]), ops(sys.argv[2])
want = {"attn", "mlp"} | {"layer%d" % i for i in range(8)}
assert want <= set(e) and want <= set(g), (sorted(e), sorted(g))
for n in sorted(want):
    assert e[n]["calls"] == g[n]["calls"], (n, e[n]["calls"], g[n]["calls"])
for n in ("attn", "mlp"):
    assert g[n]["calls"] == 64, (n, g[n]["calls"])
    d = abs(e[n]["share_of_stage"] - g[n]["share_of_stage"])
    assert d <= 0.05, (n, e[n]["share_of_stage"], g[n]["share_of_stage"])
    assert g[n].get("cpu_ms") is None, ("replays have no CPU time", g[n])
# the layers hold no kernel of their own: their time is the nested operators'
for i in range(8):
    n = "layer%d" % i
    assert e[n]["gpu_ms"] is None and g[n]["gpu_ms"] is None, (n, e[n], g[n])
    ie, ig = e[n]["gpu_incl_ms"], g[n]["gpu_incl_ms"]
    assert ie and ig and abs(ie - ig) <= 0.1 * ie, (n, ie, ig)
PY
# trace.json: replayed kernels say where they were captured, and each
# replay shows its capture-time ranges as slices on a track beside the stream
python3 - rh-graph/trace.json rh-eager/trace.json <<'PY' || fail "h100 trace.json replay ranges"
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rep = collections.Counter(e["name"] for e in ev if e.get("cat") == "nvtx.replay")
want = {"attn": 64, "mlp": 64}
want.update({"layer%d" % i: 8 for i in range(8)})
assert dict(rep) == want, rep
cap = [e for e in ev if e.get("cat") == "kernel" and "captured_in" in e.get("args", {})]
assert len(cap) == 704, len(cap)  # 720 replayed, 16 captured outside every range
assert all(e["args"]["captured_in"].startswith("layer") for e in cap)
tracks = [e for e in ev if e.get("name") == "thread_name" and "replayed ranges" in e["args"]["name"]]
assert len(tracks) == 1, tracks
# a layer's slice holds its attn and mlp slices in every replay
by = collections.defaultdict(list)
for e in ev:
    if e.get("cat") == "nvtx.replay":
        by[e["args"]["correlationId"]].append((e["name"], e["ts"], e["ts"] + e["dur"]))
assert len(by) == 8, len(by)
for corr, r in by.items():
    layers = [x for x in r if x[0].startswith("layer")]
    for name, t0, t1 in r:
        if not name.startswith("layer"):
            assert any(l0 <= t0 + 1e-3 and t1 <= l1 + 1e-3 for _, l0, l1 in layers), (corr, name, t0, t1)
eager = json.load(open(sys.argv[2]))["traceEvents"]
assert not [e for e in eager if e.get("cat") == "nvtx.replay"], "replay slices in the eager run"
PY
# a damaged graph-node table costs only the replays' operators: the report
# is written, the trust report and a finding name the table, trace.json has
# no replay slices
python3 - h100-graph.sqlite damaged.sqlite <<'PY' || fail "cannot damage the table"
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("DROP TABLE LLMPROF_GRAPH_NODES")
db.execute("CREATE TABLE LLMPROF_GRAPH_NODES (junk TEXT)")
db.commit()
PY
"$LLMPROF" report --trace damaged.sqlite -o r-damaged >/dev/null 2>err ||
	fail "report on a damaged graph-node table failed: $(cat err)"
grep -q "graph-node table unreadable, replayed kernels have no operator (.*table LLMPROF_GRAPH_NODES has no column 'globalTid'" \
	r-damaged/report.md || fail "no trust item for the damaged table: $(grep -i graph r-damaged/report.md)"
grep -q "graph-nodes-unreadable" r-damaged/report.md || fail "no graph-nodes-unreadable finding"
python3 - r-damaged/metrics.json <<'PY' || fail "metrics.json trust item"
import json, sys
m = json.load(open(sys.argv[1]))
items = [t for t in m["trust"] if t["code"] == "graph-nodes-unreadable"]
assert items and items[0]["count"] == 1, m["trust"]
PY
grep -q "graph-kernels-no-operator" r-damaged/report.md &&
	fail "damaged table blamed on the backend: $(grep graph-kernels r-damaged/report.md)"
[ -s r-damaged/trace.json ] || fail "no trace.json with a damaged graph-node table: $(ls r-damaged)"
grep -q '"nvtx.replay"' r-damaged/trace.json && fail "replay slices from a damaged table"
# kernels.md names the operator of the replayed decode GEMMs
grep -qE '^\| 1 \| `nvjet_sm90_tst_64x8_64x16_4x1_v_bz_NNT` \|.*\| attn \(\+1\) \|$' rh-graph/kernels.md ||
	fail "h100 graph kernels.md: $(sed -n 9p rh-graph/kernels.md)"
# two kernels per step were captured outside layer ranges (the step's own
# tail), the same two the eager steps launch outside them: 16 of 720
grep -q "graph-kernels-no-operator\`: 16 of 720 kernels replayed" rh-graph/report.md ||
	fail "h100 graph run: $(grep graph-kernels rh-graph/report.md)"
echo ok
