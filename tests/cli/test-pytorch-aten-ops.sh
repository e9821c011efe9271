#!/usr/bin/env bash
# Operator tables of PyTorch's ATen ranges (pipeline.trace.pytorch=ops,
# docs/pytorch.md): one row per operator, not per call. PyTorch names every
# call of an op differently ("aten::mm, seq = 12, op_id = 40", torch 2.x's
# getNvtxStr(); with record_shapes also ", sizes = [...], input_op_ids =
# [...]"), so a table grouped by message had one row per call.
#
# The trace: the H200 recording of tests/data/pytorch/h200-modules/
# mini-eager (module ranges, real kernels and launch calls) with an ATen
# range added around each kernel's launch call, spelled as torch 2.x spells
# them, and ATen calls that launch nothing between them. The truth is
# counted here from the same rows with SQL: calls and GPU time per
# (operator, stage), and with shapes per (operator, sizes).
set -u
: "${LLMPROF:?}"
data=${LLMPROF_SOURCE_DIR:?}/tests/data/pytorch/h200-modules
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-aten.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
xz -dc "$data/mini-eager.sqlite.xz" >plain.sqlite || fail "unpack"

# add.py DB SHAPES: adds the ATen ranges; prints nothing
cat >add.py <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
shapes = sys.argv[2] == "1"
names = dict(db.execute("SELECT id, value FROM StringIds"))
def op(kname):
    k = names.get(kname, "")
    if "gemm" in k or "nvjet" in k or "cutlass" in k:
        return "aten::mm"
    if "reduce" in k:
        return "aten::sum"
    return "aten::add_"
calls = db.execute("""SELECT r.start, r.end, r.globalTid, k.shortName
    FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k
    ON k.correlationId = r.correlationId ORDER BY r.start""").fetchall()
rows = []
for i, (s, e, tid, kname) in enumerate(calls):
    name = op(kname)
    text = "%s, seq = %d, op_id = %d" % (name, 1000 + i, 5000 + 2 * i)
    if shapes:
        sizes = "[[1, 64], [64, 64]]" if i % 2 else "[[1, 64], [64, 256]]"
        text += ", sizes = %s, input_op_ids = [(%d,0),(%d,0)]" % (sizes, 4998 + 2 * i, 4999 + 2 * i)
    rows.append((s, e, text, tid))
    # an op that launches nothing, before the call (seq -1: no seq field)
    text = "aten::empty, op_id = %d" % (5001 + 2 * i)
    if shapes:
        text += ", sizes = [[], [], [], [], [], []]"
    rows.append((s - 2, s - 1, text, tid))
db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
               "VALUES (?, ?, 59, ?, ?, 0)", rows)
db.commit()
PY
# truth.py DB: "stage op calls gpu_ns" per row, sorted
cat >truth.py <<'PY'
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stages = db.execute("""SELECT text, start, end, globalTid FROM NVTX_EVENTS
    WHERE eventType = 59 AND domainId = 0 AND text IN ('prefill', 'decode', 'decode_step')""").fetchall()
def stage(t, tid):
    for name, s, e, g in stages:  # a few dozen stage ranges
        if g == tid and s <= t < e:
            return "prefill" if name == "prefill" else "decode"
    return None
def key(text):
    m = re.match(r"^(.*?)(?:, seq = -?\d+)?(?:, op_id = \d+)?(, sizes = \[.*?\])?(?:, input_op_ids = \[.*)?$", text)
    return m.group(1) + (m.group(2) or "")
out = {}
aten = db.execute("""SELECT text, start, end, globalTid FROM NVTX_EVENTS
    WHERE eventType = 59 AND text LIKE 'aten::%'""").fetchall()
at = {(s, tid): text for text, s, e, tid in aten}
for text, s, e, tid in aten:
    st = stage(s, tid)
    if st is None:
        continue
    k = (st, key(text))
    c, ns = out.get(k, (0, 0))
    out[k] = (c + 1, ns)
for s, e, ks, ke, tid in db.execute("""SELECT r.start, r.end, k.start, k.end, r.globalTid
        FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k
        ON k.correlationId = r.correlationId"""):
    st = stage(s, tid)
    if st is None:
        continue
    k = (st, key(at[(s, tid)]))
    c, ns = out[k]
    out[k] = (c, ns + ke - ks)
for (st, k), (c, ns) in sorted(out.items()):
    print("%s|%s|%d|%.3f" % (st, k, c, ns / 1e6))
PY
# got.py RUN: the same rows from metrics.json
cat >got.py <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/metrics.json"))
rows = sorted((o["stage"], o["name"], o["calls"], o.get("gpu_ms") or 0)
              for o in m["operators"] if o["name"].startswith("aten::") and o["stage"])
for st, k, c, ms in rows:
    print("%s|%s|%d|%.3f" % (st, k, c, ms))
PY
for shapes in 0 1; do
	cp plain.sqlite "aten$shapes.sqlite"
	python3 add.py "aten$shapes.sqlite" $shapes || fail "add ranges"
	"$LLMPROF" report --trace "aten$shapes.sqlite" -o "r$shapes" >/dev/null 2>err || fail "report: $(cat err)"
	want=$(python3 truth.py "aten$shapes.sqlite") || fail "truth"
	got=$(python3 got.py "r$shapes") || fail "metrics.json"
	[ "$want" = "$got" ] || fail "shapes=$shapes: operators
--- SQL says
$want
--- llmprof says
$got"
done
# one row per op (and per op and sizes): a handful, not one per call
[ "$(python3 got.py r0 | wc -l)" -eq 8 ] || fail "rows: $(python3 got.py r0)"
[ "$(python3 got.py r1 | wc -l)" -eq 13 ] || fail "rows with sizes: $(python3 got.py r1)"
grep -q '^| aten::mm | decode |' r0/operators.md || fail "operators.md: $(grep aten r0/operators.md | head -3)"
grep -qF '| aten::mm, sizes = \[\[1, 64\], \[64, 64\]\] | decode |' r1/operators.md ||
	fail "operators.md with sizes: $(grep aten r1/operators.md | head -3)"
grep -q 'seq = ' r0/operators.md r0/kernels.md r1/operators.md r1/kernels.md &&
	fail "a per-call name in a table: $(grep -h 'seq = ' r0/*.md r1/*.md | head -2)"
grep -q '| aten::mm |' r0/kernels.md || fail "kernels.md Operator column: $(sed -n 1,12p r0/kernels.md)"
echo ok
