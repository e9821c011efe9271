#!/usr/bin/env bash
# `llmprof nvtx -- PROGRAM`: the range listing with nsys/ncu filters, forked
# children included, and its errors and exit codes.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
L=${LLMPROF:?}
prog=$b/tests/nvtx-test-program
if [ ! -x "$prog" ] || [ ! -f "$b/tracer/libllmprof_tracer.so" ]; then
	echo "skip: tracer or NVTX test program not built (no CUDA toolkit)"
	exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$L" nvtx --keep "$t/keep" -- "$prog" fork >"$t/out"
expect_line() {
	grep -Eq "$1" "$t/out" || { echo "missing line: $1" >&2; cat "$t/out" >&2; exit 1; }
}
# Program output first, then the table.
[ "$(head -1 "$t/out")" = "nvtx-test-program: done" ]
expect_line '^DOMAIN +RANGE +STYLE +COUNT +DEPTH +PARENT +NSYS --nvtx-capture +NCU --nvtx-include$'
expect_line '^LLM +decode_step +PushPop +4 +1 +decode_all +decode_step@LLM +LLM@decode_step/$'
expect_line '^LLM +prefill +PushPop +1 +0 +- +prefill@LLM +LLM@prefill/$'
expect_line '^\(default\) +outer +PushPop +1 +0 +- +outer +outer/$'
expect_line '^\(default\) +inneré +PushPop +1 +1 +outer +inneré +inneré/$'
expect_line '^\(default\) +cross_thread +StartEnd +1 +- +- +cross_thread +cross_thread$'
expect_line '^LLM +domain_startend +StartEnd +1 +- +- +domain_startend@LLM +LLM@domain_startend$'
expect_line '^\(default\) +worker_step +PushPop +3 +0 +- +worker_step +worker_step/$'
# The forked child wrote its own log and its range is listed.
expect_line '^\(default\) +child_range +PushPop +1 +0 +- +child_range +child_range/$'
[ "$(ls "$t/keep/logs" | wc -l)" = 2 ]
[ "$(sqlite3 "$t/keep/trace.sqlite" "SELECT count(DISTINCT pid) FROM PROCESSES")" = 2 ]
expect_line "^trace: $t/keep/trace.sqlite$"
# Thread names: NVTX names win; a thread without one (the forked child's)
# gets its OS name (comm, 15 bytes).
[ "$(sqlite3 "$t/keep/trace.sqlite" "SELECT group_concat(value, ',') FROM (SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId ORDER BY s.value)")" = "main,nvtx-test-progr,worker" ]
# Columns line up (the table is for people): every row as wide as the header
# up to the last column's start.
awk 'NR > 1 && /^(LLM|\(default\))/ { if (index($0, " ") == 0) exit 1 }' "$t/out"

# A program without NVTX.
"$L" nvtx -- true >"$t/none"
grep -q '^no NVTX ranges: the program made no NVTX call' "$t/none"
# Errors: no program, program missing, program failing, timeout.
rc=0; "$L" nvtx 2>"$t/e1" || rc=$?; [ "$rc" = 2 ]
rc=0; "$L" nvtx -- /nonexistent/prog 2>"$t/e2" || rc=$?; [ "$rc" = 1 ]
grep -q "cannot execute '/nonexistent/prog'" "$t/e2"
rc=0; "$L" nvtx -- sh -c "$prog >/dev/null; exit 3" >"$t/o3" 2>"$t/e3" || rc=$?
[ "$rc" = 1 ]
grep -q 'decode_step' "$t/o3"
grep -q 'the program exited with status 3; the list above holds the ranges it emitted before' "$t/e3"
rc=0; "$L" nvtx run.timeout_s=0.5 -- sleep 5 >/dev/null 2>"$t/e4" || rc=$?; [ "$rc" = 124 ]
rc=0; "$L" nvtx no.such.key=1 -- true 2>"$t/e5" || rc=$?; [ "$rc" = 3 ]
rc=0; LLMPROF_TRACER_LIB=/nonexistent.so "$L" nvtx -- true 2>"$t/e6" || rc=$?; [ "$rc" = 4 ]
grep -q "LLMPROF_TRACER_LIB='/nonexistent.so' is not a readable file" "$t/e6"
echo ok
