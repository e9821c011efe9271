#!/usr/bin/env python3
"""One row of bench/ncu-deep-time.sh's summary.tsv from a deep-mode bundle:
ncu's seconds and what they went to (ncu/measured.json ncu_time), the
selection (ncu/selection.json: coverage, classes, why it stopped, the plan's
form and what it expected beyond one result per class), the results joined
to a trace launch; the select, ncu and join steps' messages go to stderr.
Usage: ncu_deep_time_row.py BUNDLE NAME T0 T1 (T0, T1: the profile's start
and end, seconds)."""
import json
import os
import sys


def load(d, p):
    p = os.path.join(d, p)
    return json.load(open(p)) if os.path.exists(p) else {}


def main():
    d, name, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    st = load(d, "status.json")
    steps = {s["name"]: s for s in st.get("steps", [])}
    m, sel = load(d, "ncu/measured.json"), load(d, "ncu/selection.json")
    t = m.get("ncu_time", {})
    res = m.get("results", [])
    joined = sum(1 for r in res if r.get("launch_index") is not None)
    p = sel.get("ncu_pass", {})
    for n in ("select", "ncu", "join"):
        s = steps.get(n, {})
        print("  %-6s %-8s %s" % (n, s.get("state"), s.get("message") or ""), file=sys.stderr)
    lo, hi = t.get("passes_min", 0), t.get("passes_max", 0)
    ppr = "%d" % hi if lo == hi else "%d-%d" % (lo, hi)
    print("\t".join(str(x) for x in (
        name, "%.1f" % m.get("ncu_wall_s", 0), t.get("results", 0), t.get("replay_passes", 0),
        ppr, "%.1f" % t.get("before_first_result_s", -1), "%.1f" % t.get("profiling_s", -1),
        "%.1f" % t.get("after_last_result_s", -1), "%.3f" % sel.get("coverage", 0),
        "%s of %s" % (len(sel.get("kernels", [])), sel.get("distinct_kernels", "?")),
        (sel.get("stop_reason") or "?").replace(" ", "_"), p.get("filter_mode", "-"),
        len(p.get("expected_launches", [])), p.get("repeats", "-"), p.get("other_classes", "-"),
        p.get("other_form_expected", "-"), "%d of %d" % (joined, len(res)), "%.1f" % (t1 - t0))))


if __name__ == "__main__":
    main()
