#!/usr/bin/env bash
# Ctrl-C during `llmprof profile`'s ncu step keeps what ncu measured
# (docs/exit-codes.md, "Signals to llmprof"). A stand-in nsys "records" the
# real H100 trace tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite, whose
# decode stage selects two kernels (add, scale): two captures through
# tests/cli/fake-ncu.sh, whose program hangs in one of them.
#  1. the program of capture k0 hangs and gets the interrupt (not ncu):
#     ncu writes its report, k0 is imported, k1 never starts, join and
#     reports run, exit 130, the reports say incomplete, add has counters;
#  2. the program of k1 ignores SIGINT: ncu itself gets it after
#     NCU_INTERRUPT_WAIT_S (10 s), SIGKILL 5 s later; k0's counters kept;
#  3. a second SIGINT: everything ends at once, no join or reports.
set -u
. "$(dirname "$0")/failures-lib.sh"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fake=$src/tests/cli/fake-ncu.sh
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=

mkdir -p bin
. "$src/tests/cli/fake-nsys-lib.sh"
# profile runs the program and "records" nothing; export: the real H100 export
fake_nsys_profile bin "" "	cp \"$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite\" \"\$out\""
# the two decode kernels of the trace, as ncu names them
cat >names <<'EOF'
_Z3addPfPKfi|add(float *, const float *, int)|(4096, 1, 1)|(256, 1, 1)
_Z5scalePffi|scale(float *, float, int)|(4096, 1, 1)|(256, 1, 1)
EOF
# the program: done at once, except under the capture HANG_IN names
cat >prog <<EOF
#!/bin/sh
[ "\${FAKE_NCU_CAPTURE:-}" = "\$HANG_IN" ] || exit 0
[ -z "\${IGNORE_INT:-}" ] || trap '' INT
echo \$\$ >"$tmp/target.pid"
while :; do sleep 0.1; done
EOF
chmod +x prog
export FAKE_NCU_NAMES=$tmp/names
common=(pipeline.trace.backend=nsys pipeline.nsys.path="$tmp/bin/nsys"
	pipeline.ncu.path="$fake" -- "$tmp/prog")

# start_profile ROOT: llmprof in the background ($p), its target's pid ($target)
start_profile() {
	rm -f target.pid
	"$LLMPROF" profile artifacts.root="$tmp/$1" "${common[@]}" >out 2>err &
	p=$!
	wait_file target.pid || { kill -KILL $p; fail "$1: the capture's program never started: $(cat err)"; }
	target=$(cat target.pid)
}
secs() { python3 -c 'import sys,time; print(int(time.time() - float(sys.argv[1])))' "$1"; }

# 1. the program of the first capture gets the interrupt; ncu keeps k0
export FAKE_NCU_LOG=$tmp/log1 HANG_IN=k0
start_profile r1
t0=$(date +%s.%N)
kill -INT $p
wait $p
rc=$?
[ $rc -eq 130 ] || fail "1: exit $rc, want 130: $(cat err)"
[ "$(secs "$t0")" -lt 5 ] || fail "1: took $(secs "$t0") s: ncu was not let finish at once"
run=$(last_run out)
check_bundle "$run" interrupted 130
[ "$(step_field "$run" ncu state)" = interrupted ] || fail "1: ncu state $(step_field "$run" ncu state)"
step_field "$run" ncu message | grep -q "^interrupted by SIGINT after 1 of 2 selected kernels measured (1 ncu result, [0-9.]* s of ncu)$" ||
	fail "1: ncu message: $(step_field "$run" ncu message)"
grep -q "ncu: interrupted by SIGINT after 1 of 2 selected kernels measured.*join and reports still run" err ||
	fail "1: stderr: $(cat err)"
[ "$(step_field "$run" join state)" = ok ] || fail "1: join: $(step_field "$run" join message)"
[ "$(step_field "$run" reports state)" = ok ] || fail "1: reports: $(step_field "$run" reports message)"
[ -s "$run/ncu/raw.csv" ] && [ -s "$run/ncu/k0.ncu-rep" ] || fail "1: no ncu/raw.csv: $(ls "$run/ncu")"
[ ! -e "$run/ncu/k1.ncu-rep" ] && ! grep -q -- "-o|$run/ncu/k1|" log1 || fail "1: capture k1 started"
head -n 1 "$run/report.md" | grep -qx "# Profiling report: INCOMPLETE (step 'ncu' interrupted)" ||
	fail "1: report.md head: $(head -n 1 "$run/report.md")"
grep -q "INCOMPLETE: step 'ncu' was interrupted by SIGINT after 1 of 2 selected kernels measured" "$run/report.md" ||
	fail "1: report.md status line: $(sed -n 3p "$run/report.md")"
grep -q "complete" "$run/stakeholder_summary.md" && ! grep -qi "every report below is complete" "$run"/*.md ||
	fail "1: a report says complete"
python3 - "$run/metrics.json" <<'PY' || fail "1: counters in metrics.json"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["run"]["state"] == "interrupted", m["run"]
ks = {k["name"].split("(")[0]: k for k in m["kernels"]}
assert ks["add"]["counters"] and ks["add"]["counters"]["duration_ns"] is not None, ks["add"]
assert not ks["scale"].get("counters"), ks["scale"]
PY
alive "$target" && fail "1: the program was left running"
# `llmprof report` on the bundle says the same
cp -r "$run" r1copy
"$LLMPROF" report r1copy >/dev/null 2>&1 || fail "1: report"
cmp -s "$run/report.md" r1copy/report.md || fail "1: report.md differs when regenerated"

# 2. the program of k1 ignores SIGINT: ncu gets it after 10 s, SIGKILL 5 s later
export FAKE_NCU_LOG=$tmp/log2 HANG_IN=k1 IGNORE_INT=1
start_profile r2
t0=$(date +%s.%N)
kill -INT $p
wait $p
rc=$?
took=$(secs "$t0")
[ $rc -eq 130 ] || fail "2: exit $rc, want 130: $(cat err)"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || { [ "$took" -ge 9 ] && [ "$took" -le 20 ]; } ||
	fail "2: ended after $took s, want 10 s (ncu's wait) + 5 s (grace)"
run=$(last_run out)
check_bundle "$run" interrupted 130
step_field "$run" ncu message | grep -q "^interrupted by SIGINT after 1 of 2 selected kernels measured" ||
	fail "2: ncu message: $(step_field "$run" ncu message)"
[ "$(step_field "$run" reports state)" = ok ] || fail "2: reports: $(step_field "$run" reports message)"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; assert [x["measured"] for x in r] == [True, False], r' \
	"$run/ncu/measured.json" || fail "2: measured.json: $(cat "$run/ncu/measured.json")"
alive "$target" && fail "2: the program ignoring SIGINT was left running"

# 3. a second SIGINT: SIGKILL at once, no join or reports
export FAKE_NCU_LOG=$tmp/log3
start_profile r3
kill -INT $p
sleep 0.5
alive $p || fail "3: llmprof did not wait for ncu"
t0=$(date +%s.%N)
kill -INT $p
wait $p
rc=$?
[ $rc -eq 130 ] || fail "3: exit $rc, want 130: $(cat err)"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ "$(secs "$t0")" -lt 3 ] || fail "3: the second SIGINT took $(secs "$t0") s"
run=$(last_run out)
check_bundle "$run" interrupted 130
[ "$(step_field "$run" ncu state)" = interrupted ] || fail "3: ncu state $(step_field "$run" ncu state)"
[ "$(step_field "$run" reports message)" = "not run: llmprof was interrupted" ] ||
	fail "3: reports: $(step_field "$run" reports state) $(step_field "$run" reports message)"
alive "$target" && fail "3: the program was left running"

# 4. the one pass (an ncu with per-launch-config) interrupted: its report
# holds both kernels, mapped to their launches, and both get counters
export FAKE_NCU_LOG=$tmp/log4 FAKE_NCU_ONE_PASS=1 HANG_IN=k0
unset IGNORE_INT
start_profile r4
kill -INT $p
wait $p
rc=$?
[ $rc -eq 130 ] || fail "4: exit $rc, want 130: $(cat err)"
run=$(last_run out)
check_bundle "$run" interrupted 130
grep -q -- "|--filter-mode|per-launch-config|" log4 || fail "4: not the one pass: $(grep -- '|-o|' log4)"
step_field "$run" ncu message | grep -q "^interrupted by SIGINT after 2 of 2 selected kernels measured (2 ncu results, " ||
	fail "4: ncu message: $(step_field "$run" ncu message); stderr: $(cat err)"
[ "$(step_field "$run" reports state)" = ok ] || fail "4: reports: $(step_field "$run" reports message)"
python3 - "$run/metrics.json" "$run/ncu/measured.json" <<'PY' || fail "4: counters or results"
import json, sys
m = json.load(open(sys.argv[1]))
ks = {k["name"].split("(")[0]: k for k in m["kernels"]}
for n in ("add", "scale"):
    assert ks[n]["counters"] and ks[n]["counters"]["duration_ns"] is not None, ks[n]
r = json.load(open(sys.argv[2]))["results"]
assert len(r) == 2 and all(x["launch_index"] is not None for x in r), r
PY
alive "$target" && fail "4: the program was left running"
echo ok
