#!/usr/bin/env bash
# NVTX nesting 20,000 deep (bench/gen-nsys-trace.py --nested: range i named
# level_<i % 8> holds the kernels launched at depths i..N-1, 3 ns each):
# `stats -r nvtx_kern_sum` gives the analytic counts (NVTX Inst, Kern Inst,
# and one pair per enclosing range: 50 M pairs in all, summed without
# listing them), and it, `report --trace` and `diff` finish within a minute
# (they were quadratic in the depth: 75 s for nvtx_kern_sum at this depth;
# bench/nvtx-depth-report-bench.sh measures the growth).
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
tmp=$(mktemp -d /tmp/llmprof-cli-depth.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
N=20000
python3 "$src/bench/gen-nsys-trace.py" n.sqlite --nested $N >/dev/null || fail "gen-nsys-trace.py"
timeout 60 "$LLMPROF" stats -f csv -r nvtx_kern_sum n.sqlite >k.csv 2>err ||
	fail "nvtx_kern_sum at depth $N: exit $? (124: over a minute): $(cat err)"
python3 - "$N" k.csv <<'PY' || fail "nvtx_kern_sum numbers"
import csv, sys
n = int(sys.argv[1])
rows = {r["NVTX Range"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert len(rows) == 8, rows.keys()
for j in range(8):
    r = rows["level_%d" % j]
    depths = range(j, n, 8)                 # the ranges named level_j
    pairs = sum(n - i for i in depths)      # kernels inside each of them
    want = {"NVTX Inst": len(depths), "Kern Inst": n - j, "Total Time (ns)": 3 * pairs,
            "Min (ns)": 3, "Max (ns)": 3}
    for k, v in want.items():
        assert int(r[k]) == v, (j, k, r[k], v)
    assert float(r["Avg (ns)"]) == 3.0 and float(r["StdDev (ns)"]) == 0.0, r
PY
timeout 60 "$LLMPROF" report --trace n.sqlite -o r >/dev/null 2>err ||
	fail "report --trace at depth $N: exit $?: $(cat err)"
timeout 60 "$LLMPROF" diff n.sqlite n.sqlite >/dev/null 2>err ||
	fail "diff at depth $N: exit $?: $(cat err)"
echo ok
