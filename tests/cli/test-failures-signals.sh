#!/usr/bin/env bash
# Failure matrix, SIGINT and SIGTERM sent to llmprof profile in every step:
# during the GPU probe (before the bundle exists), during provenance (a
# tool's --version hangs), during the workload (with a grandchild), during
# an --echo flood, a second Ctrl-C for a child that ignores the first, at
# exact points (right before the workload starts, as the trace step
# begins), and a sweep of delays across the whole run. Always: exit 130,
# status.json valid with state interrupted, no temporary file, no process
# left.
set -u
. "$(dirname "$0")/failures-lib.sh"
mkdir -p fakebin

# interrupt SIG PIDFILE ARGS...: start profile, wait for PIDFILE, send SIG.
interrupt() {
	local sig=$1 pidfile=$2
	shift 2
	rm -f "$pidfile"
	"$LLMPROF" profile "$@" >out 2>err &
	local p=$!
	wait_file "$pidfile" || { kill -KILL $p; fail "$pidfile never written: $(cat err)"; }
	kill "-$sig" $p
	wait $p
}

# 1. during the GPU probe (nvidia-smi hangs): the probe is killed at once
printf '#!/bin/sh\necho $$ >"%s/smi.pid"\nexec sleep 60\n' "$tmp" >fakebin/slow-smi
chmod +x fakebin/slow-smi
for sig in INT TERM; do
	start=$(date +%s)
	LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=$tmp/fakebin/slow-smi \
		interrupt $sig smi.pid artifacts.root="$tmp/probe" -- /bin/true
	rc=$?
	[ $rc -eq 130 ] || fail "SIG$sig in GPU probe: exit $rc: $(cat err)"
	[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ $(($(date +%s) - start)) -lt 10 ] || fail "SIG$sig in GPU probe: waited for the probe"
	alive "$(cat smi.pid)" && fail "SIG$sig in GPU probe: nvidia-smi left running"
	run=$(last_run out)
	check_bundle "$run" interrupted 130
	[ "$(step_field "$run" workload message)" = "not run: llmprof was interrupted" ] ||
		fail "probe: workload step: $(step_field "$run" workload message)"
done

# 2. during provenance: 'nsys --version' hangs
printf '#!/bin/sh\necho $$ >"%s/nsys.pid"\nexec sleep 60\n' "$tmp" >fakebin/nsys
chmod +x fakebin/nsys
PATH=$tmp/fakebin:$PATH LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= \
	interrupt TERM nsys.pid artifacts.root="$tmp/prov" -- /bin/true
rc=$?
[ $rc -eq 130 ] || fail "SIGTERM in provenance: exit $rc: $(cat err)"
alive "$(cat nsys.pid)" && fail "SIGTERM in provenance: nsys --version left running"
check_bundle "$(last_run out)" interrupted 130
rm fakebin/nsys

export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=

# 3. during the workload, which has a background grandchild
for sig in INT TERM; do
	interrupt $sig c.pid artifacts.root="$tmp/w" -- /bin/sh -c \
		'sleep 60 & echo $! >gc.pid; echo $$ >c.pid; wait'
	rc=$?
	[ $rc -eq 130 ] || fail "SIG$sig in workload: exit $rc"
	grep -q "workload: interrupted by SIG$sig" err || fail "SIG$sig message: $(cat err)"
	run=$(last_run out)
	check_bundle "$run" interrupted 130
	[ "$(step_field "$run" workload state)" = interrupted ] || fail "step not interrupted"
	alive "$(cat c.pid)" && fail "SIG$sig: child left running"
	alive "$(cat gc.pid)" && fail "SIG$sig: grandchild left running"
done

# 4. a child that ignores SIGINT: the second Ctrl-C kills it at once
rm -f c.pid
"$LLMPROF" profile artifacts.root="$tmp/w" -- /bin/sh -c \
	'trap "" INT; echo $$ >c.pid; while :; do sleep 0.1; done' >out 2>err &
p=$!
wait_file c.pid || fail "ignoring child did not start"
kill -INT $p
sleep 0.5
alive $p || fail "llmprof exited although its child ignored SIGINT"
kill -INT $p
start=$(date +%s)
wait $p
rc=$?
[ $rc -eq 130 ] || fail "second SIGINT: exit $rc"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ $(($(date +%s) - start)) -lt 3 ] || fail "second SIGINT did not kill at once"
check_bundle "$(last_run out)" interrupted 130
alive "$(cat c.pid)" && fail "child ignoring SIGINT survived the second one"

# 5. during an --echo flood (llmprof is busy copying)
rm -f c.pid
"$LLMPROF" profile --echo artifacts.root="$tmp/w" -- /bin/sh -c \
	'echo $$ >c.pid; exec cat /dev/zero' 2>err > >(tail -c 300 | tr -d '\0' >out) &
p=$!
wait_file c.pid || fail "flood did not start"
sleep 0.3
kill -INT $p
wait $p
rc=$?
[ $rc -eq 130 ] || fail "SIGINT in --echo flood: exit $rc"
for _ in $(seq 100); do grep -q '^run: ' out 2>/dev/null && break; sleep 0.05; done
run=$(last_run out)
check_bundle "$run" interrupted 130
alive "$(cat c.pid)" && fail "flooding child left running"

# 6. a signal at one exact point (tests/progs/raise-at-shim.c, preloaded
# into llmprof): no timed kill hits these windows every time
b=${LLMPROF_BUILD_DIR:?}
shim=$b/tests/raise-at-shim.so
[ -f "$shim" ] || fail "raise-at-shim.so not built"
# raise_at WHERE TIMES ARGS...: profile with the shim sending SIGINT at WHERE
raise_at() {
	local where=$1 times=$2
	shift 2
	# the shim is not instrumented: under ASan it loads before the runtime
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$shim \
		LLMPROF_TEST_RAISE_AT=$where LLMPROF_TEST_RAISE_TIMES=$times \
		"$LLMPROF" profile "$@" >out 2>err
}
# 6a. after the last file written before the workload starts (status.json,
# then logs/workload.env): the Ctrl-C came after the step loop looked for
# one and before the child's handlers existed; it used to be noted and never
# acted on, and llmprof waited for the program to end (sleep 60 here)
rm -f c.pid
raise_at rename:workload.env 1 artifacts.root="$tmp/w6" -- /bin/sh -c 'echo $$ >c.pid; sleep 60'
rc=$?
[ $rc -eq 130 ] || fail "SIGINT before the workload: exit $rc: $(cat err)"
grep -q "workload: interrupted by SIGINT" err || fail "SIGINT before the workload: $(cat err)"
run=$(last_run out)
check_bundle "$run" interrupted 130
[ "$(step_field "$run" workload state)" = interrupted ] ||
	fail "SIGINT before the workload: step $(step_field "$run" workload state)"
[ -s c.pid ] && alive "$(cat c.pid)" && fail "SIGINT before the workload: child left"
# 6b. as the trace step creates trace.sqlite: the conversion of a 180,000-
# record log stops (it used to run to its end); twice: the same, at once
tool=$b/tests/trace-tool
for times in 1 2; do
	raise_at create:trace.sqlite.tmp $times artifacts.root="$tmp/w6" -- \
		/bin/sh -c 'exec "$0" synth "$LLMPROF_TRACE_OUT" 20000 1' "$tool"
	rc=$?
	[ $rc -eq 130 ] || fail "SIGINT x$times in the trace step: exit $rc: $(cat err)"
	grep -q "trace: interrupted by SIGINT" err || fail "trace step: $(cat err)"
	run=$(last_run out)
	check_bundle "$run" interrupted 130
	[ "$(step_field "$run" trace state)" = interrupted ] ||
		fail "SIGINT x$times in the trace step: $(step_field "$run" trace state)"
	[ "$(step_field "$run" analyze state)" = skipped ] || fail "analyze ran after the interrupt"
	[ ! -e "$run/trace/trace.sqlite" ] || fail "trace.sqlite written after the interrupt"
	[ -s "$run/trace/log/trace-4242.bin" ] || fail "the tracer log was lost"
done

# 7. a sweep: SIGTERM after 0 .. 0.4 s, wherever the run is then
seen=
shell=$(readlink -f "$BASH")
for d in 0 0.005 0.01 0.02 0.04 0.08 0.15 0.25 0.31 0.33 0.36 0.4 0.5 0.7; do
	rm -f c.pid
	"$LLMPROF" profile artifacts.root="$tmp/sweep" -- /bin/sh -c 'echo $$ >c.pid; sleep 0.3' \
		>out 2>err &
	p=$!
	# count from llmprof's exec: a signal to the forked shell before it
	# would test bash (and run this script's EXIT trap there)
	for _ in $(seq 500); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" != "$shell" ] && break
		sleep 0.002
	done
	sleep $d
	kill -TERM $p 2>/dev/null
	wait $p
	rc=$?
	run=$(last_run out)
	case $rc in
	130) [ -z "$run" ] || check_bundle "$run" interrupted 130 ;;
	0) check_bundle "$run" ok 0 ;; # finished before the signal
	143) # killed before its handlers were installed (while parsing the
	     # command line and config): nothing may exist yet
		[ -z "$run" ] || fail "SIGTERM after $d s: killed, yet it printed a bundle" ;;
	*) fail "SIGTERM after $d s: exit $rc: $(cat err)" ;;
	esac
	[ -s c.pid ] && alive "$(cat c.pid)" && fail "SIGTERM after $d s: child left"
	ls "$tmp/sweep" 2>/dev/null | grep -q '\.tmp\.' && fail "SIGTERM after $d s: temp file in root"
	seen="$seen $rc"
done
echo "sweep exit codes:$seen"
# every bundle the sweep left is complete (also those of killed-early runs: none)
for run in "$tmp"/sweep/2*; do
	[ -d "$run" ] || continue
	st=$(json "$run/status.json" 'd["state"]')
	check_bundle "$run" "$st" -
	[ "$st" = ok ] || [ "$st" = interrupted ] || fail "sweep bundle $run: $st"
done
echo ok
