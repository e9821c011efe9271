#!/usr/bin/env bash
# Why the builtin tracer records launch calls of both API domains, on what
# CUPTI really delivered (tests/data/tracer/graph-decode-h100: a PyTorch
# decode on an H100, CUDA 13.0, launch calls from CUPTI's RUNTIME and
# DRIVER activity records): each launch gives one record, never a runtime
# record with a driver record inside it (so recording both duplicates
# nothing), and a third of the eager run's kernels were launched by direct
# driver calls (cuLaunchKernelEx) with no runtime call: without the driver
# records they could not be attributed to the NVTX range around their
# launch. Every kernel joins exactly one launch call.
set -euo pipefail
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "skip: no trace-tool built"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }
h100=${LLMPROF_SOURCE_DIR:?}/tests/data/tracer/graph-decode-h100
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for m in eager graph; do
	mkdir -p "$t/$m"
	xz -dc "$h100/$m.bin.xz" >"$t/$m/trace-1.bin"
	"$tool" convert "$t/$m" "$t/$m.sqlite" >"$t/$m.txt" || fail "convert $m"
	grep -q "unattributed 0 " "$t/$m.txt" || fail "$m: unattributed GPU work: $(cat "$t/$m.txt")"
	q() { sqlite3 -separator '|' "$t/$m.sqlite" "$1"; }
	# no driver call inside a runtime call of the same thread
	nested=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME d JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
		ON d.globalTid = r.globalTid AND d.eventClass = 1 AND r.eventClass = 0
		AND d.start >= r.start AND d.end <= r.end")
	[ "$nested" = 0 ] || fail "$m: $nested driver records inside runtime ones"
	# every kernel joins exactly one launch call
	q "SELECT count(*), sum(n = 1) FROM (SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r
		WHERE r.correlationId = k.correlationId) n FROM CUPTI_ACTIVITY_KIND_KERNEL k)" >"$t/join"
	IFS='|' read -r nk one <"$t/join"
	[ "$nk" = "$one" ] || fail "$m: $one of $nk kernels join exactly one launch call"
	# by domain: the kernels whose launch call was a driver call
	q "SELECT r.eventClass, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
		ON r.correlationId = k.correlationId GROUP BY 1 ORDER BY 1" | tr '\n' ' ' >"$t/$m.by"
done
[ "$(cat "$t/eager.by")" = "0|581 1|288 " ] || fail "eager kernels by launch domain: $(cat "$t/eager.by")"
[ "$(cat "$t/graph.by")" = "0|897 1|64 " ] || fail "graph kernels by launch domain: $(cat "$t/graph.by")"
echo "test-tracer-launch-records.sh: all checks passed"
