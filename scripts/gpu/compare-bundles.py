#!/usr/bin/env python3
"""compare-bundles.py BEFORE_DIR AFTER_DIR: do two runs of the same workload
give the same results? Two GPU runs never have equal times, so this checks
what must be equal exactly (step states, kernels and their call counts per
stage, operators and their calls, the kernels selected for counters, which
kernels got counters, the findings' rules) and prints the relative
difference of the times (stage busy time, kernel totals), which is noise.
Exit 1 when an exact check differs. Used by scripts/gpu/validate-same-reports.sh."""
import json
import os
import sys


def load(d, name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else None


def exact(a, b):
    sa, sb = load(a, "status.json"), load(b, "status.json")
    ma, mb = load(a, "metrics.json") or {}, load(b, "metrics.json") or {}
    yield "steps", [(s["name"], s["state"]) for s in sa["steps"]], [(s["name"], s["state"]) for s in sb["steps"]]
    yield "stage kernels", {s["name"]: (s["kernels"], s["instances"]) for s in ma.get("stages", [])}, \
        {s["name"]: (s["kernels"], s["instances"]) for s in mb.get("stages", [])}
    key = lambda k: (k["name"], k.get("stage"), k["calls"], k.get("prefill_calls"), k.get("decode_calls"))
    yield "kernels (name, stage, calls)", sorted(map(key, ma.get("kernels", []))), sorted(map(key, mb.get("kernels", [])))
    yield "kernels with counters", sorted(k["name"] for k in ma.get("kernels", []) if k.get("counters")), \
        sorted(k["name"] for k in mb.get("kernels", []) if k.get("counters"))
    okey = lambda o: (o["name"], o.get("stage"), o["calls"])
    yield "operators (name, stage, calls)", sorted(map(okey, ma.get("operators", []))), sorted(map(okey, mb.get("operators", [])))
    yield "finding codes", sorted(f.get("code", "") for f in ma.get("findings", [])), \
        sorted(f.get("code", "") for f in mb.get("findings", []))
    sel_a, sel_b = load(a, "ncu/selection.json"), load(b, "ncu/selection.json")
    if sel_a or sel_b:
        names = lambda s: [k.get("name") for k in (s or {}).get("kernels", [])]
        yield "selected kernels", names(sel_a), names(sel_b)


def noise(a, b):
    ma, mb = load(a, "metrics.json") or {}, load(b, "metrics.json") or {}
    sb = {s["name"]: s for s in mb.get("stages", [])}
    for s in ma.get("stages", []):
        o = sb.get(s["name"])
        if o and s.get("busy_ms") and o.get("busy_ms"):
            print(f"    stage {s['name']}: busy {s['busy_ms']:.3f} -> {o['busy_ms']:.3f} ms "
                  f"({100 * (o['busy_ms'] / s['busy_ms'] - 1):+.2f} %)")
    ta = sum(k["total_ns"] for k in ma.get("kernels", []))
    tb = sum(k["total_ns"] for k in mb.get("kernels", []))
    if ta and tb:
        print(f"    all kernels: {ta / 1e6:.3f} -> {tb / 1e6:.3f} ms ({100 * (tb / ta - 1):+.2f} %)")


def main():
    a, b = sys.argv[1], sys.argv[2]
    bad = 0
    for what, x, y in exact(a, b):
        if x == y:
            n = len(x) if hasattr(x, "__len__") else 1
            print(f"  same: {what} ({n})")
        else:
            bad += 1
            print(f"  DIFFERENT: {what}")
            if isinstance(x, dict):
                x, y = sorted(x.items()), sorted(y.items())
            only_a = [e for e in x if e not in y][:5]
            only_b = [e for e in y if e not in x][:5]
            print(f"    only before: {str(only_a)[:600]}\n    only after:  {str(only_b)[:600]}")
    noise(a, b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
