"""matrix_report: helpers of bench/tracer/overhead-matrix.sh (stdlib only).

  python3 matrix_report.py table RAW.csv [LAUNCHES]
      RAW.csv rows: program,variant,round,wall_s. Prints, per program and
      variant, n, median, min, max, the ratio of medians to `untraced`, and
      the median of per-round ratios (each traced run over the untraced run
      of the same round); for `tiny` also microseconds added per launch.
  python3 matrix_report.py attrib TRACE.sqlite
      GPU operations (kernels, copies, memsets) per NVTX push/pop range name,
      attributed the way nsys's nvtx_gpu_proj_sum does: an op belongs to a
      range instance when its launch call (CUPTI_ACTIVITY_KIND_RUNTIME row
      with the op's correlationId) started inside the range on the same
      thread. Prints "name count" lines, then "unlaunched N" (ops without a
      launch-call row).
"""
import bisect
import csv
import sqlite3
import statistics
import sys


def table(path, launches):
    runs = {}
    order = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["program"], row["variant"])
            if key not in runs:
                runs[key] = {}
                order.append(key)
            runs[key][int(row["round"])] = float(row["wall_s"])
    order.sort(key=lambda k: k[1] != "untraced")  # stable: untraced first
    programs = []
    for p, _ in order:
        if p not in programs:
            programs.append(p)
    for p in programs:
        base = runs.get((p, "untraced"), {})
        base_med = statistics.median(base.values()) if base else None
        print(f"\n{p}: wall seconds over rounds (median [min..max]); ratio = median/median(untraced); "
              "paired = median over rounds of run/untraced run of the same round")
        wv = max([18] + [len(v) for q, v in order if q == p])
        hdr = f"{'variant':<{wv}} {'n':>2} {'median':>9} {'min':>9} {'max':>9} {'ratio':>6} {'paired':>6}"
        if p == "tiny":
            hdr += f" {'us/launch added':>15}"
        print(hdr)
        for q, v in order:
            if q != p:
                continue
            w = runs[(q, v)]
            vals = list(w.values())
            med = statistics.median(vals)
            line = f"{v:<{wv}} {len(vals):>2} {med:>9.4f} {min(vals):>9.4f} {max(vals):>9.4f}"
            if base_med and v != "untraced":
                pr = [w[r] / base[r] for r in w if r in base]
                line += f" {med / base_med:>6.3f} {statistics.median(pr):>6.3f}" if pr else f" {med / base_med:>6.3f}      -"
                if p == "tiny":
                    line += f" {(med - base_med) * 1e6 / launches:>15.3f}"
            else:
                line += f" {'-':>6} {'-':>6}"
            print(line)


def attrib(path):
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    launch = {}
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        for corr, tid, start in db.execute(
                "SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
            launch[corr] = (tid, start)
    ranges = {}  # (name, tid) -> sorted starts, ends
    if "NVTX_EVENTS" in tables:
        for text, tid, s, e in db.execute(
                "SELECT coalesce(n.text, si.value), n.globalTid, n.start, n.end FROM NVTX_EVENTS n "
                "LEFT JOIN StringIds si ON si.id = n.textId WHERE n.eventType = 59 AND n.end IS NOT NULL"):
            ranges.setdefault((text, tid), []).append((s, e))
    reach = {}  # running maximum of ends, so the scan below stops early
    for k, v in ranges.items():
        v.sort()
        m, r = -1, []
        for _, e in v:
            m = max(m, e)
            r.append(m)
        reach[k] = r
    counts = {name: 0 for name, _ in ranges}
    unlaunched = 0
    for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if t not in tables:
            continue
        for (corr,) in db.execute(f"SELECT correlationId FROM {t}"):
            lt = launch.get(corr)
            if lt is None:
                unlaunched += 1
                continue
            tid, start = lt
            for (name, rtid), v in ranges.items():
                if rtid != tid:
                    continue
                r = reach[(name, rtid)]
                # every instance (same-name ranges may nest) holding the launch
                i = bisect.bisect_right(v, (start, float("inf")))
                while i > 0 and r[i - 1] >= start:
                    i -= 1
                    if v[i][1] >= start:
                        counts[name] += 1
    for name in sorted(counts):
        print(name, counts[name])
    print("unlaunched", unlaunched)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 100000)
    elif len(sys.argv) == 3 and sys.argv[1] == "attrib":
        attrib(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
