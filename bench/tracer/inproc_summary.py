"""inproc_summary: bench/tracer/tracer-cost-inproc.sh's summary from the
processes' outputs in OUT (<variant>-<round>.txt, bench/tracer/inproc_ab.py):
each variant's in-process ratio per round, a process that did not finish
named; then the builtin's distance to each floor, round by round, and over
the rounds (median of the per-round distances).
usage: python3 inproc_summary.py OUT ROUNDS"""
import re
import statistics
import sys

VARIANTS = ("untraced", "floor", "floor_launch", "builtin")
LINE = re.compile(r"inproc_ab .*ratio_median (\S+) q1 (\S+) q3 (\S+) boot90 (\S+) (\S+) "
                  r"off_median_s (\S+) on_median_s (\S+) cost_per_step_us (\S+)")


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    val = {}
    for v in VARIANTS:
        for r in range(1, rounds + 1):
            try:
                s = open("%s/%s-%d.txt" % (out, v, r)).read()
            except OSError:
                continue
            m = LINE.search(s)
            if not m:
                print("%-13s round %d: did not finish (%d pairs)" % (v, r, s.count("\npair ") +
                                                                     s.startswith("pair ")))
                continue
            val[v, r] = [float(x) for x in m.groups()]
            print("%-13s round %d: on/off x%.4f [q %.4f %.4f] boot90 [%.4f %.4f], off %.4f s, "
                  "on %.4f s, %+.1f us a step" % ((v, r) + tuple(val[v, r])))
    for f in ("floor", "floor_launch"):
        d = []
        for r in range(1, rounds + 1):
            b = val.get(("builtin", r))
            if b and (f, r) in val:
                d.append(b[0] - val[f, r][0])
                print("round %d: builtin - %s = %+.4f" % (r, f, d[-1]))
        if d:
            print("builtin - %s over %d rounds: median %+.4f, from %+.4f to %+.4f" % (
                f, len(d), statistics.median(d), min(d), max(d)))


if __name__ == "__main__":
    main()
