#!/usr/bin/env bash
# A symlink in the user's path to the artifacts root (above it, at it, in
# an absolute path: /scratch -> a parallel file system) is followed like
# any path the user names: the trace step makes trace/trace.sqlite and every
# later step runs; the same for `nvtx --keep` through a symlink. A symlink
# inside the bundle is still refused: the trace folder replaced by one
# while the program ran stops the trace step (exit 7) and nothing is
# written where it points.
set -u
b=${LLMPROF_BUILD_DIR:?}
L=${LLMPROF:?}
prog=$b/tests/nvtx-test-program
if [ ! -x "$prog" ] || [ ! -f "$b/tracer/libllmprof_tracer.so" ]; then
	echo "skip: tracer or NVTX test program not built (no CUDA toolkit)"
	exit 77
fi
tmp=$(mktemp -d /tmp/llmprof-cli-symroot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
cd "$tmp" || exit 1
mkdir real && ln -s real link && ln -s "$tmp/real" abs

# profile ROOT: exit 0, the trace and the reports made, status.json ok
profiled() {
	local root=$1 run
	"$L" profile -q -o "$root" -- "$prog" >out 2>err
	rc=$?
	[ $rc -eq 0 ] || fail "profile -o $root: exit $rc, want 0: $(cat err)"
	run=$(sed -n 's/^run: //p' out)
	[ -n "$run" ] || fail "profile -o $root: no run: line"
	[ -f "$run/trace/trace.sqlite" ] && [ -f "$run/trace/trace.json" ] && [ -f "$run/report.md" ] ||
		fail "profile -o $root: trace or reports missing: $(ls -R "$run")"
	grep -q '"state": "ok"' "$run/status.json" || fail "profile -o $root: status.json not ok"
	[ "$(sqlite3 "$run/trace/trace.sqlite" 'SELECT count(*) FROM NVTX_EVENTS')" -gt 0 ] ||
		fail "profile -o $root: no NVTX ranges in the trace"
	case $run in "$root"/* | "$tmp/$root"/*) ;; *) fail "profile -o $root: run '$run' is not named as given" ;; esac
}
profiled link/runs         # a symlink above the root
profiled link              # the root itself
profiled "$tmp/abs/deeper" # an absolute path through a symlink
[ "$(ls real/runs | grep -cv latest)" -eq 1 ] && [ -d real/deeper ] || fail "bundles not in real/"

# nvtx --keep through a symlink, and a symlink as DIR itself
for keep in link/keep abs; do
	"$L" nvtx --keep "$keep" -- "$prog" >out 2>err
	rc=$?
	[ $rc -eq 0 ] || fail "nvtx --keep $keep: exit $rc, want 0: $(cat err)"
	grep -q "^trace: $keep/trace.sqlite$" out || fail "nvtx --keep $keep: $(cat out)"
	grep -Eq '^LLM +prefill ' out || fail "nvtx --keep $keep: no listing: $(cat out)"
done

# a symlink inside the bundle: refused, nothing written through it
mkdir outside
"$L" profile -q -o link/in -- sh -c "'$prog' && mv \"\$LLMPROF_RUN_DIR/trace\" '$tmp/outside/t' &&
	ln -s '$tmp/outside/t' \"\$LLMPROF_RUN_DIR/trace\"" >out 2>err
rc=$?
[ $rc -eq 7 ] || fail "trace/ replaced by a symlink: exit $rc, want 7: $(cat err)"
grep -q "/trace' .*symlink; llmprof writes only into real directories" err ||
	fail "trace/ replaced by a symlink: no clear line: $(cat err)"
[ -z "$(find outside -name 'trace.sqlite*' -o -name 'trace.json*')" ] ||
	fail "written through the trace/ symlink: $(find outside)"
echo ok
