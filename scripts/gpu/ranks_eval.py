"""Judges one or more runs of scripts/gpu/validate-ranks-multi.sh against the
program's own CUDA events (examples/tp_decode.py's truth files).

  ranks_eval.py RUN_DIR...     one line per run: the truth's straggler (share
                               of collectives it arrived last in, lateness
                               p50), the straggler llmprof names (and its
                               lateness), agree or not, and each rank's decode
                               time from llmprof against the program's
  ranks_eval.py --summary W    every run under W as JSON
  ranks_eval.py --table W      agreement and worst decode-time difference
                               per configuration (runs grouped by name)
  ranks_eval.py --symmetry W   tracer symmetry: per job shape (N, variant),
                               each mode's distribution of the rank that
                               arrives last (the program's events), against
                               the untraced (plain) runs, and its decode
                               time over plain's

A run "agrees" when llmprof names the truth's straggler, or, when the truth
has no clear straggler (it arrives last in under half the collectives or is
under 10 us late at the median), when llmprof names none or that same rank.
"""
import glob
import json
import os
import re
import sys


def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rank_of(label, pids):
    """A rank id from llmprof's label: 'rank 3', 3, or 'pid 1234'."""
    if label is None:
        return None
    if isinstance(label, int):
        return label
    m = re.search(r"rank (\d+)", str(label))
    if m:
        return int(m.group(1))
    m = re.search(r"pid (\d+)", str(label))
    if m and int(m.group(1)) in pids:
        return pids[int(m.group(1))]
    return None


def near(a, b):
    """Within 1 % (of the larger), both None, or both tiny."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 0.01 * max(abs(a), abs(b)) + 1e-6


def same_causes(a, b, la, lb):
    """The single command's late_by_stage (ranks by label) against the
    merge's (ranks by number; la, lb: the two ranks lists in the same
    order): None when they agree (same ranks late in the same stages, same
    cause, lateness and GPU busy/idle/launch-lag numbers within 1 %), else
    what differs."""
    if len(a) != len(b):
        return "%d vs %d late ranks by stage" % (len(a), len(b))
    lab = {y.get("rank"): x.get("label") for x, y in zip(la, lb)}
    for x, y in zip(a, b):
        where = "%s %s" % (x.get("rank"), x.get("stage"))
        if x.get("rank") != lab.get(y.get("rank")) or x.get("stage") != y.get("stage"):
            return "late %s vs rank %s %s" % (where, y.get("rank"), y.get("stage"))
        if x.get("cause") != y.get("cause") or x.get("last") != y.get("last"):
            return "%s: cause %s vs %s, last %s vs %s" % (where, x.get("cause"), y.get("cause"),
                                                        x.get("last"), y.get("last"))
        nums = [("late " + k, (x.get("late") or {}).get(k), (y.get("late") or {}).get(k))
                for k in ("p50_us", "p90_us", "max_us")]
        mx, my = x.get("more_than_others") or {}, y.get("more_than_others") or {}
        nums += [(k, mx.get(k), my.get(k)) for k in ("gpu_busy_us", "gpu_idle_us")]
        nums += [(k, x.get(k), y.get(k)) for k in ("launch_lag_us", "others_launch_lag_us")]
        for k, u, v in nums:
            if not near(u, v):
                return "%s: %s %s vs %s" % (where, k, u, v)
    return None


def both_ways(single, merged):
    """The single command's collectives against the merge of the same trace
    split into per-rank files: 'same' when the straggler is the same, every
    rank's wait and transfer agree within 1 %, and the late ranks per stage
    have the same cause with the same numbers (1 %); None without a split."""
    if not single or not merged:
        return None
    one, c = single.get("collectives") or {}, merged.get("collectives") or {}
    a, b = one.get("ranks") or [], c.get("ranks") or []
    if len(a) != len(b) or not a:
        return "differs: %d vs %d ranks" % (len(a), len(b))
    for x, y in zip(a, b):
        for k in ("wait_ms", "transfer_ms"):
            if abs(x[k] - y[k]) > 0.01 * max(abs(x[k]), abs(y[k])) + 1e-6:
                return "differs: %s %s %.3f vs %.3f" % (x.get("label"), k, x[k], y[k])
    sa, sb = one.get("stragglers") or [], c.get("stragglers") or []
    if sa and sb:
        i = [x.get("label") for x in a].index(sa[0]["rank"])
        if b[i]["rank"] != sb[0]["rank"]:
            return "differs: straggler %s vs rank %s" % (sa[0]["rank"], sb[0]["rank"])
    elif sa or sb:
        return "differs: a straggler on one side only"
    why = same_causes(one.get("late_by_stage") or [], c.get("late_by_stage") or [], a, b)
    if why:
        return "differs: " + why
    if c.get("cause_unknown_why"):
        return "differs: the merge has no cause: " + c["cause_unknown_why"]
    return "same"


def judge(d):
    res = {"name": os.path.basename(d)}
    rc = open(os.path.join(d, "rc")).read().split() if os.path.exists(os.path.join(d, "rc")) else ["?", "?"]
    res["exit"], res["seconds"] = rc[0], rc[1]
    truth = load(os.path.join(d, "truth", "truth.json")) or {}
    mine = {}
    for p in glob.glob(os.path.join(d, "truth", "truth-rank*.json")):
        t = load(p)
        if t:
            mine[t["rank"]] = t
    pids = {t["pid"]: r for r, t in mine.items()}
    res["truth"] = {k: truth.get(k) for k in ("straggler", "straggler_share", "lateness_us",
                                              "last_counts", "collectives", "world")}
    res["decode_truth_ms"] = {r: t["decode_ms"] for r, t in sorted(mine.items())}
    res["checksums"] = {r: t["checksum"] for r, t in sorted(mine.items())}
    b = os.path.join(d, "bundle")
    m = load(os.path.join(b, "merged", "merged.json")) or load(os.path.join(b, "metrics.json"))
    res["source"] = "merged.json" if os.path.exists(os.path.join(b, "merged", "merged.json")) else "metrics.json"
    named, late, per_rank = None, None, {}
    names = "?"
    if m:
        coll = m.get("collectives") or {}
        st = coll.get("stragglers") or []
        if st:
            s0 = st[0]
            share = s0.get("share")
            if share is None and coll.get("instances"):
                share = s0.get("last", 0) / max(1, coll["instances"])
            # metrics.json: mean_late_ms; merged.json: mean_late_us
            mean = s0.get("mean_late_ms")
            if mean is None and s0.get("mean_late_us") is not None:
                mean = s0["mean_late_us"] / 1e3
            if mean is None and s0.get("mean_late_ns") is not None:
                mean = s0["mean_late_ns"] / 1e6
            # llmprof names a straggler at >= 50 % of collectives, >= 10 us
            if (share or 0) >= 0.5 and (mean or 0) * 1e3 >= 10:
                named = rank_of(s0.get("rank"), pids)
                late = mean * 1e3 if mean is not None else None
            res["llmprof_first_straggler"] = s0
        # the decode cause of the rank late most there (one trace, or the
        # merge of the launcher path's per-rank files)
        dec = [x for x in coll.get("late_by_stage") or [] if x.get("stage") == "decode"]
        if dec:
            x = dec[0]
            res["decode_cause"] = x.get("cause")
            more = x.get("more_than_others") or {}
            extra = x.get("extra_kernels") or {}
            res["cause"] = "%s %s: %s (busy %+.1f us, idle %+.1f us; extra kernels before %s)" % (
                x.get("rank"), x.get("stage"), x.get("cause"), more.get("gpu_busy_us") or 0,
                more.get("gpu_idle_us") or 0, extra.get("collectives"))
        res["slowest"] = m.get("slowest") or m.get("slowest_rank")
        res["slowest_by"] = m.get("slowest_by")
        labels = []
        for r in m.get("ranks") or []:
            lab = r.get("label", r.get("rank"))
            labels.append(str(lab))
            rid = rank_of(lab, pids)
            if rid is None and r.get("pid") in pids:
                rid = pids[r["pid"]]
            dec = (r.get("decode") or {}).get("gpu_ms")
            if rid is not None and dec is not None:
                per_rank[rid] = dec
        names = ",".join(labels)
        # the clock residual after alignment: merged.json "residual" (ns,
        # null when nothing was measured), metrics.json "clock_residual" (ms)
        rz, cr = coll.get("residual"), coll.get("clock_residual")
        if isinstance(rz, dict):
            res["residual"] = "median %.1f us, max %.1f us, %d samples" % (
                rz["median_ns"] / 1e3, rz["max_ns"] / 1e3, rz["samples"])
        elif isinstance(cr, dict) and cr.get("samples") is not None:
            res["residual"] = "median %.1f us, max %.1f us, %d samples" % (
                (cr.get("median_ms") or 0) * 1e3, (cr.get("max_ms") or 0) * 1e3, cr["samples"])
        else:
            res["residual"] = "none measured"
        # merged.json: each clock domain's offset, and what the ranks state
        res["clocks"] = [(c.get("clock"), c.get("offset_ns")) for c in coll.get("clocks") or []]
        res["stated_clocks"] = sorted({str(r.get("clock")) for r in m.get("ranks") or []
                                       if "clock" in r})
        res["trust"] = m.get("trust")
    res["named"], res["named_late_us"], res["rank_labels"] = named, late, names
    res["both_ways"] = both_ways(m, load(os.path.join(d, "split", "merged", "merged.json")))
    tr = truth.get("straggler")
    clear = truth and (truth.get("straggler_share") or 0) >= 0.5 and \
        ((truth.get("lateness_us") or {}).get("p50") or 0) >= 10
    if not truth or not m:  # nothing to judge, or nothing profiled (plain)
        res["agree"] = None
    elif clear:
        res["agree"] = named == tr
    else:
        res["agree"] = named is None or named == tr
    diffs = {}
    for r, dec in per_rank.items():
        t = mine.get(r)
        if t and t["decode_ms"]:
            diffs[r] = 100.0 * (dec - t["decode_ms"]) / t["decode_ms"]
    res["decode_diff_pct"] = diffs
    return res


def line(r):
    t = r["truth"] or {}
    lt = t.get("lateness_us") or {}
    dd = " ".join("r%s %+.2f%%" % (k, v) for k, v in sorted(r["decode_diff_pct"].items()))
    return ("%s: exit %s %ss | truth straggler %s (%.0f%% of collectives, late p50 %.1f us) | "
            "llmprof %s (%s us) via %s | %s | labels %s | decode %s | residual %s | cause %s%s" % (
                r["name"], r["exit"], r["seconds"], t.get("straggler"),
                100 * (t.get("straggler_share") or 0), lt.get("p50") or 0,
                r["named"], "%.1f" % r["named_late_us"] if r["named_late_us"] is not None else "-",
                r["source"], {True: "AGREE", False: "DISAGREE", None: "no truth"}[r["agree"]],
                r["rank_labels"], dd or "-", r.get("residual"), r.get("cause", "-"),
                " | clocks %s %s | trust %s" % (r.get("stated_clocks"), r.get("clocks"),
                                               r.get("trust")) if r.get("clocks") else "")
            + (" | both ways: %s" % r["both_ways"] if r.get("both_ways") else ""))


def mean_se(v):
    """Mean and its standard error (0 with fewer than two values)."""
    if not v:
        return None, None
    mu = sum(v) / len(v)
    if len(v) < 2:
        return mu, 0.0
    var = sum((x - mu) ** 2 for x in v) / (len(v) - 1)
    return mu, (var / len(v)) ** 0.5


def symmetry(w):
    """Whether tracing changes which rank arrives last. For each job shape
    (N, variant) and mode: over its runs, how often each rank was the
    truth's straggler (a clear one: last in >= 50 % of the collectives and
    >= 10 us late at the median; else "none"), each rank's mean share of
    the collectives it arrived last in (with its standard error), and the
    median decode time of the slowest rank (the program's CUDA events).
    Against the plain runs of the same shape: "consistent" when every
    rank's share differs from plain's by at most twice their combined
    standard error (a two-sided test at about 5 % a rank), else
    "differs"; and the decode time's ratio to plain's, the overhead."""
    shapes = {}
    for d in runs(w):
        r = judge(d)
        m = re.match(r"n(\d+)-([a-z]+)-(.+?)-r\d+(-b)?$", r["name"])
        t = r["truth"] or {}
        if not m or not t.get("last_counts") or not t.get("collectives"):
            continue
        shape, mode = "n%s-%s" % m.group(1, 2), m.group(3)
        row = shapes.setdefault(shape, {}).setdefault(mode, {"stragglers": {}, "shares": {},
                                                             "decode": []})
        lt = t.get("lateness_us") or {}
        clear = (t.get("straggler_share") or 0) >= 0.5 and (lt.get("p50") or 0) >= 10
        key = "r%s" % t["straggler"] if clear else "none"
        row["stragglers"][key] = row["stragglers"].get(key, 0) + 1
        for rank, c in enumerate(t["last_counts"]):
            row["shares"].setdefault(rank, []).append(c / t["collectives"])
        if r["decode_truth_ms"]:
            row["decode"].append(max(r["decode_truth_ms"].values()))
    out = []
    for shape in sorted(shapes):
        modes = shapes[shape]
        base = modes.get("plain")
        bdec = sorted(base["decode"])[len(base["decode"]) // 2] if base and base["decode"] else None
        for mode in sorted(modes, key=lambda x: (x != "plain", x)):
            row = modes[mode]
            nr = sum(row["stragglers"].values())
            stats = {k: mean_se(v) for k, v in sorted(row["shares"].items())}
            dec = sorted(row["decode"])[len(row["decode"]) // 2] if row["decode"] else None
            text = "%-26s %3d runs | straggler %s | last share %s | decode p50 %s" % (
                "%s %s" % (shape, mode), nr,
                " ".join("%s %d" % kv for kv in sorted(row["stragglers"].items())),
                " ".join("r%d %.3f+-%.3f" % (k, mu, se) for k, (mu, se) in stats.items()),
                "%.2f ms" % dec if dec is not None else "-")
            if base and mode != "plain":
                worst, verdict = 0.0, "consistent"
                for k, (mu, se) in stats.items():
                    bmu, bse = mean_se(base["shares"].get(k, []))
                    if bmu is None:
                        verdict = "no plain runs"
                        continue
                    diff = abs(mu - bmu)
                    worst = max(worst, diff)
                    if diff > 2 * (se ** 2 + bse ** 2) ** 0.5:
                        verdict = "differs"
                text += " | vs plain: largest share difference %.3f, %s" % (worst, verdict)
                if dec is not None and bdec:
                    text += ", decode x%.3f" % (dec / bdec)
            out.append(text)
    return out


def runs(w):
    return sorted(d for d in glob.glob(os.path.join(w, "*")) if os.path.exists(os.path.join(d, "rc")))


def main():
    if sys.argv[1] == "--summary":
        print(json.dumps([judge(d) for d in runs(sys.argv[2])], indent=1, default=str))
        return
    if sys.argv[1] == "--symmetry":
        print("\n".join(symmetry(sys.argv[2])))
        return
    if sys.argv[1] == "--table":
        groups = {}
        for d in runs(sys.argv[2]):
            r = judge(d)
            key = re.sub(r"-r\d+(-b)?$", "", r["name"])
            groups.setdefault(key, []).append(r)
        print("%-28s %5s %7s %9s %-19s %-14s %s" % ("configuration", "runs", "agree", "exit!=0",
                                                    "worst decode diff %", "both ways same",
                                                    "decode causes"))
        for k, rs in sorted(groups.items()):
            ag = sum(1 for r in rs if r["agree"])
            judged = sum(1 for r in rs if r["agree"] is not None)
            bad = sum(1 for r in rs if r["exit"] != "0")
            worst = max((abs(v) for r in rs for v in r["decode_diff_pct"].values()), default=None)
            bw = [r["both_ways"] for r in rs if r.get("both_ways")]
            causes = {}
            for r in rs:  # launcher path against single command: compare the rows
                causes[r.get("decode_cause") or "-"] = causes.get(r.get("decode_cause") or "-", 0) + 1
            print("%-28s %5d %3d/%-3d %9d %-19s %-14s %s" % (
                k, len(rs), ag, judged, bad, "%.2f" % worst if worst is not None else "-",
                "%d/%d" % (sum(x == "same" for x in bw), len(bw)) if bw else "-",
                " ".join("%s %d" % kv for kv in sorted(causes.items()))))
        return
    for d in sys.argv[1:]:
        print(line(judge(d)))


if __name__ == "__main__":
    main()
