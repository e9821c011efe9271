#!/usr/bin/env bash
# The trace step's memory does not follow the tracer logs' size: it read
# each log whole (a 10 GiB log took 10.5 GB, and under an 8 GiB limit
# llmprof exited 70 leaving status.json "running"; bench/results/
# trace-log-memory.md measures 1-10 GiB).
#   1. trace-tool convert on a 3 MB and a 137 MB synthetic log (200 and
#      8,000 steps of 100 kernels): the peak RSS (GNU time) grows by at most
#      SQLite's page cache (64 MiB, tosqlite_db.c, full from a ~70 MB
#      database on) plus 128 KB per MB of log (reading the log whole took
#      1,024 and more), and the larger database has every kernel, launch
#      call and range. The same with launch calls as the activity source
#      writes them (the default; it kept every call for a sort: ~300 KB
#      more per MB).
#   2. 300,000 NVTX pushes left open (a program that crashed that deep):
#      each is one open range in the database.
#   3. Out of memory in the trace step (every allocation over 32 MB fails:
#      the open ranges' stack of 2,000,000 pushes needs one of 48 MB; not
#      less, as the live NVTX view reads up to 16 MB of a growing log at a
#      time during the workload step):
#      exit 70 with one line on stderr, and status.json says "failed",
#      exit_code 70, the trace step "failed" with "out of memory ...", the
#      later steps "skipped".
#   4. Activity-source calls not in the order CUPTI writes them (each GPU
#      chunk's records reversed: read again and sorted whole) give the same
#      rows as in order.
set -u
. "$(dirname "$0")/failures-lib.sh"
b=${LLMPROF_BUILD_DIR:?}
tool=$b/tests/trace-tool
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) missing"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"
# ASan keeps freed memory in quarantine: measure without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
asan=0
ldd "$LLMPROF" 2>/dev/null | grep -q libasan && asan=1

# 1. peak RSS of two conversions
peak_kb() { # peak_kb STEPS [activity]: synthesize and convert, print the peak RSS in KB
	rm -rf "logs$1" && mkdir "logs$1"
	"$tool" synth "logs$1" "$1" 100 ${2:-} || fail "synth $1"
	/usr/bin/time -f %M -o "rss$1" "$tool" convert "logs$1" "db$1.sqlite" >"conv$1" 2>err ||
		fail "convert $1 steps: $(cat err)"
	tail -n 1 "rss$1"
}
for mode in callback activity; do
	a=$(peak_kb 200 ${mode#callback})
	c=$(peak_kb 8000 ${mode#callback})
	mb_a=$(($(stat -c %s logs200/trace-4242.bin) >> 20))
	mb_c=$(($(stat -c %s logs8000/trace-4242.bin) >> 20))
	per=$(((c - a - 65536) / (mb_c - mb_a)))
	echo "convert ($mode): $a KB at $mb_a MB of log, $c KB at $mb_c MB: $per KB per MB beyond the cache"
	[ "$per" -le 128 ] || fail "convert ($mode): $per KB per MB of log beyond SQLite's cache (at most 128)"
	grep -q "^files 1 processes 1 records [0-9]* nvtx 8002 kernels 800000 memcpy 8000 memset 8000 api 816000$" conv8000 ||
		fail "convert 8000 steps ($mode): $(cat conv8000)"
	[ "$(sqlite3 db8000.sqlite 'SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL')" = \
		"800000|$((8000 * (100 * 1000 + 10 * 99 * 100 / 2)))" ] || fail "kernels of 8000 steps ($mode)"
	rm -rf logs200 logs8000 db200.sqlite db8000.sqlite
done

# 2. open ranges: each one written, open
rm -rf open && mkdir open
"$tool" synth-open open 300000 || fail "synth-open"
"$tool" convert open open.sqlite >conv 2>err || fail "convert open ranges: $(cat err)"
grep -q "^open_ranges 300000 " conv || fail "open ranges: $(cat conv)"
[ "$(sqlite3 open.sqlite "SELECT count(*), count(end), min(start), max(start) FROM NVTX_EVENTS WHERE text = 'open'")" = \
	"300000|0|1000|300999" ] || fail "open ranges' rows"

# 3. out of memory in the trace step
if [ $asan = 1 ]; then
	limit=(env "ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=32")
else
	limit=(env LD_PRELOAD="$b/tests/malloc-limit-shim.so" LLMPROF_TEST_MALLOC_MAX=$((32 << 20)))
fi
"${limit[@]}" "$LLMPROF" profile artifacts.root="$tmp/runs" -- \
	/bin/sh -c 'exec "$0" synth-open "$LLMPROF_TRACE_OUT" 2000000' "$tool" >out 2>err
rc=$?
expect 70 $rc err '^llmprof: fatal: out of memory allocating [0-9]+ bytes$'
[ "$(grep -c 'out of memory' err)" = 1 ] || fail "out of memory said more than once: $(cat err)"
run=$(ls -d "$tmp"/runs/*/ | head -n 1)
run=${run%/}
check_bundle "$run" failed 70
[ "$(step_field "$run" workload state)" = ok ] ||
	fail "workload: $(step_field "$run" workload state): $(head -c 2000 "$run/logs/workload.err")"
[ "$(step_field "$run" trace state)" = failed ] || fail "trace: $(step_field "$run" trace state)"
step_field "$run" trace message | grep -Eq '^out of memory \(allocating [0-9]+ bytes\)$' ||
	fail "trace message: $(step_field "$run" trace message)"
[ "$(step_field "$run" analyze state)" = skipped ] || fail "analyze: $(step_field "$run" analyze state)"
[ -s "$run/trace/log/trace-4242.bin" ] || fail "the tracer log was lost"
[ ! -e "$run/trace/trace.sqlite" ] || fail "a trace.sqlite after running out of memory"
# 4. activity-source calls out of CUPTI's order: the same rows
rm -rf inorder reversed && mkdir inorder reversed
"$tool" synth inorder 40 5 all || fail "synth all"
python3 - inorder/trace-4242.bin reversed/trace-4242.bin <<'PY' || fail "reversing the GPU chunks"
import struct, sys
data = open(sys.argv[1], "rb").read()
out, pos = bytearray(data[:64]), 64
while pos < len(data):
    magic, size, tid, seq = struct.unpack_from("<IIII", data, pos)
    body, recs, p = data[pos + 16:pos + 16 + size], [], 0
    while p < len(body):
        n = struct.unpack_from("<HH", body, p)[1]
        recs.append(body[p:p + n])
        p += n
    if tid == 0:
        recs.reverse()
    out += data[pos:pos + 16] + b"".join(recs)
    pos += 16 + size
open(sys.argv[2], "wb").write(out)
PY
for d in inorder reversed; do
	"$tool" convert $d $d.sqlite >$d.conv 2>err || fail "convert $d: $(cat err)"
	sqlite3 $d.sqlite .dump | sort >$d.dump
done
grep -v '^seconds' inorder.conv >a.conv
grep -v '^seconds' reversed.conv >b.conv
cmp -s a.conv b.conv || fail "reversed calls: $(cat reversed.conv) (in order: $(cat inorder.conv))"
grep -q " api 280 api_other 41$" inorder.conv || fail "calls in order: $(cat inorder.conv)"
cmp -s inorder.dump reversed.dump || fail "reversed calls: other rows: $(diff inorder.dump reversed.dump | head -n 5)"
echo "ok"
