#!/usr/bin/env python3
"""stats-fixtures.py: the small exports `tests/cli/test-stats-files.sh` and
`scripts/gpu/stats-oracle-2025.sh` run `nsys stats` and `llmprof stats` on,
made from tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite (nsys 2025.3.1, H100):

  nodata.sqlite    every NVTX row moved to another thread: the projection
                   reports run and find nothing
  round.sqlite     the kernels replaced by 20 `add` of 51,679 ns in all (Avg
                   2583.95 in decimal, 2583.9499... as a double) and 4 `scale`
                   of 10,333 ns (Avg 2583.25, an exact half)
  inverted.sqlite  round.sqlite with its first kernel ending 100 ns before it
                   starts and its last starting at 0

usage: stats-fixtures.py SRC_EXPORT OUT_DIR
"""
import os
import shutil
import sqlite3
import sys


def copy(src, dst):
    shutil.copyfile(src, dst)
    return sqlite3.connect(dst)


def main():
    src, out = sys.argv[1], sys.argv[2]
    db = copy(src, os.path.join(out, "nodata.sqlite"))
    db.execute("UPDATE NVTX_EVENTS SET globalTid = globalTid + 1")
    db.commit()
    db.close()

    db = copy(src, os.path.join(out, "round.sqlite"))
    cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    first = {}
    for r in db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start"):
        first.setdefault(r[cols.index("shortName")], r)
    add, scale = sorted(first.values(), key=lambda r: r[cols.index("start")])[:2]
    db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL")
    plan = [(add, d) for d in [2583] * 9 + [2584] * 10 + [2592]]
    plan += [(scale, d) for d in [2583, 2583, 2583, 2584]]
    assert sum(d for _, d in plan[:20]) == 51679 and sum(d for _, d in plan[20:]) == 10333
    t = 1000000
    for row, d in plan:
        row = list(row)
        row[cols.index("start")], row[cols.index("end")] = t, t + d
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * len(row)), row)
        t += 10000
    db.commit()
    db.close()

    db = copy(os.path.join(out, "round.sqlite"), os.path.join(out, "inverted.sqlite"))
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 100 "
               "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)")
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 0 "
               "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)")
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
