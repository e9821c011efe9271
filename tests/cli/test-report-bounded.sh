#!/usr/bin/env bash
# Report tables bounded by run.report_rows (issue 34, items 8 and 9): kernels.md,
# operators.md and metrics.json show the top rows and one row summing the rest, so
# the totals still add up; kernels.tsv has every kernel whatever the bound; an ncu
# region's metrics.json lists its longest results. Checked against the unbounded
# run and, for a generated trace with thousands of distinct names, against the
# export's own kernel rows (sqlite3).
set -u
src=${LLMPROF_SOURCE_DIR:?}
ncu=$src/tests/data/ncu/nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 0; }
# a dozen kernel names and operators, several processes and GPUs
fx=$tmp/small.sqlite
python3 "$src/bench/gen-nsys-trace.py" "$fx" --kernels 600 --edge >/dev/null ||
	{ echo "FAIL: gen-nsys-trace.py"; exit 1; }

"$LLMPROF" report --trace "$fx" -o "$tmp/all" >/dev/null 2>&1 || { echo "FAIL: report (all)"; fail=1; }
"$LLMPROF" report --trace "$fx" -o "$tmp/cut" run.report_rows=4 >/dev/null 2>&1 ||
	{ echo "FAIL: report run.report_rows=4"; fail=1; }
"$LLMPROF" report --trace "$fx" -o "$tmp/one" run.report_rows=1 >/dev/null 2>&1 ||
	{ echo "FAIL: report run.report_rows=1"; fail=1; }
# kernels.tsv is the same whatever the bound
cmp -s "$tmp/all/kernels.tsv" "$tmp/cut/kernels.tsv" || { echo "FAIL: kernels.tsv depends on run.report_rows"; fail=1; }
cmp -s "$tmp/all/kernels.tsv" "$tmp/one/kernels.tsv" || { echo "FAIL: kernels.tsv depends on run.report_rows=1"; fail=1; }
"$LLMPROF" report --trace "$fx" -o "$tmp/bad" run.report_rows=0 >/dev/null 2>"$tmp/err" &&
	{ echo "FAIL: run.report_rows=0 accepted"; fail=1; }
grep -q "run.report_rows" "$tmp/err" || { echo "FAIL: run.report_rows=0: $(cat "$tmp/err")"; fail=1; }

python3 - "$tmp" <<'PY' || fail=1
import csv, json, re, sys
tmp = sys.argv[1]
bad = []
def tsv(d):
    with open(f"{tmp}/{d}/kernels.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
def md_rows(d):
    return [l for l in open(f"{tmp}/{d}/kernels.md") if re.match(r"^\| (\d+)? \| `", l)]
full = json.load(open(f"{tmp}/all/metrics.json"))
rows = tsv("all")
n = len(full["kernels"])
if n < 6 or "kernels_other" in full:
    bad.append(f"unbounded run: {n} kernels, kernels_other {'kernels_other' in full}")
if len(rows) != n:
    bad.append(f"kernels.tsv has {len(rows)} kernels, metrics.json {n}")
for r, k in zip(rows, full["kernels"]):
    if (r["full_name"], int(r["calls"]), int(r["total_ns"])) != (k["full_name"], k["calls"], k["total_ns"]):
        bad.append(f"kernels.tsv row {r['index']} differs from metrics.json: {r} / {k}")
        break
if len(md_rows("all")) != n:
    bad.append(f"unbounded kernels.md has {len(md_rows('all'))} rows, not {n}")
calls = sum(k["calls"] for k in full["kernels"])
total = sum(k["total_ns"] for k in full["kernels"])
for d, shown in (("cut", 3), ("one", 1)):
    m = json.load(open(f"{tmp}/{d}/metrics.json"))
    ks, other = m["kernels"], m.get("kernels_other")
    if len(ks) != shown or not other:
        bad.append(f"{d}: {len(ks)} kernels in metrics.json, kernels_other {other}")
        continue
    if ks != full["kernels"][:shown]:
        bad.append(f"{d}: the listed kernels are not the top ones")
    if other["kernels"] != n - shown or other["listed_in"] != "kernels.tsv":
        bad.append(f"{d}: kernels_other {other}")
    if sum(k["calls"] for k in ks) + other["calls"] != calls:
        bad.append(f"{d}: calls do not add up")
    if sum(k["total_ns"] for k in ks) + other["total_ns"] != total:
        bad.append(f"{d}: total_ns does not add up")
    if abs(sum(k["pct_gpu_time"] for k in ks) + other["pct_gpu_time"] - 100) > 1e-6:
        bad.append(f"{d}: pct_gpu_time does not add up")
    md = md_rows(d)
    if len(md) != shown + 1 or f"({n - shown} other kernels: kernels.tsv)" not in md[-1]:
        bad.append(f"{d}: kernels.md rows: {md}")
    cells = [c.strip() for c in md[-1].split("|")]
    if cells[4] != str(other["calls"]):
        bad.append(f"{d}: kernels.md's last row: calls {cells[4]}, not {other['calls']}")
    if abs(float(cells[5]) - other["total_ns"] / 1e6) > 0.0006:
        bad.append(f"{d}: kernels.md's last row: total {cells[5]} ms, not {other['total_ns']} ns")
    # operators bounded the same way
    if len(full["operators"]) > shown + 1:
        o = m.get("operators_other")
        if len(m["operators"]) != shown or not o or o["operators"] != len(full["operators"]) - shown:
            bad.append(f"{d}: operators {len(m['operators'])}, operators_other {o}")
        elif o["calls"] + sum(x["calls"] for x in m["operators"]) != sum(x["calls"] for x in full["operators"]):
            bad.append(f"{d}: operator calls do not add up")
        if f"other operators)" not in open(f"{tmp}/{d}/operators.md").read():
            bad.append(f"{d}: operators.md has no row summing the rest")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# two processes: each rank's top_kernels in metrics.json bounded the same way
python3 "$src/bench/gen-nsys-trace.py" "$tmp/ranks.sqlite" --kernels 600 --processes 2 >/dev/null ||
	{ echo "FAIL: gen-nsys-trace.py --processes 2"; exit 1; }
"$LLMPROF" report --trace "$tmp/ranks.sqlite" -o "$tmp/ranks-all" >/dev/null 2>&1 || { echo "FAIL: report (ranks)"; fail=1; }
"$LLMPROF" report --trace "$tmp/ranks.sqlite" -o "$tmp/ranks-cut" run.report_rows=3 >/dev/null 2>&1 ||
	{ echo "FAIL: report (ranks) run.report_rows=3"; fail=1; }
python3 - "$tmp" <<'PY' || fail=1
import json, sys
tmp = sys.argv[1]
a = json.load(open(f"{tmp}/ranks-all/metrics.json"))["ranks"]
b = json.load(open(f"{tmp}/ranks-cut/metrics.json"))["ranks"]
bad = []
if len(a) != 2 or len(b) != 2:
    bad.append(f"{len(a)} and {len(b)} ranks, not 2")
for x, y in zip(a, b):
    k, o = y["top_kernels"], y.get("top_kernels_other")
    if "top_kernels_other" in x or len(x["top_kernels"]) <= 3:
        bad.append(f"unbounded rank: {len(x['top_kernels'])} kernels, other {x.get('top_kernels_other')}")
    elif k != x["top_kernels"][:2] or not o or o["kernels"] != len(x["top_kernels"]) - 2:
        bad.append(f"rank top_kernels: {len(k)} listed, other {o}")
    elif o["calls"] + sum(t["calls"] for t in k) != sum(t["calls"] for t in x["top_kernels"]):
        bad.append("rank top_kernels: calls do not add up")
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY

# thousands of distinct names: every one in kernels.tsv, its sums those of the
# export's kernel rows; kernels.md and metrics.json bounded
python3 "$src/bench/gen-nsys-trace.py" "$tmp/names.sqlite" --kernels 2500 --names 2500 >/dev/null ||
	{ echo "FAIL: gen-nsys-trace.py --names"; exit 1; }
"$LLMPROF" report --trace "$tmp/names.sqlite" -o "$tmp/names" run.report_rows=100 >/dev/null 2>&1 ||
	{ echo "FAIL: report of 2,500 names"; fail=1; }
python3 - "$tmp" <<'PY' || fail=1
import csv, json, sqlite3, sys
tmp = sys.argv[1]
db = sqlite3.connect(f"{tmp}/names.sqlite")
truth = {}
for name, calls, ns in db.execute(
        "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"):
    truth[name] = (calls, ns)
with open(f"{tmp}/names/kernels.tsv", newline="") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
got = {r["full_name"].replace("\\\\", "\\"): (int(r["calls"]), int(r["total_ns"])) for r in rows}
bad = []
if len(rows) != len(truth) or got != truth:
    bad.append(f"kernels.tsv: {len(rows)} kernels, the export {len(truth)}; "
               f"{sum(1 for k in truth if got.get(k) != truth[k])} differ")
m = json.load(open(f"{tmp}/names/metrics.json"))
if len(m["kernels"]) != 99 or m["kernels_other"]["kernels"] != len(truth) - 99:
    bad.append(f"metrics.json: {len(m['kernels'])} kernels, other {m.get('kernels_other')}")
md = open(f"{tmp}/names/kernels.md").read()
if f"({len(truth) - 99} other kernels: kernels.tsv)" not in md or md.count("\n| ") > 130:
    bad.append("kernels.md is not bounded to 100 rows")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# ncu regions: --max-rows N lists each region's N longest results, in export order
"$LLMPROF" report --ncu-csv "$ncu" -o "$tmp/ncu-all" >/dev/null 2>&1 || { echo "FAIL: --ncu-csv"; fail=1; }
"$LLMPROF" report --ncu-csv "$ncu" -o "$tmp/ncu-cut" --max-rows 2 >/dev/null 2>&1 ||
	{ echo "FAIL: --ncu-csv --max-rows 2"; fail=1; }
python3 - "$tmp" <<'PY' || fail=1
import glob, json, os, sys
tmp = sys.argv[1]
bad, cut = [], 0
for f in sorted(glob.glob(f"{tmp}/ncu-all/regions/*/metrics.json")):
    a = json.load(open(f))
    b = json.load(open(f.replace("/ncu-all/", "/ncu-cut/")))
    res = a["results"]
    if "results_not_listed" in a:
        bad.append(f"{f}: unbounded run cut its results")
    if len(res) <= 2:
        if b != a:
            bad.append(f"{f}: a region within the bound changed")
        continue
    cut += 1
    dur = lambda r: r["metrics"].get("gpu__time_duration.sum", -1)
    top = sorted(range(len(res)), key=lambda i: (-dur(res[i]), i))[:2]
    want = [res[i] for i in sorted(top)]
    if b["results"] != want:
        bad.append(f"{f}: listed {[r['source_line'] for r in b['results']]}, the longest are "
                   f"{[r['source_line'] for r in want]}")
    if b.get("results_not_listed") != len(res) - 2 or not b.get("source", "").endswith(".csv"):
        bad.append(f"{f}: results_not_listed {b.get('results_not_listed')}, source {b.get('source')}")
if not cut:
    bad.append("no region had more than 2 results: the fixture does not test the bound")
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
exit $fail
