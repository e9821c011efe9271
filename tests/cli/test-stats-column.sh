#!/usr/bin/env bash
# llmprof stats -f column must equal NVIDIA's `nsys stats -f column` (2023.4.4)
# byte for byte, for every file of tests/data/nsys/oracle-column/ (nsys's output
# on the exports beside it, less its "Processing [...] with [script]..." lines):
# headers, widths from the first 100 rows, clipping at 100 characters with "…",
# SKIPPED lines on stdout. nsys2025.3/ holds nsys 2025.3.1's output on the export
# it wrote: the same but for ":A" names. Also: column is the default on a terminal
# and csv in a pipe; -o BASE writes BASE_<report>.txt.
set -u
data=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
golden=$data/oracle-column
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C # the golden files were printed in the C locale: no thousands separators
fail=0 n=0
reports="cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum osrt_sum"
for f in "$golden"/*.txt; do
	base=$(basename "$f" .txt) report= export=
	for r in $reports; do
		case $base in *_"$r") report=$r export=${base%_"$r"} ;; esac
	done
	[ -n "$report" ] || { echo "FAIL: cannot tell the report of $base"; fail=1; continue; }
	[ -f "$data/$export.sqlite" ] || { echo "FAIL: $export.sqlite missing for $base"; fail=1; continue; }
	n=$((n + 1))
	# nsys 2023.4.4 printed these: its spelling of range names
	(cd "$data" && "$LLMPROF" stats -f column --nsys-version 2023.4 -r "$report" "$export.sqlite") \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $base: exit $rc: $(cat "$tmp/err")"; fail=1; continue; }
	cmp -s "$f" "$tmp/out" || { echo "FAIL: $base differs from nsys:"; diff "$f" "$tmp/out" | head -10; fail=1; }
done
[ $n -ge 28 ] || { echo "FAIL: only $n golden files"; fail=1; }
echo "$n golden files compared"

# nsys 2025.3.1 on the export it wrote: with no --nsys-version, llmprof reads the
# writer's version and spells default-domain ranges ":A" as it does
m=0
for f in "$golden"/nsys2025.3/*.txt; do
	base=$(basename "$f" .txt) report=
	for r in $reports; do
		case $base in *_"$r") report=$r ;; esac
	done
	m=$((m + 1))
	(cd "$data" && "$LLMPROF" stats -f column -r "$report" nvtx-probe-h100-nsys2025.3.sqlite) >"$tmp/out" 2>"$tmp/err" ||
		{ echo "FAIL: 2025.3 $base: $(cat "$tmp/err")"; fail=1; continue; }
	cmp -s "$f" "$tmp/out" || { echo "FAIL: $base differs from nsys 2025.3.1:"; diff "$f" "$tmp/out" | head -10; fail=1; }
done
[ $m -eq 7 ] || { echo "FAIL: $m nsys 2025.3 golden files, want 7"; fail=1; }
grep -q '^ :A  ' "$golden/nsys2025.3/nvtx-probe-h100-nsys2025.3_nvtx_gpu_proj_sum.txt" ||
	{ echo "FAIL: the 2025.3 golden file lacks ':A'"; fail=1; }

h100=$data/nvtx-probe-h100-nsys2025.3.sqlite
want=$golden/nvtx-probe-h100-nsys2025.3_cuda_gpu_kern_sum.txt
# several reports: each block as nsys prints it, one after the other
cat "$golden/nvtx-probe-h100-nsys2025.3_cuda_api_sum.txt" "$want" >"$tmp/two.want"
"$LLMPROF" stats -f column -r cuda_api_sum,cuda_gpu_kern_sum "$h100" >"$tmp/two" 2>"$tmp/err" || fail=1
cmp -s "$tmp/two.want" "$tmp/two" || { echo "FAIL: two reports:"; diff "$tmp/two.want" "$tmp/two" | head; fail=1; }
# -o BASE: BASE_<report>.txt, as nsys names column files
"$LLMPROF" stats -f column -r cuda_gpu_kern_sum -o "$tmp/base" "$h100" 2>"$tmp/err" || fail=1
# in a file nsys leaves out the blank line that ends the report on the console
sed '$d' "$want" >"$tmp/want.file"
cmp -s "$tmp/want.file" "$tmp/base_cuda_gpu_kern_sum.txt" || { echo "FAIL: -o column file:"; diff "$tmp/want.file" "$tmp/base_cuda_gpu_kern_sum.txt" | head -5; fail=1; }
# default format: csv in a pipe (scripts keep working), column on a terminal
"$LLMPROF" stats -r cuda_gpu_kern_sum "$h100" >"$tmp/pipe" 2>/dev/null
head -1 "$tmp/pipe" | grep -q '^Time (%),Total Time (ns),' || { echo "FAIL: default in a pipe is not csv: $(head -2 "$tmp/pipe")"; fail=1; }
"$LLMPROF" stats -r cuda_gpu_kern_sum -o "$tmp/dflt" "$h100" 2>/dev/null
[ -f "$tmp/dflt_cuda_gpu_kern_sum.csv" ] || { echo "FAIL: default with -o is not csv: $(ls "$tmp")"; fail=1; }
if command -v script >/dev/null; then
	script -qec "'$LLMPROF' stats -r cuda_gpu_kern_sum '$h100'" /dev/null </dev/null >"$tmp/tty" 2>&1
	tr -d '\r' <"$tmp/tty" >"$tmp/tty.txt"
	cmp -s "$want" "$tmp/tty.txt" || { echo "FAIL: default on a terminal is not column:"; diff "$want" "$tmp/tty.txt" | head; fail=1; }
else
	echo "note: no script(1): the terminal default is not checked"
fi
exit $fail
