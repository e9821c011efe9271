#!/usr/bin/env bash
# The trust report's "processes that ended without flushing": the builtin
# tracer writes a TLOG_END record when its exit flush is done, so a traced
# process that ended without exit() (_exit() as Python's multiprocessing
# children do, SIGKILL, a crash) is known by its log lacking it. NVTX-only
# tracing needs no GPU: tests/progs/nvtx-test-program under the real tracer.
# Each case checks metrics.json trust[], the finding, report.md's Trust
# section, status.json's trust count and the trace step's warning; a clean
# exit and a log of a tracer without the end record (synthetic) list nothing.
set -u
. "$(dirname "$0")/failures-lib.sh"
b=${LLMPROF_BUILD_DIR:?}
prog=$b/tests/nvtx-test-program
tool=$b/tests/trace-tool
[ -x "$prog" ] && [ -f "$b/tracer/libllmprof_tracer.so" ] ||
	skip "the builtin tracer or the NVTX test program is not built (no CUDA headers)"

# check RUN N: N processes listed as unflushed (0: the item is absent)
check() {
	python3 - "$1" "$2" <<'PY' || fail "$1: trust report"
import json, os, sys
run, n = sys.argv[1], int(sys.argv[2])
m = json.load(open(os.path.join(run, "metrics.json")))
st = json.load(open(os.path.join(run, "status.json")))
items = [t for t in m["trust"] if t["code"] == "processes-unflushed"]
codes = [f["code"] for f in m["findings"]]
md = open(os.path.join(run, "report.md")).read()
if n == 0:
    assert not items, items
    assert "trace-unflushed" not in codes, codes
    assert "without flushing" not in md
    sys.exit(0)
assert len(items) == 1 and items[0]["count"] == n, m["trust"]
assert items[0]["above_threshold"] and items[0]["threshold"] == 0, items
what = "process%s ended without flushing the trace (crash, _exit, SIGKILL)" % ("" if n == 1 else "es")
assert items[0]["what"] == what, items
assert "trace-unflushed" in codes, codes
assert st["trust"] >= 1, st.get("trust")
sec = md.split("## Trust", 1)[1].split("\n## ", 1)[0]
want = "| %s | %d | the last records of each process |" % (what.replace("_exit", "\\_exit"), n)
assert want in sec, sec
PY
}

# 1. exits normally, also with a forked child that calls exit(), or one that
# exec()s a program without NVTX at once (its log holds only who it is):
# nothing
for arg in "" fork fork-exec; do
	# shellcheck disable=SC2086
	"$LLMPROF" profile -o runs pipeline.trace.backend=builtin -- "$prog" $arg >out 2>err ||
		fail "profile $arg: exit $?: $(cat err)"
	check "$(last_run out)" 0
	grep -q "ended without exit()" err && fail "a clean exit was reported as unflushed"
done

# 2. _exit(), SIGKILL, and a forked child that ends with _exit()
"$LLMPROF" profile -o runs pipeline.trace.backend=builtin -- "$prog" _exit >out 2>err ||
	fail "profile _exit: exit $?: $(cat err)"
run=$(last_run out)
check "$run" 1
grep -q "^llmprof: tracer: pid [0-9]*: warning: ended without exit() (a crash, _exit() or SIGKILL): the records since its last periodic flush (LLMPROF_TRACE_LOG_FLUSH_MS, 1 s by default) are missing$" err ||
	fail "no tracer warning on the terminal: $(cat err)"
grep -q "^1 traced process ended without exit()" err || fail "the finding is not on the terminal"

"$LLMPROF" profile -o runs pipeline.trace.backend=builtin -- "$prog" SIGKILL >out 2>err
expect 1 $? err "workload: killed by signal 9 \(SIGKILL\)"
check "$(last_run out)" 1

"$LLMPROF" profile -o runs pipeline.trace.backend=builtin -- "$prog" fork-_exit >out 2>err ||
	fail "profile fork-_exit: exit $?: $(cat err)"
run=$(last_run out)
[ "$(ls "$run/trace/log" | wc -l)" = 2 ] || fail "fork-_exit: not two logs"
check "$run" 1

# 3. the same log converted again, and `report` on the bundle: same count
"$tool" convert "$run/trace/log" again.sqlite >conv.txt || fail "trace-tool convert"
[ "$(sqlite3 again.sqlite "SELECT value FROM META_DATA_EXPORT WHERE name = 'LLMPROF_UNFLUSHED_PROCESSES'")" = 1 ] ||
	fail "META_DATA_EXPORT LLMPROF_UNFLUSHED_PROCESSES is not 1"
"$LLMPROF" report --trace again.sqlite -o rep >out 2>err || fail "report: $(cat err)"
python3 -c 'import json,sys; m=json.load(open("rep/metrics.json")); assert [t["count"] for t in m["trust"] if t["code"]=="processes-unflushed"]==[1], m["trust"]' ||
	fail "report --trace: the item is not there"

# 4. a log from a tracer that writes no end record (older, or synthetic):
# nothing is known, nothing listed
mkdir synth
"$tool" synth synth 3 2 >/dev/null || fail "trace-tool synth"
"$tool" convert synth synth.sqlite >/dev/null || fail "convert synth"
[ "$(sqlite3 synth.sqlite "SELECT value FROM META_DATA_EXPORT WHERE name = 'LLMPROF_UNFLUSHED_PROCESSES'")" = 0 ] ||
	fail "a log without the end-record flag was counted"
echo ok
