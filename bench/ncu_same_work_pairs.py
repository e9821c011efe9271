#!/usr/bin/env python3
"""The same-work check: do two classes that run.same_work_tolerance would
merge (docs/ncu.md section 6: the same kernel, launch configuration and
device, under different operators, with mean durations within the
tolerance) give the same counters when ncu measures both? Run deep mode
with run.same_work_tolerance=0 and pipeline.trace.pytorch=modules (every
operator class its own, the ranges on all through), then:

  ncu_same_work_pairs.py BUNDLE [TOLERANCE]     (default 0.1)

(BUNDLE's ncu/raw.csv may be gzipped, ncu/raw.csv.gz, as in bench/results.)

For each such pair whose own launches both have a result (a result maps to
a class when it measured the class's launch_index), it prints the two
operators, their mean durations from the trace, and each counter's relative
difference: ncu's duration, DRAM bytes read and written, SIMT FLOPs (the
six SASS counters, an FMA counting two) and tensor FLOPs. The same work
should give the same FLOPs exactly and DRAM bytes within what the caches
left (each pass starts from flushed caches, --cache-control all). Exit 1
when no pair was measured both ways."""
import csv
import gzip
import io
import json
import os
import sys

SIMT = [("ffma", 2), ("fadd", 1), ("fmul", 1), ("hfma", 2), ("hadd", 1), ("hmul", 1)]
TENSOR = ["sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_fp16.sum"]


def num(row, col):
    try:
        return float((row.get(col) or "").replace(",", ""))
    except ValueError:
        return None


def counters(row):
    simt = 0.0
    for op, w in SIMT:
        v = num(row, "sm__sass_thread_inst_executed_op_%s_pred_on.sum" % op)
        simt += w * (v or 0)
    return {
        "duration_ns": num(row, "gpu__time_duration.sum"),
        "dram_read_B": num(row, "dram__bytes_read.sum"),
        "dram_write_B": num(row, "dram__bytes_write.sum"),
        "simt_flops": simt,
        "tensor_flops": sum(num(row, c) or 0 for c in TENSOR),
    }


def rel(a, b):
    if a is None or b is None:
        return None
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def main():
    bundle = sys.argv[1]
    tol = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    sel = json.load(open(os.path.join(bundle, "ncu", "selection.json")))
    meas = json.load(open(os.path.join(bundle, "ncu", "measured.json")))
    raw = os.path.join(bundle, "ncu", "raw.csv")
    f = open(raw, newline="") if os.path.exists(raw) else \
        io.TextIOWrapper(gzip.open(raw + ".gz"), newline="")  # a recorded bundle's
    rows = list(csv.DictReader(f))
    by_id = {r["ID"]: r for r in rows[1:]}  # rows[0]: the units
    at = {}  # launch index -> counters of the result that measured it
    for r in meas.get("results") or []:
        row = by_id.get(str(r.get("id")))
        if row is not None and r.get("launch_index") is not None:
            at[r["launch_index"]] = counters(row)
    ks = [k for k in sel.get("kernels") or [] if k.get("calls")]
    pairs = 0
    for i, a in enumerate(ks):
        for b in ks[i + 1:]:
            if (a["name"], a["grid"], a["block"], a["device"]) != \
                    (b["name"], b["grid"], b["block"], b["device"]):
                continue
            if a.get("operator") == b.get("operator"):
                continue
            ma, mb = a["total_ns"] / a["calls"], b["total_ns"] / b["calls"]
            if abs(ma - mb) > tol * max(ma, mb):
                continue
            ca, cb = at.get(a["launch_index"]), at.get(b["launch_index"])
            if not ca or not cb:
                print("%s %s: %s / %s: not both measured" % (
                    a["short_name"], a["grid"], a.get("operator"), b.get("operator")))
                continue
            pairs += 1
            print("%s grid %s block %s: %s (%.0f ns) / %s (%.0f ns)" % (
                a["short_name"], a["grid"], a["block"], a.get("operator"), ma, b.get("operator"),
                mb))
            for key in ca:
                d = rel(ca[key], cb[key])
                print("  %-13s %14s %14s  %s" % (
                    key, "%.0f" % ca[key] if ca[key] is not None else "-",
                    "%.0f" % cb[key] if cb[key] is not None else "-",
                    "differ by %.2f %%" % (100 * d) if d is not None else "-"))
    print("%d pair%s measured both ways (tolerance %g)" % (pairs, "" if pairs == 1 else "s", tol))
    return 0 if pairs else 1


if __name__ == "__main__":
    sys.exit(main())
