#!/usr/bin/env bash
# llmprof stats -f csv must equal NVIDIA's `nsys stats -f csv` (2023.4.4) byte for
# byte, for every report and every export under tests/data/nsys/oracle/ (a new
# oracle file is covered without editing this test). An empty oracle file means
# nsys printed "SKIPPED: ...": then we must print nothing on stdout, say SKIPPED
# on stderr and exit 0.
set -u
fx=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
oracle=$fx/oracle
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
reports="cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum osrt_sum"
for f in "$oracle"/*.csv; do
	base=$(basename "$f" .csv)
	report= export=
	for r in $reports; do
		case $base in *_"$r") report=$r; export=${base%_"$r"};; esac
	done
	if [ -z "$report" ]; then echo "FAIL: cannot tell the report of $base"; fail=1; continue; fi
	db=$fx/$export.sqlite
	[ -f "$db" ] || { echo "FAIL: $db missing for $base"; fail=1; continue; }
	n=$((n + 1))
	"$LLMPROF" stats -f csv --nsys-version 2023.4 -r "$report" "$db" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then echo "FAIL: $base: exit $rc: $(cat "$tmp/err")"; fail=1; continue; fi
	tr -d '\r' <"$f" >"$tmp/want"
	if ! cmp -s "$tmp/want" "$tmp/out"; then
		echo "FAIL: $base differs from nsys:"; diff "$tmp/want" "$tmp/out" | head -20; fail=1; continue
	fi
	# nsys prints nothing either when it skips (no such data) or when the report
	# found no rows; we must say which on stderr
	if [ ! -s "$tmp/want" ] && ! grep -qE "^(SKIPPED: .* does not contain |NO DATA: $report: )" "$tmp/err"; then
		echo "FAIL: $base: nsys printed nothing but we said: $(cat "$tmp/err")"; fail=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no oracle files"; exit 1; }
echo "$n oracle files compared"
exit $fail
