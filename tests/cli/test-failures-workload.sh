#!/usr/bin/env bash
# Failure matrix, the profiled program (docs/exit-codes.md "Failure
# matrix"): missing, not executable, non-zero exit, killed by a signal,
# hangs past run.timeout_s (also ignoring SIGTERM, with a grandchild),
# floods stdout with gigabytes, awkward arguments, two profiles at once.
set -u
. "$(dirname "$0")/failures-lib.sh"
A=artifacts.root=$tmp/a

# 1. missing program: exit 1, the errno from execve, bundle failed
"$LLMPROF" profile "$A" -- /nonexistent/prog >out 2>err; rc=$?
expect 1 $rc err "^llmprof: error: workload: cannot execute '/nonexistent/prog': No such file or directory"
run=$(last_run out)
check_bundle "$run" failed 1
[ "$(step_field "$run" workload state)" = failed ] || fail "missing: step not failed"
[ "$(step_field "$run" workload exit_status)" = None ] || fail "missing: an exit status was recorded"

# 2. not executable (no x bit: root cannot execute it either)
printf '#!/bin/sh\necho hi\n' >noexec && chmod 0644 noexec
"$LLMPROF" profile "$A" -- ./noexec >out 2>err; rc=$?
expect 1 $rc err "cannot execute './noexec': Permission denied"
check_bundle "$(last_run out)" failed 1

# 2b. a directory as the program
"$LLMPROF" profile "$A" -- /tmp >out 2>err; rc=$?
expect 1 $rc err "cannot execute '/tmp': Permission denied"
check_bundle "$(last_run out)" failed 1

# 3. exits non-zero: exit 1, the status kept, its output logged
"$LLMPROF" profile "$A" -- /bin/sh -c 'echo partial; echo oops >&2; exit 3' >out 2>err; rc=$?
expect 1 $rc err "^llmprof: error: workload: exited with status 3 "
run=$(last_run out)
check_bundle "$run" failed 1
[ "$(step_field "$run" workload exit_status)" = 3 ] || fail "exit_status not 3"
[ "$(cat "$run/logs/workload.out")" = partial ] || fail "workload.out lost"
[ "$(cat "$run/logs/workload.err")" = oops ] || fail "workload.err lost"

# 4. killed by a signal it did not get from llmprof
"$LLMPROF" profile "$A" -- /bin/sh -c 'kill -SEGV $$' >out 2>err; rc=$?
expect 1 $rc err "workload: killed by signal 11 \(SIGSEGV\)"
run=$(last_run out)
check_bundle "$run" failed 1
[ "$(step_field "$run" workload signal_name)" = SIGSEGV ] || fail "signal_name"
"$LLMPROF" profile "$A" -- /bin/sh -c 'kill -KILL $$' >out 2>err; rc=$?
expect 1 $rc err "workload: killed by signal 9 \(SIGKILL\)"

# 5. hangs past run.timeout_s; its background grandchild goes too
"$LLMPROF" profile "$A" run.timeout_s=1 -- /bin/sh -c 'sleep 60 & echo $! >gc.pid; sleep 60' \
	>out 2>err; rc=$?
expect 124 $rc err "workload: timed out after 1 s \(ended by SIGTERM\)"
run=$(last_run out)
check_bundle "$run" timeout 124
alive "$(cat gc.pid)" && fail "timeout: grandchild $(cat gc.pid) outlived the run"

# 5b. ...and ignores SIGTERM: SIGKILL 5 s later
start=$(date +%s)
to=0.5 # the child must reach its trap first: slower under valgrind
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] && to=3
"$LLMPROF" profile "$A" run.timeout_s=$to -- /bin/sh -c 'trap "" TERM; echo $$ >c.pid; while :; do sleep 0.1; done' \
	>out 2>err; rc=$?
expect 124 $rc err "timed out after $to s \(ended by SIGKILL\)"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ $(($(date +%s) - start)) -lt 15 ] || fail "SIGKILL came late"
check_bundle "$(last_run out)" timeout 124
alive "$(cat c.pid)" && fail "a child that ignores SIGTERM survived"

# 6. floods stdout: 2 GiB into the log, every byte, llmprof's memory flat
/usr/bin/time -f %M -o rss "$LLMPROF" profile "$A" -- /bin/sh -c 'head -c 2147483648 /dev/zero' \
	>out 2>err || fail "flood: $(cat err)"
run=$(last_run out)
[ "$(stat -c %s "$run/logs/workload.out")" = 2147483648 ] || fail "flood: log size"
rm -f "$run/logs/workload.out"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ "$(cat rss)" -lt 65536 ] || fail "flood: llmprof max RSS $(cat rss) KiB"
# ...through --echo (llmprof copies every chunk): 1 GiB on stdout, memory flat
/usr/bin/time -f %M -o rss "$LLMPROF" profile --echo "$A" -- /bin/sh -c 'head -c 1073741824 /dev/zero' \
	2>err | tail -c 300 | tr -d '\0' >out || fail "flood --echo: $(cat err)"
run=$(last_run out)
[ "$(stat -c %s "$run/logs/workload.out")" = 1073741824 ] || fail "flood --echo: log size"
rm -f "$run/logs/workload.out"
[ -n "${LLMPROF_UNDER_VALGRIND:-}" ] || [ "$(cat rss)" -lt 65536 ] || fail "flood --echo: llmprof max RSS $(cat rss) KiB"

# 7. arguments with spaces, quotes, $(), newlines, invalid UTF-8
bad=$(printf 'bad\xff\xfe')
nl=$(printf 'two\nlines')
"$LLMPROF" profile "$A" -- /usr/bin/printf '[%s]' 'a b' "q\"t'" '$(id)' '`id`' "$nl" "$bad" '' \
	>out 2>err || fail "awkward args: $(cat err)"
run=$(last_run out)
check_bundle "$run" ok 0
printf '[%s]' 'a b' "q\"t'" '$(id)' '`id`' "$nl" "$bad" '' >want
cmp -s want "$run/logs/workload.out" || fail "args changed on the way: $(od -c "$run/logs/workload.out" | head)"
printf '%s\n' /usr/bin/printf '[%s]' 'a b' "q\"t'" '$(id)' '`id`' 'two\nlines' 'bad\xff\xfe' '' >want
cmp -s want "$run/logs/workload.argv" || fail "workload.argv: $(cat "$run/logs/workload.argv")"
python3 - "$run" <<'PY' || fail "awkward args in env.json/inputs.yaml"
import json, sys, yaml
run = sys.argv[1]
argv = json.load(open(run + "/env.json", encoding="utf-8"))["argv"]
assert argv[-3] == "two\nlines" and argv[-2] == "bad\ufffd\ufffd" and argv[-1] == "", argv
w = yaml.safe_load(open(run + "/inputs.yaml", encoding="utf-8"))["workload"]["argv"]
assert w[5] == "`id`" and w[6] == "two\nlines" and w[7] == "bad\ufffd\ufffd", w
PY
# ...and in overrides: a string value with all of them is kept, not run
"$LLMPROF" profile "$A" "+run.note=x \$(touch pwned) \"q\" $bad" -- /bin/true >out 2>err; rc=$?
[ ! -e pwned ] || fail "an override value was run by a shell"
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "odd override: exit $rc: $(cat err)"

# 8. two profiles at once: two distinct bundles, both complete
for i in 1 2 3 4; do
	"$LLMPROF" profile artifacts.root="$tmp/par" -- /bin/sh -c "sleep 0.3; echo run$i" \
		>"par$i.out" 2>"par$i.err" &
done
wait
runs=$(for i in 1 2 3 4; do last_run "par$i.out"; done | sort -u | wc -l)
[ "$runs" = 4 ] || fail "concurrent runs share bundles: $(cat par*.out)"
for i in 1 2 3 4; do
	run=$(last_run "par$i.out")
	check_bundle "$run" ok 0
	[ "$(cat "$run/logs/workload.out")" = "run$i" ] || fail "run $i got another's log"
done
[ -d "$tmp/par/$(readlink "$tmp/par/latest")" ] || fail "latest dangles after concurrent runs"
echo ok
