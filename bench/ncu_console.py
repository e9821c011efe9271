"""ncu_console: ncu's console, time-stamped, and what its result lines say:
the one reading of it that bench/ncu-cost-parts.sh and bench/ncu-passes.sh
share.

  python3 ncu_console.py stamp T0 < console > LOG
      each line with the seconds since T0 (an epoch) as it ends
  python3 ncu_console.py times LOG
      one tab-separated line: results, the replay passes they took (each
      count once, comma-separated; - without results), the stamp of the
      first result's line, seconds a result (between the first and the last
      result's lines; nan with fewer than two), the stamp of the last"""
import re
import sys
import time


def stamp(t0):
    for line in sys.stdin:
        sys.stdout.write("%.3f %s" % (time.time() - t0, line))
        sys.stdout.flush()


def times(log):
    ends, passes = [], set()
    for line in open(log, errors="replace"):
        ts, _, text = line.partition(" ")
        if "==PROF== Profiling" in text:
            ends.append(float(ts))
            m = re.search(r"(\d+) pass", text)
            passes.add(m.group(1) if m else "?")
    n = len(ends)
    per = (ends[-1] - ends[0]) / (n - 1) if n > 1 else float("nan")
    nan = float("nan")
    print("%d\t%s\t%.1f\t%.3f\t%.3f" % (n, ",".join(sorted(passes)) or "-",
                                        ends[0] if n else nan, per, ends[-1] if n else nan))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "stamp":
        stamp(float(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "times":
        times(sys.argv[2])
    else:
        sys.exit("usage: ncu_console.py stamp T0 | ncu_console.py times LOG")


if __name__ == "__main__":
    main()
