#!/usr/bin/env bash
# The tracer-cost benchmark's summary (bench/tracer/tracer_cost.py
# summarize), on the CPU: paired ratios and distances to the floors on
# rows whose answers are known by hand, and the calib reading (each run's
# loop time over its calibration loop, paired) beside them; then the
# recorded H200 eager run (tests/data/tracer/tracer-cost-eager-h200-py.csv),
# whose verdict lines must stay what the GPU run printed and whose calib
# reading must equal a direct computation from the rows.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 - "$src/bench/tracer" "$src/tests/data/tracer/tracer-cost-eager-h200-py.csv" <<'PY'
import csv, statistics, sys
sys.path.insert(0, sys.argv[1])
import tracer_cost as tc

def row(variant, rnd, ms, calib):
    return {"program": "py", "mode": "eager", "variant": variant, "round": rnd,
            "ms_median": ms, "ms_min": ms, "main_cpu_ms": ms, "proc_cpu_ms": ms,
            "calib_ms": calib, "kernels": None, "steal_ms": 0.0, "rc": 0}

def near(a, b, what):
    assert abs(a - b) < 1e-9, "%s: %r, not %r" % (what, a, b)

# Round 1 ran on a CPU twice as slow for the builtin (calib 10 ms, not 5),
# round 2 for the floor: raw ratios 2.4 and 1.2 (builtin), 1.1 and 2.2
# (floor); over calib both 1.2 and 1.1.
rows = [row("untraced", 1, 100.0, 5.0), row("builtin", 1, 240.0, 10.0), row("floor", 1, 110.0, 5.0),
        row("untraced", 2, 100.0, 5.0), row("builtin", 2, 120.0, 5.0), row("floor", 2, 220.0, 10.0)]
text, js = tc.summarize(rows)
b, f = js["py eager"]["builtin"], js["py eager"]["floor"]
near(b["paired"], 1.8, "builtin paired")
near(f["paired"], 1.65, "floor paired")
near(b["over_floor"], 0.15, "builtin - floor")  # (1.3 - 1.0) / 2
near(b["paired_calib"], 1.2, "builtin over calib")
near(f["paired_calib"], 1.1, "floor over calib")
near(b["calib_over_floor"], 0.1, "builtin - floor over calib")
assert "calib reading py eager (each run's loop over its calib, paired; not the verdict): " \
    "builtin x1.200 [1.200 1.200]; - floor +0.100 [+0.100 +0.100]\n" in text, text
assert "verdict py eager, builtin over 2 rounds: paired x1.800" in text, text

# A program without calib (decode_sim) gets no calib reading and "-" in p/cal.
sim = [dict(r, program="sim", calib_ms=None) for r in rows]
text, js = tc.summarize(sim)
assert "paired_calib" not in js["sim eager"]["builtin"] and "calib reading" not in text, text

# The recorded run: the GPU run's own verdict lines, and the calib reading
# computed here directly.
num = ("ms_median", "ms_min", "main_cpu_ms", "proc_cpu_ms", "calib_ms", "kernels",
       "process_cpu_s", "process_wall_s", "steal_ms")
rows = []
for r in csv.DictReader(open(sys.argv[2])):
    r.update({k: float(r[k]) if r[k] else None for k in num})
    r.update(round=int(r["round"]), rc=int(r["rc"]))
    rows.append(r)
text, js = tc.summarize(rows)
for line in ("verdict py eager, builtin over 6 rounds: paired x1.188 [1.118 1.478] against x1.10: "
             "not met (the quartiles above it too)",
             "verdict py eager, builtin - floor (x1.075 [1.005 1.138]) per round: +0.111 "
             "[+0.100 +0.354] against +0.03: not met (the quartiles above it too)",
             "verdict py eager, builtin - floor_launch (x1.129 [1.065 1.384]) per round: +0.046 "
             "[-0.042 +0.093] against +0.03: not met (the quartiles straddle it)"):
    assert line + "\n" in text, "missing: " + line + "\n" + text
per = {(r["variant"], r["round"]): r["ms_median"] / r["calib_ms"] for r in rows}
norm = {v: {k: per[(v, k)] / per[("untraced", k)] for (w, k) in per if w == v}
        for v in ("builtin", "floor", "floor_launch")}
q = lambda xs: statistics.quantiles(sorted(xs), n=4, method="inclusive")  # noqa: E731
b = js["py eager"]["builtin"]
want = q(norm["builtin"].values())
near(b["paired_calib"], want[1], "recorded builtin over calib")
near(b["paired_calib_q"][0], want[0], "recorded q1")
for fl in ("floor", "floor_launch"):
    d = q([norm["builtin"][k] - norm[fl][k] for k in norm["builtin"]])
    near(b["calib_over_" + fl], d[1], "recorded builtin - %s over calib" % fl)
assert "builtin x1.145 [1.071 1.269]; - floor +0.160 [+0.021 +0.187]; " \
    "- floor_launch -0.096 [-0.167 -0.001]" in text, text
PY
echo "tracer-cost summary: ok"
