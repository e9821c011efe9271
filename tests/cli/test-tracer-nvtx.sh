#!/usr/bin/env bash
# End to end without a GPU: `llmprof profile pipeline.trace.backend=builtin`
# on tests/progs/nvtx-test-program (NVTX in every way, two threads), then the
# run's trace/trace.sqlite checked exactly; then damage the log and check
# that the converter keeps the readable prefix and says what is wrong.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
so=$b/tracer/libllmprof_tracer.so
prog=$b/tests/nvtx-test-program
tool=$b/tests/trace-tool
if [ ! -x "$prog" ] || [ ! -f "$so" ]; then
	echo "skip: CUDA toolkit headers absent, tracer or NVTX test program not built"
	exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"${LLMPROF:?}" profile artifacts.root="$t/runs" pipeline.trace.backend=builtin -- "$prog" \
	>"$t/out" 2>"$t/err"
run=$(sed -n 's/^run: //p' "$t/out")
# The tracer never writes to the program's stdout.
[ "$(cat "$run/logs/workload.out")" = "nvtx-test-program: done" ]
[ ! -s "$run/logs/workload.err" ]
[ "$(ls "$run/trace/log" | wc -l)" = 1 ]
python3 - "$run/status.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
steps = {s["name"]: s for s in st["steps"]}
assert st["state"] == "ok", st
assert steps["trace"]["state"] == "ok", steps
assert steps["trace"]["message"] == "0 kernels, 0 copies, 0 memsets, 20 NVTX rows, 0 launch calls", steps
PY
cp "$run/trace/trace.sqlite" "$run/trace/trace.json" "$t/"
mkdir "$t/log"
cp "$run"/trace/log/*.bin "$t/log/"
"$tool" convert "$t/log" "$t/again.sqlite" >"$t/conv.txt"
grep -q "problems 0" "$t/conv.txt"
grep -q "open_ranges 0 unmatched_ends 0" "$t/conv.txt"

q() { sqlite3 -separator '|' "$t/trace.sqlite" "$1"; }
expect() { # expect NAME EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3" >&2
		exit 1
	fi
}
pid=$(q "SELECT pid FROM PROCESSES")
gpid=$(( (1 << 48) | (pid << 24) ))
expect globalPid "$gpid" "$(q "SELECT globalPid FROM PROCESSES")"
expect process-name "$prog" "$(q "SELECT name FROM PROCESSES")"

# Every NVTX row, in start order, with the columns nsys stats reads; thread
# 'M' = main thread, 'W' = worker. Timestamps vary, so they are checked by
# relations below, not by value.
expect nvtx-rows "33|0|7|io||0|M|
59|1||outer||0|M|
59|1||inneré||0|M|
34|0||mark_ascii||0|M|
75|0||LLM||1|M|
33|0|1|stage||1|M|
59|1|1|prefill|4278255360|1|M|42
59|1|1|decode_all||1|M|
59|1|1|decode_step||1|M|
59|1|1|decode_step||1|M|
59|1|1|decode_step||1|M|
59|1|1|decode_step||1|M|
34|0|1|domain_mark||1|M|
60|1||startend_same||0|M|
60|1||startend_wide||0|M|
60|1|1|domain_startend||1|M|
60|1||cross_thread||0|M|W
59|1||worker_step||0|W|
59|1||worker_step||0|W|
59|1||worker_step||0|W|" "$(q "SELECT eventType, end IS NOT NULL, category,
	coalesce(text, (SELECT value FROM StringIds WHERE id = textId)), color,
	domainId, CASE globalTid WHEN $gpid | $pid THEN 'M' ELSE 'W' END,
	CASE WHEN endGlobalTid IS NULL THEN coalesce(uint64Value, '') ELSE 'W' END
	FROM NVTX_EVENTS ORDER BY start")"

# Registered strings use textId (text NULL), like nsys; others use text.
expect registered "4|0" "$(q "SELECT count(*), count(text) FROM NVTX_EVENTS WHERE textId IS NOT NULL")"
# Range ids only on start/end ranges; endGlobalTid only when ended elsewhere.
expect rangeIds "1,2,3,4" "$(q "SELECT group_concat(rangeId) FROM (SELECT rangeId FROM NVTX_EVENTS WHERE eventType = 60 ORDER BY rangeId)")"
expect endGlobalTid "1" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE endGlobalTid IS NOT NULL")"
# Nesting by time: inner inside outer, decode_steps inside decode_all, the
# cross-thread range ends after the worker's ranges.
expect nesting "1|1|1" "$(q "SELECT
	(SELECT count(*) FROM NVTX_EVENTS o, NVTX_EVENTS i WHERE o.text = 'outer' AND i.text = 'inneré' AND o.start < i.start AND i.end < o.end),
	(SELECT count(*) = 4 FROM NVTX_EVENTS o, NVTX_EVENTS i WHERE o.text = 'decode_all' AND i.textId IS NOT NULL AND o.start < i.start AND i.end < o.end),
	(SELECT c.end > max(w.end) FROM NVTX_EVENTS c, NVTX_EVENTS w WHERE c.text = 'cross_thread' AND w.text = 'worker_step')")"
expect nonneg "0" "$(q "SELECT count(*) FROM NVTX_EVENTS WHERE start < 0 OR end < start")"
expect threadnames "main|M
worker|W" "$(q "SELECT s.value, CASE t.globalTid WHEN $gpid | $pid THEN 'M' ELSE 'W' END FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId ORDER BY s.value")"
expect producer "llmprof builtin tracer" "$(q "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_NAME'")"
expect enum59 "NvtxPushPopRange" "$(q "SELECT name FROM ENUM_NSYS_EVENT_TYPE WHERE id = 59")"
# No GPU work in this program: those tables are absent, as in a lazy nsys export.
expect no-kernel-table "0" "$(q "SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'")"
expect session-start "1" "$(q "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs > 1600000000000000000")"

# trace.json: valid JSON, NVTX ranges as complete events on their threads.
python3 - "$t/trace.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == 15, len(x)
names = sorted(e["name"] for e in x)
assert "LLM:decode_step" in names and "outer" in names and "inneré" in names, names
assert len([e for e in ev if e["ph"] == "i"]) == 2
PY

# The NVTX listing with nsys and ncu filters.
"$tool" nvtx "$t/trace.sqlite" >"$t/nvtx.txt"
grep -Eq '^LLM +decode_step +PushPop +4 +1 +decode_all +decode_step@LLM +LLM@decode_step/$' "$t/nvtx.txt" || { cat "$t/nvtx.txt"; exit 1; }
grep -Eq '^\(default\) +inneré +PushPop +1 +1 +outer +inneré +inneré/$' "$t/nvtx.txt"
grep -Eq '^\(default\) +cross_thread +StartEnd +1 +- +- +cross_thread +cross_thread$' "$t/nvtx.txt"
grep -Eq '^LLM +domain_startend +StartEnd +1 +- +- +domain_startend@LLM +LLM@domain_startend$' "$t/nvtx.txt"
grep -q '(2 NVTX marks' "$t/nvtx.txt"

# Damage: cut the log in the middle of its last chunk, then corrupt a chunk
# header. The converter keeps what is readable and names the offset.
log=$(ls "$t/log"/*.bin)
size=$(stat -c %s "$log")
mkdir "$t/cut"
head -c $((size - 20)) "$log" >"$t/cut/trace-1.bin"
rc=0
"$tool" convert "$t/cut" "$t/cut.sqlite" 2>"$t/cut.err" >/dev/null || rc=$?
expect cut-rc 5 "$rc"
grep -q "trace-1.bin: offset [0-9]*: truncated chunk" "$t/cut.err" || { cat "$t/cut.err"; exit 1; }
[ "$(sqlite3 "$t/cut.sqlite" "SELECT count(*) FROM NVTX_EVENTS")" -ge 17 ]

mkdir "$t/bad"
cp "$log" "$t/bad/trace-2.bin"
printf 'XXXX' | dd of="$t/bad/trace-2.bin" bs=1 seek=64 conv=notrunc 2>/dev/null
rc=0
"$tool" convert "$t/bad" "$t/bad.sqlite" 2>"$t/bad.err" >/dev/null || rc=$?
expect bad-rc 5 "$rc"
grep -q "trace-2.bin: offset 64: corrupt chunk header" "$t/bad.err" || { cat "$t/bad.err"; exit 1; }

mkdir "$t/junk"
echo "not a log" >"$t/junk/trace-3.bin"
rc=0
"$tool" convert "$t/junk" "$t/junk.sqlite" 2>"$t/junk.err" >/dev/null || rc=$?
expect junk-rc 1 "$rc"
grep -q "trace-3.bin: not a llmprof trace log" "$t/junk.err"
[ ! -e "$t/junk.sqlite" ]
# Backend selection: builtin without the library is an error (4, nothing
# created); auto goes on without a trace and says why.
rc=0
LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile artifacts.root="$t/r2" \
	pipeline.trace.backend=builtin -- true >/dev/null 2>"$t/e2" || rc=$?
expect builtin-missing-rc 4 "$rc"
grep -q "pipeline.trace.backend=builtin: LLMPROF_TRACER_LIB='/nonexistent.so' is not a readable file" "$t/e2"
[ ! -e "$t/r2" ]
LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile artifacts.root="$t/r3" -- true \
	>/dev/null 2>"$t/e3"
grep -q "warning: no timeline trace: LLMPROF_TRACER_LIB" "$t/e3"
# A program that never uses CUDA or NVTX: the trace step is skipped, saying why.
"$LLMPROF" profile artifacts.root="$t/r4" pipeline.trace.backend=builtin -- true >"$t/o4" 2>/dev/null
grep -q '"message": "no timeline: the program made no CUDA or NVTX call' "$(sed -n 's/^run: //p' "$t/o4")/status.json"
echo "ok"
