#!/usr/bin/env bash
# Nothing the profiled program or a tool probe started outlives llmprof:
# background children of a program that exits by itself (one, fifty, one
# that left the process group with setsid), their output after the end, a
# tool's --version that forks; SIGHUP and SIGQUIT to llmprof are handled
# like SIGTERM, SIGUSR1/SIGUSR2/SIGALRM/SIGPIPE are ignored.
set -u
. "$(dirname "$0")/failures-lib.sh"
mkdir -p bin fakebin
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=

# A sleep under a name no other process has: pgrep -f finds only ours.
mark=llmprof-orphan-$(basename "$tmp")
ln -s "$(command -v sleep)" "bin/$mark"
nap=$tmp/bin/$mark
left() { pgrep -f -- "$mark" >/dev/null; }
cleanup() { pkill -KILL -f -- "$mark" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# profile ARGS...: runs llmprof profile; $rc, out, err, $run
profile() {
	"$LLMPROF" profile artifacts.root="$tmp/r" "$@" >out 2>err
	rc=$?
	run=$(last_run out)
}

# 1. one background sleep, the program exits 3 by itself
profile -- /bin/sh -c "'$nap' 120 & exit 3"
expect 1 $rc err 'workload: exited with status 3; 1 process it left running ended by SIGTERM'
check_bundle "$run" failed 1
left && fail "the background sleep outlived llmprof"
case "$(step_field "$run" workload message)" in
"exited with status 3; 1 process it left running ended by SIGTERM") ;;
*) fail "status.json message: $(step_field "$run" workload message)" ;;
esac

# 2. fork-heavy: fifty background sleeps, exit 0
profile -- /bin/sh -c "for i in \$(seq 50); do '$nap' 120 & done; exit 0"
[ $rc -eq 0 ] || fail "fifty sleeps: exit $rc: $(cat err)"
check_bundle "$run" ok 0
left && fail "$(pgrep -f -- "$mark" | wc -l) of 50 sleeps outlived llmprof"
grep -Eq '^exited with status 0; 50 processes it left running ended by SIGTERM$' \
	<<<"$(step_field "$run" workload message)" ||
	fail "fifty sleeps: message $(step_field "$run" workload message)"

# 3. a child that left the group (setsid) and one that ignores SIGTERM
command -v setsid >/dev/null || skip "no setsid"
start=$(date +%s)
profile -- /bin/sh -c \
	"setsid '$nap' 120 & /bin/sh -c 'trap \"\" TERM; exec \"$nap\" 121' & sleep 0.2; exit 0"
[ $rc -eq 0 ] || fail "setsid: exit $rc: $(cat err)"
left && fail "a child outside the group (or ignoring SIGTERM) outlived llmprof"
grep -Eq 'ended by SIGKILL$' <<<"$(step_field "$run" workload message)" ||
	fail "setsid: message $(step_field "$run" workload message)"

# 4. output after the end never lands in the logs (direct and --echo)
for echo in "" --echo; do
	profile $echo -- /bin/sh -c \
		"echo early; (\"$nap\" 0.5; echo LATE; echo LATE >&2) & exit 0"
	[ $rc -eq 0 ] || fail "late output $echo: exit $rc: $(cat err)"
	grep -q early "$run/logs/workload.out" || fail "early output lost $echo"
	sleep 1
	grep -q LATE "$run/logs/workload.out" "$run/logs/workload.err" out err &&
		fail "output after the end landed in the logs $echo"
done
left && fail "late writer outlived llmprof"

# 5. a tool probe that forks: nsys --version leaves a sleep behind
printf '#!/bin/sh\n"%s" 120 &\necho "NVIDIA Nsight Systems version 2024.1.1"\n' "$nap" \
	>fakebin/nsys
chmod +x fakebin/nsys
start=$(date +%s)
PATH=$tmp/fakebin:$PATH profile pipeline.trace.backend=builtin -- /bin/true
[ $rc -eq 0 ] || fail "forking probe: exit $rc: $(cat err)"
left && fail "the probe's child outlived llmprof"
[ $(($(date +%s) - start)) -lt 5 ] || fail "forking probe: llmprof waited for its child"
rm fakebin/nsys

# 6. SIGHUP and SIGQUIT to llmprof mid-run: like SIGTERM
for sig in HUP QUIT; do
	rm -f c.pid
	"$LLMPROF" profile artifacts.root="$tmp/s" -- /bin/sh -c \
		"'$nap' 60 & echo \$\$ >c.pid; wait" >out 2>err &
	p=$!
	wait_file c.pid || { kill -KILL $p; fail "SIG$sig: workload never started"; }
	kill -$sig $p
	wait $p
	rc=$?
	[ $rc -eq 130 ] || fail "SIG$sig: exit $rc: $(cat err)"
	grep -q "workload: interrupted by SIG$sig" err || fail "SIG$sig message: $(cat err)"
	run=$(last_run out)
	[ -n "$run" ] || fail "SIG$sig: no run: line"
	check_bundle "$run" interrupted 130
	alive "$(cat c.pid)" && fail "SIG$sig: program left running"
	left && fail "SIG$sig: its child left running"
done

# 7. SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE: ignored, the run goes on and ends ok
rm -f c.pid
"$LLMPROF" profile artifacts.root="$tmp/u" -- /bin/sh -c 'echo $$ >c.pid; sleep 0.5' >out 2>err &
p=$!
wait_file c.pid || { kill -KILL $p; fail "ignored signals: workload never started"; }
for sig in USR1 USR2 ALRM PIPE; do kill -$sig $p; done
wait $p
rc=$?
[ $rc -eq 0 ] || fail "SIGUSR1/USR2/ALRM/PIPE: exit $rc: $(cat err)"
check_bundle "$(last_run out)" ok 0
echo ok
