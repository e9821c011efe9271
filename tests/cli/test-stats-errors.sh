#!/usr/bin/env bash
# llmprof stats on bad input: missing, not SQLite, truncated, corrupt, SQLite but not
# an export; bad options. Each is a one-line error with exit 5 (bad input) or 2
# (usage). Also: formats (md, json), -o files, SKIPPED on stderr with exit 0;
# stdout a pipe nobody reads (exit 7, silent).
set -u
fx=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
[ -f "$fx/trt-resnet-rtx3090-nsys2023.1.sqlite" ] || { echo "FAIL: fixtures missing in $fx"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect CODE PATTERN -- ARGS...
	local code=$1 pat=$2; shift 3
	"$LLMPROF" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
	if [ $rc -ne "$code" ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL: llmprof $*: exit $rc (want $code), stderr: $(cat "$tmp/err")"; fail=1
	elif [ "$(wc -l <"$tmp/err")" -gt 1 ] && [ "$code" -ne 0 ]; then
		echo "FAIL: llmprof $*: error is not one line: $(cat "$tmp/err")"; fail=1
	fi
}
trt=$fx/trt-resnet-rtx3090-nsys2023.1.sqlite
expect 5 "cannot open '$tmp/none.sqlite'" -- stats "$tmp/none.sqlite"
echo "this is not a database" >"$tmp/text.sqlite"
expect 5 "is not a readable SQLite database" -- stats "$tmp/text.sqlite"
printf 'NSYS report\0\1\2' >"$tmp/run.nsys-rep"
# an nsys report needs nsys to export it (tests/cli/test-stats-nsys-rep.sh has the rest)
mkdir "$tmp/nopath"
if ! ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys >/dev/null 2>&1; then
	PATH=$tmp/nopath "$LLMPROF" stats "$tmp/run.nsys-rep" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 4 ] && grep -q "is an nsys report and nsys is needed to export it" "$tmp/err" &&
		[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: .nsys-rep without nsys: exit $rc: $(cat "$tmp/err")"; fail=1; }
fi
head -c 300000 "$trt" >"$tmp/trunc.sqlite"
expect 5 "is truncated: 300000 bytes where its header says" -- stats -r cuda_gpu_kern_sum "$tmp/trunc.sqlite"
cp "$trt" "$tmp/corrupt.sqlite"
# overwrite pages in the middle of the file: the tables there no longer decode
dd if=/dev/zero of="$tmp/corrupt.sqlite" bs=4096 seek=60 count=80 conv=notrunc status=none
"$LLMPROF" stats -r cuda_gpu_kern_sum,nvtx_sum,cuda_api_sum,nvtx_gpu_proj_sum "$tmp/corrupt.sqlite" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 5 ] || ! grep -qE "corrupt|malformed" "$tmp/err"; then echo "FAIL: corrupt db: exit $rc: $(cat "$tmp/err")"; fail=1; fi
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: corrupt db: not one line: $(cat "$tmp/err")"; fail=1; }
# One table broken (NVTX_EVENTS without its start column): stats reads the
# tables side by side, but the reports before the one that needs it still
# print as nsys's, and its error comes once; the same with the broken table
# on a reader thread of its own (CUPTI_ACTIVITY_KIND_RUNTIME)
if command -v sqlite3 >/dev/null; then
	for table in NVTX_EVENTS CUPTI_ACTIVITY_KIND_RUNTIME; do
		cp "$trt" "$tmp/broken.sqlite"
		sqlite3 "$tmp/broken.sqlite" "ALTER TABLE $table RENAME COLUMN start TO begin" || fail=1
		"$LLMPROF" stats -f csv -r cuda_gpu_kern_sum,nvtx_gpu_proj_sum "$tmp/broken.sqlite" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 5 ] || [ "$(cat "$tmp/err")" != "llmprof: error: '$tmp/broken.sqlite': table $table has no column 'start' (not an nsys export?)" ] ||
			! cmp -s "$tmp/out" "$fx/oracle/trt-resnet-rtx3090-nsys2023.1_cuda_gpu_kern_sum.csv"; then
			echo "FAIL: $table broken: exit $rc, stderr: $(cat "$tmp/err"), stdout: $(head -3 "$tmp/out")"
			fail=1
		fi
	done
fi
: >"$tmp/empty.sqlite"
expect 5 "is empty, not an SQLite export" -- stats "$tmp/empty.sqlite"
expect 5 "is a directory" -- stats "$tmp"
expect 2 "unknown report 'cuda_gpu_kern_summ'" -- stats -r cuda_gpu_kern_summ "$trt"
expect 2 "unknown format 'xml'" -- stats -f xml "$trt"
expect 2 "expected one FILE.sqlite" -- stats
# no kernel table: SKIPPED on stderr, nothing on stdout, exit 0
expect 0 "^SKIPPED: .*nokernels-rtx5060ti-nsys2025.1.sqlite does not contain CUDA kernel data.$" -- stats -r cuda_gpu_kern_sum "$fx/nokernels-rtx5060ti-nsys2025.1.sqlite"
[ -s "$tmp/out" ] && { echo "FAIL: SKIPPED report printed on stdout"; fail=1; }
# formats and -o
"$LLMPROF" stats -f json -r cuda_gpu_kern_sum "$fx/vectoradd-um-a4500-nsys2026.1.sqlite" >"$tmp/k.json" || fail=1
grep -q '"Name": "vectorAdd(int \*, int \*, int \*, int)"' "$tmp/k.json" || { echo "FAIL: json: $(cat "$tmp/k.json")"; fail=1; }
grep -q '"Total Time (ns)": 1448207,' "$tmp/k.json" || { echo "FAIL: json numbers"; fail=1; }
"$LLMPROF" stats -f md -r nvtx_sum "$trt" >"$tmp/n.md" || fail=1
grep -q '^| 87.6 | 6842603 | 1 | 6842603.0 |' "$tmp/n.md" || { echo "FAIL: md: $(head -3 "$tmp/n.md")"; fail=1; }
"$LLMPROF" stats -r cuda_gpu_kern_sum,nvtx_sum -o "$tmp/base" "$trt" 2>/dev/null || fail=1
for r in cuda_gpu_kern_sum nvtx_sum; do
	cmp -s "$tmp/base_$r.csv" "$fx/oracle/trt-resnet-rtx3090-nsys2023.1_$r.csv" || { echo "FAIL: -o $r"; fail=1; }
done
# a pipe whose reader left (`llmprof stats | head`): exit 7 without a word
# (it died of SIGPIPE: 141); the same for other commands that print. A
# report the export has no data for still says SKIPPED, as nsys does
# (osrt_sum of the default set here)
for cmd in "stats -r nvtx_sum $trt" "stats $trt" "config show" "--help"; do
	# shellcheck disable=SC2086
	python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)  # a pipe nobody reads any more
sys.exit(subprocess.run(sys.argv[2:], stdout=w, stderr=open(sys.argv[1], "w")).returncode)' \
		"$tmp/err" "$LLMPROF" $cmd
	rc=$?
	grep -v '^SKIPPED: .* does not contain ' "$tmp/err" >"$tmp/err.left"
	mv "$tmp/err.left" "$tmp/err"
	if [ $rc -ne 7 ] || [ -s "$tmp/err" ]; then
		echo "FAIL: llmprof $cmd into a closed pipe: exit $rc (want 7), stderr: $(cat "$tmp/err")"
		fail=1
	fi
done
exit $fail
