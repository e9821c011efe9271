#!/usr/bin/env bash
# test-ncu-import.sh: `llmprof report --ncu-csv` (no trace) end to end on every ncu fixture:
# kernels.md's Calls and Total (ms) add up to the export's, with and without
# a row cap; bad input gets a one-line error and exit code 5; and, where
# NVIDIA's ncu CLI can be fetched (scripts/nsight-cli-oracle.sh; else exit
# 77 after the rest), the same report imported with other options (auto
# units, --print-fp, instance values) gives the same numbers.
set -euo pipefail
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
fx=$LLMPROF_SOURCE_DIR/tests/data/ncu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Sums the Calls and Total (ms) columns of kernels.md and compares them with
# the totals of kernels.json.
check_sums() {
	python3 - "$1" <<'PY'
import json, re, sys
d = sys.argv[1]
js = json.load(open(d + "/kernels.json"))
calls = total = 0
for line in open(d + "/kernels.md"):
    if not line.startswith("| ") or line.startswith(("| #", "| ---")):
        continue
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
    calls += int(cells[3]); total += float(cells[4])
assert calls == js["total_calls"], (calls, js["total_calls"])
assert abs(total * 1e6 - js["total_gpu_time_ns"]) < 1e-3 * max(1, js["total_calls"]), (total, js["total_gpu_time_ns"])
PY
}

for f in "$fx"/*.raw.csv "$fx"/*.raw-base.csv; do
	name=$(basename "$f" .csv)
	"$LLMPROF" report --ncu-csv "$f" -o "$tmp/$name" >"$tmp/$name.out" || fail "$name: exit $?"
	[ -s "$tmp/$name/kernels.md" ] || fail "$name: no kernels.md"
	check_sums "$tmp/$name" || fail "$name: kernels.md does not add up"
	"$LLMPROF" report --ncu-csv "$f" -o "$tmp/$name-cap" --max-rows 1 >/dev/null || fail "$name: --max-rows"
	check_sums "$tmp/$name-cap" || fail "$name: capped kernels.md does not add up"
	[ -s "$tmp/$name/regions/report.json" ] || fail "$name: no regions/report.json"
done
grep -q '| 1 | add | (4096,1,1) x (256,1,1) | 4 | 0.023968 | 0.005992 | 53.05 | 21.8 | 42.0 | 73.4 | latency |' \
	"$tmp/nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw/kernels.md" || fail "H100 kernel row"
grep -q 'No matching regions: the export has no NVTX columns' \
	"$tmp/mathkernels-gtx1660ti-ncu2022.4.raw.out" || fail "no-regions message"

# ncu's details page (its default page, as the original system wrote
# ncu.details.csv with ncu's defaults on an H200) and its SpeedOfLight
# section: read as the raw page they stand for. Every number equals the raw
# page's of the same result at the precision the details page prints (its
# Duration has two decimals of the unit ncu picked; the percentages are printed alike).
h200=$fx/h200-torch-default-ncu2025.3
for page in details section_SpeedOfLight raw-base; do
	"$LLMPROF" report --ncu-csv "$h200.$page.csv" -o "$tmp/h200-$page" >/dev/null ||
		fail "h200 $page: exit $?"
done
python3 - "$h200.details.csv" "$tmp/h200-details" "$tmp/h200-section_SpeedOfLight" "$tmp/h200-raw-base" <<'PY' || fail "details page numbers differ from the raw page's"
import csv, json, sys
details, d, sol, raw = sys.argv[1:]
scale = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
want = {}  # ID -> (duration in ns as printed, half a unit of its last digit)
for r in csv.DictReader(open(details)):
    if r["Metric Name"] == "Duration" and not r["Rule Name"]:
        v = r["Metric Value"].replace(",", "")
        places = len(v.split(".")[1]) if "." in v else 0
        want[int(r["ID"])] = (round(float(v) * scale[r["Metric Unit"]], 6), 0.5 * 10 ** -places * scale[r["Metric Unit"]])
jd, jr, js = (json.load(open(p + "/kernels.json")) for p in (d, raw, sol))
assert jd["total_calls"] == jr["total_calls"] == js["total_calls"] == len(want) == 6, (jd["total_calls"], jr["total_calls"])
gd, gr = jd["kernels"], jr["kernels"]
assert [(g["name"], g["calls"]) for g in gd] == [(g["name"], g["calls"]) for g in gr]
tol_sum = sum(t for _, t in want.values())
assert abs(jd["total_gpu_time_ns"] - sum(v for v, _ in want.values())) < 1e-6, jd["total_gpu_time_ns"]
assert abs(jd["total_gpu_time_ns"] - jr["total_gpu_time_ns"]) <= tol_sum, (jd["total_gpu_time_ns"], jr["total_gpu_time_ns"])
for a, b in zip(gd, gr):
    for key in ("compute_sol_pct", "memory_sol_pct", "dram_throughput_pct", "l2_throughput_pct", "achieved_occupancy_pct"):
        # weighted by durations that agree to 5 ns in 6000+: the means to 1e-3 of a percent point
        assert abs(a[key] - b[key]) < 1e-3, (key, a[key], b[key])
    assert abs(a["total_ns"] - b["total_ns"]) <= tol_sum, (a["total_ns"], b["total_ns"])
ld = {l["id"]: l for l in jd["launches"]}
lr = {l["id"]: l for l in jr["launches"]}
for i, (v, tol) in want.items():
    assert ld[i]["duration_ns"] == v, (i, ld[i]["duration_ns"], v)
    assert abs(ld[i]["duration_ns"] - lr[i]["duration_ns"]) <= tol, (i, ld[i]["duration_ns"], lr[i]["duration_ns"])
    for key in ld[i]:
        if key not in ("duration_ns", "dram_bytes", "flops", "arithmetic_intensity"):
            assert ld[i][key] == lr[i][key], (i, key, ld[i][key], lr[i][key])
for a, b in zip(js["kernels"], gd):
    assert (a["name"], a["calls"], a["total_ns"], a["compute_sol_pct"]) == (b["name"], b["calls"], b["total_ns"], b["compute_sol_pct"])
PY
grep -q '| 2 | vectorized_elementwise_kernel | (16384,1,1) x (128,1,1) | 1 | 0.016380 | 0.016380 | 13.11 | 16.7 | 57.9 | 78.2 | latency |' \
	"$tmp/h200-details/kernels.md" || fail "H200 details-page kernel row: $(grep -F '| 2 |' "$tmp/h200-details/kernels.md")"

# Bad input: a missing file, a truncated quote.
set +e
printf '"ID","Kernel Name"\n"0","k\n' >"$tmp/trunc.csv"
set +e
msg=$("$LLMPROF" report --ncu-csv "$tmp/trunc.csv" -o "$tmp/x" 2>&1)
rc=$?
set -e
[ $rc -eq 5 ] || fail "truncated: exit $rc"
[[ $msg == *"trunc.csv:2:5: unterminated quoted field"* ]] || fail "truncated msg: $msg"
set +e
"$LLMPROF" report --ncu-csv "$tmp/none.csv" -o "$tmp/x" 2>/dev/null
rc=$?
set -e
[ $rc -eq 5 ] || fail "missing file: exit $rc"

# Cross-check with NVIDIA's ncu: the same reports exported four ways.
if ! oracle=$(bash "$LLMPROF_SOURCE_DIR/scripts/nsight-cli-oracle.sh" 2>"$tmp/oracle.err"); then
	echo "skip: the rest passed, but NVIDIA's ncu CLI is not available for the cross-check: $(cat "$tmp/oracle.err")"
	exit 77
fi
eval "$oracle"
[ -x "${NCU:-}" ] || fail "nsight-cli-oracle.sh printed no executable ncu"
for rep in "$fx"/*.ncu-rep; do
	name=$(basename "$rep" .ncu-rep)
	i=0
	for opts in "--print-units base" "" "--print-units base --print-fp" \
		    "--print-units base --print-metric-instances values" \
		    "--print-units base --print-metric-instances details"; do
		# shellcheck disable=SC2086
		LC_ALL=C "$NCU" --import "$rep" --csv --page raw $opts >"$tmp/$name.$i.csv" 2>/dev/null ||
			fail "ncu --import $name $opts"
		"$LLMPROF" report --ncu-csv "$tmp/$name.$i.csv" -o "$tmp/$name.$i" >/dev/null ||
			fail "$name: variant '$opts' did not import"
		i=$((i + 1))
	done
	python3 - "$tmp/$name" "$i" <<'PY' || fail "$name: variants disagree"
import json, sys
base, n = sys.argv[1], int(sys.argv[2])
ref = json.load(open(base + ".0/kernels.json"))["launches"]
keys = ["duration_ns", "compute_sol_pct", "memory_sol_pct", "achieved_occupancy_pct",
        "registers_per_thread", "dram_bytes", "flops_total"]
for i in range(1, n):
    got = json.load(open("%s.%d/kernels.json" % (base, i)))["launches"]
    assert len(got) == len(ref)
    for a, b in zip(ref, got):
        assert a["name"] == b["name"]
        for k in keys:
            x, y = a[k], b[k]
            if x is None or y is None:
                assert x is None and y is None, (i, k, x, y)
                continue
            # auto units print fewer digits: 0.5 % relative, or 0.01 absolute
            assert abs(x - y) <= max(5e-3 * abs(x), 1e-2), (i, k, x, y)
PY
done
echo ok
