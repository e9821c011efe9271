#!/usr/bin/env bash
# pipeline.trace.reference_run_max_s end to end without a GPU: a program
# that sleeps 1.2 s when it runs under the tracer and 0.3 s without (and
# runs tests/progs/nvtx-test-program, so the tracer loads) is profiled with
# the builtin tracer; the reference step runs it again untraced, with none
# of the variables llmprof adds, and reference.json, status.json, the trust
# section and metrics.json give the ratio of the two wall times, against the
# sleeps the program was told to make. Then: a limit below the traced run
# skips the rerun and says why; 0 (the default) plans no step at all; an
# untraced run that fails costs the run only the ratio (a warning, exit 0);
# --dry-run shows the step.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
so=$b/tracer/libllmprof_tracer.so
nvtx=$b/tests/nvtx-test-program
if [ ! -x "$nvtx" ] || [ ! -f "$so" ]; then
	echo "skip: CUDA toolkit headers absent, tracer or NVTX test program not built"
	exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# What each run saw: the tracer's output directory and the run directory
# (none for the untraced run), one line per run.
cat >"$t/prog.sh" <<SH
#!/bin/sh
"$nvtx" >/dev/null
echo "\${LLMPROF_TRACE_OUT:-none} \${LLMPROF_RUN_DIR:-none} \${NVTX_INJECTION64_PATH:-none}" >>"$t/seen"
if [ -n "\${LLMPROF_TRACE_OUT:-}" ]; then sleep 1.2; else sleep 0.3; fi
[ -z "\${FAIL_UNTRACED:-}" ] || [ -n "\${LLMPROF_TRACE_OUT:-}" ] || exit 3
SH
chmod +x "$t/prog.sh"

profile() { # profile NAME OVERRIDES...: the run dir on stdout
	local name=$1
	shift
	"${LLMPROF:?}" profile artifacts.root="$t/$name" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false "$@" -- "$t/prog.sh" >"$t/$name.out" 2>"$t/$name.err" ||
		fail "$name: exit $?: $(cat "$t/$name.err")"
	sed -n 's/^run: //p' "$t/$name.out"
}

# 1. A reference run.
run=$(profile ref pipeline.trace.reference_run_max_s=60)
[ "$(wc -l <"$t/seen")" = 2 ] || fail "the program ran $(wc -l <"$t/seen") times, not 2"
read -r out1 dir1 inj1 <<<"$(sed -n 1p "$t/seen")"
[ "$out1" != none ] && [ "$dir1" != none ] && [ "$inj1" != none ] ||
	fail "the traced run lacked the tracer: $(sed -n 1p "$t/seen")"
[ "$(sed -n 2p "$t/seen")" = "none none none" ] ||
	fail "the untraced run saw what llmprof adds: $(sed -n 2p "$t/seen")"
[ -f "$run/reference.json" ] || fail "no reference.json"
python3 - "$run" <<'PY' || fail "reference numbers"
import json, sys
run = sys.argv[1]
ref = json.load(open(run + "/reference.json"))
tr, un = ref["traced_wall_s"], ref["untraced_wall_s"]
# the program slept 1.2 s and 0.3 s; process start and the tracer add a
# little to each, a loaded machine more
assert 1.2 <= tr < 5.0 and 0.3 <= un < 4.0 and un < tr, ref
assert abs(ref["ratio"] - tr / un) < 1e-9 and ref["max_s"] == 60, ref
st = json.load(open(run + "/status.json"))
steps = {s["name"]: s for s in st["steps"]}
names = [s["name"] for s in st["steps"]]
assert names.index("reference") == names.index("workload") + 1, names
r = steps["reference"]
assert r["state"] == "ok", r
want = "untraced %.3f s, traced %.3f s: traced/untraced %.3f" % (un, tr, tr / un)
assert r["message"] == want, (r["message"], want)
m = json.load(open(run + "/metrics.json"))
rr = m["tracer_cost"]["reference_run"]
assert abs(rr["traced_wall_s"] - tr) < 1e-3 and abs(rr["untraced_wall_s"] - un) < 1e-3, rr
assert abs(rr["ratio"] - tr / un) < 1e-6, rr
assert m["tracer_cost"]["basis"] == "measured", m["tracer_cost"]
line = [l for l in open(run + "/report.md") if l.startswith("Tracing cost:")]
assert len(line) == 1, line
want = ("Reference run: the program took %.2f s traced and %.2f s untraced, traced/untraced "
        "%.3f (wall time of one run each" % (tr, un, tr / un))
assert want in line[0], (line[0], want)
PY
grep -qF 'Reference run: the program took' "$run/report.html" || fail "not in report.html"
[ -s "$run/logs/reference.argv" ] && [ ! -s "$run/logs/reference.env" ] ||
	fail "the reference step's argv/env logs"
[ "$(cat "$run/logs/reference.argv")" = "$t/prog.sh" ] || fail "reference argv"

# 2. A limit below the traced run: skipped, and why; the program ran once.
: >"$t/seen"
run=$(profile short pipeline.trace.reference_run_max_s=0.2)
[ "$(wc -l <"$t/seen")" = 1 ] || fail "short: the program ran $(wc -l <"$t/seen") times"
[ ! -e "$run/reference.json" ] || fail "short: reference.json"
python3 - "$run" <<'PY' || fail "short: status"
import json, re, sys
st = json.load(open(sys.argv[1] + "/status.json"))
r = {s["name"]: s for s in st["steps"]}["reference"]
assert r["state"] == "skipped", r
assert re.fullmatch(r"the traced run took \d+\.\d s, more than "
                    r"pipeline\.trace\.reference_run_max_s = 0\.2 s", r["message"]), r
m = json.load(open(sys.argv[1] + "/metrics.json"))
assert "reference_run" not in m["tracer_cost"], m["tracer_cost"]
PY
grep -q 'Reference run' "$run/report.md" && fail "short: a ratio in report.md"

# 3. The default: no reference step.
: >"$t/seen"
run=$(profile none)
[ "$(wc -l <"$t/seen")" = 1 ] || fail "default: the program ran twice"
grep -q '"reference"' "$run/status.json" && fail "default: a reference step"

# 4. The untraced run fails: a warning, exit 0, no ratio.
: >"$t/seen"
run=$(FAIL_UNTRACED=1 profile failed pipeline.trace.reference_run_max_s=60)
grep -q 'warning: no tracing-cost ratio: the untraced run: exited with status 3' "$t/failed.err" ||
	fail "failed: the warning: $(cat "$t/failed.err")"
[ ! -e "$run/reference.json" ] || fail "failed: reference.json"
python3 - "$run" <<'PY' || fail "failed: status"
import json, sys
st = json.load(open(sys.argv[1] + "/status.json"))
assert st["state"] == "ok" and st["exit_code"] == 0, st
r = {s["name"]: s for s in st["steps"]}["reference"]
assert r["state"] == "failed" and r["exit_status"] == 3, r
PY

# 5. --dry-run shows the step: the bare program, nothing added.
"$LLMPROF" profile --dry-run pipeline.trace.backend=builtin \
	pipeline.trace.reference_run_max_s=30 -- "$t/prog.sh" >"$t/dry" 2>&1 || fail "dry run"
grep -A3 '^step [0-9]*: reference (optional)' "$t/dry" >"$t/dry-ref" || fail "dry: no step"
grep -qF 'does: the program again, untraced, when the traced run took at most 30 s' "$t/dry-ref" ||
	fail "dry: $(cat "$t/dry-ref")"
grep -qxF "  argv: $t/prog.sh" "$t/dry-ref" || fail "dry argv: $(cat "$t/dry-ref")"
grep -q '  env: ' "$t/dry-ref" && fail "dry: env added"
echo "test-reference-run.sh: all checks passed"
