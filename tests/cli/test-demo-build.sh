#!/usr/bin/env bash
# `make demo` builds only what the default `llmprof profile` runs (the
# demo-deps target: the CLI, the builtin tracer, the built-in llm workload),
# never the tests, fuzz replays or benchmarks; scripts/heartbeat.sh keeps a
# long silent step (nvcc, apt) from looking hung.
set -u
: "${LLMPROF_SOURCE_DIR:?}" "${LLMPROF_BUILD_DIR:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
src=$LLMPROF_SOURCE_DIR

# 1. heartbeat.sh: copies every line, speaks up while quiet, keeps the status
HEARTBEAT_S=1 bash "$src/scripts/heartbeat.sh" step bash -c \
	'echo first; sleep 2.5; echo second >&2; printf tail; exit 3' >"$tmp/hb" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "heartbeat: exit $rc, want the command's 3"
[ "$(head -n 1 "$tmp/hb")" = first ] || fail "heartbeat first line: $(cat "$tmp/hb")"
grep -q '^step: still running ([0-9]*s)$' "$tmp/hb" || fail "heartbeat said nothing while quiet: $(cat "$tmp/hb")"
grep -qx second "$tmp/hb" || fail "heartbeat lost stderr: $(cat "$tmp/hb")"
[ "$(tail -n 1 "$tmp/hb")" = tail ] || fail "heartbeat lost a last line without newline: $(cat "$tmp/hb")"
HEARTBEAT_S=5 bash "$src/scripts/heartbeat.sh" step true >"$tmp/hb" 2>&1 || fail "heartbeat true"
[ ! -s "$tmp/hb" ] || fail "heartbeat printed for a quick quiet command: $(cat "$tmp/hb")"
# --log FILE: the command's lines to FILE, only the heartbeat on stdout
HEARTBEAT_S=1 bash "$src/scripts/heartbeat.sh" --log "$tmp/log" cfg bash -c \
	'echo one; sleep 1.5; echo two >&2' >"$tmp/hb" 2>&1 || fail "heartbeat --log: exit $?"
[ "$(cat "$tmp/log")" = "$(printf 'one\ntwo')" ] || fail "heartbeat --log file: $(cat "$tmp/log")"
grep -qx "cfg: still running ([0-9]*s)" "$tmp/hb" && ! grep -vqx "cfg: still running ([0-9]*s)" "$tmp/hb" ||
	fail "heartbeat --log stdout: $(cat "$tmp/hb")"

# 1b. install-deps.sh shows apt's own output and never goes quiet (fake
#     dpkg-query/apt-get/id on PATH: one package missing, apt slow)
mkdir -p "$tmp/fake"
printf '#!/bin/sh\n[ "$3" = sqlite3 ] && exit 1\necho "install ok installed"\n' >"$tmp/fake/dpkg-query"
printf '#!/bin/sh\necho "apt-get $*"\n[ "$1" = install ] && { echo "Get:1 sqlite3"; sleep 2.5; echo "Setting up sqlite3"; }\nexit 0\n' >"$tmp/fake/apt-get"
printf '#!/bin/sh\necho 0\n' >"$tmp/fake/id"
chmod +x "$tmp/fake/"*
PATH=$tmp/fake:$PATH HEARTBEAT_S=1 bash "$src/scripts/install-deps.sh" >"$tmp/deps" 2>&1 ||
	fail "install-deps with fakes: $(cat "$tmp/deps")"
for l in "install-deps: installing sqlite3" "apt-get update" "Get:1 sqlite3" "Setting up sqlite3"; do
	grep -qxF "$l" "$tmp/deps" || fail "install-deps hides '$l': $(cat "$tmp/deps")"
done
grep -q "^apt-get install -y --no-install-recommends sqlite3$" "$tmp/deps" || fail "apt-get install argv: $(cat "$tmp/deps")"
grep -qx "apt-get: still running ([0-9]*s)" "$tmp/deps" || fail "install-deps silent while apt works: $(cat "$tmp/deps")"
PATH=$tmp/fake:$PATH bash "$src/scripts/install-deps.sh" --check >"$tmp/deps" 2>&1 && fail "--check with a package missing"
grep -qx "missing packages: sqlite3" "$tmp/deps" || fail "--check: $(cat "$tmp/deps")"

# 2. the Makefile's demo recipe builds the demo-deps target, and only it
command -v make >/dev/null || { echo "skip: make not installed"; exit 77; }
make -s -n -C "$src" demo BUILD="$tmp/b" >"$tmp/n" 2>&1 || fail "make -n demo: $(cat "$tmp/n")"
grep -q "cmake --build $tmp/b .*--target demo-deps" "$tmp/n" || fail "demo does not build demo-deps: $(cat "$tmp/n")"
grep "cmake --build" "$tmp/n" | grep -v -- "--target demo-deps" && fail "demo builds more than demo-deps"
grep -qx "$tmp/b/llmprof profile" "$tmp/n" || fail "demo does not profile: $(cat "$tmp/n")"

# 3. demo-deps is the CLI, the llm workload and (with the toolkit) the tracer
[ -f "$LLMPROF_BUILD_DIR/build.ninja" ] || { echo "skip: $LLMPROF_BUILD_DIR is not a Ninja build"; exit 77; }
command -v ninja >/dev/null || { echo "skip: ninja not installed"; exit 77; }
ninja -C "$LLMPROF_BUILD_DIR" -t query demo-deps >"$tmp/q" 2>&1 || fail "no demo-deps target: $(cat "$tmp/q")"
sed -n '/input:/,/outputs:/p' "$tmp/q" | sed -n 's/^    //p' | sort >"$tmp/got"
{ echo llmprof; echo workloads/llmprof-llm
  [ -d "$LLMPROF_BUILD_DIR/tracer" ] && echo tracer/libllmprof_tracer.so; } | sort >"$tmp/want"
diff "$tmp/want" "$tmp/got" >&2 || fail "demo-deps inputs differ (want, got above)"
ninja -C "$LLMPROF_BUILD_DIR" -t commands demo-deps >"$tmp/c" || fail "ninja -t commands"
grep -E "/(tests|bench)/|llmprof-dummy|llmprof-calibrate" "$tmp/c" | head -n 3 >"$tmp/extra"
[ ! -s "$tmp/extra" ] || fail "demo-deps builds more than the demo needs: $(cat "$tmp/extra")"
all=$(ninja -C "$LLMPROF_BUILD_DIR" -t commands | wc -l)
demo=$(wc -l <"$tmp/c")
[ "$demo" -lt "$all" ] || fail "demo-deps runs all $all build commands"
echo "ok ($demo of $all build commands)"
