#!/usr/bin/env bash
# `llmprof report RUN_DIR` on a real deep-mode bundle of the built-in
# llama-3.2-1b from an H100 (tests/data/report/h100-deep-llama1b: the trace
# and ncu's raw page xz-compressed, docs/validation/profile-h100.md run 4),
# checked against independent truths:
#  - the workload's own CUDA-event timing (logs/workload.out): tokens/s, TPOT;
#  - ncu's FFMA counts of each measured GEMV launch against the model's
#    multiply-adds for that shape (the counters describe the launch that
#    ncu measured: o-proj, not the down-proj that shares its launch config);
#  - counter FLOPs per stage from those measured launches' classes only.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/llmprof-cli-h100.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
run=$tmp/run
cp -r "$src/tests/data/report/h100-deep-llama1b" "$run"
chmod -R u+w "$run"
python3 - "$run" <<'EOF' || fail "cannot unpack the fixture"
import lzma, os, sys
for f in ("trace/trace.sqlite", "ncu/raw.csv"):
    p = os.path.join(sys.argv[1], f)
    open(p, "wb").write(lzma.decompress(open(p + ".xz", "rb").read()))
    os.remove(p + ".xz")
EOF
"$LLMPROF" report "$run" >"$tmp/out" 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
grep -qxF "report: $run" "$tmp/out" || fail "report output: $(cat "$tmp/out")"

python3 - "$run" <<'EOF' || fail "numbers (above)"
import csv, json, re, sys
d = sys.argv[1]
m = json.load(open(d + "/metrics.json"))
log = open(d + "/logs/workload.out").read()
own = {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", log.splitlines()[-1])}
errors = []
def near(what, got, want, tol):
    if got is None or abs(got - want) > tol * abs(want):
        errors.append(f"{what}: {got} vs {want} (tolerance {tol:.2%})")
a = m["aggregates"]
near("tokens/s vs the workload's CUDA events", a["tokens_per_s"], own["tokens_per_s"], 0.0005)
near("TPOT vs decode_ms / steps", a["tpot_ms"], own["decode_ms"] / own["decode_steps"], 0.0005)
dec = [s for s in m["stages"] if s["name"] == "decode"][0]
u = dec["utilization"]
near("decode model bytes", u["bytes"], 76767911940, 0)
# counter FLOPs: the measured launches' classes (kernel, grid, block,
# operator) times their decode launches; golden from the H100 bundle
near("decode counter FLOPs", u["counter_flops"], 66068199940, 1e-9)
near("decode counter coverage", u["counter_time_share"], 0.756887834, 1e-6)
# ncu's FFMAs per measured GEMV launch = the model's multiply-adds
H, I, V, KV = 2048, 8192, 128256, 8 * 64
macs = {(256, 1, 1): H * H, (384, 1, 1): (H + 2 * KV) * H, (16032, 1, 1): V * H,
        (1024, 1, 1): 2 * I * H}
rows = list(csv.reader(open(d + "/ncu/raw.csv")))
h = rows[0]
seen = 0
for r in rows[2:]:
    grid = tuple(int(x) for x in r[h.index("Grid Size")].strip("()").split(","))
    if "k_gemv" not in r[h.index("Kernel Name")] or grid not in macs:
        continue
    ffma = int(r[h.index("sm__sass_thread_inst_executed_op_ffma_pred_on.sum")])
    extra = ffma - macs[grid]
    # the fused up/gate GEMV also runs SwiGLU's few FMAs per output
    if not (0 <= extra <= (8 * I if grid == (1024, 1, 1) else 0)):
        errors.append(f"k_gemv {grid}: {ffma} FFMA vs {macs[grid]} multiply-adds")
    seen += 1
if seen != 4:
    errors.append(f"{seen} of 4 GEMV results found in ncu/raw.csv")
for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
# regenerating again changes nothing
cp "$run/metrics.json" "$tmp/m1.json"
"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "second report"
cmp -s "$run/metrics.json" "$tmp/m1.json" || fail "regeneration is not deterministic"

# stakeholder_summary.md fits one page: issue 21 asked for one screen (40
# lines); the sections of the original system's summary (issue 31: environment,
# aggregates, stage timings, MFU/MBU, top-5 operators and kernels,
# recommendations) take 64
n=$(wc -l <"$run/stakeholder_summary.md")
[ "$n" -le 64 ] || fail "stakeholder_summary.md has $n lines (budget 64)"
grep -q "MBU 51.2% (model)" "$run/stakeholder_summary.md" || fail "summary stage table: $(cat "$run/stakeholder_summary.md")"
grep -q "^- \*\*TPOT\*\*" "$run/stakeholder_summary.md" || fail "summary glossary"
# without the model (no workload/analytic.json): counter-based MBU from
# ncu's DRAM bytes scaled by the counters' coverage, said as such
rm "$run/workload/analytic.json"
"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "report without the model"
s=$run/stakeholder_summary.md
n=$(wc -l <"$s")
[ "$n" -le 64 ] || fail "stakeholder_summary.md without the model has $n lines"
grep -q "Decode reaches 54.2% MBU of datasheet peaks (counter-based" "$s" || fail "headline: $(head -n 3 "$s")"
grep -qF "| decode | 44.763 | TPOT 1.444 | MBU 54.2% (counter-based) |" "$s" || fail "summary stage table: $(cat "$s")"
grep -q "MBU (counter-based)" "$run/report.md" || fail "report.md utilisation table"
python3 - "$run" <<'PY' || fail "metrics.json mbu_counter"
import json, sys
u = [s for s in json.load(open(sys.argv[1] + "/metrics.json"))["stages"] if s["name"] == "decode"][0]["utilization"]
assert u["mbu_datasheet"] is None
want = u["counter_bytes"] / u["counter_time_share"] / u["time_ms"] / 1e6 / 3350
assert abs(u["mbu_counter"] - want) < 1e-9 * want, (u["mbu_counter"], want)
PY
echo ok
