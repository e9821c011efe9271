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
	grep -E '^\| (attn|mlp) \|' "$1/operators.md" | awk -F'|' '{print $2 $3 $4 $5 $6 $8}'
}
for m in graph eager; do
	mkdir -p "$m"
	"$tool" synth-graph "$m" 4 "$m" || fail "synth $m"
	"$tool" convert "$m" "$m.sqlite" >/dev/null || fail "convert $m"
	"$LLMPROF" report --trace "$m.sqlite" -o "r-$m" >/dev/null 2>err || fail "report $m: $(cat err)"
done
[ "$(ops r-eager | wc -l)" -eq 2 ] || fail "eager operators: $(cat r-eager/operators.md)"
ops r-eager | grep -q "mlp  decode  4  0.012  0.003  75.0%" || fail "eager mlp row: $(ops r-eager)"
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
echo ok
