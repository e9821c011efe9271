#!/usr/bin/env bash
# Where a stage's CPU time goes (docs/report.md): from the CUDA API rows of
# a trace that records every call. A crafted nsys-schema export (made from
# the H100 nsys fixture with python3's sqlite3): a prefill range of 100 ms
# with a 50 ms module load, a 10 ms cudaMalloc holding a driver call (counted
# once), 5 ms of a synchronisation that runs past the range's end (clipped),
# a launch, and a call on another thread (not the stage's); a decode range of
# 10 ms with 100 launches of 50 us. The finding's numbers, report.md's table
# metrics.json's cpu_time and report.html must say exactly that; a trace of launch calls
# only says nothing about it (and the setup finding says how to get it); a
# real nsys export (tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite) gets
# the numbers an SQL query over its rows gives.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fixture=$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 -c 'import sqlite3' 2>/dev/null || { echo "skip: python3 has no sqlite3"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-cputime.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

make_trace() { # make_trace OUT.sqlite all|launches
	cp "$fixture" "$1" && chmod u+w "$1" || return 1
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
mode = sys.argv[2]
T = 281485093372507          # the fixture's main thread
T2 = T + 1                   # another thread of the process
GPID = 281485093371904
ms = 1000000
def sid(name):
    r = db.execute("SELECT id FROM StringIds WHERE value = ?", (name,)).fetchone()
    if r:
        return r[0]
    i = db.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
    db.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (i, name))
    return i
kname = db.execute("SELECT demangledName, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()
db.execute("DELETE FROM NVTX_EVENTS WHERE eventType = 59")
db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME")
db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL")
db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET")
def rng(text, s, e):
    db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
               "VALUES (?, ?, 59, ?, ?, 1)", (s, e, text, T))
corr = [100]
def call(name, s, e, tid=T, cls=0, launch=False):
    if not launch and mode != "all":
        return None
    corr[0] += 1
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
               "correlationId, nameId, returnValue) VALUES (?, ?, ?, ?, ?, ?, 0)",
               (s, e, cls, tid, corr[0], sid(name)))
    return corr[0]
def kernel(c, s, e):
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
               "correlationId, globalPid, demangledName, shortName, gridX, gridY, gridZ, blockX, "
               "blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, "
               "localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, "
               "launchType, cacheConfig, sharedMemoryLimitConfig, greenContextId) "
               "VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, 1, 1, 1, 32, 1, 1, 16, 0, 0, 0, 0, ?, 0, 0, 0, 0, 0)",
               (s, e, c, GPID, kname[0], kname[1], c))
base = 1000 * ms
# prefill: 100 ms of CPU time, 0.5 ms of GPU work
rng("prefill", base, base + 100 * ms)
call("cuModuleLoadData", base + 1 * ms, base + 51 * ms, cls=1)
call("cudaMalloc_v3020", base + 60 * ms, base + 70 * ms)
call("cuMemAlloc_v2", base + 61 * ms, base + 69 * ms, cls=1)          # inside cudaMalloc
c = call("cudaLaunchKernel_v7000", base + 80 * ms, base + 80 * ms + 10000, launch=True)
kernel(c, base + 80 * ms + 20000, base + 80 * ms + 520000)
call("cudaMalloc_v3020", base + 10 * ms, base + 90 * ms, tid=T2)       # not the stage's thread
call("cudaStreamSynchronize_v3020", base + 95 * ms, base + 105 * ms)  # 5 ms inside
# decode: 10 ms, 100 launches of 50 us, each kernel 20 us
d = base + 200 * ms
rng("decode_all", d, d + 10 * ms)
for i in range(100):
    s = d + i * 100000
    c = call("cudaLaunchKernel_v7000", s, s + 50000, launch=True)
    kernel(c, s + 60000, s + 80000)
call("cudaEventSynchronize_v3020", d + 9960000, d + 9990000)
db.commit()
PY
}

# every call recorded
make_trace "$tmp/all.sqlite" all || fail "cannot make the trace"
"$LLMPROF" report --trace "$tmp/all.sqlite" -o "$tmp/all" >"$tmp/out" 2>&1 || fail "report: $(cat "$tmp/out")"
r=$tmp/all/report.md
grep -qF 'prefill spent 100.000 ms of CPU time for 0.500 ms of GPU work (1 kernel, the GPU busy 0.50% of it): first-call setup' "$r" ||
	fail "setup finding: $(grep -n 'spent' "$r")"
grep -qF 'Where its 100.000 ms of CPU time went: 65.010 ms in CUDA API calls (`cuModuleLoadData` 50.000 ms, `cudaMalloc` 10.000 ms, `cudaStreamSynchronize` 5.000 ms, `cudaLaunchKernel` 0.010 ms), 34.990 ms outside CUDA (host code: Python, the framework).' "$r" ||
	fail "setup finding's split: $(grep -n 'Where its' "$r")"
grep -q 'pipeline.trace.api_calls=all' "$r" && fail "the hint is given although every call is recorded"
grep -qF 'Where its 10.000 ms of CPU time went: 5.030 ms in CUDA API calls (`cudaLaunchKernel` 5.000 ms, `cudaEventSynchronize` 0.030 ms), 4.970 ms outside CUDA' "$r" ||
	fail "launch-bound finding's split: $(grep -n 'idle in decode' "$r")"
grep -q 'stage-launch-bound\|The GPU is idle in decode' "$r" || fail "no launch-bound finding"
grep -q '^## Where the CPU time goes$' "$r" || fail "no CPU-time section"
grep -qF '| cuModuleLoadData | 50.000 | 50.0% | 1 |' "$r" || fail "CPU-time table: $(sed -n '/Where the CPU/,/timeline/p' "$r")"
grep -qF '| all CUDA API calls | 65.010 | 65.0% | 4 |' "$r" || fail "CPU-time table total: $(sed -n '/Where the CPU/,/timeline/p' "$r")"
grep -qF '| outside CUDA (host code) | 34.990 | 35.0% |  |' "$r" || fail "CPU-time table host row"
grep -qF '<h3>Where the CPU time goes: prefill (100.000 ms)</h3>' "$tmp/all/report.html" || fail "report.html has no CPU-time table"
m=$tmp/all/metrics.json
[ "$(json "$m" "[round(s['cpu_time']['api_ms'], 6) for s in d['stages']]")" = "[65.01, 5.03]" ] ||
	fail "metrics api_ms: $(json "$m" "[s.get('cpu_time') for s in d['stages']]")"
[ "$(json "$m" "[(c['name'], c['calls']) for c in d['stages'][0]['cpu_time']['top']]")" = \
	"[('cuModuleLoadData', 1), ('cudaMalloc', 1), ('cudaStreamSynchronize', 1), ('cudaLaunchKernel', 1)]" ] ||
	fail "metrics top: $(json "$m" "d['stages'][0]['cpu_time']")"
[ "$(json "$m" "round(d['stages'][0]['cpu_time']['host_ms'], 6)")" = 34.99 ] || fail "metrics host_ms"
# the launch counts stay launch counts
[ "$(json "$m" "round(d['stages'][1]['launches_per_s'])")" = 10000 ] ||
	fail "launches_per_s: $(json "$m" "d['stages'][1]['launches_per_s']")"

# launch calls only: nothing about where CPU time went, and how to get it
make_trace "$tmp/launch.sqlite" launches || fail "cannot make the launch-only trace"
"$LLMPROF" report --trace "$tmp/launch.sqlite" -o "$tmp/launch" >"$tmp/out" 2>&1 || fail "report: $(cat "$tmp/out")"
r=$tmp/launch/report.md
grep -qF 'prefill spent 100.000 ms of CPU time' "$r" || fail "launch-only: no setup finding"
grep -q 'Where its\|Where the CPU time goes' "$r" && fail "launch-only trace claims to know where CPU time went"
grep -q 'pipeline.trace.api_calls=all' "$r" || fail "launch-only: no hint"
grep -q 'Where the CPU time goes' "$tmp/launch/report.html" && fail "launch-only report.html has a CPU-time table"
[ "$(json "$tmp/launch/metrics.json" "[('cpu_time' in s) for s in d['stages']]")" = "[False, False]" ] ||
	fail "launch-only metrics has cpu_time"
[ "$(json "$tmp/launch/metrics.json" "round(d['stages'][1]['launches_per_s'])")" = 10000 ] || fail "launch-only launches_per_s"

# a real nsys export: what SQL says
"$LLMPROF" report --trace "$fixture" -o "$tmp/real" >"$tmp/out" 2>&1 || fail "report real: $(cat "$tmp/out")"
want=$(python3 - "$fixture" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
s, e, t = db.execute("SELECT start, end, globalTid FROM NVTX_EVENTS WHERE text = 'prefill'").fetchone()
ns, n = db.execute("SELECT sum(min(end, ?) - max(start, ?)), count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                   "WHERE globalTid = ? AND end > ? AND start < ?", (e, s, t, s, e)).fetchone()
print(round(ns / 1e6, 6), n, round((e - s - ns) / 1e6, 6))
PY
)
got=$(json "$tmp/real/metrics.json" "' '.join(str(x) for x in (round(d['stages'][0]['cpu_time']['api_ms'], 6), d['stages'][0]['cpu_time']['api_calls'], round(d['stages'][0]['cpu_time']['host_ms'], 6)))")
[ "$got" = "$want" ] || fail "nsys export: got $got, SQL says $want"
echo ok
