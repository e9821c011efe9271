#!/usr/bin/env bash
# pipeline.trace.api_calls end to end without a GPU: the key reaches the
# builtin tracer as LLMPROF_TRACE_API_CALLS (a workload records what it got
# and writes a synthetic log the way the tracer would: trace-tool synth, with
# "all" also a module load and one synchronisation per step); the trace
# step counts launch calls apart from the other calls; a bad value is a
# config error.
set -u
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
tmp=$(mktemp -d /tmp/llmprof-cli-apicalls.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
step() { json "$1" "[s for s in d['steps'] if s['name']=='$2'][0]['$3']"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
cd "$tmp" || exit 1
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ] || { echo "skip: no tracer library built"; exit 77; }
[ -x "$tool" ] || { echo "skip: no trace-tool built"; exit 77; }
cat >wl.sh <<SH
#!/bin/sh
echo "\${LLMPROF_TRACE_API_CALLS-unset}" >"$tmp/got"
mode=activity
[ "\${LLMPROF_TRACE_API_CALLS:-}" = all ] && mode=all
[ -n "\${LLMPROF_TRACE_OUT:-}" ] && exec "$tool" synth "\$LLMPROF_TRACE_OUT" 20 4 \$mode
exit 0
SH
chmod +x wl.sh
common=(pipeline.trace.backend=builtin pipeline.nsys.path=/nonexistent/nsys pipeline.ncu.enable=false)

# the default: launch calls only
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl.sh >out 2>err || fail "default: $(cat err)"
[ "$(cat got)" = launches ] || fail "default: the tracer got LLMPROF_TRACE_API_CALLS=$(cat got)"
run=$(last_run out)
msg=$(step "$run/status.json" trace message)
echo "$msg" | grep -q "80 kernels, 20 copies, 20 memsets, [0-9]* NVTX rows, 120 launch calls" || fail "default message: $msg"
echo "$msg" | grep -q "other CUDA API calls" && fail "default message names other calls: $msg"
grep -q "api_calls: launches" "$run/config.yaml" || fail "config.yaml: $(grep -n api_calls "$run/config.yaml")"
[ "$(json "$run/metrics.json" "[('cpu_time' in s) for s in d['stages']]")" = "[False]" ] || fail "default: metrics.json has cpu_time"

# every call: the launch count still counts launches
"$LLMPROF" profile artifacts.root="$tmp/b" "${common[@]}" pipeline.trace.api_calls=all -- ./wl.sh >out 2>err ||
	fail "all: $(cat err)"
[ "$(cat got)" = all ] || fail "all: the tracer got LLMPROF_TRACE_API_CALLS=$(cat got)"
run=$(last_run out)
msg=$(step "$run/status.json" trace message)
echo "$msg" | grep -q "80 kernels, 20 copies, 20 memsets, [0-9]* NVTX rows, 120 launch calls, 21 other CUDA API calls" ||
	fail "all message: $msg"
# and the report says where decode's CPU time went: a 100 us module load,
# 20 synchronisations of 5 us, 120 launch calls of 2 ns
[ "$(json "$run/metrics.json" "[(c['name'], round(c['ms'], 6), c['calls']) for c in d['stages'][0]['cpu_time']['top']]")" = \
	"[('cuModuleLoadData', 0.1, 1), ('cudaStreamSynchronize', 0.1, 20), ('cudaLaunchKernel', 0.00016, 80), ('cudaMemcpyAsync', 4e-05, 20), ('cudaMemsetAsync', 4e-05, 20)]" ] ||
	fail "all: cpu_time $(json "$run/metrics.json" "d['stages'][0].get('cpu_time')")"
[ "$(json "$run/metrics.json" "round(d['stages'][0]['cpu_time']['api_ms'], 6)")" = 0.20024 ] || fail "all: api_ms"
grep -q '^## Where the CPU time goes$' "$run/report.md" || fail "all: no CPU-time section in report.md"
# llmprof stats lists them as nsys stats would
"$LLMPROF" stats -r cuda_api_sum -f csv "$run/trace/trace.sqlite" >stats.csv 2>&1 || fail "stats: $(cat stats.csv)"
grep -q ',1,100000\.0,100000\.0,100000,100000,0\.0,cuModuleLoadData$' stats.csv || fail "stats: $(cat stats.csv)"
grep -q ',20,5000\.0,5000\.0,5000,5000,0\.0,cudaStreamSynchronize$' stats.csv || fail "stats: $(cat stats.csv)"
grep -q ',80,2\.0,2\.0,2,2,0\.0,cudaLaunchKernel$' stats.csv || fail "stats: $(cat stats.csv)"

# a value that is not one: a config error (docs/exit-codes.md)
"$LLMPROF" profile artifacts.root="$tmp/c" "${common[@]}" pipeline.trace.api_calls=some -- ./wl.sh >out 2>err
rc=$?
[ "$rc" -eq 3 ] || fail "bad value: exit $rc, $(cat err)"
grep -q "pipeline.trace.api_calls" err || fail "bad value message: $(cat err)"
echo ok
