#!/usr/bin/env bash
# nsys's column writer groups numbers as the locale says (LC_NUMERIC): in
# en_US.UTF-8, "218,238" and "91,322,827.0"; widths grow to fit. llmprof must
# print what nsys 2023.4.4 printed in that locale (tests/data/nsys/oracle-column/
# en_US/), and nothing else may change: csv stays ungrouped. Skips when no
# en_US.UTF-8 locale is installed and localedef cannot build one.
set -u
data=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
golden=$data/oracle-column/en_US
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! locale -a 2>/dev/null | grep -qix 'en_US.utf-\?8'; then
	command -v localedef >/dev/null || { echo "skip: no en_US.UTF-8 locale and no localedef"; exit 77; }
	mkdir "$tmp/loc"
	localedef -i en_US -f UTF-8 "$tmp/loc/en_US.UTF-8" >/dev/null 2>&1 ||
		{ echo "skip: no en_US.UTF-8 locale and localedef cannot build one"; exit 77; }
	export LOCPATH=$tmp/loc
fi
en="env LC_ALL=en_US.UTF-8" # not exported: bash itself would warn
fail=0 n=0
reports="cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum"
for f in "$golden"/*.txt; do
	base=$(basename "$f" .txt) report= export=
	for r in $reports; do
		case $base in *_"$r") report=$r export=${base%_"$r"} ;; esac
	done
	[ -n "$report" ] && [ -f "$data/$export.sqlite" ] || { echo "FAIL: no export for $base"; fail=1; continue; }
	n=$((n + 1))
	(cd "$data" && $en "$LLMPROF" stats -f column --nsys-version 2023.4 -r "$report" "$export.sqlite") >"$tmp/out" 2>"$tmp/err" ||
		{ echo "FAIL: $base: $(cat "$tmp/err")"; fail=1; continue; }
	cmp -s "$f" "$tmp/out" || { echo "FAIL: $base differs from nsys:"; diff "$f" "$tmp/out" | head -6; fail=1; }
done
[ $n -ge 21 ] || { echo "FAIL: only $n golden files"; fail=1; }
grep -q '218,238' "$golden/nvtx-probe-h100-nsys2025.3_nvtx_sum.txt" || { echo "FAIL: golden files are not grouped"; fail=1; }
# csv is not for people: never grouped
$en "$LLMPROF" stats -f csv -r nvtx_sum "$data/nvtx-probe-h100-nsys2025.3.sqlite" >"$tmp/csv" 2>/dev/null
grep -q '^54.7,218238,1,218238.0,' "$tmp/csv" || { echo "FAIL: csv changed with the locale: $(sed -n 2p "$tmp/csv")"; fail=1; }
echo "$n golden files compared"
exit $fail
