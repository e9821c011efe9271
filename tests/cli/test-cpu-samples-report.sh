#!/usr/bin/env bash
# CPU samples in the reports, from a synthetic builtin-tracer log of a
# first-call setup (trace-tool synth-setup; tests/support/tlogsynth.h): prefill
# spends 60 ms in cuModuleLoadData and 40 ms in host code sampled in Python,
# PyTorch and libc (4 of the 6 libc samples called from PyTorch: PyTorch's;
# 2 with only libc frames: libc/kernel); decode has one PyTorch sample a
# step; one sample falls between the stages. The stage-setup-bound finding
# must cite the sampled breakdown of the time outside CUDA, report.md and
# metrics.json must hold each stage's samples and the sampler's own cost
# (its totals: 105 samples, 20 us each in its handler), and without samples
# everything reads as before; totals without the handler's time (a tracer
# from before it was timed) leave the cost unknown. The tracer's own cost
# record (5 ms in hooks, 1 ms on its threads, of 200 ms CPU time) gives the
# trust section's tracing-cost line and metrics.json's tracer_cost; a log
# without it says the cost was not measured.
set -euo pipefail
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "skip: no trace-tool built"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for v in samples nosamples oldtotals; do
	mkdir -p "$t/$v"
	if [ $v = samples ]; then "$tool" synth-setup "$t/$v"; else "$tool" synth-setup "$t/$v" $v; fi
	"$tool" convert "$t/$v" "$t/$v.sqlite" >/dev/null
	"$LLMPROF" report --trace "$t/$v.sqlite" -o "$t/r-$v" >/dev/null 2>"$t/err" ||
		fail "report $v: $(cat "$t/err")"
done
r=$t/r-samples
[ "$(sqlite3 "$t/samples.sqlite" "SELECT count(*) FROM LLMPROF_CPU_SAMPLES")" = 105 ] ||
	fail "samples in the database"

grep -qF '40.003 ms outside CUDA: sampled (40 samples) 60.0% Python interpreter, 35.0% PyTorch (`libtorch_cpu.so+0x1000`), 5.0% libc/kernel (`libc.so.6+0x2000`). Recommendation:' \
	"$r/report.md" || fail "finding: $(grep stage-setup-bound "$r/report.md")"
grep -qF '60.000 ms in CUDA API calls (`cuModuleLoadData` 60.000 ms' "$r/report.md" ||
	fail "the API split is gone"
grep -qF 'prefill: 100 samples (100.000 ms of its 100.003 ms of CPU time); 40 outside CUDA API calls (40.000 ms)' \
	"$r/report.md" || fail "prefill caption"
grep -qF '| CUDA driver | 60 | 60.000 | 60.0% | `libcuda.so.1+0x100` |' "$r/report.md" ||
	fail "category row"
grep -qF '| `Python interpreter` | libpython3.11.so.1.0 | 24 | 24.0% |' "$r/report.md" ||
	fail "Python without symbols reads as the interpreter"
grep -qF '| PyTorch | 14 | 14.000 | 14.0% | `libtorch_cpu.so+0x1000` |' "$r/report.md" ||
	fail "libc called from PyTorch is PyTorch's"
grep -qF '| libc/kernel | 2 | 2.000 | 2.0% | `libc.so.6+0x2000` |' "$r/report.md" ||
	fail "a libc-only stack is libc/kernel"
sqlite3 -separator '|' "$t/samples.sqlite" "SELECT periodNs, method, samples, dropped,
	threads, handlerNs, handlerCalls, sampledNs FROM LLMPROF_CPU_SAMPLER" >"$t/sampler"
[ "$(cat "$t/sampler")" = "1000000|libunwind|105|0|1|2100000|105|105000000" ] ||
	fail "sampler row: $(cat "$t/sampler")"
grep -qxF 'Sampler cost: 2.100 ms in 105 samples (20.0 us each) = 2.0% of the sampled CPU time (105.000 ms), timed inside its signal handler.' \
	"$r/report.md" || fail "sampler cost line: $(grep -i 'sampler cost' "$r/report.md")"
grep -qF '<p>Sampler cost: 2.100 ms in 105 samples' "$r/report.html" || fail "sampler cost in report.html"
grep -qF 'decode: 4 samples (4.000 ms of its' "$r/report.md" || fail "decode caption"
grep -qF '| PyTorch | 4 | 4.000 | 100.0% | `libtorch_cpu.so+0x1800` |' "$r/report.md" ||
	fail "decode category row"
python3 - "$r/metrics.json" <<'PY' || fail "metrics.json"
import json, sys
m = json.load(open(sys.argv[1]))
st = {s["name"]: s for s in m["stages"]}
p = st["prefill"]["cpu_samples"]
assert p["samples"] == 100 and p["ms"] == 100.0, p
assert [c["name"] for c in p["categories"]] == [
    "CUDA driver", "Python interpreter", "PyTorch", "libc/kernel"], p
assert p["functions"][0] == {"name": "libcuda.so.1+0x100", "library": "libcuda.so.1",
                             "samples": 60, "ms": 60.0}, p
assert p["outside_cuda_samples"] == 40 and p["outside_cuda_ms"] == 40.0, p
assert p["outside_cuda_categories"][0] == {"name": "Python interpreter",
                                           "function": "Python interpreter",
                                           "samples": 24, "ms": 24.0}, p
d = st["decode"]["cpu_samples"]
assert d["samples"] == 4 and d["categories"][0]["name"] == "PyTorch", d
assert d["outside_cuda_samples"] == 4, d
assert m["cpu_sampler"] == {"processes": 1, "samples": 105, "handler_ms": 2.1,
                            "sampled_ms": 105.0, "per_sample_us": 20.0,
                            "share_of_sampled": 0.02}, m["cpu_sampler"]
PY

# without samples: no section, no key, the finding as before
r=$t/r-nosamples
grep -qF '40.003 ms outside CUDA (host code: Python, the framework). Recommendation:' "$r/report.md" ||
	fail "finding without samples: $(grep stage-setup-bound "$r/report.md")"
! grep -q '^## CPU samples' "$r/report.md" || fail "CPU samples section without samples"
! grep -q 'ampled' "$r/report.md" || fail "samples mentioned without samples"
python3 - "$r/metrics.json" <<'PY' || fail "metrics.json without samples"
import json, sys
m = json.load(open(sys.argv[1]))
assert all("cpu_samples" not in s for s in m["stages"]), m["stages"]
assert "cpu_sampler" not in m, m["cpu_sampler"]
PY

# totals from a tracer that did not time its handler: the samples, no cost
r=$t/r-oldtotals
[ "$(sqlite3 "$t/oldtotals.sqlite" "SELECT samples, handlerNs IS NULL, handlerCalls IS NULL
	FROM LLMPROF_CPU_SAMPLER")" = "105|1|1" ] || fail "old totals: cost not unknown"
grep -qF 'prefill: 100 samples (100.000 ms of its' "$r/report.md" || fail "old totals: samples"
! grep -q 'Sampler cost' "$r/report.md" || fail "old totals: a cost line"
python3 - "$r/metrics.json" <<'PY' || fail "metrics.json with old totals"
import json, sys
m = json.load(open(sys.argv[1]))
assert "cpu_sampler" not in m, m["cpu_sampler"]
PY

# a damaged sample table costs the CPU samples, not the report: the trust
# report names the table and why
cp "$t/samples.sqlite" "$t/damaged.sqlite"
sqlite3 "$t/damaged.sqlite" "DROP TABLE LLMPROF_CPU_SAMPLES; CREATE TABLE LLMPROF_CPU_SAMPLES (junk TEXT)"
"$LLMPROF" report --trace "$t/damaged.sqlite" -o "$t/r-damaged" >/dev/null 2>"$t/err" ||
	fail "report on a damaged sample table: $(cat "$t/err")"
grep -q '^## CPU samples' "$t/r-damaged/report.md" && fail "damaged: a CPU samples section"
grep -q 'CPU-sample table unreadable, no CPU samples reported (no such column: globalTid)' \
	"$t/r-damaged/report.md" || fail "damaged: no trust item: $(grep -i sample "$t/r-damaged/report.md")"
python3 - "$t/r-damaged/metrics.json" <<'PY' || fail "damaged: metrics.json trust item"
import json, sys
m = json.load(open(sys.argv[1]))
assert [t for t in m["trust"] if t["code"] == "cpu-samples-unreadable" and t["count"] == 1], m["trust"]
PY

# the tracer's cost: measured in every variant (the record is there), and a
# log without it (the record dropped from the database) says so
grep -qF 'Tracing cost: about 3.0% of the program'"'"'s CPU time (5.000 ms in 40 tracer hooks on its threads: 3.000 ms CUDA API callbacks, 1.500 ms NVTX; 1.000 ms on the tracer'"'"'s own threads, CUPTI buffers and log flushes; of 200.000 ms CPU time in 1 process), timed by the tracer itself.' \
	"$r/report.md" || fail "tracing-cost line: $(grep 'Tracing cost' "$r/report.md")"
grep -qF 'Tracing cost: about 3.0%' "$r/report.html" || fail "tracing-cost line in report.html"
python3 - "$r/metrics.json" <<'PY' || fail "metrics.json tracer_cost"
import json, sys
c = json.load(open(sys.argv[1]))["tracer_cost"]
assert c["basis"] == "measured" and c["hooks"] == 40 and c["background"] == 5, c
assert abs(c["hooks_ms"] - 5) < 1e-9 and abs(c["background_ms"] - 1) < 1e-9, c
assert abs(c["cpu_ms"] - 200) < 1e-9 and abs(c["share_of_cpu"] - 0.03) < 1e-12, c
PY
cp "$t/samples.sqlite" "$t/nocost.sqlite"
sqlite3 "$t/nocost.sqlite" "DROP TABLE LLMPROF_TRACER_COST"
"$LLMPROF" report --trace "$t/nocost.sqlite" -o "$t/r-nocost" >/dev/null 2>"$t/err" ||
	fail "report nocost: $(cat "$t/err")"
grep -qF 'Tracing cost: not measured (no process of the program wrote' "$t/r-nocost/report.md" ||
	fail "no cost record: $(grep 'Tracing cost' "$t/r-nocost/report.md")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["tracer_cost"] == {"basis": "not_recorded"}' \
	"$t/r-nocost/metrics.json" || fail "metrics.json without the record"
echo ok
