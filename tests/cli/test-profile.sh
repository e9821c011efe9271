#!/usr/bin/env bash
# `llmprof profile` end to end with plain programs as the workload: exit
# codes, the bundle's files, exact argv bytes, dry run, SIGINT, timeout,
# a missing built-in workload, and status.json after kill -9.
set -u
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }

cd "$tmp" || exit 1

# 1. a failing workload: exit 1, bundle kept, status says why
"$LLMPROF" profile artifacts.root="$tmp/a" -- /bin/false >out 2>err
rc=$?
[ $rc -eq 1 ] || fail "/bin/false: exit $rc, want 1"
run=$(last_run out)
[ -d "$run" ] || fail "last line is not 'run: <dir>': $(tail -n 1 out)"
case $run in "$tmp"/a/[0-9]*-[0-9]*-[0-9a-f]*) ;; *) fail "bad run dir $run";; esac
[ "$(json "$run/status.json" 'd["state"]')" = failed ] || fail "state not failed"
[ "$(json "$run/status.json" 'd["exit_code"]')" = 1 ] || fail "exit_code not 1"
[ "$(json "$run/status.json" 'd["steps"][2]["name"]')" = workload ] || fail "no workload step"
[ "$(json "$run/status.json" 'd["steps"][2]["state"]')" = failed ] || fail "step not failed"
[ "$(json "$run/status.json" 'd["steps"][2]["exit_status"]')" = 1 ] || fail "exit_status not 1"
grep -q "workload: exited with status 1" err || fail "no error line: $(cat err)"

# 2. arguments arrive byte for byte; the bundle has its files
"$LLMPROF" profile artifacts.root="$tmp/a" -- /usr/bin/printf '%s|' 'a b' '$(id)' 'q"t' >out 2>err ||
	fail "printf run failed: $(cat err)"
run=$(last_run out)
printf '%s' 'a b|$(id)|q"t|' >want
cmp -s want "$run/logs/workload.out" || fail "workload.out: $(cat "$run/logs/workload.out")"
for f in config.yaml env.json inputs.yaml status.json logs/workload.argv logs/workload.env \
	 logs/workload.err; do
	[ -f "$run/$f" ] || fail "missing $f"
done
printf '%s\n' /usr/bin/printf '%s|' 'a b' '$(id)' 'q"t' >want
cmp -s want "$run/logs/workload.argv" || fail "workload.argv: $(cat "$run/logs/workload.argv")"
[ "$(readlink "$tmp/a/latest")" = "$(basename "$run")" ] || fail "latest does not point at $run"
[ "$(json "$run/status.json" 'd["state"]')" = ok ] || fail "state not ok"
[ "$(json "$run/env.json" 'd["argv"][-1]')" = 'q"t' ] || fail "env.json argv"
grep -q '^  kind: command' "$run/config.yaml" || fail "config.yaml does not say kind: command"
grep -q '^    - "\$(id)"$' "$run/inputs.yaml" || fail "inputs.yaml argv: $(cat "$run/inputs.yaml")"
ls "$run" | grep -q '\.tmp\.' && fail "temp files left in $run"

# 2b. llmprof started with stdout closed: the workload's log still works
"$LLMPROF" profile artifacts.root="$tmp/closed" -- /bin/echo hello >&- 2>err
[ "$(cat "$tmp"/closed/latest/logs/workload.out)" = hello ] || fail "log with stdout closed"

# 2c. a program named without a path is recorded with the path it was found at
"$LLMPROF" profile artifacts.root="$tmp/a" -- true >out 2>err || fail "true"
grep -qx "  path: \"$(type -P true)\"" "$(last_run out)/inputs.yaml" ||
	fail "inputs.yaml path: $(cat "$(last_run out)/inputs.yaml")"

# 3. dry run: prints the argv, creates nothing
"$LLMPROF" profile --dry-run artifacts.root="$tmp/dry" -- /bin/echo 'x y' >out 2>err ||
	fail "dry run failed: $(cat err)"
grep -qx "  argv: /bin/echo 'x y'" out || fail "dry run output: $(cat out)"
[ ! -e "$tmp/dry" ] || fail "dry run created $tmp/dry"

# 4. relative artifacts.root resolves against the current directory
"$LLMPROF" profile artifacts.root=rel/x -- /bin/true >out 2>err || fail "relative root run failed"
case $(last_run out) in "$tmp"/rel/x/*) ;; *) fail "relative root not absolute: $(tail -n 1 out)";; esac

# 5. SIGINT while the workload runs: exit 130, status interrupted, child gone
"$LLMPROF" profile artifacts.root="$tmp/int" -- /bin/sh -c 'echo $$ >"$0"; exec sleep 30' \
	"$tmp/child.pid" >out 2>err &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/child.pid" ] && break; sleep 0.05; done
[ -s "$tmp/child.pid" ] || fail "workload did not start"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, want 130"
run=$(last_run out)
[ "$(json "$run/status.json" 'd["state"]')" = interrupted ] || fail "state not interrupted"
[ "$(json "$run/status.json" 'd["steps"][2]["state"]')" = interrupted ] || fail "step not interrupted"
child=$(cat "$tmp/child.pid")
for _ in $(seq 100); do kill -0 "$child" 2>/dev/null || break; sleep 0.05; done
kill -0 "$child" 2>/dev/null && { kill -9 "$child"; fail "workload $child survived SIGINT"; }

# 5b. SIGTERM is forwarded the same way
rm -f "$tmp/child.pid"
"$LLMPROF" profile artifacts.root="$tmp/int" -- /bin/sh -c 'echo $$ >"$0"; exec sleep 30' \
	"$tmp/child.pid" >out 2>err &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/child.pid" ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGTERM: exit $rc, want 130"
json "$(last_run out)/status.json" 'd["steps"][2]["message"]' | grep -qx "interrupted by SIGTERM" ||
	fail "SIGTERM message"

# 5c. --echo copies the child's output to our stdout/stderr and still logs it
"$LLMPROF" profile --echo artifacts.root="$tmp/echo" -- /bin/sh -c 'echo to-out; echo to-err >&2' \
	>out 2>err || fail "--echo run failed"
[ "$(head -n 1 out)" = to-out ] || fail "--echo stdout: $(cat out)"
grep -qx to-err err || fail "--echo stderr: $(cat err)"
run=$(last_run out)
[ "$(cat "$run/logs/workload.out")" = to-out ] || fail "--echo log"
[ "$(cat "$run/logs/workload.err")" = to-err ] || fail "--echo err log"

# 6. run.timeout_s: exit 124, status timeout, well before the sleep ends
start=$(date +%s)
"$LLMPROF" profile artifacts.root="$tmp/to" run.timeout_s=1 -- sleep 30 >out 2>err
rc=$?
[ $rc -eq 124 ] || fail "timeout: exit $rc, want 124"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "timeout took too long"
run=$(last_run out)
[ "$(json "$run/status.json" 'd["state"]')" = timeout ] || fail "state not timeout"
[ "$(json "$run/status.json" 'd["steps"][2]["signal_name"]')" = SIGTERM ] || fail "not ended by SIGTERM"

# 7. a program that cannot be executed is a workload failure with the reason
"$LLMPROF" profile artifacts.root="$tmp/a" -- /nonexistent/prog >out 2>err
[ $? -eq 1 ] || fail "exec failure: exit not 1"
json "$(last_run out)/status.json" 'd["steps"][2]["message"]' | grep -q "cannot execute '/nonexistent/prog': No such file" ||
	fail "exec failure message"
json "$(last_run out)/status.json" '"exit_status" in d["steps"][2]' | grep -qx False ||
	fail "exec failure recorded an exit status"

# 8. built-in workload missing: exit 4, clear message, no bundle
LLMPROF_WORKLOADS_DIR=$tmp/none "$LLMPROF" profile artifacts.root="$tmp/bi" workload=dummy >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "missing built-in: exit $rc, want 4"
grep -q "built-in workload '$tmp/none/llmprof-dummy' not found" err || fail "message: $(cat err)"
[ ! -e "$tmp/bi" ] || fail "a bundle was created for a run that could not start"

# 9. usage and config errors
"$LLMPROF" profile -- >/dev/null 2>&1; [ $? -eq 2 ] || fail "'profile --' is not a usage error"
"$LLMPROF" profile /bin/true >/dev/null 2>err; [ $? -eq 2 ] || fail "a bare program is not a usage error"
grep -q "put it after '--'" err || fail "no hint for a bare program: $(cat err)"
"$LLMPROF" profile artifacts.root="$tmp/c" no.such.key=1 -- /bin/true >/dev/null 2>&1
[ $? -eq 3 ] || fail "unknown key is not a config error"

# 10. kill -9 of llmprof leaves a valid status.json that says running
"$LLMPROF" profile artifacts.root="$tmp/k" -- /bin/sh -c 'echo $$ >"$0"; exec sleep 30' \
	"$tmp/k.pid" >out 2>err &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/k.pid" ] && break; sleep 0.05; done
{ kill -9 $pid; wait $pid; } 2>/dev/null
kill "$(cat "$tmp/k.pid")" 2>/dev/null
st=$(ls -d "$tmp"/k/2*/status.json)
[ "$(json "$st" 'd["state"]')" = running ] || fail "status after kill -9"
[ "$(json "$st" 'd["steps"][2]["state"]')" = running ] || fail "step after kill -9"
echo "ok"
