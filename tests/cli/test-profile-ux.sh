#!/usr/bin/env bash
# profile's command-line conventions: -o DIR (artifacts.root) and its
# conflict with artifacts.root=, -q, -v, llmprof -V, the live status line
# (plain lines in a log, one redrawn line on a terminal, the program's last
# output line or, under the builtin tracer, its NVTX ranges), the two files
# to open after a run, and the tail of a failed workload's stderr.
set -u
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-ux.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
# no timeline: these programs make no CUDA call, and nsys would slow every run
cfg=(pipeline.trace.enable=false)

# 1. -o DIR writes the bundle under DIR, like artifacts.root=DIR
"$LLMPROF" profile -o "$tmp/runs" "${cfg[@]}" -- true >out 2>err || fail "-o: $(cat err)"
run=$(last_run out)
case $run in "$tmp/runs/"*) ;; *) fail "-o: bundle '$run' not under $tmp/runs" ;; esac
grep -q "^  root: $tmp/runs\$" "$run/config.yaml" || fail "-o: config.yaml does not say artifacts.root"
# --output=DIR, and a relative DIR
"$LLMPROF" profile --output=rel/o "${cfg[@]}" -- true >out 2>err || fail "--output=: $(cat err)"
case $(last_run out) in "$tmp/rel/o/"*) ;; *) fail "--output=rel/o: $(cat out)" ;; esac
# a path that YAML would read as something else stays a path
"$LLMPROF" profile -o "null" "${cfg[@]}" -- true >out 2>err || fail "-o null: $(cat err)"
case $(last_run out) in "$tmp/null/"*) ;; *) fail "-o null: $(cat out)" ;; esac
# the same directory twice is fine; two different ones are a usage error
"$LLMPROF" profile -o "$tmp/same" artifacts.root="$tmp/same/" "${cfg[@]}" -- true >out 2>err ||
	fail "-o and an equal artifacts.root: $(cat err)"
"$LLMPROF" profile -o "$tmp/x" artifacts.root="$tmp/y" "${cfg[@]}" -- true >out 2>err
rc=$?
[ $rc -eq 2 ] || fail "-o x artifacts.root=y: exit $rc, want 2"
grep -q "llmprof: error: profile: '-o $tmp/x' and the override artifacts.root=$tmp/y disagree" err ||
	fail "-o conflict message: $(cat err)"
[ ! -e "$tmp/x" ] && [ ! -e "$tmp/y" ] || fail "-o conflict created a folder"
[ ! -s out ] || fail "-o conflict printed on stdout: $(cat out)"
"$LLMPROF" profile -o "$tmp/x" '~artifacts.root' -- true >/dev/null 2>&1
[ $? -eq 2 ] || fail "-o with ~artifacts.root is not a usage error"
"$LLMPROF" profile --dry-run -o "$tmp/dry" "${cfg[@]}" -- true >out 2>err || fail "dry-run -o"
grep -qx "bundle: $tmp/dry/<run_id>" out || fail "dry-run -o: $(cat out)"

# 2. -q: stdout is the run line only, stderr is empty on a clean run
"$LLMPROF" profile -q -o "$tmp/q" "${cfg[@]}" -- sh -c 'echo out; echo err >&2' >out 2>err ||
	fail "-q: $(cat err)"
[ "$(wc -l <out)" -eq 1 ] && grep -q '^run: ' out || fail "-q stdout: $(cat out)"
[ ! -s err ] || fail "-q stderr is not empty: $(cat err)"
# without -q the same run says what it does
"$LLMPROF" profile -o "$tmp/q" "${cfg[@]}" -- true >out 2>err || fail "no -q"
grep -q '^llmprof: run ' err || fail "no 'llmprof: run' line without -q: $(cat err)"
# -q keeps errors (and the failed workload's output)
"$LLMPROF" profile -q -o "$tmp/q" "${cfg[@]}" -- sh -c 'echo why >&2; exit 3' >out 2>err
[ $? -eq 1 ] || fail "-q failing workload: exit code"
grep -q '^llmprof: error: workload: exited with status 3' err || fail "-q hid the error: $(cat err)"
grep -qx '  why' err || fail "-q hid the workload's stderr: $(cat err)"
grep -q '^run: ' out || fail "-q failing workload: no run line"
"$LLMPROF" profile -q -v -- true >/dev/null 2>err
[ $? -eq 2 ] || fail "-q -v is not a usage error"
grep -q "cannot be used together" err || fail "-q -v message: $(cat err)"

# 3. -v: each child's command line and each step's result and time
"$LLMPROF" profile -v -o "$tmp/v" "${cfg[@]}" -- /bin/echo 'a b' >out 2>err || fail "-v: $(cat err)"
grep -q "^llmprof: step 3/[0-9]* workload: running .*/bin/echo 'a b'\$" err ||
	fail "-v: no command line: $(cat err)"
grep -Eq '^llmprof: step 3/[0-9]+ workload: ok in [0-9.]+ s: exited with status 0$' err ||
	fail "-v: no workload result: $(cat err)"
grep -Eq '^llmprof: step [0-9]+/[0-9]+ reports: ok in [0-9.]+ s: ' err || fail "-v: no reports line"
[ "$(tail -n 1 out | cut -c1-5)" = "run: " ] || fail "-v: run line is not last"

# 4. llmprof -V is --version
"$LLMPROF" -V >out || fail "-V"
"$LLMPROF" --version >out2 || fail "--version"
cmp -s out out2 || fail "-V and --version differ: $(cat out) / $(cat out2)"
grep -Eq '^llmprof [0-9]+\.[0-9]+\.[0-9]+ ' out || fail "-V: $(cat out)"
"$LLMPROF" --help | grep -q -- '-V, --version' || fail "--help does not list -V"
"$LLMPROF" profile --help >out
for o in '-o, --output DIR' '-q, --quiet' '-v, --verbose'; do
	grep -q -- "$o" out || fail "profile --help lacks '$o'"
done

# 5. the live status: in a log, a plain line at most every 5 s once a step
# has run that long, with the step, its elapsed time and the program's
# last output line
"$LLMPROF" profile -o "$tmp/s" "${cfg[@]}" -- sh -c 'echo warming up; sleep 7' >out 2>err ||
	fail "sleeping workload: $(cat err)"
# (the total includes the steps before: on a loaded machine they can take seconds)
grep -Eq '^llmprof: step 3/[0-9]+ workload, [5-9] s \(total [0-9]+ s\): last output: warming up$' err ||
	fail "no status line in 7 s: $(cat err)"
n=$(grep -c '^llmprof: step 3/[0-9]* workload, ' err)
[ "$n" -eq 1 ] || fail "$n status lines in 7 s, want 1: $(cat err)"
if LC_ALL=C grep -q $'\r' err; then fail "a carriage return in a log: $(cat -A err)"; fi
# none with -q, none for a quick step
"$LLMPROF" profile -q -o "$tmp/s" "${cfg[@]}" -- sleep 6 >out 2>err || fail "-q sleep"
[ ! -s err ] || fail "-q: status lines: $(cat err)"
"$LLMPROF" profile -o "$tmp/s" "${cfg[@]}" -- true >out 2>err
if grep -q 'workload, ' err; then fail "a status line for a quick step: $(cat err)"; fi
# on a terminal: one line redrawn in place and erased before what follows
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1; then
	script -qc "'$LLMPROF' profile -o '$tmp/t' ${cfg[*]} -- sh -c 'echo tick; sleep 2'" \
		/dev/null >tty.out 2>&1 </dev/null
	LC_ALL=C grep -q $'\r\033\\[Kllmprof: step 3/[0-9]* workload, [0-9] s (total [0-9] s): last output: tick' tty.out ||
		fail "no redrawn status line on a terminal: $(cat -A tty.out)"
	# erased (\r ESC[K) right before the next output line
	# the last drawing is erased: what follows the last "\r ESC[K" is other output
	python3 - tty.out <<'PY' || fail "status line not erased: $(cat -A tty.out)"
import sys
t = open(sys.argv[1], "rb").read()
last = t.rsplit(b"\r\x1b[K", 1)[1]
sys.exit(last.startswith(b"llmprof: step") or not last.strip())
PY
	grep -q '^run: ' tty.out || fail "terminal run: no run line"
	# the built-in LLM under the builtin tracer: the NVTX ranges it is in,
	# read from the tracer's logs (flushed every second) as it runs
	if [ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ] &&
		[ -x "${LLMPROF_BUILD_DIR:-}/workloads/llmprof-llm" ]; then
		# flushed every 200 ms, so a loaded machine still shows a range
		# within the run (the default second can miss a short one); 1,500
		# tokens keep decode open ~0.6 s on an idle CPU (300 gave 85 ms,
		# which a redraw every half second could miss)
		LLMPROF_TRACE_LOG_FLUSH_MS=200 script -qc "'$LLMPROF' profile -o '$tmp/n' model=tiny device=cpu infer.prompt_len=64 \
			infer.max_new_tokens=1500 pipeline.trace.backend=builtin pipeline.ncu.enable=false" \
			/dev/null >tty.out 2>&1 </dev/null
		run=$(tr -d '\r' <tty.out | last_run /dev/stdin)
		took=$(python3 - "$run/status.json" <<'PY' 2>/dev/null || echo 0
import datetime, json, sys
s = [s for s in json.load(open(sys.argv[1]))["steps"] if s["name"] == "workload"][0]
t = lambda k: datetime.datetime.fromisoformat(s[k].replace("Z", "+00:00"))
print(int((t("end") - t("start")).total_seconds() > 2.5))
PY
)
		# redraws of the workload's line: on a starved machine (a loaded
		# 2-core box) a tick can come only once, and then nothing can be
		# judged about its content
		redraws=$(tr '\r' '\n' <tty.out | grep -ac 'step 3/[0-9]* workload, ')
		if [ "$took" = 1 ] && [ "$redraws" -lt 3 ]; then
			echo "note: the status line was drawn only $redraws time(s) in the run: its NVTX stage is not checked"
		elif [ "$took" = 1 ]; then
			LC_ALL=C grep -aq 'workload, [0-9ms ]* (total [0-9ms ]*): NVTX \(prefill\|decode_all\)' tty.out ||
				fail "no NVTX stage on the status line: $(tr '\r' '\n' <tty.out | grep -a 'step 3/')"
		else
			echo "note: the built-in LLM ran under 2.5 s: its NVTX stage is not checked"
		fi
	fi
else
	echo "note: no usable script(1): the terminal mode is not checked"
fi

# 6. after the run, the two files to open, on stderr; run: stays last on stdout
"$LLMPROF" profile -o "$tmp/h" "${cfg[@]}" -- true >out 2>err || fail "hint run"
run=$(last_run out)
grep -qx "llmprof: open $run/stakeholder_summary.md (the one-page summary)" err ||
	fail "no summary hint: $(cat err)"
grep -qx "llmprof: open $run/report.html (the full report, in a browser)" err ||
	fail "no report.html hint: $(cat err)"
[ -f "$run/stakeholder_summary.md" ] && [ -f "$run/report.html" ] || fail "hinted files missing"
[ "$(wc -l <out)" -eq 1 ] || fail "stdout has more than the run line: $(cat out)"
# together on a terminal-like stream, the run line is still the last one
"$LLMPROF" profile -o "$tmp/h" "${cfg[@]}" -- true >both 2>&1 || fail "2>&1 run"
tail -n 1 both | grep -q '^run: ' || fail "run: is not the last line of 2>&1: $(tail -n 3 both)"

# 7. a failed workload: the last 10 lines of its stderr, with the log's path
"$LLMPROF" profile -o "$tmp/f" "${cfg[@]}" -- sh -c \
	'echo to-stdout; for i in $(seq 1 14); do echo "err line $i" >&2; done; exit 3' >out 2>err
[ $? -eq 1 ] || fail "failing workload: exit code"
run=$(last_run out)
grep -qx "llmprof: the last 10 lines of $run/logs/workload.err:" err || fail "no tail header: $(cat err)"
for i in $(seq 5 14); do grep -qx "  err line $i" err || fail "tail lacks line $i: $(cat err)"; done
if grep -q 'err line 4$' err; then fail "tail has more than 10 lines: $(cat err)"; fi
if grep -q 'to-stdout' err; then fail "tail shows stdout while stderr has lines"; fi
# only stdout: its tail; nothing written: no tail
"$LLMPROF" profile -o "$tmp/f" "${cfg[@]}" -- sh -c 'echo only-out; exit 2' >out 2>err
grep -qx "llmprof: the last 1 line of $(last_run out)/logs/workload.out:" err &&
	grep -qx '  only-out' err || fail "no stdout tail: $(cat err)"
"$LLMPROF" profile -o "$tmp/f" "${cfg[@]}" -- false >out 2>err
if grep -q 'the last' err; then fail "a tail for a silent workload: $(cat err)"; fi
# a program that cannot start has no output to show
"$LLMPROF" profile -o "$tmp/f" "${cfg[@]}" -- /nonexistent/prog >out 2>err
if grep -q 'the last' err; then fail "a tail for a program that never ran: $(cat err)"; fi

# the run: line is never lost, glued or split
# - stdout closed: exit 7, the line (with the bundle) on stderr
"$LLMPROF" profile -q -o "$tmp/g" "${cfg[@]}" -- true >&- 2>err
rc=$?
[ $rc -eq 7 ] || fail "stdout closed: exit $rc, want 7: $(cat err)"
grep -Eq "^llmprof: error: cannot write to standard output: it is closed \(run: $tmp/g/[^)]+\)$" err ||
	fail "stdout closed: $(cat err)"
# status.json says the code llmprof exited with, the bundle itself complete
grep -q '"exit_code": 7' "$tmp/g/latest/status.json" && grep -q '"state": "ok"' "$tmp/g/latest/status.json" ||
	fail "stdout closed: status.json: $(cat "$tmp/g/latest/status.json")"
# - a failing program keeps its own code
"$LLMPROF" profile -q -o "$tmp/g" "${cfg[@]}" -- false >&- 2>err
rc=$?
[ $rc -eq 1 ] || fail "stdout closed, program failed: exit $rc, want 1: $(cat err)"
# - stdout full: exit 7, said once
if [ -w /dev/full ]; then
	"$LLMPROF" profile -q -o "$tmp/g" "${cfg[@]}" -- true >/dev/full 2>err
	rc=$?
	[ $rc -eq 7 ] || fail "stdout full: exit $rc, want 7: $(cat err)"
	[ "$(grep -c 'standard output' err)" -eq 1 ] || fail "stdout full: $(cat err)"
	grep -q '"exit_code": 7' "$tmp/g/latest/status.json" ||
		fail "stdout full: status.json: $(cat "$tmp/g/latest/status.json")"
fi
# - stdout a pipe whose reader left (it left before the program ended):
#   exit 7, and status.json says 7
"$LLMPROF" profile -q -o "$tmp/p" "${cfg[@]}" -- sleep 0.5 2>err | true
rc=${PIPESTATUS[0]}
[ $rc -eq 7 ] || fail "stdout a broken pipe: exit $rc, want 7: $(cat err)"
grep -q '"exit_code": 7' "$tmp/p/latest/status.json" ||
	fail "stdout a broken pipe: status.json: $(cat "$tmp/p/latest/status.json")"
# - --echo of output without a final line end: run: starts a fresh line
"$LLMPROF" profile -q --echo -o "$tmp/g" "${cfg[@]}" -- printf 'no-eol' >out 2>err ||
	fail "--echo: $(cat err)"
[ "$(sed -n 1p out)" = no-eol ] && [ "$(wc -l <out)" -eq 2 ] && grep -q "^run: $tmp/g/" out ||
	fail "--echo without a line end: $(cat -A out)"
"$LLMPROF" profile -q --echo -o "$tmp/g" "${cfg[@]}" -- printf 'eol\n' >out 2>err ||
	fail "--echo: $(cat err)"
[ "$(wc -l <out)" -eq 2 ] || fail "--echo with a line end: an extra line: $(cat -A out)"
# - a control character in artifacts.root (it would split the line): exit 3
nl='
'
"$LLMPROF" profile -o "$tmp/a${nl}b" "${cfg[@]}" -- true >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "newline in the root: exit $rc, want 3: $(cat err)"
grep -q "config key 'artifacts.root' expects a path without control characters" err ||
	fail "newline in the root: $(cat err)"
[ ! -e "$tmp/a${nl}b" ] || fail "newline in the root: created"
echo ok
