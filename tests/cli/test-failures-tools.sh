#!/usr/bin/env bash
# Failure matrix, NVIDIA tools: nsys and ncu missing, too old (an old
# version string in the old formats), printing no version, failing, as
# seen by `llmprof doctor` and recorded in a bundle's env.json. Fake tools
# on PATH stand in for NVIDIA's: what is tested is llmprof's handling of
# what they print.
set -u
. "$(dirname "$0")/failures-lib.sh"
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
# no known install location (/opt/nvidia/..., /usr/local/cuda/bin) counts
mkdir -p none old garbage failing sysroot
export LLMPROF_SYSROOT=$tmp/sysroot
base=/usr/bin:/bin
fake() { # dir name script-body
	printf '#!/bin/sh\n%s\n' "$3" >"$1/$2"
	chmod +x "$1/$2"
}

# 1. missing: doctor warns with the fix, exit 0; env.json says why
PATH=$tmp/none:$base "$LLMPROF" doctor >out 2>err
expect 0 $? out "^warn +nsys: nsys not found on PATH nor at $tmp/sysroot/opt/nvidia/nsight-systems/\*/bin/nsys, "
grep -Eq "^warn +ncu: ncu not found on PATH nor at $tmp/sysroot/usr/local/cuda/bin/ncu, $tmp/sysroot/opt/nvidia/nsight-compute/\*/ncu$" out ||
	fail "doctor, ncu missing: $(cat out)"
grep -q "fix: install Nsight Compute and put ncu on PATH, or set pipeline.ncu.path" out ||
	fail "doctor: no fix for a missing ncu"
PATH=$tmp/none:$base "$LLMPROF" profile artifacts.root="$tmp/a" -- /bin/true >out 2>err ||
	fail "profile without nsys/ncu: $(cat err)"
run=$(last_run out)
[ "$(json "$run/env.json" 'd["tools"]["nsys"]["path"]')" = None ] || fail "env.json nsys path"
[ "$(json "$run/env.json" 'd["tools"]["ncu"]["note"]')" = "ncu not found on PATH nor at $tmp/sysroot/usr/local/cuda/bin/ncu, $tmp/sysroot/opt/nvidia/nsight-compute/*/ncu" ] ||
	fail "env.json ncu note: $(json "$run/env.json" 'd["tools"]["ncu"]')"

# 2. too old: the version strings of 2019 releases are parsed exactly; doctor
# warns that they are older than the oldest supported (2023.1), the bundle
# records them, and the steps that need them refuse them (5 and 7)
fake old nsys 'echo "NVIDIA Nsight Systems version 2019.5.1.58-abcdef"'
fake old ncu 'echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Copyright (c) 2018-2019 NVIDIA Corporation"; echo "Version 2019.1.0 (build 1234)"'
PATH=$tmp/old:$base "$LLMPROF" doctor >out 2>err
expect 0 $? out "^warn +nsys: nsys 2019.5.1.58-abcdef is older than 2023.1, the oldest llmprof supports \($tmp/old/nsys\)$"
grep -Eq "^warn +ncu: ncu 2019.1.0 \(build 1234\) is older than 2023.1, the oldest llmprof supports \($tmp/old/ncu\)$" out ||
	fail "doctor, old ncu: $(cat out)"
grep -q "fix: install Nsight Compute 2023.1 or newer, or set pipeline.ncu.path" out || fail "doctor, old ncu fix"
grep -Eq "^warn +nsys importer: no QdstrmImporter next to nsys" out || fail "no importer warning"
PATH=$tmp/old:$base "$LLMPROF" profile artifacts.root="$tmp/a" -- /bin/true >out 2>err || fail "profile"
run=$(last_run out)
[ "$(json "$run/env.json" 'd["tools"]["nsys"]["version"]')" = "2019.5.1.58-abcdef" ] ||
	fail "env.json nsys version: $(json "$run/env.json" 'd["tools"]["nsys"]')"
# a current version is not flagged
mkdir -p cur
fake cur nsys 'echo "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0"'
fake cur ncu 'echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 2024.1.1.0 (build 33998838) (public-release)"'
PATH=$tmp/cur:$base "$LLMPROF" doctor >out 2>err
expect 0 $? out "^ok +nsys: $tmp/cur/nsys \(2023.4.4.54-234433681190v0\)$"
grep -Eq "^ok +ncu: $tmp/cur/ncu \(2024.1.1.0 \(build 33998838\) \(public-release\)\)$" out ||
	fail "doctor, current ncu: $(cat out)"

# 3. prints no version / exits non-zero / prints binary junk
fake garbage nsys 'printf "\377\376 no digits here\n"'
fake garbage ncu 'exit 0'
PATH=$tmp/garbage:$base "$LLMPROF" doctor >out 2>err
expect 0 $? out "^warn +ncu: '$tmp/garbage/ncu --version' printed no version$"
PATH=$tmp/garbage:$base "$LLMPROF" profile artifacts.root="$tmp/a" -- /bin/true >out 2>err || fail "profile"
check_bundle "$(last_run out)" ok 0 # env.json still valid JSON (junk bytes escaped)
fake failing nsys 'echo "error: cannot load libQt6Core" >&2; exit 3'
fake failing ncu 'kill -SEGV $$'
PATH=$tmp/failing:$base "$LLMPROF" doctor >out 2>err
expect 0 $? out "^warn +nsys: '$tmp/failing/nsys --version' exited with status 3$"
grep -Eq "^warn +ncu: '$tmp/failing/ncu --version' killed by signal 11" out ||
	fail "doctor, crashing ncu: $(cat out)"

# 4. the bundle's env.json with a crashing ncu stays valid and says why
PATH=$tmp/failing:$base "$LLMPROF" profile artifacts.root="$tmp/a" -- /bin/true >out 2>err || fail "profile"
run=$(last_run out)
check_bundle "$run" ok 0
json "$run/env.json" 'd["tools"]["ncu"]["note"]' | grep -q "killed by signal 11" ||
	fail "env.json ncu note: $(json "$run/env.json" 'd["tools"]["ncu"]')"
# 5. pipeline.trace.backend=nsys and nsys missing / without its importer:
# exit 4 before any bundle exists
PATH=$tmp/none:$base "$LLMPROF" profile artifacts.root="$tmp/n4" pipeline.trace.backend=nsys -- /bin/true >out 2>err
expect 4 $? err "^llmprof: error: pipeline.trace.backend=nsys: nsys not found on PATH nor at $tmp/sysroot/opt/nvidia/"
[ ! -e "$tmp/n4" ] || fail "backend=nsys without nsys created a bundle"
PATH=$tmp/old:$base "$LLMPROF" profile artifacts.root="$tmp/n4" pipeline.trace.backend=nsys -- /bin/true >out 2>err
expect 4 $? err "^llmprof: error: pipeline.trace.backend=nsys: nsys 2019.5.1.58-abcdef is older than 2023.1, the oldest llmprof supports"
[ ! -e "$tmp/n4" ] || fail "backend=nsys with a too old nsys created a bundle"
PATH=$tmp/cur:$base "$LLMPROF" profile artifacts.root="$tmp/n4" pipeline.trace.backend=nsys -- /bin/true >out 2>err
expect 4 $? err "^llmprof: error: pipeline.trace.backend=nsys: nsys 2023.4.4.54-234433681190v0 has no QdstrmImporter next to it"
[ ! -e "$tmp/n4" ] || fail "backend=nsys without the importer created a bundle"

# 6. an nsys that has its importer but fails to profile: the run
# step fails with nsys's diagnosis, later steps are skipped, reports say so
mkdir -p broken
fake broken nsys 'case "$1" in --version) echo "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0";; *) echo "fake nsys: $*" >&2; exit 1;; esac'
fake broken QdstrmImporter 'echo "QdstrmImporter version 2023.4.4"'
PATH=$tmp/broken:$base "$LLMPROF" profile artifacts.root="$tmp/nb" pipeline.trace.backend=nsys -- /bin/true >out 2>err
# (no "Generated:" list and a failing status: nsys's own failure, quoted)
expect 1 $? err "^llmprof: error: workload: exited with status 1; nsys \[nsys-failed\]: nsys exited with status 1 before listing any report, so nothing was recorded; its last message: \"fake nsys: profile "
run=$(last_run out)
check_bundle "$run" failed 1
[ "$(step_field "$run" nsys-export state)" = skipped ] || fail "nsys-export not skipped"
[ "$(step_field "$run" reports state)" = ok ] || fail "no reports after a failed nsys run"
head -n 1 "$run/report.md" | grep -q INCOMPLETE || fail "report.md does not say it is incomplete"
# 7. the ncu step refuses an ncu older than 2023.1 (exit 4, the trace kept)
PATH=$tmp/old:$base "$LLMPROF" profile artifacts.root="$tmp/n7" pipeline.trace.backend=builtin \
	pipeline.ncu.ncu_cli.kernel_name=regex:add -- /bin/true >out 2>err
rc=$?
if [ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ]; then
	expect 4 $rc err "^llmprof: error: ncu: ncu 2019.1.0 \(build 1234\) is older than 2023.1, the oldest llmprof supports \($tmp/old/ncu\); install Nsight Compute 2023.1 or newer, or set pipeline.ncu.path$"
	run=$(last_run out)
	[ "$(step_field "$run" ncu state)" = failed ] || fail "7: ncu step not failed"
	[ "$(step_field "$run" workload state)" = ok ] || fail "7: workload step not kept"
	! grep -q "warning" err || fail "7: warnings: $(cat err)"
fi
echo ok
