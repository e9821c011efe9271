#!/usr/bin/env bash
# Benchmark: memory and output sizes that follow the number of distinct kernel
# names (issue 34, items 8 and 9). `report --trace` on bench/gen-nsys-trace.py
# --kernels N --names N (every kernel its own name), and `report --ncu-csv` on
# bench/gen-ncu-csv.py --rows R: peak RSS (GNU time), wall time and the size of
# each report. Target: 1 M distinct names within 1 GB, reports bounded by
# run.report_rows (kernels.tsv, the full data, linear).
#
# usage: bench/report-names-bench.sh [LLMPROF] [RESULT.md] [NAMES...] [-- NCU_ROWS...]
#   defaults: build/llmprof, bench/results/report-names.md,
#   100000 300000 1000000 -- 50000 200000. The result file is appended to.
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"
llmprof=${1:-$root/build/llmprof}
result=${2:-$here/results/report-names.md}
shift $(($# > 2 ? 2 : $#))
names=() rows=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("$1"); shift; done
[ $# -gt 0 ] && shift
rows=("$@")
[ ${#names[@]} -gt 0 ] || names=(100000 300000 1000000)
[ ${#rows[@]} -gt 0 ] || rows=(50000 200000)

mb() { echo $(($(stat -c %s "$1") / 1048576)); }
run() { # run CMD... -> "wall MB" (peak RSS)
	rm -rf "$work/out"
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	read -r t m <"$work/time"
	echo "$t $((m / 1024))"
}

trace_rows=""
for n in "${names[@]}"; do
	db=$work/names.sqlite
	python3 "$here/gen-nsys-trace.py" "$db" --kernels "$n" --names "$n" --threads 4 --gpus 2 >/dev/null
	cat "$db" >/dev/null
	read -r t m < <(run "$llmprof" report --trace "$db" -o "$work/out")
	o=$work/out
	trace_rows+="| $n | $(mb "$db") | $t | $m | $((m * 1048576 / n)) | $(($(stat -c %s "$o/kernels.md") / 1024)) | $(mb "$o/kernels.tsv") | $(($(stat -c %s "$o/metrics.json") / 1024)) | $(($(stat -c %s "$o/report.html") / 1024)) | $(mb "$o/trace.json") |
"
	rm -f "$db"
done

ncu_rows=""
for r in "${rows[@]}"; do
	csv=$work/raw.csv
	python3 "$here/gen-ncu-csv.py" "$csv" --rows "$r" >/dev/null
	cat "$csv" >/dev/null
	read -r t m < <(run "$llmprof" report --ncu-csv "$csv" -o "$work/out")
	big=0
	for f in "$work"/out/regions/*/metrics.json; do
		s=$(stat -c %s "$f")
		[ "$s" -gt "$big" ] && big=$s
	done
	total=$(du -sm "$work/out/regions" | cut -f1)
	ncu_rows+="| $r | $(mb "$csv") | $t | $m | $((big / 1048576)) | $total | $(mb "$work/out/kernels.json") |
"
	rm -f "$csv"
done

bench_head "$result" '# Memory and report sizes per distinct kernel name' "$llmprof"
cat >>"$result" <<MD
- command: \`bench/report-names-bench.sh $llmprof RESULT ${names[*]} -- ${rows[*]}\`, one run each
- \`report --trace\` on \`bench/gen-nsys-trace.py OUT --kernels N --names N --threads 4 --gpus 2\`
  (every kernel its own name); run.report_rows at its default (1,000)

| names | export (MiB) | wall (s) | peak RSS (MB) | bytes per name | kernels.md (KiB) | kernels.tsv (MiB) | metrics.json (KiB) | report.html (KiB) | trace.json (MiB) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$trace_rows
- \`report --ncu-csv\` on \`bench/gen-ncu-csv.py OUT --rows R\` (the 568-column H100 template;
  its NVTX ranges give two regions, the inner one holding every result)

| results | export (MiB) | wall (s) | peak RSS (MB) | largest region metrics.json (MiB) | regions/ (MiB) | kernels.json (MiB) |
|---:|---:|---:|---:|---:|---:|---:|
$ncu_rows
MD
tail -n 20 "$result"
