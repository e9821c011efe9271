#!/usr/bin/env python3
"""Write a large synthetic Nsight Compute raw-page export (`ncu --import R
--csv --page raw`) from a real one.

The header and units row are copied from TEMPLATE (default: the H100
kernel-replay fixture with NVTX, 568 columns); the data rows cycle through
TEMPLATE's, with a fresh ID each. --names K gives the kernels K distinct
names (a suffix "_k<i>"); --regions R puts row i inside NVTX range
"decode_step_<i % R>" of the template's innermost level, so R regions
(plus their parents) appear; 0 keeps the template's NVTX cells.

usage: gen-ncu-csv.py OUT.csv [--rows N] [--names K] [--regions R] [--template RAW.csv]
"""
import argparse
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "tests", "data", "ncu",
                       "nvtx-llm-domain-kernel-replay-h100-ncu2025.3.raw.csv")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=8000)
    ap.add_argument("--names", type=int, default=0)
    ap.add_argument("--regions", type=int, default=0)
    ap.add_argument("--template", default=DEFAULT)
    a = ap.parse_args()
    with open(a.template, newline="") as f:
        rows = list(csv.reader(f))
    header, units, data = rows[0], rows[1], rows[2:]
    c_id = header.index("ID")
    c_name = header.index("Kernel Name")
    c_nvtx = next((i for i, h in enumerate(header) if "Push/Pop_Range" in h), -1)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        w.writerow(units)
        for i in range(a.rows):
            r = list(data[i % len(data)])
            r[c_id] = str(i)
            if a.names:
                r[c_name] = "%s_k%d" % (r[c_name], i % a.names)
            if a.regions and c_nvtx >= 0 and r[c_nvtx].strip():
                # the innermost level's range and message get a suffix
                cell = r[c_nvtx].rstrip()
                head, _, last = cell.rpartition('"')[0].rpartition('"')
                parts = last.split(":")
                parts[1] += "_%d" % (i % a.regions)
                parts[-1] += "_%d" % (i % a.regions)
                r[c_nvtx] = '%s"%s" ' % (head, ":".join(parts))
            w.writerow(r)
    print("%s: %d rows, %d columns" % (a.out, a.rows, len(header)))


if __name__ == "__main__":
    main()
