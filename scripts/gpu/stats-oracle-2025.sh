#!/usr/bin/env bash
# Records what nsys 2025.3.1 (the one inside Nsight Compute on the GPU
# machines; it runs only there) prints and writes for `nsys stats`, as the
# oracle of the byte-identity tests of `llmprof stats` beside nsys 2023.4.4's
# (docs/stats.md, "What is byte-identical to which nsys"). No GPU work: only
# `nsys stats` on the exports in tests/data/nsys/ and on the fixtures of
# scripts/nsys/stats-fixtures.py (rounding of halves, a report with no data,
# inverted timestamps). One call, from the repository root:
#   OUT=/some/dir scripts/gpu/stats-oracle-2025.sh
# Results under $OUT/nsys2025.3/: <export>_<report>.csv (-f csv -o),
# column/<export>_<report>.txt (-f column on stdout, C locale, less nsys's
# "Processing [...]" lines), files/ (-o in csv, column and json), and
# versions.txt (nsys --version, the SQLite its libsqlite3 says it is).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
OUT=${OUT:?set OUT to the folder for the results}
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
[ -x "${NSYS:-}" ] || { echo "no nsys (set NSYS=...)" >&2; exit 1; }
dst=$OUT/nsys2025.3
mkdir -p "$dst/column" "$dst/files"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export LC_ALL=C
{
	"$NSYS" --version
	lib=$(dirname "$NSYS")/libsqlite3.so.0
	[ -f "$lib" ] && echo "libsqlite3: $(strings "$lib" | grep -m1 -E '^3\.[0-9]+\.[0-9]+$')"
	python3 --version
} >"$dst/versions.txt" 2>&1
cp tests/data/nsys/*.sqlite "$work/"
python3 scripts/nsys/stats-fixtures.py tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite "$work" || exit 1
reports="cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum osrt_sum"
cd "$work"
for db in *.sqlite; do
	e=${db%.sqlite}
	for r in $reports; do
		"$NSYS" stats -f csv -r "$r" --force-overwrite true -o "$dst/$e" "$db" >"$work/log" 2>&1
		grep -q SKIPPED "$work/log" && [ ! -f "$dst/${e}_$r.csv" ] && : >"$dst/${e}_$r.csv"
		"$NSYS" stats -f column -r "$r" "$db" 2>/dev/null | grep -v '^Processing \[' >"$dst/column/${e}_$r.txt"
	done
done
for f in column csv json; do
	"$NSYS" stats -f $f -r cuda_gpu_kern_sum,osrt_sum --force-overwrite true -o "$dst/files/nvtx-probe-h100-nsys2025.3" nvtx-probe-h100-nsys2025.3.sqlite >/dev/null 2>&1
	"$NSYS" stats -f $f -r cuda_gpu_kern_sum,osrt_sum --force-overwrite true -o "$dst/files/nokernels-rtx5060ti-nsys2025.1" nokernels-rtx5060ti-nsys2025.1.sqlite >/dev/null 2>&1
	"$NSYS" stats -f $f -r nvtx_gpu_proj_sum --force-overwrite true -o "$dst/files/nodata" nodata.sqlite >/dev/null 2>&1
done
"$NSYS" stats -f json -r nvtx_gpu_proj_sum nodata.sqlite 2>/dev/null | grep -v '^Processing \[' >"$dst/files/nodata-stdout.json"
ls -la "$dst" "$dst/files" | head -80
echo "rounding (Avg of add: 2583.9 expected, 2583.25 -> 2583.3):"
cat "$dst/round_cuda_gpu_kern_sum.csv"
